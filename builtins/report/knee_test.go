package report

import (
	"bytes"
	"strings"
	"testing"
)

// sweep is a thread sweep of oltp_read_write tagged version=v: tps and
// p95 (ms) at each level.
func sweep(run *Run, v string, levels []int, tps, p95 []float64) []*Benchmark {
	var out []*Benchmark
	for i, th := range levels {
		b := bm(run, "oltp_read_write", th, tps[i], p95[i]*2, map[string]string{"version": v})
		b.Summary.Latency.Percentiles["95"] = p95[i]
		out = append(out, b)
	}
	return out
}

// The seed reports' shape, each level run twice: tps stops growing at 600
// threads while p95 climbs; the knee is the last level that paid.
func TestKneeOfAThreadSweep(t *testing.T) {
	run := &Run{Name: "r"}
	levels := []int{150, 300, 600, 900, 1200}
	twice := func(v string, tps, p95 []float64) []*Benchmark {
		return append(sweep(run, v, levels, tps, p95), sweep(run, v, levels, tps, p95)...)
	}
	a := twice("a", []float64{1000, 1900, 2500, 2550, 2500}, []float64{10, 12, 20, 30, 45})
	b := twice("b", []float64{1000, 2000, 3000, 3900, 4700}, []float64{10, 11, 12, 13, 14})
	knees := Knees(append(a, b...), DefaultKneeRule)
	if len(knees) != 2 {
		t.Fatalf("knees %+v", knees)
	}
	if k := knees[0]; k.Threads != 600 || k.Next != 900 || k.TPSChange > 2.1 || k.TPSChange < 1.9 || k.LatencyChange != 50 {
		t.Errorf("version a: %+v", k)
	}
	if k := knees[1]; k.Threads != 0 || len(k.Levels) != 5 {
		t.Errorf("version b scales to the end: %+v", k)
	}
	if got := knees[0].Describe(DefaultKneeRule); got != "oltp_read_write version=a: knee at 600 threads (to 900: tps +2.0%, p95 +50.0%)" {
		t.Errorf("described %q", got)
	}
	// A looser rule finds b's knee nowhere either, a stricter one a's earlier.
	strict, err := ParseKneeRule("p95>10%, tps<50%")
	if err != nil {
		t.Fatal(err)
	}
	if k := Knees(a, strict)[0]; k.Threads != 300 {
		t.Errorf("by %s: %+v", strict, k)
	}
	// A comparison finds each contender's knee, the contender tag apart.
	c, err := Compare([]*Run{{Name: "r", Benchmarks: append(a, b...)}}, CompareOptions{By: "version"})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Knees) != 2 || c.Knees[0].Contender != "a" || c.Knees[0].Threads != 600 || c.Knees[1].Threads != 0 {
		t.Errorf("comparison's knees %+v", c.Knees)
	}
	var buf bytes.Buffer
	WriteKnees(&buf, c.Knees[1:], c.KneeRule, false)
	if buf.Len() > 0 {
		t.Errorf("a section of sweeps without a knee:\n%s", buf.String())
	}
	WriteKnees(&buf, c.Knees, c.KneeRule, false)
	if !strings.Contains(buf.String(), "a: oltp_read_write: knee at 600 threads") || !strings.Contains(buf.String(), "b: oltp_read_write: no knee up to 1200 threads") {
		t.Errorf("written:\n%s", buf.String())
	}
}

func TestParseKneeRule(t *testing.T) {
	for _, bad := range []string{"", "tps<5%", "tps<5%,p95<20%", "tps>5%,p95>20%", "qps<5%,p95>20%", "tps<5%,p95>20%,max>1%", "tps<x%,p95>1%"} {
		if _, err := ParseKneeRule(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	r, err := ParseKneeRule("tps < 3% , p99 > +40%")
	if err != nil || r != (KneeRule{TPSGain: 3, Latency: MetricP99, LatencyGrowth: 40}) || r.String() != "tps<3%,p99>40%" {
		t.Errorf("%+v %v", r, err)
	}
}

// A knee is not claimed from too little: the same turn with each level run
// once, from two levels, or from repeats whose latency spreads over the
// growth is reported as unclaimed, saying why.
func TestNoKneeFromTooFewLevelsOrRepeats(t *testing.T) {
	run := &Run{Name: "r"}
	once := sweep(run, "a", []int{150, 300, 600}, []float64{1000, 1900, 1910}, []float64{10, 12, 30})
	two := sweep(run, "b", []int{1, 2}, []float64{1000, 1010}, []float64{10, 30})
	two = append(two, sweep(run, "b", []int{1, 2}, []float64{1000, 1010}, []float64{10, 30})...)
	// Three levels twice, the p95 of the second run far from the first's.
	noisy := sweep(run, "c", []int{150, 300, 600}, []float64{1000, 1900, 1910}, []float64{10, 12, 30})
	noisy = append(noisy, sweep(run, "c", []int{150, 300, 600}, []float64{1000, 1900, 1910}, []float64{10, 14, 10})...)
	knees := Knees(append(append(once, two...), noisy...), DefaultKneeRule)
	if len(knees) != 3 || knees[0].Threads != 0 || knees[1].Threads != 0 || knees[2].Threads != 0 {
		t.Fatalf("knees claimed: %+v", knees)
	}
	if got := knees[0].Describe(DefaultKneeRule); !strings.Contains(got, "no knee claimed: 300 threads to 600 meets the rule, from 3 levels and 1 and 1 runs of the two") {
		t.Errorf("one run a level: %q", got)
	}
	if got := knees[1].Describe(DefaultKneeRule); !strings.Contains(got, "no knee claimed: 1 thread to 2 meets the rule, from 2 levels and 2 and 2 runs") {
		t.Errorf("two levels: %q", got)
	}
	if got := knees[2].Describe(DefaultKneeRule); !strings.Contains(got, "no knee claimed: 300 threads to 600 meets the rule, but its p95 growth is within the runs' spread") {
		t.Errorf("noisy repeats: %q", got)
	}
	var buf bytes.Buffer
	WriteKnees(&buf, knees, DefaultKneeRule, false)
	if strings.Contains(buf.String(), "knee at") || !strings.Contains(buf.String(), "no knee claimed") {
		t.Errorf("written:\n%s", buf.String())
	}
}
