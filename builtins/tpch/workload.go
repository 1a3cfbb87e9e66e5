package tpch

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/runner/results"
)

// StatementGeneration versions the queries' statements.
const StatementGeneration = "1"

// Workload is a stream of TPC-H queries as go-tpc runs it: each event one
// query, thread i starting at the i-th of the list and going round it;
// the queries are its kinds, so each has its own latency histogram.
type Workload struct {
	queries []string
	stmts   [][]string
}

// NewWorkload makes the stream of queries (names from ParseQueries), each
// EXPLAIN ANALYZE'd when explain is set.
func NewWorkload(queries []string, explain bool) (*Workload, error) {
	if len(queries) == 0 {
		return nil, fmt.Errorf("no query to run")
	}
	wl := &Workload{queries: queries}
	for _, q := range queries {
		s, err := Statements(q, explain)
		if err != nil {
			return nil, err
		}
		wl.stmts = append(wl.stmts, s)
	}
	return wl, nil
}

// Meta implements bench.Workload.
func (wl *Workload) Meta() results.Meta {
	return results.Meta{Name: "tpch", Version: "go-tpc-1.0.7/gen" + StatementGeneration}
}

// Kinds implements bench.Kinded: the queries, in the list's order.
func (wl *Workload) Kinds() []string { return append([]string(nil), wl.queries...) }

// NewWorker implements bench.Workload.
func (wl *Workload) NewWorker(id int, _ uint64) (bench.Worker, error) {
	return &queryWorker{wl: wl, next: id % len(wl.queries)}, nil
}

type queryWorker struct {
	wl   *Workload
	next int
	kind int
}

// Prepare implements bench.Worker: the queries are sent as text.
func (w *queryWorker) Prepare(context.Context, bench.Session) error { return nil }

// Event implements bench.Worker: the next query of the list, its result
// read to the end.
func (w *queryWorker) Event(ctx context.Context, s bench.Session) error {
	w.kind = w.next % len(w.wl.queries)
	w.next++
	for _, stmt := range w.wl.stmts[w.kind] {
		var err error
		if isDDL(stmt) {
			_, err = s.Exec(ctx, stmt)
		} else {
			_, err = s.Query(ctx, stmt)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", w.wl.queries[w.kind], err)
		}
	}
	return nil
}

// Kind implements bench.KindReporter.
func (w *queryWorker) Kind() int { return w.kind }

// isDDL says whether a statement makes or drops Q15's view.
func isDDL(stmt string) bool {
	s := strings.ToLower(strings.TrimSpace(stmt))
	return strings.HasPrefix(s, "create ") || strings.HasPrefix(s, "drop ")
}

// RunOptions control a run of the queries.
type RunOptions struct {
	ScaleFactor int64
	Queries     []string
	Explain     bool
	Threads     int
	Time        time.Duration // 0: until Count queries
	Count       int64         // 0: until Time
	Interval    time.Duration
	Seed        int64
}

// Figures a run adds to its summary's metrics.
const (
	MetricGeomean = "geomean_s" // the geometric mean of the queries' mean latencies, seconds
	MetricPower   = "power"     // 3600 × SF / MetricGeomean (the queries' part of TPC-H's Power@Size)
	MetricQPH     = "qph"       // queries an hour
)

// Step is the run's benchmark step on conn.
func Step(conn bench.Connector, o RunOptions) (bench.Step, error) {
	wl, err := NewWorkload(o.Queries, o.Explain)
	if err != nil {
		return bench.Step{}, err
	}
	options := map[string]any{"sf": o.ScaleFactor, "queries": strings.Join(o.Queries, ","), "use_explain": o.Explain,
		"threads": o.Threads, "time": o.Time.Seconds(), "count": o.Count, "interval": o.Interval.Seconds()}
	return bench.Step{
		Run: func(ctx context.Context, sr bench.StepRun) (*bench.Result, error) {
			fmt.Fprintf(sr.Output, "TPC-H: scale factor %d, %d threads, queries %s (starbench, Go workload engine; go-tpc v1.0.7's queries)\n",
				o.ScaleFactor, o.Threads, strings.Join(o.Queries, ","))
			bo := bench.WithStages(bench.Options{Threads: o.Threads, Time: o.Time, Events: o.Count, Interval: o.Interval, Seed: o.Seed,
				Start: sr.Start}, sr.Profile)
			sinks := append([]bench.Sink{bench.SinkFunc(func(iv *bench.Interval) { printInterval(sr.Output, iv, wl.queries) })}, sr.Sinks...)
			res, err := bench.Run(ctx, wl, conn, bo, sinks...)
			if res != nil {
				fmt.Fprintln(sr.Output, "Finished")
				printSummary(sr.Output, res)
			}
			return res, err
		},
		Workload: "tpch", Threads: o.Threads, Total: o.Time.Seconds(), Percentile: 95, Seed: o.Seed, Options: options,
		Annotate: func(sum *results.Summary, _ *bench.Result) { annotate(sum, o.ScaleFactor) },
	}, nil
}

// printInterval writes an interval's queries as go-tpc's [Current] lines:
// each query that ended in it, its count and mean latency.
func printInterval(w io.Writer, iv *bench.Interval, queries []string) {
	for k, ki := range iv.Kinds {
		if ki.Events == 0 || k >= len(queries) {
			continue
		}
		fmt.Fprintf(w, "[Current] %s: %.2fs (%d)\n", strings.ToUpper(queries[k]), ki.Latency.Mean()/1e6, ki.Events)
	}
}

// printSummary writes each query's mean latency, as go-tpc's [Summary]
// lines do.
func printSummary(w io.Writer, res *bench.Result) {
	for _, k := range res.Kinds {
		if k.Events > 0 {
			fmt.Fprintf(w, "[Summary] %s: %.2fs\n", strings.ToUpper(k.Name), k.Latency.Mean()/1e6)
		}
	}
}

// annotate adds the run's figures: the geometric mean of the queries'
// mean latencies (of those that ran), the power it gives at the scale
// factor, and queries an hour.
func annotate(sum *results.Summary, sf int64) {
	if sum.Metrics == nil {
		sum.Metrics = map[string]float64{}
	}
	logs, n := 0.0, 0
	for _, k := range sum.Kinds {
		if k.Events > 0 && k.Latency.AvgMS > 0 {
			logs += math.Log(k.Latency.AvgMS / 1000)
			n++
		}
	}
	if n > 0 {
		g := math.Exp(logs / float64(n))
		sum.Metrics[MetricGeomean] = g
		sum.Metrics[MetricPower] = 3600 * float64(sf) / g
	}
	if sum.Seconds > 0 {
		sum.Metrics[MetricQPH] = float64(sum.Events) / sum.Seconds * 3600
	}
}
