// Package bench is starbench's workload engine, a Go library without
// Starlark. It runs a Workload with one goroutine per client thread, each
// with its own connection (Session) and its own latency histogram handle;
// a ticker merges the handles every interval into interval and total
// histograms and hands Interval values to sinks, which never block workers.
// Queries are counted the way sysbench counts them: by result (a result set
// is a read, affected rows > 0 a write, anything else other).
//
// Workloads (sysbench's OLTP scripts, later TPC-C and custom mixes) plug in
// through the small Workload and Worker interfaces, and reach the database
// through the Session and Stmt interfaces (session.go), with LocalLoader,
// ContextBinder and Interrupter as optional extras; faults.go classifies
// errors, and RunStep (step.go) turns a run into a step folder;
// RunTogether (together.go) runs several such steps at once on one
// barrier and merges their folders, and Segment (segment.go) slices a
// load for runs on several machines. Sessions
// come from a Connector: SQLConnector opens them on starbench's MySQL
// transport, internal/mysqlconn, which owns the sockets, the driver and the
// binary protocol; Run asks it once per run which sockets its workers use
// (mysqlconn.ForWorkers).
package bench

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/internal/mysqlconn"
	"github.com/starbench/starbench/runner/results"
)

// Workload makes one Worker per client thread.
type Workload interface {
	Meta() results.Meta
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

// Kinded is a Workload whose events are of several kinds (TPC-C's five
// transactions). Its workers are KindReporters, and the engine keeps each
// kind's events, errors and latencies (Result.Kinds, Interval.Kinds).
type Kinded interface {
	Kinds() []string
}

// KindReporter is a worker of a Kinded workload: after each Event, whether
// it succeeded or failed, Kind says which kind of event it was, as an index
// into the workload's Kinds.
type KindReporter interface {
	Kind() int
}

// Finisher is a Worker that has work to do after its last event, such as
// flushing a buffered bulk insert.
type Finisher interface {
	Finish(ctx context.Context, s Session) error
}

// Thinker is a Worker that pauses after an event (a mix's think time):
// the pause follows the event's latency and is not part of it. Closed
// loop only: under a rate the schedule paces the events.
type Thinker interface {
	// ThinkTime is the pause after the event that just succeeded.
	ThinkTime() time.Duration
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
	// IgnoreHint, when set, says how to ignore a server error that stopped
	// the run (the family's flag or argument, e.g. sysbench's
	// --mysql-ignore-errors), for the error's message.
	IgnoreHint func(code uint16) string
	// ConnectParallel bounds concurrent connection set-up; 0 means 64.
	ConnectParallel int
	// Warmup runs load for this long before anything is counted.
	Warmup time.Duration
	// Rate, when > 0, makes the run open-loop: events are scheduled at
	// this many per second in total (Poisson arrivals) and latency is
	// measured from each event's intended start; 0 is closed-loop.
	Rate float64
	// LongWaits says the events wait seconds on the server (analytical
	// queries): the workers then wait through the runtime rather than
	// each holding a P (see mysqlconn.ForWorkers).
	LongWaits bool
	// ReconnectTimeout bounds how long a worker tries to reconnect after
	// losing its connection; 0 means 30 seconds.
	ReconnectTimeout time.Duration
	// Started, when set, is called once every worker is connected and has
	// prepared its statements, just before the load (or warmup) starts.
	Started func()
	// Checkpoints are times since counting began (sysbench's
	// --report-checkpoints), in order: at the first interval's end at or
	// after each, Checkpoint is called with the statistics of the time
	// since the previous checkpoint, and the run's Result keeps the time
	// after the last in SinceCheckpoint. The run's own totals are whole.
	Checkpoints []time.Duration
	Checkpoint  func(*Result)
	// Start, when set, holds the load once every worker is connected and
	// has prepared its statements, until the barrier lets it go (the
	// parts of bench.together start together); nil starts at once.
	Start StartBarrier
	// ThreadIDs are the workers' thread ids, when the run is one segment
	// of a larger load (Segment.ThreadIDs); nil means 0..Threads-1. A
	// worker's id and seed (WorkerSeed(Seed, id)) are its id's.
	ThreadIDs []int
	// Stages, when set, make the load change over the run: closed-loop,
	// the threads (the worker of id i runs while the profile's threads
	// are above i, so the segments of a load follow it together); under
	// a rate, the events per second (Rate is then the profile's highest,
	// for the schedule's size). The run lasts the profile (Time is its
	// Total when 0); no warmup.
	Stages Profile
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
	case len(o.Stages) > 0 && o.Stages.Check() != nil:
		return o.Stages.Check()
	case len(o.Stages) > 0 && o.Warmup > 0:
		return fmt.Errorf("stages: a load profile has no warmup (give the profile a first stage instead)")
	case len(o.Stages) > 0 && o.Time != o.Stages.Total():
		return fmt.Errorf("stages: the profile lasts %v, the run's time is %v: give one", o.Stages.Total(), o.Time)
	case o.Interval < 0:
		return fmt.Errorf("interval must not be negative")
	case o.Warmup < 0:
		return fmt.Errorf("warmup must not be negative")
	case o.Rate < 0:
		return fmt.Errorf("rate must not be negative")
	case !slices.IsSorted(o.Checkpoints) || len(o.Checkpoints) > 0 && o.Checkpoints[0] < 0:
		return fmt.Errorf("checkpoints must be in order and not negative")
	case o.ThreadIDs != nil && len(o.ThreadIDs) != o.Threads:
		return fmt.Errorf("%d thread ids for %d threads", len(o.ThreadIDs), o.Threads)
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
	// Service is this interval's service times (µs), under a rate only.
	Service *hdr.Histogram
	Queue   int // events waiting to start (open loop)
	Busy    int // workers inside an event at the interval's end (open loop)
	// Kinds are a Kinded workload's events by kind, in the order of its
	// Kinds: this interval's counts and latencies (µs).
	Kinds []KindInterval
	// Stage is the load profile's stage the interval is in (1-based; 0
	// without Options.Stages) and Target the load it offered over the
	// interval (threads, or events per second under a rate).
	Stage  int
	Target float64
	// ErrorCodes are the ignored errors by MySQL code since the run began
	// counting (not this interval's: live metrics count them up); shared
	// by the intervals until an error comes, so read only.
	ErrorCodes map[string]int64
}

// KindInterval is one kind of event's share of an interval.
type KindInterval struct {
	KindCounts
	Latency *hdr.Histogram
}

// KindResult is one kind of event's share of a run (a Kinded workload).
type KindResult struct {
	Name string
	KindCounts
	Latency                            *hdr.Histogram // µs
	MinLatency, MaxLatency, SumLatency time.Duration  // exact
}

// Summary is the kind's latency in milliseconds with the percentiles asked for.
func (k *KindResult) Summary(percentiles ...float64) results.LatencySummary {
	return latencySummary(k.Latency, k.MinLatency, k.MaxLatency, k.SumLatency, k.Events, percentiles)
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
	Meta       results.Meta
	Threads    int
	Elapsed    time.Duration
	Counts     Counts
	ErrorCodes map[string]int64 // by MySQL error code (lost connections as 2013)
	ErrorKinds map[string]int64 // by statement kind: SELECT, UPDATE, COMMIT, ...
	Latency    *hdr.Histogram   // all latencies (µs): response time under a rate
	// Service is the time from an event's actual start to its end (µs);
	// kept under a rate, where Latency counts from the intended start.
	Service    *hdr.Histogram
	Rate       float64 // target events/s, 0 for closed loop
	Late       int64   // events started more than 1 ms after their intended start
	Dropped    int64   // events the schedule could not queue (the backlog was full)
	Warmup     time.Duration
	MinLatency time.Duration // exact
	MaxLatency time.Duration // exact
	SumLatency time.Duration // exact
	PerThread  []ThreadStats
	Intervals  []*Interval
	StartTime  time.Time
	Interval   time.Duration // statistics interval
	Stopped    string        // "time", "events", "interrupted"
	Kinds      []KindResult  // a Kinded workload's events by kind
	// StopError is the server error that stopped the run (not ignored),
	// or nil: it is not among Counts.Errors, which are the ignored ones.
	StopError *results.StopError
	// Since is when the statistics of a checkpoint's Result begin
	// (Options.Checkpoints): its counts, latencies and threads are those
	// of Since..Elapsed. 0 for a whole run.
	Since time.Duration
	// SinceCheckpoint is the time after the last checkpoint, when one was
	// taken (see Options.Checkpoints); nil otherwise.
	SinceCheckpoint *Result
}

// Summary reduces the latencies to milliseconds and the percentiles asked for.
func (r *Result) Summary(percentiles ...float64) results.LatencySummary {
	return latencySummary(r.Latency, r.MinLatency, r.MaxLatency, r.SumLatency, r.Counts.Events, percentiles)
}

// latencySummary reduces a histogram and its exact extremes to milliseconds.
func latencySummary(h *hdr.Histogram, minLat, maxLat, sumLat time.Duration, events int64, percentiles []float64) results.LatencySummary {
	return results.LatencyOf(h, ms(minLat), ms(maxLat), ms(sumLat), events, percentiles...)
}

// summaryPercentiles is results.SummaryPercentiles and the extra ones asked for.
func summaryPercentiles(extra ...float64) []float64 {
	return append(append([]float64(nil), results.SummaryPercentiles...), extra...)
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
	kind    KindReporter // w, when the workload is Kinded
	session Session      // counts every query into stats
	stats   *workerStats
	stage   int32 // the stage whose weights w draws by (weighted runs)
}

// lastKind is the kind of the worker's last event, -1 when the workload
// has no kinds.
func (wk *worker) lastKind() int {
	if wk.kind == nil {
		return -1
	}
	return wk.kind.Kind()
}

// Run executes the workload until the time or event limit, or until ctx is
// cancelled (Stopped is then "interrupted" and the result still complete
// up to that point). Ignored errors (by code) roll the event back and
// retry it; a lost connection is re-established (bounded by
// ReconnectTimeout) and the event retried. Any other error stops every
// worker and is returned with the partial result.
func Run(ctx context.Context, wl Workload, conn Connector, opts Options, sinks ...Sink) (*Result, error) {
	if len(opts.Stages) > 0 && opts.Time == 0 {
		opts.Time = opts.Stages.Total()
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if opts.Interval == 0 {
		opts.Interval = time.Second
	}
	if opts.ReconnectTimeout == 0 {
		opts.ReconnectTimeout = 30 * time.Second
	}
	// The transport picks the sockets for this many workers. With few
	// threads, workers block in recvfrom(2) while the server works, each
	// holding a P of its own: a query then costs no scheduler work at all.
	// Without a spare P the other goroutines (the ticker, signals) run
	// when a worker yields (see work); an open-loop run gets one for its
	// scheduler. With many threads they wait in the netpoller.
	spare := 0
	if opts.Rate > 0 {
		spare = 1
	}
	ctx, release := mysqlconn.ForWorkers(ctx, opts.Threads, spare, opts.LongWaits)
	defer release()
	// Sessions are bound to runCtx (see bind): they close before it ends.
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := checkWeights(wl, opts.Stages); err != nil {
		return nil, err
	}
	workers, err := startWorkers(ctx, wl, conn, opts)
	defer closeWorkers(workers)
	if err != nil {
		return nil, err
	}
	if opts.Start != nil {
		if err := opts.Start.Arrive(ctx); err != nil {
			return nil, err
		}
	}
	if opts.Started != nil {
		opts.Started()
	}
	return newEngine(ctx, runCtx, cancel, wl, conn, opts, workers, sinks).run()
}

// engine is the state of one Run.
type engine struct {
	ctx, runCtx context.Context
	cancel      context.CancelFunc
	opts        Options
	conn        Connector
	workers     []*worker
	res         *Result
	tick        *ticker
	ignored     map[uint16]bool

	stop       atomic.Bool
	stopCh     chan struct{}
	stopOnce   sync.Once
	stopReason atomic.Value
	measuring  atomic.Bool  // false while warming up
	issued     atomic.Int64 // events started, for the event limit
	schedule   chan time.Time
	busy       atomic.Int64 // workers inside an event (counted and shown under a rate)
	errOnce    sync.Once
	firstErr   error
	// gated: a closed-loop run with stages, whose workers of id active
	// and above wait.
	gated    bool
	active   atomic.Int64
	activeCh atomic.Pointer[chan struct{}] // closed when active changes
	// weighted: a run whose stages have weights of their own.
	weighted bool
}

func newEngine(ctx, runCtx context.Context, cancel context.CancelFunc, wl Workload, conn Connector, opts Options, workers []*worker, sinks []Sink) *engine {
	e := &engine{ctx: ctx, runCtx: runCtx, cancel: cancel, opts: opts, conn: conn, workers: workers, stopCh: make(chan struct{}), ignored: map[uint16]bool{}}
	for _, c := range opts.IgnoreErrors {
		e.ignored[c] = true
	}
	e.res = &Result{Meta: wl.Meta(), Threads: opts.Threads, ErrorCodes: map[string]int64{}, ErrorKinds: map[string]int64{},
		Latency: NewHistogram(), Service: NewHistogram(), Interval: opts.Interval, Rate: opts.Rate, Warmup: opts.Warmup}
	if k, ok := wl.(Kinded); ok {
		for _, name := range k.Kinds() {
			e.res.Kinds = append(e.res.Kinds, KindResult{Name: name, Latency: NewHistogram()})
		}
	}
	e.tick = newTicker(e.res, workers, opts, sinks)
	e.gated = len(opts.Stages) > 0 && opts.Rate == 0
	e.weighted = opts.Stages.Weighted()
	if opts.Rate > 0 {
		backlog := int(opts.Rate * 2)
		e.schedule = make(chan time.Time, min(max(backlog, 100), 1<<20))
	}
	return e
}

// halt stops the workers (after their current event) for reason.
func (e *engine) halt(reason string) {
	e.stopReason.CompareAndSwap(nil, reason)
	e.stopOnce.Do(func() {
		e.stop.Store(true)
		close(e.stopCh)
	})
}

func (e *engine) fail(err error) { e.failWith(err, nil) }

// failWith stops the run on its first error, keeping stop (the server
// error that caused it, when it is one) as Result.StopError.
func (e *engine) failWith(err error, stop *results.StopError) {
	e.errOnce.Do(func() {
		e.firstErr, e.res.StopError = err, stop
		e.halt("error")
		e.cancel()
	})
}

func (e *engine) run() (*Result, error) {
	opts := e.opts
	e.res.StartTime = time.Now()
	e.tick.begin(e.res.StartTime)
	go func() {
		select {
		case <-e.ctx.Done():
			e.halt("interrupted")
		case <-e.runCtx.Done():
		}
	}()
	measure := func() {
		if opts.Time > 0 {
			t := time.AfterFunc(opts.Time, func() { e.halt("time") })
			context.AfterFunc(e.runCtx, func() { t.Stop() })
		}
		for _, cp := range opts.Checkpoints {
			t := time.AfterFunc(cp, e.tick.checkpoint)
			context.AfterFunc(e.runCtx, func() { t.Stop() })
		}
	}
	if opts.Warmup > 0 {
		t := time.AfterFunc(opts.Warmup, func() {
			e.tick.reset(time.Now()) // nothing of the warmup is counted
			e.issued.Store(0)
			e.measuring.Store(true)
			measure()
		})
		defer t.Stop()
	} else {
		e.tick.measuring = true // before the ticker starts
		e.measuring.Store(true)
		measure()
	}
	if e.schedule != nil {
		go e.scheduler()
	}
	if e.gated {
		ch := make(chan struct{})
		e.activeCh.Store(&ch)
		e.active.Store(e.threadsAt(0))
		go e.followStages()
	}
	tickDone := make(chan struct{})
	go func() {
		defer close(e.tick.done)
		t := time.NewTicker(opts.Interval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				e.tick.collect(len(e.schedule), int(e.busy.Load()))
			case <-tickDone:
				return
			}
		}
	}()

	var wg sync.WaitGroup
	for _, wk := range e.workers {
		wg.Add(1)
		go func(wk *worker) {
			defer wg.Done()
			e.work(wk)
		}(wk)
	}
	wg.Wait()
	e.halt("events") // the workers are done; stops the scheduler (the first reason stays)
	end := time.Now()
	for _, wk := range e.workers {
		if f, ok := wk.w.(Finisher); ok && e.firstErr == nil {
			if err := f.Finish(e.ctx, wk.session); err != nil {
				e.fail(fmt.Errorf("%w: thread %d: finish: %w", ErrStopped, wk.id, err))
			}
		}
	}
	close(tickDone)
	<-e.tick.done
	e.res.Elapsed = e.tick.collectFinal(end)
	e.tick.finish()
	e.res.Dropped = e.tick.dropped.Load()
	if r, ok := e.stopReason.Load().(string); ok {
		e.res.Stopped = r
	}
	if e.firstErr == nil && e.ctx.Err() != nil {
		e.res.Stopped = "interrupted"
	}
	return e.res, e.firstErr
}

// lateBy is how far past its intended start an event may begin before it
// counts as late.
const lateBy = time.Millisecond

// yieldEvery is how often a worker yields to the Go scheduler between
// events (well under the runtime's 10 ms preemption slice).
const yieldEvery = 8 * time.Millisecond

// work is one worker's loop.
func (e *engine) work(wk *worker) {
	e.bind(wk)
	lastYield := time.Now()
	thinker, _ := wk.w.(Thinker)
	if e.schedule != nil {
		thinker = nil
	}
	var thinkTimer *time.Timer
	for !e.stop.Load() {
		if e.gated {
			changed := *e.activeCh.Load() // before active: a change after it closes this one
			if int64(wk.id) >= e.active.Load() {
				// Not among the profile's threads now: wait for a change.
				select {
				case <-changed:
				case <-e.stopCh:
					return
				}
				continue
			}
		}
		intended, ok := e.nextStart()
		if !ok {
			return
		}
		if e.weighted { // the stage the event starts in (is meant to, under a rate)
			at := time.Now()
			if !intended.IsZero() {
				at = intended
			}
			if _, st := e.opts.Stages.At(at.Sub(e.res.StartTime)); int32(st) != wk.stage {
				wk.stage = int32(st)
				wk.w.(Reweighter).SetWeights(e.opts.Stages[st-1].Weights)
			}
		}
		measuring := e.measuring.Load()
		if !e.takeEvent(measuring) {
			return
		}
		t0 := time.Now()
		if intended.IsZero() {
			intended = t0
		} else if measuring && t0.Sub(intended) > lateBy {
			wk.stats.late.Add(1)
		}
		err := e.event(wk)
		end := time.Now()
		if end.Sub(lastYield) > yieldEvery {
			// Otherwise the runtime sees one goroutine running for 10 ms
			// and preempts it with a signal, which interrupts its read
			// (or, through the runtime, takes its P away mid-read).
			// With no idle P (dedicated workers, see mysqlconn.ForWorkers)
			// a yield costs no thread wake-up: the worker goes on at once
			// unless another goroutine waits.
			runtime.Gosched()
			lastYield = end
		}
		if err == nil {
			wk.stats.recordEvent(end.Sub(intended), end.Sub(t0), wk.lastKind())
			if thinker != nil {
				if d := thinker.ThinkTime(); d > 0 && !e.pause(&thinkTimer, d) {
					return
				}
			}
			continue
		}
		if !e.afterError(wk, err, measuring, end.Sub(t0)) {
			return
		}
	}
}

// pause waits d on *t (made on first use), and is false when the run
// stops meanwhile.
func (e *engine) pause(t **time.Timer, d time.Duration) bool {
	if *t == nil {
		*t = time.NewTimer(d)
	} else {
		(*t).Reset(d)
	}
	select {
	case <-(*t).C:
		return true
	case <-e.stopCh:
		(*t).Stop()
		return false
	}
}

// nextStart is when the next event is meant to start: under a rate, the
// next scheduled time, waited for (ok is false when the run stops
// meanwhile); closed-loop, the zero time (now).
func (e *engine) nextStart() (intended time.Time, ok bool) {
	if e.schedule == nil {
		return time.Time{}, true
	}
	select {
	case intended = <-e.schedule:
	case <-e.stopCh:
		return intended, false
	}
	if wait := time.Until(intended); wait > 0 {
		select {
		case <-time.After(wait):
		case <-e.stopCh:
			return intended, false
		}
	}
	return intended, true
}

// takeEvent claims one of the events an event-limited run may count; it
// is false when none is left.
func (e *engine) takeEvent(measuring bool) bool {
	if !measuring || e.opts.Events == 0 || e.issued.Add(1) <= e.opts.Events {
		return true
	}
	// Give the slot back: a worker retrying an event after an ignored
	// error or a reconnect may still need it. The others go on until
	// they find no slot either.
	e.issued.Add(-1)
	e.stopReason.CompareAndSwap(nil, "events")
	return false
}

// event runs one event of the workload on the worker's session.
func (e *engine) event(wk *worker) error {
	if e.schedule == nil {
		return wk.w.Event(e.runCtx, wk.session)
	}
	e.busy.Add(1) // shared by all workers: only kept where shown
	err := wk.w.Event(e.runCtx, wk.session)
	e.busy.Add(-1)
	return err
}

// afterError deals with an event that failed after took: a lost
// connection is opened again, an ignored server error rolled back, and in
// both cases the event runs again; any other error stops the run. It
// reports whether the worker goes on.
func (e *engine) afterError(wk *worker, err error, measuring bool, took time.Duration) bool {
	if e.runCtx.Err() != nil {
		return false // interrupted mid-event: the event is not counted
	}
	retry := func() {
		if measuring && e.opts.Events > 0 {
			e.issued.Add(-1) // the event runs again
		}
	}
	if IsConnectionLost(err) {
		wk.stats.recordError(LostCode, errorKind(err), took, wk.lastKind())
		if rerr := e.reconnect(wk); rerr != nil {
			if !e.stop.Load() {
				e.fail(fmt.Errorf("%w: thread %d: %w (last error: %w)", ErrStopped, wk.id, rerr, err))
			}
			return false
		}
		wk.stats.recordReconnect()
		retry()
		return true
	}
	code, isServer := db.ErrorCode(err)
	if isServer && (e.opts.IgnoreAllErrors || e.ignored[code]) {
		wk.stats.recordError(errorCode(err), errorKind(err), took, wk.lastKind())
		_, _ = wk.session.(*countingSession).s.Exec(e.runCtx, "ROLLBACK") // not counted, as in sysbench
		retry()
		return true
	}
	if isServer {
		e.stopOn(wk, code, err)
		return false
	}
	e.fail(fmt.Errorf("%w: thread %d: %w", ErrStopped, wk.id, err))
	return false
}

// stopOn stops the run on a server error that is not ignored, recording
// it (Result.StopError) and saying how to ignore it when the family says.
func (e *engine) stopOn(wk *worker, code uint16, err error) {
	stop := &results.StopError{Thread: wk.id, Code: fmt.Sprint(code), Kind: errorKind(err), Message: err.Error()}
	if e.opts.IgnoreHint != nil {
		stop.Hint = e.opts.IgnoreHint(code)
	}
	if stop.Hint != "" {
		e.failWith(fmt.Errorf("%w: thread %d: %w (%s)", ErrStopped, wk.id, err, stop.Hint), stop)
		return
	}
	e.failWith(fmt.Errorf("%w: thread %d: %w", ErrStopped, wk.id, err), stop)
}

// bind ties a worker's session to the run's context when it supports that:
// the session is then interrupted once when the run is cancelled instead of
// being watched on every call.
func (e *engine) bind(wk *worker) {
	if b, ok := wk.session.(*countingSession).s.(ContextBinder); ok {
		b.BindContext(e.runCtx)
	}
}

// reconnect replaces a worker's lost session: it connects again (backing
// off up to a second between tries, for at most ReconnectTimeout) and
// prepares the workload's statements on the new session.
func (e *engine) reconnect(wk *worker) error {
	old := wk.session.(*countingSession)
	_ = old.s.Close()
	deadline := time.Now().Add(e.opts.ReconnectTimeout)
	backoff := 10 * time.Millisecond
	var last error
	for {
		if e.stop.Load() {
			return errors.New("stopping")
		}
		s, err := e.conn.Connect(e.runCtx)
		if err == nil {
			cs := &countingSession{s: s, st: wk.stats}
			if err = wk.w.Prepare(e.runCtx, cs); err == nil {
				wk.session = cs
				e.bind(wk)
				return nil
			}
			_ = s.Close()
		}
		last = err
		if time.Now().After(deadline) {
			return fmt.Errorf("lost the connection to the server and could not reconnect within %s: %w", e.opts.ReconnectTimeout, last)
		}
		select {
		case <-time.After(backoff):
		case <-e.stopCh:
			return errors.New("stopping")
		}
		backoff = min(backoff*2, time.Second)
	}
}

// scheduler feeds intended start times at the target rate (exponential
// gaps, seeded from the run seed). When the backlog is full an event is
// dropped and counted; the run goes on.
func (e *engine) scheduler() {
	rng := rand.New(rand.NewPCG(uint64(e.opts.Seed), 0x5eed))
	arrival := e.steadyArrivals(rng)
	if len(e.opts.Stages) > 0 {
		arrival = e.stagedArrivals(rng)
	}
	for !e.stop.Load() {
		next, ok := arrival()
		if !ok {
			<-e.stopCh // no more arrivals within the profile
			return
		}
		if wait := time.Until(next); wait > 0 {
			select {
			case <-time.After(wait):
			case <-e.stopCh:
				return
			}
		}
		select {
		case e.schedule <- next:
		default:
			if e.measuring.Load() {
				e.tick.dropped.Add(1)
			}
		}
	}
}

// steadyArrivals are the arrival times of a steady rate: exponential
// gaps of mean 1/Rate.
func (e *engine) steadyArrivals(rng *rand.Rand) func() (time.Time, bool) {
	next := time.Now()
	return func() (time.Time, bool) {
		next = next.Add(time.Duration(rng.ExpFloat64() / e.opts.Rate * float64(time.Second)))
		return next, true
	}
}

func startWorkers(ctx context.Context, wl Workload, conn Connector, opts Options) ([]*worker, error) {
	workers := make([]*worker, opts.Threads)
	kinds := 0
	if k, ok := wl.(Kinded); ok {
		kinds = len(k.Kinds())
	}
	for i := range workers {
		id := i
		if opts.ThreadIDs != nil {
			id = opts.ThreadIDs[i]
		}
		w, err := wl.NewWorker(id, WorkerSeed(opts.Seed, id))
		if err != nil {
			return nil, err
		}
		workers[i] = &worker{id: id, w: w, stats: newWorkerStats(opts.Rate > 0, opts.Threads <= denseHistogramThreads, kinds)}
		if kinds > 0 {
			kr, ok := w.(KindReporter)
			if !ok {
				return nil, fmt.Errorf("the workload has kinds of events but its worker %T does not report them (KindReporter)", w)
			}
			workers[i].kind = kr
		}
		if _, ok := w.(Reweighter); opts.Stages.Weighted() && !ok {
			return nil, fmt.Errorf("stages: the workload's workers (%T) cannot draw by other weights: its phases set only their time and load", w)
		}
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
				errs[i] = fmt.Errorf("connect: %w", err)
				return
			}
			wk.session = &countingSession{s: s, st: wk.stats}
			if err := wk.w.Prepare(ctx, wk.session); err != nil {
				errs[i] = fmt.Errorf("prepare statements: %w", err)
			}
		}(i, wk)
	}
	wg.Wait()
	return workers, joinThreadErrors(errs)
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
	mu      sync.Mutex
	// measuring turns true under mu when counting begins (reset, after
	// any warmup): a tick that began during the warmup must not discard
	// latencies recorded after the reset.
	measuring bool
	start     time.Time // when counting began (after any warmup)
	last      Counts
	lastKinds []KindCounts
	lastCodes map[string]int64 // the errors by code at the last drain
	lastEnd   time.Duration
	done      chan struct{}
	dropped   atomic.Int64
	ck        checkpointWindow // with Options.Checkpoints
	pending   *Interval        // the first piece of an interval a checkpoint split
	finished  bool             // the final interval is taken: no more checkpoints
}

// checkpointWindow is what the ticker keeps of the time since the last
// checkpoint (Options.Checkpoints).
type checkpointWindow struct {
	taken   bool          // a checkpoint was reported
	start   time.Duration // the window's start
	base    Counts        // the totals at its start
	latency *hdr.Histogram
	threads []ThreadStats   // each worker's events and busy time at its start
	sums    []time.Duration // each worker's latency sum at its start
}

func (w *checkpointWindow) reset(workers int) {
	w.taken, w.start, w.base = false, 0, Counts{}
	w.latency = NewHistogram()
	w.threads = make([]ThreadStats, workers)
	w.sums = make([]time.Duration, workers)
}

func newTicker(res *Result, workers []*worker, opts Options, sinks []Sink) *ticker {
	t := &ticker{res: res, workers: workers, opts: opts, sinks: sinks, done: make(chan struct{})}
	if len(opts.Checkpoints) > 0 {
		t.ck.reset(len(workers))
	}
	return t
}

func (t *ticker) begin(start time.Time) {
	t.mu.Lock()
	t.start = start
	t.mu.Unlock()
}

// reset forgets everything measured so far (the warmup) and starts the
// clock again.
func (t *ticker) reset(now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, wk := range t.workers {
		wk.stats.reset()
	}
	t.res.Latency.Reset()
	t.res.Service.Reset()
	t.res.Intervals = nil
	t.res.StartTime = now
	t.start, t.last, t.lastKinds, t.lastCodes, t.lastEnd, t.pending = now, Counts{}, nil, nil, 0, nil
	if len(t.opts.Checkpoints) > 0 {
		t.ck.reset(len(t.workers))
	}
	for i := range t.res.Kinds {
		t.res.Kinds[i].Latency.Reset()
	}
	t.dropped.Store(0)
	t.measuring = true
}

// collect closes an interval; during warmup it only drains the handles.
func (t *ticker) collect(queue, busy int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.measuring {
		discard := NewHistogram()
		kinds := make([]*hdr.Histogram, len(t.res.Kinds))
		for i := range kinds {
			kinds[i] = discard
		}
		for _, wk := range t.workers {
			wk.stats.drain(discard, discard, kinds, make([]KindCounts, len(kinds)))
		}
		return
	}
	t.collectLocked(time.Since(t.start), true, queue, busy)
}

// collectFinal takes what the workers did after the last tick and returns
// the measured time. When the run ended on an interval boundary (--time
// a multiple of the interval) the ticker may have lost the race with the
// end; that last interval is whole and is reported. Otherwise, like
// sysbench, the partial interval is not reported to the sinks; it is kept
// in Intervals (marked Partial) so that they add up to the totals.
func (t *ticker) collectFinal(end time.Time) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := end.Sub(t.start)
	start := t.lastEnd
	if t.pending != nil {
		start = t.pending.Start
	}
	whole := now-start >= t.opts.Interval-t.opts.Interval/100
	t.collectLocked(now, whole, 0, 0)
	t.finished = true
	return now
}

func (t *ticker) collectLocked(now time.Duration, report bool, queue, busy int) {
	iv := t.drain(now)
	if p := t.pending; p != nil { // a checkpoint split this interval
		t.pending = nil
		if iv != nil {
			p.add(iv)
		}
		iv = p
	}
	if iv == nil {
		return
	}
	iv.Partial, iv.Queue, iv.Busy = !report, queue, busy
	t.res.Intervals = append(t.res.Intervals, iv)
	if report {
		for _, s := range t.sinks {
			s.Interval(iv)
		}
	}
}

// drain takes what the workers did since the last drain, up to now, as a
// piece of an interval, adding it to the run's totals (and the checkpoint
// window's). nil when no time has passed.
func (t *ticker) drain(now time.Duration) *Interval {
	if now <= t.lastEnd {
		return nil
	}
	h := NewHistogram()
	var svc *hdr.Histogram // service times: open loop only
	if t.opts.Rate > 0 {
		svc = NewHistogram()
	}
	var total Counts
	kinds := make([]*hdr.Histogram, len(t.res.Kinds))
	for i := range kinds {
		kinds[i] = NewHistogram()
	}
	kindTotal := make([]KindCounts, len(kinds))
	for _, wk := range t.workers {
		c := wk.stats.drain(h, svc, kinds, kindTotal)
		total.Events += c.Events
		total.Reads += c.Reads
		total.Writes += c.Writes
		total.Others += c.Others
		total.Errors += c.Errors
		total.Reconnects += c.Reconnects
	}
	if total.Errors != t.last.Errors || (total.Errors > 0 && t.lastCodes == nil) {
		codes := map[string]int64{}
		for _, wk := range t.workers {
			wk.stats.addErrorCodes(codes)
		}
		t.lastCodes = codes
	}
	iv := &Interval{Start: t.lastEnd, End: now, Threads: t.opts.Threads, Counts: total.minus(t.last), Latency: h, Service: svc,
		ErrorCodes: t.lastCodes}
	if p := t.opts.Stages; len(p) > 0 {
		iv.Target = p.Average(iv.Start, iv.End)
		_, iv.Stage = p.At(iv.Start + (iv.End-iv.Start)/2)
		if t.opts.Rate == 0 {
			iv.Threads = threadsOf(t.workers, p, now)
		}
	}
	for i := range kinds {
		var last KindCounts
		if i < len(t.lastKinds) {
			last = t.lastKinds[i]
		}
		iv.Kinds = append(iv.Kinds, KindInterval{
			KindCounts: KindCounts{Events: kindTotal[i].Events - last.Events, Errors: kindTotal[i].Errors - last.Errors},
			Latency:    kinds[i],
		})
		t.res.Kinds[i].Latency.Merge(kinds[i])
	}
	t.last, t.lastKinds, t.lastEnd = total, kindTotal, now
	t.res.Latency.Merge(h)
	if svc != nil {
		t.res.Service.Merge(svc)
	}
	if t.ck.latency != nil {
		t.ck.latency.Merge(h)
	}
	return iv
}

// add merges the next piece of the same interval into iv.
func (iv *Interval) add(next *Interval) {
	d := iv.End - iv.Start
	iv.End = next.End
	c := &iv.Counts
	c.Events += next.Counts.Events
	c.Reads += next.Counts.Reads
	c.Writes += next.Counts.Writes
	c.Others += next.Counts.Others
	c.Errors += next.Counts.Errors
	c.Reconnects += next.Counts.Reconnects
	iv.ErrorCodes = next.ErrorCodes
	if dn := next.End - next.Start; d+dn > 0 && next.Stage > 0 {
		iv.Target = (iv.Target*d.Seconds() + next.Target*dn.Seconds()) / (d + dn).Seconds()
		iv.Stage, iv.Threads = next.Stage, next.Threads
	}
	iv.Latency.Merge(next.Latency)
	if iv.Service != nil && next.Service != nil {
		iv.Service.Merge(next.Service)
	}
	for i := range iv.Kinds {
		if i < len(next.Kinds) {
			iv.Kinds[i].Events += next.Kinds[i].Events
			iv.Kinds[i].Errors += next.Kinds[i].Errors
			iv.Kinds[i].Latency.Merge(next.Kinds[i].Latency)
		}
	}
}

// checkpoint reports the checkpoint window up to now and starts the next
// (Options.Checkpoints). The statistics interval it falls in is drained
// in two pieces, reported as one at its end.
func (t *ticker) checkpoint() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.measuring || t.finished {
		return
	}
	now := time.Since(t.start)
	if iv := t.drain(now); iv != nil {
		if t.pending == nil {
			t.pending = iv
		} else {
			t.pending.add(iv)
		}
	}
	ck := &t.ck
	w, threads, sums := t.window(now)
	ck.taken, ck.start, ck.base, ck.threads, ck.sums = true, now, t.last, threads, sums
	ck.latency = NewHistogram()
	if t.opts.Checkpoint != nil {
		t.opts.Checkpoint(w)
	}
}

// window is the statistics of the checkpoint window up to now: counts,
// latencies (min and max to the histogram's precision; the sum exact)
// and each thread's share; with each worker's events, busy time and
// latency sum as read for it, where the next window starts.
func (t *ticker) window(now time.Duration) (*Result, []ThreadStats, []time.Duration) {
	ck := &t.ck
	w := &Result{Meta: t.res.Meta, Threads: t.res.Threads, Elapsed: now, Since: ck.start, Counts: t.last.minus(ck.base),
		Latency: ck.latency, StartTime: t.res.StartTime, Interval: t.opts.Interval}
	if w.Counts.Events > 0 {
		w.MinLatency = time.Duration(ck.latency.Min()) * time.Microsecond
		w.MaxLatency = time.Duration(ck.latency.Max()) * time.Microsecond
	}
	threads := make([]ThreadStats, len(t.workers))
	sums := make([]time.Duration, len(t.workers))
	for i, wk := range t.workers {
		wk.stats.mu.Lock()
		threads[i], sums[i] = ThreadStats{Events: wk.stats.events, Busy: wk.stats.busy}, wk.stats.sumLat
		wk.stats.mu.Unlock()
		w.PerThread = append(w.PerThread, ThreadStats{Events: threads[i].Events - ck.threads[i].Events, Busy: threads[i].Busy - ck.threads[i].Busy})
		w.SumLatency += sums[i] - ck.sums[i]
	}
	return w, threads, sums
}

// finish fills the totals from the workers once they have stopped.
func (t *ticker) finish() {
	r := t.res
	if t.ck.taken {
		r.SinceCheckpoint, _, _ = t.window(t.lastEnd)
	}
	r.Counts = t.last
	for i := range r.Kinds {
		if i < len(t.lastKinds) {
			r.Kinds[i].KindCounts = t.lastKinds[i]
		}
	}
	for _, wk := range t.workers {
		st := wk.stats
		st.mu.Lock()
		r.PerThread = append(r.PerThread, ThreadStats{Events: st.events, Busy: st.busy})
		for code, n := range st.errorCodes {
			r.ErrorCodes[code] += n
		}
		for kind, n := range st.errorKinds {
			r.ErrorKinds[kind] += n
		}
		if st.events > 0 && (r.MinLatency == 0 || st.minLat < r.MinLatency) {
			r.MinLatency = st.minLat
		}
		if st.maxLat > r.MaxLatency {
			r.MaxLatency = st.maxLat
		}
		r.SumLatency += st.sumLat
		r.Late += st.late.Load()
		for i := range st.kinds {
			k, rk := &st.kinds[i], &r.Kinds[i]
			if k.events > 0 && (rk.MinLatency == 0 || k.minLat < rk.MinLatency) {
				rk.MinLatency = k.minLat
			}
			rk.MaxLatency = max(rk.MaxLatency, k.maxLat)
			rk.SumLatency += k.sumLat
		}
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
		return nil, wrapStatement(err, query)
	}
	return &countingStmt{st: st, c: c, query: query}, nil
}

func (c *countingSession) Exec(ctx context.Context, query string) (int64, error) {
	n, err := c.s.Exec(ctx, query)
	if err == nil {
		c.count(n, false)
	}
	return n, wrapStatement(err, query)
}

func (c *countingSession) Query(ctx context.Context, query string) (int64, error) {
	n, err := c.s.Query(ctx, query)
	if err == nil {
		c.count(n, true)
	}
	return n, wrapStatement(err, query)
}

func (c *countingSession) Close() error { return c.s.Close() }

type countingStmt struct {
	st    Stmt
	c     *countingSession
	query string
}

func (s *countingStmt) Exec(ctx context.Context, args ...any) (int64, error) {
	n, err := s.st.Exec(ctx, args...)
	if err == nil {
		s.c.count(n, false)
	}
	return n, wrapStatement(err, s.query)
}

func (s *countingStmt) Query(ctx context.Context, args ...any) error {
	err := s.st.Query(ctx, args...)
	if err == nil {
		s.c.count(0, true)
	}
	return wrapStatement(err, s.query)
}

// QueryRows implements RowStmt when the statement underneath does.
func (s *countingStmt) QueryRows(ctx context.Context, row func([]driver.Value) error, args ...any) (int64, error) {
	rs, ok := s.st.(RowStmt)
	if !ok {
		return 0, fmt.Errorf("the session's statements cannot hand back rows (%T)", s.st)
	}
	n, err := rs.QueryRows(ctx, row, args...)
	if err == nil {
		s.c.count(0, true)
	}
	return n, wrapStatement(err, s.query)
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
