package tpcc

import (
	"context"
	"database/sql/driver"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/runner/results"
)

// DefaultIgnoredErrors are the server errors a run counts and retries
// instead of stopping on: deadlocks and lock wait timeouts (MySQL,
// MariaDB), and TiDB's write conflicts and retryable errors.
var DefaultIgnoredErrors = []uint16{1205, 1213, 8002, 8022, 9007}

// RunOptions are how long and how hard a run drives the workload.
type RunOptions struct {
	Threads       int
	Time          time.Duration // 0: until Count
	Count         int64         // transactions in all, 0: until Time
	Interval      time.Duration // report interval; 0 means 10 s, as go-tpc's
	Seed          int64
	IgnoreErrors  []uint16 // nil means DefaultIgnoredErrors
	IgnoreAll     bool     // go-tpc's --ignore-error
	Rate          float64  // transactions a second in all (open loop); 0: closed
	Warmup        time.Duration
	ReconnectWait time.Duration // 0 means the engine's 30 s
	// Segment, when not the whole, runs that slice of the run: its share
	// of the threads (keeping their ids and streams), Count and Rate.
	Segment bench.Segment
}

// Step is the benchmark step of the workload run over conn, for
// bench.RunStep: its text is go-tpc's layout (see Printer), its summary
// carries the transactions by kind and tpmC, tpmTotal and efficiency.
func (wl *Workload) Step(conn bench.Connector, o RunOptions) bench.Step {
	interval := o.Interval
	if interval == 0 {
		interval = 10 * time.Second
	}
	ignore := o.IgnoreErrors
	if ignore == nil {
		ignore = DefaultIgnoredErrors
	}
	warehouses := wl.opts.Warehouses
	options := map[string]any{
		"warehouses": warehouses, "threads": o.Threads, "time": o.Time.Seconds(), "count": o.Count,
		"interval": interval.Seconds(), "weights": wl.opts.Weights[:], "wait": wl.opts.Wait, "rate": o.Rate,
		"isolation": wl.opts.Isolation, "layout": wl.opts.Layout.String(), "fixed_warehouse": wl.opts.FixedWarehouse,
	}
	return bench.Step{
		Run: func(ctx context.Context, r bench.StepRun) (*bench.Result, error) {
			w, sinks := r.Output, r.Sinks
			p := &Printer{W: w, Warehouses: warehouses}
			threads := fmt.Sprintf("%d threads", o.Threads)
			if !o.Segment.Whole() {
				threads = fmt.Sprintf("%d threads (segment %s of %d)", o.Segment.Threads(o.Threads), o.Segment, o.Threads)
			}
			fmt.Fprintf(w, "TPC-C: %d warehouses, %s, seed %d (starbench, Go workload engine; go-tpc v1.0.7's statements)\n",
				warehouses, threads, o.Seed)
			if err := wl.Begin(ctx, conn, o.Seed, w, options); err != nil {
				return nil, err
			}
			kinds := wl.Kinds()
			sinks = append([]bench.Sink{bench.SinkFunc(func(iv *bench.Interval) { p.Interval(iv, kinds) })}, sinks...)
			bo, err := o.Segment.Apply(bench.WithStages(bench.Options{
				Threads: o.Threads, Time: o.Time, Events: o.Count, Interval: interval, Seed: o.Seed,
				IgnoreErrors: ignore, IgnoreAllErrors: o.IgnoreAll, Rate: o.Rate, Warmup: o.Warmup,
				ReconnectTimeout: o.ReconnectWait, Start: r.Start,
			}, r.Profile))
			if err != nil {
				return nil, err
			}
			res, err := bench.Run(ctx, wl, conn, bo, sinks...)
			if res != nil {
				fmt.Fprintln(w, "Finished")
				p.Report(res)
			}
			return res, err
		},
		Workload: "tpcc", Threads: o.Segment.Threads(o.Threads), Total: o.Time.Seconds(), Percentile: 95, Seed: o.Seed,
		Segment: o.Segment.String(), OpenLoop: o.Rate > 0,
		Options:  options,
		Annotate: func(sum *results.Summary, res *bench.Result) { FiguresOf(res, warehouses).Annotate(sum) },
	}
}

// Begin readies a run of the workload on conn: it checks that the tables
// hold the warehouses (VerifyLoaded) and draws the run's C constants from
// the load's (where the tables keep them: bmsql_config, or LoadRecord)
// and the seed, printing them on w and keeping them in options
// (c_last_load, only when known, and c_last_run).
func (wl *Workload) Begin(ctx context.Context, conn bench.Connector, seed int64, w io.Writer, options map[string]any) error {
	lc, err := verifyLoaded(ctx, conn, wl.opts.Layout, wl.opts.Warehouses)
	if err != nil {
		return err
	}
	load := wl.opts.Constants
	if lc.Known {
		load = lc.Constants
	}
	run := RunConstants(load, uint64(seed))
	wl.run = &run
	options["c_last_run"] = run.CLast
	if !lc.Known {
		fmt.Fprintf(w, "C_LAST: the run's %d; the load's is not known (%s), so clause 2.1.6.1 (the run's differs from it by 65..119, not 96 or 112) is not kept\n",
			run.CLast, lc.From)
		return nil
	}
	options["c_last_load"] = load.CLast
	fmt.Fprintf(w, "C_LAST: the load's %d (from %s), the run's %d (clause 2.1.6.1: they differ by 65..119, not 96 or 112)\n",
		load.CLast, lc.From, run.CLast)
	return nil
}

// NotLoadedError says the tables a run or check needs are not there, or
// are not go-tpc's layout, or hold fewer warehouses than it was told of:
// bad input, not a failed run.
type NotLoadedError struct{ Reason string }

func (e *NotLoadedError) Error() string { return e.Reason }

// VerifyLoaded checks, before a run, that the nine tables are there in
// go-tpc's layout (their columns, in order) and hold the warehouses the
// run is told of: a run on missing tables, on another TPC-C tool's
// tables, or on fewer warehouses would only fail transaction after
// transaction. Its complaints are *NotLoadedError.
func VerifyLoaded(ctx context.Context, conn bench.Connector, layout Layout, warehouses int) error {
	_, err := verifyLoaded(ctx, conn, layout, warehouses)
	return err
}

// verifyLoaded is VerifyLoaded, returning the load's C constants as the
// tables keep them: BenchmarkSQL's bmsql_config (which must hold them),
// or starbench's LoadRecord beside go-tpc's (which may not).
func verifyLoaded(ctx context.Context, conn bench.Connector, layout Layout, warehouses int) (LoadConstants, error) {
	s, err := conn.Connect(ctx)
	if err != nil {
		return LoadConstants{}, fmt.Errorf("connect: %w", err)
	}
	defer s.Close()
	schema := bench.SchemaOf(conn)
	if err := verifyLayout(ctx, s, schema, layout); err != nil {
		return LoadConstants{}, err
	}
	row, err := queryInts(ctx, s, "SELECT COUNT(*), COALESCE(MAX(w_id), 0) FROM "+layout.Table(Warehouse))
	if err != nil {
		return LoadConstants{}, fmt.Errorf("count the warehouses: %w", err)
	}
	if count, maxID := row[0], row[1]; count < int64(warehouses) || maxID < int64(warehouses) {
		return LoadConstants{}, &NotLoadedError{fmt.Sprintf("the database holds %d warehouses (up to w_id %d), the run was told of %d: prepare %d, or run with %d (--warehouses %d on the command line, warehouses=%d in a plan)",
			count, maxID, warehouses, warehouses, count, count, count)}
	}
	if layout != BenchmarkSQLLayout {
		return readLoadRecord(ctx, s, schema)
	}
	c, err := benchmarkSQLConstants(ctx, s)
	if err != nil {
		return LoadConstants{}, err
	}
	return LoadConstants{Constants: c, Known: true, From: BenchmarkSQLConfig}, nil
}

// verifyLayout compares the columns of the nine tables in the session's
// database with go-tpc's layout.
func verifyLayout(ctx context.Context, s bench.Session, schema string, layout Layout) error {
	st, err := s.Prepare(ctx, "SELECT TABLE_NAME, COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME, ORDINAL_POSITION")
	if err != nil {
		return err
	}
	defer st.Close()
	rs, ok := st.(bench.RowStmt)
	if !ok {
		return ErrNoRowValues
	}
	have := map[string][]string{}
	if _, err := rs.QueryRows(ctx, func(cols []driver.Value) error {
		t, c := strings.ToLower(string(appendColText(nil, cols[0]))), strings.ToLower(string(appendColText(nil, cols[1])))
		have[t] = append(have[t], c)
		return nil
	}); err != nil {
		return fmt.Errorf("read the tables' columns: %w", err)
	}
	return compareLayout(have, schema, layout)
}

// compareLayout compares the columns of the tables in a database (lower
// case, in order) with the layout's nine tables.
func compareLayout(have map[string][]string, schema string, layout Layout) error {
	var missing []string
	for _, t := range Tables {
		name := layout.Table(t)
		got, ok := have[name]
		if !ok {
			missing = append(missing, bench.Qualified(schema, name))
			continue
		}
		if want := layout.Columns(t); !slices.Equal(got, want) {
			return &NotLoadedError{fmt.Sprintf("table %s is not %s's layout (columns %s, expected %s): it was loaded by another tool; use another database, or drop it and prepare",
				bench.Qualified(schema, name), layout, strings.Join(got, ", "), strings.Join(want, ", "))}
		}
	}
	if len(missing) > 0 {
		hint := "prepare them first"
		if _, ok := have[BenchmarkSQLLayout.Table(Warehouse)]; ok && layout == GoTPCLayout {
			hint = "the database holds BenchmarkSQL's bmsql_ tables: give --props (plans: layout=\"benchmarksql\")"
		} else if _, ok := have[Warehouse]; ok && layout == BenchmarkSQLLayout {
			hint = "the database holds go-tpc's tables: leave out --props (plans: layout=\"go-tpc\")"
		}
		return &NotLoadedError{fmt.Sprintf("the TPC-C tables are not there (%s): missing %s", hint, strings.Join(missing, ", "))}
	}
	return nil
}

// constantColumns select the C constants (C_LAST, C_ID, OL_I_ID) of a
// table of cfg_name and cfg_value rows, as BenchmarkSQL's loader writes
// bmsql_config and starbench's LoadRecord.
const constantColumns = "MAX(CASE cfg_name WHEN 'nURandCLast' THEN cfg_value END), " +
	"MAX(CASE cfg_name WHEN 'nURandCC_ID' THEN cfg_value END), MAX(CASE cfg_name WHEN 'nURandCI_ID' THEN cfg_value END)"

// benchmarkSQLConstants reads the load's C constants from bmsql_config,
// where BenchmarkSQL's loader (and starbench's) keeps them.
func benchmarkSQLConstants(ctx context.Context, s bench.Session) (Constants, error) {
	row, err := queryInts(ctx, s, "SELECT "+constantColumns+", "+
		"SUM(cfg_name IN ('nURandCLast', 'nURandCC_ID', 'nURandCI_ID')) FROM "+BenchmarkSQLConfig)
	if err != nil {
		return Constants{}, fmt.Errorf("read the load's C constants from %s: %w", BenchmarkSQLConfig, err)
	}
	if row[3] != 3 || row[0] < 0 || row[0] > 255 {
		return Constants{}, &NotLoadedError{fmt.Sprintf("%s does not hold the load's C constants (nURandCLast, nURandCC_ID, nURandCI_ID) as BenchmarkSQL's loader writes them: load the tables with BenchmarkSQL or starbench", BenchmarkSQLConfig)}
	}
	return Constants{CLast: int(row[0]), CID: int(row[1]), OLIID: int(row[2])}, nil
}

// queryInts runs a query of one row of integers: NULL (an aggregate over
// no rows, a key not found) reads as 0, which callers tell apart by a
// count beside it; any other value that is not an integer is an error, so
// that a stored constant never reads as 0 by accident.
func queryInts(ctx context.Context, s bench.Session, query string) ([]int64, error) {
	st, err := s.Prepare(ctx, query)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	rs, ok := st.(bench.RowStmt)
	if !ok {
		return nil, ErrNoRowValues
	}
	var row []int64
	_, err = rs.QueryRows(ctx, func(cols []driver.Value) error {
		row = make([]int64, len(cols))
		for i, c := range cols {
			if c == nil {
				continue
			}
			v, err := colInt(c)
			if err != nil {
				return fmt.Errorf("column %d holds %q, not a whole number: %w", i+1, valueString(c), err)
			}
			row[i] = v
		}
		return nil
	})
	if err == nil && row == nil {
		err = fmt.Errorf("%s: no row", query)
	}
	return row, err
}
