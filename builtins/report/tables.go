package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/starbench/starbench/internal/results"
)

// Table is one rendered table: a title, column names and text cells.
type Table struct {
	Title   string
	Columns []string
	Numeric []bool // right-align these columns
	Rows    [][]string
}

// num formats a number for tables: two decimals.
func num(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

// WorkloadTables builds one table per workload, shaped like the seed
// reports: tags, threads, tps, qps, avg, p95, p99, min and max latency,
// errors. Repeats (the round tag, or the same step run again) are
// averaged and counted in the "runs" column.
func WorkloadTables(benchmarks []*Benchmark) []Table {
	tags := tagNames(benchmarks)
	var tables []Table
	for _, wl := range workloads(benchmarks) {
		var mine []*Benchmark
		for _, b := range benchmarks {
			if b.Workload() == wl {
				mine = append(mine, b)
			}
		}
		groups := Groups(mine)
		repeats := false
		for _, g := range groups {
			if len(g.Benchmarks) > 1 {
				repeats = true
			}
		}
		t := Table{Title: wl}
		for _, tag := range tags {
			t.Columns = append(t.Columns, tag)
			t.Numeric = append(t.Numeric, false)
		}
		t.Columns = append(t.Columns, "threads")
		t.Numeric = append(t.Numeric, true)
		if repeats {
			t.Columns = append(t.Columns, "runs", "tps cv")
			t.Numeric = append(t.Numeric, true, true)
		}
		for _, c := range []string{"tps", "qps", "avg ms", "p95 ms", "p99 ms", "min ms", "max ms", "errors"} {
			t.Columns = append(t.Columns, c)
			t.Numeric = append(t.Numeric, true)
		}
		order := tagOrder(groups, tags)
		sort.SliceStable(groups, func(i, j int) bool {
			a, b := order[groups[i].Key.Tags], order[groups[j].Key.Tags]
			if a != b {
				return a < b
			}
			return groups[i].Key.Threads < groups[j].Key.Threads
		})
		for _, g := range groups {
			var row []string
			for _, tag := range tags {
				row = append(row, g.Tags[tag])
			}
			row = append(row, strconv.Itoa(g.Key.Threads))
			if repeats {
				s := g.Stats(MetricTPS)
				row = append(row, strconv.Itoa(s.N), fmt.Sprintf("%.1f%%", s.CV*100))
			}
			row = append(row, num(g.Stats(MetricTPS).Mean), num(g.Stats(MetricQPS).Mean), num(g.Stats(MetricAvg).Mean),
				num(g.Stats(MetricP95).Mean), num(g.Stats(MetricP99).Mean), num(g.MinLatency()), num(g.Stats(MetricMax).Mean),
				strconv.FormatInt(g.Errors(), 10))
			t.Rows = append(t.Rows, row)
		}
		tables = append(tables, t)
	}
	return tables
}

// tagOrder ranks tag combinations by first appearance.
func tagOrder(groups []*Group, _ []string) map[string]int {
	order := map[string]int{}
	for _, g := range groups {
		if _, ok := order[g.Key.Tags]; !ok {
			order[g.Key.Tags] = len(order)
		}
	}
	return order
}

// WriteText writes tables with aligned columns.
func WriteText(w io.Writer, tables []Table) {
	for i, t := range tables {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, t.Title)
		widths := make([]int, len(t.Columns))
		for c, name := range t.Columns {
			widths[c] = len(name)
		}
		for _, row := range t.Rows {
			for c, cell := range row {
				widths[c] = max(widths[c], len(cell))
			}
		}
		line := func(cells []string) {
			var parts []string
			for c, cell := range cells {
				if t.Numeric[c] {
					parts = append(parts, fmt.Sprintf("%*s", widths[c], cell))
				} else {
					parts = append(parts, fmt.Sprintf("%-*s", widths[c], cell))
				}
			}
			fmt.Fprintln(w, strings.TrimRight(strings.Join(parts, "  "), " "))
		}
		line(t.Columns)
		dashes := make([]string, len(widths))
		for c, n := range widths {
			dashes[c] = strings.Repeat("-", n)
		}
		fmt.Fprintln(w, strings.Join(dashes, "  "))
		for _, row := range t.Rows {
			line(row)
		}
	}
}

// WriteMarkdown writes tables as GitHub Markdown.
func WriteMarkdown(w io.Writer, tables []Table) {
	for i, t := range tables {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "### %s\n\n", t.Title)
		fmt.Fprintf(w, "| %s |\n", strings.Join(t.Columns, " | "))
		aligns := make([]string, len(t.Columns))
		for c := range aligns {
			aligns[c] = "---"
			if t.Numeric[c] {
				aligns[c] = "---:"
			}
		}
		fmt.Fprintf(w, "|%s|\n", strings.Join(aligns, "|"))
		for _, row := range t.Rows {
			fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
		}
	}
}

// WriteCSV writes one flat CSV: a row per benchmark step.
func WriteCSV(w io.Writer, benchmarks []*Benchmark) error {
	tags := tagNames(benchmarks)
	cw := csv.NewWriter(w)
	header := []string{"run", "step", "workload", "threads"}
	header = append(header, tags...)
	header = append(header, RoundTag, "seconds", "events", "tps", "qps", "reads", "writes", "others", "errors", "reconnects",
		"lat_min_ms", "lat_avg_ms", "lat_p50_ms", "lat_p95_ms", "lat_p99_ms", "lat_p999_ms", "lat_max_ms", "status")
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, b := range benchmarks {
		s := &b.Summary
		row := []string{b.Run.Name, b.Step, b.Workload(), strconv.Itoa(b.Threads())}
		for _, t := range tags {
			row = append(row, s.Tags[t])
		}
		p := s.Latency.Percentiles
		row = append(row, s.Tags[RoundTag], num(s.Seconds), strconv.FormatInt(s.Events, 10), num(s.TPS), num(s.QPS),
			strconv.FormatInt(s.Reads, 10), strconv.FormatInt(s.Writes, 10), strconv.FormatInt(s.Others, 10),
			strconv.FormatInt(s.Errors, 10), strconv.FormatInt(s.Reconnects, 10),
			num(s.Latency.MinMS), num(s.Latency.AvgMS), num(p["50"]), num(p["95"]), num(p["99"]), num(p["99.9"]), num(s.Latency.MaxMS), s.Status)
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// jsonRun is the JSON form of a run.
type jsonRun struct {
	Dir        string          `json:"dir"`
	Manifest   jsonManifest    `json:"manifest"`
	Benchmarks []jsonBenchmark `json:"benchmarks"`
}

// jsonManifest is the part of the manifest a JSON report shows: what a
// reader needs beside the numbers (not the servers' variables).
type jsonManifest struct {
	Tool struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"tool"`
	Plan        string                    `json:"plan"`
	Params      map[string]any            `json:"params"`
	Seed        int64                     `json:"seed"`
	CommandLine []string                  `json:"command_line"`
	Host        map[string]any            `json:"host"`
	Targets     map[string]results.Target `json:"targets"`
	Banners     []string                  `json:"banners"`
	Started     time.Time                 `json:"started"`
	Ended       *time.Time                `json:"ended"`
	Status      string                    `json:"status"`
	Error       string                    `json:"error"`
	Sources     []jsonSource              `json:"sources"`
}

type jsonSource struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
}

func manifestJSON(m *results.Manifest) jsonManifest {
	j := jsonManifest{Plan: m.Plan, Params: m.Params, Seed: m.Seed, CommandLine: m.CommandLine,
		Targets: map[string]results.Target{}, Banners: m.Banners, Started: m.Started, Ended: m.Ended, Status: m.Status, Error: m.Error}
	j.Tool.Name, j.Tool.Version = m.Tool.Name, m.Tool.Version
	if data, err := json.Marshal(m.Host); err == nil {
		_ = json.Unmarshal(data, &j.Host) // keys in sorted order, as JSON reports always printed them
	}
	for name := range m.Targets {
		j.Targets[name] = m.Target(name)
	}
	for _, src := range m.Sources {
		j.Sources = append(j.Sources, jsonSource{src.Name, src.SHA256})
	}
	return j
}

type jsonBenchmark struct {
	Step    string `json:"step,omitempty"`
	Dir     string `json:"dir"`
	Summary any    `json:"summary"`
}

// WriteJSON writes the runs' manifests and benchmark summaries.
func WriteJSON(w io.Writer, runs []*Run) error {
	var out []jsonRun
	for _, r := range runs {
		jr := jsonRun{Dir: r.Dir, Manifest: manifestJSON(&r.Manifest), Benchmarks: []jsonBenchmark{}}
		for _, b := range r.Benchmarks {
			jr.Benchmarks = append(jr.Benchmarks, jsonBenchmark{Step: b.Step, Dir: b.Dir, Summary: b.Summary})
		}
		out = append(out, jr)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if len(out) == 1 {
		if err := enc.Encode(out[0]); err != nil {
			return err
		}
	} else if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// Benchmarks lists the benchmarks of several runs.
func Benchmarks(runs []*Run) []*Benchmark {
	var out []*Benchmark
	for _, r := range runs {
		out = append(out, r.Benchmarks...)
	}
	return out
}

// WriteReport writes the text or Markdown report of runs: what ran (plan,
// status, params, targets) and a table per workload.
func WriteReport(w io.Writer, runs []*Run, markdown bool) {
	for _, r := range runs {
		if markdown {
			fmt.Fprintf(w, "# starbench report: %s\n\n", r.Manifest.Plan)
			for _, f := range facts(r) {
				fmt.Fprintf(w, "- **%s**: %s\n", f.Name, strings.ReplaceAll(f.Value, "\n", " "))
			}
			for _, b := range r.Manifest.Banners {
				fmt.Fprintf(w, "\n> %s\n", strings.ReplaceAll(b, "\n", " "))
			}
			fmt.Fprintln(w)
		} else {
			fmt.Fprintf(w, "%s (%s)\n", r.Manifest.Plan, r.Dir)
			for _, f := range facts(r) {
				fmt.Fprintf(w, "  %-12s %s\n", f.Name+":", f.Value)
			}
			fmt.Fprintln(w)
		}
	}
	benchmarks := Benchmarks(runs)
	if len(benchmarks) == 0 {
		fmt.Fprintln(w, "No benchmark steps.")
		return
	}
	if markdown {
		fmt.Fprintf(w, "## Results\n\n")
		WriteMarkdown(w, WorkloadTables(benchmarks))
	} else {
		WriteText(w, WorkloadTables(benchmarks))
	}
}
