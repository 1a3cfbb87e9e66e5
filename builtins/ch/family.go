package ch

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/family"
	"github.com/starbench/starbench/builtins/tpcc"
	"github.com/starbench/starbench/builtins/tpch"
	"github.com/starbench/starbench/runner/results"
)

// Family is CH-benCHmark as a workload family: prepare (the tables it
// adds to TPC-C's), run (both loads at once), part and cleanup.
type Family struct{}

var (
	_ family.Family   = Family{}
	_ family.Preparer = Family{}
	_ family.Cleaner  = Family{}
	_ family.Fielder  = Family{}
)

// Name implements family.Family.
func (Family) Name() string { return "ch" }

// Summary implements family.Family.
func (Family) Summary() string {
	return "CH-benCHmark as go-tpc v1.0.7 runs it: TPC-C's transactions (tpcc's) and 22 analytical queries (TPC-H's, " +
		"rewritten for TPC-C's tables and TPC-H's nation, region and supplier) at once, as one step: threads run the " +
		"transactions, ap_threads the queries, and the step's result holds both (tpmC and each transaction's latency, " +
		"QphH and each query's)."
}

// allQueries is go-tpc's default --queries.
var allQueries = strings.Join(tpch.QueryNames, ",")

// RunOptions implements family.Family.
func (Family) RunOptions() []family.Option {
	return []family.Option{
		{Name: "warehouses", Kind: family.Int, Default: int64(10), Help: "warehouses loaded", Check: family.AtLeast(1)},
		{Name: "threads", Kind: family.Int, Default: int64(1), Role: family.Threads, Help: "transactional threads (go-tpc's -T)", Check: family.AtLeast(0)},
		{Name: "ap_threads", Kind: family.Int, Default: int64(1), Help: "analytical threads (go-tpc's -t)", Check: family.AtLeast(0)},
		{Name: "queries", Kind: family.String, Default: allQueries, Help: "the queries, in order (q1,...,q22)"},
		{Name: "time", Kind: family.Duration, Default: 60 * time.Second, Role: family.Time, Help: "how long (0: until count)"},
		{Name: "count", Kind: family.Int, Default: int64(0), Role: family.Events, Help: "transactions and queries in all (0: until time)",
			Check: family.AtLeast(0)},
		{Name: "interval", Kind: family.Duration, Default: 10 * time.Second, Role: family.Interval, Help: "the report interval"},
		{Name: "isolation", Kind: family.String, Default: "", Help: "set before each transaction"},
		{Name: "ignore_errors", Kind: family.Value, Help: "None (the defaults), \"all\" or MySQL error codes"},
		{Name: "seed", Kind: family.Int, Default: int64(0), Role: family.Seed, Help: "the run's seed (0: the step's)"},
		{Name: "tags", Kind: family.Tags, Default: map[string]string{}, Role: family.TagsRole, Help: "kept with the step"},
		{Name: "segment", Kind: family.String, Default: "", Role: family.Segment, Help: "i/n: the i-th of n slices of the load (with seed)"},
	}
}

// RunDoc implements family.Family.
func (Family) RunDoc() string {
	return "Runs TPC-C's five transactions on threads connections and the queries (go-tpc's --queries, all 22 by default) on " +
		"ap_threads others at once, for time (or count events of both kinds), on the TPC-C tables of warehouses warehouses and " +
		"the tables ch.prepare adds; analytical thread i starts at the i-th query and goes round the list. Prints go-tpc's " +
		"lines (the transactions' as tpcc's, each query's count and mean, QphH) and writes steps/<id>-ch-t<threads>-a<ap_threads>/, " +
		"whose kinds are the five transactions then the queries. ignore_errors and isolation are tpcc.run's; segment=\"i/n\" " +
		"(with seed=) runs the i-th of n slices of all the threads, the transactional ones first. Returns a struct: every run " +
		"builtin's fields and tpmC, tpmTotal, efficiency, transactions, kinds (by transaction, as tpcc.run's), queries (by " +
		"query: count, errors, avg_s, latency), QphH and geomean_s (the geometric mean of the queries' mean latencies)."
}

// Meta implements family.Family.
func (Family) Meta(family.Values) results.Meta {
	tp, _ := tpcc.NewWorkload(tpcc.WorkloadOptions{Warehouses: 1})
	return (&Workload{tp: tp}).Meta()
}

// configured is a configured run.
type configured struct{ o RunOptions }

// Run implements family.Family.
func (Family) Run(v family.Values) (family.Run, error) {
	queries, err := tpch.ParseQueries(v.String("queries"))
	if err != nil {
		return nil, err
	}
	seg, err := v.Segment("segment")
	if err != nil {
		return nil, err
	}
	ignored, _ := v["ignore_errors"].(tpcc.IgnoredErrors)
	o := RunOptions{Warehouses: int(v.Int("warehouses")), TPThreads: int(v.Int("threads")), APThreads: int(v.Int("ap_threads")),
		Queries: queries, Time: v.Duration("time"), Count: v.Int("count"), Interval: v.Duration("interval"),
		Isolation: v.String("isolation"), IgnoreErrors: ignored.Codes, IgnoreAll: ignored.All, Segment: seg}
	if _, err := Step(nil, o); err != nil { // the options' bounds, where the call is written
		return nil, err
	}
	return &configured{o: o}, nil
}

// Label implements family.Run.
func (r *configured) Label() string { return fmt.Sprintf("ch-t%d-a%d", r.o.TPThreads, r.o.APThreads) }

// Planned implements family.Run.
func (r *configured) Planned() family.Plan {
	return family.Plan{Threads: r.o.Threads(), Time: r.o.Time, Interval: r.o.Interval}
}

// Kinds implements family.Run: the transactions, then the queries.
func (r *configured) Kinds() []string {
	tp, _ := tpcc.NewWorkload(tpcc.WorkloadOptions{Warehouses: 1})
	return append(tp.Kinds(), r.o.Queries...)
}

// Step implements family.Run.
func (r *configured) Step(conn bench.Connector, seed int64) (bench.Step, error) {
	o := r.o
	o.Seed = seed
	return Step(conn, o)
}

// CommandLine implements family.Family: go-tpc's.
func (Family) CommandLine(command string, v family.Values, database string) string {
	parts := []string{"go-tpc ch"}
	if database != "" {
		parts = append(parts, "-D "+database)
	}
	if command == "run" {
		parts = append(parts, fmt.Sprintf("--warehouses %d -T %d -t %d", v.Int("warehouses"), v.Int("threads"), v.Int("ap_threads")))
		if q := v.String("queries"); q != allQueries {
			parts = append(parts, "--queries "+q)
		}
		if d := v.Duration("time"); d > 0 {
			parts = append(parts, "--time "+d.String())
		}
		if n := v.Int("count"); n > 0 {
			parts = append(parts, fmt.Sprintf("--count %d", n))
		}
		if s := v.String("segment"); s != "" {
			parts = append(parts, fmt.Sprintf("--seed %d --segment %s", v.Int("seed"), s))
		}
	}
	return strings.Join(append(parts, command), " ")
}

// PrepareOptions implements family.Preparer.
func (Family) PrepareOptions() []family.Option {
	return []family.Option{
		{Name: "if_exists", Kind: family.String, Default: tpch.IfExistsError, Help: "tables that exist: error, drop or reuse"},
		{Name: "load_method", Kind: family.String, Default: "auto", Help: "auto, insert or load-data"},
	}
}

// Tables implements family.Preparer.
func (Family) Tables(family.Values) []string { return append(append([]string(nil), Tables...), View) }

// Prepare implements family.Preparer.
func (Family) Prepare(ctx context.Context, conn bench.Connector, v family.Values, _ int64, out io.Writer) (*family.Prepared, error) {
	method := v.String("load_method")
	if method == "auto" {
		method = ""
	}
	return Prepare(ctx, conn, PrepareOptions{IfExists: v.String("if_exists"), Method: method}, out)
}

// PrepareDoc implements family.Preparer.
func (Family) PrepareDoc() string {
	return "Adds CH-benCHmark's tables to the TPC-C tables in conn's current database, as go-tpc's ch prepare does (load " +
		"TPC-C's first: tpcc.prepare): nation, region and supplier, made as TPC-H's and filled with dbgen's rows at scale " +
		"factor 1 (25, 5 and 10,000), then the view revenue1 that Q15 reads. Tables or a view that exist are an error naming " +
		"them unless if_exists is \"drop\" or \"reuse\". Returns a struct: schema, tables, reused, rows (by table), total_rows, " +
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
	return "Drops what ch.prepare made that is in conn's current database (the view revenue1, then nation, region and " +
		"supplier), naming each as schema.table; TPC-C's tables are tpcc.cleanup's. Returns their names."
}

// Fields implements family.Fielder: tpcc's fields for the transactions,
// the queries' and QphH.
func (Family) Fields(s *results.Summary) map[string]any {
	fields := tpcc.Family{}.Fields(s)
	kinds, queries := map[string]any{}, map[string]any{}
	tp, _ := tpcc.NewWorkload(tpcc.WorkloadOptions{Warehouses: 1})
	transactions := int64(0)
	for _, k := range s.Kinds {
		if isTransaction(tp, k.Name) {
			kinds[k.Name] = fields["kinds"].(map[string]any)[k.Name]
			transactions += k.Events
			continue
		}
		queries[k.Name] = family.Record{"count": k.Events, "errors": k.Errors, "avg_s": k.Latency.AvgMS / 1000, "latency": k.Latency}
	}
	fields["kinds"], fields["queries"], fields["transactions"] = kinds, queries, transactions
	fields[MetricQPH], fields["geomean_s"] = s.Metrics[MetricQPH], s.Metrics[tpch.MetricGeomean]
	return fields
}

func isTransaction(tp *tpcc.Workload, kind string) bool {
	for _, k := range tp.Kinds() {
		if k == kind {
			return true
		}
	}
	return false
}
