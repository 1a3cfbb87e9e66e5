package importer

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/starbench/starbench/runner/results"
)

// A CSV of published figures: a header row, then one row per step, in
// order. Columns named for a figure (figureColumn) are figures; a column
// named workload names the step's workload; every other column is a tag
// (version, case, round, setup, ...). A column change_<metric> (tps, qps,
// min, avg, p95, p99, max, tpmc: change_tpmc) is a change in percent that
// a report gives without its figures, kept in the summary's Metrics under
// that name. Lines starting with # are comments,
// kept as the folder's notes (where the figures were published). An empty
// cell is a figure the row does not give. The separator is a comma, or a
// semicolon or tab when the header has one and no comma.

// csvPercentileRe is a percentile column once prefixes are stripped.
var csvPercentileRe = regexp.MustCompile(`^p(\d+(?:\.\d+)?)_ms$`)

// figureColumn names the figure a column holds, "" when it is a tag.
// Names are compared in lower case with spaces and dashes as
// underscores; the latency columns take a lat_ or latency_ prefix
// (lat_p95_ms, latency_avg_ms) or a _latency_ms suffix (avg_latency_ms),
// and p999_ms is p99.9_ms.
func figureColumn(header string) string {
	n := strings.ToLower(strings.TrimSpace(header))
	n = strings.NewReplacer(" ", "_", "-", "_", "(", "", ")", "").Replace(n)
	switch n {
	case "threads", "thds", "concurrency", "terminals":
		return results.FigureThreads
	case "tps", "eps":
		return results.FigureTPS
	case "qps":
		return results.FigureQPS
	case "events", "transactions":
		return results.FigureEvents
	case "queries":
		return results.FigureQueries
	case "seconds", "time_s", "duration_s":
		return results.FigureSeconds
	case "errors", "ignored_errors":
		return results.FigureErrors
	case "reconnects":
		return results.FigureReconnects
	case "tpmc", "tpm_c":
		return "tpmC"
	case "tpmtotal", "tpm_total":
		return "tpmTotal"
	case "efficiency", "efficiency_pct":
		return "efficiency"
	}
	if m, ok := strings.CutPrefix(n, "change_"); ok {
		switch m {
		case "tps", "qps", "min", "avg", "p95", "p99", "max", "tpmc":
			return n
		}
		return ""
	}
	for _, p := range []string{"latency_", "lat_"} {
		n = strings.TrimPrefix(n, p)
	}
	if strings.HasSuffix(n, "_latency_ms") {
		n = strings.TrimSuffix(n, "_latency_ms") + "_ms"
	}
	switch n {
	case "min_ms", "avg_ms", "max_ms", "sum_ms":
		return n
	case "mean_ms":
		return results.FigureAvgMS
	case "p999_ms":
		return results.FigurePercentile(99.9)
	case "p9999_ms":
		return results.FigurePercentile(99.99)
	}
	if m := csvPercentileRe.FindStringSubmatch(n); m != nil {
		if p, err := strconv.ParseFloat(m[1], 64); err == nil && p > 0 && p <= 100 {
			return results.FigurePercentile(p)
		}
	}
	return ""
}

// csvSeparator is a header line's separator: a comma, else a tab or a
// semicolon; 0 when it has none.
func csvSeparator(header string) rune {
	for _, r := range []rune{',', '\t', ';'} {
		if strings.ContainsRune(header, r) {
			return r
		}
	}
	return 0
}

// csvColumn is one column of the header.
type csvColumn struct {
	name   string // as written
	figure string // "" for a tag or the workload
	isWork bool
}

// parseCSV reads a CSV of figures: a step per row.
func parseCSV(file string, lines []line) ([]*draft, error) {
	fail := func(n int, format string, args ...any) error {
		return &InputError{File: file, Line: n, Msg: fmt.Sprintf(format, args...)}
	}
	var notes []string
	var body strings.Builder
	headerLine := 0
	for _, l := range lines {
		t := strings.TrimSpace(l.text)
		if strings.HasPrefix(t, "#") {
			notes = append(notes, strings.TrimSpace(strings.TrimPrefix(t, "#")))
			body.WriteString("\n") // keeps the line numbers; empty lines are skipped
			continue
		}
		if headerLine == 0 && t != "" {
			headerLine = l.n
		}
		body.WriteString(l.text)
		body.WriteString("\n")
	}
	if headerLine == 0 {
		return nil, fail(0, "the CSV is empty: want a header row (e.g. version,workload,threads,tps,p95_ms) and a row per step")
	}
	sep := csvSeparator(lines[headerLine-1].text)
	if sep == 0 {
		sep = ','
	}
	r := csv.NewReader(strings.NewReader(body.String()))
	r.Comma = sep
	r.TrimLeadingSpace = true
	header, err := r.Read()
	if err != nil {
		return nil, csvError(file, headerLine, err)
	}
	var cols []csvColumn
	figures := 0
	seen := map[string]string{}
	for _, h := range header {
		c := csvColumn{name: strings.TrimSpace(h)}
		switch {
		case c.name == "":
			return nil, fail(headerLine, "the header has an empty column name")
		case strings.EqualFold(c.name, "workload"):
			c.isWork = true
		default:
			c.figure = figureColumn(c.name)
		}
		key := c.figure
		if key == "" {
			key = strings.ToLower(c.name)
		}
		if prev, dup := seen[key]; dup {
			return nil, fail(headerLine, "the columns %q and %q are the same", prev, c.name)
		}
		seen[key] = c.name
		if c.figure != "" && c.figure != results.FigureThreads {
			figures++
		}
		cols = append(cols, c)
	}
	if figures == 0 {
		return nil, fail(headerLine, "the CSV has no figure column (its columns %s would all be tags): want at least one of tps, qps, min_ms, avg_ms, max_ms, p95_ms, p99_ms, tpmc, errors",
			strings.Join(header, ", "))
	}
	note := ""
	if len(notes) > 0 {
		note = "source: " + strings.Join(notes, "; ")
	}
	var drafts []*draft
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, csvError(file, 0, err)
		}
		n, _ := r.FieldPos(0)
		d, err := csvRow(file, n, cols, rec)
		if err != nil {
			return nil, err
		}
		d.note = note
		drafts = append(drafts, d)
	}
	return drafts, nil
}

// csvError is encoding/csv's error with the file and line.
func csvError(file string, n int, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		msg := pe.Err.Error()
		if errors.Is(pe.Err, csv.ErrFieldCount) {
			msg = "this row has another number of fields than the header"
		}
		return &InputError{File: file, Line: pe.Line, Msg: msg}
	}
	return &InputError{File: file, Line: n, Msg: err.Error()}
}

// csvRow is one row's step.
func csvRow(file string, n int, cols []csvColumn, rec []string) (*draft, error) {
	fail := func(format string, args ...any) (*draft, error) {
		return nil, &InputError{File: file, Line: n, Msg: fmt.Sprintf(format, args...)}
	}
	d := &draft{first: n, last: n, format: "csv", workLine: n, threadLine: n, noOutput: true,
		threadsHint: "no threads column, or it is empty in this row"}
	d.sum.Workload = results.Meta{Version: "csv"}
	s := &d.sum
	s.Latency.Percentiles = map[string]float64{}
	figures := 0
	for i, c := range cols {
		cell := strings.TrimSpace(rec[i])
		switch {
		case c.isWork:
			d.workload = cell
			continue
		case c.figure == "":
			if cell != "" {
				if d.tags == nil {
					d.tags = map[string]string{}
				}
				d.tags[c.name] = cell
			}
			continue
		case cell == "":
			continue
		}
		raw := cell
		change := strings.HasPrefix(c.figure, "change_")
		if c.figure == "efficiency" || change {
			raw = strings.TrimSpace(strings.TrimSuffix(raw, "%"))
		}
		var v float64
		var err error
		if change { // a signed percent
			v, err = number(strings.TrimPrefix(strings.TrimPrefix(raw, "+"), "-"))
			if strings.HasPrefix(raw, "-") {
				v = -v
			}
		} else {
			v, err = number(raw)
		}
		if err != nil {
			return fail("column %s: %v", c.name, err)
		}
		if c.figure == results.FigureThreads {
			if v != math.Trunc(v) || v < 1 || v > 1e7 {
				return fail("column %s: %q is not a thread count", c.name, cell)
			}
			d.threads = int(v)
			continue
		}
		whole := func() (int64, error) {
			if v != math.Trunc(v) || v > 1e18 {
				return 0, &InputError{File: file, Line: n, Msg: fmt.Sprintf("column %s: %q is not a count", c.name, cell)}
			}
			return int64(v), nil
		}
		switch f := c.figure; {
		case f == results.FigureTPS:
			s.TPS = v
		case f == results.FigureQPS:
			s.QPS = v
		case f == results.FigureSeconds:
			s.Seconds = v
		case f == results.FigureEvents, f == results.FigureQueries, f == results.FigureErrors, f == results.FigureReconnects:
			k, err := whole()
			if err != nil {
				return nil, err
			}
			*map[string]*int64{results.FigureEvents: &s.Events, results.FigureQueries: &s.Queries,
				results.FigureErrors: &s.Errors, results.FigureReconnects: &s.Reconnects}[f] = k
		case f == results.FigureMinMS:
			s.Latency.MinMS = v
		case f == results.FigureAvgMS:
			s.Latency.AvgMS = v
		case f == results.FigureMaxMS:
			s.Latency.MaxMS = v
		case f == results.FigureSumMS:
			s.Latency.SumMS = v
		case f == "tpmC", f == "tpmTotal", f == "efficiency", change:
			if s.Metrics == nil {
				s.Metrics = map[string]float64{}
			}
			s.Metrics[f] = v
		default: // a percentile
			p, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimPrefix(f, "p"), "_ms"), 64)
			s.Latency.Percentiles[results.PercentileKey(p)] = v
			if s.Percentile == 0 || p == 95 {
				s.Percentile = p
			}
		}
		d.give(c.figure)
		figures++
	}
	if figures == 0 {
		return fail("the row gives no figure (every figure column is empty)")
	}
	return d, nil
}
