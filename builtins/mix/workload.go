package mix

import (
	"context"
	"database/sql/driver"
	"fmt"
	"io"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/builtins/sysbench"
	"github.com/starbench/starbench/runner/results"
)

// MetricRetries is the metric a mix adds to its steps: transactions run
// again after an error listed in their RetryOn.
const MetricRetries = "retries"

func init() {
	results.DeclareMetric(results.MetricSpec{Name: MetricRetries, HigherIsBetter: false, Additive: true,
		Help: "a mix's transactions run again after an error their retry_on lists"})
}

// RunOptions control a run of a mix.
type RunOptions struct {
	Threads          int
	Time             time.Duration // 0: until Events
	Events           int64         // 0: until Time
	Interval         time.Duration // report interval; 0: no interval lines (the engine's 1 s for the results)
	Seed             int64
	Rate             float64 // events/s, open loop; 0: closed loop
	Warmup           time.Duration
	IgnoreErrors     []uint16
	IgnoreAll        bool
	ReconnectTimeout time.Duration
	Percentile       float64 // the report's percentile (95 when 0)
	Segment          bench.Segment
}

// Options are the run options as the step's summary keeps them.
func (o RunOptions) Options() map[string]any {
	m := map[string]any{"threads": o.Threads, "time": o.Time.Seconds(), "events": o.Events, "rate": o.Rate}
	if o.Interval > 0 {
		m["report_interval"] = o.Interval.Seconds()
	}
	if o.Warmup > 0 {
		m["warmup_time"] = o.Warmup.Seconds()
	}
	return m
}

// run is one run's workload: the mix and the state its workers share
// (global sequences, the retry count).
type run struct {
	m       *Mix
	threads int
	shared  *sharedCounters
	retries atomic.Int64
}

// Meta implements bench.Workload.
func (r *run) Meta() results.Meta { return r.m.Meta() }

// Kinds implements bench.Kinded: each transaction is a kind.
func (r *run) Kinds() []string { return r.m.Kinds() }

// NewWorker implements bench.Workload.
func (r *run) NewWorker(id int, seed uint64) (bench.Worker, error) {
	w := &worker{run: r, pick: sysbench.NewRand(seed, &sysbench.Options{RandSpecIter: 12})}
	maxSlots := 0
	for _, t := range r.m.txns {
		maxSlots = max(maxSlots, t.slots)
	}
	w.slots = make([]any, maxSlots)
	w.slotBufs = make([][]byte, maxSlots)
	env := &instanceEnv{seed: seed, worker: id, threads: r.threads, counters: map[*Gen]*counter{}, shared: r.shared, slots: w.slots}
	maxArgs := 0
	for i := range r.m.txns {
		t := &r.m.txns[i]
		wt := workerTxn{t: t}
		if t.Custom != nil {
			body, err := t.Custom(&CustomWorker{ID: id, Seed: seed, env: env, draws: map[*Gen]drawer{}})
			if err != nil {
				return nil, fmt.Errorf("transaction %s: %w", t.Name, err)
			}
			wt.custom = body
		}
		for j := range t.stmts {
			cs := &t.stmts[j]
			ws := w.statement(cs, env)
			for k := range cs.either {
				ws.either = append(ws.either, w.statement(&cs.either[k], env))
				maxArgs = max(maxArgs, len(cs.either[k].args))
			}
			maxArgs = max(maxArgs, len(cs.args))
			wt.stmts = append(wt.stmts, ws)
		}
		w.txns = append(w.txns, wt)
	}
	w.argv = make([]any, maxArgs)
	return w, nil
}

// statement makes a worker's drawers for a statement's arguments.
func (w *worker) statement(cs *compiledStmt, env *instanceEnv) workerStmt {
	ws := workerStmt{c: cs}
	for k, a := range cs.args {
		switch slot := cs.argSlot[k]; {
		case a.kind == genSame:
			ws.draws = append(ws.draws, &sameDrawer{slots: w.slots, slot: slot, plus: a.lo})
		case slot >= 0:
			ws.draws = append(ws.draws, &refDrawer{slots: w.slots, slot: slot})
		default:
			ws.draws = append(ws.draws, a.instance(env))
		}
	}
	return ws
}

// worker runs one client thread of a mix.
type worker struct {
	run      *run
	pick     *sysbench.Rand
	txns     []workerTxn
	begin    bench.Stmt
	commit   bench.Stmt
	kind     int
	argv     []any
	slots    []any
	slotBufs [][]byte
	think    time.Duration
	queries  statementCache // custom transactions' statements
	cum      []int64        // a phase's cumulative transaction weights (nil: the mix's)
}

type workerTxn struct {
	t      *compiledTxn
	stmts  []workerStmt
	custom CustomBody // a custom transaction's body, in place of stmts
}

type workerStmt struct {
	c      *compiledStmt
	draws  []drawer
	st     bench.Stmt
	rows   bench.RowStmt // when the statement's values are kept for refs
	either []workerStmt  // a mix.either's alternatives
}

// Prepare implements bench.Worker: every statement of every transaction
// is prepared once per session.
func (w *worker) Prepare(ctx context.Context, s bench.Session) error {
	w.queries.reset(s)
	var err error
	if w.begin, err = s.Prepare(ctx, "BEGIN"); err != nil {
		return err
	}
	if w.commit, err = s.Prepare(ctx, "COMMIT"); err != nil {
		return err
	}
	for i := range w.txns {
		for j := range w.txns[i].stmts {
			ws := &w.txns[i].stmts[j]
			where := fmt.Sprintf("transaction %s, statement %d", w.txns[i].t.Name, j+1)
			if err := ws.prepare(ctx, s, where); err != nil {
				return err
			}
			for k := range ws.either {
				if err := ws.either[k].prepare(ctx, s, fmt.Sprintf("%s, alternative %d", where, k+1)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// prepare prepares the statement on a session (an either has none of its
// own).
func (ws *workerStmt) prepare(ctx context.Context, s bench.Session, where string) error {
	if len(ws.either) > 0 || ws.c.sql == "" {
		return nil
	}
	var err error
	if ws.st, err = s.Prepare(ctx, ws.c.sql); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	if len(ws.c.captures) > 0 {
		rs, ok := ws.st.(bench.RowStmt)
		if !ok {
			return fmt.Errorf("%s: this connection cannot hand back result values for ref() (%T)", where, ws.st)
		}
		ws.rows = rs
	}
	return nil
}

// Kind implements bench.KindReporter.
func (w *worker) Kind() int { return w.kind }

// SetWeights implements bench.Reweighter: a phase's weights of the
// transactions (a weight of 0 leaves one out), nil the mix's own.
func (w *worker) SetWeights(weights []int64) {
	if weights == nil {
		w.cum = nil
		return
	}
	w.cum = w.cum[:0]
	total := int64(0)
	for _, n := range weights {
		total += n
		w.cum = append(w.cum, total)
	}
}

// ThinkTime implements bench.Thinker: the pause the last transaction
// asks for after it.
func (w *worker) ThinkTime() time.Duration { return w.think }

// Event implements bench.Worker: it draws a transaction by weight and
// runs it, again after an error it lists in RetryOn (rolled back first),
// up to its Retries.
func (w *worker) Event(ctx context.Context, s bench.Session) error {
	cum := w.run.m.cum
	if w.cum != nil {
		cum = w.cum
	}
	w.kind = pickWeighted(w.pick, cum) // the same draw whatever happens next
	t := &w.txns[w.kind]
	w.think = 0
	for attempt := 0; ; attempt++ {
		err := w.attempt(ctx, t)
		if err == nil {
			break
		}
		code, isServer := db.ErrorCode(err)
		if !isServer || attempt >= t.t.Retries || !slices.Contains(t.t.RetryOn, code) || ctx.Err() != nil {
			return err // the engine counts it, rolls back and reconnects as it does for every family
		}
		if !t.t.Autocommit {
			if _, rerr := s.Exec(ctx, "ROLLBACK"); rerr != nil {
				return err
			}
		}
		w.run.retries.Add(1)
	}
	w.think = t.t.Think
	return nil
}

// attempt runs a transaction's statements once.
func (w *worker) attempt(ctx context.Context, t *workerTxn) error {
	if !t.t.Autocommit {
		if _, err := w.begin.Exec(ctx); err != nil {
			return err
		}
	}
	if t.custom != nil {
		if err := t.custom(ctx, &w.queries); err != nil {
			return err
		}
	}
	clear(w.slots)
	for i := range t.stmts {
		ws := &t.stmts[i]
		if len(ws.either) > 0 {
			ws = &ws.either[w.pick.Uniform(0, int64(len(ws.either)-1))]
		}
		args := w.argv[:len(ws.draws)]
		for k, d := range ws.draws {
			args[k] = d.draw()
			if slot := ws.c.keepSlot[k]; slot >= 0 {
				w.keepValue(slot, args[k])
			}
		}
		var err error
		switch {
		case ws.rows != nil:
			first := true
			_, err = ws.rows.QueryRows(ctx, func(cols []driver.Value) error {
				if first {
					first = false
					w.keep(ws.c.captures, cols)
				}
				return nil
			}, args...)
		case ws.c.rows:
			err = ws.st.Query(ctx, args...)
		default:
			_, err = ws.st.Exec(ctx, args...)
		}
		if err != nil {
			return err
		}
	}
	if !t.t.Autocommit {
		_, err := w.commit.Exec(ctx)
		return err
	}
	return nil
}

// keepValue keeps an argument's value for a later same; bytes are copied
// (the drawer's buffer changes with its next draw).
func (w *worker) keepValue(slot int, v any) {
	if b, ok := v.([]byte); ok {
		w.slotBufs[slot] = append(w.slotBufs[slot][:0], b...)
		v = w.slotBufs[slot]
	}
	w.slots[slot] = v
}

// keep stores the captured columns of a first row in their slots; bytes
// are copied (the row's are valid only during the call).
func (w *worker) keep(captures []capture, cols []driver.Value) {
	for _, c := range captures {
		if c.column >= len(cols) {
			continue
		}
		w.keepValue(c.slot, cols[c.column])
	}
}

// Step is a run of the mix over conn, for bench.RunStep: its text is
// sysbench's layout (interval lines and report) with a table of the
// transactions, and its summary carries the transactions by kind and
// the retries.
func (m *Mix) Step(conn bench.Connector, o RunOptions) bench.Step {
	pct := o.Percentile
	if pct == 0 {
		pct = 95
	}
	var retries int64
	return bench.Step{
		Run: func(ctx context.Context, sr bench.StepRun) (*bench.Result, error) {
			return m.runStep(ctx, conn, o, pct, sr, &retries)
		},
		Annotate: func(sum *results.Summary, _ *bench.Result) {
			if sum.Metrics == nil {
				sum.Metrics = map[string]float64{}
			}
			sum.Metrics[MetricRetries] = float64(retries)
		},
		Workload: m.def.Name, Threads: o.Segment.Threads(o.Threads), Total: o.Time.Seconds(), Percentile: pct,
		Seed: o.Seed, Options: o.Options(), Segment: o.Segment.String(), OpenLoop: o.Rate > 0,
	}
}

func (m *Mix) runStep(ctx context.Context, conn bench.Connector, o RunOptions, pct float64, sr bench.StepRun, retries *int64) (*bench.Result, error) {
	r := &run{m: m, threads: o.Threads, shared: &sharedCounters{m: map[*Gen]*counter{}}}
	so := sysbench.Defaults(sysbench.Profile1020)
	so.Threads, so.Time, so.Events, so.Percentile = o.Threads, int64(o.Time/time.Second), o.Events, pct
	so.Rate, so.WarmupTime, so.ReportInterval = int64(o.Rate), int64(o.Warmup/time.Second), int64(o.Interval/time.Second)
	p := &sysbench.Printer{W: sr.Output, Opts: &so, Segment: o.Segment}
	fmt.Fprintf(sr.Output, "starbench mix %s (%s; Go workload engine)\n\n", m.def.Name, m.version)
	bo := bench.Options{Threads: o.Threads, Time: o.Time, Events: o.Events, Seed: o.Seed, IgnoreErrors: o.IgnoreErrors,
		IgnoreAllErrors: o.IgnoreAll, Rate: o.Rate, Warmup: o.Warmup, ReconnectTimeout: o.ReconnectTimeout, Start: sr.Start,
		Started: p.ThreadsStarted}
	bo, err := o.Segment.Apply(bench.WithStages(bo, sr.Profile))
	if err != nil {
		return nil, err
	}
	sinks := sr.Sinks
	if o.Interval > 0 {
		bo.Interval = o.Interval
		sinks = append([]bench.Sink{bench.SinkFunc(p.Interval)}, sinks...)
	}
	p.RunHeader(o.Seed)
	res, err := bench.Run(ctx, r, conn, bo, sinks...)
	if res != nil {
		p.Report(res)
		printKinds(sr.Output, res, pct)
	}
	*retries = r.retries.Load()
	return res, err
}

// printKinds prints a table of the transactions after the report: their
// count, errors, rate and latency.
func printKinds(w io.Writer, res *bench.Result, pct float64) {
	secs := (res.Elapsed - res.Since).Seconds()
	if secs <= 0 || len(res.Kinds) == 0 {
		return
	}
	fmt.Fprintf(w, "\nTransactions:\n    %-24s %10s %8s %10s %9s %9s %9s\n", "name", "count", "errors", "per sec.", "avg ms", fmt.Sprintf("%s%% ms", strconv.FormatFloat(pct, 'f', -1, 64)), "max ms")
	for i := range res.Kinds {
		k := &res.Kinds[i]
		l := k.Summary(pct)
		fmt.Fprintf(w, "    %-24s %10d %8d %10.2f %9.2f %9.2f %9.2f\n", k.Name, k.Events, k.Errors, float64(k.Events)/secs, l.AvgMS,
			l.Percentiles[results.PercentileKey(pct)], l.MaxMS)
	}
}
