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

	"github.com/starbench/starbench/runner/results"
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

// ReportOptions say what a report shows beyond a row per step; the zero
// value is the plain report.
type ReportOptions struct {
	// Parts adds, after the row of a merged step (a together step, or
	// `starbench merge`), a row per part with the part's own numbers: a
	// "part" column in tables, with the part's number and name.
	Parts bool
	// Kinds adds a row per kind of event of each step whose events are of
	// several kinds (transactions, queries) and a row per step with its
	// family's figures (tpmC, power, QphH, ...).
	Kinds bool
	// Knee is the rule the knees of thread sweeps are found by (nil:
	// DefaultKneeRule).
	Knee *KneeRule
}

// kneeRule is the options' knee rule.
func (o ReportOptions) kneeRule() KneeRule {
	if o.Knee != nil {
		return *o.Knee
	}
	return DefaultKneeRule
}

// WorkloadTables builds one table per workload, shaped like the seed
// reports: tags, threads, tps, qps, avg, p95, p99, min and max latency,
// errors. Repeats (the round tag, or the same step run again) are
// averaged and counted in the "runs" column.
func WorkloadTables(benchmarks []*Benchmark) []Table {
	return ReportOptions{}.WorkloadTables(benchmarks)
}

// WorkloadTables builds WorkloadTables' tables; with o.Parts a table
// whose steps have parts gains a "part" column (after the tags) and,
// after each merged row, a row per part: the k-th parts of the row's
// repeats averaged, with the part's threads. A part that did not start
// has its status and error in the part column and "-" for numbers.
func (o ReportOptions) WorkloadTables(benchmarks []*Benchmark) []Table {
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
		repeats, parts := false, false
		for _, g := range groups {
			if len(g.Benchmarks) > 1 {
				repeats = true
			}
			parts = parts || (o.Parts && len(g.PartGroups()) > 0)
		}
		t := Table{Title: wl}
		for _, tag := range tags {
			t.Columns = append(t.Columns, tag)
			t.Numeric = append(t.Numeric, false)
		}
		if parts {
			t.Columns = append(t.Columns, "part")
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
			t.Rows = append(t.Rows, groupRow(g, tags, parts, repeats))
			if !parts {
				continue
			}
			for _, pg := range g.PartGroups() {
				t.Rows = append(t.Rows, groupRow(pg, tags, parts, repeats))
			}
		}
		tables = append(tables, t)
	}
	return tables
}

// groupRow is a table row of a group of steps, or of parts (Key.Part >
// 0): with the part column when parts, the runs and cv columns when
// repeats. A group of parts none of which ran has "-" for numbers.
func groupRow(g *Group, tags []string, parts, repeats bool) []string {
	var row []string
	for _, tag := range tags {
		row = append(row, g.Tags[tag])
	}
	if parts {
		row = append(row, g.partLabel())
	}
	if len(g.Benchmarks) == 0 {
		numbers := 1 + 8 // threads, tps ... errors
		if repeats {
			numbers += 2
		}
		for range numbers {
			row = append(row, "-")
		}
		return row
	}
	threads := g.Key.Threads
	if g.Key.Part > 0 {
		threads = g.Benchmarks[0].Threads()
	}
	row = append(row, strconv.Itoa(threads))
	// A figure an imported step's source did not give is "-", not 0.
	mean := func(m Metric) string {
		if !g.Known(m) {
			return "-"
		}
		return num(g.Stats(m).Mean)
	}
	if repeats {
		s := g.Stats(MetricTPS)
		cv := fmt.Sprintf("%.1f%%", s.CV*100)
		if !g.Known(MetricTPS) {
			cv = "-"
		}
		row = append(row, strconv.Itoa(s.N), cv)
	}
	minLat, errs := num(g.MinLatency()), strconv.FormatInt(g.Errors(), 10)
	if !g.knows(results.FigureMinMS) {
		minLat = "-"
	}
	if !g.knows(results.FigureErrors) {
		errs = "-"
	}
	for _, b := range g.Benchmarks {
		if e := b.Summary.StopError; e != nil { // counted apart: it was not ignored
			errs += fmt.Sprintf(" (+%s stopped it)", e.Code)
			break
		}
	}
	tps := mean(MetricTPS)
	if g.anyIncomplete() {
		tps += incompleteMark
	}
	return append(row, tps, mean(MetricQPS), mean(MetricAvg), mean(MetricP95), mean(MetricP99), minLat, mean(MetricMax), errs)
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
	return ReportOptions{}.WriteCSV(w, benchmarks)
}

// WriteCSV writes WriteCSV's CSV; with o.Parts it has a "part" column
// (after "step"), empty on a step's row, and after a merged step's row
// a row per part: the step's run, step and tags, the part's own
// workload, threads and numbers (empty for a part that did not start).
func (o ReportOptions) WriteCSV(w io.Writer, benchmarks []*Benchmark) error {
	tags := tagNames(benchmarks)
	cw := csv.NewWriter(w)
	header := []string{"run", "step"}
	if o.Parts {
		header = append(header, "part")
	}
	header = append(header, "workload", "threads")
	header = append(header, tags...)
	header = append(header, RoundTag, "seconds", "events", "tps", "qps", "reads", "writes", "others", "errors", "reconnects",
		"lat_min_ms", "lat_avg_ms", "lat_p50_ms", "lat_p95_ms", "lat_p99_ms", "lat_p999_ms", "lat_max_ms", "status")
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, b := range benchmarks {
		if err := cw.Write(csvRow(b, b, tags, o.Parts)); err != nil {
			return err
		}
		if !o.Parts {
			continue
		}
		for _, p := range b.Parts {
			if err := cw.Write(csvRow(b, p, tags, true)); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// csvRow is b's CSV row, with the run, step and tags of step (b itself,
// or the merged step b is a part of).
func csvRow(step, b *Benchmark, tags []string, parts bool) []string {
	s := &b.Summary
	row := []string{step.Run.Name, step.Step}
	if parts {
		row = append(row, b.PartLabel())
	}
	threads := strconv.Itoa(b.Threads())
	if b.Part != nil && !b.Part.Ran {
		threads = ""
	}
	row = append(row, b.Workload(), threads)
	for _, t := range tags {
		row = append(row, step.Summary.Tags[t])
	}
	row = append(row, step.Summary.Tags[RoundTag])
	if b.Part != nil && !b.Part.Ran {
		return append(append(row, make([]string, 16)...), s.Status) // seconds ... lat_max_ms empty
	}
	p := s.Latency.Percentiles
	// A figure an imported step's source did not give is an empty cell.
	f := func(figure, v string) string {
		if !s.Known(figure) {
			return ""
		}
		return v
	}
	n := func(figure string, v int64) string { return f(figure, strconv.FormatInt(v, 10)) }
	pct := func(p float64, v float64) string { return f(results.FigurePercentile(p), num(v)) }
	return append(row, f(results.FigureSeconds, num(s.Seconds)), n(results.FigureEvents, s.Events), f(results.FigureTPS, num(s.TPS)),
		f(results.FigureQPS, num(s.QPS)), n(results.FigureReads, s.Reads), n(results.FigureWrites, s.Writes), n(results.FigureOthers, s.Others),
		n(results.FigureErrors, s.Errors), n(results.FigureReconnects, s.Reconnects),
		f(results.FigureMinMS, num(s.Latency.MinMS)), f(results.FigureAvgMS, num(s.Latency.AvgMS)), pct(50, p["50"]), pct(95, p["95"]),
		pct(99, p["99"]), pct(99.9, p["99.9"]), f(results.FigureMaxMS, num(s.Latency.MaxMS)), s.Status)
}

// jsonRun is the JSON form of a run.
type jsonRun struct {
	Dir        string          `json:"dir"`
	Manifest   jsonManifest    `json:"manifest"`
	Benchmarks []jsonBenchmark `json:"benchmarks"`
	// Capacities are the run's capacity searches (none: left out).
	Capacities []*results.Capacity `json:"capacities,omitempty"`
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
	Step    string     `json:"step,omitempty"`
	Dir     string     `json:"dir"`
	Summary any        `json:"summary"`
	Parts   []jsonPart `json:"parts,omitempty"`
}

// jsonPart is a merged step's part: its entry and, when it ran, its
// summary.
type jsonPart struct {
	Part    int    `json:"part"`
	Name    string `json:"name"`
	Dir     string `json:"dir"`
	Status  string `json:"status"`
	Error   string `json:"error,omitempty"`
	Summary any    `json:"summary,omitempty"` // none: the part did not start
}

// WriteJSON writes the runs' manifests and benchmark summaries, with a
// merged step's parts and their summaries.
func WriteJSON(w io.Writer, runs []*Run) error {
	var out []jsonRun
	for _, r := range runs {
		jr := jsonRun{Dir: r.Dir, Manifest: manifestJSON(&r.Manifest), Benchmarks: []jsonBenchmark{}, Capacities: r.Capacities}
		for _, b := range r.Benchmarks {
			jb := jsonBenchmark{Step: b.Step, Dir: b.Dir, Summary: b.Summary}
			for _, p := range b.Parts {
				e := p.Part.Entry
				jp := jsonPart{Part: p.Part.K, Name: e.Name, Dir: p.Dir, Status: p.Summary.Status, Error: p.Summary.Error}
				if p.Part.Ran {
					jp.Summary = p.Summary
				}
				jb.Parts = append(jb.Parts, jp)
			}
			jr.Benchmarks = append(jr.Benchmarks, jb)
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
	ReportOptions{}.WriteReport(w, runs, markdown)
}

// WriteReport writes WriteReport's report with o's tables.
func (o ReportOptions) WriteReport(w io.Writer, runs []*Run, markdown bool) {
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
	WriteCapacities(w, runs, markdown)
	if len(benchmarks) == 0 {
		if len(Capacities(runs)) == 0 {
			fmt.Fprintln(w, "No benchmark steps.")
		}
		return
	}
	tables := o.WorkloadTables(benchmarks)
	more := []func([]*Benchmark) (Table, bool){StagesTable}
	if o.Kinds {
		more = []func([]*Benchmark) (Table, bool){KindsTable, FiguresTable, StagesTable}
	}
	for _, add := range more {
		if t, ok := add(benchmarks); ok {
			tables = append(tables, t)
		}
	}
	if t, ok := TelemetryTable(benchmarks); ok {
		tables = append(tables, t)
	}
	if markdown {
		fmt.Fprintf(w, "## Results\n\n")
		WriteMarkdown(w, tables)
	} else {
		WriteText(w, tables)
	}
	if list := IncompleteOf(runs); len(list) > 0 {
		for _, b := range benchmarks {
			if !b.Completed() {
				fmt.Fprintf(w, "%s\n", incompleteLegend)
				break
			}
		}
		WriteIncomplete(w, list)
		fmt.Fprintln(w)
	}
	rule := o.kneeRule()
	WriteKnees(w, Knees(benchmarks, rule), rule, markdown)
}
