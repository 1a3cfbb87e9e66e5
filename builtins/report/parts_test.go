package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/starbench/starbench/runner/results"
)

// partSpec is one load of a merged step: its name, threads, tps and the
// one latency (ms) every event of it took; idle ones did not start.
type partSpec struct {
	name    string
	threads int
	tps     float64
	latMS   float64
	idle    bool
}

// writeLoad writes a 10-second step folder of oltp_point_select whose
// events all took latMS.
func writeLoad(t *testing.T, dir, workload string, threads int, tps, latMS float64, tags map[string]string) {
	t.Helper()
	events := int64(tps * 10)
	h := hdr.New(1, 3600e6, 3)
	if err := h.RecordValues(int64(latMS*1000), events); err != nil {
		t.Fatal(err)
	}
	lat := results.LatencySummary{MinMS: latMS, AvgMS: latMS, MaxMS: latMS, SumMS: latMS * float64(events),
		Percentiles: map[string]float64{"50": latMS, "95": latMS, "99": latMS}}
	sum := &results.Summary{Workload: results.Meta{Name: workload, Version: "test"}, Tags: tags,
		Started: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC), Threads: threads, Seconds: 10, Stopped: "time",
		Status: results.StatusCompleted, Events: events, Queries: events, Reads: events, TPS: tps, QPS: tps, Latency: lat,
		IntervalSeconds: 10, PlannedSeconds: 10}
	ivs := []results.Interval{{Time: 10, Threads: threads, Events: events, TPS: tps, QPS: tps, P50: latMS, P95: latMS, P99: latMS, Max: latMS}}
	if err := results.WriteStep(dir, results.Step{Summary: sum, Intervals: ivs,
		Latency: []results.LatencyInterval{{Start: 0, End: 10 * time.Second, Histogram: h}}}); err != nil {
		t.Fatal(err)
	}
}

// partsRun writes a results folder of two steps: 1, oltp_read_only at
// one thread; 2, oltp_point_select run as the given parts, merged as a
// together step does (a part that did not start is an entry without a
// folder). Both carry the tag mode=m.
func partsRun(t *testing.T, name string, parts []partSpec) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	tags := map[string]string{"mode": "m"}
	writeLoad(t, filepath.Join(dir, results.StepsDir, "1-oltp_read_only-t1"), "oltp_read_only", 1, 50, 2, tags)
	step := filepath.Join(dir, results.StepsDir, "2-together")
	var ran []results.MergePart
	var idle []results.Part
	for k, p := range parts {
		if p.idle {
			idle = append(idle, results.Part{Name: p.name, Dir: results.PartDir(k+1, p.name), Workload: "tpcc",
				Status: results.StatusFailed, Error: "did not start:\nrefused"})
			continue
		}
		pd := filepath.Join(step, results.PartDir(k+1, p.name))
		writeLoad(t, pd, "oltp_point_select", p.threads, p.tps, p.latMS, tags)
		ran = append(ran, results.MergePart{Name: p.name, Dir: pd})
	}
	merged, err := results.Merge(step, ran, results.MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range merged.Parts { // as a together step: each part's own folder
		merged.Parts[i].Dir, _ = filepath.Rel(step, ran[i].Dir)
	}
	merged.Parts = append(merged.Parts, idle...)
	if err := results.FinishStep(step, merged, nil); err != nil {
		t.Fatal(err)
	}
	writeManifest(t, dir, "parts.star", false)
	return dir
}

func loadRun(t *testing.T, dir string) *Run {
	t.Helper()
	r, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// A merged step loads with its parts, which are not benchmarks of the
// run; a part that did not start keeps its status and error.
func TestLoadParts(t *testing.T) {
	r := loadRun(t, partsRun(t, "a", []partSpec{{"p1", 2, 100, 5, false}, {"p2", 4, 300, 10, false}, {"w1", 0, 0, 0, true}}))
	if len(r.Benchmarks) != 2 || len(r.Benchmarks[0].Parts) != 0 {
		t.Fatalf("%d benchmarks, want the 2 steps (parts are not benchmarks)", len(r.Benchmarks))
	}
	b := r.Benchmarks[1]
	if b.Threads() != 6 || b.Summary.TPS != 400 || len(b.Parts) != 3 {
		t.Fatalf("merged step: %d threads, %.2f tps, %d parts", b.Threads(), b.Summary.TPS, len(b.Parts))
	}
	for i, want := range []struct {
		label   string
		ran     bool
		threads int
		tps     float64
		status  string
	}{{"1 p1", true, 2, 100, results.StatusCompleted}, {"2 p2", true, 4, 300, results.StatusCompleted}, {"3 w1", false, 0, 0, results.StatusFailed}} {
		p := b.Parts[i]
		if p.PartLabel() != want.label || p.Part.Ran != want.ran || p.Threads() != want.threads || p.Summary.TPS != want.tps ||
			p.Summary.Status != want.status || p.Step != b.Step || p.Run != r {
			t.Errorf("part %d: %s ran=%v %d threads %.2f tps %s step %q", i+1, p.PartLabel(), p.Part.Ran, p.Threads(), p.Summary.TPS, p.Summary.Status, p.Step)
		}
	}
	if p := b.Parts[0]; p.Dir != filepath.Join(b.Dir, "parts", "1-p1") || len(p.Intervals) != 1 {
		t.Errorf("part 1: dir %s, %d intervals", p.Dir, len(p.Intervals))
	}
	if e := b.Parts[2].Summary.Error; e != "did not start:\nrefused" {
		t.Errorf("idle part's error %q", e)
	}
}

func TestReportParts(t *testing.T) {
	r := loadRun(t, partsRun(t, "a", []partSpec{{"p1", 2, 100, 5, false}, {"p2", 4, 300, 10, false}, {"w1", 0, 0, 0, true}}))
	var plain, parts bytes.Buffer
	WriteText(&plain, WorkloadTables(r.Benchmarks))
	WriteText(&parts, ReportOptions{Parts: true}.WorkloadTables(r.Benchmarks))
	// The merged row is the step's: its p99 off one histogram of both
	// parts' latencies (3000 of 4000 events at 10 ms).
	want := `oltp_read_only
mode  threads    tps    qps  avg ms  p95 ms  p99 ms  min ms  max ms  errors
----  -------  -----  -----  ------  ------  ------  ------  ------  ------
m           1  50.00  50.00    2.00    2.00    2.00    2.00    2.00       0

oltp_point_select
mode  threads     tps     qps  avg ms  p95 ms  p99 ms  min ms  max ms  errors
----  -------  ------  ------  ------  ------  ------  ------  ------  ------
m           6  400.00  400.00    8.75   10.00   10.00    5.00   10.00       0
`
	if plain.String() != want {
		t.Errorf("without parts:\n%s\nwant:\n%s", plain.String(), want)
	}
	want = `oltp_read_only
mode  threads    tps    qps  avg ms  p95 ms  p99 ms  min ms  max ms  errors
----  -------  -----  -----  ------  ------  ------  ------  ------  ------
m           1  50.00  50.00    2.00    2.00    2.00    2.00    2.00       0

oltp_point_select
mode  part                                   threads     tps     qps  avg ms  p95 ms  p99 ms  min ms  max ms  errors
----  -------------------------------------  -------  ------  ------  ------  ------  ------  ------  ------  ------
m                                                  6  400.00  400.00    8.75   10.00   10.00    5.00   10.00       0
m     1 p1                                         2  100.00  100.00    5.00    5.00    5.00    5.00    5.00       0
m     2 p2                                         4  300.00  300.00   10.00   10.00   10.00   10.00   10.00       0
m     3 w1 (failed: did not start: refused)        -       -       -       -       -       -       -       -       -
`
	if parts.String() != want {
		t.Errorf("with parts:\n%s\nwant:\n%s", parts.String(), want)
	}

	var md bytes.Buffer
	ReportOptions{Parts: true}.WriteReport(&md, []*Run{r}, true)
	for _, line := range []string{
		"| mode | part | threads | tps | qps | avg ms | p95 ms | p99 ms | min ms | max ms | errors |",
		"| m |  | 6 | 400.00 | 400.00 | 8.75 | 10.00 | 10.00 | 5.00 | 10.00 | 0 |",
		"| m | 1 p1 | 2 | 100.00 | 100.00 | 5.00 | 5.00 | 5.00 | 5.00 | 5.00 | 0 |",
		"| m | 2 p2 | 4 | 300.00 | 300.00 | 10.00 | 10.00 | 10.00 | 10.00 | 10.00 | 0 |",
		"| mode | threads | tps | qps | avg ms | p95 ms | p99 ms | min ms | max ms | errors |", // oltp_read_only: no parts, no column
	} {
		if !strings.Contains(md.String(), "\n"+line+"\n") {
			t.Errorf("markdown lacks %q:\n%s", line, md.String())
		}
	}
	md.Reset()
	WriteReport(&md, []*Run{r}, true)
	if strings.Contains(md.String(), "| part |") || strings.Contains(md.String(), "| 1 p1 |") || strings.Count(md.String(), "\n| m | ") != 2 {
		t.Errorf("markdown without parts shows them:\n%s", md.String())
	}
}

func TestReportPartsCSVAndJSON(t *testing.T) {
	r := loadRun(t, partsRun(t, "a", []partSpec{{"p1", 2, 100, 5, false}, {"p2", 4, 300, 10, false}, {"w1", 0, 0, 0, true}}))
	records := func(o ReportOptions) [][]string {
		var buf bytes.Buffer
		if err := o.WriteCSV(&buf, r.Benchmarks); err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(&buf).ReadAll() // every record as long as the header
		if err != nil {
			t.Fatal(err)
		}
		return recs
	}
	recs := records(ReportOptions{})
	if len(recs) != 3 || strings.Join(recs[0][:5], ",") != "run,step,workload,threads,mode" {
		t.Errorf("csv without parts: %v", recs)
	}
	recs = records(ReportOptions{Parts: true})
	var got []string
	for _, rec := range recs {
		// run, step, part, workload, threads, mode, round, seconds, events, tps ... status
		got = append(got, strings.Join([]string{rec[1], rec[2], rec[3], rec[4], rec[5], rec[9], rec[len(rec)-1]}, ","))
	}
	want := []string{
		"step,part,workload,threads,mode,tps,status",
		"1,,oltp_read_only,1,m,50.00,completed",
		"2,,oltp_point_select,6,m,400.00,completed",
		"2,1 p1,oltp_point_select,2,m,100.00,completed",
		"2,2 p2,oltp_point_select,4,m,300.00,completed",
		"2,3 w1,tpcc,,m,,failed",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("csv with parts:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	var buf bytes.Buffer
	if err := WriteJSON(&buf, []*Run{r}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Benchmarks []struct {
			Step  string `json:"step"`
			Parts []struct {
				Part    int              `json:"part"`
				Name    string           `json:"name"`
				Dir     string           `json:"dir"`
				Status  string           `json:"status"`
				Error   string           `json:"error"`
				Summary *results.Summary `json:"summary"`
			} `json:"parts"`
		} `json:"benchmarks"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil || len(doc.Benchmarks) != 2 {
		t.Fatalf("json: %v\n%s", err, buf.String())
	}
	if len(doc.Benchmarks[0].Parts) != 0 || len(doc.Benchmarks[1].Parts) != 3 {
		t.Fatalf("json parts: %+v", doc.Benchmarks)
	}
	ps := doc.Benchmarks[1].Parts
	if ps[0].Part != 1 || ps[0].Name != "p1" || ps[0].Summary == nil || ps[0].Summary.Threads != 2 || ps[0].Summary.TPS != 100 ||
		ps[1].Summary == nil || ps[1].Summary.TPS != 300 || filepath.Base(ps[1].Dir) != "2-p2" {
		t.Errorf("json ran parts: %+v", ps[:2])
	}
	if ps[2].Summary != nil || ps[2].Status != "failed" || ps[2].Error != "did not start:\nrefused" {
		t.Errorf("json idle part: %+v", ps[2])
	}
}

// compare pairs part k of a step with part k of the same step of the
// other contenders; the parts are shown, not gated.
func TestCompareParts(t *testing.T) {
	a := loadRun(t, partsRun(t, "a", []partSpec{{"p1", 2, 100, 5, false}, {"p2", 4, 300, 10, false}, {"w1", 0, 0, 0, true}}))
	b := loadRun(t, partsRun(t, "b", []partSpec{{"p1", 2, 90, 5, false}, {"p2", 4, 330, 10, false}, {"w1", 0, 0, 0, true}}))
	gate := []Threshold{mustThreshold(t, "tps<-5%")}
	plain, err := Compare([]*Run{a, b}, CompareOptions{Thresholds: gate})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compare([]*Run{a, b}, CompareOptions{Thresholds: gate, Parts: true})
	if err != nil {
		t.Fatal(err)
	}
	names := func(c *Comparison) string {
		var out []string
		for _, r := range c.Rows {
			out = append(out, r.Name+"|"+r.Part)
		}
		return strings.Join(out, ", ")
	}
	if got, want := names(plain), "oltp_read_only t1 mode=m|, oltp_point_select t6 mode=m|"; got != want {
		t.Errorf("rows without parts: %s, want %s", got, want)
	}
	// Part 3 did not start in the baseline: no row.
	if got, want := names(c), "oltp_read_only t1 mode=m|, oltp_point_select t6 mode=m|, oltp_point_select t6 mode=m part 1|1 p1, oltp_point_select t6 mode=m part 2|2 p2"; got != want {
		t.Errorf("rows with parts: %s, want %s", got, want)
	}
	for i, change := range []float64{0, 5, -10, 10} {
		if cell := c.Rows[i].Cells[1]; !cell.Present || math.Abs(cell.Change-change) > 1e-9 {
			t.Errorf("row %s: %+v, want a change of %+.0f%%", c.Rows[i].Name, cell, change)
		}
	}
	// Part 1 fell 10%, the step rose 5%: the gate is on steps.
	if len(c.Violations) != 0 || len(plain.Violations) != 0 {
		t.Errorf("violations %+v %+v", c.Violations, plain.Violations)
	}
	var buf bytes.Buffer
	WriteMarkdown(&buf, []Table{c.Table()})
	for _, line := range []string{
		"| workload | threads | tags | part | a | b | vs a |",
		"| oltp_point_select | 6 | mode=m |  | 400.00 | 420.00 | +5.00% |",
		"| oltp_point_select | 2 | mode=m | 1 p1 | 100.00 | 90.00 | -10.00% |",
		"| oltp_point_select | 4 | mode=m | 2 p2 | 300.00 | 330.00 | +10.00% |",
	} {
		if !strings.Contains(buf.String(), "\n"+line+"\n") {
			t.Errorf("compare table lacks %q:\n%s", line, buf.String())
		}
	}
	buf.Reset()
	WriteMarkdown(&buf, []Table{plain.Table()})
	if strings.Contains(buf.String(), "part") || strings.Count(buf.String(), "\n| oltp_") != 2 {
		t.Errorf("compare without parts:\n%s", buf.String())
	}
}

// Parts pair by their number, not their name; a part a contender did
// not run is "-" and fails no gate.
func TestComparePartsByNumber(t *testing.T) {
	withParts := func(run *Run, tps float64, parts ...*Benchmark) {
		b := bm(run, "oltp_point_select", 6, tps, 5, nil)
		for k, p := range parts {
			p.Run, p.Part = run, &PartInfo{K: k + 1, Entry: results.Part{Name: p.Workload(), Status: p.Summary.Status}, Ran: p.Threads() > 0}
			b.Parts = append(b.Parts, p)
		}
	}
	part := func(name string, threads int, tps float64) *Benchmark {
		return &Benchmark{Summary: results.Summary{Workload: results.Meta{Name: name}, Threads: threads, TPS: tps, Status: results.StatusCompleted}}
	}
	a, b := &Run{Name: "a"}, &Run{Name: "b"}
	withParts(a, 400, part("seg1", 2, 100), part("seg2", 4, 300))
	withParts(b, 380, part("other1", 2, 120), part("other2", 0, 0))
	c, err := Compare([]*Run{a, b}, CompareOptions{Parts: true, Thresholds: []Threshold{mustThreshold(t, "tps<-50%")}})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Rows) != 3 || c.Rows[1].Part != "1 seg1" || math.Abs(c.Rows[1].Cells[1].Change-20) > 1e-9 ||
		c.Rows[2].Part != "2 seg2" || c.Rows[2].Cells[1].Present {
		t.Fatalf("rows %+v", c.Rows)
	}
	if len(c.Violations) != 0 {
		t.Errorf("a part a contender lacks fails the gate: %+v", c.Violations)
	}
	if !strings.Contains(c.Legend(), "-: the contender has no such part") {
		t.Errorf("legend %q", c.Legend())
	}
}

// The HTML page shows a merged step's parts as rows under it.
func TestHTMLShowsParts(t *testing.T) {
	r := loadRun(t, partsRun(t, "a", []partSpec{{"p1", 2, 100, 5, false}, {"p2", 4, 300, 10, false}}))
	var page bytes.Buffer
	if err := WriteHTML(&page, []*Run{r}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{">part<", ">1 p1<", ">2 p2<", ">300.00<"} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}
