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
	"github.com/starbench/starbench/runner/results"
)

func (a *app) reportCommand() *cobra.Command {
	var format, out, knee string
	var opts report.ReportOptions
	var pf pivotFlags
	cmd := &cobra.Command{
		Use: "report DIR... [--format text|markdown|json|csv|html] [--parts] [-o FILE]\n" +
			"  starbench report DIR... --rows TAG,... --columns TAG,... --metrics M,... [--split TAG,...] [--baseline VALUE] [--mean] [--per-server]",
		Short: "Render the results of one or more runs as tables, JSON, CSV or an HTML page with charts, or as a report's own table",
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

Report-shaped tables: --rows, --columns, --metrics, --split (comma-separated or repeated)
lay the steps out as a published report's table instead. A table per value of the --split
tags, a row per value of the --rows tags, per value of the --columns tags a cell of the
--metrics (tps, qps, min, avg, p95, p99, max, or a family's own metric (TPC-C's tpmc, tpmtotal, efficiency; a mix's retries); default tps). Tags are the steps' tags,
or threads (a together step of N loads of 150 threads reads "150 ×N", never the row of a
one-load step of 300) and workload. Steps in one cell must be repeats (they differ only in
the tag round, or come from several folders): they are averaged and the cell says how many.
--baseline VALUE, a value of the first --columns tag, adds per metric a change column
(x - base) / base % for every other value; a step's change_<metric> figure (a report that
gives only a change) fills its column's change cell. --mean adds a last row: the mean over
the rows, for changes the mean of the rows' changes; a step with none of the --rows tags (a
published headline) gives its figures to it. --per-server shows a together step of N loads
per load: its threads each, tps, qps and tpmC divided by N. Put a report's published figures
beside a rerun by giving the folder 'starbench import' made of them (its steps tagged, e.g.,
source=published) and source in --columns. A figure a step lacks shows "-"; a change
within the repeats' noise "~". Formats: text, markdown, csv (a line per cell: the tags'
values, metric, kind, value, n, vs, given, within_noise), json (the same cells), html (the
tables). A tag no step has, an unknown metric, a baseline no column has or a cell of steps
that are not repeats exits 2.

Every 'starbench run' also writes report.md and report.html into its folder.
A missing, truncated or foreign folder exits 2.`,
		Example: `  starbench report results/20261130T101500Z-quickstart
  starbench report results/run-a results/run-b --format markdown -o report.md
  starbench report results/run-a --format html -o report.html
  starbench report results/merged --parts

  # The seed reports' tables:
  starbench report results/seed004 --rows round --columns case --metrics tps,avg --mean
  starbench report results/seed001 --rows workload --metrics qps,min,avg,p99
  starbench report results/seed000 --split setup,workload --rows threads --metrics tps,qps,avg --per-server
  starbench report results/seed003 published/seed003 --split workload --rows threads \
      --columns version,source --metrics qps,p95 --baseline v5.1.1 --mean
  starbench report results/seed002 published/seed002 --rows threads --columns version,source \
      --metrics tpmc --baseline v4.0.12 --mean --format csv`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("report needs at least one results folder\nRun 'starbench report --help' for usage.")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			pivoting := pf.asked(cmd)
			if pivoting && opts.Parts {
				return usagef("--parts does not go with a report-shaped table (--rows, --columns, ...): use --per-server for together steps")
			}
			var p report.Pivot
			if pivoting {
				var err error
				if p, err = pf.pivot(cmd); err != nil {
					return err
				}
			}
			if knee != "" {
				rule, err := report.ParseKneeRule(knee)
				if err != nil {
					return usagef("--knee: %v", err)
				}
				opts.Knee = &rule
			}
			runs, err := loadRuns(args)
			if err != nil {
				return err
			}
			var data []byte
			if pivoting {
				data, err = renderPivot(format, runs, p)
			} else {
				data, err = renderReport(format, runs, opts)
			}
			if err != nil {
				return err
			}
			return a.emit(out, data)
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "text, markdown, json, csv or html")
	cmd.Flags().StringVarP(&out, "output", "o", "", "write to FILE instead of standard output")
	cmd.Flags().BoolVar(&opts.Parts, "parts", false, "after a merged step's row, a row per part (text, markdown, csv; html always has them)")
	cmd.Flags().BoolVar(&opts.Kinds, "kinds", false, "a row per kind of event (transaction, query) of each step, and each step's family figures (tpmC, power, QphH, ...) (text, markdown; html always has them)")
	cmd.Flags().StringVar(&knee, "knee", "", "the knee of each thread sweep: the level after which the next adds less tps and more latency than this, "+
		"e.g. 'tps<5%,p95>20%' (the default; text, markdown and html)")
	pf.register(cmd)
	return cmd
}

// pivotFlags are report's flags of a report-shaped table.
type pivotFlags struct {
	rows, columns, metrics, split []string
	baseline                      string
	mean, perServer               bool
}

var pivotFlagNames = []string{"rows", "columns", "metrics", "split", "baseline", "mean", "per-server"}

func (f *pivotFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringSliceVar(&f.rows, "rows", nil, "a report-shaped table: its rows' tags (or threads, workload), e.g. round or threads")
	cmd.Flags().StringSliceVar(&f.columns, "columns", nil, "its columns' tags, e.g. case or version,source")
	cmd.Flags().StringSliceVar(&f.metrics, "metrics", nil, "the figures of a cell: tps, qps, min, avg, p95, p99, max, or a family's own metric (TPC-C's tpmc, tpmtotal, efficiency; a mix's retries) (default tps)")
	cmd.Flags().StringSliceVar(&f.split, "split", nil, "one table per value of these tags, e.g. workload or setup,workload")
	cmd.Flags().StringVar(&f.baseline, "baseline", "", "a value of the first --columns tag: change columns against it")
	cmd.Flags().BoolVar(&f.mean, "mean", false, "a last row with the mean of each column (of the changes, for change columns)")
	cmd.Flags().BoolVar(&f.perServer, "per-server", false, "together steps of N loads per load: threads each, tps, qps and tpmC divided by N")
}

// asked reports whether any flag of a report-shaped table was given.
func (f *pivotFlags) asked(cmd *cobra.Command) bool {
	for _, name := range pivotFlagNames {
		if cmd.Flags().Changed(name) {
			return true
		}
	}
	return false
}

// pivot is the table the flags ask for; bad flags are a usage error.
func (f *pivotFlags) pivot(cmd *cobra.Command) (report.Pivot, error) {
	p := report.Pivot{Rows: f.rows, Columns: f.columns, Split: f.split, Baseline: f.baseline, Mean: f.mean, PerServer: f.perServer}
	names := f.metrics
	if !cmd.Flags().Changed("metrics") {
		names = []string{string(report.MetricTPS)}
	}
	for _, n := range names {
		m, err := report.ParseMetric(n)
		if err != nil {
			return p, usagef("--metrics: %v", err)
		}
		p.Metrics = append(p.Metrics, m)
	}
	if err := p.Check(); err != nil {
		return p, usagef("%v", err)
	}
	return p, nil
}

// renderPivot renders the report-shaped table p of runs in report's
// --format; bad input is a usage error.
func renderPivot(format string, runs []*report.Run, p report.Pivot) ([]byte, error) {
	switch format {
	case "text", "markdown", "md", "csv", "json", "html":
	default:
		return nil, usagef("unknown --format %q (want text, markdown, json, csv or html)", format)
	}
	r, err := p.Build(report.Benchmarks(runs))
	if err != nil {
		if errors.Is(err, report.ErrBadPivot) {
			return nil, usagef("%v", err)
		}
		return nil, err
	}
	var buf bytes.Buffer
	switch format {
	case "text":
		r.WriteText(&buf)
	case "markdown", "md":
		r.WriteMarkdown(&buf)
	case "csv":
		err = r.WriteCSV(&buf)
	case "json":
		err = jsonIndent(&buf, r.Records())
	case "html":
		var dirs []string
		for _, run := range runs {
			dirs = append(dirs, run.Dir)
		}
		err = report.WritePivotHTML(&buf, r, "starbench table", strings.Join(dirs, ", "))
	}
	if err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
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
		err = opts.WriteHTML(&buf, runs)
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
	knee                 string
	allowIncomplete      []string
}

// register adds compare's flags to cmd.
func (f *compareFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.by, "by", "", "tag whose values are the contenders (default: each folder is one)")
	cmd.Flags().StringVar(&f.baseline, "baseline", "", "contender to compare against (default: the first)")
	cmd.Flags().StringVar(&f.metric, "metric", "tps", "tps, qps, min, avg, p95, p99, max, or a family's own metric (TPC-C's tpmc, tpmtotal, efficiency; a mix's retries)")
	cmd.Flags().StringArrayVar(&f.failIf, "fail-if", nil, "exit 3 when crossed, e.g. 'tps<-5%' or 'p99>+10%'; repeatable")
	cmd.Flags().StringVar(&f.format, "format", "text", "text, markdown, html or json")
	cmd.Flags().StringVarP(&f.out, "output", "o", "", "write to FILE instead of standard output")
	cmd.Flags().BoolVar(&f.parts, "parts", false, "also compare the parts of merged steps, part k with part k")
	cmd.Flags().StringArrayVar(&f.allowIncomplete, "allow-incomplete", nil, "a contender (or results folder) that failed or was interrupted whose figures --fail-if "+
		"may gate on; repeatable (without it such a contender fails the gate)")
	cmd.Flags().StringVar(&f.knee, "knee", "", "each contender's knee of its thread sweeps: the level after which the next adds less tps and "+
		"more latency than this, e.g. 'tps<5%,p95>20%' (the default)")
}

func (a *app) compareCommand() *cobra.Command {
	var f compareFlags
	cmd := &cobra.Command{
		Use:   "compare DIR... [--by TAG] [--baseline VALUE] [--metric tps|qps|min|avg|p95|p99|max|tpmc|...] [--fail-if 'tps<-5%']... [--parts]",
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
regression checks. Folders with nothing in common, a threshold that does not parse, or a
metric no compared step has (tpmc on sysbench steps) exit 2.

A run that did not complete (failed, interrupted, or killed: its status is still "running"),
or a step of one that stopped early, is listed in a warning above the table, and its step's
figure is marked "!": it is what ran before the run stopped. Under --fail-if it fails the gate
(exit 3) unless --allow-incomplete names its contender or folder.

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
		if errors.Is(err, report.ErrNothingToCompare) || errors.Is(err, report.ErrNoSuchMetric) {
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
	opts := report.CompareOptions{By: f.by, Baseline: f.baseline, Metric: m, Thresholds: thresholds, Parts: f.parts, AllowIncomplete: f.allowIncomplete}
	if f.knee != "" {
		rule, err := report.ParseKneeRule(f.knee)
		if err != nil {
			return report.CompareOptions{}, usagef("--knee: %v", err)
		}
		opts.Knee = &rule
	}
	return opts, nil
}

// renderComparison renders c in compare's --format; an unknown format is
// a usage error.
func renderComparison(format string, runs []*report.Run, c *report.Comparison) ([]byte, error) {
	var buf bytes.Buffer
	var err error
	switch format {
	case "text":
		report.WriteIncomplete(&buf, c.Incomplete)
		report.WriteText(&buf, c.Tables())
		fmt.Fprintf(&buf, "\n%s\n", c.Legend())
		report.WriteKnees(&buf, c.Knees, c.KneeRule, false)
	case "markdown", "md":
		for _, inc := range c.Incomplete {
			fmt.Fprintf(&buf, "> **warning**: %s\n\n", inc.Describe())
		}
		report.WriteMarkdown(&buf, c.Tables())
		fmt.Fprintf(&buf, "\n%s\n", c.Legend())
		report.WriteKnees(&buf, c.Knees, c.KneeRule, true)
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
