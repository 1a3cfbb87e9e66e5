package report

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/starbench/starbench/runner/results"
)

func TestStatsOf(t *testing.T) {
	s := StatsOf([]float64{10, 12, 14})
	if s.N != 3 || s.Mean != 12 || math.Abs(s.Stddev-2) > 1e-9 || math.Abs(s.CV-2.0/12) > 1e-9 {
		t.Errorf("stats %+v", s)
	}
	// 95% interval: mean ± t(2) * sd/sqrt(3) = 12 ± 4.303*2/1.732.
	if half := s.CIHigh - s.Mean; math.Abs(half-4.303*2/math.Sqrt(3)) > 1e-3 || s.CILow != s.Mean-half {
		t.Errorf("interval %+v", s)
	}
	if one := StatsOf([]float64{5}); one.Stddev != 0 || one.CILow != 5 || one.CIHigh != 5 {
		t.Errorf("single sample %+v", one)
	}
}

func TestSignificant(t *testing.T) {
	a := StatsOf([]float64{100, 101, 99, 100})
	if Significant(a, StatsOf([]float64{100.5, 99.5, 101, 100})) {
		t.Errorf("overlapping samples called significant")
	}
	if !Significant(a, StatsOf([]float64{80, 81, 79, 80})) {
		t.Errorf("a 20%% drop with tight samples is significant")
	}
	if !Significant(StatsOf([]float64{100}), StatsOf([]float64{99})) {
		t.Errorf("single samples have no noise estimate: compared directly")
	}
}

func TestParseThreshold(t *testing.T) {
	for in, want := range map[string]Threshold{
		"tps<-5%":      {Metric: MetricTPS, Less: true, Percent: -5, Text: "tps<-5%"},
		"p99>+10%":     {Metric: MetricP99, Less: false, Percent: 10, Text: "p99>+10%"},
		" qps < -2.5%": {Metric: MetricQPS, Less: true, Percent: -2.5, Text: "qps < -2.5%"},
	} {
		got, err := ParseThreshold(in)
		if err != nil || got != want {
			t.Errorf("ParseThreshold(%q) = %+v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"tps<-5", "tps=5%", "speed<-5%", "", "p99>>10%"} {
		if _, err := ParseThreshold(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// bm makes a benchmark with a given tps and p99.
func bm(run *Run, workload string, threads int, tps, p99 float64, tags map[string]string) *Benchmark {
	b := &Benchmark{Run: run, Summary: results.Summary{Workload: results.Meta{Name: workload}, Threads: threads, TPS: tps, QPS: tps * 10, Tags: tags,
		Latency: results.LatencySummary{AvgMS: p99 / 2, MinMS: 1, MaxMS: p99 * 2, Percentiles: map[string]float64{"95": p99 * 0.8, "99": p99}}}}
	run.Benchmarks = append(run.Benchmarks, b)
	return b
}

// A step becomes a row when the baseline and at least one other contender
// have it; a contender without it shows "-". A step only the baseline has
// compares nothing and is not a row.
func TestCompareByTagWithRepeatsAndThresholds(t *testing.T) {
	r := &Run{Name: "run"}
	for round, jitter := range []float64{0, 3} {
		rt := map[string]string{"round": []string{"1", "2"}[round]}
		tag := func(v string) map[string]string { return map[string]string{"version": v, "round": rt["round"]} }
		bm(r, "oltp_point_select", 8, 1000+jitter, 5, tag("a"))
		bm(r, "oltp_point_select", 8, 1001-jitter, 5, tag("b")) // same within noise
		bm(r, "oltp_point_select", 8, 500+jitter, 9, tag("c"))  // a real drop
		bm(r, "oltp_read_only", 8, 200+jitter, 10, tag("a"))    // b lacks it: a row, b missing
		bm(r, "oltp_read_only", 8, 240+jitter, 10, tag("c"))
		bm(r, "oltp_read_write", 8, 300, 20, tag("a")) // only the baseline has it: a row, b and c missing
	}
	c, err := Compare([]*Run{r}, CompareOptions{By: "version", Baseline: "a", Metric: MetricTPS,
		Thresholds: []Threshold{mustThreshold(t, "tps<-5%"), mustThreshold(t, "p99>+50%")}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.Contenders, ",") != "a,b,c" {
		t.Fatalf("contenders %v", c.Contenders)
	}
	type cell struct {
		contender            string
		present, significant bool
		n                    int
		mean, change         float64
	}
	want := map[string][]cell{
		"oltp_point_select t8": {
			{"a", true, false, 2, 1001.5, 0},
			{"b", true, false, 2, 999.5, -0.1997},
			{"c", true, true, 2, 501.5, -49.925},
		},
		"oltp_read_only t8": {
			{"a", true, false, 2, 201.5, 0},
			{contender: "b"},
			{"c", true, true, 2, 241.5, 19.8511},
		},
		"oltp_read_write t8": {
			{"a", true, false, 2, 300, 0},
			{contender: "b"},
			{contender: "c"},
		},
	}
	var names []string
	for _, row := range c.Rows {
		names = append(names, row.Name)
		w, ok := want[row.Name]
		if !ok || len(row.Cells) != len(w) {
			t.Errorf("row %s: %+v", row.Name, row.Cells)
			continue
		}
		for i, got := range row.Cells {
			g := cell{got.Contender, got.Present, got.Significant, got.Stats.N, got.Stats.Mean, got.Change}
			if g.contender != w[i].contender || g.present != w[i].present || g.significant != w[i].significant || g.n != w[i].n ||
				math.Abs(g.mean-w[i].mean) > 1e-9 || math.Abs(g.change-w[i].change) > 1e-3 {
				t.Errorf("row %s, cell %d: %+v, want %+v", row.Name, i, g, w[i])
			}
		}
	}
	if strings.Join(names, "|") != "oltp_point_select t8|oltp_read_only t8|oltp_read_write t8" {
		t.Errorf("rows %v, want every step of the baseline", names)
	}
	var got []string
	for _, v := range c.Violations {
		got = append(got, v.Threshold+" "+v.Key+" "+v.Contender+" "+v.Noise)
	}
	// A step a contender lacks fails the thresholds once, whatever they say.
	if want := "tps<-5% oltp_point_select t8 c beyond noise|p99>+50% oltp_point_select t8 c beyond noise|" +
		"tps<-5%, p99>+50% oltp_read_only t8 b missing|tps<-5%, p99>+50% oltp_read_write t8 b missing|tps<-5%, p99>+50% oltp_read_write t8 c missing"; strings.Join(got, "|") != want {
		t.Errorf("violations %v, want %s", got, want)
	}
	var listed bytes.Buffer
	c.WriteViolations(&listed)
	if want := "missing step: oltp_read_write t8, c has none (a has; tps<-5%, p99>+50% cannot pass without it)\n"; !strings.HasSuffix(listed.String(), want) {
		t.Errorf("violations listed:\n%s\nwant the last line %q", listed.String(), want)
	}
	var buf bytes.Buffer
	WriteMarkdown(&buf, []Table{c.Table()})
	for _, want := range []string{
		"| workload | threads | tags | a | b | vs a | c | vs a |",
		"| oltp_point_select | 8 |  | 1001.50 ±1.9% (n=2) | 999.50 ±1.9% (n=2) | -0.20% ~ | 501.50 ±3.8% (n=2) | -49.93% |",
		"| oltp_read_only | 8 |  | 201.50 ±9.5% (n=2) | - | - | 241.50 ±7.9% (n=2) | +19.85% |",
	} {
		if !strings.Contains(buf.String(), "\n"+want+"\n") {
			t.Errorf("table lacks the line %q:\n%s", want, buf.String())
		}
	}
	for _, want := range []string{
		"| oltp_read_write | 8 |  | 300.00 ±0.0% (n=2) | - | - | - | - |",
		"-: the contender has no such step",
	} {
		if !strings.Contains(buf.String()+c.Legend(), want) {
			t.Errorf("table and legend lack %q:\n%s\n%s", want, buf.String(), c.Legend())
		}
	}
}

func mustThreshold(t *testing.T, s string) Threshold {
	th, err := ParseThreshold(s)
	if err != nil {
		t.Fatal(err)
	}
	return th
}

func TestCompareErrors(t *testing.T) {
	a, b := &Run{Name: "a"}, &Run{Name: "b"}
	bm(a, "oltp_point_select", 8, 1000, 5, nil)
	bm(b, "oltp_read_write", 8, 1000, 5, nil)
	if _, err := Compare([]*Run{a, b}, CompareOptions{}); err == nil || !strings.Contains(err.Error(), "nothing to compare: no workload, threads and tags in common") {
		t.Errorf("disjoint runs: %v", err)
	}
	if _, err := Compare([]*Run{a, b}, CompareOptions{By: "version"}); err == nil || !strings.Contains(err.Error(), `no benchmark step has the tag "version"`) {
		t.Errorf("missing tag: %v", err)
	}
	if _, err := Compare([]*Run{a, b}, CompareOptions{Baseline: "zzz"}); err == nil || !strings.Contains(err.Error(), `baseline "zzz" is not among the contenders (a, b)`) {
		t.Errorf("unknown baseline: %v", err)
	}
	if _, err := Compare([]*Run{a}, CompareOptions{}); err == nil || !strings.Contains(err.Error(), "only one contender") {
		t.Errorf("one folder: %v", err)
	}
	// Without --by, same-named folders stay distinct contenders.
	c := &Run{Name: "a"}
	bm(c, "oltp_point_select", 8, 900, 5, nil)
	cmp, err := Compare([]*Run{a, c}, CompareOptions{})
	if err != nil || strings.Join(cmp.Contenders, ",") != "a,a#2" || math.Abs(cmp.Rows[0].Cells[1].Change+10) > 1e-9 {
		t.Errorf("folder contenders: %+v %v", cmp, err)
	}
}

func TestWorkloadTablesAverageRepeats(t *testing.T) {
	r := &Run{Name: "r"}
	bm(r, "oltp_point_select", 2, 100, 5, map[string]string{"version": "a", "round": "1"})
	bm(r, "oltp_point_select", 2, 110, 5, map[string]string{"version": "a", "round": "2"})
	bm(r, "oltp_point_select", 1, 50, 5, map[string]string{"version": "a", "round": "1"})
	tables := WorkloadTables(r.Benchmarks)
	if len(tables) != 1 {
		t.Fatal(len(tables))
	}
	var buf bytes.Buffer
	WriteText(&buf, tables)
	want := `oltp_point_select
version  threads  runs  tps cv     tps      qps  avg ms  p95 ms  p99 ms  min ms  max ms  errors
-------  -------  ----  ------  ------  -------  ------  ------  ------  ------  ------  ------
a              1     1    0.0%   50.00   500.00    2.50    4.00    5.00    1.00   10.00       0
a              2     2    6.7%  105.00  1050.00    2.50    4.00    5.00    1.00   10.00       0
`
	if buf.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", buf.String(), want)
	}
}

func TestNiceScale(t *testing.T) {
	for _, c := range []struct{ max, step, top float64 }{{0, 1, 5}, {9.3, 2, 10}, {1234, 250, 1250}, {0.37, 0.1, 0.4}, {10, 2, 12}} {
		step, top := niceScale(c.max)
		if math.Abs(step-c.step) > 1e-9 || math.Abs(top-c.top) > 1e-9 {
			t.Errorf("niceScale(%v) = %v, %v; want %v, %v", c.max, step, top, c.step, c.top)
		}
	}
}

// TPC-C steps compare on tpmC (their summaries' metric), higher being
// better, and thresholds take it.
func TestCompareOnTpmC(t *testing.T) {
	r := &Run{Name: "run"}
	for v, tpmc := range map[string]float64{"v4.0": 1000, "v5.0": 1360} {
		b := bm(r, "tpcc", 64, tpmc/30, 50, map[string]string{"version": v})
		b.Summary.Metrics = map[string]float64{"tpmC": tpmc}
	}
	m, err := ParseMetric("tpmC")
	if err != nil || !m.HigherIsBetter() || m.Unit() != "/min" {
		t.Fatalf("metric %q %v", m, err)
	}
	c, err := Compare([]*Run{r}, CompareOptions{By: "version", Baseline: "v4.0", Metric: m, Thresholds: []Threshold{mustThreshold(t, "tpmc<-5%")}})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Rows) != 1 || math.Abs(c.Rows[0].Cells[1].Change-36) > 1e-9 || c.Rows[0].Cells[1].Stats.Mean != 1360 || len(c.Violations) != 0 {
		t.Errorf("rows %+v, violations %v", c.Rows, c.Violations)
	}
}

// A contender whose run failed, or whose step stopped early, is flagged
// in the table and the warnings, and fails a --fail-if gate unless it is
// allowed by name; then it is gated on its figures like the others.
func TestCompareFlagsRunsThatDidNotComplete(t *testing.T) {
	base := &Run{Name: "pess1", Dir: "res/pess1", Manifest: results.Manifest{Status: results.StatusCompleted}}
	failed := &Run{Name: "opt1", Dir: "res/opt1", Manifest: results.Manifest{Status: results.StatusFailed,
		Error: "Traceback (most recent call last):\n  plan.star:9:17: in main\nError: sysbench.run: Error 9007: Write conflict"}}
	bm(base, "oltp_read_write", 4, 100, 5, nil)
	b := bm(failed, "oltp_read_write", 4, 66.9, 5, nil)
	b.Step, b.Summary.Status, b.Summary.Error = "3", results.StatusFailed, "thread 1: Error 9007: Write conflict"
	gate := []Threshold{mustThreshold(t, "tps<-50%")}

	c, err := Compare([]*Run{base, failed}, CompareOptions{Thresholds: gate})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Incomplete) != 2 || c.Incomplete[0].Step != "" || c.Incomplete[1].Step != "3" || c.Incomplete[0].Contender != "opt1" {
		t.Fatalf("incomplete: %+v", c.Incomplete)
	}
	if got := c.Incomplete[0].Describe(); got != "the run in res/opt1 failed: Error: sysbench.run: Error 9007: Write conflict" {
		t.Errorf("run described as %q", got)
	}
	if len(c.Violations) != 2 || c.Violations[0].Incomplete == nil ||
		!strings.Contains(c.Violations[1].Describe("pess1"), "incomplete: step 3 of res/opt1 failed: thread 1: Error 9007: Write conflict; its figures are what ran before it stopped; tps<-50% cannot pass on it (--allow-incomplete opt1") {
		t.Errorf("violations: %+v", c.Violations)
	}
	var buf bytes.Buffer
	WriteText(&buf, c.Tables())
	if !strings.Contains(buf.String(), "66.90 !") || !strings.Contains(c.Legend(), "!: the step did not run to its end") {
		t.Errorf("the failed step is not marked:\n%s\n%s", buf.String(), c.Legend())
	}

	// Allowed by name (contender or folder): flagged, and gated on its figures.
	for _, name := range []string{"opt1", "res/opt1"} {
		c, err = Compare([]*Run{base, failed}, CompareOptions{Thresholds: gate, AllowIncomplete: []string{name}})
		if err != nil || len(c.Violations) != 0 || len(c.Incomplete) != 2 || !c.Incomplete[1].Allowed {
			t.Errorf("allowed as %s: violations %+v, incomplete %+v, %v", name, c.Violations, c.Incomplete, err)
		}
	}
	c, _ = Compare([]*Run{base, failed}, CompareOptions{Thresholds: []Threshold{mustThreshold(t, "tps<-20%")}, AllowIncomplete: []string{"opt1"}})
	if len(c.Violations) != 1 || c.Violations[0].Incomplete != nil {
		t.Errorf("an allowed contender's crossing: %+v", c.Violations)
	}
	// Without a gate it is flagged, not a violation; a failed baseline too.
	c, _ = Compare([]*Run{failed, base}, CompareOptions{})
	if len(c.Violations) != 0 || len(c.Incomplete) != 2 || c.Incomplete[0].Contender != "opt1" {
		t.Errorf("no gate: %+v %+v", c.Violations, c.Incomplete)
	}
	c, _ = Compare([]*Run{failed, base}, CompareOptions{Thresholds: gate})
	if len(c.Violations) != 2 {
		t.Errorf("a failed baseline passes the gate: %+v", c.Violations)
	}
	// The run a plan's report step reads while it goes on is not incomplete.
	live := &Run{Name: "live", Live: true, Manifest: results.Manifest{Status: results.StatusRunning}}
	bm(live, "oltp_read_write", 4, 100, 5, map[string]string{"v": "a"})
	bm(live, "oltp_read_write", 4, 90, 5, map[string]string{"v": "b"})
	if c, err := Compare([]*Run{live}, CompareOptions{By: "v", Thresholds: gate}); err != nil || len(c.Incomplete) != 0 || len(c.Violations) != 0 {
		t.Errorf("a live run: %+v %v", c, err)
	}
	// A report marks the step and lists both.
	buf.Reset()
	WriteReport(&buf, []*Run{failed}, false)
	if !strings.Contains(buf.String(), "66.90 !") || !strings.Contains(buf.String(), "warning: the run in res/opt1 failed") ||
		!strings.Contains(buf.String(), "warning: step 3 of res/opt1 failed") {
		t.Errorf("report:\n%s", buf.String())
	}
}

// A metric, or a threshold's, that no compared step has is refused,
// naming those they have: a typo must not pass a CI gate.
func TestCompareRefusesAMetricNoStepHas(t *testing.T) {
	a, b := &Run{Name: "a"}, &Run{Name: "b"}
	bm(a, "oltp_point_select", 8, 1000, 5, nil)
	bm(b, "oltp_point_select", 8, 900, 5, nil)
	tpmc, _ := ParseMetric("tpmc")
	_, err := Compare([]*Run{a, b}, CompareOptions{Thresholds: []Threshold{mustThreshold(t, "tpmc<-5%")}})
	if !errors.Is(err, ErrNoSuchMetric) || !strings.Contains(err.Error(), "--fail-if 'tpmc<-5%': no compared step has tpmc") ||
		!strings.Contains(err.Error(), "(theirs: tps, qps, min, avg, p95, p99, max)") {
		t.Errorf("a gate on tpmc over sysbench steps: %v", err)
	}
	if _, err := Compare([]*Run{a, b}, CompareOptions{Metric: tpmc}); !errors.Is(err, ErrNoSuchMetric) {
		t.Errorf("--metric tpmc over sysbench steps: %v", err)
	}
	// One step that has it is enough.
	a.Benchmarks[0].Summary.Metrics = map[string]float64{"tpmC": 10}
	b.Benchmarks[0].Summary.Metrics = map[string]float64{"tpmC": 10}
	if _, err := Compare([]*Run{a, b}, CompareOptions{Thresholds: []Threshold{mustThreshold(t, "tpmc<-5%")}}); err != nil {
		t.Errorf("tpmc on steps that have it: %v", err)
	}
}

// A TPC-C section of the HTML page leads with the family's own figures:
// a table whose first figure column is tpmC, before the tps table, and
// no second list of the same figures.
func TestHTMLLeadsWithTheFamilysHeadline(t *testing.T) {
	r := &Run{Name: "run", Dir: "res"}
	for _, th := range []int{16, 32} {
		b := bm(r, "tpcc", th, float64(th)*10, 50, nil)
		b.Summary.Metrics = map[string]float64{"tpmC": float64(th) * 100, "tpmTotal": float64(th) * 220, "efficiency": 77}
	}
	table, ok := HeadlineTable(r.Benchmarks)
	if !ok || strings.Join(table.Columns, ",") != "step,tpmC,efficiency,tpmTotal,tps,p95 ms" || len(table.Rows) != 2 || table.Rows[1][1] != "3200.00" {
		t.Fatalf("headline table %+v (%v)", table, ok)
	}
	var buf bytes.Buffer
	if err := WriteHTML(&buf, []*Run{r}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	head, tps := strings.Index(page, "<th>tpmC</th>"), strings.Index(page, "<th>qps</th>") // qps: the tps table alone has it
	if head < 0 || tps < 0 || head > tps {
		t.Errorf("tpmC's column at %d, the tps table at %d: tpmC must come first", head, tps)
	}
	if strings.Contains(page, "the families' figures") {
		t.Errorf("the figures are listed twice")
	}
	if _, ok := HeadlineTable(bm(&Run{}, "oltp_read_write", 8, 100, 5, nil).Run.Benchmarks); ok {
		t.Errorf("a sysbench step has a headline table")
	}
}
