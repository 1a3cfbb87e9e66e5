package report

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/starbench/starbench/runner/results"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/report/golden")

const goldenDir = "../../testdata/report/golden"

// The seed folders below are synthetic results folders written with
// package results' writers, their steps tagged as the seed plans tag
// theirs (plans/seed00*.star), and imported figures as `starbench import`
// writes them (results.WriteImportedStep, the figures it was given).

var started = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// writeManifest makes dir a results folder of plan.
func writeManifest(t *testing.T, dir, plan string, imported bool) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	m := &results.Manifest{Tool: results.ToolInfo{Name: results.ToolName, Version: "dev"}, Plan: plan,
		Started: started, Status: results.StatusCompleted, Imported: imported}
	if err := results.WriteManifest(dir, m, nil); err != nil {
		t.Fatal(err)
	}
}

// load is a step a run wrote: 10 seconds of tps transactions and qps
// queries a second, half the events taking lo ms and half hi ms (with
// their histogram, so that merges read it), tpmC when tpmc > 0.
type load struct {
	workload string
	threads  int
	tps, qps float64
	lo, hi   float64
	tpmc     float64
	tags     map[string]string
}

func writeLoadStep(t *testing.T, dir string, l load) {
	t.Helper()
	events := int64(l.tps * 10)
	h := hdr.New(1, 3600e6, 3)
	if err := h.RecordValues(int64(l.lo*1000), events/2); err != nil {
		t.Fatal(err)
	}
	if err := h.RecordValues(int64(l.hi*1000), events-events/2); err != nil {
		t.Fatal(err)
	}
	sumMS := l.lo*float64(events/2) + l.hi*float64(events-events/2)
	lat := results.LatencySummary{MinMS: l.lo, AvgMS: sumMS / float64(events), MaxMS: l.hi, SumMS: sumMS,
		Percentiles: map[string]float64{"50": l.lo, "95": l.hi, "99": l.hi}}
	sum := &results.Summary{Workload: results.Meta{Name: l.workload, Version: "test"}, Tags: l.tags, Started: started,
		Threads: l.threads, Seconds: 10, Stopped: "time", Status: results.StatusCompleted, Events: events,
		Queries: int64(l.qps * 10), Reads: int64(l.qps * 10), TPS: l.tps, QPS: l.qps, Latency: lat, IntervalSeconds: 10, PlannedSeconds: 10}
	if l.tpmc > 0 {
		sum.Metrics = map[string]float64{"tpmC": l.tpmc, "tpmTotal": l.tpmc * 2.2}
	}
	ivs := []results.Interval{{Time: 10, Threads: l.threads, Events: events, TPS: l.tps, QPS: l.qps, P50: l.lo, P95: l.hi, P99: l.hi, Max: l.hi}}
	if err := results.WriteStep(dir, results.Step{Summary: sum, Intervals: ivs,
		Latency: []results.LatencyInterval{{Start: 0, End: 10 * time.Second, Histogram: h}}}); err != nil {
		t.Fatal(err)
	}
}

// writeTogether writes a bench.together step of the loads: each a part
// folder, the step their exact merge with tags added to the parts'
// common ones.
func writeTogether(t *testing.T, step string, parts []load, tags map[string]string) {
	t.Helper()
	var ran []results.MergePart
	for k, p := range parts {
		name := fmt.Sprintf("%s-%d", p.workload, k+1)
		pd := filepath.Join(step, results.PartDir(k+1, name))
		writeLoadStep(t, pd, p)
		ran = append(ran, results.MergePart{Name: name, Dir: pd})
	}
	merged, err := results.Merge(step, ran, results.MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range merged.Parts {
		merged.Parts[i].Dir, _ = filepath.Rel(step, ran[i].Dir)
	}
	if merged.Tags == nil {
		merged.Tags = map[string]string{}
	}
	for k, v := range tags {
		merged.Tags[k] = v
	}
	if err := results.FinishStep(step, merged, nil); err != nil {
		t.Fatal(err)
	}
}

// figure is one of a published report's figures: its name among a
// summary's figures (results.Imported) and value.
type figure struct {
	name  string
	value float64
}

// published is a step as `starbench import` writes a CSV row of a
// report's figures: workload and threads (from the row, or from
// --workload and --threads when it has none: threadsAssumed), the other
// columns tags, and only the figures given (a change as Metrics
// change_<metric>).
type published struct {
	workload       string
	threads        int
	threadsAssumed bool
	tags           map[string]string
	figures        []figure
	line           int
}

func writeImported(t *testing.T, dir string, steps []published) {
	t.Helper()
	writeManifest(t, dir, "import of published figures", true)
	for i, p := range steps {
		sum := &results.Summary{Workload: results.Meta{Name: p.workload}, Tags: p.tags, Threads: p.threads, Status: results.StatusCompleted,
			Imported: &results.Imported{Source: "published.csv", Line: p.line, Format: "csv"}}
		if !p.threadsAssumed {
			sum.Imported.Given = append(sum.Imported.Given, results.FigureThreads)
		}
		for _, f := range p.figures {
			sum.Imported.Given = append(sum.Imported.Given, f.name)
			switch f.name {
			case results.FigureTPS:
				sum.TPS = f.value
			case results.FigureQPS:
				sum.QPS = f.value
			case results.FigureMinMS:
				sum.Latency.MinMS = f.value
			case results.FigureAvgMS:
				sum.Latency.AvgMS = f.value
			case results.FigureMaxMS:
				sum.Latency.MaxMS = f.value
			case "p95_ms", "p99_ms":
				if sum.Latency.Percentiles == nil {
					sum.Latency.Percentiles = map[string]float64{}
				}
				sum.Latency.Percentiles[strings.TrimSuffix(strings.TrimPrefix(f.name, "p"), "_ms")] = f.value
			default: // tpmC, change_<metric>
				if sum.Metrics == nil {
					sum.Metrics = map[string]float64{}
				}
				sum.Metrics[f.name] = f.value
			}
		}
		stepDir := results.StepDir(dir, strconv.Itoa(i+1), "imported")
		if err := results.WriteImportedStep(stepDir, results.Step{Summary: sum}); err != nil {
			t.Fatal(err)
		}
	}
}

// golden compares got with testdata/report/golden/name (rewritten with
// -update).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join(goldenDir, name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to write it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (-update rewrites it after a check):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// goldens renders the pivot of the folders as text, Markdown and CSV and
// compares each with its golden file; it returns the result.
func goldens(t *testing.T, seed string, p Pivot, dirs ...string) *PivotResult {
	t.Helper()
	var runs []*Run
	for _, d := range dirs {
		runs = append(runs, loadRun(t, d))
	}
	r, err := p.Build(Benchmarks(runs))
	if err != nil {
		t.Fatal(err)
	}
	var text, md, csvOut bytes.Buffer
	r.WriteText(&text)
	r.WriteMarkdown(&md)
	if err := r.WriteCSV(&csvOut); err != nil {
		t.Fatal(err)
	}
	golden(t, seed+".txt", text.Bytes())
	golden(t, seed+".md", md.Bytes())
	golden(t, seed+".csv", csvOut.Bytes())
	return r
}

// cellOf finds the cell of a table in row (the first row tag's value)
// and the column with header.
func cellOf(t *testing.T, tb *PivotTable, row, header string) PivotCell {
	t.Helper()
	for _, r := range tb.Rows {
		if r.Key[0] != row {
			continue
		}
		for i, c := range tb.Columns {
			if c.Header() == header {
				return r.Cells[i]
			}
		}
	}
	var headers []string
	for _, c := range tb.Columns {
		headers = append(headers, c.Header())
	}
	t.Fatalf("%s: no cell in row %q, column %q (columns: %s)", tb.Title, row, header, strings.Join(headers, " | "))
	return PivotCell{}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-6*math.Max(1, math.Abs(b)) }

// Seed 004: three cases (the rand case another workload), rounds; the
// report's own figures as the rerun's, so the mean row is the report's
// "TPS平均值" and "Latency平均值".
func seed004(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "seed004")
	writeManifest(t, dir, "seed004_tidb_insert_hotspot.star", false)
	report := map[string][][2]float64{ // TPS, latency avg ms by round
		"incr":  {{7183.80, 6.96}, {7651.24, 6.53}, {6900.01, 7.24}, {6884.09, 7.26}, {7200.79, 6.94}},
		"rand":  {{8084.06, 6.18}, {6186.63, 8.08}, {6397.88, 7.81}, {6324.73, 7.90}, {6656.51, 7.51}},
		"split": {{6964.05, 7.18}, {6668.02, 7.50}, {6343.44, 7.88}, {6246.54, 8.00}, {6186.46, 8.08}},
	}
	id := 0
	for round := 1; round <= 5; round++ {
		for _, c := range []string{"incr", "rand", "split"} {
			id++
			wl := "oltp_legacy/insert"
			if c == "rand" {
				wl = "oltp_legacy/bulk_insert"
			}
			f := report[c][round-1]
			// avg = (lo + hi) / 2 = the report's latency.
			writeLoadStep(t, results.StepDir(dir, strconv.Itoa(id), "insert-t50"), load{workload: wl, threads: 50, tps: f[0], qps: f[0],
				lo: f[1] - 0.5, hi: f[1] + 0.5, tags: map[string]string{"case": c, "round": strconv.Itoa(round)}})
		}
	}
	return dir
}

func TestPivotSeed004(t *testing.T) {
	p := Pivot{Rows: []string{"round"}, Columns: []string{"case"}, Metrics: []Metric{MetricTPS, MetricAvg}, Mean: true}
	r := goldens(t, "seed004", p, seed004(t))
	if len(r.Tables) != 1 {
		t.Fatalf("%d tables, want 1 (the cases' workloads differ, and are one table)", len(r.Tables))
	}
	tb := r.Tables[0]
	if len(tb.Rows) != 6 || !tb.Rows[5].Mean {
		t.Fatalf("%d rows, want 5 rounds and the mean", len(tb.Rows))
	}
	// The report's TPS平均值 and Latency平均值.
	for _, want := range []struct {
		header string
		value  string
	}{{"incr tps", "7,163.99"}, {"rand tps", "6,729.96"}, {"split tps", "6,481.70"},
		{"incr avg ms", "6.99"}, {"rand avg ms", "7.50"}, {"split avg ms", "7.73"}} {
		c := cellOf(t, tb, MeanLabel, want.header)
		if got := FormatFigure(c.Value); got != want.value || c.N != 5 {
			t.Errorf("mean %s = %s over %d rows, want %s over 5", want.header, got, c.N, want.value)
		}
	}
	if c := cellOf(t, tb, "2", "rand tps"); c.Value != 6186.63 || c.N != 1 {
		t.Errorf("round 2 rand tps %+v", c)
	}
}

// Seed 001: seven workloads, each a together step of three sysbench
// loads (tag server on the parts, workload on the step).
func seed001(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "seed001")
	writeManifest(t, dir, "seed001_tidb305_three_sysbench.star", false)
	queries := []float64{1, 10, 16, 4, 20, 1, 1}
	for i, wl := range []string{"oltp_point_select", "select_random_points", "oltp_read_only", "oltp_write_only",
		"oltp_read_write", "oltp_update_index", "oltp_update_non_index"} {
		var parts []load
		for k, server := range []string{"tidb1", "tidb2", "tidb3"} {
			tps := 1000*float64(7-i) + 100*float64(k)
			lo := 0.5 + float64(i) + 0.25*float64(k)
			parts = append(parts, load{workload: wl, threads: 128, tps: tps, qps: tps * queries[i], lo: lo, hi: 3 * lo,
				tags: map[string]string{"server": server}})
		}
		writeTogether(t, results.StepDir(dir, strconv.Itoa(i+1), wl), parts, map[string]string{"workload": wl})
	}
	return dir
}

func TestPivotSeed001(t *testing.T) {
	p := Pivot{Rows: []string{"workload"}, Metrics: []Metric{MetricQPS, MetricMin, MetricAvg, MetricP99}}
	r := goldens(t, "seed001", p, seed001(t))
	tb := r.Tables[0]
	if len(tb.Rows) != 7 || tb.Rows[0].Key[0] != "oltp_point_select" || tb.Rows[6].Key[0] != "oltp_update_non_index" {
		t.Fatalf("rows %v, want the seven workloads in the plan's order", tb.Rows)
	}
	// oltp_read_only: the three loads' qps added, the fastest event the minimum.
	if c := cellOf(t, tb, "oltp_read_only", "qps"); !near(c.Value, (5000+5100+5200)*16) {
		t.Errorf("oltp_read_only qps %v, want the sum of the loads' %v", c.Value, (5000+5100+5200)*16)
	}
	if c := cellOf(t, tb, "oltp_read_only", "min ms"); !near(c.Value, 2.5) {
		t.Errorf("oltp_read_only min %v, want the loads' least, 2.5", c.Value)
	}
}

// Seed 000: set-ups of one TiDB (a step per level) and of two (a
// together step of two sysbench per level), tagged setup.
func seed000(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "seed000")
	writeManifest(t, dir, "seed000_tidb_numa_topologies.star", false)
	id := 0
	for _, setup := range []string{"4.0.11-1tidb", "5.3.0-2tidb-1host"} {
		for w, wl := range []string{"oltp_point_select", "oltp_read_write"} {
			q := []float64{1, 20}[w]
			for _, threads := range []int{150, 300} {
				id++
				tags := map[string]string{"setup": setup}
				base := []float64{60000, 2700}[w] * (1 + float64(threads)/1000)
				lo := []float64{1.5, 40}[w] * float64(threads) / 150
				if setup == "4.0.11-1tidb" {
					writeLoadStep(t, results.StepDir(dir, strconv.Itoa(id), fmt.Sprintf("%s-t%d", wl, threads)),
						load{workload: wl, threads: threads, tps: base, qps: base * q, lo: lo, hi: 2 * lo, tags: tags})
					continue
				}
				var parts []load
				for k := range 2 {
					tps := base * (0.8 + 0.1*float64(k))
					parts = append(parts, load{workload: wl, threads: threads, tps: tps, qps: tps * q, lo: lo * 1.1, hi: 2.2 * lo})
				}
				writeTogether(t, results.StepDir(dir, strconv.Itoa(id), fmt.Sprintf("%s-2x%d", wl, threads)), parts, tags)
			}
		}
	}
	return dir
}

func TestPivotSeed000(t *testing.T) {
	dir := seed000(t)
	p := Pivot{Split: []string{"setup", "workload"}, Rows: []string{"threads"}, Metrics: []Metric{MetricTPS, MetricQPS, MetricAvg}, PerServer: true}
	r := goldens(t, "seed000", p, dir)
	var titles []string
	for _, tb := range r.Tables {
		titles = append(titles, tb.Title)
	}
	want := "setup=4.0.11-1tidb, workload=oltp_point_select: tps, qps, avg by threads|setup=4.0.11-1tidb, workload=oltp_read_write: tps, qps, avg by threads|" +
		"setup=5.3.0-2tidb-1host, workload=oltp_point_select: tps, qps, avg by threads|setup=5.3.0-2tidb-1host, workload=oltp_read_write: tps, qps, avg by threads"
	if got := strings.Join(titles, "|"); got != want {
		t.Fatalf("tables:\n%s\nwant\n%s", got, want)
	}
	// Per server: 150 threads on each of two servers, tps and qps halved.
	two := r.Tables[2]
	base := 60000 * 1.15
	if c := cellOf(t, two, "150 ×2", "tps"); !near(c.Value, base*(0.8+0.9)/2) {
		t.Errorf("2 TiDB, 150 ×2: tps %v, want the two loads' mean %v", c.Value, base*(0.8+0.9)/2)
	}
	if c := cellOf(t, r.Tables[0], "150", "tps"); !near(c.Value, base) {
		t.Errorf("1 TiDB, 150: tps %v, want %v", c.Value, base)
	}
	// Without per_server the merged figures, at the same row.
	p.PerServer = false
	whole, err := p.Build(loadRun(t, dir).Benchmarks)
	if err != nil {
		t.Fatal(err)
	}
	if c := cellOf(t, whole.Tables[2], "150 ×2", "tps"); !near(c.Value, base*(0.8+0.9)) {
		t.Errorf("merged 150 ×2: tps %v, want the sum %v", c.Value, base*(0.8+0.9))
	}
}

// A together step of two 150-thread loads is not a 300-thread step of
// one: in rows they are two rows, in one cell they are not repeats.
func TestPivotTogetherNeverPairsWithOneServer(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mixed")
	writeManifest(t, dir, "mixed.star", false)
	tags := map[string]string{"version": "a"}
	writeLoadStep(t, results.StepDir(dir, "1", "one"), load{workload: "oltp_point_select", threads: 300, tps: 1000, qps: 1000, lo: 1, hi: 2, tags: tags})
	writeTogether(t, results.StepDir(dir, "2", "two"), []load{
		{workload: "oltp_point_select", threads: 150, tps: 600, qps: 600, lo: 1, hi: 2},
		{workload: "oltp_point_select", threads: 150, tps: 700, qps: 700, lo: 1, hi: 2}}, tags)
	bs := loadRun(t, dir).Benchmarks
	r, err := Pivot{Rows: []string{"threads"}, Columns: []string{"version"}, Metrics: []Metric{MetricTPS}}.Build(bs)
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, row := range r.Tables[0].Rows {
		rows = append(rows, row.Key[0])
	}
	if strings.Join(rows, ",") != "150 ×2,300" {
		t.Errorf("rows %v, want 150 ×2 and 300 apart", rows)
	}
	if c := cellOf(t, r.Tables[0], "300", "a tps"); c.Value != 1000 || c.N != 1 {
		t.Errorf("the 300-thread step's cell %+v: averaged with the together step?", c)
	}
	_, err = Pivot{Columns: []string{"version"}, Metrics: []Metric{MetricTPS}}.Build(bs)
	if !errors.Is(err, ErrBadPivot) || !strings.Contains(err.Error(), `differ in threads ("300" and "150 ×2")`) {
		t.Errorf("one cell of a 300-thread step and a together step of 2 x 150: %v", err)
	}
}

// readPublished003 reads the seed 003 report's published figures
// (testdata/report/seed003_published.csv) as import does: version a tag,
// workload and threads the step's, qps and p95_ms its figures.
func readPublished003(t *testing.T) []published {
	t.Helper()
	f, err := os.Open("../../testdata/report/seed003_published.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var text bytes.Buffer
	sc := bufio.NewScanner(f)
	lines := 0
	for sc.Scan() {
		lines++
		if !strings.HasPrefix(sc.Text(), "#") {
			text.WriteString(sc.Text() + "\n")
		}
	}
	recs, err := csv.NewReader(&text).ReadAll()
	if err != nil || len(recs) != 49 || strings.Join(recs[0], ",") != "version,workload,threads,qps,p95_ms" {
		t.Fatalf("published figures: %d records, %v", len(recs), err)
	}
	var out []published
	for i, rec := range recs[1:] {
		threads, _ := strconv.Atoi(rec[2])
		qps, _ := strconv.ParseFloat(rec[3], 64)
		p95, _ := strconv.ParseFloat(rec[4], 64)
		out = append(out, published{workload: rec[1], threads: threads, line: i + 3,
			tags:    map[string]string{"version": rec[0], "source": "published"},
			figures: []figure{{results.FigureQPS, qps}, {"p95_ms", p95}}})
	}
	return out
}

// Seed 003: the rerun (tag version), beside the published figures.
func seed003(t *testing.T) (run, pub string) {
	run = filepath.Join(t.TempDir(), "seed003")
	writeManifest(t, run, "seed003_tidb_v520_vs_v511.star", false)
	steps := readPublished003(t)
	for i, p := range steps {
		// The rerun: the published figures scaled, a little slower.
		k := map[string]float64{"v5.1.1": 0.96, "v5.2.0": 0.94}[p.tags["version"]]
		qps, p95 := p.figures[0].value*k, p.figures[1].value/k
		writeLoadStep(t, results.StepDir(run, strconv.Itoa(i+1), fmt.Sprintf("%s-t%d", p.workload, p.threads)), load{workload: p.workload,
			threads: p.threads, tps: qps / 2, qps: qps, lo: p95 / 2, hi: p95, tags: map[string]string{"version": p.tags["version"]}})
	}
	pub = filepath.Join(t.TempDir(), "published003")
	writeImported(t, pub, steps)
	return run, pub
}

func TestPivotSeed003(t *testing.T) {
	run, pub := seed003(t)
	p := Pivot{Split: []string{"workload"}, Rows: []string{"threads"}, Columns: []string{"version", "source"},
		Metrics: []Metric{MetricQPS, MetricP95}, Baseline: "v5.1.1", Mean: true}
	r := goldens(t, "seed003", p, run, pub)
	if len(r.Tables) != 4 {
		t.Fatalf("%d tables, want one per workload", len(r.Tables))
	}
	// The report's headline changes are the means of its per-level
	// changes of the published QPS: point select +11.03 %, ...
	for i, want := range []string{"+11.03 %", "-1.98 %", "-4.33 %", "-1.24 %"} {
		tb := r.Tables[i]
		c := cellOf(t, tb, MeanLabel, "v5.2.0 published qps vs v5.1.1 published")
		if got := FormatChange(c.Value); got != want || c.N != 6 || c.Given {
			t.Errorf("%s: mean published qps change %s over %d rows (given %v), want %s over the 6 levels", tb.Title, got, c.N, c.Given, want)
		}
		if len(tb.Rows) != 7 {
			t.Errorf("%s: %d rows, want 6 levels and the mean", tb.Title, len(tb.Rows))
		}
	}
	// The mean of the changes, not the change of the means.
	point := r.Tables[0]
	meanOf := func(h string) float64 { return cellOf(t, point, MeanLabel, h).Value }
	ofMeans := (meanOf("v5.2.0 published qps") - meanOf("v5.1.1 published qps")) / meanOf("v5.1.1 published qps") * 100
	if FormatChange(ofMeans) == "+11.03 %" {
		t.Errorf("the change of the means is %s too: the test cannot tell them apart", FormatChange(ofMeans))
	}
	// The rerun's changes beside: 0.94/0.96 of the published ones.
	c := cellOf(t, point, "150", "v5.2.0 qps vs v5.1.1")
	if want := (174402.5*0.94 - 143014.13*0.96) / (143014.13 * 0.96) * 100; !near(c.Value, want) {
		t.Errorf("150 threads rerun change %v, want %v", c.Value, want)
	}
	// The published folder has no p95 for nothing and no tps: a tps column would be "-".
	r2, err := Pivot{Rows: []string{"threads"}, Columns: []string{"version", "source"}, Split: []string{"workload"},
		Metrics: []Metric{MetricTPS}}.Build(Benchmarks([]*Run{loadRun(t, run), loadRun(t, pub)}))
	if err != nil {
		t.Fatal(err)
	}
	if c := cellOf(t, r2.Tables[0], "150", "v5.1.1 published tps"); c.Present {
		t.Errorf("the published report gives no tps, the cell has %v", c.Value)
	}
}

// Seed 002: TPC-C at five levels per version, and the report's only
// figure: +36 % tpmC for v5.0, imported as change_tpmc on v5.0's row.
func seed002(t *testing.T) (run, pub string) {
	run = filepath.Join(t.TempDir(), "seed002")
	writeManifest(t, run, "seed002_tidb_tpcc_v50_vs_v40.star", false)
	tpmc := map[string][]float64{"v4.0.12": {20000, 35000, 52000, 60000, 61000}, "v5.0.0": {27000, 48000, 71000, 82000, 83500}}
	id := 0
	for _, v := range []string{"v4.0.12", "v5.0.0"} {
		for i, threads := range []int{50, 100, 200, 400, 800} {
			id++
			writeLoadStep(t, results.StepDir(run, strconv.Itoa(id), fmt.Sprintf("tpcc-t%d", threads)), load{workload: "tpcc", threads: threads,
				tps: tpmc[v][i] / 60 * 2.2, qps: tpmc[v][i] / 60 * 60, lo: 5, hi: 20, tpmc: tpmc[v][i], tags: map[string]string{"version": v}})
		}
	}
	pub = filepath.Join(t.TempDir(), "published002")
	// The report names no terminals: imported with --threads 1, which
	// the source did not give.
	writeImported(t, pub, []published{{workload: "tpcc", threads: 1, threadsAssumed: true, line: 2, tags: map[string]string{"version": "v5.0.0", "source": "published"},
		figures: []figure{{ChangeFigure(metricTpmC), 36}}}})
	return run, pub
}

func TestPivotSeed002(t *testing.T) {
	run, pub := seed002(t)
	p := Pivot{Rows: []string{"threads"}, Columns: []string{"version", "source"}, Metrics: []Metric{metricTpmC}, Baseline: "v4.0.12", Mean: true}
	r := goldens(t, "seed002", p, run, pub)
	tb := r.Tables[0]
	c := cellOf(t, tb, MeanLabel, "v5.0.0 published tpmC vs v4.0.12 published")
	if !c.Present || c.Value != 36 || !c.Given {
		t.Errorf("the published change on the mean row: %+v, want +36 given", c)
	}
	rerun := cellOf(t, tb, MeanLabel, "v5.0.0 tpmC vs v4.0.12")
	want := 0.0
	for _, pair := range [][2]float64{{20000, 27000}, {35000, 48000}, {52000, 71000}, {60000, 82000}, {61000, 83500}} {
		want += (pair[1] - pair[0]) / pair[0] * 100 / 5
	}
	if !near(rerun.Value, want) || rerun.Given || rerun.N != 5 {
		t.Errorf("the rerun's mean change %+v, want %v over 5 levels", rerun, want)
	}
	// Only the headline's column has no figure on the rows.
	if c := cellOf(t, tb, "50", "v5.0.0 published tpmC vs v4.0.12 published"); c.Present {
		t.Errorf("a published change on the 50-terminal row: %+v", c)
	}

	// Without source in columns the headline's change would take the
	// rerun's mean cell: refused, naming the step's tags.
	p.Columns = []string{"version"}
	_, err := p.Build(Benchmarks([]*Run{loadRun(t, run), loadRun(t, pub)}))
	if !errors.Is(err, ErrBadPivot) || !strings.Contains(err.Error(), `the mean row's "v5.0.0 tpmC vs v4.0.12" would be both`) ||
		!strings.Contains(err.Error(), "tags source=published, version=v5.0.0") {
		t.Errorf("headline mixed with the rerun: %v", err)
	}
	// Without mean the headline is a row of its own.
	p = Pivot{Rows: []string{"threads"}, Columns: []string{"version", "source"}, Metrics: []Metric{metricTpmC}, Baseline: "v4.0.12"}
	r, err = p.Build(Benchmarks([]*Run{loadRun(t, run), loadRun(t, pub)}))
	if err != nil {
		t.Fatal(err)
	}
	text := r.Tables[0].Table(p)
	last := text.Rows[len(text.Rows)-1]
	if last[0] != HeadlineLabel || last[len(last)-1] != "+36.00 %" {
		t.Errorf("headline row %q", last)
	}
	// Without rows the levels are not repeats of one another.
	p = Pivot{Columns: []string{"version"}, Metrics: []Metric{metricTpmC}, Baseline: "v4.0.12"}
	_, err = p.Build(Benchmarks([]*Run{loadRun(t, run)}))
	if !errors.Is(err, ErrBadPivot) || !strings.Contains(err.Error(), `the cell (version=v4.0.12) holds steps that differ in threads ("50" and "100")`) {
		t.Errorf("levels in one cell: %v", err)
	}
}

// Steps that differ only in round are repeats: averaged, counted.
func TestPivotAveragesRepeats(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "repeats")
	writeManifest(t, dir, "repeats.star", false)
	for i, tps := range []float64{100, 110, 120} {
		writeLoadStep(t, results.StepDir(dir, strconv.Itoa(i+1), "x"), load{workload: "oltp_point_select", threads: 4, tps: tps, qps: tps,
			lo: 1, hi: 2, tags: map[string]string{"version": "a", "round": strconv.Itoa(i + 1)}})
	}
	writeLoadStep(t, results.StepDir(dir, "4", "x"), load{workload: "oltp_point_select", threads: 4, tps: 90, qps: 90, lo: 1, hi: 2,
		tags: map[string]string{"version": "b"}})
	for i, tps := range []float64{109, 110, 112} {
		writeLoadStep(t, results.StepDir(dir, strconv.Itoa(5+i), "x"), load{workload: "oltp_point_select", threads: 4, tps: tps, qps: tps,
			lo: 1, hi: 2, tags: map[string]string{"version": "c", "round": strconv.Itoa(i + 1)}})
	}
	p := Pivot{Rows: []string{"threads"}, Columns: []string{"version"}, Metrics: []Metric{MetricTPS}, Baseline: "a"}
	r, err := p.Build(loadRun(t, dir).Benchmarks)
	if err != nil {
		t.Fatal(err)
	}
	tb := r.Tables[0]
	if c := cellOf(t, tb, "4", "a tps"); c.Value != 110 || c.N != 3 || c.Stats.Stddev != 10 {
		t.Errorf("repeats %+v, want the mean 110 of 3", c)
	}
	if c := cellOf(t, tb, "4", "b tps vs a"); !near(c.Value, (90.0-110)/110*100) {
		t.Errorf("change %v", c.Value)
	}
	text := tb.Table(p)
	if got := text.Rows[0][1]; got != "110.00 ±22.6% (n=3)" {
		t.Errorf("repeats cell %q", got)
	}
	// Repeats on both sides give a noise estimate: c is within it; b,
	// one sample, has none.
	if got := strings.Join(text.Rows[0][4:], " | "); got != "-18.18 % | +0.30 % ~" {
		t.Errorf("changes %q, want b's plain and c's within noise", got)
	}
	var out bytes.Buffer
	r.WriteText(&out)
	if !strings.Contains(out.String(), "n: repeats averaged") || !strings.Contains(out.String(), "~: the change is within run-to-run noise") {
		t.Errorf("no legend for the repeats:\n%s", out.String())
	}
}

func TestPivotBadInput(t *testing.T) {
	dir := seed004(t)
	bs := loadRun(t, dir).Benchmarks
	for _, c := range []struct {
		p    Pivot
		want string
	}{
		{Pivot{Rows: []string{"rund"}, Metrics: []Metric{MetricTPS}}, `no step has the tag "rund" (there are: case, round, threads, workload)`},
		{Pivot{Rows: []string{"round"}, Metrics: []Metric{"speed"}}, `unknown metric "speed" (want tps, qps, min, avg, p95, p99, max, `},
		{Pivot{Rows: []string{"round"}}, "no metrics"},
		{Pivot{Rows: []string{"round"}, Columns: []string{"case"}, Metrics: []Metric{MetricTPS}, Baseline: "inc"}, `baseline "inc" is not a value of case (values: incr, rand, split)`},
		{Pivot{Rows: []string{"round"}, Metrics: []Metric{MetricTPS}, Baseline: "incr"}, `baseline "incr" needs columns`},
		{Pivot{Columns: []string{"case"}, Metrics: []Metric{MetricTPS}, Mean: true}, "mean needs rows"},
		{Pivot{Rows: []string{"round"}, Columns: []string{"round"}, Metrics: []Metric{MetricTPS}}, `"round" is in both rows and columns`},
		{Pivot{Rows: []string{"round"}, Metrics: []Metric{MetricTPS, MetricTPS}}, "metric tps is given twice"},
		{Pivot{Rows: []string{"round"}, Metrics: []Metric{MetricTPS}}, `the cell (round=1) holds steps that differ in workload ("oltp_legacy/insert" and "oltp_legacy/bulk_insert")`},
		{Pivot{Split: []string{"workload"}, Metrics: []Metric{MetricTPS}}, `the cell (workload=oltp_legacy/insert) holds steps that differ in tag case ("incr" and "split"), not repeats: put case in split, rows or columns`},
	} {
		_, err := c.p.Build(bs)
		if !errors.Is(err, ErrBadPivot) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v\nwant %q", c.p, err, c.want)
		}
	}
	if _, err := (Pivot{Metrics: []Metric{MetricTPS}}).Build(nil); !errors.Is(err, ErrBadPivot) {
		t.Errorf("no steps: %v", err)
	}
}

func TestFormatNumbers(t *testing.T) {
	for v, want := range map[float64]string{0: "0.00", 1.005: "1.00", 999.999: "1,000.00", 143014.13: "143,014.13", 1234567.891: "1,234,567.89",
		-1234.5: "-1,234.50", -0.001: "0.00"} {
		if got := FormatFigure(v); got != want {
			t.Errorf("FormatFigure(%v) = %q, want %q", v, got, want)
		}
	}
	for v, want := range map[float64]string{11.03309: "+11.03 %", -1.9756: "-1.98 %", 0: "+0.00 %", -0.001: "+0.00 %", 36: "+36.00 %"} {
		if got := FormatChange(v); got != want {
			t.Errorf("FormatChange(%v) = %q, want %q", v, got, want)
		}
	}
}

// A report's figures per load of N run at once (seed 000: "one sysbench
// per TiDB server, the total is threads × N, tps × N"), imported with a
// loads=N tag, pair with a merged step of N parts: the same "150 ×2"
// row, as printed with per_server and multiplied by N without it.
func TestPivotPublishedPerLoadPairsWithTogether(t *testing.T) {
	run := filepath.Join(t.TempDir(), "run")
	writeManifest(t, run, "seed000.star", false)
	tags := map[string]string{"source": "rerun"}
	writeTogether(t, results.StepDir(run, "1", "two"), []load{
		{workload: "oltp_point_select", threads: 150, tps: 600, qps: 600, lo: 1, hi: 2},
		{workload: "oltp_point_select", threads: 150, tps: 700, qps: 700, lo: 1, hi: 2}}, tags)
	pub := filepath.Join(t.TempDir(), "pub")
	writeImported(t, pub, []published{{workload: "oltp_point_select", threads: 150,
		tags: map[string]string{"source": "published", "loads": "2"}, figures: []figure{{results.FigureTPS, 1000}}}})
	bs := append(loadRun(t, run).Benchmarks, loadRun(t, pub).Benchmarks...)
	for _, perServer := range []bool{true, false} {
		r, err := Pivot{Rows: []string{"threads"}, Columns: []string{"source"}, Metrics: []Metric{MetricTPS}, PerServer: perServer}.Build(bs)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Tables[0].Rows) != 1 {
			t.Fatalf("per server %v: %d rows, want the published figure on the together step's row", perServer, len(r.Tables[0].Rows))
		}
		want := map[bool]float64{true: 1000, false: 2000}[perServer]
		if c := cellOf(t, r.Tables[0], "150 ×2", "published tps"); !near(c.Value, want) {
			t.Errorf("per server %v: published %v, want %v", perServer, c.Value, want)
		}
	}
}
