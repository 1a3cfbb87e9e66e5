package counter

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/runner/results"
)

// The workload runs on starbench's engine and writes a step folder that
// starbench's own reader reads back: its name and version, its kinds'
// counts and its declared metric, with nothing of starbench's internals.
func TestAWorkloadOutsideTheModule(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "step")
	sum, res, err := bench.RunStep(context.Background(), dir, Step(bench.DryConnector{}, 4, 2000, 7))
	if err != nil || res == nil {
		t.Fatalf("run: %v", err)
	}
	back, err := results.ReadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	if back.Workload.Name != "counter" || back.Workload.Version != "counter-1" || back.Events != 2000 || back.Threads != 4 {
		t.Errorf("summary: workload %+v, %d events on %d threads", back.Workload, back.Events, back.Threads)
	}
	if len(back.Kinds) != 2 || back.Kinds[0].Events+back.Kinds[1].Events != 2000 || back.Kinds[1].Name != "bump" {
		t.Fatalf("kinds: %+v", back.Kinds)
	}
	bumps := back.Metrics[MetricBumps]
	if bumps != float64(back.Kinds[1].Events) || bumps < 300 || bumps > 700 || sum.Metrics[MetricBumps] != bumps {
		t.Errorf("bumps %v, bump events %d: want one event in four", bumps, back.Kinds[1].Events)
	}
	if spec, ok := results.LookupMetric(MetricBumps); !ok || !spec.Additive {
		t.Errorf("the declared metric: %+v %v", spec, ok)
	}
}
