// Package reportstar is the Starlark adapter of builtins/report: the
// predeclared `report` module, which writes tables and comparisons of the
// run's benchmark steps into its results folder.
package reportstar

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/starbench/starbench/builtins/report"
	"github.com/starbench/starbench/runner"
	"github.com/starbench/starbench/runner/results"
)

// Module is the predeclared `report` module.
var Module = &starlarkstruct.Module{
	Name: "report",
	Members: starlark.StringDict{
		"table":   starlark.NewBuiltin("report.table", table),
		"compare": starlark.NewBuiltin("report.compare", compare),
	},
}

// Doc documents the module for `starbench doc`.
var Doc = runner.ModuleDoc{
	Name: "report",
	Summary: "Reports of the run's benchmark steps so far, written into its results folder. Every run also gets " +
		"report.md and report.html at the end without asking.",
	Funcs: []runner.FuncDoc{
		{Name: "report.table", Signature: "report.table(rows=[], columns=[], metrics=[\"tps\"], split=[], baseline=None, mean=False, per_server=False, include=[], published=[], note=\"\", name=\"table\")",
			Doc: "A report-shaped table of the run's benchmark steps so far and of the results folders in include (e.g. a report's " +
				"published figures, made by starbench import): a table per value of the split tags, a row per value of the rows tags " +
				"and per value of the columns tags a cell of the metrics (tps, qps, min, avg, p95, p99, max, or a family's own metric (TPC-C's tpmc, tpmtotal, efficiency; a mix's retries)). A tag is a tag of " +
				"the steps, or threads (a together step of N loads of 150 reads \"150 ×N\", never the row of a one-load step) or " +
				"workload. Steps in one cell must be repeats (they differ only in tag round, or come from several folders): they are " +
				"averaged and counted. baseline, a value of the first columns tag, adds per metric a change column (x - base) / base % " +
				"for every other value; a step's figure change_<metric> (a report that gives only a change, e.g. +36 % tpmC) fills " +
				"its column's change cell. mean adds a last row: the mean of each column over the rows, for changes the mean of the " +
				"rows' changes; a step with none of the rows tags (a published headline) gives its figures to that row. per_server " +
				"shows a together step of N loads per load: its threads each, tps, qps and tpmC divided by N. Prints the table, writes " +
				"NAME.md, NAME.csv (a line per cell) and NAME.html into the results folder, and returns the cells as a list of dicts: " +
				"split, row, column (dicts of the tags' values), mean, metric, kind (\"value\" or \"change\"), value (None: no " +
				"figure, \"-\" in the table), n (repeats averaged), vs (a change's base column), given, within_noise (a change " +
				"between repeats within their noise, \"~\"). Keyword arguments only. A tag " +
				"no step has, an unknown metric, a baseline no column has or a cell of steps that are not repeats stops the run with " +
				"exit 2 at the call. Seed 004's table: report.table(rows=[\"round\"], columns=[\"case\"], metrics=[\"tps\", " +
				"\"avg\"], mean=True); seed 003's beside its published figures: report.table(split=[\"workload\"], rows=[\"threads\"], " +
				"columns=[\"version\"], metrics=[\"qps\", \"p95\"], baseline=\"v5.1.1\", mean=True, published=[\"seed003_published.csv\"]). " +
				"published names files of a report's figures shipped beside the plan (a CSV, or a peer's raw output: what " +
				"starbench import reads), relative to the plan file as load() is: they are read when the call is made (check finds a " +
				"missing or bad one), recorded with the plan's sources (sha256, a copy; a rerun reads the copy), tagged source " +
				"\"published\" beside the run's steps (source \"rerun\"; columns gain source), and kept in the run's folder as " +
				"NAME-published/, a results folder report and compare read. note is said under the tables, before what their marks " +
				"mean (e.g. which target stood in for which). " +
				"Without rows, columns, metrics, split or the others: the run's whole report (tables per workload, charts) as NAME.md " +
				"and NAME.html, NAME \"results\" by default, returning the Markdown text."},
		{Name: "report.compare", Signature: "report.compare(by, baseline=None, metric=\"tps\", fail_if=[], name=\"compare\")",
			Doc: "Compares the steps by the values of tag `by` (e.g. \"version\") against `baseline` (default: the first value), " +
				"matching workload, threads and the other tags; repeats (tag round) give noise estimates. Writes NAME.md and " +
				"NAME.html and returns a struct: text (Markdown), violations (the fail_if thresholds crossed, as strings, e.g. " +
				"for fail(...)), contenders. metric is tps, qps, min, avg, p95, p99, max or a family's own metric (TPC-C's tpmc, tpmtotal, efficiency; a mix's retries)."},
	},
}

var safeName = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

func load(thread *starlark.Thread) (*report.Run, string, error) {
	dir, err := runner.HostOf(thread).Run().ResultsDir()
	if err != nil || dir == "" {
		return nil, dir, err
	}
	r, err := report.Load(dir)
	if r != nil {
		r.Live = true // the run writing the report: it has not ended
	}
	return r, dir, err
}

func write(thread *starlark.Thread, dir, name string, files map[string][]byte) error {
	for ext, data := range files {
		path := filepath.Join(dir, name+ext)
		if err := results.WriteFile(path, []byte(runner.HostOf(thread).Run().Redact(string(data)))); err != nil {
			return err
		}
	}
	return nil
}

// table is report.table: with none of the pivot's arguments the run's
// report (tables per workload, charts) as NAME.md and NAME.html; with
// them a report-shaped table (report.Pivot) of the run's steps and the
// included folders' as NAME.md, NAME.csv and NAME.html, printed, its
// cells returned.
func table(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var rows, columns, metrics, split, include, published starlark.Value
	var baseline, note string
	var mean, perServer bool
	name := ""
	if len(args) > 0 {
		return nil, fmt.Errorf("%s: takes keyword arguments only (rows=, columns=, metrics=, ..., name=)", b.Name())
	}
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "rows?", &rows, "columns?", &columns, "metrics?", &metrics, "split?", &split,
		"baseline?", &baseline, "mean?", &mean, "per_server?", &perServer, "include?", &include, "published?", &published, "note?", &note, "name?", &name); err != nil {
		return nil, err
	}
	pivoting := baseline != "" || mean || perServer || note != ""
	for _, v := range []starlark.Value{rows, columns, metrics, split, include, published} {
		pivoting = pivoting || (v != nil && v != starlark.None)
	}
	if name == "" {
		name = "results"
		if pivoting {
			name = "table"
		}
	}
	if !safeName.MatchString(name) {
		return nil, fmt.Errorf("%s: name %q must be a plain file name (letters, digits, . _ -)", b.Name(), name)
	}
	if !pivoting {
		return fullReport(thread, b, name)
	}
	var p report.Pivot
	var metricNames, includes, publishedFiles []string
	var err error
	for _, arg := range []struct {
		name string
		v    starlark.Value
		dst  *[]string
	}{{"rows", rows, &p.Rows}, {"columns", columns, &p.Columns}, {"split", split, &p.Split}, {"metrics", metrics, &metricNames},
		{"include", include, &includes}, {"published", published, &publishedFiles}} {
		if *arg.dst, err = runner.StringsOf(arg.v); err != nil {
			return nil, runner.BadPlanInput(thread, "%s: %s: %v", b.Name(), arg.name, err)
		}
	}
	if metrics == nil || metrics == starlark.None {
		metricNames = []string{string(report.MetricTPS)}
	}
	for _, m := range metricNames {
		metric, err := report.ParseMetric(m)
		if err != nil {
			return nil, runner.BadPlanInput(thread, "%s: metrics: %v", b.Name(), err)
		}
		p.Metrics = append(p.Metrics, metric)
	}
	p.Baseline, p.Mean, p.PerServer, p.Note = baseline, mean, perServer, note
	// The report's figures: read now (recorded with the plan's sources, so
	// a rerun reads the same), so that check finds a missing or bad file.
	// An empty name is none (a plan's -p published= turns them off).
	publishedFiles = slices.DeleteFunc(publishedFiles, func(f string) bool { return f == "" })
	pub, err := readPublished(thread, publishedFiles)
	if err != nil {
		return nil, runner.BadPlanInput(thread, "%s: published: %v", b.Name(), err)
	}
	if pub != nil && !slices.Contains(p.Columns, sourceTag) {
		p.Columns = append(p.Columns, sourceTag)
	}
	if err := p.Check(); err != nil {
		return nil, runner.BadPlanInput(thread, "%s: %v", b.Name(), err)
	}
	info := runner.StepInfo{Builtin: "report.table", Text: fmt.Sprintf("write %s.md, %s.csv, %s.html: %s", name, name, name, describe(p)),
		Args: map[string]any{"rows": p.Rows, "columns": p.Columns, "metrics": metricNames, "split": p.Split, "baseline": baseline,
			"mean": mean, "per_server": perServer, "include": includes, "published": pub.names(), "note": note, "name": name}}
	return runner.HostOf(thread).Step(info, runner.Action{
		Run: func(s *runner.Step) (runner.Outcome, error) {
			return pivotTable(thread, b, p, includes, pub, name)
		},
		Placeholder: func(*runner.Step) starlark.Value { return starlark.NewList(nil) },
	})
}

// describe says what a pivot lays out, for step lists: "tps, avg by
// round per case".
func describe(p report.Pivot) string {
	var names []string
	for _, m := range p.Metrics {
		names = append(names, string(m))
	}
	s := strings.Join(names, ", ")
	if len(p.Rows) > 0 {
		s += " by " + strings.Join(p.Rows, ", ")
	}
	if len(p.Columns) > 0 {
		s += " per " + strings.Join(p.Columns, ", ")
	}
	if len(p.Split) > 0 {
		s += ", a table per " + strings.Join(p.Split, ", ")
	}
	return s
}

// pivotTable is report.table's step with a pivot: it reads the run's
// folder and the included ones, lays them out, prints the text tables
// and writes NAME.md, NAME.csv and NAME.html. Bad input (an include that
// is not a results folder, a tag no step has, a baseline no column has)
// is the plan's, at the call.
func pivotTable(thread *starlark.Thread, b *starlark.Builtin, p report.Pivot, includes []string, pub *publishedFigures, name string) (runner.Outcome, error) {
	r, dir, err := load(thread)
	if err != nil {
		return runner.Outcome{}, fmt.Errorf("%s: %w", b.Name(), err)
	}
	runs := []*report.Run{r}
	if pub != nil {
		// The run's own steps are the rerun beside the report's figures.
		for _, bm := range report.Benchmarks(runs) {
			if _, ok := bm.Summary.Tags[sourceTag]; !ok {
				if bm.Summary.Tags == nil {
					bm.Summary.Tags = map[string]string{}
				}
				bm.Summary.Tags[sourceTag] = sourceRerun
			}
		}
		pubDir := filepath.Join(dir, name+"-published")
		if err := pub.write(pubDir, r.Manifest.Tool, runner.HostOf(thread).Run().Redact); err != nil {
			return runner.Outcome{}, fmt.Errorf("%s: published: %w", b.Name(), err)
		}
		pr, err := report.Load(pubDir)
		if err != nil {
			return runner.Outcome{}, fmt.Errorf("%s: published: %w", b.Name(), err)
		}
		runs = append(runs, pr)
	}
	for _, inc := range includes {
		ir, err := report.Load(inc)
		if err != nil {
			if errors.Is(err, report.ErrNotResults) || errors.Is(err, results.ErrNewerFormat) {
				return runner.Outcome{}, runner.BadPlanInput(thread, "%s: include: %v", b.Name(), err)
			}
			return runner.Outcome{}, fmt.Errorf("%s: include: %w", b.Name(), err)
		}
		runs = append(runs, ir)
	}
	res, err := p.Build(report.Benchmarks(runs))
	if err != nil {
		if errors.Is(err, report.ErrBadPivot) {
			return runner.Outcome{}, runner.BadPlanInput(thread, "%s: %v", b.Name(), err)
		}
		return runner.Outcome{}, fmt.Errorf("%s: %w", b.Name(), err)
	}
	var text, md, csv, html bytes.Buffer
	res.WriteText(&text)
	res.WriteMarkdown(&md)
	if err := res.WriteCSV(&csv); err != nil {
		return runner.Outcome{}, fmt.Errorf("%s: %w", b.Name(), err)
	}
	subtitle := r.Dir
	for _, inc := range includes {
		subtitle += ", " + inc
	}
	if err := report.WritePivotHTML(&html, res, "starbench table: "+r.Manifest.Plan, subtitle); err != nil {
		return runner.Outcome{}, fmt.Errorf("%s: %w", b.Name(), err)
	}
	if err := write(thread, dir, name, map[string][]byte{".md": md.Bytes(), ".csv": csv.Bytes(), ".html": html.Bytes()}); err != nil {
		return runner.Outcome{}, fmt.Errorf("%s: %w", b.Name(), err)
	}
	if thread.Print != nil {
		thread.Print(thread, strings.TrimRight(text.String(), "\n"))
	}
	records := res.Records()
	return runner.Outcome{Value: cellValues(records), Record: records}, nil
}

// cellValues are the records as report.table returns them: a dict each.
func cellValues(records []report.PivotRecord) *starlark.List {
	pairs := func(ps []report.Pair) *starlark.Dict {
		d := starlark.NewDict(len(ps))
		for _, p := range ps {
			_ = d.SetKey(starlark.String(p.Name), starlark.String(p.Value))
		}
		return d
	}
	var out []starlark.Value
	for _, rec := range records {
		d := starlark.NewDict(10)
		var value starlark.Value = starlark.None
		if rec.Value != nil {
			value = starlark.Float(*rec.Value)
		}
		for _, kv := range []struct {
			k string
			v starlark.Value
		}{{"split", pairs(rec.Split)}, {"row", pairs(rec.Row)}, {"mean", starlark.Bool(rec.Mean)}, {"column", pairs(rec.Column)},
			{"metric", starlark.String(rec.Metric)}, {"kind", starlark.String(rec.Kind)}, {"value", value}, {"n", starlark.MakeInt(rec.N)},
			{"vs", starlark.String(rec.Vs)}, {"given", starlark.Bool(rec.Given)}, {"within_noise", starlark.Bool(rec.Noise)}} {
			_ = d.SetKey(starlark.String(kv.k), kv.v)
		}
		out = append(out, d)
	}
	return starlark.NewList(out)
}

// fullReport is report.table without a pivot: the run's report.
func fullReport(thread *starlark.Thread, b *starlark.Builtin, name string) (starlark.Value, error) {
	info := runner.StepInfo{Builtin: "report.table", Args: map[string]any{"name": name}, Text: "write " + name + ".md, " + name + ".html"}
	return runner.HostOf(thread).Step(info, runner.Action{
		Run: func(s *runner.Step) (runner.Outcome, error) {
			r, dir, err := load(thread)
			if err != nil {
				return runner.Outcome{}, fmt.Errorf("%s: %w", b.Name(), err)
			}
			var md, html bytes.Buffer
			report.WriteReport(&md, []*report.Run{r}, true)
			if err := report.WriteHTML(&html, []*report.Run{r}); err != nil {
				return runner.Outcome{}, fmt.Errorf("%s: %w", b.Name(), err)
			}
			if err := write(thread, dir, name, map[string][]byte{".md": md.Bytes(), ".html": html.Bytes()}); err != nil {
				return runner.Outcome{}, fmt.Errorf("%s: %w", b.Name(), err)
			}
			return runner.Outcome{Value: starlark.String(md.String()), Record: map[string]any{"files": []string{name + ".md", name + ".html"}}}, nil
		},
		Placeholder: func(*runner.Step) starlark.Value { return starlark.String("") },
	})
}

func compare(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var by, baseline string
	metric, name := "tps", "compare"
	var failIf *starlark.List
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "by", &by, "baseline?", &baseline, "metric?", &metric, "fail_if?", &failIf, "name?", &name); err != nil {
		return nil, err
	}
	if !safeName.MatchString(name) {
		return nil, fmt.Errorf("%s: name %q must be a plain file name (letters, digits, . _ -)", b.Name(), name)
	}
	m, err := report.ParseMetric(metric)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	opts := report.CompareOptions{By: by, Baseline: baseline, Metric: m}
	var thresholds []string
	if failIf != nil {
		for i := 0; i < failIf.Len(); i++ {
			text, ok := starlark.AsString(failIf.Index(i))
			if !ok {
				return nil, fmt.Errorf("%s: fail_if entries must be strings like \"tps<-5%%\"", b.Name())
			}
			th, err := report.ParseThreshold(text)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", b.Name(), err)
			}
			opts.Thresholds = append(opts.Thresholds, th)
			thresholds = append(thresholds, text)
		}
	}
	info := runner.StepInfo{Builtin: "report.compare", Text: fmt.Sprintf("compare %s by %s", metric, by),
		Args: map[string]any{"by": by, "baseline": baseline, "metric": metric, "fail_if": thresholds, "name": name}}
	return runner.HostOf(thread).Step(info, runner.Action{
		Run: func(s *runner.Step) (runner.Outcome, error) {
			r, dir, err := load(thread)
			if err != nil {
				return runner.Outcome{}, fmt.Errorf("%s: %w", b.Name(), err)
			}
			c, err := report.Compare([]*report.Run{r}, opts)
			if err != nil {
				return runner.Outcome{}, fmt.Errorf("%s: %w", b.Name(), err)
			}
			var md, html bytes.Buffer
			report.WriteMarkdown(&md, c.Tables())
			fmt.Fprintf(&md, "\n%s\n", c.Legend())
			if err := report.WriteCompareHTML(&html, []*report.Run{r}, c); err != nil {
				return runner.Outcome{}, fmt.Errorf("%s: %w", b.Name(), err)
			}
			if err := write(thread, dir, name, map[string][]byte{".md": md.Bytes(), ".html": html.Bytes()}); err != nil {
				return runner.Outcome{}, fmt.Errorf("%s: %w", b.Name(), err)
			}
			var violations []starlark.Value
			var vs bytes.Buffer
			c.WriteViolations(&vs)
			for _, line := range bytes.Split(bytes.TrimSpace(vs.Bytes()), []byte("\n")) {
				if len(line) > 0 {
					violations = append(violations, starlark.String(line))
				}
			}
			var contenders []starlark.Value
			for _, n := range c.Contenders {
				contenders = append(contenders, starlark.String(n))
			}
			v := starlarkstruct.FromStringDict(starlark.String("comparison"), starlark.StringDict{
				"text": starlark.String(md.String()), "violations": starlark.NewList(violations),
				"contenders": starlark.NewList(contenders), "baseline": starlark.String(c.Baseline),
			})
			return runner.Outcome{Value: v, Record: c}, nil
		},
		Placeholder: func(*runner.Step) starlark.Value {
			return starlarkstruct.FromStringDict(starlark.String("comparison"), starlark.StringDict{
				"text": starlark.String(""), "violations": starlark.NewList(nil), "contenders": starlark.NewList(nil), "baseline": starlark.String(baseline),
			})
		},
	})
}
