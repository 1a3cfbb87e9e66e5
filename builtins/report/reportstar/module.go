// Package reportstar is the Starlark adapter of builtins/report: the
// predeclared `report` module, which writes tables and comparisons of the
// run's benchmark steps into its results folder.
package reportstar

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/starbench/starbench/builtins/report"
	"github.com/starbench/starbench/internal/results"
	"github.com/starbench/starbench/runner"
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
		{Name: "report.table", Signature: "report.table(name=\"results\")",
			Doc: "Writes NAME.md and NAME.html (tables per workload, charts) into the results folder and returns the Markdown text."},
		{Name: "report.compare", Signature: "report.compare(by, baseline=None, metric=\"tps\", fail_if=[], name=\"compare\")",
			Doc: "Compares the steps by the values of tag `by` (e.g. \"version\") against `baseline` (default: the first value), " +
				"matching workload, threads and the other tags; repeats (tag round) give noise estimates. Writes NAME.md and " +
				"NAME.html and returns a struct: text (Markdown), violations (the fail_if thresholds crossed, as strings, e.g. " +
				"for fail(...)), contenders. metric is tps, qps, avg, p95, p99, max or tpmc (TPC-C's New-Order transactions a minute)."},
	},
}

var safeName = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

func load(thread *starlark.Thread) (*report.Run, string, error) {
	dir, err := runner.HostOf(thread).Run().ResultsDir()
	if err != nil || dir == "" {
		return nil, dir, err
	}
	r, err := report.Load(dir)
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

func table(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	name := "results"
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name?", &name); err != nil {
		return nil, err
	}
	if !safeName.MatchString(name) {
		return nil, fmt.Errorf("%s: name %q must be a plain file name (letters, digits, . _ -)", b.Name(), name)
	}
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
			report.WriteMarkdown(&md, []report.Table{c.Table()})
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
