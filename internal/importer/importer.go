// Package importer reads what a published benchmark report gives — the raw
// output of sysbench 1.0 or 1.1, go-tpc or BenchmarkSQL as pasted into it,
// or a CSV of its figures — into benchmark steps, and writes them as a
// results folder in package results' layout, which `starbench report` and
// `starbench compare` read unchanged beside a rerun.
//
// It owns those formats' parsers (one file each: sysbench.go, gotpc.go,
// benchmarksql.go, csv.go), the detection of a file's format, and the
// record of where each step came from and which figures its source gave
// (results.Imported): a figure the source does not give stays zero in the
// summary and is marked unknown, never passed off as measured. Bad input is
// an *InputError naming the file and the line. Nothing here runs a
// benchmark or knows Starlark.
package importer

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/starbench/starbench/runner/results"
)

// Format is the kind of file imported.
type Format string

// The formats Parse reads; FormatAuto detects one from the file.
const (
	FormatAuto         Format = "auto"
	FormatSysbench     Format = "sysbench"
	FormatGoTPC        Format = "go-tpc"
	FormatBenchmarkSQL Format = "benchmarksql"
	FormatCSV          Format = "csv"
)

// Formats lists the formats, for help and messages.
var Formats = []Format{FormatAuto, FormatSysbench, FormatGoTPC, FormatBenchmarkSQL, FormatCSV}

// ParseFormat reads a --format value.
func ParseFormat(s string) (Format, error) {
	f := Format(strings.ToLower(strings.TrimSpace(s)))
	if f == "gotpc" {
		f = FormatGoTPC
	}
	if slices.Contains(Formats, f) {
		return f, nil
	}
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return "", fmt.Errorf("unknown format %q (want %s)", s, strings.Join(names, ", "))
}

// Options apply to every file imported.
type Options struct {
	Format Format // "" is FormatAuto
	// Workload names the workload of steps whose source names none; a
	// source that names another is an error.
	Workload string
	// Threads is the thread count of steps whose source does not say; a
	// source that says another is an error.
	Threads int
	// Tags are added to every step (--tags). "threads" and "workload" are
	// not tags: they stand for Threads and Workload.
	Tags map[string]string
}

// Source is a file to import: its name as given and its content.
type Source struct {
	Name string
	Data []byte
}

// Step is one imported benchmark step: its summary (with Imported set),
// the interval rows its source printed, and the source's lines it came
// from (nil for a CSV row), for the step's output.txt.
type Step struct {
	Summary   *results.Summary
	Intervals []results.Interval
	Output    []byte
}

// InputError is a file that cannot be imported: the file, the line (0:
// the whole file) and what is wrong.
type InputError struct {
	File string
	Line int
	Msg  string
}

func (e *InputError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// ErrNoSteps marks a file in which the format found no benchmark result.
var ErrNoSteps = errors.New("no benchmark result found")

// Parse reads one file into steps, in the order they appear, and returns
// the format it read (the detected one under FormatAuto). Bad input is an
// *InputError.
func Parse(src Source, opts Options) ([]Step, Format, error) {
	tags, err := checkOptions(&opts)
	if err != nil {
		return nil, "", err
	}
	lines := splitLines(src.Data)
	format := opts.Format
	if format == "" || format == FormatAuto {
		if format = Detect(src.Name, lines); format == "" {
			return nil, "", &InputError{File: src.Name, Msg: "unknown format: not sysbench, go-tpc or BenchmarkSQL output, nor a CSV with a header row (give --format if it is one of them)"}
		}
	}
	var drafts []*draft
	switch format {
	case FormatSysbench:
		drafts, err = parseSysbench(src.Name, lines)
	case FormatGoTPC:
		drafts, err = parseGoTPC(src.Name, lines)
	case FormatBenchmarkSQL:
		drafts, err = parseBenchmarkSQL(src.Name, lines)
	case FormatCSV:
		drafts, err = parseCSV(src.Name, lines)
	default:
		return nil, "", fmt.Errorf("import: format %q has no parser", format)
	}
	if err != nil {
		return nil, format, err
	}
	if len(drafts) == 0 {
		return nil, format, &InputError{File: src.Name, Msg: fmt.Sprintf("%v: %s", ErrNoSteps, noStepsHint[format])}
	}
	steps := make([]Step, 0, len(drafts))
	for _, d := range drafts {
		s, err := d.finish(src.Name, lines, opts, tags)
		if err != nil {
			return nil, format, err
		}
		steps = append(steps, s)
	}
	return steps, format, nil
}

var noStepsHint = map[Format]string{
	FormatSysbench:     "no sysbench interval lines ([ 10s ] thds: ...) or final report (SQL statistics: ...)",
	FormatGoTPC:        "no go-tpc [Current] or [Summary] lines",
	FormatBenchmarkSQL: "no BenchmarkSQL result lines (Measured tpmC (NewOrders) = ...)",
	FormatCSV:          "the CSV has a header row and no data rows",
}

// checkOptions validates the options and returns the tags to add, without
// "threads" and "workload", which fill in Threads and Workload when those
// are not set.
func checkOptions(opts *Options) (map[string]string, error) {
	tags := map[string]string{}
	for k, v := range opts.Tags {
		tags[k] = v
	}
	if v, ok := tags["threads"]; ok {
		delete(tags, "threads")
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("--tags threads=%s: the thread count must be a whole number above 0", v)
		}
		if opts.Threads > 0 && opts.Threads != n {
			return nil, fmt.Errorf("--threads %d and --tags threads=%s disagree", opts.Threads, v)
		}
		opts.Threads = n
	}
	if v, ok := tags["workload"]; ok {
		delete(tags, "workload")
		if opts.Workload != "" && opts.Workload != v {
			return nil, fmt.Errorf("--workload %s and --tags workload=%s disagree", opts.Workload, v)
		}
		opts.Workload = v
	}
	if opts.Threads < 0 {
		return nil, fmt.Errorf("--threads %d: the thread count must be above 0", opts.Threads)
	}
	return tags, nil
}

// line is one line of a file, without its line ending.
type line struct {
	n    int // 1-based
	text string
}

// splitLines splits a file into lines: a UTF-8 byte order mark, Windows
// line endings and trailing spaces go.
func splitLines(data []byte) []line {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	raw := strings.Split(string(data), "\n")
	if n := len(raw); n > 0 && raw[n-1] == "" {
		raw = raw[:n-1]
	}
	out := make([]line, len(raw))
	for i, s := range raw {
		out[i] = line{n: i + 1, text: strings.TrimRight(s, "\r \t")}
	}
	return out
}

// Detect names a file's format from its name and lines: a .csv file is a
// CSV; otherwise the first line only one format prints decides; a file
// whose first line that is not a comment has several comma-separated
// fields is a CSV. "" when none fits.
func Detect(name string, lines []line) Format {
	if strings.EqualFold(filepath.Ext(name), ".csv") {
		return FormatCSV
	}
	for _, l := range lines {
		switch {
		case sbIntervalRe.MatchString(l.text), sbBannerRe.MatchString(l.text), isSysbenchReportTitle(strings.TrimSpace(l.text)):
			return FormatSysbench
		case goTPCLineRe.MatchString(l.text), goTPCTpmCRe.MatchString(l.text):
			return FormatGoTPC
		case bsqlTpmCRe.MatchString(l.text), bsqlBannerRe.MatchString(l.text):
			return FormatBenchmarkSQL
		}
	}
	for _, l := range lines {
		t := strings.TrimSpace(l.text)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if sep := csvSeparator(t); sep != 0 && strings.Count(t, string(sep)) >= 1 {
			return FormatCSV
		}
		break
	}
	return ""
}

// draft is a step being read: what its source said, before the options
// fill in what it did not.
type draft struct {
	format      string // results.Imported's: sysbench-1.0, go-tpc, ...
	first, last int    // its lines in the file
	workload    string // as the source names it, "" when it does not
	workLine    int
	threads     int // as the source says, 0 when it does not
	threadLine  int
	threadsHint string // where a thread count would have been, for the error
	tags        map[string]string
	sum         results.Summary
	given       []string
	derived     []string
	note        string
	intervals   []results.Interval
	noOutput    bool // a CSV row: no output.txt
}

func (d *draft) give(figures ...string) { d.given = appendNew(d.given, figures...) }

// onlyChanges says whether every figure the draft gives is a change
// (change_<metric>), as a report's headline is.
func (d *draft) onlyChanges() bool {
	for _, f := range d.given {
		if !strings.HasPrefix(f, "change_") {
			return false
		}
	}
	return len(d.given) > 0
}
func (d *draft) derive(figures ...string) { d.derived = appendNew(d.derived, figures...) }

func appendNew(list []string, items ...string) []string {
	for _, it := range items {
		if !slices.Contains(list, it) {
			list = append(list, it)
		}
	}
	return list
}

// finish completes a draft with the options: the workload, the threads,
// the tags; a missing thread count or workload, or one that disagrees
// with the options, is an *InputError.
func (d *draft) finish(file string, lines []line, opts Options, tags map[string]string) (Step, error) {
	fail := func(n int, format string, args ...any) (Step, error) {
		return Step{}, &InputError{File: file, Line: n, Msg: fmt.Sprintf(format, args...)}
	}
	s := d.sum
	switch {
	case d.workload != "" && opts.Workload != "" && d.workload != opts.Workload:
		return fail(d.workLine, "the file names the workload %s, --workload says %s", d.workload, opts.Workload)
	case d.workload != "":
		s.Workload.Name = d.workload
	case opts.Workload != "":
		s.Workload.Name = opts.Workload
	default:
		return fail(d.first, "the output does not name its workload (no command line before it): give --workload NAME (e.g. --workload oltp_read_write)")
	}
	switch {
	case d.threads > 0 && opts.Threads > 0 && d.threads != opts.Threads:
		return fail(d.threadLine, "the file says %d threads, --threads says %d", d.threads, opts.Threads)
	case d.threads > 0:
		s.Threads = d.threads
		d.give(results.FigureThreads)
	case opts.Threads > 0:
		s.Threads = opts.Threads
	case d.onlyChanges():
		// A report's headline change (+36 % tpmC) belongs to no thread
		// level: its threads stay unknown.
	default:
		return fail(d.first, "the file does not say how many threads ran (%s): give --threads N or --tags threads=N", d.threadsHint)
	}
	s.Tags = map[string]string{}
	for k, v := range d.tags {
		s.Tags[k] = v
	}
	for k, v := range tags {
		if fv, ok := s.Tags[k]; ok && fv != v {
			return fail(d.first, "the file's %s is %s, --tags says %s=%s", k, fv, k, v)
		}
		s.Tags[k] = v
	}
	if len(s.Tags) == 0 {
		s.Tags = nil
	}
	s.Status = results.StatusCompleted
	s.Stopped = "imported"
	if s.ErrorsByCode == nil {
		s.ErrorsByCode = map[string]int64{}
	}
	if s.Latency.Percentiles == nil {
		s.Latency.Percentiles = map[string]float64{}
	}
	for i := range d.intervals {
		if d.intervals[i].Threads == 0 {
			d.intervals[i].Threads = s.Threads
		}
	}
	s.Imported = &results.Imported{Source: file, Line: d.first, Format: d.format, Given: sortedFigures(d.given), Derived: sortedFigures(d.derived), Note: d.note}
	step := Step{Summary: &s, Intervals: d.intervals}
	if !d.noOutput {
		var b strings.Builder
		for _, l := range lines {
			if l.n >= d.first && l.n <= d.last {
				b.WriteString(l.text)
				b.WriteByte('\n')
			}
		}
		step.Output = []byte(b.String())
	}
	return step, nil
}

// figureOrder is the order Imported lists figures in.
var figureOrder = []string{
	results.FigureThreads, results.FigureSeconds, results.FigureEvents, results.FigureTPS, results.FigureQueries,
	results.FigureQPS, results.FigureReads, results.FigureWrites, results.FigureOthers, results.FigureErrors,
	results.FigureReconnects, results.FigureMinMS, results.FigureAvgMS, results.FigureMaxMS, results.FigureSumMS,
}

// sortedFigures orders figures as figureOrder, then percentiles by
// value, then the rest (metrics, fairness, kinds) by name.
func sortedFigures(figs []string) []string {
	if len(figs) == 0 {
		return nil
	}
	rank := func(f string) (int, float64, string) {
		if i := slices.Index(figureOrder, f); i >= 0 {
			return i, 0, ""
		}
		if strings.HasPrefix(f, "p") && strings.HasSuffix(f, "_ms") {
			if v, err := strconv.ParseFloat(f[1:len(f)-3], 64); err == nil {
				return len(figureOrder), v, ""
			}
		}
		return len(figureOrder) + 1, 0, f
	}
	out := slices.Clone(figs)
	sort.SliceStable(out, func(i, j int) bool {
		ai, av, as := rank(out[i])
		bi, bv, bs := rank(out[j])
		if ai != bi {
			return ai < bi
		}
		if av != bv {
			return av < bv
		}
		return as < bs
	})
	return out
}

// number reads a figure as printed: a finite decimal, not negative.
func number(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || v != v || v < 0 || v > 1e300 {
		return 0, fmt.Errorf("%q is not a number", strings.TrimSpace(s))
	}
	return v, nil
}

// count reads a whole count as printed.
func count(s string) (int64, error) {
	v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("%q is not a count", strings.TrimSpace(s))
	}
	return v, nil
}

// commandTokens returns the words after the program's name on a line
// that runs it (a prompt line: "$ sysbench ... run", "# /usr/bin/go-tpc
// tpcc ..."), with a trailing backslash continued on the next lines; nil
// when the line does not run it.
func commandTokens(program string, lines []line, i int) ([]string, int) {
	t := lines[i].text
	idx := -1
	for off := 0; ; {
		j := strings.Index(t[off:], program)
		if j < 0 {
			break
		}
		j += off
		before := j == 0 || strings.ContainsRune(" \t$#>/:`", rune(t[j-1]))
		after := j+len(program) < len(t) && (t[j+len(program)] == ' ' || t[j+len(program)] == '\t')
		if before && after {
			idx = j
			break
		}
		off = j + len(program)
	}
	if idx < 0 {
		return nil, i
	}
	text := t[idx+len(program):]
	for strings.HasSuffix(text, `\`) && i+1 < len(lines) {
		i++
		text = strings.TrimSuffix(text, `\`) + " " + lines[i].text
	}
	return strings.Fields(strings.Trim(text, "`")), i
}
