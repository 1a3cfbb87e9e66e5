package bench_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/runner/results"
)

// search runs s against a server whose capacity is capacity (a load holds
// the SLO when it is at most that) and returns the probes' loads and the
// answer.
func search(t *testing.T, s bench.Search, capacity float64) ([]float64, float64, bench.Bound) {
	t.Helper()
	var probes []bench.Probed
	var loads []float64
	for {
		next, done := s.Next(probes)
		if done {
			break
		}
		if len(probes) > 100 {
			t.Fatalf("capacity %v: no end after %v", capacity, loads)
		}
		for _, l := range loads {
			if l == next {
				t.Fatalf("capacity %v: %v probed twice (%v)", capacity, next, loads)
			}
		}
		loads = append(loads, next)
		probes = append(probes, bench.Probed{Load: next, Holds: next <= capacity})
	}
	answer, bound := s.Answer(probes)
	return loads, answer, bound
}

func TestCapacitySearchOverADecade(t *testing.T) {
	s := bench.Search{Lo: 100, Hi: 1000, Precision: 0.05}
	limit := math.Log2((s.Hi-s.Lo)/(s.Precision*s.Lo)) + 3 // the bound: log2(range/precision) + 3
	most := 0
	for capacity := 100.0; capacity < 1000; capacity *= 1.013 {
		loads, answer, bound := search(t, s, capacity)
		if bound != bench.Within {
			t.Fatalf("capacity %v: bound %s (probes %v)", capacity, bound, loads)
		}
		if answer > capacity || capacity >= answer*(1+s.Precision) {
			t.Fatalf("capacity %v: answer %v is not within 5%% below it (probes %v)", capacity, answer, loads)
		}
		if float64(len(loads)) > limit || len(loads) > s.MaxProbes() {
			t.Fatalf("capacity %v: %d probes, more than log2(range/precision)+3 = %.1f or MaxProbes %d: %v", capacity, len(loads), limit, s.MaxProbes(), loads)
		}
		most = max(most, len(loads))
	}
	t.Logf("at most %d probes over one decade at 5%% (bound %.1f)", most, limit)
}

func TestCapacitySearchOutsideItsRange(t *testing.T) {
	s := bench.Search{Lo: 100, Hi: 1000, Precision: 0.05}
	loads, answer, bound := search(t, s, 50)
	if bound != bench.BelowRange || answer != 0 || len(loads) != 1 {
		t.Errorf("below the range: %v %s after %v", answer, bound, loads)
	}
	loads, answer, bound = search(t, s, 5000)
	if bound != bench.AboveRange || answer != 1000 || loads[len(loads)-1] != 1000 {
		t.Errorf("above the range: %v %s after %v", answer, bound, loads)
	}
}

func TestCapacitySearchOfThreads(t *testing.T) {
	s := bench.Search{Lo: 1, Hi: 64, Precision: 0.05, Integer: true}
	for capacity := 1.0; capacity < 64; capacity++ {
		loads, answer, bound := search(t, s, capacity)
		if bound != bench.Within || answer > capacity || capacity >= max(answer*(1+s.Precision), answer+1) {
			t.Fatalf("capacity %v threads: %v %s after %v", capacity, answer, bound, loads)
		}
		for _, l := range loads {
			if l != math.Trunc(l) {
				t.Fatalf("capacity %v: a probe of %v threads", capacity, l)
			}
		}
	}
}

func TestCapacitySearchBounds(t *testing.T) {
	for _, s := range []bench.Search{{Lo: 0, Hi: 10, Precision: 0.05}, {Lo: 10, Hi: 10, Precision: 0.05}, {Lo: 20, Hi: 10, Precision: 0.05},
		{Lo: 1, Hi: 10, Precision: 0}, {Lo: 1, Hi: 10, Precision: 1}, {Lo: 1.5, Hi: 10, Precision: 0.1, Integer: true}} {
		if s.Check() == nil {
			t.Errorf("%+v accepted", s)
		}
	}
}

func TestSLO(t *testing.T) {
	slo, err := bench.ParseSLO(map[string]string{"p99": "50ms", "errors": "0.1%", "max": "1s"})
	if err != nil {
		t.Fatal(err)
	}
	if got := slo.String(); got != "max ≤ 1s, p99 ≤ 50ms, errors ≤ 0.1%" {
		t.Errorf("String: %q", got)
	}
	sum := &results.Summary{Events: 9990, Errors: 10, Latency: results.LatencySummary{MaxMS: 900, Percentiles: map[string]float64{"99": 49.9}}}
	if ok, why := slo.Check(sum); !ok {
		t.Errorf("held SLO broken: %v", why)
	}
	sum.Errors, sum.Latency.Percentiles["99"] = 11, 50.1
	ok, why := slo.Check(sum)
	if ok || len(why) != 2 || !strings.Contains(why[0], "p99 50.10 ms > 50.00 ms") || !strings.Contains(why[1], "errors 0.11% > 0.1%") {
		t.Errorf("broken SLO: %v %v", ok, why)
	}
	sum.Errors, sum.Latency.Percentiles["99"], sum.Dropped = 0, 1, 3
	if ok, why := slo.Check(sum); ok || !strings.Contains(why[0], "3 events dropped") {
		t.Errorf("dropped events: %v %v", ok, why)
	}
	if slo.Record()["p99_ms"] != 50 || slo.Record()["errors_pct"] != 0.1 || slo.Latency[0].Limit != time.Second {
		t.Errorf("record %v", slo.Record())
	}
	for _, bad := range []map[string]string{{}, {"p98": "1ms"}, {"p99": "fast"}, {"p99": "-1ms"}, {"errors": "150%"}, {"tps": "100"}} {
		if _, err := bench.ParseSLO(bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}
