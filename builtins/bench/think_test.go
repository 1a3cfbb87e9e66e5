package bench_test

import (
	"context"
	"testing"
	"time"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/runner/results"
)

// thinkingWorkload's events are a quick query followed by a 20 ms think
// time.
type thinkingWorkload struct{}

func (thinkingWorkload) Meta() results.Meta { return results.Meta{Name: "thinking", Version: "1"} }
func (thinkingWorkload) NewWorker(int, uint64) (bench.Worker, error) {
	return &thinkingWorker{}, nil
}

type thinkingWorker struct{}

func (*thinkingWorker) Prepare(context.Context, bench.Session) error { return nil }
func (*thinkingWorker) ThinkTime() time.Duration                     { return 20 * time.Millisecond }
func (*thinkingWorker) Event(ctx context.Context, s bench.Session) error {
	_, err := s.Query(ctx, "SELECT 1")
	return err
}

// A Thinker's pause follows each event without being part of its
// latency: events are paced by it, and their latencies stay those of the
// query. Under a rate the schedule paces the events and no pause is made.
func TestThinkTimeIsOutsideLatency(t *testing.T) {
	res, err := bench.Run(context.Background(), thinkingWorkload{}, connector(t), bench.Options{Threads: 1, Time: time.Second, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if n := res.Counts.Events; n < 25 || n > 51 {
		t.Errorf("%d events in 1 s with 20 ms of thinking after each: want 25..50", n)
	}
	if res.MaxLatency >= 20*time.Millisecond {
		t.Errorf("max latency %v: the think time was counted", res.MaxLatency)
	}
	open, err := bench.Run(context.Background(), thinkingWorkload{}, connector(t), bench.Options{Threads: 1, Time: time.Second, Seed: 1, Rate: 200})
	if err != nil {
		t.Fatal(err)
	}
	if n := open.Counts.Events; n < 150 {
		t.Errorf("%d events at 200/s: the think time held the schedule back", n)
	}
}
