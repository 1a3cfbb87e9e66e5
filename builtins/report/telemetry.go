package report

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/starbench/starbench/runner/results"
)

// Telemetry figures read from the series' columns (see package telemetry:
// counters rated NAME/s, their growth over the step in Totals).
const (
	colCPUBusy      = "cpu_busy_pct"
	colDiskRead     = "disk_read_bytes/s"
	colDiskWritten  = "disk_written_bytes/s"
	colNetRx        = "net_rx_bytes/s"
	colNetTx        = "net_tx_bytes/s"
	colMemUsed      = "mem_used_bytes"
	colQuestions    = "Questions"
	procCPUPrefix   = "proc_cpu_seconds{"
	promProcessCPU  = "process_cpu_seconds_total"
	promNodeWritten = "node_disk_written_bytes_total"
)

// serverStatements are the counters of statements a server received:
// MySQL's and MariaDB's Questions, as read from SHOW GLOBAL STATUS or
// mysqld_exporter, and TiDB's queries.
var serverStatements = []string{colQuestions, "mysql_global_status_questions", "tidb_server_query_total"}

// cpuSeconds tells the counters of a server process's CPU seconds: the
// Prometheus client libraries' process_cpu_seconds_total and a host's
// watched processes.
func cpuSeconds(name string) bool {
	return name == promProcessCPU || strings.HasPrefix(name, procCPUPrefix)
}

// Resource figures of a step, per event where they explain a change.
const (
	ResourceServerCPU  = "server CPU µs/event"
	ResourceDiskWrite  = "disk KB written/event"
	ResourceStatements = "server statements/event"
	ResourceQueries    = "client queries/event"
	ResourceHostCPU    = "host CPU busy %"
)

// resourceNames are the resource figures in the order tables show them.
var resourceNames = []string{ResourceServerCPU, ResourceDiskWrite, ResourceStatements, ResourceQueries, ResourceHostCPU}

// Resources are a step's resource figures from its telemetry (none
// without): the server processes' CPU time, the bytes written to disk
// and the statements the servers received per event, the client's
// queries per event beside them, and the watched hosts' average CPU busy
// share. Figures no series gives are left out.
func (b *Benchmark) Resources() map[string]float64 {
	out := map[string]float64{}
	if len(b.Summary.Telemetry) == 0 {
		return out
	}
	counted := map[string]float64{}
	busy, hosts := 0.0, 0
	for _, ts := range b.Summary.Telemetry {
		for what, v := range serverTotals(ts) {
			counted[what] += v
		}
		if v, ok := ts.Avg[colCPUBusy]; ok {
			busy += v
			hosts++
		}
	}
	cpu, hasCPU := counted[countedCPU]
	written, hasWritten := counted[countedWritten]
	stmts, hasStmts := counted[countedStatements]
	if events := float64(b.Summary.Events); events > 0 {
		if hasCPU {
			out[ResourceServerCPU] = cpu * 1e6 / events
		}
		if hasWritten {
			out[ResourceDiskWrite] = written / 1e3 / events
		}
		if hasStmts {
			out[ResourceStatements] = stmts / events
			out[ResourceQueries] = float64(b.Summary.Queries) / events
		}
	}
	if hosts > 0 {
		out[ResourceHostCPU] = busy / float64(hosts)
	}
	return out
}

// What a series counted of the servers over a step (serverTotals).
const (
	countedCPU        = "cpu"        // their processes' CPU seconds
	countedWritten    = "written"    // bytes written to disk
	countedStatements = "statements" // statements they received
)

// serverTotals are what a series counted of the servers over its step,
// from its counters' totals: only the figures it has.
func serverTotals(ts results.TelemetrySeries) map[string]float64 {
	out := map[string]float64{}
	for name, v := range ts.Totals {
		switch {
		case cpuSeconds(name):
			out[countedCPU] += v
		case name == "disk_written_bytes" || name == promNodeWritten:
			out[countedWritten] += v
		case slices.Contains(serverStatements, name):
			out[countedStatements] += v
		}
	}
	return out
}

// TelemetryTable lists the telemetry of the benchmarks' steps, a row per
// series: what it read and how often it failed, the host's average CPU
// busy share, disk and network MB/s, and, over the step's load time, the
// CPU the server processes used (in CPUs) and the statements per second
// the server saw beside the queries per second the client counted. ok is
// false when no step has telemetry.
func TelemetryTable(benchmarks []*Benchmark) (Table, bool) {
	t := Table{Title: "telemetry (averages over each step)",
		Columns: []string{"step", "series", "source", "points", "failed", "CPU busy %", "disk MB/s read/written",
			"net MB/s rx/tx", "server CPUs", "server stmts/s", "client qps"},
		Numeric: []bool{false, false, false, true, true, true, true, true, true, true, true}}
	runs := map[*Run]bool{}
	for _, b := range benchmarks {
		runs[b.Run] = true
	}
	for _, b := range benchmarks {
		for _, ts := range b.Summary.Telemetry {
			avg := func(name string) (float64, bool) { v, ok := ts.Avg[name]; return v, ok }
			cell := func(name string, scale float64) string {
				if v, ok := avg(name); ok {
					return num(v * scale)
				}
				return ""
			}
			pair := func(a, b string) string {
				x, okA := avg(a)
				y, okB := avg(b)
				if !okA && !okB {
					return ""
				}
				return num(x/1e6) + " / " + num(y/1e6)
			}
			row := []string{stepLabel(b, len(runs)), ts.Name, ts.Source, fmt.Sprint(ts.Points), fmt.Sprint(ts.Failed),
				cell(colCPUBusy, 1), pair(colDiskRead, colDiskWritten), pair(colNetRx, colNetTx), "", "", ""}
			// Over the step's load time, as the client's qps is: the
			// first and last points reach outside it.
			if secs := b.Summary.Seconds; secs > 0 {
				counted := serverTotals(ts)
				if cpus, ok := counted[countedCPU]; ok {
					row[8] = num(cpus / secs)
				}
				if stmts, ok := counted[countedStatements]; ok {
					row[9], row[10] = num(stmts/secs), num(b.Summary.QPS)
				}
			}
			t.Rows = append(t.Rows, row)
		}
	}
	return t, len(t.Rows) > 0
}

// telemetryChart is one chart of a step's telemetry: the columns it
// draws, by the kind of series they are in, scaled for its unit.
type telemetryChart struct {
	id, title, ylabel string
	kind              string // the series' kind: host, status, prometheus
	columns           func(name string) bool
	scale             float64
	dashed            func(name string) bool
}

// telemetryCharts are the charts of a host's and a server's status
// series: a chart a figure, a line per series (and column).
var telemetryCharts = []telemetryChart{
	{id: "host-cpu", title: "host CPU busy", ylabel: "% of the host's CPUs", kind: "host", scale: 1,
		columns: func(n string) bool { return n == colCPUBusy }},
	{id: "process-cpu", title: "server processes' CPU", ylabel: "CPUs", kind: "host", scale: 1,
		columns: func(n string) bool { return strings.HasPrefix(n, procCPUPrefix) && strings.HasSuffix(n, "/s") }},
	{id: "host-disk", title: "host disk", ylabel: "MB/s (dashed: read)", kind: "host", scale: 1e-6,
		columns: func(n string) bool { return n == colDiskRead || n == colDiskWritten },
		dashed:  func(n string) bool { return n == colDiskRead }},
	{id: "host-net", title: "host network", ylabel: "MB/s (dashed: received)", kind: "host", scale: 1e-6,
		columns: func(n string) bool { return n == colNetRx || n == colNetTx },
		dashed:  func(n string) bool { return n == colNetRx }},
	{id: "host-mem", title: "host memory used", ylabel: "GB", kind: "host", scale: 1e-9,
		columns: func(n string) bool { return n == colMemUsed }},
	{id: "server-statements", title: "statements the server saw", ylabel: "per second", kind: "status", scale: 1,
		columns: func(n string) bool {
			return n == colQuestions+"/s" || (strings.HasPrefix(n, "Com_") && strings.HasSuffix(n, "/s"))
		}},
	{id: "server-rows", title: "rows the server read and sent", ylabel: "rows per second", kind: "status", scale: 1,
		columns: func(n string) bool {
			return (strings.HasPrefix(n, "Innodb_rows_") || strings.HasPrefix(n, "Rows_")) && strings.HasSuffix(n, "/s")
		}},
	{id: "server-handler", title: "storage engine calls", ylabel: "per second", kind: "status", scale: 1,
		columns: func(n string) bool { return strings.HasPrefix(n, "Handler_") && strings.HasSuffix(n, "/s") }},
	{id: "server-data", title: "InnoDB data", ylabel: "MB/s (dashed: read)", kind: "status", scale: 1e-6,
		columns: func(n string) bool { return n == "Innodb_data_read/s" || n == "Innodb_data_written/s" },
		dashed:  func(n string) bool { return n == "Innodb_data_read/s" }},
	{id: "server-threads", title: "server threads running", ylabel: "threads", kind: "status", scale: 1,
		columns: func(n string) bool { return n == "Threads_running" }},
}

// maxPromCharts bounds the charts of one Prometheus endpoint, and
// maxLines the lines of one chart.
const (
	maxPromCharts = 8
	maxLines      = 10
)

// stepTelemetryCharts charts a step's telemetry over the step's time
// axis (seconds from its start; points after end, the load's end, are
// left out): the hosts' and servers'
// figures (telemetryCharts) and, for each Prometheus endpoint, a chart a
// metric family. chart makes a chart of its series.
func stepTelemetryCharts(b *Benchmark, end float64, chart func(id, title, ylabel string, series []SeriesData) *Chart) []*Chart {
	if len(b.Telemetry) == 0 {
		return nil
	}
	start := b.Summary.Started
	// xs and values of a column of a series, the points within the step.
	column := func(td TelemetryData, name string, scale float64) ([]float64, []float64) {
		var xs, vs []float64
		for _, p := range td.Points {
			v, ok := p.Values[name]
			x := p.Time.Sub(start).Seconds()
			if !ok || x < 0 || x > end {
				continue // outside the step's load: in the file, not on its charts
			}
			xs = append(xs, x)
			vs = append(vs, v*scale)
		}
		return xs, vs
	}
	many := len(b.Telemetry) > 1
	var charts []*Chart
	for _, tc := range telemetryCharts {
		var series []SeriesData
		for _, td := range b.Telemetry {
			if td.Kind != tc.kind {
				continue
			}
			for _, name := range columnNames(td, tc.columns) {
				xs, vs := column(td, name, tc.scale)
				label := name
				if many {
					label = td.Name + " " + name
				}
				series = append(series, SeriesData{Name: label, Key: td.Name + " " + name, X: xs, Values: vs, Color: -1,
					Dashed: tc.dashed != nil && tc.dashed(name)})
			}
		}
		if len(series) > maxLines {
			series = series[:maxLines]
		}
		if len(series) > 0 && tc.id == "server-statements" && len(b.Intervals) > 0 {
			// What the client counted, beside what the server saw.
			var xs, vs []float64
			for _, r := range b.Intervals {
				xs, vs = append(xs, r.Time), append(vs, r.QPS)
			}
			series = append(series, SeriesData{Name: "client qps", Key: "client qps", X: xs, Values: vs, Color: -1, Dashed: true})
		}
		if len(series) > 0 {
			charts = append(charts, chart(tc.id, tc.title, tc.ylabel, series))
		}
	}
	for _, td := range b.Telemetry {
		if td.Kind != "prometheus" {
			continue
		}
		families := map[string][]string{}
		var order []string
		for _, name := range columnNames(td, func(string) bool { return true }) {
			fam := family(name)
			if fam == "" {
				continue
			}
			if _, seen := families[fam]; !seen {
				order = append(order, fam)
			}
			families[fam] = append(families[fam], name)
		}
		for i, fam := range order {
			if i == maxPromCharts {
				break
			}
			var series []SeriesData
			for _, name := range families[fam] {
				if len(series) == maxLines {
					break
				}
				xs, vs := column(td, name, 1)
				series = append(series, SeriesData{Name: name, Key: td.Name + " " + name, X: xs, Values: vs, Color: -1})
			}
			id := "prometheus-" + td.Name + "-" + strings.NewReplacer(" ", "-", "/", "-").Replace(fam)
			charts = append(charts, chart(id, td.Name+": "+fam, unitOf(families[fam][0]), series))
		}
	}
	return charts
}

// columnNames are a series' column names that keep, sorted, from its
// points (a column may come and go: a label set that appears).
func columnNames(td TelemetryData, keep func(string) bool) []string {
	seen := map[string]bool{}
	for _, p := range td.Points {
		for name := range p.Values {
			if keep(name) {
				seen[name] = true
			}
		}
	}
	names := make([]string, 0, len(seen))
	for name := range seen {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// family is the chart a Prometheus column goes in: its metric family's
// name and what the column is of it (quantiles, a rate, the rate of a
// histogram's observations), as charts do not mix units; "" for a
// histogram's sum rate, which no chart draws.
func family(column string) string {
	name := column
	if i := strings.IndexAny(name, "{:/"); i >= 0 {
		name = name[:i]
	}
	switch {
	case strings.HasSuffix(column, ":sum/s"):
		return ""
	case strings.HasSuffix(column, ":count/s"):
		return name + " count/s"
	case strings.Contains(column, ":p"):
		return name + " quantiles"
	case strings.HasSuffix(column, "/s"):
		return name + "/s"
	}
	return name
}

// unitOf says what a Prometheus column's values are.
func unitOf(column string) string {
	switch {
	case strings.Contains(column, ":p"):
		if strings.Contains(column, "_seconds") {
			return "seconds (quantiles of each interval)"
		}
		return "quantiles of each interval"
	case strings.HasSuffix(column, "/s"):
		return "per second"
	}
	return "value"
}
