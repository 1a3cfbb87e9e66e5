package bench_test

import (
	"context"
	"testing"
	"time"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/runner/results"
)

// kindsWorkload's events take turns between three kinds: a quick read, a
// 2 ms sleep, and a statement the server refuses with an error the run
// ignores (1146, no such table).
type kindsWorkload struct{}

func (kindsWorkload) Meta() results.Meta { return results.Meta{Name: "kinds", Version: "1"} }
func (kindsWorkload) Kinds() []string    { return []string{"quick", "slow", "failing"} }
func (kindsWorkload) NewWorker(id int, seed uint64) (bench.Worker, error) {
	return &kindsWorker{}, nil
}

type kindsWorker struct{ n, kind int }

func (w *kindsWorker) Prepare(context.Context, bench.Session) error { return nil }
func (w *kindsWorker) Kind() int                                    { return w.kind }
func (w *kindsWorker) Event(ctx context.Context, s bench.Session) error {
	w.kind = w.n % 3
	w.n++
	var err error
	switch w.kind {
	case 0:
		_, err = s.Query(ctx, "SELECT 1")
	case 1:
		_, err = s.Query(ctx, "SELECT SLEEP(0.002)")
	case 2:
		_, err = s.Exec(ctx, "UPDATE no_such_table SET x = 1")
	}
	return err
}

// The engine keeps a Kinded workload's events, errors and latencies by
// kind, in the totals and in every interval, and the summary carries them.
func TestEventsByKind(t *testing.T) {
	res, err := bench.Run(context.Background(), kindsWorkload{}, connector(t),
		bench.Options{Threads: 2, Time: 1500 * time.Millisecond, Interval: 500 * time.Millisecond, Seed: 1, IgnoreErrors: []uint16{1146}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Kinds) != 3 || res.Kinds[0].Name != "quick" || res.Kinds[2].Name != "failing" {
		t.Fatalf("kinds %+v", res.Kinds)
	}
	quick, slow, failing := res.Kinds[0], res.Kinds[1], res.Kinds[2]
	if quick.Events == 0 || slow.Events == 0 || quick.Events+slow.Events != res.Counts.Events {
		t.Errorf("events by kind %d + %d, in all %d", quick.Events, slow.Events, res.Counts.Events)
	}
	// Each failing event is retried (ignored error) and fails again: the
	// workers cycle quick, slow, failing, failing, ...
	if failing.Events != 0 || failing.Errors != res.Counts.Errors || failing.Errors == 0 {
		t.Errorf("failing kind: %+v, errors in all %d", failing.KindCounts, res.Counts.Errors)
	}
	if slow.MinLatency < 2*time.Millisecond || quick.Latency.TotalCount() != quick.Events || slow.Latency.ValueAtPercentile(50) < 2000 {
		t.Errorf("latencies: quick %v..%v (%d values), slow from %v, median %d µs", quick.MinLatency, quick.MaxLatency,
			quick.Latency.TotalCount(), slow.MinLatency, slow.Latency.ValueAtPercentile(50))
	}
	var byInterval [3]int64
	for _, iv := range res.Intervals {
		if len(iv.Kinds) != 3 {
			t.Fatalf("interval kinds %+v", iv.Kinds)
		}
		for i, k := range iv.Kinds {
			byInterval[i] += k.Events
			if k.Latency.TotalCount() != k.Events {
				t.Errorf("interval %v kind %d: %d events, %d latencies", iv.End, i, k.Events, k.Latency.TotalCount())
			}
		}
	}
	if byInterval[0] != quick.Events || byInterval[1] != slow.Events {
		t.Errorf("intervals add up to %v, totals %d %d", byInterval, quick.Events, slow.Events)
	}
	sum := bench.Summarize(res, 95)
	if len(sum.Kinds) != 3 || sum.Kinds[1].Events != slow.Events || sum.Kinds[1].Latency.MinMS < 2 ||
		sum.Kinds[0].PerMinute <= 0 || sum.Kinds[1].Latency.Percentiles["95"] == 0 {
		t.Errorf("summary kinds %+v", sum.Kinds)
	}
}

// A worker of a Kinded workload that does not report kinds is refused.
func TestKindedWorkloadNeedsKindReporters(t *testing.T) {
	_, err := bench.Run(context.Background(), kindlessWorkload{}, connector(t), bench.Options{Threads: 1, Events: 1})
	if err == nil {
		t.Fatal("ran")
	}
}

type kindlessWorkload struct{ kindsWorkload }

func (kindlessWorkload) NewWorker(id int, seed uint64) (bench.Worker, error) {
	return struct{ bench.Worker }{&kindsWorker{}}, nil
}
