package sysbench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/family"
	"github.com/starbench/starbench/runner/results"
)

// Family is the sysbench family on the family contract: a call's
// keywords are sysbench's options (table_size=, rand_type=, ...: an open
// set, kind family.Rest) set in order on the profile's defaults, beside
// the call's own (workload, profile, tags, segment) and the options the
// engine reads (threads, time, events, report_interval, warmup_time,
// rand_seed). Its journal records, command lines and prepare results are
// those its module had before the contract.
type Family struct{}

var (
	_ family.Family           = Family{}
	_ family.Preparer         = Family{}
	_ family.Cleaner          = Family{}
	_ family.Journaler        = Family{}
	_ family.Sessioner        = Family{}
	_ family.Signer           = Family{}
	_ family.PreparedReplayer = Family{}
)

// Name implements family.Family.
func (Family) Name() string { return "sysbench" }

// Summary implements family.Family.
func (Family) Summary() string {
	return "sysbench's workloads run by the Go engine: the same statements, counting and report layout as sysbench " +
		"(profile \"1.0.20\" by default, \"master\" for master's defaults and layout). Every sysbench option is a keyword " +
		"argument with underscores (table_size=, range_size=, skip_trx=, rand_type=, db_ps_mode=, mysql_ignore_errors=, ...); " +
		"time= and report_interval= take durations (\"300s\" or seconds)."
}

// wholeSeconds checks a duration option that sysbench holds in seconds.
func wholeSeconds(v any) error {
	if d := v.(time.Duration); d%time.Second != 0 {
		return fmt.Errorf("%v is not a whole number of seconds", d)
	}
	return nil
}

// engineOptions are the sysbench options the engine reads, declared so
// that the adapter knows them (a part's time, a segment's threads); like
// every sysbench option they are set only when given.
func engineOptions() []family.Option {
	return []family.Option{
		{Name: "threads", Kind: family.Int, Role: family.Threads, Help: "client threads"},
		{Name: "time", Kind: family.Duration, Role: family.Time, Help: "how long", Check: wholeSeconds},
		{Name: "events", Kind: family.Int, Role: family.Events, Help: "how many events"},
		{Name: "report_interval", Kind: family.Duration, Role: family.Interval, Help: "interval lines", Check: wholeSeconds},
		{Name: "rate", Kind: family.Int, Role: family.Rate, Help: "events/s, open loop (0: closed loop)"},
		{Name: "warmup_time", Kind: family.Duration, Help: "uncounted load first", Check: wholeSeconds},
		{Name: "rand_seed", Kind: family.Int, Role: family.Seed, Help: "the statement stream's seed"},
	}
}

// callOptions are every call's own options and sysbench's open set.
func callOptions(workload family.Option) []family.Option {
	return append([]family.Option{workload,
		{Name: "profile", Kind: family.String, Default: Profile1020, Help: "sysbench's defaults and layout: 1.0.20 or master"},
		{Name: "tags", Kind: family.Tags, Default: map[string]string{}, Role: family.TagsRole, Help: "kept with the step"},
		{Name: "if_exists", Kind: family.String, Default: "", Help: "prepare: tables that exist: error, drop or reuse"},
		{Name: "load_method", Kind: family.String, Default: "", Help: "prepare: auto, insert or load-data"},
	}, append(engineOptions(), family.Option{Name: "options", Kind: family.Rest, Help: "sysbench's options"})...)
}

// RunOptions implements family.Family.
func (Family) RunOptions() []family.Option {
	opts := callOptions(family.Option{Name: "workload", Kind: family.String, Positional: true, Help: "the workload (oltp_read_write, ...)"})
	return append(opts, family.Option{Name: "segment", Kind: family.String, Default: "", Role: family.Segment, Help: "i/n: one slice of the load (with rand_seed)"})
}

// PrepareOptions implements family.Preparer.
func (Family) PrepareOptions() []family.Option {
	return callOptions(family.Option{Name: "workload", Kind: family.String, Default: "oltp_read_write", Help: "the workload whose tables"})
}

// CleanupOptions implements family.Cleaner.
func (f Family) CleanupOptions() []family.Option { return f.PrepareOptions() }

// Configured is a call's values as sysbench takes them: the workload,
// the options set on the profile's defaults, and those given, as
// sysbench's command line would say them.
type Configured struct {
	Workload string
	Options  Options
	Given    map[string]string
}

// Configure sets a call's options on its profile's defaults: the
// engine's, then the others in the order given, each noted as given, and
// validates them.
func Configure(v family.Values) (*Configured, error) {
	c := &Configured{Workload: v.String("workload"), Options: Defaults(v.String("profile")), Given: map[string]string{}}
	set := func(name string, value any) error {
		opt, ok := LookupOption(name)
		if !ok {
			return fmt.Errorf("unknown option %s (sysbench options are keywords with underscores: tables, table_size, range_size, rand_type, ...)", name)
		}
		if err := opt.SetValue(&c.Options, value); err != nil {
			return err
		}
		c.Given[opt.Name] = opt.Value(&c.Options)
		return nil
	}
	for _, o := range engineOptions() {
		x, ok := v[o.Name]
		if !ok {
			continue
		}
		if d, isDuration := x.(time.Duration); isDuration {
			x = int64(d / time.Second)
		}
		if err := set(o.Name, x); err != nil {
			return nil, err
		}
	}
	rest, _ := v["options"].([]family.Keyword)
	for _, kw := range rest {
		x := kw.Value
		if list, ok := x.([]any); ok { // sysbench's comma-separated lists
			parts := make([]string, len(list))
			for i, e := range list {
				parts[i] = fmt.Sprint(e)
			}
			x = strings.Join(parts, ",")
		}
		if err := set(kw.Name, x); err != nil {
			return nil, err
		}
	}
	if err := c.Options.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// RunDoc implements family.Family.
func (Family) RunDoc() string {
	return "Runs a workload (oltp_point_select, oltp_read_only, oltp_read_write, oltp_write_only, oltp_update_index, " +
		"oltp_update_non_index, oltp_delete, oltp_insert, bulk_insert, select_random_points, select_random_ranges, " +
		"oltp_legacy/insert, oltp_legacy/bulk_insert) with one connection per thread until time or events. Prints " +
		"sysbench's output (interval lines with report_interval=) and writes steps/<id>-<workload>-t<threads>/ with " +
		"summary.json, intervals.csv, latency.hlog and output.txt. tags are recorded with the step for reports and compare. " +
		"Returns a struct: tps, qps, events, queries, reads, writes, others, errors, errors_by_code, errors_by_kind, reconnects, " +
		"late and dropped (under rate=), seconds, " +
		"latency (min, avg, max, sum, p50, p90, p95, p99, p999, p9999 in ms), threads, workload, tags, dir, telemetry (the " +
		"series of telemetry.watch by name: kind, source, points, failed, error, avg, max, totals). The statement " +
		"stream derives from the run seed and the step, or from rand_seed= when given. rate= (events/s) makes the run " +
		"open-loop, latency counted from each event's scheduled start; warmup_time= runs uncounted load first; a lost " +
		"connection is re-established (reconnect_timeout=, 30 s) and counted; errors in mysql_ignore_errors= are counted " +
		"and retried, others stop the run." +
		" segment=\"i/n\" (with rand_seed=, the same for every segment) runs the i-th of n slices of the load, as --segment does."
}

// Signature implements family.Signer: sysbench's options are an open set.
func (Family) Signature(command string) string {
	switch command {
	case "prepare":
		return "sysbench.prepare(conn, tables=1, table_size=10000, threads=1, workload=\"oltp_read_write\", if_exists=\"error\", load_method=\"auto\", **options)"
	case "run":
		return "sysbench.run(conn, workload, threads=1, time=\"10s\", events=0, tags={}, profile=\"1.0.20\", segment=\"\", **options)"
	case "part":
		return "sysbench.part(conn, workload, threads=1, time=\"10s\", tags={}, profile=\"1.0.20\", **options)"
	case "cleanup":
		return "sysbench.cleanup(conn, tables=1, workload=\"oltp_read_write\", threads=1)"
	}
	return ""
}

// run is a configured run.
type run struct {
	c   *Configured
	wl  *Workload
	seg bench.Segment
}

// Run implements family.Family.
func (Family) Run(v family.Values) (family.Run, error) {
	c, err := Configure(v)
	if err != nil {
		return nil, err
	}
	wl, err := NewWorkload(c.Workload, c.Options)
	if err != nil {
		return nil, err
	}
	seg, err := v.Segment("segment")
	if err != nil {
		return nil, err
	}
	return &run{c: c, wl: wl, seg: seg}, nil
}

// Label implements family.Run: workload-t<threads>.
func (r *run) Label() string {
	return strings.ReplaceAll(r.c.Workload, "/", "-") + "-t" + strconv.Itoa(r.c.Options.Threads)
}

// Planned implements family.Run.
func (r *run) Planned() family.Plan {
	o := r.c.Options
	return family.Plan{Threads: o.Threads, Time: time.Duration(o.Time) * time.Second, Interval: time.Duration(o.ReportInterval) * time.Second}
}

// Kinds implements family.Run: sysbench counts events of one kind.
func (r *run) Kinds() []string { return nil }

// Step implements family.Run.
func (r *run) Step(conn bench.Connector, seed int64) (bench.Step, error) {
	wl, err := NewWorkload(r.c.Workload, r.c.Options)
	if err != nil {
		return bench.Step{}, err
	}
	return wl.Step(conn, seed, "starbench", r.seg), nil
}

// Meta implements family.Family.
func (Family) Meta(v family.Values) results.Meta {
	c, err := Configure(v)
	if err != nil {
		return results.Meta{Name: v.String("workload")}
	}
	wl, err := NewWorkload(c.Workload, c.Options)
	if err != nil {
		return results.Meta{Name: c.Workload}
	}
	return wl.Meta()
}

// PSMode implements family.Sessioner: db_ps_mode.
func (Family) PSMode(v family.Values) bench.PSMode {
	c, err := Configure(v)
	if err != nil {
		return bench.PSAuto
	}
	return bench.PSMode(c.Options.PSMode)
}

// CommandLine implements family.Family: sysbench's, with the options
// given, in conn's database.
func (Family) CommandLine(command string, v family.Values, database string) string {
	c, err := Configure(v)
	if err != nil {
		return "sysbench " + v.String("workload") + " " + command
	}
	names := make([]string, 0, len(c.Given))
	for n := range c.Given {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := []string{"sysbench", c.Workload}
	if database != "" {
		parts = append(parts, "--mysql-db="+database)
	}
	if c.Options.Profile != Profile1020 {
		parts = append(parts, "--profile="+c.Options.Profile)
	}
	for _, n := range names {
		parts = append(parts, "--"+n+"="+c.Given[n])
	}
	if s := v.String("segment"); s != "" {
		parts = append(parts, "--segment="+s)
	}
	return strings.Join(append(parts, command), " ")
}

// JournalArgs implements family.Journaler: the records sysbench's steps
// had before the contract.
func (Family) JournalArgs(command string, v family.Values) map[string]any {
	c, err := Configure(v)
	if err != nil {
		return map[string]any{"workload": v.String("workload")}
	}
	a := map[string]any{"workload": c.Workload, "options": c.Given, "profile": c.Options.Profile}
	if tags := v.Tags("tags"); len(tags) > 0 {
		a["tags"] = tags
	}
	if command == "prepare" {
		a["if_exists"], a["load_method"] = v.String("if_exists"), v.String("load_method")
	}
	if s := v.String("segment"); s != "" {
		a["segment"] = s
	}
	return a
}

// Tables implements family.Preparer: a dry run's prepare lists none, as
// before the contract.
func (Family) Tables(family.Values) []string { return nil }

// Prepare implements family.Preparer.
func (Family) Prepare(ctx context.Context, conn bench.Connector, v family.Values, seed int64, out io.Writer) (*family.Prepared, error) {
	c, script, err := configureScript(v)
	if err != nil {
		return nil, err
	}
	res, err := Prepare(ctx, conn, script, &c.Options, seed, PrepareMode{IfExists: v.String("if_exists"), Load: v.String("load_method")}, out)
	if err != nil {
		return nil, err
	}
	return prepared(res), nil
}

func prepared(res *PrepareResult) *family.Prepared {
	return &family.Prepared{Schema: res.Schema, Tables: res.Tables, Reused: res.Reused, TotalRows: res.Rows, Seconds: res.Seconds,
		RowsPerS: res.RowsPerS, Fields: map[string]any{"rows": res.Rows}, Record: res}
}

// ReplayPrepared implements family.PreparedReplayer.
func (Family) ReplayPrepared(raw []byte) (*family.Prepared, error) {
	var res PrepareResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, err
	}
	return prepared(&res), nil
}

func configureScript(v family.Values) (*Configured, *Script, error) {
	c, err := Configure(v)
	if err != nil {
		return nil, nil, err
	}
	script, err := LookupScript(c.Workload)
	return c, script, err
}

// PrepareDoc implements family.Preparer.
func (Family) PrepareDoc() string {
	return "Creates and loads sbtest1..sbtestN on conn's target in parallel (table i by thread (i-1) mod threads), then " +
		"creates the secondary index, in conn's current database. Tables that already exist are an error naming them " +
		"(schema.table) unless if_exists is \"drop\" (drop them, printing each as schema.table, and prepare them again) or " +
		"\"reuse\" (keep them). select_random_points and select_random_ranges take one table (tables=1) here and in cleanup, " +
		"as in sysbench; their run accepts any tables= and uses sbtest1. load_method \"auto\" streams the rows with LOAD DATA LOCAL INFILE " +
		"(1.3x the rows/s of sysbench's INSERTs on MariaDB, measured in the README's speed section) where the server accepts it and uses sysbench's INSERTs where it refuses; " +
		"\"insert\" always sends sysbench's INSERTs, \"load-data\" fails if refused. The rows are the same either way. Returns a struct: tables, reused, rows, seconds, rows_per_s."
}

// Cleanup implements family.Cleaner.
func (Family) Cleanup(ctx context.Context, conn bench.Connector, v family.Values, out io.Writer) ([]string, error) {
	c, script, err := configureScript(v)
	if err != nil {
		return nil, err
	}
	return Cleanup(ctx, conn, script, &c.Options, out)
}

// CleanupDoc implements family.Cleaner.
func (Family) CleanupDoc() string {
	return "Drops the workload's tables from conn's current database, printing each as schema.table; returns their names."
}

// PrewarmOptions are sysbench.prewarm's.
func (f Family) PrewarmOptions() []family.Option { return f.PrepareOptions() }

// PrewarmScript configures a prewarm.
func PrewarmScript(v family.Values) (*Configured, *Script, error) { return configureScript(v) }
