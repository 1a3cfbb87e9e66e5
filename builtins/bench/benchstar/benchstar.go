// Package benchstar runs a workload family's benchmark step from a plan:
// the step's folder in the run's results folder, its output and live
// progress on the run's, and the record the journal keeps of it (and a
// resumed run reads back). Every family's run builtin goes through it, as
// every family's command line goes through internal/cli's RunStep.
package benchstar

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/internal/results"
	"github.com/starbench/starbench/runner"
)

// Record is what the journal keeps of a benchmark step: its folder
// (relative to the results folder) and its summary.
type Record struct {
	Dir     string           `json:"dir"`
	Summary *results.Summary `json:"summary"`
}

// Run runs step as plan step s of builtin into the step folder named
// name (steps/<id>-NAME), its text on the run's output, its progress on
// the run's live view and passwords masked. A step stopped by an
// interrupt is an error that says where its partial results are.
func Run(h runner.Host, s *runner.Step, builtin, name string, step bench.Step) (Record, error) {
	dir, err := s.OutputDir(name)
	if err != nil {
		return Record{}, err
	}
	step.Output = h.Out().Writer()
	step.Redact = h.Run().Redact
	step.Progress = func(p bench.Progress) { h.Out().Benchmark(runner.BenchmarkStatus(p)) }
	ctx := s.Context()
	sum, res, err := bench.RunStep(ctx, dir, step)
	if err != nil || res == nil {
		return Record{}, fmt.Errorf("%s: %w", builtin, err)
	}
	rel := h.Run().Relative(dir)
	if res.Stopped == "interrupted" || ctx.Err() != nil {
		return Record{}, fmt.Errorf("%s: interrupted after %.1fs; partial results in %s: %w", builtin, res.Elapsed.Seconds(), rel, context.Canceled)
	}
	return Record{Dir: rel, Summary: sum}, nil
}

// ReadRecord reads back the record of a step a resumed run already ran.
func ReadRecord(builtin string, raw json.RawMessage) (Record, error) {
	var rec Record
	if err := json.Unmarshal(raw, &rec); err != nil || rec.Summary == nil {
		return rec, fmt.Errorf("recorded result of %s does not parse: %v", builtin, err)
	}
	return rec, nil
}
