package report

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/starbench/starbench/runner/results"
)

// Capacities lists the capacity searches of several runs.
func Capacities(runs []*Run) []*results.Capacity {
	var out []*results.Capacity
	for _, r := range runs {
		out = append(out, r.Capacities...)
	}
	return out
}

// CapacityTable is a search's probes in the order they ran: the load,
// what it served, the latencies its SLO bounds, and the verdict.
func CapacityTable(c *results.Capacity) Table {
	t := Table{Title: fmt.Sprintf("%s (%s): probes of %s s", c.Name, c.Dir, results.FormatLoad(c.StepSeconds)),
		Columns: []string{"probe", c.Unit(), "tps"}, Numeric: []bool{true, true, true}}
	keys := capacityLatencyKeys(c)
	for _, k := range keys {
		t.Columns, t.Numeric = append(t.Columns, k+" ms"), append(t.Numeric, true)
	}
	t.Columns, t.Numeric = append(t.Columns, "errors %", "SLO"), append(t.Numeric, true, false)
	for _, p := range c.Probes {
		row := []string{fmt.Sprint(p.Probe), results.FormatLoad(p.Load), num(p.TPS)}
		for _, k := range keys {
			row = append(row, num(p.Latency[k]))
		}
		verdict := "holds"
		if !p.Holds {
			verdict = "breaks: " + strings.Join(p.Broken, "; ")
		}
		row = append(row, fmt.Sprintf("%.3g", p.ErrorsPct), verdict)
		t.Rows = append(t.Rows, row)
	}
	return t
}

// capacityLatencyKeys are the latencies a search's table and chart show:
// those its SLO bounds, else p99.
func capacityLatencyKeys(c *results.Capacity) []string {
	var keys []string
	for _, k := range []string{"p50", "p90", "p95", "p99", "p99.9", "p99.99", "avg", "max"} {
		if _, ok := c.SLO[k+"_ms"]; ok {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		keys = []string{"p99"}
	}
	return keys
}

// WriteCapacities writes each search's answer and its probes' table.
func WriteCapacities(w io.Writer, runs []*Run, markdown bool) {
	for _, c := range Capacities(runs) {
		if markdown {
			fmt.Fprintf(w, "## Capacity: %s\n\n%s.\n\n", c.Workload, c.Describe())
			WriteMarkdown(w, []Table{CapacityTable(c)})
		} else {
			fmt.Fprintf(w, "%s\n", c.Describe())
			WriteText(w, []Table{CapacityTable(c)})
		}
	}
}

// capacityCharts are a search's latency against its loads, with the
// SLO's bound as a dashed line, and the tps served against the load
// offered (a dashed line where they are equal), a marker per probe.
func capacityCharts(c *results.Capacity) []*Chart {
	probes := c.SortedProbes()
	if len(probes) == 0 {
		return nil
	}
	var loads, tps []float64
	top := 0.0
	for _, p := range probes {
		loads, tps = append(loads, p.Load), append(tps, p.TPS)
		top = math.Max(top, p.Load)
	}
	var lat []SeriesData
	for i, k := range capacityLatencyKeys(c) {
		s := SeriesData{Name: k, Key: k, Color: 2 * i}
		for _, p := range probes {
			s.Values = append(s.Values, p.Latency[k])
		}
		lat = append(lat, s)
		if limit, ok := c.SLO[k+"_ms"]; ok {
			lat = append(lat, SeriesData{Name: k + " SLO " + results.FormatLoad(limit) + " ms", Key: k + " slo", Color: 1, Dashed: true,
				X: []float64{0, top}, Values: []float64{limit, limit}})
		}
	}
	xlabel := c.Unit() + " offered"
	if c.Over == "threads" {
		xlabel = "threads"
	}
	charts := []*Chart{lineChartTo(c.Workload+": latency against load", xlabel, "latency (ms)", loads, lat, 0)}
	served := []SeriesData{{Name: "tps served", Key: "tps", Values: tps, Color: 0}}
	if c.Over == "rate" {
		served = append(served, SeriesData{Name: "offered", Key: "offered", Color: 7, Dashed: true, X: []float64{0, top}, Values: []float64{0, top}})
	}
	charts = append(charts, lineChartTo(c.Workload+": throughput against load", xlabel, "transactions per second", loads, served, 0))
	for _, ch := range charts {
		ch.Kind, ch.Step = "capacity", c.Dir
	}
	return charts
}

// StagesTable is a row per stage (or phase) of each staged step: the
// load offered, its time, tps, latency and errors; false when no step
// has stages.
func StagesTable(benchmarks []*Benchmark) (Table, bool) {
	t := Table{Title: "stages (each interval counted in the stage it is in)",
		Columns: []string{"step", "stage", "offered", "seconds", "tps", "p95 ms", "p99 ms", "errors", "events by kind"},
		Numeric: []bool{false, true, true, true, true, true, true, true, false}}
	runs := map[*Run]bool{}
	for _, b := range benchmarks {
		runs[b.Run] = true
	}
	for _, b := range benchmarks {
		for _, st := range b.Summary.Stages {
			var kinds []string
			for _, k := range b.Summary.Kinds {
				if n, ok := st.Kinds[k.Name]; ok {
					kinds = append(kinds, fmt.Sprintf("%s %d", k.Name, n))
				}
			}
			t.Rows = append(t.Rows, []string{stepLabel(b, len(runs)), fmt.Sprint(st.Stage), num(st.Offered), num(st.Seconds), num(st.TPS),
				num(st.Latency.Percentiles["95"]), num(st.Latency.Percentiles["99"]), fmt.Sprint(st.Errors), strings.Join(kinds, ", ")})
		}
	}
	return t, len(t.Rows) > 0
}

// KindsTable is a row per kind of event of each step whose events are of
// several kinds (TPC-C's transactions, TPC-H's queries, a mix's
// transactions): its events, errors, rate and latency; false when no
// step has kinds.
func KindsTable(benchmarks []*Benchmark) (Table, bool) {
	t := Table{Title: "by kind of event",
		Columns: []string{"step", "kind", "events", "errors", "per minute", "avg ms", "p95 ms", "p99 ms", "max ms"},
		Numeric: []bool{false, false, true, true, true, true, true, true, true}}
	runs := map[*Run]bool{}
	for _, b := range benchmarks {
		runs[b.Run] = true
	}
	for _, b := range benchmarks {
		for _, k := range b.Summary.Kinds {
			l := k.Latency
			t.Rows = append(t.Rows, []string{stepLabel(b, len(runs)), k.Name, fmt.Sprint(k.Events), fmt.Sprint(k.Errors), num(k.PerMinute),
				num(l.AvgMS), num(l.Percentiles["95"]), num(l.Percentiles["99"]), num(l.MaxMS)})
		}
	}
	return t, len(t.Rows) > 0
}

// FiguresTable is a row per step with figures of its family's own
// (tpmC, QphH, power, ...), each as name value; false when no step has
// any.
func FiguresTable(benchmarks []*Benchmark) (Table, bool) {
	t := Table{Title: "the families' figures", Columns: []string{"step", "figures"}, Numeric: []bool{false, false}}
	runs := map[*Run]bool{}
	for _, b := range benchmarks {
		runs[b.Run] = true
	}
	for _, b := range benchmarks {
		var figures []string
		for _, name := range slices.Sorted(maps.Keys(b.Summary.Metrics)) {
			figures = append(figures, fmt.Sprintf("%s %s", name, num(b.Summary.Metrics[name])))
		}
		if len(figures) > 0 {
			t.Rows = append(t.Rows, []string{stepLabel(b, len(runs)), strings.Join(figures, ", ")})
		}
	}
	return t, len(t.Rows) > 0
}

// HeadlineTable is the families' figures as columns, a row per step, the
// figures the family leads with (tpmC, power, QphH: MetricSpec.Headline)
// first and then tps and p95: the first table of a workload's section in
// the HTML report, when some step has a headline figure.
func HeadlineTable(benchmarks []*Benchmark) (Table, bool) {
	names := map[string]bool{}
	headline := false
	for _, b := range benchmarks {
		for name := range b.Summary.Metrics {
			names[name] = true
			if s, ok := results.LookupMetric(name); ok && s.Headline {
				headline = true
			}
		}
	}
	if !headline {
		return Table{}, false
	}
	lead := func(name string) bool { s, ok := results.LookupMetric(name); return ok && s.Headline }
	columns := slices.SortedFunc(maps.Keys(names), func(a, b string) int {
		if lead(a) != lead(b) {
			if lead(a) {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	runs := map[*Run]bool{}
	for _, b := range benchmarks {
		runs[b.Run] = true
	}
	t := Table{Title: "the family's figures", Columns: append(append([]string{"step"}, columns...), "tps", "p95 ms")}
	t.Numeric = make([]bool, len(t.Columns))
	for i := 1; i < len(t.Columns); i++ {
		t.Numeric[i] = true
	}
	for _, b := range benchmarks {
		row := []string{stepLabel(b, len(runs))}
		for _, name := range columns {
			if v, ok := b.Summary.Metrics[name]; ok {
				row = append(row, num(v))
			} else {
				row = append(row, "-")
			}
		}
		row = append(row, num(b.Summary.TPS), num(b.Value(MetricP95)))
		t.Rows = append(t.Rows, row)
	}
	return t, true
}
