package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/starbench/starbench/builtins/report"
	"github.com/starbench/starbench/internal/atomicfile"
	"github.com/starbench/starbench/internal/results"
)

func (a *app) reportCommand() *cobra.Command {
	var format, out string
	var opts report.ReportOptions
	cmd := &cobra.Command{
		Use:   "report DIR... [--format text|markdown|json|csv|html] [--parts] [-o FILE]",
		Short: "Render the results of one or more runs as tables, JSON, CSV or an HTML page with charts",
		Long: `Report reads results folders (of 'starbench run' or 'starbench sysbench ... run') and
renders them: per workload a table of threads, tps, qps, avg, p95, p99, min and max latency
and errors, with the steps' tags as columns. Repeats of a step (the reserved tag "round", or
the same step in several folders) are averaged, with their count and coefficient of variation.

Formats: text (default), markdown, csv (one row per benchmark step), json (manifests and
summaries), html (one self-contained file: no network, scripts or fonts; the manifest, the
tables, SVG charts of tps and latency percentiles against threads with one series per tag,
and per step the tps and p99 over time).

A step of several loads run at once (bench.together, or 'starbench merge') is one row: the
merged result. --parts adds after it a row per part with the part's own threads, tps, qps,
latencies and errors (a "part" column names it: number and name; a part that did not start
shows its status and error); in CSV a "part" column, empty on the steps' rows. JSON always
includes each step's parts and their summaries, and the HTML page always shows the part rows.

Every 'starbench run' also writes report.md and report.html into its folder.
A missing, truncated or foreign folder exits 2.`,
		Example: `  starbench report results/20261130T101500Z-quickstart
  starbench report results/run-a results/run-b --format markdown -o report.md
  starbench report results/run-a --format html -o report.html
  starbench report results/merged --parts`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("report needs at least one results folder\nRun 'starbench report --help' for usage.")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			runs, err := loadRuns(args)
			if err != nil {
				return err
			}
			data, err := renderReport(format, runs, opts)
			if err != nil {
				return err
			}
			return a.emit(out, data)
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "text, markdown, json, csv or html")
	cmd.Flags().StringVarP(&out, "output", "o", "", "write to FILE instead of standard output")
	cmd.Flags().BoolVar(&opts.Parts, "parts", false, "after a merged step's row, a row per part (text, markdown, csv; html always has them)")
	return cmd
}

// renderReport renders runs in report's --format; an unknown format is a
// usage error.
func renderReport(format string, runs []*report.Run, opts report.ReportOptions) ([]byte, error) {
	var buf bytes.Buffer
	var err error
	switch format {
	case "text":
		opts.WriteReport(&buf, runs, false)
	case "markdown", "md":
		opts.WriteReport(&buf, runs, true)
	case "json":
		err = report.WriteJSON(&buf, runs)
	case "csv":
		err = opts.WriteCSV(&buf, report.Benchmarks(runs))
	case "html":
		err = report.WriteHTML(&buf, runs)
	default:
		return nil, usagef("unknown --format %q (want text, markdown, json, csv or html)", format)
	}
	if err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// loadRuns reads results folders; a bad folder, or one of a newer format
// than this build reads, is a usage error.
func loadRuns(dirs []string) ([]*report.Run, error) {
	var runs []*report.Run
	for _, d := range dirs {
		r, err := report.Load(d)
		if err != nil {
			if errors.Is(err, report.ErrNotResults) || errors.Is(err, results.ErrNewerFormat) {
				return nil, usagef("%v", err)
			}
			return nil, err
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// emit writes output to a file (atomically) or to stdout.
func (a *app) emit(path string, data []byte) error {
	if path == "" || path == "-" {
		_, err := a.stdout.Write(data)
		return err
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	if err := atomicfile.WriteFile(path, data); err != nil {
		return err
	}
	fmt.Fprintf(a.stderr, "wrote %s\n", path)
	return nil
}

// compareFlags are compare's flags.
type compareFlags struct {
	by, baseline, metric string
	failIf               []string
	format, out          string
	parts                bool
}

// register adds compare's flags to cmd.
func (f *compareFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.by, "by", "", "tag whose values are the contenders (default: each folder is one)")
	cmd.Flags().StringVar(&f.baseline, "baseline", "", "contender to compare against (default: the first)")
	cmd.Flags().StringVar(&f.metric, "metric", "tps", "tps, qps, avg, p95, p99, max, or tpmc (TPC-C's New-Order transactions a minute)")
	cmd.Flags().StringArrayVar(&f.failIf, "fail-if", nil, "exit 3 when crossed, e.g. 'tps<-5%' or 'p99>+10%'; repeatable")
	cmd.Flags().StringVar(&f.format, "format", "text", "text, markdown, html or json")
	cmd.Flags().StringVarP(&f.out, "output", "o", "", "write to FILE instead of standard output")
	cmd.Flags().BoolVar(&f.parts, "parts", false, "also compare the parts of merged steps, part k with part k")
}

func (a *app) compareCommand() *cobra.Command {
	var f compareFlags
	cmd := &cobra.Command{
		Use:   "compare DIR... [--by TAG] [--baseline VALUE] [--metric tps|qps|avg|p95|p99|max|tpmc] [--fail-if 'tps<-5%']... [--parts]",
		Short: "Compare runs: % change per step vs a baseline, with noise estimates and CI thresholds",
		Long: `Compare matches benchmark steps across results folders by workload, threads and tags (apart
from the reserved tag "round" and the --by tag) and shows each contender's value and its change
against the baseline. The contenders are the values of --by (e.g. --by version, where one folder
may hold several versions); without --by each folder is a contender. The baseline is --baseline
or the first contender.

Repeats (steps that differ only in their round tag, or the same plan run several times) give
mean, standard deviation, coefficient of variation and a 95% confidence interval; a change within
run-to-run noise (Welch's t-test, 95%) is marked "~".

--fail-if 'METRIC<PERCENT%' or 'METRIC>PERCENT%' (repeatable) makes compare exit 3 when a
contender crosses it on any step, listing which: with repeats on both sides only when the change
is also beyond noise; with one sample per side the values are compared directly. For CI
regression checks. Folders with nothing in common, or a threshold that does not parse, exit 2.

A step of several loads run at once (bench.together, or 'starbench merge') is compared on its
merged result. --parts also compares its parts: after the step's row, a row per part (a "part"
column with its number and name), part k of the step paired with part k of the same step of
the other contenders. --fail-if gates the steps, not their parts.`,
		Example: `  starbench compare results/v5.1.1 results/v5.2.0
  starbench compare results/seed-run --by version --baseline v5.1.1
  starbench compare base/ candidate/ --metric p99 --fail-if 'tps<-5%' --fail-if 'p99>+10%'
  starbench compare base/ candidate/ --format html -o compare.html`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("compare needs at least one results folder\nRun 'starbench compare --help' for usage.")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.compareRuns(args, &f)
		},
	}
	f.register(cmd)
	return cmd
}

// compareRuns is compare's action: it compares the folders' runs, writes
// the comparison and fails when a --fail-if threshold is crossed.
func (a *app) compareRuns(dirs []string, f *compareFlags) error {
	opts, err := f.options()
	if err != nil {
		return err
	}
	runs, err := loadRuns(dirs)
	if err != nil {
		return err
	}
	c, err := report.Compare(runs, opts)
	if err != nil {
		if errors.Is(err, report.ErrNothingToCompare) {
			return usagef("%v", err)
		}
		return err
	}
	data, err := renderComparison(f.format, runs, c)
	if err != nil {
		return err
	}
	if err := a.emit(f.out, data); err != nil {
		return err
	}
	if len(c.Violations) > 0 {
		var list bytes.Buffer
		c.WriteViolations(&list)
		return &thresholdError{strings.TrimSpace(list.String())}
	}
	return nil
}

// options parses --metric and --fail-if into the comparison's options; a
// bad one is a usage error.
func (f *compareFlags) options() (report.CompareOptions, error) {
	m, err := report.ParseMetric(f.metric)
	if err != nil {
		return report.CompareOptions{}, usagef("--metric: %v", err)
	}
	var thresholds []report.Threshold
	for _, s := range f.failIf {
		th, err := report.ParseThreshold(s)
		if err != nil {
			return report.CompareOptions{}, usagef("--fail-if: %v", err)
		}
		thresholds = append(thresholds, th)
	}
	return report.CompareOptions{By: f.by, Baseline: f.baseline, Metric: m, Thresholds: thresholds, Parts: f.parts}, nil
}

// renderComparison renders c in compare's --format; an unknown format is
// a usage error.
func renderComparison(format string, runs []*report.Run, c *report.Comparison) ([]byte, error) {
	var buf bytes.Buffer
	var err error
	switch format {
	case "text":
		report.WriteText(&buf, []report.Table{c.Table()})
		fmt.Fprintf(&buf, "\n%s\n", c.Legend())
	case "markdown", "md":
		report.WriteMarkdown(&buf, []report.Table{c.Table()})
		fmt.Fprintf(&buf, "\n%s\n", c.Legend())
	case "html":
		err = report.WriteCompareHTML(&buf, runs, c)
	case "json":
		err = jsonIndent(&buf, c)
	default:
		return nil, usagef("unknown --format %q (want text, markdown, html or json)", format)
	}
	if err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// thresholdError is a --fail-if threshold crossed; exit code 3.
type thresholdError struct{ msg string }

func (e *thresholdError) Error() string { return e.msg }

// writeRunReports writes report.md and report.html into a finished run's
// folder. A failure is reported but does not change the run's outcome.
func (a *app) writeRunReports(dir string) {
	r, err := report.Load(dir)
	if err != nil {
		fmt.Fprintf(a.stderr, "starbench: no report for %s: %v\n", dir, err)
		return
	}
	var md, html bytes.Buffer
	report.WriteReport(&md, []*report.Run{r}, true)
	if err := report.WriteHTML(&html, []*report.Run{r}); err != nil {
		fmt.Fprintf(a.stderr, "starbench: report.html: %v\n", err)
		return
	}
	for name, data := range map[string][]byte{results.ReportMarkdown: md.Bytes(), results.ReportHTML: html.Bytes()} {
		if err := results.WriteFile(filepath.Join(dir, name), []byte(a.redact(string(data)))); err != nil {
			fmt.Fprintf(a.stderr, "starbench: %s: %v\n", name, err)
		}
	}
}
