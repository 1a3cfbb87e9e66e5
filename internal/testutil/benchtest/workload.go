package benchtest

import (
	"context"
	"sync/atomic"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/runner/results"
)

// QueryWorkload is the smallest workload: one statement per event,
// prepared once per worker; Read says whether it returns rows (counted as
// reads) or not (writes). Workers counts the workers made.
type QueryWorkload struct {
	Query   string
	Read    bool
	Workers atomic.Int64
}

// Meta implements bench.Workload.
func (q *QueryWorkload) Meta() results.Meta { return results.Meta{Name: "query", Version: "1"} }

// NewWorker implements bench.Workload.
func (q *QueryWorkload) NewWorker(id int, seed uint64) (bench.Worker, error) {
	q.Workers.Add(1)
	return &queryWorker{q: q}, nil
}

type queryWorker struct {
	q  *QueryWorkload
	st bench.Stmt
}

func (w *queryWorker) Prepare(ctx context.Context, s bench.Session) (err error) {
	w.st, err = s.Prepare(ctx, w.q.Query)
	return err
}

func (w *queryWorker) Event(ctx context.Context, s bench.Session) error {
	if w.q.Read {
		return w.st.Query(ctx)
	}
	_, err := w.st.Exec(ctx)
	return err
}
