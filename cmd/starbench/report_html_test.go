package main

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/starbench/starbench/runner/results"
)

// synthLoad is a benchmark step made up for report tests: n one-second
// intervals, interval i with events(i) events that all took latMS(i) ms
// (its p50, p95, p99 and max), queries per event, and errors(i) errors.
type synthLoad struct {
	workload string
	threads  int
	tags     map[string]string
	started  time.Time
	n        int
	queries  int64 // per event
	events   func(i int) int64
	latMS    func(i int) float64
	errors   func(i int) int64
}

// synthStep is a synthLoad as written: its summary, intervals and total
// latency histogram (µs).
type synthStep struct {
	sum   *results.Summary
	rows  []results.Interval
	total *hdr.Histogram
}

// write writes the load's step folder with runner/results' writer. With
// hlog, latency.hlog has a histogram per interval (those of equal events
// and latency are one histogram); without, it has none (the report does
// not read it, and encoding 21,600 histograms takes seconds).
func (l synthLoad) write(t *testing.T, dir string, hlog bool) synthStep {
	t.Helper()
	type kind struct {
		events int64
		us     int64
	}
	hists := map[kind]*hdr.Histogram{}
	total := hdr.New(1, 60e6, 3)
	var ivs []results.Interval
	var lat []results.LatencyInterval
	var events, errs int64
	var sumMS, minMS, maxMS float64
	for i := 0; i < l.n; i++ {
		e, ms := l.events(i), l.latMS(i)
		var er int64
		if l.errors != nil {
			er = l.errors(i)
		}
		k := kind{e, int64(ms * 1000)}
		if err := total.RecordValues(k.us, e); err != nil {
			t.Fatal(err)
		}
		ivs = append(ivs, results.Interval{Time: float64(i + 1), Threads: l.threads, Events: e, TPS: float64(e),
			QPS: float64(e * l.queries), ReadsPerS: float64(e * l.queries), ErrorsPerS: float64(er),
			P50: ms, P95: ms, P99: ms, Max: ms})
		if hlog {
			h := hists[k]
			if h == nil {
				h = hdr.New(1, 60e6, 3)
				if err := h.RecordValues(k.us, e); err != nil {
					t.Fatal(err)
				}
				hists[k] = h
			}
			lat = append(lat, results.LatencyInterval{Start: time.Duration(i) * time.Second, End: time.Duration(i+1) * time.Second, Histogram: h})
		}
		events += e
		errs += er
		sumMS += ms * float64(e)
		if i == 0 || ms < minMS {
			minMS = ms
		}
		maxMS = max(maxMS, ms)
	}
	secs := float64(l.n)
	sum := &results.Summary{Workload: results.Meta{Name: l.workload, Version: "test"}, Tags: l.tags, Started: l.started,
		Threads: l.threads, Seconds: secs, Stopped: "time", Status: results.StatusCompleted, Events: events,
		Queries: events * l.queries, Reads: events * l.queries, Errors: errs, TPS: float64(events) / secs,
		QPS: float64(events*l.queries) / secs, Latency: results.LatencyOf(total, minMS, maxMS, sumMS, events),
		IntervalSeconds: 1, PlannedSeconds: secs}
	if err := results.WriteStep(dir, results.Step{Summary: sum, Intervals: ivs, Latency: lat}); err != nil {
		t.Fatal(err)
	}
	return synthStep{sum: sum, rows: ivs, total: total}
}

// writeMerged writes a merged step as bench.together does: its parts
// under parts/, merged with results.Merge. It returns the merged summary.
func writeMerged(t *testing.T, dir string, names []string, loads []synthLoad) *results.Summary {
	t.Helper()
	var parts []results.MergePart
	for k, l := range loads {
		pd := filepath.Join(dir, results.PartDir(k+1, names[k]))
		l.write(t, pd, true)
		parts = append(parts, results.MergePart{Name: names[k], Dir: pd})
	}
	sum, err := results.Merge(dir, parts, results.MergeOptions{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := results.FinishStep(dir, sum, nil); err != nil {
		t.Fatal(err)
	}
	return sum
}

// writeAdded writes a merged step without latency logs: the parts' step
// folders under parts/, and the step's own summary and intervals added up
// here (counts and rates summed, latency percentiles off the parts' total
// histograms, an interval's the slowest part's), each part's rows placed
// by its start. It returns the merged summary.
func writeAdded(t *testing.T, dir string, names []string, loads []synthLoad) *results.Summary {
	t.Helper()
	sum := &results.Summary{Stopped: "time", Status: results.StatusCompleted, IntervalSeconds: 1}
	total := hdr.New(1, 60e6, 3)
	var workloads []string
	var sumMS float64
	byTime := map[int]*results.Interval{}
	for k, l := range loads {
		pd := results.PartDir(k+1, names[k])
		p := l.write(t, filepath.Join(dir, pd), false)
		s := p.sum
		workloads = append(workloads, s.Workload.Name)
		if k == 0 || s.Started.Before(sum.Started) {
			sum.Started = s.Started
		}
		sum.Threads += s.Threads
		sum.Seconds = max(sum.Seconds, s.Seconds)
		sum.PlannedSeconds = s.PlannedSeconds
		sum.Events += s.Events
		sum.Queries += s.Queries
		sum.Reads += s.Reads
		sum.Errors += s.Errors
		sum.TPS += s.TPS
		sum.QPS += s.QPS
		if k == 0 || s.Latency.MinMS < sum.Latency.MinMS {
			sum.Latency.MinMS = s.Latency.MinMS
		}
		sum.Latency.MaxMS = max(sum.Latency.MaxMS, s.Latency.MaxMS)
		sumMS += s.Latency.SumMS
		total.Merge(p.total)
		sum.Parts = append(sum.Parts, results.Part{Name: names[k], Dir: pd, Workload: s.Workload.Name, Status: s.Status})
		offset := int(s.Started.Sub(loads[0].started).Seconds())
		for _, r := range p.rows {
			at := int(r.Time) + offset
			m := byTime[at]
			if m == nil {
				m = &results.Interval{Time: float64(at)}
				byTime[at] = m
			}
			m.Threads += r.Threads
			m.Events += r.Events
			m.TPS += r.TPS
			m.QPS += r.QPS
			m.ReadsPerS += r.ReadsPerS
			m.ErrorsPerS += r.ErrorsPerS
			m.P50, m.P95, m.P99, m.Max = max(m.P50, r.P50), max(m.P95, r.P95), max(m.P99, r.P99), max(m.Max, r.Max)
		}
	}
	sum.Workload = results.Meta{Name: strings.Join(workloads, "+"), Version: "test"}
	sum.Latency = results.LatencyOf(total, sum.Latency.MinMS, sum.Latency.MaxMS, sumMS, sum.Events)
	var rows []results.Interval
	for at := 1; at <= len(byTime); at++ {
		rows = append(rows, *byTime[at])
	}
	if err := results.WriteStep(dir, results.Step{Summary: sum, Intervals: rows}); err != nil {
		t.Fatal(err)
	}
	return sum
}

// writeSynthManifest makes dir a results folder of a completed run.
func writeSynthManifest(t *testing.T, dir string, started time.Time, steps int) {
	t.Helper()
	ended := started.Add(time.Hour)
	m := &results.Manifest{Tool: results.ToolInfo{Name: results.ToolName, Version: "test"}, Plan: "synthetic.star",
		Seed: 1, Started: started, Ended: &ended, Status: results.StatusCompleted, Steps: steps}
	if err := results.WriteManifest(dir, m, nil); err != nil {
		t.Fatal(err)
	}
}

// csvRows counts the rows of a step folder's intervals.csv (the header
// aside), read as CSV and not through runner/results.
func csvRows(t *testing.T, dir string) int {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, results.IntervalsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return len(recs) - 1
}

// drawnSeries is what the page draws of one line of a chart.
type drawnSeries struct {
	Kind, Step, Metric, Series string
	Vertices                   int     // M and L commands of its path
	Length                     float64 // the path's drawn length (px)
	Values                     int     // data-values: how many values it has
	Note                       string  // the chart's note
}

// drawnLines lists every line of every chart on the page.
func drawnLines(p *browserPage) []drawnSeries {
	return evalIn[[]drawnSeries](p, `Array.from(document.querySelectorAll("figure.chart")).flatMap(fig =>
		Array.from(fig.querySelectorAll("g.series")).map(g => {
			const path = g.querySelector("path");
			const note = fig.querySelector("text.note");
			return {Kind: fig.dataset.kind || "", Step: fig.dataset.step || "", Metric: fig.dataset.metric || "",
				Series: g.dataset.series, Vertices: (path.getAttribute("d").match(/[ML]/g) || []).length,
				Length: path.getTotalLength(), Values: Number(g.dataset.values), Note: note ? note.textContent : ""};
		}))`)
}

// layoutRun writes a results folder whose page has charts with many
// legend entries and long labels: oltp_read_write run in four versions
// with long names at three thread levels; oltp_point_select at one
// thread level in two rounds; and step 20, oltp_point_select and tpcc
// together as three parts with long names (the third starts 2 s late, the
// second has errors).
func layoutRun(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "layout")
	start := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	steps := 0
	versions := []string{"v8.5.1-nightly-20261201-release-candidate", "v8.5.1-nightly-20261201-with-async-commit",
		"v7.5.4", "v8.5.1-nightly-20261201-with-a-very-long-build-suffix-for-testing"}
	for vi, v := range versions {
		for ti, threads := range []int{1, 16, 256} {
			steps++
			base := int64(100 * (vi + 1) * (ti + 1))
			synthLoad{workload: "oltp_read_write", threads: threads, started: start, n: 30, queries: 18,
				tags:   map[string]string{"version": v, "config": "tidb_enable_async_commit=on,tidb_txn_mode=pessimistic"},
				events: func(i int) int64 { return base + int64(i%7) }, latMS: func(i int) float64 { return float64(ti+1) + float64(i%5)/10 },
			}.write(t, results.StepDir(dir, strconv.Itoa(steps), fmt.Sprintf("oltp_read_write-t%d", threads)), true)
		}
	}
	for round := 1; round <= 2; round++ {
		steps++
		synthLoad{workload: "oltp_point_select", threads: 8, started: start, n: 25, queries: 1,
			tags:   map[string]string{"version": "v7.5.4", "round": strconv.Itoa(round)},
			events: func(i int) int64 { return 5000 + int64(i%3) }, latMS: func(i int) float64 { return 0.5 },
		}.write(t, results.StepDir(dir, strconv.Itoa(steps), "oltp_point_select-t8"), true)
	}
	steps = 20
	names := []string{"oltp_point_select-t4-a-long-part-name", "tpcc-w10-t2-another-long-part-name", "oltp_point_select-t1-late"}
	loads := []synthLoad{
		{workload: "oltp_point_select", threads: 4, started: start, n: 40, queries: 1,
			events: func(i int) int64 { return 3000 + int64(i%4) }, latMS: func(i int) float64 { return 1 }},
		{workload: "tpcc", threads: 2, started: start, n: 40, queries: 14,
			events: func(i int) int64 { return 300 + int64(i%5) }, latMS: func(i int) float64 { return 8 + float64(i%3) },
			errors: func(i int) int64 { return int64(i % 4) }},
		{workload: "oltp_point_select", threads: 1, started: start.Add(2 * time.Second), n: 40, queries: 1,
			events: func(i int) int64 { return 1000 }, latMS: func(i int) float64 { return 0.8 }},
	}
	writeMerged(t, results.StepDir(dir, "20", "together"), names, loads)
	writeSynthManifest(t, dir, start, steps)
	return dir
}

// The report's charts in Chromium: no two legend entries of a chart
// overlap, nor two axis labels, with many and long labels (the report, and
// a comparison of long step names); every step has its charts over time,
// a point per row of its intervals.csv, a merged step's parts each drawn
// over it; and a workload run at a single thread level has no chart
// against threads.
func TestHTMLReportChartsInBrowser(t *testing.T) {
	dir := layoutRun(t)
	page := filepath.Join(t.TempDir(), "report.html")
	expect(t, starbench(t, nil, "report", dir, "--format", "html", "-o", page), 0, "wrote "+page)
	compare := filepath.Join(t.TempDir(), "compare.html")
	expect(t, starbench(t, nil, "compare", dir, "--by", "version", "--baseline", "v7.5.4", "--format", "html", "-o", compare), 0, "wrote "+compare)
	checkInBrowser(t, compare, 1)
	checkInBrowser(t, page, 2+14*2)

	p := openInBrowser(t, page)
	// The page has what the layout check is for: a chart with many legend
	// entries, long ones.
	type legendStats struct{ Entries, Longest int }
	if ls := evalIn[legendStats](p, `Array.from(document.querySelectorAll("ul.legend")).reduce((s, ul) => {
			const names = Array.from(ul.querySelectorAll("li")).map(li => li.textContent.length);
			return {Entries: Math.max(s.Entries, names.length), Longest: Math.max(s.Longest, ...names, 0)};
		}, {Entries: 0, Longest: 0})`); ls.Entries < 8 || ls.Longest < 60 {
		t.Errorf("the busiest legend has %d entries, the longest %d characters: the page does not test legends", ls.Entries, ls.Longest)
	}

	// Charts against threads: oltp_read_write (three levels) has its two,
	// oltp_point_select (one level) and the merged step (one) none.
	threads := evalIn[map[string]int](p, `Object.fromEntries(Array.from(document.querySelectorAll("section[data-title]")).map(s =>
		[s.dataset.title, s.querySelectorAll("figure.chart[data-kind=threads]").length]))`)
	for wl, want := range map[string]int{"oltp_read_write": 2, "oltp_point_select": 0, "oltp_point_select+tpcc": 0} {
		if got, ok := threads[wl]; !ok || got != want {
			t.Errorf("section %s: %d charts against threads (present %v), want %d; all: %v", wl, got, ok, want, threads)
		}
	}

	// Every step over time: one vertex per row of its intervals.csv, on
	// each of its charts; the merged step's parts each drawn.
	lines := drawnLines(p)
	stepDirs := results.StepDirs(dir)
	if len(stepDirs) != 15 {
		t.Fatalf("%d step folders", len(stepDirs))
	}
	for _, sd := range stepDirs {
		id := results.StepID(sd)
		want := map[string]int{"step": csvRows(t, sd)}
		for k := 1; ; k++ {
			parts, _ := filepath.Glob(filepath.Join(sd, results.PartsDir, fmt.Sprintf("%d-*", k)))
			if len(parts) == 0 {
				break
			}
			want[fmt.Sprintf("part %d", k)] = csvRows(t, parts[0])
		}
		seen := map[string]int{} // charts per line
		metrics := map[string]bool{}
		for _, l := range lines {
			if l.Kind != "time" || l.Step != id {
				continue
			}
			metrics[l.Metric] = true
			line, _, _ := strings.Cut(strings.Replace(l.Series, "part ", "part_", 1), " ")
			line = strings.Replace(line, "part_", "part ", 1)
			rows, ok := want[line]
			if !ok {
				t.Errorf("step %s: chart %s has a line %q of no step or part", id, l.Metric, l.Series)
				continue
			}
			seen[line]++
			if l.Vertices != rows || l.Values != rows || l.Length <= 0 || l.Note != "" {
				t.Errorf("step %s: chart %s, line %q: %d vertices, %d values, %.0f px long, note %q; want %d of each (intervals.csv's rows), drawn, no note",
					id, l.Metric, l.Series, l.Vertices, l.Values, l.Length, l.Note, rows)
			}
		}
		if !metrics["tps"] || !metrics["latency"] {
			t.Errorf("step %s: time charts %v, want tps and latency", id, metrics)
		}
		for line := range want {
			if seen[line] < 3 { // tps, p99 and p95 at least
				t.Errorf("step %s: %s is drawn on %d lines over time, want 3 or more (charts: %v)", id, line, seen[line], metrics)
			}
		}
		if id == "20" && (len(want) != 4 || !metrics["errors"] || !metrics["qps"]) {
			t.Errorf("step 20: lines %v, charts %v; want the step and 3 parts, with qps and errors charts", want, metrics)
		}
	}
}

// A six-hour merged step at one-second intervals (21,600 a part, four
// parts) renders to less than 5 MB: its lines are downsampled for drawing
// (the charts say so), its table's figures are the summaries' to the
// digit.
func TestHTMLReportOfASixHourStep(t *testing.T) {
	const n = 6 * 3600
	dir := filepath.Join(t.TempDir(), "six-hours")
	start := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	names := []string{"oltp_read_write-t64", "oltp_point_select-t32", "tpcc-w100-t16", "oltp_update_index-t8"}
	spike := 13_000 // the one interval of part 2 that took 250 ms
	loads := []synthLoad{
		{workload: "oltp_read_write", threads: 64, started: start, n: n, queries: 18,
			events: func(i int) int64 { return 2000 + int64(10*((i/60)%4)) }, latMS: func(i int) float64 { return 30 + float64((i/300)%3) }},
		{workload: "oltp_point_select", threads: 32, started: start, n: n, queries: 1,
			events: func(i int) int64 { return 40000 + int64(100*((i/90)%5)) },
			latMS: func(i int) float64 {
				if i == spike {
					return 250
				}
				return 0.8
			}},
		{workload: "tpcc", threads: 16, started: start.Add(3 * time.Second), n: n, queries: 30,
			events: func(i int) int64 { return 500 + int64((i/120)%3) }, latMS: func(i int) float64 { return 12 },
			errors: func(i int) int64 { return int64((i / 1000) % 2) }},
		{workload: "oltp_update_index", threads: 8, started: start.Add(time.Second), n: n, queries: 1,
			events: func(i int) int64 { return 3000 - int64(i/3600) }, latMS: func(i int) float64 { return 2.5 + float64(i/3600)/10 }},
	}
	var wantTPS float64
	for _, l := range loads {
		var events int64
		for i := 0; i < n; i++ {
			events += l.events(i)
		}
		wantTPS += float64(events) / n
	}
	step := results.StepDir(dir, "1", "together")
	t0 := time.Now()
	merged := writeAdded(t, step, names, loads)
	writeSynthManifest(t, dir, start, 1)
	t.Logf("wrote %d parts of %d intervals and their sum in %v", len(loads), n, time.Since(t0).Round(time.Millisecond))

	page := filepath.Join(t.TempDir(), "report.html")
	t0 = time.Now()
	expect(t, starbench(t, nil, "report", dir, "--format", "html", "-o", page), 0, "wrote "+page)
	took := time.Since(t0)
	st, err := os.Stat(page)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("report.html of a six-hour step (%d parts, %d intervals each): %d bytes (%.2f MB), rendered by `starbench report --format html` in %v",
		len(loads), n, st.Size(), float64(st.Size())/(1<<20), took.Round(time.Millisecond))
	if st.Size() >= 5<<20 {
		t.Errorf("report.html is %d bytes, want under 5 MB", st.Size())
	}

	checkInBrowser(t, page, 4)
	p := openInBrowser(t, page)
	// The table: the merged row, then a row per part, each the figures of
	// its summary.json; the merged tps is the parts' events over six hours.
	rows := evalIn[[]map[string]string](p, `(() => {
		const table = document.querySelector("section[data-title] table");
		const head = Array.from(table.querySelectorAll("tr:first-child th")).map(th => th.textContent);
		return Array.from(table.querySelectorAll("tr")).slice(1).map(tr =>
			Object.fromEntries(Array.from(tr.querySelectorAll("td")).map((td, i) => [head[i], td.textContent])));
	})()`)
	sums := []*results.Summary{merged}
	for k, name := range names {
		s, err := results.ReadSummary(filepath.Join(step, results.PartDir(k+1, name)))
		if err != nil {
			t.Fatal(err)
		}
		sums = append(sums, s)
	}
	if len(rows) != len(sums) {
		t.Fatalf("table rows %v, want %d", rows, len(sums))
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
	if got := rows[0]["tps"]; got != f(wantTPS) || got != f(merged.TPS) {
		t.Errorf("merged tps %s, want %s (the parts' events / %d s)", got, f(wantTPS), n)
	}
	for i, s := range sums {
		want := map[string]string{"threads": strconv.Itoa(s.Threads), "tps": f(s.TPS), "qps": f(s.QPS), "avg ms": f(s.Latency.AvgMS),
			"p95 ms": f(s.Latency.Percentiles["95"]), "p99 ms": f(s.Latency.Percentiles["99"]), "min ms": f(s.Latency.MinMS),
			"max ms": f(s.Latency.MaxMS), "errors": strconv.FormatInt(s.Errors, 10)}
		for col, w := range want {
			if rows[i][col] != w {
				t.Errorf("row %d (%s): %s %q, want %q (summary.json)", i, rows[i]["part"], col, rows[i][col], w)
			}
		}
	}
	if rows[2]["max ms"] != "250.00" || merged.Latency.MaxMS != 250 {
		t.Errorf("the spike: part 2's max %s, merged %v", rows[2]["max ms"], merged.Latency.MaxMS)
	}

	// The charts: every line downsampled to at most two points per pixel
	// column (plus its ends), said in the chart; each part drawn.
	lines := drawnLines(p)
	charts := map[string]bool{}
	for _, l := range lines {
		if l.Kind != "time" {
			continue
		}
		charts[l.Metric] = true
		if l.Values < n || l.Vertices > 2*610+2 || l.Vertices < 200 || l.Length <= 0 || !strings.Contains(l.Note, "downsampled") {
			t.Errorf("chart %s, line %q: %d values drawn as %d vertices (%.0f px), note %q; want at least %d downsampled to 200-1222, said in the note",
				l.Metric, l.Series, l.Values, l.Vertices, l.Length, l.Note, n)
		}
	}
	if len(lines) < 5+5*2+5+4 || !charts["tps"] || !charts["latency"] || !charts["qps"] || !charts["errors"] {
		t.Errorf("%d lines on charts %v", len(lines), charts)
	}
}

// The results folders of earlier format versions (testdata/results) render
// to pages Chromium draws without an error, nothing overlapping; a merged
// step of format version 3, whose own rows were lost, has its parts' lines.
func TestHTMLReportOfOldFolders(t *testing.T) {
	for _, dir := range []string{"format2/mixed", "format3/merged", "format3/mixed", "format4/mixed", "format4/plan", "before-results-package"} {
		page := filepath.Join(t.TempDir(), strings.ReplaceAll(dir, "/", "-")+".html")
		expect(t, starbench(t, nil, "report", "testdata/results/"+dir, "--format", "html", "-o", page), 0, "wrote "+page)
		checkInBrowser(t, page, 1)
		if dir == "format3/merged" {
			p := openInBrowser(t, page)
			var series []string
			for _, l := range drawnLines(p) {
				if l.Kind == "time" && l.Metric == "tps" {
					series = append(series, l.Series)
				}
			}
			if strings.Join(series, ",") != "part 1,part 2" {
				t.Errorf("%s: lines over time %v, want the two parts'", dir, series)
			}
		}
	}
	// Two runs on one page: each step's charts name their run (those of
	// format4/plan have one interval each: no charts over time, and a note
	// says so).
	page := filepath.Join(t.TempDir(), "two.html")
	expect(t, starbench(t, nil, "report", "testdata/results/format4/plan", "testdata/results/format3/mixed", "--format", "html", "-o", page), 0, "wrote "+page)
	checkInBrowser(t, page, 1)
	p := openInBrowser(t, page)
	runs := evalIn[[]string](p, `[...new Set(Array.from(document.querySelectorAll("figure.chart[data-kind=time]")).map(f => f.dataset.run))]`)
	heads := evalIn[[]string](p, `Array.from(document.querySelectorAll("h3.step")).map(h => h.textContent)`)
	notes := evalIn[string](p, `Array.from(document.querySelectorAll("p.legend-note")).map(n => n.textContent).join("\n")`)
	if strings.Join(runs, ",") != "mixed" || len(heads) != 3 || !strings.Contains(notes, "steps have less than two report intervals each: no charts over time") {
		t.Errorf("runs of the charts over time %v, headings %v, notes %q", runs, heads, notes)
	}
	for _, h := range heads {
		if !strings.HasPrefix(h, "mixed step ") {
			t.Errorf("heading %q does not name its run", h)
		}
	}
}
