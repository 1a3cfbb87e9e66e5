package telemetry

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/starbench/starbench/runner/results"
)

func TestQuantileInterpolatesWithinTheBucket(t *testing.T) {
	// 10 at or under 1, 20 in (1,2], 10 in (2,4], none above.
	h := Histogram{Bounds: []float64{1, 2, 4}, Counts: []float64{10, 30, 40, 40}}
	for _, c := range []struct{ q, want float64 }{
		{0.5, 1.5},   // rank 20: halfway through (1,2]
		{0.25, 1},    // rank 10: the top of the first bucket
		{0.1, 0.4},   // rank 4: from 0 in the first bucket
		{0.875, 3},   // rank 35: halfway through (2,4]
		{0.99, 3.92}, // rank 39.6
	} {
		if got := h.Quantile(c.q); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("q%v = %v, want %v", c.q, got, c.want)
		}
	}
	// Observations above the highest finite bound: that bound.
	h = Histogram{Bounds: []float64{1, 2}, Counts: []float64{0, 0, 5}}
	if got := h.Quantile(0.5); got != 2 {
		t.Errorf("in the +Inf bucket: %v, want 2", got)
	}
	if got := (Histogram{Bounds: []float64{1}, Counts: []float64{0, 0}}).Quantile(0.5); !math.IsNaN(got) {
		t.Errorf("no observations: %v, want NaN", got)
	}
}

func TestRaterRatesCountersAndSkipsResets(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var r rater
	if _, ok := r.next(Reading{Time: t0, Counters: map[string]float64{"q": 100}}); ok {
		t.Fatal("the first reading made a point")
	}
	v, ok := r.next(Reading{Time: t0.Add(2 * time.Second), Counters: map[string]float64{"q": 300}, Gauges: map[string]float64{"g": 7},
		Histograms: map[string]Histogram{"h": {Bounds: []float64{1}, Counts: []float64{0, 0}}}})
	if !ok || v["q/s"] != 100 || v["g"] != 7 {
		t.Fatalf("point %v, want q/s 100 and g 7", v)
	}
	// A counter that went down was reset (the server restarted): no rate.
	v, _ = r.next(Reading{Time: t0.Add(3 * time.Second), Counters: map[string]float64{"q": 50},
		Histograms: map[string]Histogram{"h": {Bounds: []float64{1}, Counts: []float64{4, 8}}}})
	if _, has := v["q/s"]; has {
		t.Errorf("a reset counter was rated: %v", v)
	}
	// The histogram's interval: 4 of 8 under 1, the rest above: p50 is 1.
	if v["h:count/s"] != 8 || v["h:p50"] != 1 {
		t.Errorf("histogram of the interval: %v", v)
	}
	v, _ = r.next(Reading{Time: t0.Add(4 * time.Second), Counters: map[string]float64{"q": 60}})
	if v["q/s"] != 10 || r.totals["q"] != 200+10 {
		t.Errorf("after the reset: %v, totals %v", v, r.totals)
	}
}

func TestParseSelector(t *testing.T) {
	sel, err := ParseSelector(`tikv_engine_flow_bytes{db="kv", type!="x,y"} by (type, cf)`)
	if err != nil {
		t.Fatal(err)
	}
	if sel.Name != "tikv_engine_flow_bytes" || len(sel.Matchers) != 2 || sel.Matchers[1] != (Matcher{Label: "type", Value: "x,y", Not: true}) ||
		strings.Join(sel.By, ",") != "type,cf" {
		t.Errorf("parsed %+v", sel)
	}
	for _, bad := range []string{"", "9lives", `a{b=c}`, `a{b="c"`, "a by type", `a by (9)`} {
		if _, err := ParseSelector(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// A host's reading: CPU busy is at least one CPU's share while this
// process keeps a CPU busy, and this process's CPU seconds say so.
func TestHostCPUBusyRisesUnderLoad(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("host telemetry reads Linux's /proc")
	}
	h := NewHost("host-local", []string{filepath.Base(os.Args[0])[:min(15, len(filepath.Base(os.Args[0])))]})
	busyFor := func(load bool) (pct, self float64) {
		var r rater
		r.derive = h.Derive
		first, err := h.Read(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		r.next(first)
		stop := time.Now().Add(time.Second)
		if load {
			for time.Now().Before(stop) {
			}
		} else {
			time.Sleep(time.Second)
		}
		second, err := h.Read(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		v, _ := r.next(second)
		for name, x := range v {
			if strings.HasPrefix(name, "proc_cpu_seconds") {
				self = x
			}
		}
		return v["cpu_busy_pct"], self
	}
	_, idleSelf := busyFor(false)
	busy, busySelf := busyFor(true)
	cpus := float64(runtime.NumCPU())
	// One busy CPU of cpus is 100/cpus percent of the host (other tests
	// may keep the others busy, so the rise cannot be told apart).
	if busy < 0.8*100/cpus {
		t.Errorf("CPU busy %.1f%% while one of %.0f CPUs was kept busy", busy, cpus)
	}
	// The loop gets a CPU when the host is idle, less when other tests
	// share it.
	if busySelf < 0.3 || idleSelf > 0.2 {
		t.Errorf("this process's CPU seconds a second: %.2f busy, %.2f idle", busySelf, idleSelf)
	}
}

// A recorder writes a point per interval, and a source that fails marks
// its series without failing anything.
func TestRecorderKeepsFailuresInTheSeries(t *testing.T) {
	dir := t.TempDir()
	down, err := NewPrometheus("down", "http://127.0.0.1:1/metrics", nil)
	if err != nil {
		t.Fatal(err)
	}
	rec := &Recorder{Sources: []Source{NewHost("host-local", nil), down}, Interval: 100 * time.Millisecond}
	if err := rec.Start(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	time.Sleep(550 * time.Millisecond)
	if err := rec.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	var sum results.Summary
	rec.Annotate(&sum)
	if len(sum.Telemetry) != 2 {
		t.Fatalf("series %+v", sum.Telemetry)
	}
	host, failed := sum.Telemetry[0], sum.Telemetry[1]
	// A reading every 100 ms for 550 ms: five, fewer on a busy machine.
	if _, has := host.Avg["cpu_busy_pct"]; host.Points < 2 || host.Failed != 0 || !has || host.Max["cpus"] < float64(runtime.NumCPU()) {
		t.Errorf("host series %+v", host)
	}
	if failed.Points != 0 || failed.Failed < 3 || !strings.Contains(failed.Error, "connection refused") {
		t.Errorf("the series of an endpoint that is down: %+v", failed)
	}
	data, err := os.ReadFile(filepath.Join(dir, failed.File))
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(string(data), "\n"); lines != failed.Failed || !strings.Contains(string(data), `"error":`) {
		t.Errorf("%d failures, the file says:\n%s", failed.Failed, data)
	}
	data, _ = os.ReadFile(filepath.Join(dir, host.File))
	if lines := strings.Count(string(data), "\n"); lines != host.Points {
		t.Errorf("%d points, %d lines", host.Points, lines)
	}
}

// BenchmarkHostRead is the cost of a host's reading (/proc/stat,
// meminfo, diskstats, net/dev): CPU ms a reading.
func BenchmarkHostRead(b *testing.B) {
	h := NewHost("host", nil)
	for i := 0; i < b.N; i++ {
		if _, err := h.Read(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHostReadProcesses adds the processes' CPU (a scan of /proc).
func BenchmarkHostReadProcesses(b *testing.B) {
	h := NewHost("host", []string{"mariadbd"})
	for i := 0; i < b.N; i++ {
		if _, err := h.Read(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}
