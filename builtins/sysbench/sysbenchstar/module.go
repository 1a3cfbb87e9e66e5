// Package sysbenchstar is the Starlark adapter of builtins/sysbench: the
// predeclared `sysbench` module. prepare, run, prewarm and cleanup are
// steps; run writes a results folder per call and returns its numbers.
package sysbenchstar

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/bench/benchstar"
	"github.com/starbench/starbench/builtins/db/dbstar"
	"github.com/starbench/starbench/builtins/sysbench"
	"github.com/starbench/starbench/runner"
	"github.com/starbench/starbench/runner/results"
)

// Module is the predeclared `sysbench` module.
var Module = &starlarkstruct.Module{
	Name: "sysbench",
	Members: starlark.StringDict{
		"prepare":     starlark.NewBuiltin("sysbench.prepare", prepare),
		"run":         starlark.NewBuiltin("sysbench.run", run),
		"part":        starlark.NewBuiltin("sysbench.part", part),
		"prewarm":     starlark.NewBuiltin("sysbench.prewarm", prewarm),
		"cleanup":     starlark.NewBuiltin("sysbench.cleanup", cleanup),
		"table_names": starlark.NewBuiltin("sysbench.table_names", tableNames),
	},
}

// Doc documents the module for `starbench doc`.
var Doc = runner.ModuleDoc{
	Name: "sysbench",
	Summary: "sysbench's workloads run by the Go engine: the same statements, counting and report layout as sysbench " +
		"(profile \"1.0.20\" by default, \"master\" for master's defaults and layout). Every sysbench option is a keyword " +
		"argument with underscores (table_size=, range_size=, skip_trx=, rand_type=, db_ps_mode=, mysql_ignore_errors=, ...); " +
		"time= and report_interval= take durations (\"300s\" or seconds).",
	Funcs: []runner.FuncDoc{
		{Name: "sysbench.prepare", Signature: "sysbench.prepare(conn, tables=1, table_size=10000, threads=1, workload=\"oltp_read_write\", if_exists=\"error\", load_method=\"auto\", **options)",
			Doc: "Creates and loads sbtest1..sbtestN on conn's target in parallel (table i by thread (i-1) mod threads), then " +
				"creates the secondary index, in conn's current database. Tables that already exist are an error naming them " +
				"(schema.table) unless if_exists is \"drop\" (drop them, printing each as schema.table, and prepare them again) or " +
				"\"reuse\" (keep them). select_random_points and select_random_ranges take one table (tables=1) here and in cleanup, " +
				"as in sysbench; their run accepts any tables= and uses sbtest1. load_method \"auto\" streams the rows with LOAD DATA LOCAL INFILE " +
				"(1.3x the rows/s of sysbench's INSERTs on MariaDB, measured in the README's speed section) where the server accepts it and uses sysbench's INSERTs where it refuses; " +
				"\"insert\" always sends sysbench's INSERTs, \"load-data\" fails if refused. The rows are the same either way. Returns a struct: tables, reused, rows, seconds, rows_per_s."},
		{Name: "sysbench.run", Signature: "sysbench.run(conn, workload, threads=1, time=\"10s\", events=0, tags={}, profile=\"1.0.20\", **options)",
			Doc: "Runs a workload (oltp_point_select, oltp_read_only, oltp_read_write, oltp_write_only, oltp_update_index, " +
				"oltp_update_non_index, oltp_delete, oltp_insert, bulk_insert, select_random_points, select_random_ranges, " +
				"oltp_legacy/insert, oltp_legacy/bulk_insert) with one connection per thread until time or events. Prints " +
				"sysbench's output (interval lines with report_interval=) and writes steps/<id>-<workload>-t<threads>/ with " +
				"summary.json, intervals.csv, latency.hlog and output.txt. tags are recorded with the step for reports and compare. " +
				"Returns a struct: tps, qps, events, queries, reads, writes, others, errors, errors_by_code, errors_by_kind, reconnects, " +
				"late and dropped (under rate=), seconds, " +
				"latency (min, avg, max, sum, p50, p90, p95, p99, p999, p9999 in ms), threads, workload, tags, dir. The statement " +
				"stream derives from the run seed and the step, or from rand_seed= when given. rate= (events/s) makes the run " +
				"open-loop, latency counted from each event's scheduled start; warmup_time= runs uncounted load first; a lost " +
				"connection is re-established (reconnect_timeout=, 30 s) and counted; errors in mysql_ignore_errors= are counted " +
				"and retried, others stop the run."},
		{Name: "sysbench.part", Signature: "sysbench.part(conn, workload, threads=1, time=\"10s\", tags={}, profile=\"1.0.20\", **options)",
			Doc: "Describes the run sysbench.run would make, without running it: a part for bench.together, which runs several at once " +
				"as one step. Takes sysbench.run's arguments; the part's .command is its sysbench command line."},
		{Name: "sysbench.prewarm", Signature: "sysbench.prewarm(conn, tables=1, table_size=10000, threads=1, workload=\"oltp_read_write\", **options)",
			Doc: "ANALYZE TABLE and full reads of each table to load it into the server's caches (sysbench's prewarm; warmup in master)."},
		{Name: "sysbench.cleanup", Signature: "sysbench.cleanup(conn, tables=1, workload=\"oltp_read_write\", threads=1)",
			Doc: "Drops the workload's tables from conn's current database, printing each as schema.table; returns their names."},
		{Name: "sysbench.table_names", Signature: "sysbench.table_names(n)",
			Doc: "Returns [\"sbtest1\", ..., \"sbtestN\"], e.g. for conn.analyze(sysbench.table_names(16))."},
	},
}

// call is the parsed arguments of a module function.
type call struct {
	conn       *dbstar.Conn
	workload   string
	opts       sysbench.Options
	given      map[string]string // sysbench options set by keyword, canonical names
	tags       map[string]string
	ifExists   string
	loadMethod string
}

// parseCall reads conn (and workload when wantWorkload) positionally or
// by keyword, and every other keyword as a sysbench option.
func parseCall(b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple, wantWorkload bool) (*call, error) {
	p := &callParser{
		c:       &call{workload: "oltp_read_write", given: map[string]string{}, tags: map[string]string{}},
		name:    b.Name(),
		profile: sysbench.Profile1020,
	}
	if err := p.positional(args, wantWorkload); err != nil {
		return nil, err
	}
	for _, item := range kwargs {
		if err := p.keyword(string(item[0].(starlark.String)), item[1]); err != nil {
			return nil, err
		}
	}
	conn, err := p.connection()
	if err != nil {
		return nil, err
	}
	p.c.conn = conn
	if err := p.setOptions(); err != nil {
		return nil, err
	}
	return p.c, nil
}

// callParser reads a call's arguments into c. The connection, the
// profile and the sysbench options are held until every argument is
// read: the profile gives the options' defaults.
type callParser struct {
	c       *call
	name    string         // the builtin's, for errors
	connVal starlark.Value // conn as given (nil when not)
	profile string
	pending []pendingOption // sysbench options in keyword order
}

// pendingOption is a sysbench option given by keyword, by canonical
// name, its value converted but not yet set.
type pendingOption struct {
	name  string
	value any
}

// positional reads conn and, when wantWorkload, the workload from the
// positional arguments.
func (p *callParser) positional(args starlark.Tuple, wantWorkload bool) error {
	maxPos := 1
	if wantWorkload {
		maxPos = 2
	}
	if len(args) > maxPos {
		return fmt.Errorf("%s: got %d positional arguments, want at most %d (options are keywords)", p.name, len(args), maxPos)
	}
	if len(args) > 0 {
		p.connVal = args[0]
	}
	if len(args) > 1 {
		s, ok := starlark.AsString(args[1])
		if !ok {
			return fmt.Errorf("%s: workload must be a string, not %s", p.name, args[1].Type())
		}
		p.c.workload = s
	}
	return nil
}

// keyword reads one keyword argument: the call's own, or else a sysbench
// option.
func (p *callParser) keyword(name string, v starlark.Value) error {
	switch name {
	case "conn":
		p.connVal = v
	case "workload":
		s, ok := starlark.AsString(v)
		if !ok {
			return fmt.Errorf("%s: workload must be a string, not %s", p.name, v.Type())
		}
		p.c.workload = s
	case "profile":
		return p.setString(&p.profile, name, v)
	case "if_exists":
		return p.setString(&p.c.ifExists, name, v)
	case "load_method":
		return p.setString(&p.c.loadMethod, name, v)
	case "tags":
		return p.tags(v)
	default:
		return p.option(name, v)
	}
	return nil
}

// setString sets *dst to the value of keyword name, which must be a
// string.
func (p *callParser) setString(dst *string, name string, v starlark.Value) error {
	s, ok := starlark.AsString(v)
	if !ok {
		return fmt.Errorf("%s: %s must be a string", p.name, name)
	}
	*dst = s
	return nil
}

// tags reads tags=, a dict with string keys; a value that is not a
// string is kept as Starlark prints it.
func (p *callParser) tags(v starlark.Value) error {
	d, ok := v.(*starlark.Dict)
	if !ok {
		return fmt.Errorf("%s: tags must be a dict, not %s", p.name, v.Type())
	}
	tags, err := benchstar.Tags(d)
	if err != nil {
		return fmt.Errorf("%s: %w", p.name, err)
	}
	p.c.tags = tags
	return nil
}

// option reads a sysbench option given by keyword, converting its value
// for setOptions.
func (p *callParser) option(name string, v starlark.Value) error {
	opt, ok := sysbench.LookupOption(name)
	if !ok {
		return fmt.Errorf("%s: unknown option %s (sysbench options are keywords with underscores: tables, table_size, range_size, rand_type, ...)", p.name, name)
	}
	value, err := optionValue(opt, v)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", p.name, name, err)
	}
	p.pending = append(p.pending, pendingOption{opt.Name, value})
	return nil
}

// connection is conn, which must be a connection handle.
func (p *callParser) connection() (*dbstar.Conn, error) {
	conn, ok := p.connVal.(*dbstar.Conn)
	if !ok {
		got := "nothing"
		if p.connVal != nil {
			got = p.connVal.Type()
		}
		return nil, fmt.Errorf("%s: the first argument must be a connection from db.connect(), got %s", p.name, got)
	}
	return conn, nil
}

// setOptions sets the sysbench options, in keyword order, on the
// profile's defaults, notes each as given, and validates the result.
func (p *callParser) setOptions() error {
	c := p.c
	c.opts = sysbench.Defaults(p.profile)
	for _, o := range p.pending {
		opt, _ := sysbench.LookupOption(o.name)
		if err := opt.SetValue(&c.opts, o.value); err != nil {
			return fmt.Errorf("%s: %w", p.name, err)
		}
		c.given[o.name] = opt.Value(&c.opts) // as sysbench's command line would say it
	}
	if err := c.opts.Validate(); err != nil {
		return fmt.Errorf("%s: %w", p.name, err)
	}
	return nil
}

// durationOptions take "300s" or seconds and hold whole seconds.
var durationOptions = map[string]bool{"time": true, "report_interval": true, "warmup_time": true}

// optionValue converts a keyword value to an option's value: numbers,
// bools and strings as they are, durations ("300s", or seconds) as whole
// seconds, a list as sysbench's comma-separated text.
func optionValue(opt *sysbench.Option, v starlark.Value) (any, error) {
	if durationOptions[opt.Name] {
		d, err := runner.DurationOf(v)
		if err != nil {
			return nil, err
		}
		if d%time.Second != 0 {
			return nil, fmt.Errorf("%v is not a whole number of seconds", d)
		}
		return int64(d / time.Second), nil
	}
	switch v := v.(type) {
	case starlark.Bool:
		return bool(v), nil
	case starlark.Int:
		n, ok := v.Int64()
		if !ok {
			return nil, fmt.Errorf("%s is out of range", v)
		}
		return n, nil
	case starlark.Float:
		return float64(v), nil
	case starlark.String:
		return string(v), nil
	case *starlark.List, starlark.Tuple:
		var parts []string
		iter := starlark.Iterate(v)
		defer iter.Done()
		var e starlark.Value
		for iter.Next(&e) {
			switch e := e.(type) {
			case starlark.Int, starlark.String:
				s, _ := starlark.AsString(e)
				if i, ok := e.(starlark.Int); ok {
					s = i.String()
				}
				parts = append(parts, s)
			default:
				return nil, fmt.Errorf("a list holds numbers or strings, not %s", e.Type())
			}
		}
		return strings.Join(parts, ","), nil
	}
	return nil, fmt.Errorf("want a number, bool or string, not %s", v.Type())
}

// commandLine is the sysbench command line equivalent to a call, shown in
// step lists and recorded with the step. It names the handle's current
// database when known (always in a real run), so the journal says where
// a prepare or cleanup acts.
func (c *call) commandLine(command string) string {
	var names []string
	for n := range c.given {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := []string{"sysbench", c.workload}
	if database := c.conn.Session().Database; database != "" {
		parts = append(parts, "--mysql-db="+database)
	}
	if c.opts.Profile != sysbench.Profile1020 {
		parts = append(parts, "--profile="+c.opts.Profile)
	}
	for _, n := range names {
		parts = append(parts, "--"+n+"="+c.given[n])
	}
	return strings.Join(append(parts, command), " ")
}

func (c *call) args() map[string]any {
	a := map[string]any{"workload": c.workload, "options": c.given, "profile": c.opts.Profile}
	if len(c.tags) > 0 {
		a["tags"] = c.tags
	}
	return a
}

// connector opens sessions on the connection's endpoints in the
// statement mode of the call's options.
func (c *call) connector() (*bench.RoundRobin, error) {
	return benchstar.Connector(c.conn, bench.PSMode(c.opts.PSMode))
}

func prepare(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	c, err := parseCall(b, args, kwargs, false)
	if err != nil {
		return nil, err
	}
	extra := map[string]any{"if_exists": c.ifExists, "load_method": c.loadMethod}
	return tableStep(thread, b, c, "prepare", extra, runner.Action{
		Placeholder: func(*runner.Step) starlark.Value { return prepareValue(&sysbench.PrepareResult{}, true) },
		Replay: func(_ *runner.Step, raw json.RawMessage) (starlark.Value, error) {
			var res sysbench.PrepareResult
			if err := json.Unmarshal(raw, &res); err != nil {
				return nil, err
			}
			return prepareValue(&res, false), nil
		},
	}, func(s *runner.Step, conn bench.Connector, script *sysbench.Script) (runner.Outcome, error) {
		res, err := sysbench.Prepare(s.Context(), conn, script, &c.opts, benchstar.Seed(s, c.opts.RandSeed),
			sysbench.PrepareMode{IfExists: c.ifExists, Load: c.loadMethod}, runner.HostOf(thread).Out().Writer())
		if err != nil {
			return runner.Outcome{}, err
		}
		return runner.Outcome{Value: prepareValue(res, false), Record: res}, nil
	})
}

// tableStep records the step of a sysbench command on the script's tables
// (prepare, prewarm, cleanup): do runs on a connector to the call's
// endpoints; action gives the rest of the step (placeholder, replay).
func tableStep(thread *starlark.Thread, b *starlark.Builtin, c *call, command string, extraArgs map[string]any, action runner.Action,
	do func(s *runner.Step, conn bench.Connector, script *sysbench.Script) (runner.Outcome, error)) (starlark.Value, error) {
	script, err := sysbench.LookupScript(c.workload)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	info := runner.StepInfo{Builtin: "sysbench." + command, Args: c.args(), Text: c.commandLine(command), Handle: c.conn.ID()}
	for k, v := range extraArgs {
		info.Args[k] = v
	}
	action.Run = func(s *runner.Step) (runner.Outcome, error) {
		conn, err := c.connector()
		if err == nil {
			var out runner.Outcome
			if out, err = do(s, conn, script); err == nil {
				return out, nil
			}
		}
		return runner.Outcome{}, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return runner.HostOf(thread).Step(info, action)
}

func prepareValue(r *sysbench.PrepareResult, placeholder bool) starlark.Value {
	return starlarkstruct.FromStringDict(starlark.String("prepare_result"), starlark.StringDict{
		"tables":      runner.StringList(r.Tables),
		"reused":      runner.StringList(r.Reused),
		"rows":        starlark.MakeInt64(r.Rows),
		"seconds":     starlark.Float(r.Seconds),
		"rows_per_s":  starlark.Float(r.RowsPerS),
		"placeholder": starlark.Bool(placeholder),
	})
}

func run(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	c, err := parseCall(b, args, kwargs, true)
	if err != nil {
		return nil, err
	}
	if len(args) < 2 && !hasKeyword(kwargs, "workload") {
		return nil, fmt.Errorf("%s: missing the workload, e.g. sysbench.run(conn, \"oltp_read_write\", threads = 16)", b.Name())
	}
	wl, err := sysbench.NewWorkload(c.workload, c.opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return benchstar.RunBuiltin(thread, b, c.load(), func() *results.Summary {
		return &results.Summary{Workload: wl.Meta(), Threads: c.opts.Threads, Tags: c.tags, Latency: results.LatencySummary{Percentiles: map[string]float64{}}}
	}, resultValue)
}

func part(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	c, err := parseCall(b, args, kwargs, true)
	if err != nil {
		return nil, err
	}
	if len(args) < 2 && !hasKeyword(kwargs, "workload") {
		return nil, fmt.Errorf("%s: missing the workload, e.g. sysbench.part(conn, \"oltp_point_select\", threads = 150)", b.Name())
	}
	if _, err := sysbench.NewWorkload(c.workload, c.opts); err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return benchstar.NewLoad(c.load()), nil
}

// load is the call as a part of bench.together.
func (c *call) load() *benchstar.Load {
	l := &benchstar.Load{Family: "sysbench", Name: stepLabel(c), Handle: c.conn.ID(), Target: c.conn.Display(),
		Text: func() string { return c.commandLine("run") }, Args: c.args}
	l.Time = time.Duration(c.opts.Time) * time.Second
	l.Interval = time.Duration(max(c.opts.ReportInterval, 1)) * time.Second // the engine's default: one second
	setSeconds := func(option string, dst *int64, shown *time.Duration) func(time.Duration) error {
		return func(d time.Duration) error {
			secs, err := benchstar.DurationSeconds(option, d)
			if err != nil {
				return err
			}
			*dst, *shown = secs, d
			c.given[option] = strconv.FormatInt(secs, 10)
			return nil
		}
	}
	l.SetTime = setSeconds("time", &c.opts.Time, &l.Time)
	l.SetInterval = setSeconds("report_interval", &c.opts.ReportInterval, &l.Interval)
	l.Step = func(seed int64) (bench.Step, error) {
		wl, err := sysbench.NewWorkload(c.workload, c.opts)
		if err != nil {
			return bench.Step{}, err
		}
		conn, err := c.connector()
		if err != nil {
			return bench.Step{}, err
		}
		if c.opts.RandSeed != 0 {
			seed = c.opts.RandSeed
		}
		step := wl.Step(conn, seed, "starbench", bench.Segment{})
		step.Tags, step.Target = c.tags, c.conn.Display()
		return step, nil
	}
	return l
}

// stepLabel names a run's step folder: workload-t<threads>.
func stepLabel(c *call) string {
	return strings.ReplaceAll(c.workload, "/", "-") + "-t" + strconv.Itoa(c.opts.Threads)
}

func hasKeyword(kwargs []starlark.Tuple, name string) bool {
	for _, kv := range kwargs {
		if string(kv[0].(starlark.String)) == name {
			return true
		}
	}
	return false
}

// resultValue is what sysbench.run returns to the plan: a step's figures
// (benchstar.SummaryFields) with late and dropped (under rate=).
func resultValue(s *results.Summary, dir string, placeholder bool) starlark.Value {
	fields := benchstar.SummaryFields(s, dir, placeholder)
	fields["late"], fields["dropped"] = starlark.MakeInt64(s.Late), starlark.MakeInt64(s.Dropped)
	return starlarkstruct.FromStringDict(starlark.String("sysbench_result"), fields)
}

func prewarm(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	c, err := parseCall(b, args, kwargs, false)
	if err != nil {
		return nil, err
	}
	return tableStep(thread, b, c, "prewarm", nil, runner.Action{
		Replay: func(*runner.Step, json.RawMessage) (starlark.Value, error) { return starlark.None, nil },
	}, func(s *runner.Step, conn bench.Connector, script *sysbench.Script) (runner.Outcome, error) {
		return runner.Outcome{}, sysbench.Prewarm(s.Context(), conn, script, &c.opts, runner.HostOf(thread).Out().Writer())
	})
}

func cleanup(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	c, err := parseCall(b, args, kwargs, false)
	if err != nil {
		return nil, err
	}
	return tableStep(thread, b, c, "cleanup", nil, runner.Action{
		Placeholder: func(*runner.Step) starlark.Value { return runner.StringList(nil) },
		Replay: func(_ *runner.Step, raw json.RawMessage) (starlark.Value, error) {
			var rec cleanupRecord
			if err := json.Unmarshal(raw, &rec); err != nil {
				// Journals written before the schema was recorded hold the list.
				if listErr := json.Unmarshal(raw, &rec.Dropped); listErr != nil {
					return nil, err
				}
			}
			return runner.StringList(rec.Dropped), nil
		},
	}, func(s *runner.Step, conn bench.Connector, script *sysbench.Script) (runner.Outcome, error) {
		dropped, err := sysbench.Cleanup(s.Context(), conn, script, &c.opts, runner.HostOf(thread).Out().Writer())
		rec := cleanupRecord{Schema: bench.SchemaOf(conn), Dropped: dropped}
		return runner.Outcome{Value: runner.StringList(dropped), Record: rec}, err
	})
}

// cleanupRecord is what the journal keeps of a cleanup: the tables dropped
// and the database they were in.
type cleanupRecord struct {
	Schema  string   `json:"schema,omitempty"`
	Dropped []string `json:"dropped"`
}

func tableNames(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var n int
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "n", &n); err != nil {
		return nil, err
	}
	if n < 1 {
		return nil, fmt.Errorf("%s: n must be at least 1, got %d", b.Name(), n)
	}
	return runner.StringList(sysbench.TableNames(n)), nil
}
