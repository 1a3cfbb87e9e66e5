package mix

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/family"
	"github.com/starbench/starbench/runner/results"
)

// Family is the mix family: its calls take a defined mix as their mix
// option, which a Go program sets to a *Mix (the plan module converts a
// mix.define value). It implements family.Family, family.Preparer,
// family.Cleaner and family.Fielder.
type Family struct{}

var (
	_ family.Family   = Family{}
	_ family.Preparer = Family{}
	_ family.Cleaner  = Family{}
	_ family.Fielder  = Family{}
)

// Name implements family.Family.
func (Family) Name() string { return "mix" }

// Summary implements family.Family.
func (Family) Summary() string {
	return "A workload for your own schema, declared in the plan and run by the Go engine at the speed of the built-in families: " +
		"tables, how to load them, and transactions of statements whose ? placeholders take values from generators. mix.define " +
		"checks the declaration (placeholders against arguments, refs against earlier results, tables against the declared ones, " +
		"weights, generator bounds) and compiles it once: no Starlark runs per event. A mix runs as a family: mix.prepare, mix.run, " +
		"mix.part (for bench.together), mix.cleanup, with results folders that report and compare read. Each generator is drawn " +
		"afresh wherever it is used, from a stream of each worker's own derived from the run seed (the same seed, the same values), " +
		"except that a sequence or unique_id counts across all its uses."
}

// DefaultIgnoredErrors are the errors a mix's run counts and goes on
// after unless told otherwise: sysbench 1.0.20's --mysql-ignore-errors
// default (deadlock, record changed, lock wait timeout), which a
// restated sysbench script must keep to do what sysbench does.
var DefaultIgnoredErrors = []uint16{1213, 1020, 1205}

func mixOption() family.Option {
	return family.Option{Name: "mix", Kind: family.Value, Positional: true, Help: "a mix from mix.define"}
}

// RunOptions implements family.Family.
func (Family) RunOptions() []family.Option {
	return []family.Option{
		mixOption(),
		{Name: "threads", Kind: family.Int, Default: int64(1), Role: family.Threads, Help: "client threads (connections)", Check: family.AtLeast(1)},
		{Name: "time", Kind: family.Duration, Default: 10 * time.Second, Role: family.Time, Help: "how long (0: until events)"},
		{Name: "events", Kind: family.Int, Default: int64(0), Role: family.Events, Help: "how many transactions (0: until time)", Check: family.AtLeast(0)},
		{Name: "report_interval", Kind: family.Duration, Default: time.Duration(0), Role: family.Interval, Help: "an interval line this often (0: none)"},
		{Name: "rate", Kind: family.Float, Default: 0.0, Role: family.Rate, Help: "transactions per second, open loop (0: closed loop)", Check: family.AtLeast(0)},
		{Name: "warmup_time", Kind: family.Duration, Default: time.Duration(0), Help: "uncounted load before the measured time"},
		{Name: "seed", Kind: family.Int, Default: int64(0), Role: family.Seed, Help: "the run's seed (0: the step's)"},
		{Name: "ignore_errors", Kind: family.Codes, Default: DefaultIgnoredErrors, Help: "MySQL error codes counted instead of stopping the run, the transaction rolled back and the event run again (default sysbench's: deadlock 1213, record changed 1020, lock wait timeout 1205; [] stops at every error)"},
		{Name: "reconnect_timeout", Kind: family.Duration, Default: 30 * time.Second, Help: "how long a thread tries to reconnect"},
		{Name: "percentile", Kind: family.Float, Default: 95.0, Help: "the report's percentile", Check: func(v any) error {
			if p := v.(float64); p <= 0 || p >= 100 {
				return fmt.Errorf("must be between 0 and 100, got %v", p)
			}
			return nil
		}},
		{Name: "tags", Kind: family.Tags, Default: map[string]string{}, Role: family.TagsRole, Help: "kept with the step, for reports and compare"},
		{Name: "segment", Kind: family.String, Default: "", Role: family.Segment, Help: "i/n: the i-th of n slices of the load (with seed)"},
	}
}

// RunDoc implements family.Family.
func (Family) RunDoc() string {
	return "Runs the mix with threads connections for time (or events transactions), printing sysbench's interval lines " +
		"(report_interval=) and report with a table of the transactions, and writes steps/<id>-<mix>-t<threads>/. rate= " +
		"(transactions/s) makes it open-loop. A server error in ignore_errors (by default sysbench's: deadlock 1213, record " +
		"changed 1020, lock wait timeout 1205) is counted by code, its transaction rolled back and the event run again; any " +
		"other stops the run (retry_on= of mix.txn retries within the transaction instead). segment=\"i/n\" (with seed=, the same for every segment) runs the i-th of n " +
		"slices of the load, as --segment does: thread j of threads is segment j mod n + 1's with its stream, events and " +
		"rate split alike, and the step folder is named ...-seg<i>of<n> for starbench merge. Returns a struct: every run builtin's fields (tps, qps, events, queries, reads, " +
		"writes, others, errors, errors_by_code, errors_by_kind, reconnects, seconds, latency, threads, tags, dir, telemetry), late and " +
		"dropped, metrics (the family's own figures by name), retries, and transactions (by name: count, errors, per_minute, latency)."
}

// Meta implements family.Family: the mix's name and version.
func (Family) Meta(v family.Values) results.Meta {
	if m, ok := v["mix"].(*Mix); ok {
		return m.Meta()
	}
	return results.Meta{}
}

// configuredRun is a configured run of a mix.
type configuredRun struct {
	m *Mix
	o RunOptions
}

// Run implements family.Family.
func (Family) Run(v family.Values) (family.Run, error) {
	m, ok := v["mix"].(*Mix)
	if !ok {
		return nil, fmt.Errorf("mix: want a defined mix, got %T", v["mix"])
	}
	o := RunOptions{Threads: int(v.Int("threads")), Time: v.Duration("time"), Events: v.Int("events"), Interval: v.Duration("report_interval"),
		Rate: v.Float("rate"), Warmup: v.Duration("warmup_time"), IgnoreErrors: v.Codes("ignore_errors"),
		ReconnectTimeout: v.Duration("reconnect_timeout"), Percentile: v.Float("percentile")}
	if o.Time == 0 && o.Events == 0 {
		return nil, fmt.Errorf("give a time or a number of events (both are 0: the run would never end)")
	}
	var err error
	if o.Segment, err = v.Segment("segment"); err != nil {
		return nil, err
	}
	return &configuredRun{m: m, o: o}, nil
}

// Label implements family.Run.
func (r *configuredRun) Label() string { return fmt.Sprintf("%s-t%d", r.m.Name(), r.o.Threads) }

// Planned implements family.Run.
func (r *configuredRun) Planned() family.Plan {
	return family.Plan{Threads: r.o.Threads, Time: r.o.Time, Interval: r.o.Interval}
}

// Kinds implements family.Run: the transactions.
func (r *configuredRun) Kinds() []string { return r.m.Kinds() }

// Step implements family.Run.
func (r *configuredRun) Step(conn bench.Connector, seed int64) (bench.Step, error) {
	o := r.o
	o.Seed = seed
	return r.m.Step(conn, o), nil
}

// CommandLine implements family.Family: the module function, the mix and
// its version, the database and the options as flags.
func (Family) CommandLine(command string, v family.Values, database string) string {
	m, _ := v["mix"].(*Mix)
	parts := []string{"mix", command}
	if m != nil {
		parts = append(parts, m.Name(), "("+m.Meta().Version+")")
	}
	if database != "" {
		parts = append(parts, "--db "+database)
	}
	switch command {
	case "prepare":
		parts = append(parts, fmt.Sprintf("--threads %d", v.Int("threads")))
	case "run":
		parts = append(parts, fmt.Sprintf("--threads %d", v.Int("threads")))
		if d := v.Duration("time"); d > 0 {
			parts = append(parts, "--time "+d.String())
		}
		if n := v.Int("events"); n > 0 {
			parts = append(parts, fmt.Sprintf("--events %d", n))
		}
		if r := v.Float("rate"); r > 0 {
			parts = append(parts, fmt.Sprintf("--rate %v", r))
		}
		if d := v.Duration("report_interval"); d > 0 {
			parts = append(parts, "--report-interval "+d.String())
		}
		if s := v.String("segment"); s != "" {
			parts = append(parts, fmt.Sprintf("--seed %d --segment %s", v.Int("seed"), s))
		}
	}
	return strings.Join(parts, " ")
}

// PrepareOptions implements family.Preparer.
func (Family) PrepareOptions() []family.Option {
	return []family.Option{
		mixOption(),
		{Name: "threads", Kind: family.Int, Default: int64(1), Role: family.Threads, Help: "client threads (connections)", Check: family.AtLeast(1)},
		{Name: "if_exists", Kind: family.String, Default: IfExistsError, Help: "tables that exist: error, drop or reuse"},
		{Name: "load_method", Kind: family.String, Default: "auto", Help: "auto, insert or load-data"},
		{Name: "seed", Kind: family.Int, Default: int64(0), Role: family.Seed, Help: "the rows' seed (0: the step's)"},
	}
}

// Tables implements family.Preparer.
func (Family) Tables(v family.Values) []string {
	if m, ok := v["mix"].(*Mix); ok {
		return m.TableNames()
	}
	return nil
}

// Prepare implements family.Preparer.
func (Family) Prepare(ctx context.Context, conn bench.Connector, v family.Values, seed int64, out io.Writer) (*family.Prepared, error) {
	m := v["mix"].(*Mix)
	return m.Prepare(ctx, conn, PrepareOptions{Threads: int(v.Int("threads")), IfExists: v.String("if_exists"), Method: v.String("load_method"), Seed: seed}, out)
}

// PrepareDoc implements family.Preparer.
func (Family) PrepareDoc() string {
	return "Creates the mix's tables in conn's current database and loads them by their mix.rows, in slices of 100,000 rows " +
		"spread over threads connections (the same rows for a seed whatever the threads), with LOAD DATA LOCAL INFILE where " +
		"the server takes it and INSERTs where it refuses. Tables that exist are an error naming them as schema.table unless " +
		"if_exists is \"drop\" or \"reuse\". Returns a struct: schema, tables, reused, rows (by table), total_rows, seconds, rows_per_s."
}

// CleanupOptions implements family.Cleaner.
func (Family) CleanupOptions() []family.Option { return []family.Option{mixOption()} }

// Cleanup implements family.Cleaner.
func (Family) Cleanup(ctx context.Context, conn bench.Connector, v family.Values, out io.Writer) ([]string, error) {
	return v["mix"].(*Mix).Cleanup(ctx, conn, out)
}

// CleanupDoc implements family.Cleaner.
func (Family) CleanupDoc() string {
	return "Drops the mix's tables that exist in conn's current database (the last declared first), naming each as schema.table; returns their names."
}

// Fields implements family.Fielder: the retries, and the transactions by
// name (count, errors, per_minute, latency).
func (Family) Fields(s *results.Summary) map[string]any {
	txns := map[string]any{}
	for _, k := range s.Kinds {
		txns[k.Name] = family.Record{"count": k.Events, "errors": k.Errors, "per_minute": k.PerMinute, "latency": k.Latency}
	}
	return map[string]any{"retries": int64(s.Metrics[MetricRetries]), "transactions": txns}
}
