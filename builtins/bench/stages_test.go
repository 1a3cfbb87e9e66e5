package bench_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/internal/testutil/benchtest"
)

func TestProfileShape(t *testing.T) {
	p := bench.Profile{{Duration: 2 * time.Second, Target: 100}, {Duration: time.Second, Target: 100}, {Duration: time.Second, Target: 0}}
	for _, c := range []struct {
		at    time.Duration
		load  float64
		stage int
		sum   float64
	}{
		{0, 0, 1, 0},
		{time.Second, 50, 1, 25},               // halfway up the ramp from 0
		{2500 * time.Millisecond, 100, 2, 150}, // the hold
		{3500 * time.Millisecond, 50, 3, 237.5},
		{5 * time.Second, 0, 3, 250}, // after the end the last target holds
	} {
		load, stage := p.At(c.at)
		if math.Abs(load-c.load) > 1e-9 || stage != c.stage || math.Abs(p.Integral(c.at)-c.sum) > 1e-9 {
			t.Errorf("at %v: load %v stage %d sum %v; want %v %d %v", c.at, load, stage, p.Integral(c.at), c.load, c.stage, c.sum)
		}
	}
	// TimeOf inverts Integral, on the ramps and the hold.
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 1000; i++ {
		sum := rng.Float64() * 250
		at, ok := p.TimeOf(sum)
		if !ok || math.Abs(p.Integral(at)-sum) > 1e-3 {
			t.Fatalf("TimeOf(%v) = %v (%v), whose integral is %v", sum, at, ok, p.Integral(at))
		}
	}
	if _, ok := p.TimeOf(250.5); ok {
		t.Error("a sum past the profile's was placed in it")
	}
	for _, bad := range []bench.Profile{nil, {{Duration: 0, Target: 1}}, {{Duration: time.Second, Target: -1}}, {{Duration: -time.Second, Target: 1}}} {
		if bad.Check() == nil {
			t.Errorf("%v passed", bad)
		}
	}
}

// Phases jump to their load at their start and hold it.
func TestPhasesHoldFromTheirStart(t *testing.T) {
	p := bench.Profile{{Duration: time.Second, Target: 100, Jump: true}, {Duration: time.Second, Target: 300, Jump: true}}
	for _, c := range []struct {
		at          time.Duration
		load        float64
		stage       int
		sum         float64
		sumInverted bool
	}{
		{0, 100, 1, 0, false},
		{500 * time.Millisecond, 100, 1, 50, true},
		{1500 * time.Millisecond, 300, 2, 250, true},
		{1999 * time.Millisecond, 300, 2, 399.7, true},
	} {
		load, stage := p.At(c.at)
		if math.Abs(load-c.load) > 1e-9 || stage != c.stage || math.Abs(p.Integral(c.at)-c.sum) > 1e-9 {
			t.Errorf("at %v: load %v stage %d sum %v; want %v %d %v", c.at, load, stage, p.Integral(c.at), c.load, c.stage, c.sum)
		}
		if at, ok := p.TimeOf(c.sum); c.sumInverted && (!ok || (at-c.at).Abs() > time.Microsecond) {
			t.Errorf("TimeOf(%v) = %v, want %v", c.sum, at, c.at)
		}
	}
	if err := (bench.Profile{{Duration: time.Second, Target: 1, Jump: true, Weights: []int64{0, 0}}}).Check(); err == nil {
		t.Error("weights all 0 passed")
	}
	if err := (bench.Profile{{Duration: time.Second, Target: 1, Jump: true, Weights: []int64{-1, 2}}}).Check(); err == nil {
		t.Error("a negative weight passed")
	}
}

// A closed-loop profile runs the threads it says: none during a first
// stage of 0 threads, then the ramp's; each interval records its stage,
// the threads offered and those running.
func TestStagesOfThreads(t *testing.T) {
	p := bench.Profile{{Duration: 500 * time.Millisecond, Target: 0}, {Duration: time.Second, Target: 4}, {Duration: 500 * time.Millisecond, Target: 4}}
	res, err := bench.Run(context.Background(), &benchtest.QueryWorkload{Query: "DO 1"}, connector(t),
		bench.Options{Threads: 4, Interval: 250 * time.Millisecond, Stages: p})
	if err != nil {
		t.Fatal(err)
	}
	if res.Elapsed < 2*time.Second || res.Stopped != "time" {
		t.Errorf("elapsed %v, stopped %q: the run lasts the profile", res.Elapsed, res.Stopped)
	}
	var stages []int
	for _, iv := range res.Intervals {
		stages = append(stages, iv.Stage)
		mid := iv.Start + (iv.End-iv.Start)/2
		want := p.Average(iv.Start, iv.End)
		if math.Abs(iv.Target-want) > 1e-9 {
			t.Errorf("interval to %v: target %v, want %v", iv.End, iv.Target, want)
		}
		if _, s := p.At(mid); s != iv.Stage {
			t.Errorf("interval to %v: stage %d, want %d", iv.End, iv.Stage, s)
		}
		load, _ := p.At(iv.End)
		if iv.Threads != min(4, int(math.Floor(load+1e-9))) {
			t.Errorf("interval to %v: %d threads, the profile %v", iv.End, iv.Threads, load)
		}
		// Before the ramp (a few ms of slack for the gate's step) nothing runs.
		if iv.End <= 490*time.Millisecond && iv.Counts.Events > 0 {
			t.Errorf("interval to %v: %d events during a stage of no threads", iv.End, iv.Counts.Events)
		}
	}
	if stages[0] != 1 || stages[len(stages)-1] != 3 {
		t.Errorf("stages by interval %v", stages)
	}
	// Thread i runs from when the ramp passes i (0.5 s + i × 0.25 s) to
	// the end: its time inside events says so, whatever the server's
	// speed (how many events a second 4 threads get over 2 is not: on 2
	// shared cores the server is as busy with either).
	if len(res.PerThread) != 4 {
		t.Fatalf("%d threads' figures", len(res.PerThread))
	}
	for i, th := range res.PerThread {
		window := 1500*time.Millisecond - time.Duration(i)*250*time.Millisecond
		if th.Events == 0 || th.Busy > window+100*time.Millisecond || th.Busy < window/2 {
			t.Errorf("thread %d: %d events, %v inside them, in a window of %v", i, th.Events, th.Busy, window)
		}
	}
}

// A profile of rates offers, stage by stage, what its integral says: the
// events of each stage are within three standard deviations of their
// Poisson count (plus the few an interval's edge moves across).
func TestStagesOfRates(t *testing.T) {
	p := bench.Profile{{Duration: time.Second, Target: 400}, {Duration: time.Second, Target: 400}, {Duration: time.Second, Target: 100}}
	res, err := bench.Run(context.Background(), &benchtest.QueryWorkload{Query: "DO 1"}, connector(t),
		bench.Options{Threads: 8, Interval: 100 * time.Millisecond, Rate: p.Max(), Stages: p, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	byStage := map[int]int64{}
	for _, iv := range res.Intervals {
		byStage[iv.Stage] += iv.Counts.Events
	}
	var begin time.Duration
	for i, s := range p {
		expected := p.Integral(begin+s.Duration) - p.Integral(begin)
		begin += s.Duration
		got := float64(byStage[i+1])
		if math.Abs(got-expected) > 3*math.Sqrt(expected)+0.03*expected {
			t.Errorf("stage %d: %v events, %v expected (Poisson σ %.1f)", i+1, got, expected, math.Sqrt(expected))
		}
	}
	if res.Dropped != 0 {
		t.Errorf("%d arrivals dropped", res.Dropped)
	}
}
