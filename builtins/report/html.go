package report

import (
	"embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/starbench/starbench/runner/results"
)

//go:embed templates/*.tmpl
var templateFS embed.FS

var pageTemplate = template.Must(template.New("page.html.tmpl").Funcs(template.FuncMap{
	"add":  func(a, b float64) float64 { return a + b },
	"half": func(a float64) float64 { return a / 2 },
}).ParseFS(templateFS, "templates/page.html.tmpl"))

// page is the model of an HTML report.
type page struct {
	Title      string
	Subtitle   string
	Banners    []string
	Runs       []pageRun
	Violations []string
	Sections   []section
	Empty      bool
}

type pageRun struct {
	Name  string
	Facts []fact
	// Reports are the tables the plan wrote itself (report.table's
	// NAME.html, .md and .csv in the folder), linked from the page.
	Reports []pageLink
}

type pageLink struct{ Name, Href string }

// planReports are the report files a plan wrote into its run's folder
// (report.table's NAME.html, NAME.md, NAME.csv), by name; href is the
// file's path from the folder when the page is the folder's own (one
// run), else from where the report was asked for.
func planReports(r *Run, own bool) []pageLink {
	if r.Dir == "" {
		return nil
	}
	var out []pageLink
	pages, _ := filepath.Glob(filepath.Join(r.Dir, "*.html"))
	sort.Strings(pages)
	for _, page := range pages {
		base := strings.TrimSuffix(filepath.Base(page), ".html")
		if base+".html" == results.ReportHTML || base == "compare" {
			continue
		}
		for _, ext := range []string{".html", ".md", ".csv"} {
			name := base + ext
			if _, err := os.Stat(filepath.Join(r.Dir, name)); err != nil {
				continue
			}
			href := name
			if !own {
				href = filepath.Join(r.Dir, name)
			}
			out = append(out, pageLink{Name: name, Href: href})
		}
	}
	return out
}

type fact struct{ Name, Value string }

type section struct {
	Title  string
	Note   string
	Tables []Table
	Charts []*Chart
	Steps  []stepView // the section's steps over time
	// StepsNote says why steps have no charts over time.
	StepsNote string
}

// WriteHTML writes a self-contained page (no scripts, fonts or network)
// with the runs' manifests and a section per workload: its table, charts
// of tps and latency percentiles against threads (one series per tag
// combination run at several thread levels), and each benchmark step over
// time (see stepTimeSeries), a merged step's parts over its own lines.
func WriteHTML(w io.Writer, runs []*Run) error {
	return ReportOptions{}.WriteHTML(w, runs)
}

// WriteHTML writes WriteHTML's page, each section noting the knees of
// its thread sweeps by o's rule.
func (o ReportOptions) WriteHTML(w io.Writer, runs []*Run) error {
	p := page{Title: "starbench report"}
	if len(runs) == 1 {
		p.Title += ": " + runs[0].Manifest.Plan
		p.Subtitle = runs[0].Dir
	}
	for _, r := range runs {
		p.Runs = append(p.Runs, pageRun{Name: r.Name, Facts: facts(r), Reports: planReports(r, len(runs) == 1)})
		p.Banners = append(p.Banners, r.Manifest.Banners...)
	}
	for _, inc := range IncompleteOf(runs) {
		p.Banners = append(p.Banners, "Incomplete: "+inc.Describe()+".")
	}
	benchmarks := Benchmarks(runs)
	p.Empty = len(benchmarks) == 0 && len(Capacities(runs)) == 0
	for _, c := range Capacities(runs) {
		p.Sections = append(p.Sections, section{Title: "capacity: " + c.Workload, Note: c.Describe() + ".",
			Tables: []Table{CapacityTable(c)}, Charts: capacityCharts(c)})
	}
	// The page shows each merged step's parts under it (a row each).
	tables := ReportOptions{Parts: true}.WorkloadTables(benchmarks)
	for i, wl := range workloads(benchmarks) {
		sec := section{Title: wl, Tables: []Table{tables[i]}}
		sec.Charts = threadCharts(wl, benchmarks)
		short := 0
		var ofWorkload []*Benchmark
		for _, b := range benchmarks {
			if b.Workload() == wl {
				ofWorkload = append(ofWorkload, b)
			}
		}
		more := []func([]*Benchmark) (Table, bool){KindsTable, FiguresTable, StagesTable}
		if t, ok := HeadlineTable(ofWorkload); ok {
			sec.Tables = append([]Table{t}, sec.Tables...) // the family's own figures lead, and hold them all
			more = []func([]*Benchmark) (Table, bool){KindsTable, StagesTable}
		}
		for _, more := range more {
			if t, ok := more(ofWorkload); ok {
				sec.Tables = append(sec.Tables, t)
			}
		}
		if t, ok := TelemetryTable(ofWorkload); ok {
			sec.Tables = append(sec.Tables, t)
		}
		rule := o.kneeRule()
		var knees []string
		sweeps := Knees(ofWorkload, rule)
		for _, k := range sweeps {
			knees = append(knees, k.Describe(rule))
		}
		if AnyKnee(sweeps) {
			sec.Note = fmt.Sprintf("Knees (%s): %s.", rule, strings.Join(knees, "; "))
		}
		for _, b := range ofWorkload {
			if v := stepTimeSeries(b, stepLabel(b, len(runs))); v != nil {
				sec.Steps = append(sec.Steps, *v)
			} else {
				short++
			}
		}
		switch {
		case short == 1:
			sec.StepsNote = "One step has less than two report intervals: no chart over time (its table row holds its figures)."
		case short > 1:
			sec.StepsNote = fmt.Sprintf("%d steps have less than two report intervals each: no charts over time (their table rows hold their figures).", short)
		}
		p.Sections = append(p.Sections, sec)
	}
	return pageTemplate.Execute(w, p)
}

// WriteCompareHTML writes a comparison as a page: the table, the metric
// against the keys per contender, and crossed thresholds.
func WriteCompareHTML(w io.Writer, runs []*Run, c *Comparison) error {
	p := page{Title: fmt.Sprintf("starbench compare: %s by %s", c.Metric, c.byLabel())}
	p.Subtitle = "baseline " + c.Baseline
	for _, r := range runs {
		p.Runs = append(p.Runs, pageRun{Name: r.Name, Facts: facts(r)})
	}
	for _, inc := range c.Incomplete {
		p.Banners = append(p.Banners, fmt.Sprintf("Incomplete (%s): %s.", inc.Contender, inc.Describe()))
	}
	for _, v := range c.Violations {
		p.Violations = append(p.Violations, v.Describe(c.Baseline))
	}
	var cats []string
	for _, r := range c.Rows {
		cats = append(cats, r.Name)
	}
	var series []SeriesData
	for i, name := range c.Contenders {
		s := SeriesData{Name: name, Color: i}
		for _, r := range c.Rows {
			if r.Cells[i].Present {
				s.Values = append(s.Values, r.Cells[i].Stats.Mean)
			} else {
				s.Values = append(s.Values, math.NaN())
			}
		}
		series = append(series, s)
	}
	sec := section{Title: "Comparison", Note: c.Legend(), Tables: c.Tables()}
	if AnyKnee(c.Knees) {
		var knees []string
		for _, k := range c.Knees {
			knees = append(knees, k.Describe(c.KneeRule))
		}
		sec.Note += fmt.Sprintf(" Knees (%s): %s.", c.KneeRule, strings.Join(knees, "; "))
	}
	// A single row is a dot per contender: the table says it better.
	if len(cats) > 1 {
		chart := CategoryChart(fmt.Sprintf("%s per step", c.Metric), "workload, threads, tags", metricLabel(c.Metric), shortKeys(cats), series)
		chart.Kind, chart.Metric = "compare", string(c.Metric)
		sec.Charts = []*Chart{chart}
	}
	p.Sections = []section{sec}
	return pageTemplate.Execute(w, p)
}

func shortKeys(keys []string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		k = strings.ReplaceAll(k, "oltp_", "")
		if len(k) > 28 {
			k = k[:27] + "…"
		}
		out[i] = k
	}
	return out
}

func metricLabel(m Metric) string {
	switch m {
	case MetricTPS:
		return "transactions per second"
	case MetricQPS:
		return "queries per second"
	}
	return string(m) + " latency (ms)"
}

// facts lists what the manifest says about a run.
func facts(r *Run) []fact {
	m := r.Manifest
	status := m.Status
	if r.Live && status == results.StatusRunning {
		status = "in progress when this was written (the plan wrote it during its run)"
	}
	fs := []fact{{"plan", m.Plan}, {"status", status}, {"tool", m.Tool.Name + " " + m.Tool.Version}}
	if !m.Started.IsZero() {
		v := m.Started.Format("2006-01-02 15:04:05 MST")
		if m.Ended != nil {
			v += fmt.Sprintf(" (%s)", m.Ended.Sub(m.Started).Round(1e9))
		}
		fs = append(fs, fact{"started", v})
	}
	fs = append(fs, fact{"seed", strconv.FormatInt(m.Seed, 10)})
	if len(m.Params) > 0 {
		var names []string
		for k := range m.Params {
			names = append(names, k)
		}
		sort.Strings(names)
		var parts []string
		for _, k := range names {
			parts = append(parts, fmt.Sprintf("%s=%v", k, m.Params[k]))
		}
		fs = append(fs, fact{"params", strings.Join(parts, "  ")})
	}
	var tnames []string
	for k := range m.Targets {
		tnames = append(tnames, k)
	}
	sort.Strings(tnames)
	for _, k := range tnames {
		t := m.Target(k)
		where := t.DSN
		if where == "" {
			where = t.Endpoints
		}
		fs = append(fs, fact{"target " + k, strings.TrimSpace(fmt.Sprintf("%s %s %s", t.ServerVersion, t.Kind, where))})
	}
	if h := m.Host; h.OS != "" {
		fs = append(fs, fact{"client host", fmt.Sprintf("%v, %v CPUs, %v, kernel %v", h.CPUModel, h.CPUs, h.Distro, h.Kernel)})
	}
	if m.Error != "" {
		fs = append(fs, fact{"error", m.Error})
	}
	for _, s := range m.Sources {
		fs = append(fs, fact{"source", fmt.Sprintf("%s sha256:%s", s.Name, s.SHA256[:min(12, len(s.SHA256))])})
	}
	return fs
}

// threadCharts are tps and latency percentiles against threads, one
// series per tag combination (repeats averaged) run at two thread levels
// or more; a workload with none has no such charts (a lone dot says
// nothing its table does not).
func threadCharts(wl string, benchmarks []*Benchmark) []*Chart {
	var mine []*Benchmark
	for _, b := range benchmarks {
		if b.Workload() == wl {
			mine = append(mine, b)
		}
	}
	seriesOrder := []string{}
	bySeries := map[string]map[int]*Group{}
	for _, g := range Groups(mine) {
		if bySeries[g.Key.Tags] == nil {
			bySeries[g.Key.Tags] = map[int]*Group{}
			seriesOrder = append(seriesOrder, g.Key.Tags)
		}
		bySeries[g.Key.Tags][g.Key.Threads] = g
	}
	threadSet := map[int]bool{}
	var kept []string
	for _, tags := range seriesOrder {
		if len(bySeries[tags]) < 2 {
			continue
		}
		kept = append(kept, tags)
		for t := range bySeries[tags] {
			threadSet[t] = true
		}
	}
	if len(kept) == 0 {
		return nil
	}
	var threads []int
	for t := range threadSet {
		threads = append(threads, t)
	}
	sort.Ints(threads)
	cats := make([]string, len(threads))
	for i, t := range threads {
		cats[i] = strconv.Itoa(t)
	}
	values := func(tags string, m Metric) []float64 {
		out := make([]float64, len(threads))
		for i, t := range threads {
			if g := bySeries[tags][t]; g != nil {
				out[i] = g.Stats(m).Mean
			} else {
				out[i] = math.NaN()
			}
		}
		return out
	}
	name := func(tags string) string {
		if tags == "" {
			return wl
		}
		return tags
	}
	var tps, lat []SeriesData
	for i, tags := range kept {
		tps = append(tps, SeriesData{Name: name(tags), Values: values(tags, MetricTPS), Color: i})
		lat = append(lat,
			SeriesData{Name: name(tags) + " p99", Values: values(tags, MetricP99), Color: i},
			SeriesData{Name: name(tags) + " p95", Values: values(tags, MetricP95), Color: i, Dashed: true})
	}
	charts := []*Chart{
		CategoryChart(wl+": throughput", "threads", "transactions per second", cats, tps),
		CategoryChart(wl+": latency percentiles", "threads", "latency (ms)", cats, lat),
	}
	charts[0].Metric, charts[1].Metric = "tps", "latency"
	for _, c := range charts {
		c.Kind = "threads"
	}
	return charts
}
