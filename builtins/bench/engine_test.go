package bench_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/internal/testutil/benchtest"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
	"github.com/starbench/starbench/runner/results"
)

func TestMain(m *testing.M) { sandboxtest.Main(m) }

func connector(t *testing.T) *bench.SQLConnector {
	return bench.NewSQLConnector(sandboxtest.Shared(t).Config(), bench.PSAuto)
}

func TestEventLimitIsExact(t *testing.T) {
	res, err := bench.Run(context.Background(), &benchtest.QueryWorkload{Query: "SELECT 1", Read: true}, connector(t),
		bench.Options{Threads: 4, Events: 1000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var perThread int64
	for _, th := range res.PerThread {
		perThread += th.Events
	}
	if res.Counts.Events != 1000 || perThread != 1000 || res.Counts.Reads != 1000 || res.Counts.Writes+res.Counts.Others != 0 {
		t.Errorf("counts %+v, per thread %d", res.Counts, perThread)
	}
	if res.Latency.TotalCount() != 1000 || res.Stopped != "events" {
		t.Errorf("histogram %d values, stopped %q", res.Latency.TotalCount(), res.Stopped)
	}
	if res.MinLatency <= 0 || res.MaxLatency < res.MinLatency || res.SumLatency < res.MaxLatency {
		t.Errorf("latencies min %v max %v sum %v", res.MinLatency, res.MaxLatency, res.SumLatency)
	}
}

// Checkpoints between interval ends: each reports the time since the
// previous one, and with the time after the last they add up to the run;
// the intervals stay whole (a checkpoint splits one, reported as one).
func TestCheckpoints(t *testing.T) {
	var windows []*bench.Result
	res, err := bench.Run(context.Background(), &benchtest.QueryWorkload{Query: "DO 1"}, connector(t),
		bench.Options{Threads: 2, Time: 2 * time.Second, Interval: time.Second,
			Checkpoints: []time.Duration{700 * time.Millisecond, 1300 * time.Millisecond},
			Checkpoint:  func(r *bench.Result) { windows = append(windows, r) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(windows) != 2 || res.SinceCheckpoint == nil {
		t.Fatalf("%d checkpoints, after the last %v", len(windows), res.SinceCheckpoint)
	}
	all := append(windows, res.SinceCheckpoint)
	var events, perThread int64
	var latencies int64
	since := time.Duration(0)
	for i, w := range all {
		if w.Since != since || w.Elapsed <= w.Since || w.Counts.Events == 0 {
			t.Errorf("window %d: %v..%v, %d events", i, w.Since, w.Elapsed, w.Counts.Events)
		}
		since = w.Elapsed
		events += w.Counts.Events
		latencies += w.Latency.TotalCount()
		for _, th := range w.PerThread {
			perThread += th.Events
		}
		if w.MinLatency <= 0 || w.MaxLatency < w.MinLatency || w.SumLatency <= 0 {
			t.Errorf("window %d latencies: min %v max %v sum %v", i, w.MinLatency, w.MaxLatency, w.SumLatency)
		}
	}
	if windows[0].Elapsed < 700*time.Millisecond || windows[0].Elapsed > 900*time.Millisecond || windows[1].Elapsed < 1300*time.Millisecond {
		t.Errorf("checkpoints at %v and %v", windows[0].Elapsed, windows[1].Elapsed)
	}
	if events != res.Counts.Events || perThread != events || latencies != res.Latency.TotalCount() {
		t.Errorf("windows: %d events (%d by thread, %d latencies), the run %d (%d latencies)", events, perThread, latencies, res.Counts.Events, res.Latency.TotalCount())
	}
	var ivEvents int64
	whole := 0
	for _, iv := range res.Intervals {
		ivEvents += iv.Counts.Events
		if !iv.Partial {
			whole++
			if iv.End < time.Duration(whole)*time.Second {
				t.Errorf("interval %d ends at %v: split by a checkpoint", whole, iv.End)
			}
		}
	}
	if whole != 2 || ivEvents != res.Counts.Events {
		t.Errorf("%d whole intervals, with %d events of %d", whole, ivEvents, res.Counts.Events)
	}
}

// Options.Start holds the load after the workers have connected: the run
// arrives at the barrier, no event runs until it lets go, and a context
// that ends while it waits ends the run with its error.
func TestStartBarrier(t *testing.T) {
	b := &heldBarrier{release: make(chan struct{})}
	w := &benchtest.QueryWorkload{Query: "DO 1"}
	done := make(chan error, 1)
	var started atomic.Bool
	c := connector(t)
	go func() {
		_, err := bench.Run(context.Background(), w, c, bench.Options{Threads: 2, Events: 50, Seed: 1, Start: b,
			Started: func() { started.Store(true) }})
		done <- err
	}()
	for deadline := time.Now().Add(10 * time.Second); !b.arrived.Load() && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // time to start, were the barrier not holding it
	if !b.arrived.Load() || started.Load() {
		t.Fatalf("arrived %v, started %v", b.arrived.Load(), started.Load())
	}
	close(b.release)
	if err := <-done; err != nil || !started.Load() {
		t.Fatalf("run: %v, started %v", err, started.Load())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := bench.Run(ctx, w, connector(t), bench.Options{Threads: 1, Events: 5, Seed: 1, Start: &heldBarrier{release: make(chan struct{})}})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a run whose barrier never opens: %v", err)
	}
}

// heldBarrier opens when release is closed.
type heldBarrier struct {
	arrived atomic.Bool
	release chan struct{}
}

func (b *heldBarrier) Arrive(ctx context.Context) error {
	b.arrived.Store(true)
	select {
	case <-b.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func TestTimeLimitAndIntervals(t *testing.T) {
	var lines []string
	sink := bench.SinkFunc(func(iv *bench.Interval) {
		lines = append(lines, fmt.Sprintf("%v %d", iv.End.Round(100*time.Millisecond), iv.Counts.Events))
	})
	start := time.Now()
	res, err := bench.Run(context.Background(), &benchtest.QueryWorkload{Query: "DO 1"}, connector(t),
		bench.Options{Threads: 2, Time: 1500 * time.Millisecond, Interval: 500 * time.Millisecond}, sink)
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	if res.Elapsed < 1500*time.Millisecond || took > 5*time.Second || res.Stopped != "time" {
		t.Errorf("elapsed %v, took %v, stopped %q", res.Elapsed, took, res.Stopped)
	}
	if len(lines) != 3 {
		t.Errorf("interval reports: %q", lines)
	}
	var sum int64
	for _, iv := range res.Intervals {
		sum += iv.Counts.Events
	}
	if sum != res.Counts.Events || res.Counts.Others != res.Counts.Events {
		t.Errorf("intervals add up to %d events, total %+v", sum, res.Counts)
	}
}

func TestIgnoredAndFatalErrors(t *testing.T) {
	// A missing table (1146) in the ignore list is counted and retried.
	// Calls alternate success/failure, so 20 events take calls 1..39: 19
	// of them failed.
	res, err := bench.Run(context.Background(), &failingWorkload{}, connector(t),
		bench.Options{Threads: 2, Events: 20, IgnoreErrors: []uint16{1146}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Counts.Events != 20 || res.Counts.Errors != 19 || res.ErrorCodes["1146"] != 19 {
		t.Errorf("ignored errors: %+v %v", res.Counts, res.ErrorCodes)
	}
	// Not in the list: the run stops with the error and a partial result.
	res, err = bench.Run(context.Background(), &failingWorkload{}, connector(t), bench.Options{Threads: 2, Events: 20})
	if !errors.Is(err, bench.ErrStopped) || !strings.Contains(err.Error(), "1146") || res == nil {
		t.Fatalf("want ErrStopped with 1146, got %v (result %v)", err, res != nil)
	}
}

// Threads that fail to start the same way are one line of the error,
// which still carries the server's error code.
func TestStartErrorsAreGroupedByMessage(t *testing.T) {
	_, err := bench.Run(context.Background(), &benchtest.QueryWorkload{Query: "SELEKT 1"}, connector(t), bench.Options{Threads: 8, Events: 8})
	if err == nil {
		t.Fatal("a statement that does not parse was prepared")
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "threads 0-7: prepare statements: ") {
		t.Errorf("want one line for threads 0-7, got:\n%v", err)
	}
	if code, ok := db.ErrorCode(err); !ok || code != 1064 {
		t.Errorf("error code %d (%v), want 1064", code, ok)
	}
}

// failingWorkload fails every other event with error 1146.
type failingWorkload struct{ n atomic.Int64 }

func (f *failingWorkload) Meta() results.Meta { return results.Meta{Name: "failing"} }
func (f *failingWorkload) NewWorker(int, uint64) (bench.Worker, error) {
	return &failingWorker{f: f}, nil
}

type failingWorker struct{ f *failingWorkload }

func (w *failingWorker) Prepare(context.Context, bench.Session) error { return nil }
func (w *failingWorker) Event(ctx context.Context, s bench.Session) error {
	if w.f.n.Add(1)%2 == 0 {
		_, err := s.Query(ctx, "SELECT * FROM no_such_table_here")
		return err
	}
	_, err := s.Query(ctx, "SELECT 1")
	return err
}

// SQLConnector's sessions are the transport's (internal/mysqlconn, where
// they are tested) behind Session: with the optional extras, in both
// prepared-statement modes, with Init run first, and a prepared query
// allocates no more through Session than on the transport (the boxed
// argument).
func TestSQLConnectorSessions(t *testing.T) {
	ctx := context.Background()
	for _, ps := range []bench.PSMode{bench.PSAuto, bench.PSDisable} {
		t.Run(string(ps), func(t *testing.T) {
			conn := &bench.SQLConnector{Config: sandboxtest.Shared(t).Config(), PS: ps, Init: []string{"SET @starbench_init = 7"}}
			if conn.Database() != conn.Config.DBName {
				t.Errorf("Database() = %q, want %q", conn.Database(), conn.Config.DBName)
			}
			s, err := conn.Connect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			_, ll := s.(bench.LocalLoader)
			_, cb := s.(bench.ContextBinder)
			_, in := s.(bench.Interrupter)
			if !ll || !cb || !in {
				t.Errorf("a %T: LocalLoader %v, ContextBinder %v, Interrupter %v", s, ll, cb, in)
			}
			if n, err := s.Query(ctx, "SELECT seq FROM seq_1_to_10 WHERE @starbench_init = 7"); n != 10 || err != nil {
				t.Errorf("after Init: %d rows, %v; want 10", n, err)
			}
			st, err := s.Prepare(ctx, "SELECT ? + @starbench_init")
			if err != nil {
				t.Fatal(err)
			}
			args := make([]any, 1)
			allocs := testing.AllocsPerRun(200, func() {
				args[0] = int64(1000)
				if e := st.Query(ctx, args...); e != nil {
					err = e
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if ps == bench.PSAuto && allocs > 1 {
				t.Errorf("%.1f allocations per prepared query, want at most 1 (the boxed argument)", allocs)
			}
		})
	}
}

func TestCancelStopsPromptly(t *testing.T) {
	conn := connector(t) // may start the shared server: before the clock starts
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	res, err := bench.Run(ctx, &benchtest.QueryWorkload{Query: "SELECT SLEEP(0.05)", Read: true}, conn,
		bench.Options{Threads: 3, Time: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stopped != "interrupted" || time.Since(start) > 5*time.Second || res.Counts.Events == 0 {
		t.Errorf("stopped %q after %v with %d events", res.Stopped, time.Since(start), res.Counts.Events)
	}
}

func TestOptionsValidation(t *testing.T) {
	for _, o := range []bench.Options{{Threads: 0, Events: 1}, {Threads: 1}, {Threads: 1, Events: -1}, {Threads: 1, Time: -time.Second}} {
		if err := o.Validate(); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}
