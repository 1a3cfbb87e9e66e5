package ch

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/tpcc"
	"github.com/starbench/starbench/builtins/tpch"
	"github.com/starbench/starbench/runner/results"
)

// StatementGeneration versions the queries' statements (the transactions'
// are tpcc's).
const StatementGeneration = "1"

// Workload is CH-benCHmark's load: threads 0 ... TPThreads-1 run TPC-C's
// transactions, the others the query stream (analytical thread i, from
// 0, starting at the i-th query, as go-tpc's). Its kinds are TPC-C's five
// transactions, then the queries.
type Workload struct {
	tp        *tpcc.Workload
	ap        *tpch.Workload
	tpThreads int
	tpKinds   int
}

// NewWorkload makes the load of tp's transactions on tpThreads threads
// and the queries (names of q1 ... q22) on the others.
func NewWorkload(tp *tpcc.Workload, tpThreads int, queries []string) (*Workload, error) {
	ap, err := tpch.NewWorkloadOf(queryTexts(), queries)
	if err != nil {
		return nil, err
	}
	return &Workload{tp: tp, ap: ap, tpThreads: tpThreads, tpKinds: len(tp.Kinds())}, nil
}

// Meta implements bench.Workload: the statements are tpcc's and CH's.
func (wl *Workload) Meta() results.Meta {
	return results.Meta{Name: "ch", Version: wl.tp.Meta().Version + "+ch" + StatementGeneration}
}

// Kinds implements bench.Kinded.
func (wl *Workload) Kinds() []string { return append(wl.tp.Kinds(), wl.ap.Kinds()...) }

// NewWorker implements bench.Workload.
func (wl *Workload) NewWorker(id int, seed uint64) (bench.Worker, error) {
	if id < wl.tpThreads {
		return wl.tp.NewWorker(id, seed)
	}
	w, err := wl.ap.NewWorker(id-wl.tpThreads, seed)
	if err != nil {
		return nil, err
	}
	return &queryWorker{Worker: w, offset: wl.tpKinds}, nil
}

// queryWorker is a query stream's worker, its kinds after TPC-C's.
type queryWorker struct {
	bench.Worker
	offset int
}

// Kind implements bench.KindReporter.
func (w *queryWorker) Kind() int { return w.offset + w.Worker.(bench.KindReporter).Kind() }

// RunOptions are a run's load.
type RunOptions struct {
	Warehouses   int
	TPThreads    int // -T: TPC-C's transactions
	APThreads    int // -t: the queries
	Queries      []string
	Time         time.Duration // 0: until Count
	Count        int64         // events (transactions and queries) in all; 0: until Time
	Interval     time.Duration
	Seed         int64
	Isolation    string // set before each transaction ("": the server's)
	IgnoreErrors []uint16
	IgnoreAll    bool
	Segment      bench.Segment
}

// Threads are the run's threads in all.
func (o RunOptions) Threads() int { return o.TPThreads + o.APThreads }

// Figures a run adds to its summary's metrics, beside tpcc's (tpmC,
// tpmTotal, efficiency of the transactions) and the queries' geomean_s.
const (
	MetricQPH = "QphH" // queries an hour, as go-tpc's ch prints it
)

func init() {
	results.DeclareMetric(results.MetricSpec{Name: MetricQPH, Headline: true, HigherIsBetter: true, Additive: true, Unit: "/h",
		Help: "CH-benCHmark's analytical queries an hour"})
}

// Step is a run's benchmark step on conn. Its summary holds both loads:
// the transactions' and the queries' kinds, tpmC and QphH.
func Step(conn bench.Connector, o RunOptions) (bench.Step, error) {
	switch {
	case o.TPThreads < 0 || o.APThreads < 0 || o.Threads() == 0:
		return bench.Step{}, fmt.Errorf("want transactional and analytical threads (-T and -t) >= 0, not both 0 (got %d and %d)", o.TPThreads, o.APThreads)
	case o.Time == 0 && o.Count == 0:
		return bench.Step{}, fmt.Errorf("give a time or a count (both are 0: the run would never end)")
	}
	tp, err := tpcc.NewWorkload(tpcc.WorkloadOptions{Warehouses: o.Warehouses, Isolation: o.Isolation,
		Constants: tpcc.NewConstants(uint64(o.Seed))})
	if err != nil {
		return bench.Step{}, err
	}
	wl, err := NewWorkload(tp, o.TPThreads, o.Queries)
	if err != nil {
		return bench.Step{}, err
	}
	interval := o.Interval
	if interval == 0 {
		interval = 10 * time.Second
	}
	ignore := o.IgnoreErrors
	if ignore == nil {
		ignore = tpcc.DefaultIgnoredErrors
	}
	options := map[string]any{"warehouses": o.Warehouses, "threads": o.TPThreads, "ap_threads": o.APThreads,
		"queries": strings.Join(o.Queries, ","), "time": o.Time.Seconds(), "count": o.Count, "interval": interval.Seconds(),
		"isolation": o.Isolation}
	return bench.Step{
		Run: func(ctx context.Context, sr bench.StepRun) (*bench.Result, error) {
			if len(sr.Profile.Stages) > 0 {
				return nil, bench.BadInput(fmt.Errorf("ch: stages, rate_stages and phases are not taken: a profile of threads would not say which are transactional and which analytical; run a step per load"))
			}
			w := sr.Output
			threads := fmt.Sprintf("%d transactional and %d analytical threads", o.TPThreads, o.APThreads)
			if !o.Segment.Whole() {
				threads += fmt.Sprintf(" (segment %s: %d of them)", o.Segment, o.Segment.Threads(o.Threads()))
			}
			fmt.Fprintf(w, "CH-benCHmark: %d warehouses, %s, queries %s, seed %d (starbench, Go workload engine; go-tpc v1.0.7's statements)\n",
				o.Warehouses, threads, strings.Join(o.Queries, ","), o.Seed)
			if err := tp.Begin(ctx, conn, o.Seed, w, options); err != nil {
				return nil, err
			}
			p := &printer{w: w, tp: &tpcc.Printer{W: w, Warehouses: o.Warehouses}, tpKinds: wl.tpKinds, kinds: wl.Kinds()}
			sinks := append([]bench.Sink{bench.SinkFunc(p.interval)}, sr.Sinks...)
			bo, err := o.Segment.Apply(bench.WithStages(bench.Options{Threads: o.Threads(), Time: o.Time, Events: o.Count,
				Interval: interval, Seed: o.Seed, IgnoreErrors: ignore, IgnoreAllErrors: o.IgnoreAll, Start: sr.Start,
				LongWaits: o.APThreads > 0}, sr.Profile))
			if err != nil {
				return nil, err
			}
			res, err := bench.Run(ctx, wl, conn, bo, sinks...)
			if res != nil {
				fmt.Fprintln(w, "Finished")
				p.report(res, o)
			}
			return res, err
		},
		Workload: "ch", Threads: o.Segment.Threads(o.Threads()), Total: o.Time.Seconds(), Percentile: 95, Seed: o.Seed,
		Segment: o.Segment.String(), Options: options, LongWaits: o.APThreads > 0,
		Annotate: func(sum *results.Summary, res *bench.Result) {
			tpcc.FiguresOf(res, o.Warehouses).Annotate(sum)
			tpch.AnnotateQueries(sum, 0, o.Queries)
			sum.Metrics[MetricQPH] = sum.Metrics[tpch.MetricQPH]
			delete(sum.Metrics, tpch.MetricQPH) // go-tpc's ch names it QphH
		},
	}, nil
}

// printer writes a run's lines as go-tpc's ch does: the transactions'
// as tpcc's, the queries' as "Q1     - Count: ..., Sum(ms): ..., Avg(ms): ...".
type printer struct {
	w       io.Writer
	tp      *tpcc.Printer
	tpKinds int
	kinds   []string
}

func (p *printer) interval(iv *bench.Interval) {
	tp := *iv
	tp.Kinds = iv.Kinds[:min(p.tpKinds, len(iv.Kinds))]
	p.tp.Interval(&tp, p.kinds[:p.tpKinds])
	var lines []queryLine
	for k := p.tpKinds; k < len(iv.Kinds) && k < len(p.kinds); k++ {
		ki := iv.Kinds[k]
		if ki.Events > 0 {
			lines = append(lines, queryLine{p.kinds[k], ki.Events, ki.Latency.Mean() * float64(ki.Events) / 1000})
		}
	}
	printQueries(p.w, "[Current] ", lines)
}

func (p *printer) report(res *bench.Result, o RunOptions) {
	tp := *res
	tp.Kinds = res.Kinds[:min(p.tpKinds, len(res.Kinds))]
	p.tp.Report(&tp)
	var lines []queryLine
	var queries int64
	for _, k := range res.Kinds[len(tp.Kinds):] {
		if k.Events > 0 {
			lines = append(lines, queryLine{k.Name, k.Events, float64(k.SumLatency) / 1e6})
			queries += k.Events
		}
	}
	printQueries(p.w, "[Summary] ", lines)
	if secs := res.Elapsed.Seconds(); secs > 0 {
		fmt.Fprintf(p.w, "QphH: %.1f\n", float64(queries)/secs*3600)
	}
	fmt.Fprintf(p.w, "Finished: %d OLTP workers, %d OLAP workers\n", o.TPThreads, o.APThreads)
}

type queryLine struct {
	name  string
	count int64
	sumMS float64
}

// printQueries writes the queries' lines in go-tpc's order (by name).
func printQueries(w io.Writer, prefix string, lines []queryLine) {
	sort.Slice(lines, func(i, j int) bool { return lines[i].name < lines[j].name })
	for _, l := range lines {
		fmt.Fprintf(w, "%s%-6s - Count: %d, Sum(ms): %.1f, Avg(ms): %.1f\n", prefix, strings.ToUpper(l.name), l.count, l.sumMS, l.sumMS/float64(l.count))
	}
}
