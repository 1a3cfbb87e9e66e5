package tpcc

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

// Family is the TPC-C family on the family contract: go-tpc's options
// as a plan's keywords, prepare and cleanup as go-tpc's, and tpmC,
// tpmTotal, efficiency and the transactions by kind in what a run
// returns. Its plan module adds tpcc.check; its command line is go-tpc's
// own (CommandLine, tpccstar.Command).
type Family struct{}

var (
	_ family.Family    = Family{}
	_ family.Preparer  = Family{}
	_ family.Cleaner   = Family{}
	_ family.Fielder   = Family{}
	_ family.Journaler = Family{}
	_ family.Validator = Family{}
)

// IgnoredErrors is a run's ignore_errors: the defaults (the zero value),
// every server error (All, go-tpc's --ignore-error) or Codes.
type IgnoredErrors struct {
	Codes []uint16
	All   bool
}

// Name implements family.Family.
func (Family) Name() string { return "tpcc" }

// Summary implements family.Family.
func (Family) Summary() string {
	return "TPC-C as go-tpc v1.0.7 runs it (its nine tables, its statements, its output), on the same engine as " +
		"sysbench: HdrHistogram latencies per transaction, intervals, errors by code, reconnects, results folders " +
		"that report and compare read. Each call is a step; check lists the equivalent go-tpc command line."
}

func layoutOption() family.Option {
	return family.Option{Name: "layout", Kind: family.String, Default: "go-tpc", Help: "go-tpc's tables or BenchmarkSQL's (\"benchmarksql\")",
		Check: func(v any) error { _, err := ParseLayout(v.(string)); return err }}
}

// RunOptions implements family.Family: tpcc.run's keywords.
func (Family) RunOptions() []family.Option {
	weights := make([]int64, len(DefaultWeights))
	for i, w := range DefaultWeights {
		weights[i] = int64(w)
	}
	return []family.Option{
		{Name: "warehouses", Kind: family.Int, Default: int64(10), Help: "warehouses loaded", Check: family.AtLeast(1)},
		{Name: "threads", Kind: family.Int, Default: int64(1), Role: family.Threads, Help: "client threads", Check: family.AtLeast(1)},
		{Name: "time", Kind: family.Duration, Default: 60 * time.Second, Role: family.Time, Help: "how long (0: until count)"},
		{Name: "count", Kind: family.Int, Default: int64(0), Role: family.Events, Help: "transactions in all (0: until time)", Check: family.AtLeast(0)},
		{Name: "interval", Kind: family.Duration, Default: 10 * time.Second, Role: family.Interval, Help: "the report interval", Check: positive},
		{Name: "weights", Kind: family.Ints, Default: weights, Help: "New-Order, Payment, Order-Status, Delivery, Stock-Level", Check: func(v any) error {
			if n := len(v.([]int64)); n != 5 {
				return fmt.Errorf("five numbers (New-Order, Payment, Order-Status, Delivery, Stock-Level), got %d", n)
			}
			return nil
		}},
		{Name: "wait", Kind: family.Bool, Default: false, Help: "keying and think times"},
		{Name: "isolation", Kind: family.String, Default: "", Help: "set before each transaction"},
		{Name: "ignore_errors", Kind: family.Value, Help: "None (the defaults), \"all\" or MySQL error codes"},
		{Name: "rate", Kind: family.Float, Default: 0.0, Role: family.Rate, Help: "transactions a second, open loop", Check: family.AtLeast(0)},
		{Name: "warmup_time", Kind: family.Duration, Default: time.Duration(0), Help: "uncounted load first"},
		{Name: "seed", Kind: family.Int, Default: int64(0), Role: family.Seed, Help: "the run's seed (0: the step's)"},
		{Name: "tags", Kind: family.Tags, Default: map[string]string{}, Role: family.TagsRole, Help: "kept with the step"},
		layoutOption(),
		{Name: "fixed_warehouse", Kind: family.Bool, Default: false, Help: "BenchmarkSQL's terminalWarehouseFixed"},
		{Name: "segment", Kind: family.String, Default: "", Role: family.Segment, Help: "i/n: the i-th of n slices of the load (with seed)"},
	}
}

func positive(v any) error {
	if d := v.(time.Duration); d <= 0 {
		return fmt.Errorf("must be positive, got %v", d)
	}
	return nil
}

// CheckWeights implements family.WeightsChecker: a phase's mix is five
// weights adding up to 100, as the run's own.
func (Family) CheckWeights(w []int64) error {
	var mix Weights
	if len(w) != len(mix) {
		return fmt.Errorf("five numbers (New-Order, Payment, Order-Status, Delivery, Stock-Level), got %d", len(w))
	}
	for k, n := range w {
		mix[k] = int(n)
	}
	return checkWeights(mix)
}

// RunDoc implements family.Family.
func (Family) RunDoc() string {
	return "Runs the five transactions with threads connections for time (or count transactions), in the weights' mix, " +
		"printing go-tpc's [Current]/[Summary] lines, and writes steps/<id>-tpcc-t<threads>/. ignore_errors lists the " +
		"MySQL error codes counted and retried (default: deadlocks, lock wait timeouts, TiDB's retryable errors; \"all\" " +
		"as go-tpc's --ignore-error). wait adds the specification's keying and think times. isolation (\"read committed\", " +
		"\"repeatable read\", ...) is set before each transaction, as go-tpc's --isolation does. layout=\"benchmarksql\" runs the same statements on BenchmarkSQL's tables. " +
		"fixed_warehouse=True keeps thread i on home warehouse i mod warehouses + 1, where by default each transaction draws " +
		"its own (BenchmarkSQL's terminalWarehouseFixed, whose terminals each have a warehouse and district: at most 10 threads a warehouse). segment=\"i/n\" (with seed=, the same for every segment) runs the i-th of n slices of the load, as starbench tpcc --segment does. Returns a struct: every run builtin's fields (tps, qps, events, queries, reads, " +
		"writes, others, errors, errors_by_code, errors_by_kind, reconnects, seconds, latency, threads, tags, dir, telemetry, late, dropped, " +
		"metrics) and tpmC, " +
		"tpmTotal, efficiency, transactions, kinds (by transaction: count, errors, tpm, avg, p50, p90, p95, p99, max in ms)."
}

// runConfig is a configured run.
type runConfig struct {
	w  WorkloadOptions
	o  RunOptions
	wl *Workload
}

func weightsOf(v family.Values) Weights {
	var w Weights
	if ws, ok := v["weights"].([]int64); ok && len(ws) == len(w) {
		for i, x := range ws {
			w[i] = int(x)
		}
	}
	return w
}

// isolationNumber is go-tpc's --isolation number of a level's name, -1
// for a name it has none for.
func isolationNumber(level string) int {
	for n, name := range IsolationLevels {
		if name == level {
			return n
		}
	}
	return -1
}

func isolationOf(v family.Values) string {
	return strings.ToUpper(strings.TrimSpace(v.String("isolation")))
}

// Run implements family.Family.
func (Family) Run(v family.Values) (family.Run, error) {
	layout, err := ParseLayout(v.String("layout"))
	if err != nil {
		return nil, err
	}
	warehouses, threads := int(v.Int("warehouses")), int(v.Int("threads"))
	if v.Duration("time") == 0 && v.Int("count") == 0 {
		return nil, fmt.Errorf("give a time or a count (both are 0: the run would never end)")
	}
	if v.Bool("fixed_warehouse") && threads > 10*warehouses {
		return nil, fmt.Errorf("fixed_warehouse=True is BenchmarkSQL's terminalWarehouseFixed, whose terminals each have a warehouse and district of their own: %d threads need %d warehouses, not %d",
			threads, (threads+9)/10, warehouses)
	}
	isolation := isolationOf(v)
	if isolationNumber(isolation) < 0 {
		return nil, fmt.Errorf("isolation must be \"read uncommitted\", \"read committed\", \"repeatable read\", \"serializable\" or \"\" (the server's), not %q", isolation)
	}
	ignored, _ := v["ignore_errors"].(IgnoredErrors)
	seg, err := v.Segment("segment")
	if err != nil {
		return nil, err
	}
	c := &runConfig{
		w: WorkloadOptions{Warehouses: warehouses, Weights: weightsOf(v), Wait: v.Bool("wait"), Isolation: isolation, Layout: layout,
			FixedWarehouse: v.Bool("fixed_warehouse")},
		o: RunOptions{Threads: threads, Time: v.Duration("time"), Count: v.Int("count"), Interval: v.Duration("interval"),
			IgnoreErrors: ignored.Codes, IgnoreAll: ignored.All, Rate: v.Float("rate"), Warmup: v.Duration("warmup_time"), Segment: seg},
	}
	if c.wl, err = NewWorkload(WorkloadOptions{Warehouses: warehouses, Weights: c.w.Weights, Wait: c.w.Wait}); err != nil {
		return nil, err
	}
	return c, nil
}

// Label implements family.Run.
func (c *runConfig) Label() string { return fmt.Sprintf("tpcc-t%d", c.o.Threads) }

// Planned implements family.Run.
func (c *runConfig) Planned() family.Plan {
	return family.Plan{Threads: c.o.Threads, Time: c.o.Time, Interval: c.o.Interval}
}

// Kinds implements family.Run: the five transactions.
func (c *runConfig) Kinds() []string { return c.wl.Kinds() }

// Step implements family.Run: the load's NURand constants derive from
// the seed, as prepare's do.
func (c *runConfig) Step(conn bench.Connector, seed int64) (bench.Step, error) {
	w := c.w
	w.Constants = NewConstants(uint64(seed))
	wl, err := NewWorkload(w)
	if err != nil {
		return bench.Step{}, err
	}
	o := c.o
	o.Seed = seed
	return wl.Step(conn, o), nil
}

// Meta implements family.Family.
func (Family) Meta(v family.Values) results.Meta {
	warehouses := max(int(v.Int("warehouses")), 1)
	wl, err := NewWorkload(WorkloadOptions{Warehouses: warehouses, Weights: weightsOf(v), Wait: v.Bool("wait")})
	if err != nil {
		return results.Meta{Name: "tpcc"}
	}
	return wl.Meta()
}

// PeerCommandLine is go-tpc's command line of a call in database (on
// BenchmarkSQL's tables, starbench's: go-tpc has no such layout).
func PeerCommandLine(layout Layout, database, command string, flags ...string) string {
	parts := []string{"go-tpc", "tpcc"}
	if layout == BenchmarkSQLLayout {
		parts = []string{"starbench", "tpcc", "--layout", "benchmarksql"}
	}
	if database != "" {
		parts = append(parts, "-D", database)
	}
	return strings.Join(append(append(parts, flags...), command), " ")
}

// CommandLine implements family.Family: go-tpc's.
func (Family) CommandLine(command string, v family.Values, database string) string {
	layout, _ := ParseLayout(v.String("layout"))
	var flags []string
	switch command {
	case "prepare":
		flags = []string{fmt.Sprintf("--warehouses %d", v.Int("warehouses")), fmt.Sprintf("-T %d", v.Int("threads"))}
		if p := v.Int("parts"); p > 1 {
			flags = append(flags, fmt.Sprintf("--parts %d", p))
		}
	case "run":
		flags = []string{fmt.Sprintf("--warehouses %d", v.Int("warehouses")), fmt.Sprintf("-T %d", v.Int("threads"))}
		if d := v.Duration("time"); d > 0 {
			flags = append(flags, "--time "+d.String())
		}
		if n := v.Int("count"); n > 0 {
			flags = append(flags, fmt.Sprintf("--count %d", n))
		}
		flags = append(flags, "--interval "+v.Duration("interval").String())
		if v.Bool("wait") {
			flags = append(flags, "--wait")
		}
		if ig, _ := v["ignore_errors"].(IgnoredErrors); ig.All {
			flags = append(flags, "--ignore-error")
		}
		if n := isolationNumber(isolationOf(v)); n > 0 {
			flags = append(flags, fmt.Sprintf("--isolation %d", n))
		}
		if s := v.String("segment"); s != "" {
			flags = append(flags, fmt.Sprintf("--seed %d --segment %s", v.Int("seed"), s))
		}
	}
	return PeerCommandLine(layout, database, command, flags...)
}

// JournalArgs implements family.Journaler: the records tpcc's steps had
// before the contract, so that their journals keep matching on resume.
func (Family) JournalArgs(command string, v family.Values) map[string]any {
	layout, _ := ParseLayout(v.String("layout"))
	switch command {
	case "prepare":
		return map[string]any{"warehouses": v.Int("warehouses"), "threads": v.Int("threads"), "parts": v.Int("parts"), "if_exists": v.String("if_exists"),
			"load_method": v.String("load_method"), "seed": v.Int("seed"), "layout": layout.String()}
	case "cleanup":
		return map[string]any{"layout": layout.String()}
	}
	weights := weightsOf(v)
	if weights == (Weights{}) {
		weights = DefaultWeights
	}
	a := map[string]any{"warehouses": v.Int("warehouses"), "threads": v.Int("threads"), "time": v.Duration("time").Seconds(), "count": v.Int("count"),
		"interval": v.Duration("interval").Seconds(), "weights": weights[:], "wait": v.Bool("wait"), "rate": v.Float("rate"), "seed": v.Int("seed"),
		"isolation": isolationOf(v)}
	if tags := v.Tags("tags"); len(tags) > 0 {
		a["tags"] = tags
	}
	if v.Bool("fixed_warehouse") { // only when set: journals written before it keep matching
		a["fixed_warehouse"] = true
	}
	if s := v.String("segment"); s != "" {
		a["segment"] = s
	}
	return a
}

// PrepareOptions implements family.Preparer: tpcc.prepare's keywords.
func (Family) PrepareOptions() []family.Option {
	return []family.Option{
		{Name: "warehouses", Kind: family.Int, Default: int64(10), Help: "warehouses to load"},
		{Name: "threads", Kind: family.Int, Default: int64(1), Role: family.Threads, Help: "warehouses loaded at once"},
		{Name: "parts", Kind: family.Int, Default: int64(1), Help: "HASH partitions by warehouse"},
		{Name: "if_exists", Kind: family.String, Default: IfExistsError, Help: "tables that exist: error, drop or reuse"},
		{Name: "load_method", Kind: family.String, Default: "auto", Help: "auto, insert or load-data"},
		{Name: "seed", Kind: family.Int, Default: int64(0), Role: family.Seed, Help: "the rows' seed (0: the step's)"},
		layoutOption(),
	}
}

// Validate implements family.Validator: prepare's bounds, as a call's
// error.
func (Family) Validate(command string, v family.Values) error {
	if command != "prepare" {
		return nil
	}
	layout, _ := ParseLayout(v.String("layout"))
	w, t, p := v.Int("warehouses"), v.Int("threads"), v.Int("parts")
	if layout == BenchmarkSQLLayout && p > 1 {
		return fmt.Errorf("parts: BenchmarkSQL's layout is not partitioned here")
	}
	if w < 1 || t < 1 || p < 1 || p > w {
		return fmt.Errorf("want warehouses >= 1, threads >= 1 and 1 <= parts <= warehouses (got %d, %d, %d)", w, t, p)
	}
	return nil
}

// Tables implements family.Preparer: the layout's.
func (Family) Tables(v family.Values) []string {
	layout, _ := ParseLayout(v.String("layout"))
	var out []string
	for _, t := range layout.Tables() {
		out = append(out, layout.Table(t))
	}
	return out
}

// Prepare implements family.Preparer.
func (Family) Prepare(ctx context.Context, conn bench.Connector, v family.Values, seed int64, out io.Writer) (*family.Prepared, error) {
	layout, _ := ParseLayout(v.String("layout"))
	res, err := Prepare(ctx, conn, LoadOptions{Warehouses: int(v.Int("warehouses")), Threads: int(v.Int("threads")), Parts: int(v.Int("parts")),
		IfExists: v.String("if_exists"), Method: v.String("load_method"), Seed: seed, Layout: layout}, out)
	if err != nil {
		return nil, err
	}
	return &family.Prepared{Schema: res.Schema, Tables: res.Tables, Reused: res.Reused, Rows: res.Rows, TotalRows: res.TotalRows,
		Seconds: res.Seconds, RowsPerS: res.RowsPerS, Fields: map[string]any{"load_time": res.LoadTime, "record": res.Record}}, nil
}

// PrepareDoc implements family.Preparer.
func (Family) PrepareDoc() string {
	return "Creates the nine tables in conn's current database and loads warehouses warehouses as the TPC-C specification " +
		"generates them (deterministic for the seed: the run's by default), threads warehouses at a time, with LOAD DATA " +
		"LOCAL INFILE where the server takes it and multi-row INSERTs where it refuses. Tables that exist are an error " +
		"naming them unless if_exists is \"drop\" or \"reuse\". parts HASH-partitions each table by warehouse. layout=\"benchmarksql\" " +
		"creates BenchmarkSQL's tables instead (bmsql_warehouse, ..., bmsql_oorder, its columns and indexes, and bmsql_config " +
		"with the warehouses and NURand constants), so BenchmarkSQL can run on them; go-tpc's layout keeps the load's constants, " +
		"seed and load time in starbench_tpcc_load, a table of starbench's own that go-tpc ignores, so that a run's C_LAST keeps " +
		"clause 2.1.6.1's distance from the load's. Returns a " +
		"struct: schema, tables, rows (by table), total_rows, seconds, rows_per_s, load_time, record (schema.table of the load's " +
		"record, \"\" when none was written)."
}

// CleanupOptions implements family.Cleaner.
func (Family) CleanupOptions() []family.Option { return []family.Option{layoutOption()} }

// Cleanup implements family.Cleaner.
func (Family) Cleanup(ctx context.Context, conn bench.Connector, v family.Values, out io.Writer) ([]string, error) {
	layout, _ := ParseLayout(v.String("layout"))
	return Cleanup(ctx, conn, layout, out)
}

// CleanupDoc implements family.Cleaner.
func (Family) CleanupDoc() string {
	return "Drops the nine tables and starbench_tpcc_load (BenchmarkSQL's ten with layout=\"benchmarksql\") from conn's current database, naming each as " +
		"schema.table; returns their names."
}

// Fields implements family.Fielder: tpmC, tpmTotal, efficiency, the
// transactions counted, and the kinds (count, errors, tpm and latencies
// in ms).
func (Family) Fields(s *results.Summary) map[string]any {
	kinds := map[string]any{}
	for _, k := range s.Kinds {
		l := k.Latency
		kinds[k.Name] = family.Record{"count": k.Events, "errors": k.Errors, "tpm": k.PerMinute, "avg": l.AvgMS, "p50": l.Percentiles["50"],
			"p90": l.Percentiles["90"], "p95": l.Percentiles["95"], "p99": l.Percentiles["99"], "max": l.MaxMS}
	}
	return map[string]any{"tpmC": s.Metrics["tpmC"], "tpmTotal": s.Metrics["tpmTotal"], "efficiency": s.Metrics["efficiency"],
		"transactions": s.Events, "kinds": kinds}
}
