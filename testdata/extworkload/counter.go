// Package counter is a tiny workload family written outside starbench's
// module: two kinds of event, a metric of its own, run by starbench's
// engine through its public API alone (builtins/bench, runner/results).
package counter

import (
	"context"
	"sync/atomic"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/runner/results"
)

// MetricBumps is the family's own metric: bumps, counted across workers.
const MetricBumps = "bumps"

func init() {
	results.DeclareMetric(results.MetricSpec{Name: MetricBumps, HigherIsBetter: true, Additive: true, Help: "counter bumps"})
}

// Workload reads a row and bumps a counter, one in four events a bump.
type Workload struct{ bumps atomic.Int64 }

// Meta implements bench.Workload.
func (w *Workload) Meta() results.Meta { return results.Meta{Name: "counter", Version: "counter-1"} }

// Kinds implements bench.Kinded.
func (w *Workload) Kinds() []string { return []string{"read", "bump"} }

// NewWorker implements bench.Workload.
func (w *Workload) NewWorker(id int, seed uint64) (bench.Worker, error) {
	return &worker{w: w, n: seed}, nil
}

type worker struct {
	w          *Workload
	n          uint64
	kind       int
	read, bump bench.Stmt
}

func (k *worker) Prepare(ctx context.Context, s bench.Session) (err error) {
	if k.read, err = s.Prepare(ctx, "SELECT v FROM counters WHERE id = ?"); err != nil {
		return err
	}
	k.bump, err = s.Prepare(ctx, "UPDATE counters SET v = v + 1 WHERE id = ?")
	return err
}

func (k *worker) Event(ctx context.Context, s bench.Session) error {
	k.n = k.n*6364136223846793005 + 1442695040888963407
	if k.kind = 0; k.n>>62 == 0 {
		k.kind = 1
		k.w.bumps.Add(1)
		_, err := k.bump.Exec(ctx, int64(k.n>>40%100))
		return err
	}
	return k.read.Query(ctx, int64(k.n>>40%100))
}

func (k *worker) Kind() int { return k.kind }

// Step is a run of the workload for bench.RunStep.
func Step(conn bench.Connector, threads int, events int64, seed int64) bench.Step {
	w := &Workload{}
	return bench.Step{
		Run: func(ctx context.Context, r bench.StepRun) (*bench.Result, error) {
			return bench.Run(ctx, w, conn, bench.Options{Threads: threads, Events: events, Seed: seed, Start: r.Start}, r.Sinks...)
		},
		Annotate: func(sum *results.Summary, _ *bench.Result) {
			if sum.Metrics == nil {
				sum.Metrics = map[string]float64{}
			}
			sum.Metrics[MetricBumps] = float64(w.bumps.Load())
		},
		Workload: "counter", Threads: threads, Percentile: 95, Seed: seed,
	}
}
