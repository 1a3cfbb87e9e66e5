// Package bench is starbench's workload engine, a Go library without
// Starlark. It runs a Workload with one goroutine per client thread, each
// with its own connection (Session) and its own latency histogram handle;
// a ticker merges the handles every interval into interval and total
// histograms and hands Interval values to sinks, which never block workers.
// Queries are counted the way sysbench counts them: by result (a result set
// is a read, affected rows > 0 a write, anything else other).
//
// Workloads (sysbench's OLTP scripts, later TPC-C and custom mixes) plug in
// through the small Workload and Worker interfaces.
package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/starbench/starbench/builtins/db"
)

// Meta identifies a workload and the version of its statement generation,
// so results say exactly what produced them.
type Meta struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Workload makes one Worker per client thread.
type Workload interface {
	Meta() Meta
	// NewWorker makes the worker of thread id (0-based); seed is the
	// worker's own seed, derived from the run seed.
	NewWorker(id int, seed uint64) (Worker, error)
}

// Worker issues the events of one client thread on its session.
type Worker interface {
	// Prepare sets the worker up on a session (prepared statements); it is
	// called again after a reconnect.
	Prepare(ctx context.Context, s Session) error
	// Event runs one event (a transaction, for OLTP workloads).
	Event(ctx context.Context, s Session) error
}

// Finisher is a Worker that has work to do after its last event, such as
// flushing a buffered bulk insert.
type Finisher interface {
	Finish(ctx context.Context, s Session) error
}

// Sink receives interval statistics from the ticker goroutine.
type Sink interface {
	Interval(iv *Interval)
}

// SinkFunc adapts a function to Sink.
type SinkFunc func(iv *Interval)

// Interval implements Sink.
func (f SinkFunc) Interval(iv *Interval) { f(iv) }

// Options control a run.
type Options struct {
	Threads  int
	Time     time.Duration // 0: no time limit (Events must be set)
	Events   int64         // 0: no event limit (Time must be set)
	Interval time.Duration // statistics interval; 0 means one second
	Seed     int64         // run seed; worker i's seed derives from it
	// IgnoreErrors lists MySQL error codes that do not stop the run: the
	// event is rolled back, counted as an ignored error and retried.
	IgnoreErrors []uint16
	// IgnoreAllErrors ignores every server error.
	IgnoreAllErrors bool
	// ConnectParallel bounds concurrent connection set-up; 0 means 64.
	ConnectParallel int
}

// Validate checks the options.
func (o Options) Validate() error {
	switch {
	case o.Threads < 1:
		return fmt.Errorf("threads must be at least 1, got %d", o.Threads)
	case o.Time < 0:
		return fmt.Errorf("time must not be negative")
	case o.Events < 0:
		return fmt.Errorf("events must not be negative, got %d", o.Events)
	case o.Time == 0 && o.Events == 0:
		return fmt.Errorf("give a time limit or an event limit (both are 0, the run would never end)")
	case o.Interval < 0:
		return fmt.Errorf("interval must not be negative")
	}
	return nil
}

// Interval is the statistics of one report interval.
type Interval struct {
	Start, End time.Duration // since the run started
	Threads    int
	Counts     Counts
	Latency    *hdr.Histogram // this interval's latencies (µs)
	// Partial marks the last interval, cut short by the end of the run;
	// sinks never see it (as sysbench never prints it).
	Partial bool
}

// Seconds is the interval's length.
func (iv *Interval) Seconds() float64 { return (iv.End - iv.Start).Seconds() }

// Rate divides a count by the interval's length.
func (iv *Interval) Rate(n int64) float64 {
	if s := iv.Seconds(); s > 0 {
		return float64(n) / s
	}
	return 0
}

// ThreadStats is one worker's share, for thread fairness.
type ThreadStats struct {
	Events int64         `json:"events"`
	Busy   time.Duration `json:"busy_ns"`
}

// Result is what a run measured.
type Result struct {
	Meta       Meta
	Threads    int
	Elapsed    time.Duration
	Counts     Counts
	ErrorCodes map[string]int64
	Latency    *hdr.Histogram // all latencies (µs)
	MinLatency time.Duration  // exact
	MaxLatency time.Duration  // exact
	SumLatency time.Duration  // exact
	PerThread  []ThreadStats
	Intervals  []*Interval
	StartTime  time.Time
	Interval   time.Duration // statistics interval
	Stopped    string        // "time", "events", "interrupted"
}

// Summary reduces the latencies to milliseconds and the percentiles asked for.
func (r *Result) Summary(percentiles ...float64) LatencySummary {
	s := LatencySummary{
		MinMS: ms(r.MinLatency), MaxMS: ms(r.MaxLatency), SumMS: ms(r.SumLatency),
		Percentiles: percentilesOf(r.Latency, append(append([]float64(nil), SummaryPercentiles...), percentiles...)),
	}
	if r.Counts.Events > 0 {
		s.AvgMS = s.SumMS / float64(r.Counts.Events)
		// A histogram bucket reports its upper edge; no latency exceeded
		// the exact maximum, nor fell below the exact minimum.
		for k, v := range s.Percentiles {
			s.Percentiles[k] = math.Min(math.Max(v, s.MinMS), s.MaxMS)
		}
	}
	return s
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// ErrStopped is returned (wrapped) when a worker hit an error that is not
// ignored; the run stops and its partial result is returned with it.
var ErrStopped = errors.New("run stopped by an error")

// WorkerSeed derives worker id's seed from the run seed (splitmix64), so
// the same run seed gives every worker the same stream.
func WorkerSeed(runSeed int64, id int) uint64 {
	z := uint64(runSeed) + uint64(id+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

type worker struct {
	id      int
	w       Worker
	session Session // counts every query into stats
	stats   *workerStats
}

// Run executes the workload until the time or event limit, or until ctx is
// cancelled (Stopped is then "interrupted" and the result still complete
// up to that point). A worker error that is not ignored stops every worker
// and is returned with the partial result.
func Run(ctx context.Context, wl Workload, conn Connector, opts Options, sinks ...Sink) (*Result, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if opts.Interval == 0 {
		opts.Interval = time.Second
	}
	workers, err := startWorkers(ctx, wl, conn, opts)
	defer closeWorkers(workers)
	if err != nil {
		return nil, err
	}

	res := &Result{Meta: wl.Meta(), Threads: opts.Threads, ErrorCodes: map[string]int64{}, Latency: NewHistogram(), Interval: opts.Interval}
	var stop atomic.Bool
	var stopReason atomic.Value
	var issued atomic.Int64
	runCtx, cancelRun := context.WithCancel(ctx)
	defer cancelRun()
	var firstErr error
	var errOnce sync.Once
	fail := func(err error) {
		errOnce.Do(func() {
			firstErr = err
			stopReason.Store("error")
			stop.Store(true)
			cancelRun()
		})
	}
	ignored := map[uint16]bool{}
	for _, c := range opts.IgnoreErrors {
		ignored[c] = true
	}

	res.StartTime = time.Now()
	start := res.StartTime
	if opts.Time > 0 {
		t := time.AfterFunc(opts.Time, func() {
			stopReason.CompareAndSwap(nil, "time")
			stop.Store(true)
		})
		defer t.Stop()
	}
	go func() {
		select {
		case <-ctx.Done():
			stopReason.CompareAndSwap(nil, "interrupted")
			stop.Store(true)
		case <-runCtx.Done():
		}
	}()

	tick := newTicker(res, workers, opts, start, sinks)
	tickDone := make(chan struct{})
	go func() {
		defer close(tick.done)
		t := time.NewTicker(opts.Interval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				tick.collect(time.Since(start))
			case <-tickDone:
				return
			}
		}
	}()

	var wg sync.WaitGroup
	for _, wk := range workers {
		wg.Add(1)
		go func(wk *worker) {
			defer wg.Done()
			for !stop.Load() {
				if opts.Events > 0 && issued.Add(1) > opts.Events {
					// Give the slot back: a worker whose event failed with an
					// ignored error may still need it for its retry.
					issued.Add(-1)
					stopReason.CompareAndSwap(nil, "events")
					return
				}
				t0 := time.Now()
				err := wk.w.Event(runCtx, wk.session)
				lat := time.Since(t0)
				if err == nil {
					wk.stats.recordEvent(lat)
					continue
				}
				if runCtx.Err() != nil {
					return // interrupted mid-event: the event is not counted
				}
				code, isServer := db.ErrorCode(err)
				if isServer && (opts.IgnoreAllErrors || ignored[code]) {
					wk.stats.recordError(strconv.Itoa(int(code)), lat)
					_, _ = wk.session.(*countingSession).s.Exec(runCtx, "ROLLBACK") // not counted, as in sysbench
					if opts.Events > 0 {
						issued.Add(-1) // the event is retried
					}
					continue
				}
				fail(fmt.Errorf("%w: thread %d: %w", ErrStopped, wk.id, err))
				return
			}
		}(wk)
	}
	wg.Wait()
	elapsed := time.Since(start)
	for _, wk := range workers {
		if f, ok := wk.w.(Finisher); ok && firstErr == nil {
			if err := f.Finish(ctx, wk.session); err != nil {
				fail(fmt.Errorf("%w: thread %d: finish: %w", ErrStopped, wk.id, err))
			}
		}
	}
	close(tickDone)
	<-tick.done
	tick.collectFinal(elapsed)
	tick.finish()
	res.Elapsed = elapsed
	if r, ok := stopReason.Load().(string); ok {
		res.Stopped = r
	}
	if firstErr == nil && ctx.Err() != nil {
		res.Stopped = "interrupted"
	}
	return res, firstErr
}

func startWorkers(ctx context.Context, wl Workload, conn Connector, opts Options) ([]*worker, error) {
	workers := make([]*worker, opts.Threads)
	for i := range workers {
		w, err := wl.NewWorker(i, WorkerSeed(opts.Seed, i))
		if err != nil {
			return nil, err
		}
		workers[i] = &worker{id: i, w: w, stats: newWorkerStats()}
	}
	parallel := opts.ConnectParallel
	if parallel <= 0 {
		parallel = 64
	}
	sem := make(chan struct{}, parallel)
	errs := make([]error, len(workers))
	var wg sync.WaitGroup
	for i, wk := range workers {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int, wk *worker) {
			defer wg.Done()
			defer func() { <-sem }()
			s, err := conn.Connect(ctx)
			if err != nil {
				errs[i] = fmt.Errorf("thread %d: connect: %w", i, err)
				return
			}
			wk.session = &countingSession{s: s, st: wk.stats}
			if err := wk.w.Prepare(ctx, wk.session); err != nil {
				errs[i] = fmt.Errorf("thread %d: prepare statements: %w", i, err)
			}
		}(i, wk)
	}
	wg.Wait()
	return workers, errors.Join(errs...)
}

func closeWorkers(workers []*worker) {
	for _, wk := range workers {
		if wk != nil && wk.session != nil {
			_ = wk.session.Close()
		}
	}
}

// ticker merges the workers' handles into intervals and the total.
type ticker struct {
	res     *Result
	workers []*worker
	opts    Options
	sinks   []Sink
	last    Counts
	lastEnd time.Duration
	done    chan struct{}
	mu      sync.Mutex
}

func newTicker(res *Result, workers []*worker, opts Options, start time.Time, sinks []Sink) *ticker {
	return &ticker{res: res, workers: workers, opts: opts, sinks: sinks, done: make(chan struct{})}
}

func (t *ticker) collect(now time.Duration) { t.collectAt(now, true) }

// collectFinal takes what the workers did after the last tick. When the
// run ended on an interval boundary (--time a multiple of the interval)
// the ticker may have lost the race with the end; that last interval is
// whole and is reported. Otherwise, like sysbench, the partial interval is
// not reported to the sinks; it is kept in Intervals (marked Partial) so
// that they add up to the totals.
func (t *ticker) collectFinal(now time.Duration) {
	t.mu.Lock()
	whole := now-t.lastEnd >= t.opts.Interval-t.opts.Interval/100
	t.mu.Unlock()
	t.collectAt(now, whole)
}

func (t *ticker) collectAt(now time.Duration, report bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if now <= t.lastEnd {
		return
	}
	h := NewHistogram()
	var total Counts
	for _, wk := range t.workers {
		c := wk.stats.drain(h)
		total.Events += c.Events
		total.Reads += c.Reads
		total.Writes += c.Writes
		total.Others += c.Others
		total.Errors += c.Errors
		total.Reconnects += c.Reconnects
	}
	iv := &Interval{Start: t.lastEnd, End: now, Threads: t.opts.Threads, Counts: total.minus(t.last), Latency: h, Partial: !report}
	t.last, t.lastEnd = total, now
	t.res.Latency.Merge(h)
	t.res.Intervals = append(t.res.Intervals, iv)
	if report {
		for _, s := range t.sinks {
			s.Interval(iv)
		}
	}
}

// finish fills the totals from the workers once they have stopped.
func (t *ticker) finish() {
	r := t.res
	r.Counts = t.last
	for _, wk := range t.workers {
		st := wk.stats
		st.mu.Lock()
		r.PerThread = append(r.PerThread, ThreadStats{Events: st.events, Busy: st.busy})
		for code, n := range st.errorCodes {
			r.ErrorCodes[code] += n
		}
		if st.events > 0 && (r.MinLatency == 0 || st.minLat < r.MinLatency) {
			r.MinLatency = st.minLat
		}
		if st.maxLat > r.MaxLatency {
			r.MaxLatency = st.maxLat
		}
		r.SumLatency += st.sumLat
		st.mu.Unlock()
	}
}

// countingSession classifies every query by its result.
type countingSession struct {
	s  Session
	st *workerStats
}

func (c *countingSession) count(rows int64, isQuery bool) {
	switch {
	case isQuery:
		c.st.reads.Add(1)
	case rows > 0:
		c.st.writes.Add(1)
	default:
		c.st.others.Add(1)
	}
}

func (c *countingSession) Prepare(ctx context.Context, query string) (Stmt, error) {
	st, err := c.s.Prepare(ctx, query)
	if err != nil {
		return nil, err
	}
	return &countingStmt{st: st, c: c}, nil
}

func (c *countingSession) Exec(ctx context.Context, query string) (int64, error) {
	n, err := c.s.Exec(ctx, query)
	if err == nil {
		c.count(n, false)
	}
	return n, err
}

func (c *countingSession) Query(ctx context.Context, query string) (int64, error) {
	n, err := c.s.Query(ctx, query)
	if err == nil {
		c.count(n, true)
	}
	return n, err
}

func (c *countingSession) Close() error { return c.s.Close() }

type countingStmt struct {
	st Stmt
	c  *countingSession
}

func (s *countingStmt) Exec(ctx context.Context, args ...any) (int64, error) {
	n, err := s.st.Exec(ctx, args...)
	if err == nil {
		s.c.count(n, false)
	}
	return n, err
}

func (s *countingStmt) Query(ctx context.Context, args ...any) (int64, error) {
	n, err := s.st.Query(ctx, args...)
	if err == nil {
		s.c.count(n, true)
	}
	return n, err
}

func (s *countingStmt) Close() error { return s.st.Close() }

// Fairness returns the mean and standard deviation of per-thread events
// and busy seconds (sysbench's "Threads fairness").
func (r *Result) Fairness() (eventsAvg, eventsStddev, secsAvg, secsStddev float64) {
	n := float64(len(r.PerThread))
	if n == 0 {
		return
	}
	for _, t := range r.PerThread {
		eventsAvg += float64(t.Events)
		secsAvg += t.Busy.Seconds()
	}
	eventsAvg /= n
	secsAvg /= n
	for _, t := range r.PerThread {
		eventsStddev += math.Pow(float64(t.Events)-eventsAvg, 2)
		secsStddev += math.Pow(t.Busy.Seconds()-secsAvg, 2)
	}
	return eventsAvg, math.Sqrt(eventsStddev / n), secsAvg, math.Sqrt(secsStddev / n)
}
