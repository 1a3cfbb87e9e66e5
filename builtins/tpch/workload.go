package tpch

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"sync/atomic"
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
	check   bool
	checked atomic.Int64 // answers found to be TPC-H's
}

// NewWorkload makes the stream of queries (names from ParseQueries), each
// EXPLAIN ANALYZE'd when explain is set; with check, each answer is
// compared with TPC-H's at scale factor 1 (a wrong one fails the run).
func NewWorkload(queries []string, explain, check bool) (*Workload, error) {
	if len(queries) == 0 {
		return nil, fmt.Errorf("no query to run")
	}
	if explain && check {
		return nil, fmt.Errorf("the answers cannot be checked under EXPLAIN ANALYZE: its rows are the plan's")
	}
	wl := &Workload{queries: queries, check: check}
	for _, q := range queries {
		s, err := Statements(q, explain)
		if err != nil {
			return nil, err
		}
		wl.stmts = append(wl.stmts, s)
	}
	return wl, nil
}

// NewWorkloadOf makes a stream of other queries than TPC-H's
// (CH-benCHmark's), texts by name, in the order of queries.
func NewWorkloadOf(texts map[string]string, queries []string) (*Workload, error) {
	if len(queries) == 0 {
		return nil, fmt.Errorf("no query to run")
	}
	wl := &Workload{queries: queries}
	for _, q := range queries {
		text, ok := texts[q]
		if !ok {
			return nil, fmt.Errorf("no query %q: the queries are q1 ... q22", q)
		}
		wl.stmts = append(wl.stmts, splitStatements(text))
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
	wl      *Workload
	next    int
	kind    int
	checked map[string]bench.RowStmt // with check: the queries, prepared to read their rows
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
		switch {
		case isDDL(stmt):
			_, err = s.Exec(ctx, stmt)
		case w.wl.check:
			err = w.checkAnswer(ctx, s, w.wl.queries[w.kind], stmt)
		default:
			_, err = s.Query(ctx, stmt)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", w.wl.queries[w.kind], err)
		}
	}
	return nil
}

// checkAnswer runs a query and compares its rows with TPC-H's answer.
func (w *queryWorker) checkAnswer(ctx context.Context, s bench.Session, query, stmt string) error {
	rs, ok := w.checked[stmt]
	if !ok {
		st, err := s.Prepare(ctx, stmt)
		if err != nil {
			return err
		}
		if rs, ok = st.(bench.RowStmt); !ok {
			st.Close()
			return fmt.Errorf("this connection's statements do not hand back rows: the answers cannot be checked")
		}
		if w.checked == nil {
			w.checked = map[string]bench.RowStmt{}
		}
		w.checked[stmt] = rs
	}
	c := newAnswerChecker(query)
	if _, err := rs.QueryRows(ctx, c.Row); err != nil {
		return err
	}
	if err := c.Done(); err != nil {
		return err
	}
	w.wl.checked.Add(1)
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
	Check       bool // compare each answer with TPC-H's (scale factor 1 only)
	Threads     int
	Time        time.Duration // 0: until Count queries
	Count       int64         // 0: until Time
	Interval    time.Duration
	Seed        int64
	// Segment, when not the whole, runs that slice of the run: its share
	// of the threads (keeping their ids, so their places in the list) and
	// of Count.
	Segment bench.Segment
}

func init() {
	results.DeclareMetric(results.MetricSpec{Name: MetricGeomean, Unit: "s", Derive: deriveGeomean,
		Help: "the geometric mean of the queries' mean latencies"})
	results.DeclareMetric(results.MetricSpec{Name: MetricPower, Headline: true, HigherIsBetter: true, Derive: derivePower,
		Help: "3600 × scale factor / geomean_s: the queries' part of TPC-H's Power@Size"})
	results.DeclareMetric(results.MetricSpec{Name: MetricQPH, Headline: true, HigherIsBetter: true, Additive: true, Unit: "/h",
		Help: "queries an hour"})
	results.DeclareMetric(results.MetricSpec{Name: MetricChecked, HigherIsBetter: true, Additive: true,
		Help: "answers found to be TPC-H's (run with check)"})
}

// isQuery says whether a kind of event is one of the 22 queries.
func isQuery(kind string) bool { return slices.Contains(QueryNames, kind) }

// geomean is the geometric mean of the mean latencies (s) of the queries
// among kinds that ran.
func geomean(kinds []results.KindSummary) (float64, bool) {
	logs, n := 0.0, 0
	for _, k := range kinds {
		if isQuery(k.Name) && k.Events > 0 && k.Latency.AvgMS > 0 {
			logs += math.Log(k.Latency.AvgMS / 1000)
			n++
		}
	}
	if n == 0 {
		return 0, false
	}
	return math.Exp(logs / float64(n)), true
}

func deriveGeomean(merged *results.Summary, _ []*results.Summary) (float64, bool) {
	return geomean(merged.Kinds)
}

// derivePower is the merged step's power at its parts' scale factor (the
// same in every part, or none).
func derivePower(merged *results.Summary, parts []*results.Summary) (float64, bool) {
	g, ok := geomean(merged.Kinds)
	sf := 0.0
	for _, p := range parts {
		var v float64
		switch x := p.Options["sf"].(type) {
		case float64: // read back from JSON
			v = x
		case int64:
			v = float64(x)
		}
		if sf != 0 && v != sf {
			return 0, false
		}
		sf = v
	}
	return 3600 * sf / g, ok && sf > 0
}

// checkable refuses a check where no answer is known or none is read.
func (o RunOptions) checkable() error {
	switch {
	case !o.Check:
	case o.ScaleFactor != 1:
		return fmt.Errorf("check: TPC-H's answers are known at scale factor 1 only, not %d (go-tpc's rule)", o.ScaleFactor)
	case o.Explain:
		return fmt.Errorf("check with use_explain: the rows are EXPLAIN ANALYZE's plan, not the answer")
	}
	return nil
}

// Figures a run adds to its summary's metrics.
const (
	MetricGeomean = "geomean_s"       // the geometric mean of the queries' mean latencies, seconds
	MetricPower   = "power"           // 3600 × SF / MetricGeomean (the queries' part of TPC-H's Power@Size)
	MetricQPH     = "qph"             // queries an hour
	MetricChecked = "answers_checked" // with Check: answers found to be TPC-H's
)

// Step is the run's benchmark step on conn.
func Step(conn bench.Connector, o RunOptions) (bench.Step, error) {
	if err := o.checkable(); err != nil {
		return bench.Step{}, err
	}
	wl, err := NewWorkload(o.Queries, o.Explain, o.Check)
	if err != nil {
		return bench.Step{}, err
	}
	options := map[string]any{"sf": o.ScaleFactor, "queries": strings.Join(o.Queries, ","), "use_explain": o.Explain, "check": o.Check,
		"threads": o.Threads, "time": o.Time.Seconds(), "count": o.Count, "interval": o.Interval.Seconds()}
	return bench.Step{
		Run: func(ctx context.Context, sr bench.StepRun) (*bench.Result, error) {
			threads := fmt.Sprintf("%d threads", o.Threads)
			if !o.Segment.Whole() {
				threads = fmt.Sprintf("%d threads (segment %s of %d)", o.Segment.Threads(o.Threads), o.Segment, o.Threads)
			}
			fmt.Fprintf(sr.Output, "TPC-H: scale factor %d, %s, queries %s (starbench, Go workload engine; go-tpc v1.0.7's queries)\n",
				o.ScaleFactor, threads, strings.Join(o.Queries, ","))
			bo, err := o.Segment.Apply(bench.WithStages(bench.Options{Threads: o.Threads, Time: o.Time, Events: o.Count,
				Interval: o.Interval, Seed: o.Seed, Start: sr.Start, LongWaits: true}, sr.Profile))
			if err != nil {
				return nil, err
			}
			sinks := append([]bench.Sink{bench.SinkFunc(func(iv *bench.Interval) { printInterval(sr.Output, iv, wl.queries) })}, sr.Sinks...)
			res, err := bench.Run(ctx, wl, conn, bo, sinks...)
			if res != nil {
				fmt.Fprintln(sr.Output, "Finished")
				printSummary(sr.Output, res)
				if o.Check {
					fmt.Fprintf(sr.Output, "check: %d answers are TPC-H's\n", wl.checked.Load())
				}
			}
			return res, err
		},
		Workload: "tpch", Threads: o.Segment.Threads(o.Threads), Total: o.Time.Seconds(), Percentile: 95, Seed: o.Seed, Options: options,
		Segment: o.Segment.String(), LongWaits: true,
		Annotate: func(sum *results.Summary, _ *bench.Result) {
			annotate(sum, o.ScaleFactor)
			if o.Check {
				sum.Metrics[MetricChecked] = float64(wl.checked.Load())
			}
		},
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
	var names []string
	for _, k := range sum.Kinds {
		names = append(names, k.Name)
	}
	AnnotateQueries(sum, sf, names)
}

// AnnotateQueries adds the figures of the kinds of sum named queries
// (the query stream of a mixed load): MetricGeomean, MetricQPH and, when
// sf > 0, MetricPower.
func AnnotateQueries(sum *results.Summary, sf int64, queries []string) {
	if sum.Metrics == nil {
		sum.Metrics = map[string]float64{}
	}
	var kinds []results.KindSummary
	events := int64(0)
	for _, k := range sum.Kinds {
		if slices.Contains(queries, k.Name) {
			kinds = append(kinds, k)
			events += k.Events
		}
	}
	if g, ok := geomean(kinds); ok {
		sum.Metrics[MetricGeomean] = g
		if sf > 0 {
			sum.Metrics[MetricPower] = 3600 * float64(sf) / g
		}
	}
	if sum.Seconds > 0 {
		sum.Metrics[MetricQPH] = float64(events) / sum.Seconds * 3600
	}
}
