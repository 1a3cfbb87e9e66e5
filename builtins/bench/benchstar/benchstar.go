// Package benchstar runs a workload family's benchmark step from a plan:
// the step's folder in the run's results folder, its output and live
// progress on the run's, and the record the journal keeps of it (and a
// resumed run reads back). Every family's run builtin goes through it, as
// every family's command line goes through builtins/cli's RunStep.
package benchstar

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/runner"
	"github.com/starbench/starbench/runner/results"
	"go.starlark.net/starlark"
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
	return RunIn(s.Context(), h, dir, builtin, step)
}

// RunIn runs step as Run does, into the folder dir (a capacity probe's).
func RunIn(ctx context.Context, h runner.Host, dir, builtin string, step bench.Step) (Record, error) {
	step.Output = h.Out().Writer()
	step.Redact = h.Run().Redact
	step.Progress = func(p bench.Progress) { h.Out().Benchmark(Status(p)) }
	sum, _, err := bench.RunStep(ctx, dir, step)
	if err != nil || sum == nil {
		return Record{}, fmt.Errorf("%s: %w", builtin, err)
	}
	rel := h.Run().Relative(dir)
	if sum.Status == results.StatusInterrupted || ctx.Err() != nil {
		return Record{}, fmt.Errorf("%s: interrupted after %.1fs; partial results in %s: %w", builtin, sum.Seconds, rel, context.Canceled)
	}
	return Record{Dir: rel, Summary: sum}, nil
}

// Status is a step's progress as the run's live view (and live metrics) take it.
func Status(p bench.Progress) runner.BenchmarkStatus {
	b := runner.BenchmarkStatus{Workload: p.Workload, Threads: p.Threads, ElapsedS: p.ElapsedS, TotalS: p.TotalS, TPS: p.TPS,
		P99MS: p.P99MS, Errors: p.Errors, Reconnects: p.Reconnects, Final: p.Final, Client: p.Client,
		P50MS: p.P50MS, P95MS: p.P95MS, MaxMS: p.MaxMS, TotalEvents: p.TotalEvents, TotalQueries: p.TotalQueries,
		ErrorsByCode: p.ErrorsByCode}
	for _, part := range p.Parts {
		b.Parts = append(b.Parts, Status(part))
	}
	return b
}

// ReadRecord reads back the record of a step a resumed run already ran.
func ReadRecord(builtin string, raw json.RawMessage) (Record, error) {
	var rec Record
	if err := json.Unmarshal(raw, &rec); err != nil || rec.Summary == nil {
		return rec, fmt.Errorf("recorded result of %s does not parse: %v", builtin, err)
	}
	return rec, nil
}

// Seed is a step's seed: the one the plan gave (non-zero), else the
// step's own, derived from the run seed and the step id, so every step
// has its own stream and the same run seed repeats it.
func Seed(s *runner.Step, explicit int64) int64 {
	if explicit != 0 {
		return explicit
	}
	return s.Seed()
}

// Tags reads a step's tags= dict: string names, values as strings (a
// number's or bool's text otherwise); nil gives none.
func Tags(d *starlark.Dict) (map[string]string, error) {
	tags := map[string]string{}
	if d == nil {
		return tags, nil
	}
	for _, kv := range d.Items() {
		k, ok := starlark.AsString(kv[0])
		if !ok {
			return nil, fmt.Errorf("tag names must be strings")
		}
		if s, ok := starlark.AsString(kv[1]); ok {
			tags[k] = s
		} else {
			tags[k] = kv[1].String()
		}
	}
	return tags, nil
}
