package tpcc

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/runner/results"
)

// specWarehouseFactor is the most New-Order transactions a minute one
// warehouse can do with the specification's keying and think times: 12.86
// tpmC per warehouse is 100% efficiency.
const specWarehouseFactor = 12.86

// tpmCKind is the kind of event tpmC counts.
const tpmCKind = "new_order"

// TPC-C's own metrics (Summary.Metrics): tpmC and tpmTotal are rates that
// add up over the parts of a merged step; efficiency is a share per
// warehouse, which does not.
func init() {
	results.DeclareMetric(results.MetricSpec{Name: "tpmC", Headline: true, PerMinuteOf: tpmCKind, HigherIsBetter: true, Additive: true, Unit: "/min",
		Help: "TPC-C's New-Order transactions a minute"})
	results.DeclareMetric(results.MetricSpec{Name: "tpmTotal", HigherIsBetter: true, Additive: true, Unit: "/min",
		Help: "TPC-C's transactions of every kind a minute"})
	results.DeclareMetric(results.MetricSpec{Name: "efficiency", HigherIsBetter: true, Unit: "%",
		Help: "tpmC against the specification's ceiling of 12.86 per warehouse"})
}

// Figures are a run's TPC-C numbers.
type Figures struct {
	TpmC       float64 // New-Order transactions a minute
	TpmTotal   float64 // all transactions a minute
	Efficiency float64 // percent: tpmC / (12.86 × warehouses)
}

// FiguresOf computes a run's figures from its result.
func FiguresOf(res *bench.Result, warehouses int) Figures {
	secs := res.Elapsed.Seconds()
	if secs <= 0 {
		return Figures{}
	}
	var f Figures
	for _, k := range res.Kinds {
		if !slices.Contains(kindNames[:], k.Name) {
			continue // a mixed load's other kinds (CH-benCHmark's queries)
		}
		f.TpmTotal += float64(k.Events) / secs * 60
		if k.Name == tpmCKind {
			f.TpmC = float64(k.Events) / secs * 60
		}
	}
	if warehouses > 0 {
		f.Efficiency = 100 * f.TpmC / (specWarehouseFactor * float64(warehouses))
	}
	return f
}

// Annotate adds the figures to a step's summary (Summary.Metrics), for
// reports and compare.
func (f Figures) Annotate(sum *results.Summary) {
	if sum.Metrics == nil {
		sum.Metrics = map[string]float64{}
	}
	sum.Metrics["tpmC"], sum.Metrics["tpmTotal"], sum.Metrics["efficiency"] = f.TpmC, f.TpmTotal, f.Efficiency
}

// Printer writes a run's output in go-tpc v1.0.7's layout, so that the two
// can be read side by side: at every interval a [Current] line per
// transaction (and its _ERR twin when some failed), at the end the same
// as [Summary] lines, then "tpmC: ..., efficiency: ...%" and a tpmTotal
// line, which go-tpc does not print.
type Printer struct {
	W          io.Writer
	Warehouses int
}

// Interval prints an interval's [Current] lines.
func (p *Printer) Interval(iv *bench.Interval, kinds []string) {
	var lines []kindLine
	for i, k := range iv.Kinds {
		if i < len(kinds) {
			lines = append(lines, kindLine{kinds[i], iv.End - iv.Start, k.KindCounts, k.Latency, 0, 0, 0})
		}
	}
	p.print("[Current] ", lines)
}

// Report prints the [Summary] lines and the figures.
func (p *Printer) Report(res *bench.Result) {
	var lines []kindLine
	for _, k := range res.Kinds {
		lines = append(lines, kindLine{k.Name, res.Elapsed, k.KindCounts, k.Latency, k.MinLatency, k.MaxLatency, k.SumLatency})
	}
	p.print("[Summary] ", lines)
	f := FiguresOf(res, p.Warehouses)
	if res.Elapsed > 0 {
		fmt.Fprintf(p.W, "tpmC: %.1f, efficiency: %.1f%%\n", f.TpmC, f.Efficiency)
		fmt.Fprintf(p.W, "tpmTotal: %.1f\n", f.TpmTotal)
	}
}

// kindLine is one transaction's figures over a stretch of the run; exact
// extremes and sum when known (the totals), else from the histogram.
type kindLine struct {
	name           string
	took           time.Duration
	counts         bench.KindCounts
	latency        *hdr.Histogram
	minLat, maxLat time.Duration
	sumLat         time.Duration
}

// print writes the lines in go-tpc's order (by name) and format.
func (p *Printer) print(prefix string, lines []kindLine) {
	sort.Slice(lines, func(i, j int) bool { return lines[i].name < lines[j].name })
	for _, l := range lines {
		secs := l.took.Seconds()
		name := strings.ToUpper(l.name)
		if l.counts.Events > 0 {
			h := l.latency
			pct := func(q float64) float64 { return float64(h.ValueAtPercentile(q)) / 1000 }
			sum, maxMS := float64(l.sumLat)/1e6, float64(l.maxLat)/1e6
			if l.sumLat == 0 { // an interval: from the histogram
				sum, maxMS = h.Mean()*float64(h.TotalCount())/1000, float64(h.Max())/1000
			}
			fmt.Fprintf(p.W, "%s%-6s - Takes(s): %.1f, Count: %d, TPM: %.1f, Sum(ms): %.1f, Avg(ms): %.1f, 50th(ms): %.1f, "+
				"90th(ms): %.1f, 95th(ms): %.1f, 99th(ms): %.1f, 99.9th(ms): %.1f, Max(ms): %.1f\n",
				prefix, name, secs, l.counts.Events, perMinute(l.counts.Events, secs), sum, sum/float64(l.counts.Events),
				pct(50), pct(90), pct(95), pct(99), pct(99.9), maxMS)
		}
		if l.counts.Errors > 0 {
			fmt.Fprintf(p.W, "%s%-6s - Takes(s): %.1f, Count: %d, TPM: %.1f\n",
				prefix, name+"_ERR", secs, l.counts.Errors, perMinute(l.counts.Errors, secs))
		}
	}
}

func perMinute(n int64, secs float64) float64 {
	if secs <= 0 {
		return 0
	}
	return float64(n) / secs * 60
}
