// Package tpccstar is the Starlark adapter of builtins/tpcc: the
// predeclared `tpcc` module (prepare, run, check, cleanup, each a step)
// and `starbench tpcc`, go-tpc's command line.
package tpccstar

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/bench/benchstar"
	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/builtins/db/dbstar"
	"github.com/starbench/starbench/builtins/tpcc"
	"github.com/starbench/starbench/runner"
	"github.com/starbench/starbench/runner/results"
)

// Module is the predeclared `tpcc` module.
var Module = &starlarkstruct.Module{
	Name: "tpcc",
	Members: starlark.StringDict{
		"prepare": starlark.NewBuiltin("tpcc.prepare", prepare),
		"run":     starlark.NewBuiltin("tpcc.run", run),
		"part":    starlark.NewBuiltin("tpcc.part", part),
		"check":   starlark.NewBuiltin("tpcc.check", check),
		"cleanup": starlark.NewBuiltin("tpcc.cleanup", cleanup),
	},
}

// Doc documents the module for `starbench doc`.
var Doc = runner.ModuleDoc{
	Name: "tpcc",
	Summary: "TPC-C as go-tpc v1.0.7 runs it (its nine tables, its statements, its output), on the same engine as " +
		"sysbench: HdrHistogram latencies per transaction, intervals, errors by code, reconnects, results folders " +
		"that report and compare read. Each call is a step; check lists the equivalent go-tpc command line.",
	Funcs: []runner.FuncDoc{
		{Name: "tpcc.prepare", Signature: "tpcc.prepare(conn, warehouses=10, threads=1, parts=1, if_exists=\"error\", load_method=\"auto\", seed=0, layout=\"go-tpc\")",
			Doc: "Creates the nine tables in conn's current database and loads warehouses warehouses as the TPC-C specification " +
				"generates them (deterministic for the seed: the run's by default), threads warehouses at a time, with LOAD DATA " +
				"LOCAL INFILE where the server takes it and multi-row INSERTs where it refuses. Tables that exist are an error " +
				"naming them unless if_exists is \"drop\" or \"reuse\". parts HASH-partitions each table by warehouse. layout=\"benchmarksql\" " +
				"creates BenchmarkSQL's tables instead (bmsql_warehouse, ..., bmsql_oorder, its columns and indexes, and bmsql_config " +
				"with the warehouses and NURand constants), so BenchmarkSQL can run on them. Returns a " +
				"struct: schema, tables, rows (by table), total_rows, seconds, rows_per_s, load_time."},
		{Name: "tpcc.run", Signature: "tpcc.run(conn, warehouses=10, threads=1, time=\"60s\", count=0, interval=\"10s\", weights=[45, 43, 4, 4, 4], wait=False, isolation=\"\", ignore_errors=None, rate=0, warmup_time=0, seed=0, tags={}, layout=\"go-tpc\", fixed_warehouse=False)",
			Doc: "Runs the five transactions with threads connections for time (or count transactions), in the weights' mix, " +
				"printing go-tpc's [Current]/[Summary] lines, and writes steps/<id>-tpcc-t<threads>/. ignore_errors lists the " +
				"MySQL error codes counted and retried (default: deadlocks, lock wait timeouts, TiDB's retryable errors; \"all\" " +
				"as go-tpc's --ignore-error). wait adds the specification's keying and think times. isolation (\"read committed\", " +
				"\"repeatable read\", ...) is set before each transaction, as go-tpc's --isolation does. layout=\"benchmarksql\" runs the same statements on BenchmarkSQL's tables. " +
				"fixed_warehouse=True keeps thread i on home warehouse i mod warehouses + 1, where by default each transaction draws " +
				"its own (BenchmarkSQL's terminalWarehouseFixed, whose terminals each have a warehouse and district: at most 10 threads a warehouse). Returns a struct: every run builtin's fields (tps, qps, events, queries, reads, " +
				"writes, others, errors, errors_by_code, errors_by_kind, reconnects, seconds, latency, threads, tags, dir) and tpmC, " +
				"tpmTotal, efficiency, transactions, kinds (by transaction: count, errors, tpm, avg, p50, p90, p95, p99, max in ms)."},
		{Name: "tpcc.part", Signature: "tpcc.part(conn, warehouses=10, threads=1, time=\"60s\", interval=\"10s\", **run_options)",
			Doc: "Describes the run tpcc.run would make, without running it: a part for bench.together, which runs several at once " +
				"as one step. Takes tpcc.run's arguments; the part's .command is its go-tpc command line."},
		{Name: "tpcc.check", Signature: "tpcc.check(conn, warehouses=10, all=False, require=True, layout=\"go-tpc\")",
			Doc: "Checks the consistency conditions 3.3.2.1-12 (go-tpc's default set; all adds 3.3.2.11, which holds only " +
				"before a run), each as a few set-based queries per warehouse. Returns a struct: passed, conditions (number, " +
				"description, passed, offending, examples). With require=True a failed condition fails the step, naming it. In a dry " +
				"run passed is unknown: testing it (if, not, bool()) stops the dry run at that line, as the real run may take the other branch."},
		{Name: "tpcc.cleanup", Signature: "tpcc.cleanup(conn, layout=\"go-tpc\")",
			Doc: "Drops the nine tables (BenchmarkSQL's ten with layout=\"benchmarksql\") from conn's current database, naming each as " +
				"schema.table; returns their names."},
	},
}

// connector opens sessions on the handle's endpoints, in its database and
// with its session settings.
func connector(c *dbstar.Conn) (bench.Connector, error) {
	return benchstar.Connector(c, bench.PSAuto)
}

// commandLine is the go-tpc command line equivalent to a call; on
// BenchmarkSQL's tables, starbench's (go-tpc has no such layout).
func commandLine(conn *dbstar.Conn, layout tpcc.Layout, command string, flags ...string) string {
	parts := []string{"go-tpc", "tpcc"}
	if layout == tpcc.BenchmarkSQLLayout {
		parts = []string{"starbench", "tpcc", "--layout", "benchmarksql"}
	}
	if database := conn.Session().Database; database != "" {
		parts = append(parts, "-D", database)
	}
	return strings.Join(append(append(parts, flags...), command), " ")
}

// layoutOf reads a layout= argument.
func layoutOf(b *starlark.Builtin, name string) (tpcc.Layout, error) {
	l, err := tpcc.ParseLayout(name)
	if err != nil {
		return l, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return l, nil
}

func prepare(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var conn *dbstar.Conn
	o := tpcc.LoadOptions{Warehouses: 10, Threads: 1, Parts: 1, IfExists: tpcc.IfExistsError, Method: "auto"}
	var layoutName string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "conn", &conn, "warehouses?", &o.Warehouses, "threads?", &o.Threads,
		"parts?", &o.Parts, "if_exists?", &o.IfExists, "load_method?", &o.Method, "seed?", &o.Seed, "layout?", &layoutName); err != nil {
		return nil, err
	}
	var err error
	if o.Layout, err = layoutOf(b, layoutName); err != nil {
		return nil, err
	}
	if o.Layout == tpcc.BenchmarkSQLLayout && o.Parts > 1 {
		return nil, fmt.Errorf("%s: parts: BenchmarkSQL's layout is not partitioned here", b.Name())
	}
	if o.Warehouses < 1 || o.Threads < 1 || o.Parts < 1 || o.Parts > o.Warehouses {
		return nil, fmt.Errorf("%s: want warehouses >= 1, threads >= 1 and 1 <= parts <= warehouses (got %d, %d, %d)", b.Name(), o.Warehouses, o.Threads, o.Parts)
	}
	flags := []string{fmt.Sprintf("--warehouses %d", o.Warehouses), fmt.Sprintf("-T %d", o.Threads)}
	if o.Parts > 1 {
		flags = append(flags, fmt.Sprintf("--parts %d", o.Parts))
	}
	info := runner.StepInfo{Builtin: "tpcc.prepare", Handle: conn.ID(), Text: commandLine(conn, o.Layout, "prepare", flags...),
		Args: map[string]any{"warehouses": o.Warehouses, "threads": o.Threads, "parts": o.Parts, "if_exists": o.IfExists, "load_method": o.Method, "seed": o.Seed,
			"layout": o.Layout.String()}}
	h := runner.HostOf(thread)
	return h.Step(info, runner.Action{
		Run: func(s *runner.Step) (runner.Outcome, error) {
			c, err := connector(conn)
			if err != nil {
				return runner.Outcome{}, fmt.Errorf("%s: %w", b.Name(), err)
			}
			o.Seed = benchstar.Seed(s, o.Seed)
			res, err := tpcc.Prepare(s.Context(), c, o, h.Out().Writer())
			if err != nil {
				return runner.Outcome{}, fmt.Errorf("%s: %w", b.Name(), err)
			}
			return runner.Outcome{Value: loadValue(res, false), Record: res}, nil
		},
		Placeholder: func(*runner.Step) starlark.Value {
			// The layout's tables, so that a dry run can list what follows (ANALYZE of each).
			res := &tpcc.LoadResult{}
			for _, t := range o.Layout.Tables() {
				res.Tables = append(res.Tables, o.Layout.Table(t))
			}
			return loadValue(res, true)
		},
		Replay: func(_ *runner.Step, raw json.RawMessage) (starlark.Value, error) {
			var res tpcc.LoadResult
			err := json.Unmarshal(raw, &res)
			return loadValue(&res, false), err
		},
	})
}

func loadValue(r *tpcc.LoadResult, placeholder bool) starlark.Value {
	rows := starlark.NewDict(len(r.Rows))
	for t, n := range r.Rows {
		_ = rows.SetKey(starlark.String(t), starlark.MakeInt64(n))
	}
	return starlarkstruct.FromStringDict(starlark.String("tpcc_load"), starlark.StringDict{
		"schema": starlark.String(r.Schema), "tables": runner.StringList(r.Tables), "rows": rows,
		"total_rows": starlark.MakeInt64(r.TotalRows), "seconds": starlark.Float(r.Seconds),
		"rows_per_s": starlark.Float(r.RowsPerS), "load_time": starlark.String(r.LoadTime), "placeholder": starlark.Bool(placeholder),
	})
}

// runArgs are tpcc.run's arguments.
type runArgs struct {
	warehouses, threads int
	time, interval      time.Duration
	count               int64
	weights             tpcc.Weights
	wait                bool
	ignore              []uint16
	ignoreAll           bool
	rate                float64
	warmup              time.Duration
	seed                int64
	tags                map[string]string
	isolation           string // one of tpcc.IsolationLevels' names
	layout              tpcc.Layout
	fixedWarehouse      bool // BenchmarkSQL's terminalWarehouseFixed
}

func parseRun(b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (*dbstar.Conn, *runArgs, error) {
	var conn *dbstar.Conn
	var timeV, intervalV, warmupV starlark.Value = starlark.String("60s"), starlark.String("10s"), starlark.MakeInt(0)
	var weights *starlark.List
	var ignore starlark.Value = starlark.None
	var tags *starlark.Dict
	var layoutName string
	r := &runArgs{warehouses: 10, threads: 1}
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "conn", &conn, "warehouses?", &r.warehouses, "threads?", &r.threads,
		"time?", &timeV, "count?", &r.count, "interval?", &intervalV, "weights?", &weights, "wait?", &r.wait,
		"ignore_errors?", &ignore, "rate?", &r.rate, "warmup_time?", &warmupV, "seed?", &r.seed, "tags?", &tags, "isolation?", &r.isolation, "layout?", &layoutName,
		"fixed_warehouse?", &r.fixedWarehouse); err != nil {
		return nil, nil, err
	}
	var err error
	if r.layout, err = layoutOf(b, layoutName); err != nil {
		return nil, nil, err
	}
	for _, d := range []struct {
		v   starlark.Value
		dst *time.Duration
		key string
	}{{timeV, &r.time, "time"}, {intervalV, &r.interval, "interval"}, {warmupV, &r.warmup, "warmup_time"}} {
		if *d.dst, err = runner.DurationOf(d.v); err != nil {
			return nil, nil, fmt.Errorf("%s: %s: %w", b.Name(), d.key, err)
		}
	}
	if r.warehouses < 1 || r.threads < 1 || r.count < 0 || (r.time == 0 && r.count == 0) || r.interval <= 0 {
		return nil, nil, fmt.Errorf("%s: want warehouses >= 1, threads >= 1, a time or a count, and a positive interval", b.Name())
	}
	if weights != nil {
		if weights.Len() != 5 {
			return nil, nil, fmt.Errorf("%s: weights are five numbers (New-Order, Payment, Order-Status, Delivery, Stock-Level), got %d", b.Name(), weights.Len())
		}
		for i := range 5 {
			if err := starlark.AsInt(weights.Index(i), &r.weights[i]); err != nil {
				return nil, nil, fmt.Errorf("%s: weights: %w", b.Name(), err)
			}
		}
	}
	if r.fixedWarehouse && r.threads > 10*r.warehouses {
		return nil, nil, fmt.Errorf("%s: fixed_warehouse=True is BenchmarkSQL's terminalWarehouseFixed, whose terminals each have a warehouse and district of their own: %d threads need %d warehouses, not %d",
			b.Name(), r.threads, (r.threads+9)/10, r.warehouses)
	}
	r.isolation = strings.ToUpper(strings.TrimSpace(r.isolation))
	if isolationNumber(r.isolation) < 0 {
		return nil, nil, fmt.Errorf("%s: isolation must be \"read uncommitted\", \"read committed\", \"repeatable read\", \"serializable\" or \"\" (the server's), not %q", b.Name(), r.isolation)
	}
	if r.ignore, r.ignoreAll, err = ignoredErrors(ignore); err != nil {
		return nil, nil, fmt.Errorf("%s: ignore_errors: %w", b.Name(), err)
	}
	if r.tags, err = benchstar.Tags(tags); err != nil {
		return nil, nil, fmt.Errorf("%s: tags: %w", b.Name(), err)
	}
	return conn, r, nil
}

// ignoredErrors reads ignore_errors: None (the defaults), "all", or a list
// of MySQL error codes.
func ignoredErrors(v starlark.Value) ([]uint16, bool, error) {
	switch v := v.(type) {
	case starlark.NoneType:
		return nil, false, nil
	case starlark.String:
		if v == "all" {
			return nil, true, nil
		}
		return nil, false, fmt.Errorf(`want "all" or a list of error codes, not %q`, string(v))
	case *starlark.List:
		codes := []uint16{}
		for i := range v.Len() {
			var n int
			if err := starlark.AsInt(v.Index(i), &n); err != nil || n < 1 || n > 65535 {
				return nil, false, fmt.Errorf("%s is not a MySQL error code", v.Index(i))
			}
			codes = append(codes, uint16(n))
		}
		return codes, false, nil
	}
	return nil, false, fmt.Errorf(`want "all" or a list of error codes, not %s`, v.Type())
}

func (r *runArgs) flags() []string {
	flags := []string{fmt.Sprintf("--warehouses %d", r.warehouses), fmt.Sprintf("-T %d", r.threads)}
	if r.time > 0 {
		flags = append(flags, "--time "+r.time.String())
	}
	if r.count > 0 {
		flags = append(flags, fmt.Sprintf("--count %d", r.count))
	}
	flags = append(flags, "--interval "+r.interval.String())
	if r.wait {
		flags = append(flags, "--wait")
	}
	if r.ignoreAll {
		flags = append(flags, "--ignore-error")
	}
	if n := isolationNumber(r.isolation); n > 0 {
		flags = append(flags, fmt.Sprintf("--isolation %d", n))
	}
	return flags
}

// isolationNumber is go-tpc's --isolation number of a level's name, -1
// for a name it has none for.
func isolationNumber(level string) int {
	for n, name := range tpcc.IsolationLevels {
		if name == level {
			return n
		}
	}
	return -1
}

func run(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	conn, r, err := parseRun(b, args, kwargs)
	if err != nil {
		return nil, err
	}
	wl, err := tpcc.NewWorkload(tpcc.WorkloadOptions{Warehouses: r.warehouses, Weights: r.weights, Wait: r.wait})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return benchstar.RunBuiltin(thread, b, r.load(conn), func() *results.Summary {
		return &results.Summary{Workload: wl.Meta(), Threads: r.threads, Tags: r.tags}
	}, resultValue)
}

// stepArgs are what the journal keeps of a run's arguments.
func (r *runArgs) stepArgs() map[string]any {
	weights := r.weights
	if weights == (tpcc.Weights{}) {
		weights = tpcc.DefaultWeights
	}
	a := map[string]any{"warehouses": r.warehouses, "threads": r.threads, "time": r.time.Seconds(), "count": r.count,
		"interval": r.interval.Seconds(), "weights": weights[:], "wait": r.wait, "rate": r.rate, "seed": r.seed, "isolation": r.isolation}
	if len(r.tags) > 0 {
		a["tags"] = r.tags
	}
	if r.fixedWarehouse { // only when set: journals written before it keep matching
		a["fixed_warehouse"] = true
	}
	return a
}

// step is the run's benchmark step on conn with seed (the plan's, when it
// gave one).
func (r *runArgs) step(conn *dbstar.Conn, seed int64) (bench.Step, error) {
	c, err := connector(conn)
	if err != nil {
		return bench.Step{}, err
	}
	if r.seed != 0 {
		seed = r.seed
	}
	wl, err := tpcc.NewWorkload(tpcc.WorkloadOptions{Warehouses: r.warehouses, Weights: r.weights, Wait: r.wait,
		Constants: tpcc.NewConstants(uint64(seed)), Isolation: r.isolation, Layout: r.layout, FixedWarehouse: r.fixedWarehouse})
	if err != nil {
		return bench.Step{}, err
	}
	step := wl.Step(c, tpcc.RunOptions{Threads: r.threads, Time: r.time, Count: r.count, Interval: r.interval, Seed: seed,
		IgnoreErrors: r.ignore, IgnoreAll: r.ignoreAll, Rate: r.rate, Warmup: r.warmup})
	step.Tags, step.Target = r.tags, conn.Display()
	return step, nil
}

func part(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	conn, r, err := parseRun(b, args, kwargs)
	if err != nil {
		return nil, err
	}
	if _, err := tpcc.NewWorkload(tpcc.WorkloadOptions{Warehouses: r.warehouses, Weights: r.weights, Wait: r.wait}); err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return benchstar.NewLoad(r.load(conn)), nil
}

// load is the run as a part of bench.together (or, run at once, tpcc.run).
func (r *runArgs) load(conn *dbstar.Conn) *benchstar.Load {
	l := &benchstar.Load{Family: "tpcc", Name: fmt.Sprintf("tpcc-t%d", r.threads), Handle: conn.ID(), Target: conn.Display(), Time: r.time, Interval: r.interval,
		Text: func() string { return commandLine(conn, r.layout, "run", r.flags()...) }, Args: r.stepArgs,
		Step: func(seed int64) (bench.Step, error) { return r.step(conn, seed) }}
	l.SetTime = func(d time.Duration) error {
		if d <= 0 {
			return fmt.Errorf("must be positive, got %v", d)
		}
		r.time, l.Time = d, d
		return nil
	}
	l.SetInterval = func(d time.Duration) error {
		if d <= 0 {
			return fmt.Errorf("must be positive, got %v", d)
		}
		r.interval, l.Interval = d, d
		return nil
	}
	return l
}

// resultValue is what tpcc.run returns to the plan.
func resultValue(s *results.Summary, dir string, placeholder bool) starlark.Value {
	kinds := starlark.NewDict(len(s.Kinds))
	for _, k := range s.Kinds {
		l := k.Latency
		_ = kinds.SetKey(starlark.String(k.Name), starlarkstruct.FromStringDict(starlark.String("tpcc_kind"), starlark.StringDict{
			"count": starlark.MakeInt64(k.Events), "errors": starlark.MakeInt64(k.Errors), "tpm": starlark.Float(k.PerMinute),
			"avg": starlark.Float(l.AvgMS), "p50": starlark.Float(l.Percentiles["50"]), "p90": starlark.Float(l.Percentiles["90"]),
			"p95": starlark.Float(l.Percentiles["95"]), "p99": starlark.Float(l.Percentiles["99"]), "max": starlark.Float(l.MaxMS),
		}))
	}
	fields := benchstar.SummaryFields(s, dir, placeholder) // every run's fields: tps, latency, errors_by_code, ...
	fields["tpmC"] = starlark.Float(s.Metrics["tpmC"])
	fields["tpmTotal"] = starlark.Float(s.Metrics["tpmTotal"])
	fields["efficiency"] = starlark.Float(s.Metrics["efficiency"])
	fields["transactions"] = starlark.MakeInt64(s.Events)
	fields["kinds"] = kinds
	return starlarkstruct.FromStringDict(starlark.String("tpcc_result"), fields)
}

func check(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var conn *dbstar.Conn
	warehouses, all, require := 10, false, true
	var layoutName string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "conn", &conn, "warehouses?", &warehouses, "all?", &all, "require?", &require,
		"layout?", &layoutName); err != nil {
		return nil, err
	}
	layout, err := layoutOf(b, layoutName)
	if err != nil {
		return nil, err
	}
	flags := []string{fmt.Sprintf("--warehouses %d", warehouses)}
	if all {
		flags = append(flags, "--check-all")
	}
	info := runner.StepInfo{Builtin: "tpcc.check", Handle: conn.ID(), Text: commandLine(conn, layout, "check", flags...),
		Args: map[string]any{"warehouses": warehouses, "all": all, "require": require, "layout": layout.String()}}
	h := runner.HostOf(thread)
	return h.Step(info, runner.Action{
		Run: func(s *runner.Step) (runner.Outcome, error) {
			cfgs, settings := conn.Endpoints()
			if len(cfgs) == 0 {
				return runner.Outcome{}, fmt.Errorf("%s: connection %s is closed", b.Name(), conn.ID())
			}
			q, err := db.OpenSession(s.Context(), cfgs[0], db.Session{Database: cfgs[0].DBName, Settings: settings})
			if err != nil {
				return runner.Outcome{}, fmt.Errorf("%s: %w", b.Name(), err)
			}
			defer q.Close()
			conds, err := tpcc.Check(s.Context(), q, layout, warehouses, all)
			if err != nil {
				return runner.Outcome{}, fmt.Errorf("%s: %w", b.Name(), err)
			}
			out := h.Out().Writer()
			for _, line := range tpcc.CheckLines(conds) {
				fmt.Fprintln(out, line)
			}
			if require && !tpcc.Passed(conds) {
				return runner.Outcome{}, fmt.Errorf("%s: %s", b.Name(), failedList(conds))
			}
			return runner.Outcome{Value: checkValue(conds), Record: conds}, nil
		},
		Placeholder: func(s *runner.Step) starlark.Value {
			return checkPlaceholder(s.Unknown("passed", "give tpcc.check require = True to fail the run when a condition fails"))
		},
		Replay: func(_ *runner.Step, raw json.RawMessage) (starlark.Value, error) {
			var conds []tpcc.Condition
			err := json.Unmarshal(raw, &conds)
			return checkValue(conds), err
		},
	})
}

// failedList names the conditions that failed.
func failedList(conds []tpcc.Condition) string {
	var failed []string
	for _, c := range conds {
		if !c.Pass {
			failed = append(failed, fmt.Sprintf("%s (%s: %d %s)", c.Number, c.Description, c.Offending, c.Unit))
		}
	}
	return "consistency conditions failed: " + strings.Join(failed, "; ")
}

func checkValue(conds []tpcc.Condition) starlark.Value {
	var list []starlark.Value
	for _, c := range conds {
		list = append(list, starlarkstruct.FromStringDict(starlark.String("tpcc_condition"), starlark.StringDict{
			"number": starlark.String(c.Number), "description": starlark.String(c.Description), "passed": starlark.Bool(c.Pass),
			"offending": starlark.MakeInt(c.Offending), "examples": runner.StringList(c.Examples),
		}))
	}
	return starlarkstruct.FromStringDict(starlark.String("tpcc_check"), starlark.StringDict{
		"passed": starlark.Bool(tpcc.Passed(conds)), "conditions": starlark.NewList(list),
	})
}

// checkPlaceholder is a dry run's tpcc.check result: no conditions, and
// passed unknown (testing it for truth stops the dry run).
func checkPlaceholder(passed starlark.Value) starlark.Value {
	return starlarkstruct.FromStringDict(starlark.String("tpcc_check"), starlark.StringDict{
		"passed": passed, "conditions": starlark.NewList(nil),
	})
}

func cleanup(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var conn *dbstar.Conn
	var layoutName string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "conn", &conn, "layout?", &layoutName); err != nil {
		return nil, err
	}
	layout, err := layoutOf(b, layoutName)
	if err != nil {
		return nil, err
	}
	info := runner.StepInfo{Builtin: "tpcc.cleanup", Handle: conn.ID(), Text: commandLine(conn, layout, "cleanup"),
		Args: map[string]any{"layout": layout.String()}}
	h := runner.HostOf(thread)
	return h.Step(info, runner.Action{
		Run: func(s *runner.Step) (runner.Outcome, error) {
			c, err := connector(conn)
			if err != nil {
				return runner.Outcome{}, fmt.Errorf("%s: %w", b.Name(), err)
			}
			dropped, err := tpcc.Cleanup(s.Context(), c, layout, h.Out().Writer())
			if err != nil {
				return runner.Outcome{}, fmt.Errorf("%s: %w", b.Name(), err)
			}
			return runner.Outcome{Value: runner.StringList(dropped), Record: dropped}, nil
		},
		Placeholder: func(*runner.Step) starlark.Value { return runner.StringList(nil) },
		Replay: func(_ *runner.Step, raw json.RawMessage) (starlark.Value, error) {
			var dropped []string
			err := json.Unmarshal(raw, &dropped)
			return runner.StringList(dropped), err
		},
	})
}
