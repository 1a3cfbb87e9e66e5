package sysbench

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/runner/results"
)

// Printer writes sysbench-format output: the run header, interval lines
// and the final report, in the layout of the options' profile.
type Printer struct {
	W         io.Writer
	Opts      *Options
	ToolLabel string        // e.g. "starbench v0.1"
	Segment   bench.Segment // the slice of the load run, when not the whole
	// Checkpoints (--report-checkpoints, seconds) and Validate
	// (--validate) are named in the run header, as sysbench names them.
	Checkpoints []int
	Validate    bool
}

// versionLine is the first line sysbench prints.
func (p *Printer) versionLine() string {
	v := "1.0.20"
	if p.Opts.Profile == ProfileMaster {
		v = "1.1.0"
	}
	label := p.ToolLabel
	if label == "" {
		label = "starbench"
	}
	return fmt.Sprintf("sysbench %s (%s, Go workload engine)", v, label)
}

// Banner prints the version line that starts every command's output.
func (p *Printer) Banner() {
	fmt.Fprintf(p.W, "%s\n\n", p.versionLine())
}

// RunHeader prints what sysbench prints before a run starts.
func (p *Printer) RunHeader(seed int64) {
	o := p.Opts
	if p.Segment.Whole() {
		fmt.Fprintf(p.W, "Running the test with following options:\nNumber of threads: %d\n", o.Threads)
	} else {
		fmt.Fprintf(p.W, "Running the test with following options:\nNumber of threads: %d (segment %s of %d threads)\n", p.Segment.Threads(o.Threads), p.Segment, o.Threads)
	}
	if o.WarmupTime > 0 && o.Profile == ProfileMaster {
		fmt.Fprintf(p.W, "Warmup time: %ds\n", o.WarmupTime)
	}
	if o.Rate > 0 {
		fmt.Fprintf(p.W, "Target transaction rate: %d/sec\n", o.Rate)
	}
	if o.ReportInterval > 0 {
		fmt.Fprintf(p.W, "Report intermediate results every %d second(s)\n", o.ReportInterval)
	}
	if len(p.Checkpoints) > 0 {
		secs := make([]string, len(p.Checkpoints))
		for i, c := range p.Checkpoints {
			secs[i] = strconv.Itoa(c)
		}
		fmt.Fprintf(p.W, "Report checkpoint(s) at %s seconds\n", strings.Join(secs, ", "))
	}
	if p.Validate {
		fmt.Fprintf(p.W, "Validation checks: on.\n\n")
	}
	fmt.Fprintf(p.W, "Initializing random number generator from seed (%d).\n\n\n", seed)
	fmt.Fprintf(p.W, "Initializing worker threads...\n\n")
}

// ThreadsStarted prints what sysbench prints once every thread has
// connected and prepared its statements.
func (p *Printer) ThreadsStarted() {
	fmt.Fprintf(p.W, "Threads started!\n\n")
	if p.Opts.WarmupTime > 0 {
		fmt.Fprintf(p.W, "Warming up for %d seconds...\n\n", p.Opts.WarmupTime)
	}
}

// Interval prints one interval line.
func (p *Printer) Interval(iv *bench.Interval) {
	c := iv.Counts
	line := fmt.Sprintf("[ %ds ] thds: %d tps: %4.2f qps: %4.2f (r/w/o: %4.2f/%4.2f/%4.2f)",
		int64(math.Round(iv.End.Seconds())), iv.Threads, iv.Rate(c.Events), iv.Rate(c.Queries()),
		iv.Rate(c.Reads), iv.Rate(c.Writes), iv.Rate(c.Others))
	line += fmt.Sprintf(" lat (ms,%s%%): %4.2f", trimPct(p.Opts.Percentile), percentileMS(iv.Latency, p.Opts.Percentile))
	line += fmt.Sprintf(" err/s: %4.2f reconn/s: %4.2f", iv.Rate(c.Errors), iv.Rate(c.Reconnects))
	fmt.Fprintln(p.W, line)
	if p.Opts.Rate > 0 {
		fmt.Fprintf(p.W, "[ %ds ] queue length: %d, concurrency: %d\n", int64(math.Round(iv.End.Seconds())), iv.Queue, iv.Busy)
	}
}

func trimPct(p float64) string { return strconv.FormatFloat(p, 'f', -1, 64) }

// percentileMS is a percentile of a µs histogram in milliseconds.
func percentileMS(h *hdr.Histogram, pct float64) float64 {
	if h == nil || h.TotalCount() == 0 || pct <= 0 {
		return 0
	}
	return float64(h.ValueAtPercentile(pct)) / 1000
}

// Checkpoint prints a checkpoint's report: the statistics of the time
// since the previous checkpoint (sysbench's --report-checkpoints).
func (p *Printer) Checkpoint(r *bench.Result) {
	fmt.Fprintf(p.W, "[ %.0fs ] Checkpoint report:\n", r.Elapsed.Seconds())
	p.statistics(r)
}

// Report prints the final statistics; after checkpoints, as sysbench
// does, those of the time since the last one (with the total time).
func (p *Printer) Report(r *bench.Result) {
	if p.Opts.Histogram {
		p.histogram(r.Latency)
	}
	if r.SinceCheckpoint != nil {
		r = r.SinceCheckpoint
	}
	p.statistics(r)
}

// statistics prints sysbench's report of r: per-second rates over the
// time its counts cover, the total time since the run's start.
func (p *Printer) statistics(r *bench.Result) {
	w := p.W
	secs := (r.Elapsed - r.Since).Seconds()
	rate := func(n int64) float64 {
		if secs <= 0 {
			return 0
		}
		return float64(n) / secs
	}
	c := r.Counts
	fmt.Fprintf(w, "SQL statistics:\n    queries performed:\n")
	fmt.Fprintf(w, "%-41s%d\n", "        read:", c.Reads)
	fmt.Fprintf(w, "%-41s%d\n", "        write:", c.Writes)
	fmt.Fprintf(w, "%-41s%d\n", "        other:", c.Others)
	fmt.Fprintf(w, "%-41s%d\n", "        total:", c.Queries())
	fmt.Fprintf(w, "%-41s%-6d (%.2f per sec.)\n", "    transactions:", c.Events, rate(c.Events))
	fmt.Fprintf(w, "%-41s%-6d (%.2f per sec.)\n", "    queries:", c.Queries(), rate(c.Queries()))
	fmt.Fprintf(w, "%-41s%-6d (%.2f per sec.)\n", "    ignored errors:", c.Errors, rate(c.Errors))
	fmt.Fprintf(w, "%-41s%-6d (%.2f per sec.)\n", "    reconnects:", c.Reconnects, rate(c.Reconnects))
	if e := r.StopError; e != nil { // not sysbench's: it prints no statistics then
		fmt.Fprintf(w, "%-41s1      (error %s on thread %d, %s: not ignored)\n", "    errors that stopped the run:", e.Code, e.Thread, orUnknown(e.Kind))
	}
	fmt.Fprintln(w)
	if p.Opts.Profile == ProfileMaster {
		fmt.Fprintf(w, "Throughput:\n")
		fmt.Fprintf(w, "%-41s%.4f\n", "    events/s (eps):", rate(c.Events))
		fmt.Fprintf(w, "%-41s%.4fs\n", "    time elapsed:", r.Elapsed.Seconds())
		fmt.Fprintf(w, "%-41s%d\n", "    total number of events:", c.Events)
	} else {
		fmt.Fprintf(w, "General statistics:\n")
		fmt.Fprintf(w, "%-41s%.4fs\n", "    total time:", r.Elapsed.Seconds())
		fmt.Fprintf(w, "%-41s%d\n", "    total number of events:", c.Events)
	}
	fmt.Fprintln(w)
	s := r.Summary(p.Opts.Percentile)
	fmt.Fprintf(w, "Latency (ms):\n")
	latLine := func(label string, v float64) {
		fmt.Fprintf(w, "         %s%*.2f\n", label, 53-9-len(label), v)
	}
	latLine("min:", s.MinMS)
	latLine("avg:", s.AvgMS)
	latLine("max:", s.MaxMS)
	if pct := p.Opts.Percentile; pct > 0 {
		latLine(ordinal(pct)+" percentile:", s.Percentiles[results.PercentileKey(pct)])
	} else {
		fmt.Fprintf(w, "         percentile stats:               disabled\n")
	}
	latLine("sum:", s.SumMS)
	fmt.Fprintln(w)
	if r.Rate > 0 {
		p.openLoop(r)
	}
	ea, es, ta, ts := r.Fairness()
	fmt.Fprintf(w, "Threads fairness:\n")
	fmt.Fprintf(w, "%-35s%.4f/%3.2f\n", "    events (avg/stddev):", ea, es)
	fmt.Fprintf(w, "%-35s%.4f/%3.2f\n", "    execution time (avg/stddev):", ta, ts)
	fmt.Fprintln(w)
}

// openLoop prints what a rate-limited run adds (a starbench section):
// service times, counted from each event's actual start, and the late and
// dropped events. "Latency" above counts from the scheduled start.
func (p *Printer) openLoop(r *bench.Result) {
	w := p.W
	sum := bench.Summarize(r, p.Opts.Percentile)
	svc := sum.ServiceLatency
	fmt.Fprintf(w, "Service time (ms, from each event's actual start; latency above is from its scheduled start):\n")
	line := func(label string, v float64) { fmt.Fprintf(w, "         %s%*.2f\n", label, 53-9-len(label), v) }
	line("min:", svc.MinMS)
	line("avg:", svc.AvgMS)
	line("max:", svc.MaxMS)
	if pct := p.Opts.Percentile; pct > 0 {
		line(ordinal(pct)+" percentile:", svc.Percentiles[results.PercentileKey(pct)])
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Open loop:\n")
	fmt.Fprintf(w, "%-41s%.2f events/s\n", "    target rate:", r.Rate)
	fmt.Fprintf(w, "%-41s%d\n", "    late events (started > 1 ms late):", r.Late)
	fmt.Fprintf(w, "%-41s%d\n", "    dropped events (backlog full):", r.Dropped)
	fmt.Fprintln(w)
}

// ordinal writes a percentile as sysbench does: 95th, 99th, 99.9th.
func ordinal(p float64) string {
	s := trimPct(p)
	if strings.Contains(s, ".") {
		return s + "th"
	}
	n := int64(p)
	switch {
	case n%100 >= 11 && n%100 <= 13:
		return s + "th"
	case n%10 == 1:
		return s + "st"
	case n%10 == 2:
		return s + "nd"
	case n%10 == 3:
		return s + "rd"
	}
	return s + "th"
}

// sysbench's histogram: 1024 buckets on a log scale from 0.001 ms to
// 100 000 ms, a value going to the nearest bucket.
const (
	histBuckets = 1024
	histMinMS   = 1e-3
	histMaxMS   = 1e5
)

var histMult = float64(histBuckets-1) / (math.Log(histMaxMS) - math.Log(histMinMS))

// histogram prints the latency distribution like --histogram=on: the
// HdrHistogram's counts regrouped into sysbench's buckets, one line per
// non-empty bucket with a bar scaled to the largest.
func (p *Printer) histogram(h *hdr.Histogram) {
	w := p.W
	fmt.Fprintf(w, "Latency histogram (values are in milliseconds)\n")
	fmt.Fprintf(w, "       value  ------------- distribution ------------- count\n")
	counts := make([]int64, histBuckets)
	var max int64
	for _, b := range h.Distribution() {
		if b.Count == 0 {
			continue
		}
		mid := float64(b.From+b.To) / 2 / 1000 // µs → ms
		i := int(math.Floor((math.Log(mid)-math.Log(histMinMS))*histMult + 0.5))
		i = min(max0(i), histBuckets-1)
		counts[i] += b.Count
		if counts[i] > max {
			max = counts[i]
		}
	}
	for i, n := range counts {
		if n == 0 {
			continue
		}
		stars := int(math.Floor(float64(n)*40/float64(max) + 0.5))
		value := math.Exp(float64(i)/histMult + math.Log(histMinMS))
		fmt.Fprintf(w, "%12.3f |%-40s %d\n", value, strings.Repeat("*", stars), n)
	}
	fmt.Fprintf(w, " \n")
}

func max0(i int) int {
	if i < 0 {
		return 0
	}
	return i
}

// Elapsed helps callers print durations in sysbench style.
func Elapsed(d time.Duration) string { return fmt.Sprintf("%.4fs", d.Seconds()) }

func orUnknown(kind string) string {
	if kind == "" {
		return "a statement"
	}
	return kind
}
