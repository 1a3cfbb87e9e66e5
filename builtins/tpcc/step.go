package tpcc

import (
	"context"
	"database/sql/driver"
	"fmt"
	"io"
	"time"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/internal/results"
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
	return bench.Step{
		Run: func(ctx context.Context, w io.Writer, sinks []bench.Sink) (*bench.Result, error) {
			p := &Printer{W: w, Warehouses: warehouses}
			fmt.Fprintf(w, "TPC-C: %d warehouses, %d threads, seed %d (starbench, Go workload engine; go-tpc v1.0.7's statements)\n",
				warehouses, o.Threads, o.Seed)
			if err := verifyLoaded(ctx, conn, warehouses); err != nil {
				return nil, err
			}
			kinds := wl.Kinds()
			sinks = append([]bench.Sink{bench.SinkFunc(func(iv *bench.Interval) { p.Interval(iv, kinds) })}, sinks...)
			res, err := bench.Run(ctx, wl, conn, bench.Options{
				Threads: o.Threads, Time: o.Time, Events: o.Count, Interval: interval, Seed: o.Seed,
				IgnoreErrors: ignore, IgnoreAllErrors: o.IgnoreAll, Rate: o.Rate, Warmup: o.Warmup,
				ReconnectTimeout: o.ReconnectWait,
			}, sinks...)
			if res != nil {
				fmt.Fprintln(w, "Finished")
				p.Report(res)
			}
			return res, err
		},
		Workload: "tpcc", Threads: o.Threads, Total: o.Time.Seconds(), Percentile: 95, Seed: o.Seed,
		Options: map[string]any{
			"warehouses": warehouses, "threads": o.Threads, "time": o.Time.Seconds(), "count": o.Count,
			"interval": interval.Seconds(), "weights": wl.opts.Weights[:], "wait": wl.opts.Wait, "rate": o.Rate,
		},
		Annotate: func(sum *results.Summary, res *bench.Result) { FiguresOf(res, warehouses).Annotate(sum) },
	}
}

// verifyLoaded checks, before a run, that the tables hold the warehouses
// the run is told of: a run on missing tables, or on fewer warehouses,
// would only fail transaction after transaction.
func verifyLoaded(ctx context.Context, conn bench.Connector, warehouses int) error {
	s, err := conn.Connect(ctx)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer s.Close()
	st, err := s.Prepare(ctx, "SELECT COUNT(*), COALESCE(MAX(w_id), 0) FROM "+Warehouse)
	if err != nil {
		return fmt.Errorf("the TPC-C tables are not there (prepare them first): %w", err)
	}
	defer st.Close()
	rs, ok := st.(bench.RowStmt)
	if !ok {
		return ErrNoRowValues
	}
	var count, maxID int64
	_, err = rs.QueryRows(ctx, func(cols []driver.Value) error {
		count, _ = colInt(cols[0])
		maxID, _ = colInt(cols[1])
		return nil
	})
	switch {
	case err != nil:
		return fmt.Errorf("count the warehouses: %w", err)
	case count < int64(warehouses) || maxID < int64(warehouses):
		return fmt.Errorf("the database holds %d warehouses (up to w_id %d), the run was told of %d: prepare %d, or run with warehouses=%d",
			count, maxID, warehouses, warehouses, count)
	}
	return nil
}
