package tpch

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

// Family is TPC-H as a workload family: prepare, run (the query stream),
// part and cleanup, as every family has them.
type Family struct{}

var (
	_ family.Family   = Family{}
	_ family.Preparer = Family{}
	_ family.Cleaner  = Family{}
	_ family.Fielder  = Family{}
)

// Name implements family.Family.
func (Family) Name() string { return "tpch" }

// Summary implements family.Family.
func (Family) Summary() string {
	return "TPC-H as go-tpc v1.0.7 runs it: its eight tables, loaded with dbgen's rows (the same rows as go-tpc's for a scale " +
		"factor: starbench's generator follows dbgen's random streams, distributions and text pool), and its 22 queries as it " +
		"sends them, each query an event with a latency histogram of its own."
}

// allQueries is go-tpc's default --queries.
var allQueries = strings.Join(QueryNames, ",")

func scaleFactor() family.Option {
	return family.Option{Name: "sf", Kind: family.Int, Default: int64(1), Help: "the scale factor (1 is about 1 GB)", Check: family.AtLeast(1)}
}

// RunOptions implements family.Family.
func (Family) RunOptions() []family.Option {
	return []family.Option{
		scaleFactor(),
		{Name: "queries", Kind: family.String, Default: allQueries, Help: "the queries, in order (q1,...,q22)"},
		{Name: "threads", Kind: family.Int, Default: int64(1), Role: family.Threads, Help: "client threads", Check: family.AtLeast(1)},
		{Name: "time", Kind: family.Duration, Default: time.Duration(0), Role: family.Time, Help: "how long (0: until count)"},
		{Name: "count", Kind: family.Int, Default: int64(0), Role: family.Events, Help: "queries in all (0 with no time: one round of the list)",
			Check: family.AtLeast(0)},
		{Name: "interval", Kind: family.Duration, Default: 10 * time.Second, Role: family.Interval, Help: "the report interval"},
		{Name: "use_explain", Kind: family.Bool, Default: false, Help: "run each query under EXPLAIN ANALYZE"},
		{Name: "check", Kind: family.Bool, Default: false, Help: "compare each answer with TPC-H's (sf=1 only): a wrong answer fails the step"},
		{Name: "seed", Kind: family.Int, Default: int64(0), Role: family.Seed, Help: "the run's seed (0: the step's)"},
		{Name: "tags", Kind: family.Tags, Default: map[string]string{}, Role: family.TagsRole, Help: "kept with the step"},
		{Name: "segment", Kind: family.String, Default: "", Role: family.Segment, Help: "i/n: the i-th of n slices of the load (with seed)"},
	}
}

// RunDoc implements family.Family.
func (Family) RunDoc() string {
	return "Runs the queries (go-tpc's --queries, all 22 by default) with threads connections, thread i starting at the i-th " +
		"query and going round the list, until count queries (with neither count nor time: one round of the list) or time, " +
		"printing go-tpc's [Current] and [Summary] lines, and writes steps/<id>-tpch-t<threads>/. use_explain runs them under " +
		"EXPLAIN ANALYZE. check (sf=1 only) compares every answer with TPC-H's by the specification's precisions (clause " +
		"2.1.3.5: exact, SUMs within 100, AVGs and ratios within 1%): a wrong answer fails the step naming the query, row " +
		"and column. segment=\"i/n\" (with seed=, the same for every segment) runs the i-th of n slices of the threads and count. Returns a struct: every run builtin's fields and queries (by query: count, errors, avg_s, latency), " +
		"geomean_s (the geometric mean of the queries' mean latencies), power (3600 × sf / geomean_s: the queries' part of " +
		"TPC-H's Power@Size, without its refresh functions), qph (queries an hour) and answers_checked."
}

// Meta implements family.Family.
func (Family) Meta(family.Values) results.Meta {
	return results.Meta{Name: "tpch", Version: "go-tpc-1.0.7/gen" + StatementGeneration}
}

// configured is a configured run.
type configured struct{ o RunOptions }

// Run implements family.Family.
func (Family) Run(v family.Values) (family.Run, error) {
	queries, err := ParseQueries(v.String("queries"))
	if err != nil {
		return nil, err
	}
	seg, err := v.Segment("segment")
	if err != nil {
		return nil, err
	}
	o := RunOptions{Segment: seg, ScaleFactor: v.Int("sf"), Queries: queries, Explain: v.Bool("use_explain"), Check: v.Bool("check"),
		Threads: int(v.Int("threads")), Time: v.Duration("time"), Count: v.Int("count"), Interval: v.Duration("interval")}
	if err := o.checkable(); err != nil {
		return nil, err
	}
	if o.Time == 0 && o.Count == 0 {
		o.Count = int64(len(queries))
	}
	return &configured{o: o}, nil
}

// Label implements family.Run.
func (r *configured) Label() string { return fmt.Sprintf("tpch-t%d", r.o.Threads) }

// Planned implements family.Run.
func (r *configured) Planned() family.Plan {
	return family.Plan{Threads: r.o.Threads, Time: r.o.Time, Interval: r.o.Interval}
}

// Kinds implements family.Run: the queries.
func (r *configured) Kinds() []string { return append([]string(nil), r.o.Queries...) }

// Step implements family.Run.
func (r *configured) Step(conn bench.Connector, seed int64) (bench.Step, error) {
	o := r.o
	o.Seed = seed
	return Step(conn, o)
}

// CommandLine implements family.Family: go-tpc's.
func (Family) CommandLine(command string, v family.Values, database string) string {
	parts := []string{"go-tpc tpch", command}
	if database != "" {
		parts = append(parts, "-D "+database)
	}
	parts = append(parts, fmt.Sprintf("--sf %d", v.Int("sf")))
	switch command {
	case "prepare":
		parts = append(parts, fmt.Sprintf("-T %d", v.Int("threads")))
	case "run":
		if q := v.String("queries"); q != allQueries {
			parts = append(parts, "--queries "+q)
		}
		parts = append(parts, fmt.Sprintf("-T %d", v.Int("threads")))
		if d := v.Duration("time"); d > 0 {
			parts = append(parts, "--time "+d.String())
		}
		if n := v.Int("count"); n > 0 {
			parts = append(parts, fmt.Sprintf("--count %d", n))
		}
		if v.Bool("use_explain") {
			parts = append(parts, "--use-explain")
		}
		if v.Bool("check") {
			parts = append(parts, "--check")
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
		scaleFactor(),
		{Name: "threads", Kind: family.Int, Default: int64(1), Role: family.Threads, Help: "table slices loaded at once", Check: family.AtLeast(1)},
		{Name: "if_exists", Kind: family.String, Default: IfExistsError, Help: "tables that exist: error, drop or reuse"},
		{Name: "load_method", Kind: family.String, Default: "auto", Help: "auto, insert or load-data"},
	}
}

// Tables implements family.Preparer.
func (Family) Tables(family.Values) []string { return append([]string(nil), TableNames...) }

// Prepare implements family.Preparer.
func (Family) Prepare(ctx context.Context, conn bench.Connector, v family.Values, _ int64, out io.Writer) (*family.Prepared, error) {
	method := v.String("load_method")
	if method == "auto" {
		method = ""
	}
	return Prepare(ctx, conn, PrepareOptions{ScaleFactor: v.Int("sf"), Threads: int(v.Int("threads")), IfExists: v.String("if_exists"),
		Method: method}, out)
}

// PrepareDoc implements family.Preparer.
func (Family) PrepareDoc() string {
	return "Creates the eight tables (go-tpc's) in conn's current database and loads them with dbgen's rows for scale factor " +
		"sf (the same rows go-tpc loads), each table in slices of 100,000 rows (orders' for lineitem, parts' for partsupp) spread " +
		"over threads connections, with LOAD DATA LOCAL INFILE where the server takes it and INSERTs where it refuses. Tables that " +
		"exist are an error naming them unless if_exists is \"drop\" or \"reuse\". The text comments are cut from dbgen's 300 MB " +
		"text pool, made once per process (a few seconds). Returns a struct: schema, tables, reused, rows (by table), total_rows, " +
		"seconds, rows_per_s."
}

// CleanupOptions implements family.Cleaner.
func (Family) CleanupOptions() []family.Option { return nil }

// Cleanup implements family.Cleaner.
func (Family) Cleanup(ctx context.Context, conn bench.Connector, _ family.Values, out io.Writer) ([]string, error) {
	return Cleanup(ctx, conn, out)
}

// CleanupDoc implements family.Cleaner.
func (Family) CleanupDoc() string {
	return "Drops the eight tables that exist in conn's current database, naming each as schema.table; returns their names."
}

// Fields implements family.Fielder: each query's figures and the run's.
func (Family) Fields(s *results.Summary) map[string]any {
	queries := map[string]any{}
	for _, k := range s.Kinds {
		queries[k.Name] = family.Record{"count": k.Events, "errors": k.Errors, "avg_s": k.Latency.AvgMS / 1000, "latency": k.Latency}
	}
	return map[string]any{"queries": queries, "geomean_s": s.Metrics[MetricGeomean], "power": s.Metrics[MetricPower], "qph": s.Metrics[MetricQPH],
		"answers_checked": int64(s.Metrics[MetricChecked])}
}
