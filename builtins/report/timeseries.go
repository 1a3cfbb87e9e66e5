package report

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/starbench/starbench/runner/results"
)

// stepView is a benchmark step's charts over time on the page.
type stepView struct {
	Title  string
	Charts []*Chart
}

// stepLine is one source of a step's lines over time: the step itself, or
// one of a merged step's parts, with its intervals placed on the step's
// clock.
type stepLine struct {
	key, name string // "step", "part 2"; the legend's name prefix ("" for a step without parts)
	color     int
	width     float64
	offset    float64 // seconds from the step's start to the line's
	x         []float64
	rows      []results.Interval
}

// stepTimeSeries charts a benchmark step over time, one point per row of
// its intervals.csv at the row's time (seconds from the step's start):
// throughput; p99 and p95 latency; queries per second when they are not
// the transactions; errors and reconnects per second when there are any.
// A merged step's parts are drawn over its own lines, each in its colour
// and named by its part; a part that did not start has no line. A step
// with no line of two points or more has no charts.
func stepTimeSeries(b *Benchmark, label string) *stepView {
	lines := []stepLine{{key: "step", color: 0, width: 2, rows: b.Intervals}}
	for _, p := range b.Parts {
		if p.Part == nil || !p.Part.Ran {
			continue
		}
		if len(lines) == 1 {
			lines[0].name, lines[0].width = "merged", 3.5 // wide, under the parts
		}
		lines = append(lines, stepLine{key: fmt.Sprintf("part %d", p.Part.K), name: "part " + p.PartLabel(),
			color: len(lines), width: 1.5, offset: partOffset(b, p), rows: p.Intervals})
	}
	// A line without rows (a merged folder of format version 3 lost its
	// rows; its parts have theirs) is not drawn, nor named.
	kept := lines[:0]
	for _, l := range lines {
		if len(l.rows) > 0 {
			kept = append(kept, l)
		}
	}
	lines = kept
	long := false
	for i := range lines {
		l := &lines[i]
		l.x = make([]float64, len(l.rows))
		for j, r := range l.rows {
			l.x[j] = r.Time + l.offset
		}
		long = long || len(l.rows) >= 2
	}
	if !long {
		return nil
	}
	// Every chart of the step, its telemetry's too, on one time axis.
	end := b.Summary.Seconds
	for _, l := range lines {
		for _, x := range l.x {
			end = math.Max(end, x)
		}
	}
	finish := func(c *Chart, id, title string) *Chart {
		c.Label = label + ": " + title + " over time"
		c.Kind, c.Step, c.Metric = "time", b.Step, id
		if b.Run != nil {
			c.Run = b.Run.Name
		}
		return c
	}
	named := func(l stepLine, what string) string {
		if l.name == "" {
			return what
		}
		return l.name + " " + what
	}
	type metric struct {
		name   string
		dashed bool
		value  func(results.Interval) float64
	}
	chart := func(id, title, ylabel string, ms ...metric) *Chart {
		var series []SeriesData
		for _, l := range lines {
			for _, m := range ms {
				vals := make([]float64, len(l.rows))
				for j, r := range l.rows {
					vals[j] = m.value(r)
				}
				key := l.key
				if len(ms) > 1 {
					key += " " + m.name
				}
				series = append(series, SeriesData{Name: named(l, m.name), Key: key, Values: vals, X: l.x,
					Color: l.color, Width: l.width, Dashed: m.dashed})
			}
		}
		return finish(lineChartTo(title, timeAxis, ylabel, nil, series, end), id, title)
	}
	tps := metric{name: "tps", value: func(r results.Interval) float64 { return r.TPS }}
	p99 := metric{name: "p99", value: func(r results.Interval) float64 { return r.P99 }}
	p95 := metric{name: "p95", dashed: true, value: func(r results.Interval) float64 { return r.P95 }}
	qps := metric{name: "qps", value: func(r results.Interval) float64 { return r.QPS }}
	errs := metric{name: "errors/s", value: func(r results.Interval) float64 { return r.ErrorsPerS }}
	reconnects := metric{name: "reconnects/s", dashed: true, value: func(r results.Interval) float64 { return r.ReconnectsPerS }}
	v := &stepView{Title: label}
	staged := anyRow(lines, func(r results.Interval) bool { return r.Stage > 0 })
	openLoop := b.Summary.Rate > 0
	if staged && openLoop { // the load offered, dashed under what was served
		offered := metric{name: "offered", dashed: true, value: func(r results.Interval) float64 { return r.Target }}
		v.Charts = append(v.Charts, chart("tps", "throughput", "transactions per second", tps, offered))
	} else {
		v.Charts = append(v.Charts, chart("tps", "throughput", "transactions per second", tps))
	}
	v.Charts = append(v.Charts, chart("latency", "latency", "latency (ms)", p99, p95))
	v.Charts = append(v.Charts, perMinuteCharts(b, end, finish)...)
	if anyRow(lines, func(r results.Interval) bool { return r.QPS != r.TPS }) {
		v.Charts = append(v.Charts, chart("qps", "queries", "queries per second", qps))
	}
	// Errors and reconnects, those of the two there are.
	var failures []metric
	titles := []string{}
	if anyRow(lines, func(r results.Interval) bool { return r.ErrorsPerS != 0 }) {
		failures, titles = append(failures, errs), append(titles, "errors")
	}
	if anyRow(lines, func(r results.Interval) bool { return r.ReconnectsPerS != 0 }) {
		failures, titles = append(failures, reconnects), append(titles, "reconnects")
	}
	if len(failures) > 0 {
		v.Charts = append(v.Charts, chart("errors", strings.Join(titles, " and "), "per second", failures...))
	}
	if staged {
		v.Charts = append(v.Charts, offeredCharts(lines[0].rows, openLoop, func(c *Chart, id, title string) *Chart {
			c = finish(c, id, title)
			c.Label, c.Kind = label+": "+title, "offered"
			return c
		})...)
	}
	v.Charts = append(v.Charts, stepTelemetryCharts(b, end, func(id, title, ylabel string, series []SeriesData) *Chart {
		return finish(lineChartTo(title, timeAxis, ylabel, nil, series, end), id, title)
	})...)
	return v
}

// offeredCharts are a staged step's tps and latency against the load
// its profile offered in each interval (events per second under a rate,
// threads closed-loop), the intervals in the order of that load.
func offeredCharts(rows []results.Interval, openLoop bool, finish func(c *Chart, id, title string) *Chart) []*Chart {
	sorted := append([]results.Interval(nil), rows...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Target < sorted[j].Target })
	x := make([]float64, len(sorted))
	tps, p99, p95 := make([]float64, len(sorted)), make([]float64, len(sorted)), make([]float64, len(sorted))
	for i, r := range sorted {
		x[i], tps[i], p99[i], p95[i] = r.Target, r.TPS, r.P99, r.P95
	}
	axis := "threads offered"
	if openLoop {
		axis = "events/s offered"
	}
	served := []SeriesData{{Name: "tps", Key: "tps", Values: tps, Color: 0}}
	if openLoop {
		served = append(served, SeriesData{Name: "offered", Key: "offered", Values: x, Color: 7, Dashed: true})
	}
	return []*Chart{
		finish(LineChart("throughput against offered load", axis, "transactions per second", x, served), "tps-offered", "throughput against offered load"),
		finish(LineChart("latency against offered load", axis, "latency (ms)", x, []SeriesData{
			{Name: "p99", Key: "p99", Values: p99, Color: 0}, {Name: "p95", Key: "p95", Values: p95, Color: 0, Dashed: true}}),
			"latency-offered", "latency against offered load"),
	}
}

// timeAxis is the x axis of a step's charts over time.
const timeAxis = "seconds from the step's start"

// anyRow says whether a row of any line satisfies f.
func anyRow(lines []stepLine, f func(results.Interval) bool) bool {
	for _, l := range lines {
		for _, r := range l.rows {
			if f(r) {
				return true
			}
		}
	}
	return false
}

// partOffset is how many seconds after the merged step b started its
// part p did: a part's intervals count from its own start, the merged
// step's from the earliest part's. An unknown start counts as 0.
func partOffset(b, p *Benchmark) float64 {
	if p.Summary.Started.IsZero() || b.Summary.Started.IsZero() {
		return 0
	}
	return math.Max(0, p.Summary.Started.Sub(b.Summary.Started).Seconds())
}

// stepLabel names a benchmark step for the page: "step 4: tpcc, 1 thread,
// case=tpcc, round 2", with the run's name when the page has several.
func stepLabel(b *Benchmark, runs int) string {
	var parts []string
	if runs > 1 && b.Run != nil {
		parts = append(parts, b.Run.Name)
	}
	head := b.Workload()
	if b.Step != "" {
		head = "step " + b.Step + ": " + head
	}
	parts = append(parts, head)
	threads := fmt.Sprintf("%d threads", b.Threads())
	if b.Threads() == 1 {
		threads = "1 thread"
	}
	parts = append(parts, threads)
	if tags := keyOf(b, nil).Tags; tags != "" {
		parts = append(parts, tags)
	}
	if r := b.Summary.Tags[RoundTag]; r != "" {
		parts = append(parts, "round "+r)
	}
	if len(parts) > 1 && runs > 1 {
		return parts[0] + " " + strings.Join(parts[1:], ", ")
	}
	return strings.Join(parts, ", ")
}

// perMinuteCharts are, for each of the step's figures that count one kind
// of event a minute (tpmC: New-Order, MetricSpec.PerMinuteOf), the figure
// over time and that kind's latency over time, from its histograms in
// latency.hlog. A log that cannot be read has no such charts here (the
// step's tables still hold its figures).
func perMinuteCharts(b *Benchmark, end float64, finish func(c *Chart, id, title string) *Chart) []*Chart {
	if b.Dir == "" {
		return nil
	}
	var out []*Chart
	for _, name := range slices.Sorted(maps.Keys(b.Summary.Metrics)) {
		spec, ok := results.LookupMetric(name)
		if !ok || spec.PerMinuteOf == "" {
			continue
		}
		points, err := results.ReadKindSeries(b.Dir, &b.Summary, spec.PerMinuteOf)
		if err != nil || len(points) < 2 {
			continue
		}
		x := make([]float64, len(points))
		rate, p95, p99 := make([]float64, len(points)), make([]float64, len(points)), make([]float64, len(points))
		for i, p := range points {
			x[i], rate[i], p95[i], p99[i] = p.Time, p.PerMinute, p.P95, p.P99
		}
		out = append(out,
			finish(lineChartTo(name, timeAxis, name+" ("+spec.Unit+")", nil,
				[]SeriesData{{Name: name, Key: name, Values: rate, X: x, Width: 2}}, end), name, name),
			finish(lineChartTo(spec.PerMinuteOf+" latency", timeAxis, "latency (ms)", nil, []SeriesData{
				{Name: spec.PerMinuteOf + " p99", Key: "p99", Values: p99, X: x, Width: 2},
				{Name: spec.PerMinuteOf + " p95", Key: "p95", Values: p95, X: x, Width: 2, Dashed: true},
			}, end), spec.PerMinuteOf+"-latency", spec.PerMinuteOf+" latency"))
	}
	return out
}
