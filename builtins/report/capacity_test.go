package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/starbench/starbench/runner/results"
)

// profileRun writes a results folder of one step that followed a rate
// profile (its intervals carry stage and offered load), one steady step,
// and a capacity search.
func profileRun(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "profiles")
	writeLoad(t, filepath.Join(dir, results.StepsDir, "1-oltp_read_only-t1"), "oltp_read_only", 1, 50, 2, nil)
	staged := filepath.Join(dir, results.StepsDir, "2-oltp_point_select-t8")
	sum := &results.Summary{Workload: results.Meta{Name: "oltp_point_select", Version: "test"}, Threads: 8, Seconds: 3, Rate: 300,
		Status: results.StatusCompleted, Events: 600, TPS: 200, IntervalSeconds: 1, PlannedSeconds: 3,
		Latency: results.LatencySummary{Percentiles: map[string]float64{"99": 5}}}
	var ivs []results.Interval
	for i, target := range []float64{100, 200, 300} {
		ivs = append(ivs, results.Interval{Time: float64(i + 1), Threads: 8, Events: int64(target), TPS: target * 0.99, P95: 2 * target / 100,
			P99: 3 * target / 100, Stage: i + 1, Target: target})
	}
	for i, target := range []float64{100, 200, 300} {
		sum.Stages = append(sum.Stages, results.StageSummary{Stage: i + 1, Offered: target, Seconds: 1, Events: int64(target), TPS: target * 0.99,
			Latency: results.LatencySummary{Percentiles: map[string]float64{"95": 2 * target / 100, "99": 3 * target / 100}}})
	}
	if err := results.WriteStep(staged, results.Step{Summary: sum, Intervals: ivs}); err != nil {
		t.Fatal(err)
	}
	capDir := filepath.Join(dir, results.StepsDir, "3-capacity")
	c := &results.Capacity{Name: "capacity", Dir: "steps/3-capacity", Workload: "shop", Threads: 50, Over: "rate",
		SLO: map[string]float64{"p99_ms": 50, "errors_pct": 0.1}, SLOText: "p99 ≤ 50ms, errors ≤ 0.1%", Lo: 100, Hi: 1000,
		Precision: 0.05, StepSeconds: 60, Found: true, Bound: "within", Answer: 400, AnswerTPS: 399.5,
		Probes: []results.CapacityProbe{
			{Probe: 1, Load: 100, TPS: 100, Latency: map[string]float64{"p99": 10}, Holds: true},
			{Probe: 2, Load: 200, TPS: 200, Latency: map[string]float64{"p99": 12}, Holds: true},
			{Probe: 3, Load: 400, TPS: 399.5, Latency: map[string]float64{"p99": 40}, Holds: true},
			{Probe: 4, Load: 800, TPS: 500, Latency: map[string]float64{"p99": 900}, Broken: []string{"p99 900.00 ms > 50.00 ms"}},
			{Probe: 5, Load: 566, TPS: 480, Latency: map[string]float64{"p99": 300}, Broken: []string{"p99 300.00 ms > 50.00 ms"}},
		}}
	if err := os.MkdirAll(capDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := results.WriteCapacity(capDir, c); err != nil {
		t.Fatal(err)
	}
	writeManifest(t, dir, "profiles.star", false)
	return dir
}

func TestReportOfProfilesAndCapacity(t *testing.T) {
	run := loadRun(t, profileRun(t))
	if len(run.Benchmarks) != 2 || len(run.Capacities) != 1 {
		t.Fatalf("%d benchmarks, %d capacity searches: probes are not benchmarks", len(run.Benchmarks), len(run.Capacities))
	}
	var text bytes.Buffer
	WriteReport(&text, []*Run{run}, false)
	for _, want := range []string{"capacity of shop (50 threads): 400 events/s (399.50 tps) with p99 ≤ 50ms, errors ≤ 0.1%, within 5% (5 probes)",
		"probe  events/s     tps  p99 ms", "breaks: p99 900.00 ms > 50.00 ms", "oltp_point_select",
		"stages (each interval counted in the stage it is in)", "step 2: oltp_point_select, 8 threads      3   300.00     1.00  297.00    6.00    9.00       0"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, text.String())
		}
	}
	var page bytes.Buffer
	if err := WriteHTML(&page, []*Run{run}); err != nil {
		t.Fatal(err)
	}
	html := page.String()
	for _, want := range []string{`data-kind="capacity"`, "p99 SLO 50 ms", `data-kind="offered"`, "events/s offered", `data-series="step offered"`} {
		if !strings.Contains(html, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// The offered-load charts are the staged step's only.
	if n := strings.Count(html, `data-kind="offered"`); n != 2 {
		t.Errorf("%d charts against offered load, want the staged step's 2", n)
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, []*Run{run}); err != nil || !strings.Contains(js.String(), `"capacities"`) || !strings.Contains(js.String(), `"answer": 400`) {
		t.Errorf("JSON report (%v):\n%s", err, js.String())
	}
}
