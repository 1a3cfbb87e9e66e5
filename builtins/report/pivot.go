package report

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/starbench/starbench/runner/results"
)

// Pivot lays benchmark steps out as a report's own table: one table per
// value of Split, a row per value of Rows, per value of Columns a cell
// holding Metrics, and change columns against a baseline. It is general:
// every seed report's table is a Pivot of the steps its plan tags (the
// README's "Report-shaped tables" lists them).
//
// Split, Rows and Columns name tags of the steps, or the pseudo-tags
// "threads" (always the step's threads; see ThreadsLabel) and "workload"
// (the step's tag workload when it has one, else its workload's name). A
// step without a tag has "" for it. Steps landing in one cell must be
// repeats of one another (they differ at most in the tag round, or come
// from several folders): they are averaged and the cell counts them.
// Steps that differ in something the pivot does not show (another thread
// count, a tag not in Split, Rows or Columns) make Build fail naming it.
type Pivot struct {
	Split   []string // one table per combination of these values
	Rows    []string // the row key
	Columns []string // the column key: a cell per combination
	Metrics []Metric // the figures of each cell, in order
	// Baseline is a value of Columns[0]. For every other value of
	// Columns[0] (with the same values of the other column tags) a change
	// column per metric: (x - base) / base in percent. A step may carry a
	// change it was given (the figure change_<metric> of an imported
	// report): it fills its column's change cell instead.
	Baseline string
	// Mean adds a last row: per column the mean over the rows, for change
	// columns the mean of the rows' changes (not the change of the means:
	// seed 003's "+11.03 %" is the mean of its six per-level changes). A
	// step with none of the row tags (a published headline, e.g. seed
	// 002's +36 % tpmC) gives its figures to the mean row.
	Mean bool
	// PerServer shows a merged step (bench.together, starbench merge) of
	// N parts at its per-part threads with tps, qps and tpmC divided by N:
	// what a report of N sysbench processes prints ("threads × N, tps ×
	// N"). Latencies are the merged ones. Without it the figures are the
	// merged step's; its threads read "150 ×2" either way, so it never
	// pairs with a one-server step of the same total.
	PerServer bool
	// Note is said with the tables, before what their marks mean: what a
	// reader must know to read them (a target that stood in for another).
	Note string
}

// Pseudo-tags a Pivot accepts besides the steps' tags.
const (
	ThreadsDim  = "threads"
	WorkloadDim = "workload"
)

// MeanLabel labels the mean row; HeadlineLabel the row of steps with
// none of the row tags when there is no mean row.
const (
	MeanLabel     = "mean"
	HeadlineLabel = "all"
)

// ErrBadPivot marks a pivot that cannot be made: an unknown metric or
// tag, a baseline no column has, cells of steps that are not repeats.
// The CLI maps it to exit 2; plans report it at the call's position.
var ErrBadPivot = errors.New("bad table")

func badPivot(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadPivot, fmt.Sprintf(format, args...))
}

// ChangeFigure names the figure of a summary's Metrics that holds a
// change given in percent, e.g. "change_tpmc": a published report that
// gives only a change (seed 002's +36 %) is imported with it on the row
// of the contender that changed.
func ChangeFigure(m Metric) string { return "change_" + string(m) }

// Check validates what needs no steps: metrics given, every name given
// once, Baseline only with Columns, Mean only with Rows.
func (p Pivot) Check() error {
	if len(p.Metrics) == 0 {
		return badPivot("no metrics (give one or more of %s)", metricNames())
	}
	seenMetric := map[Metric]bool{}
	for _, m := range p.Metrics {
		if _, err := ParseMetric(string(m)); err != nil {
			return badPivot("%v", err)
		}
		if seenMetric[m] {
			return badPivot("metric %s is given twice", m)
		}
		seenMetric[m] = true
	}
	where := map[string]string{}
	for _, part := range []struct {
		name string
		dims []string
	}{{"split", p.Split}, {"rows", p.Rows}, {"columns", p.Columns}} {
		for _, d := range part.dims {
			if strings.TrimSpace(d) == "" {
				return badPivot("%s: an empty tag name", part.name)
			}
			if w, ok := where[d]; ok {
				if w == part.name {
					return badPivot("%s: %q is given twice", part.name, d)
				}
				return badPivot("%q is in both %s and %s", d, w, part.name)
			}
			where[d] = part.name
		}
	}
	if p.Baseline != "" && len(p.Columns) == 0 {
		return badPivot("baseline %q needs columns: it is a value of the first column tag", p.Baseline)
	}
	if p.Mean && len(p.Rows) == 0 {
		return badPivot("mean needs rows: it is the mean over the rows")
	}
	return nil
}

func metricNames() string {
	all := Metrics()
	names := make([]string, len(all))
	for i, m := range all {
		names[i] = string(m)
	}
	return strings.Join(names, ", ")
}

// Figure reads a metric of a benchmark and whether the benchmark has it
// (Known: a step `starbench import` made has only the figures its source
// gave); a family's metric only that family's steps have.
func (b *Benchmark) Figure(m Metric) (float64, bool) {
	if spec, ok := m.family(); ok {
		if _, ok := b.Summary.Metrics[spec.Name]; !ok {
			return 0, false
		}
	}
	return b.Value(m), b.Known(m)
}

// ranParts are the parts of a merged step that ran.
func (b *Benchmark) ranParts() []*Benchmark {
	var out []*Benchmark
	for _, p := range b.Parts {
		if p.Part != nil && p.Part.Ran {
			out = append(out, p)
		}
	}
	return out
}

// LoadsTag marks figures a report printed per load of N run at once (seed
// 000: "one sysbench per TiDB server, the total is threads × N, tps × N"):
// an imported step tagged loads=N is one load's threads and figures, and
// pairs with a merged step of N parts ("150 ×N").
const LoadsTag = "loads"

// perLoad is N of a step tagged loads=N, 0 for any other.
func (b *Benchmark) perLoad() int {
	n, err := strconv.Atoi(b.Summary.Tags[LoadsTag])
	if err != nil || n < 1 || len(b.Parts) > 0 {
		return 0
	}
	return n
}

// ThreadsLabel is a step's threads as a pivot shows them: "150" for one
// load, "150 ×2" for a merged step of two parts of 150 threads each
// ("100+200" when its parts' threads differ), "" when unknown: an
// imported step whose source did not give them (`starbench import
// --threads N` fills them in, unknown).
func (b *Benchmark) ThreadsLabel() string {
	if !b.Summary.Known(results.FigureThreads) {
		return ""
	}
	if n := b.perLoad(); n > 1 {
		return fmt.Sprintf("%d ×%d", b.Threads(), n)
	}
	if parts := b.ranParts(); len(parts) > 0 {
		same := true
		var each []string
		for _, p := range parts {
			same = same && p.Threads() == parts[0].Threads()
			each = append(each, strconv.Itoa(p.Threads()))
		}
		if same {
			return fmt.Sprintf("%d ×%d", parts[0].Threads(), len(parts))
		}
		return strings.Join(each, "+")
	}
	if b.Threads() == 0 {
		return ""
	}
	return strconv.Itoa(b.Threads())
}

// dimValue is a step's value of a pivot's tag or pseudo-tag.
func dimValue(b *Benchmark, dim string) string {
	if dim == ThreadsDim {
		return b.ThreadsLabel()
	}
	if v, ok := b.Summary.Tags[dim]; ok {
		return v
	}
	if dim == WorkloadDim {
		return b.Workload()
	}
	return ""
}

// PivotResult is a built pivot: its tables in order.
type PivotResult struct {
	Pivot  Pivot
	Tables []*PivotTable
	// perServer is set when PerServer divided a merged step's figures.
	perServer bool
}

// PivotTable is one table of a pivot (one value of Split).
type PivotTable struct {
	Split   []string // the table's values of Pivot.Split
	Title   string
	Columns []PivotColumn
	Rows    []*PivotRow
}

// PivotColumn is a column of figures: one metric of one combination of
// the column tags, or its change against the baseline's.
type PivotColumn struct {
	Key    []string // values of Pivot.Columns
	Label  string   // the key's values, e.g. "v5.2.0 published"
	Metric Metric
	// Change columns hold (x - base) / base in percent against the
	// combination BaseKey (Baseline in place of Key[0]).
	Change    bool
	BaseKey   []string
	BaseLabel string
}

// Header is the column's name in tables: "v5.1.1 qps", "v5.2.0 p95 ms
// vs v5.1.1", or the metric alone without column tags.
func (c PivotColumn) Header() string {
	h := metricHeader(c.Metric)
	if c.Label != "" {
		h = c.Label + " " + h
	}
	if c.Change {
		h += " vs " + c.BaseLabel
	}
	return h
}

// PivotRow is a row: its key and a cell per column.
type PivotRow struct {
	Key   []string // values of Pivot.Rows; the mean row: "mean", "", ...
	Mean  bool
	Cells []PivotCell
}

// PivotCell is one figure.
type PivotCell struct {
	Present bool
	Value   float64 // the mean of the repeats, the mean over the rows, or the change in percent
	// N is how many steps were averaged (how many rows on the mean row);
	// 0 for a change of one row.
	N int
	// Stats are the repeats' (value cells of a row with more than one).
	Stats Stats
	// Given marks a change taken from the steps' change_<metric> figure
	// (a published change), or a figure of a headline step on the mean
	// row, rather than computed.
	Given bool
	// Noise marks a change between repeats on both sides that is within
	// their run-to-run noise (Welch's t-test, 95%, as compare's "~").
	Noise bool
}

// dimOrder orders the values of one tag: by first appearance (the run's
// steps before an included folder's), threads by number, the baseline
// first, in rows a step without the tag last.
type dimOrder map[string]int

// pivotStep is a step with its keys.
type pivotStep struct {
	b                *Benchmark
	split, row, col  []string
	splitK, rowK, cK string
}

func joinKey(vals []string) string { return strings.Join(vals, "\x00") }

// Build lays benchmarks out by the pivot. Bad input (see ErrBadPivot) is
// an error naming what is wrong and what there is instead.
func (p Pivot) Build(benchmarks []*Benchmark) (*PivotResult, error) {
	if err := p.Check(); err != nil {
		return nil, err
	}
	if len(benchmarks) == 0 {
		return nil, badPivot("no benchmark steps to lay out")
	}
	if err := p.checkTags(benchmarks); err != nil {
		return nil, err
	}
	steps := make([]*pivotStep, len(benchmarks))
	for i, b := range benchmarks {
		s := &pivotStep{b: b}
		for _, d := range p.Split {
			s.split = append(s.split, dimValue(b, d))
		}
		for _, d := range p.Rows {
			s.row = append(s.row, dimValue(b, d))
		}
		for _, d := range p.Columns {
			s.col = append(s.col, dimValue(b, d))
		}
		s.splitK, s.rowK, s.cK = joinKey(s.split), joinKey(s.row), joinKey(s.col)
		steps[i] = s
	}
	res := &PivotResult{Pivot: p}
	for _, b := range benchmarks {
		res.perServer = res.perServer || (p.PerServer && len(b.ranParts()) > 0)
	}
	orders := p.orders(steps)
	if p.Baseline != "" {
		if _, ok := orders[p.Columns[0]][p.Baseline]; !ok {
			return nil, badPivot("baseline %q is not a value of %s (values: %s)", p.Baseline, p.Columns[0], valuesOf(orders[p.Columns[0]]))
		}
	}
	var splitKeys [][]string
	bySplit := map[string][]*pivotStep{}
	for _, s := range steps {
		if _, ok := bySplit[s.splitK]; !ok {
			splitKeys = append(splitKeys, s.split)
		}
		bySplit[s.splitK] = append(bySplit[s.splitK], s)
	}
	sortKeys(splitKeys, p.Split, orders)
	for _, key := range splitKeys {
		t, err := p.table(key, bySplit[joinKey(key)], orders)
		if err != nil {
			return nil, err
		}
		res.Tables = append(res.Tables, t)
	}
	return res, nil
}

// checkTags fails for a tag of the pivot that no step has.
func (p Pivot) checkTags(benchmarks []*Benchmark) error {
	for _, dims := range [][]string{p.Split, p.Rows, p.Columns} {
		for _, d := range dims {
			if d == ThreadsDim || d == WorkloadDim {
				continue
			}
			found := false
			for _, b := range benchmarks {
				if _, ok := b.Summary.Tags[d]; ok {
					found = true
					break
				}
			}
			if !found {
				tags := append(tagNames(benchmarks), RoundTag, ThreadsDim, WorkloadDim)
				return badPivot("no step has the tag %q (there are: %s)", d, strings.Join(uniqueSorted(tags), ", "))
			}
		}
	}
	return nil
}

func uniqueSorted(list []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// orders ranks every value of every tag of the pivot.
func (p Pivot) orders(steps []*pivotStep) map[string]dimOrder {
	orders := map[string]dimOrder{}
	add := func(dims []string, rows bool, vals func(*pivotStep) []string) {
		for i, d := range dims {
			o := dimOrder{}
			var seen []string
			for _, s := range steps {
				v := vals(s)[i]
				if _, ok := o[v]; !ok {
					o[v] = len(o)
					seen = append(seen, v)
				}
			}
			if d == ThreadsDim {
				sort.SliceStable(seen, func(a, b int) bool { return threadsLess(seen[a], seen[b]) })
			}
			if i == 0 && d == firstOf(p.Columns) && p.Baseline != "" {
				sort.SliceStable(seen, func(a, b int) bool { return seen[a] == p.Baseline && seen[b] != p.Baseline })
			}
			if rows { // a row of steps without the tag (headlines) goes last
				sort.SliceStable(seen, func(a, b int) bool { return seen[a] != "" && seen[b] == "" })
			}
			for k, v := range seen {
				o[v] = k
			}
			orders[d] = o
		}
	}
	add(p.Split, false, func(s *pivotStep) []string { return s.split })
	add(p.Rows, true, func(s *pivotStep) []string { return s.row })
	add(p.Columns, false, func(s *pivotStep) []string { return s.col })
	return orders
}

func firstOf(list []string) string {
	if len(list) == 0 {
		return ""
	}
	return list[0]
}

// threadsLess orders thread labels: "150" < "150 ×2" < "300" < "" (by
// the threads of each load, then the loads).
func threadsLess(a, b string) bool {
	na, ka := threadsNumbers(a)
	nb, kb := threadsNumbers(b)
	if na != nb {
		return na < nb
	}
	if ka != kb {
		return ka < kb
	}
	return a < b
}

func threadsNumbers(label string) (each, loads int) {
	if label == "" {
		return math.MaxInt, 0
	}
	first, rest, _ := strings.Cut(label, " ×")
	first, _, _ = strings.Cut(first, "+")
	each, _ = strconv.Atoi(first)
	loads = 1
	if rest != "" {
		loads, _ = strconv.Atoi(rest)
	}
	return each, loads
}

func valuesOf(o dimOrder) string {
	vals := make([]string, len(o))
	for v, i := range o {
		vals[i] = v
	}
	for i, v := range vals {
		if v == "" {
			vals[i] = "(none)"
		}
	}
	return strings.Join(vals, ", ")
}

// sortKeys orders keys of dims by their values' ranks.
func sortKeys(keys [][]string, dims []string, orders map[string]dimOrder) {
	sort.SliceStable(keys, func(a, b int) bool {
		for i, d := range dims {
			ra, rb := orders[d][keys[a][i]], orders[d][keys[b][i]]
			if ra != rb {
				return ra < rb
			}
		}
		return false
	})
}

// table builds the table of one value of Split.
func (p Pivot) table(split []string, steps []*pivotStep, orders map[string]dimOrder) (*PivotTable, error) {
	t := &PivotTable{Split: split, Title: p.title(split)}
	cells := map[string][]*Benchmark{} // row key + col key
	var rowKeys, colKeys [][]string
	seenRow, seenCol := map[string]bool{}, map[string]bool{}
	for _, s := range steps {
		k := s.rowK + "\x01" + s.cK
		cells[k] = append(cells[k], s.b)
		if !seenRow[s.rowK] {
			seenRow[s.rowK] = true
			rowKeys = append(rowKeys, s.row)
		}
		if !seenCol[s.cK] {
			seenCol[s.cK] = true
			colKeys = append(colKeys, s.col)
		}
	}
	sortKeys(rowKeys, p.Rows, orders)
	sortKeys(colKeys, p.Columns, orders)
	for _, s := range steps {
		if err := p.checkRepeats(s, cells[s.rowK+"\x01"+s.cK]); err != nil {
			return nil, err
		}
	}
	t.Columns = p.columns(colKeys, cells)
	headline := make([]string, len(p.Rows))
	for _, rk := range rowKeys {
		if p.Mean && joinKey(rk) == joinKey(headline) {
			continue // its figures go to the mean row
		}
		row := &PivotRow{Key: rk}
		for _, c := range t.Columns {
			row.Cells = append(row.Cells, p.cell(cells, joinKey(rk), c))
		}
		t.Rows = append(t.Rows, row)
	}
	if p.Mean {
		mean, err := p.meanRow(t, cells, joinKey(headline))
		if err != nil {
			return nil, err
		}
		t.Rows = append(t.Rows, mean)
	}
	return t, nil
}

// title names a table: its metrics, rows and columns, and its values of
// Split.
func (p Pivot) title(split []string) string {
	var names []string
	for _, m := range p.Metrics {
		names = append(names, string(m))
	}
	title := strings.Join(names, ", ")
	if len(p.Rows) > 0 {
		title += " by " + strings.Join(p.Rows, ", ")
	}
	if len(p.Columns) > 0 {
		title += " per " + strings.Join(p.Columns, ", ")
	}
	if len(split) == 0 {
		return title
	}
	var parts []string
	for i, d := range p.Split {
		v := split[i]
		if v == "" {
			v = "(none)"
		}
		parts = append(parts, d+"="+v)
	}
	return strings.Join(parts, ", ") + ": " + title
}

// checkRepeats fails when the steps of s's cell are not repeats of s:
// they differ in the workload, the threads or a tag the pivot does not
// show (the tag round aside).
func (p Pivot) checkRepeats(s *pivotStep, cell []*Benchmark) error {
	// What the pivot shows needs no check; round numbers repeats.
	shown := map[string]bool{RoundTag: true}
	for _, dims := range [][]string{p.Split, p.Rows, p.Columns} {
		for _, d := range dims {
			shown[d] = true
		}
	}
	for _, o := range cell {
		if o == s.b {
			continue
		}
		what, a, b := "", "", ""
		switch {
		case !shown[WorkloadDim] && o.Workload() != s.b.Workload():
			what, a, b = WorkloadDim, s.b.Workload(), o.Workload()
		case !shown[ThreadsDim] && o.ThreadsLabel() != s.b.ThreadsLabel():
			what, a, b = ThreadsDim, s.b.ThreadsLabel(), o.ThreadsLabel()
		default:
			for _, tag := range uniqueSorted(append(keysOf(s.b.Summary.Tags), keysOf(o.Summary.Tags)...)) {
				va, oka := s.b.Summary.Tags[tag]
				vb, okb := o.Summary.Tags[tag]
				if !shown[tag] && (va != vb || oka != okb) {
					what, a, b = "tag "+tag, va, vb
					break
				}
			}
		}
		if what == "" {
			continue
		}
		name := strings.TrimPrefix(what, "tag ")
		return badPivot("the cell %s holds steps that differ in %s (%s and %s), not repeats: put %s in split, rows or columns",
			p.describe(s), what, orNone(a), orNone(b), name)
	}
	return nil
}

func keysOf(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func orNone(v string) string {
	if v == "" {
		return "none"
	}
	return strconv.Quote(v)
}

// describe names a step's cell: "(workload=x, threads=8, version=a)".
func (p Pivot) describe(s *pivotStep) string {
	var parts []string
	for i, d := range p.Split {
		parts = append(parts, d+"="+s.split[i])
	}
	for i, d := range p.Rows {
		parts = append(parts, d+"="+s.row[i])
	}
	for i, d := range p.Columns {
		parts = append(parts, d+"="+s.col[i])
	}
	if len(parts) == 0 {
		return "of the table"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// columns are the value columns (per combination, its metrics) and then
// the change columns (per metric, every combination but the baseline's
// that has a base or a given change).
func (p Pivot) columns(colKeys [][]string, cells map[string][]*Benchmark) []PivotColumn {
	var cols []PivotColumn
	have := map[string]bool{}
	for _, ck := range colKeys {
		have[joinKey(ck)] = true
		for _, m := range p.Metrics {
			cols = append(cols, PivotColumn{Key: ck, Label: p.columnLabel(ck), Metric: m})
		}
	}
	if p.Baseline == "" {
		return cols
	}
	for _, m := range p.Metrics {
		for _, ck := range colKeys {
			if ck[0] == p.Baseline {
				continue
			}
			base := append([]string{p.Baseline}, ck[1:]...)
			if !have[joinKey(base)] && !givesChange(cells, joinKey(ck), m) {
				continue
			}
			cols = append(cols, PivotColumn{Key: ck, Label: p.columnLabel(ck), Metric: m, Change: true, BaseKey: base, BaseLabel: p.columnLabel(base)})
		}
	}
	return cols
}

// givesChange reports whether a step of the column has a given change of m.
func givesChange(cells map[string][]*Benchmark, colK string, m Metric) bool {
	for k, bs := range cells {
		if !strings.HasSuffix(k, "\x01"+colK) {
			continue
		}
		for _, b := range bs {
			if _, ok := b.Summary.Metrics[ChangeFigure(m)]; ok {
				return true
			}
		}
	}
	return false
}

// columnLabel names a combination of column values: the values given,
// space-separated ("v5.2.0 published"); "" without column tags.
func (p Pivot) columnLabel(key []string) string {
	var vals []string
	for _, v := range key {
		if v != "" {
			vals = append(vals, v)
		}
	}
	if len(vals) == 0 && len(p.Columns) > 0 {
		return "no " + strings.Join(p.Columns, "/")
	}
	return strings.Join(vals, " ")
}

// valueOf is a step's figure as the pivot shows it: a merged step's rates
// (and additive family metrics) divided by its parts with PerServer; a step of one load's figures
// (loads=N) multiplied by N without it.
func (p Pivot) valueOf(b *Benchmark, m Metric) (float64, bool) {
	v, ok := b.Figure(m)
	if !ok || !m.summedOverLoads() {
		return v, ok
	}
	if n := len(b.ranParts()); p.PerServer && n > 0 {
		v /= float64(n)
	}
	if n := b.perLoad(); !p.PerServer && n > 1 {
		v *= float64(n)
	}
	return v, ok
}

// valueCell averages the figure m over a cell's steps that have it.
func (p Pivot) valueCell(steps []*Benchmark, m Metric) PivotCell {
	var vals []float64
	for _, b := range steps {
		if v, ok := p.valueOf(b, m); ok {
			vals = append(vals, v)
		}
	}
	if len(vals) == 0 {
		return PivotCell{}
	}
	s := StatsOf(vals)
	return PivotCell{Present: true, Value: s.Mean, N: s.N, Stats: s}
}

// givenChange averages the change of m the steps were given.
func givenChange(steps []*Benchmark, m Metric) (PivotCell, bool) {
	var vals []float64
	for _, b := range steps {
		if v, ok := b.Summary.Metrics[ChangeFigure(m)]; ok {
			vals = append(vals, v)
		}
	}
	if len(vals) == 0 {
		return PivotCell{}, false
	}
	return PivotCell{Present: true, Value: StatsOf(vals).Mean, Given: true}, true
}

func change(x, base PivotCell) PivotCell {
	if !x.Present || !base.Present || base.Value == 0 {
		return PivotCell{}
	}
	noise := x.N >= 2 && base.N >= 2 && !Significant(base.Stats, x.Stats)
	return PivotCell{Present: true, Value: (x.Value - base.Value) / base.Value * 100, Noise: noise}
}

// cell is the cell of row rowK in column c.
func (p Pivot) cell(cells map[string][]*Benchmark, rowK string, c PivotColumn) PivotCell {
	steps := cells[rowK+"\x01"+joinKey(c.Key)]
	if !c.Change {
		return p.valueCell(steps, c.Metric)
	}
	if g, ok := givenChange(steps, c.Metric); ok {
		return g
	}
	return change(p.valueCell(steps, c.Metric), p.valueCell(cells[rowK+"\x01"+joinKey(c.BaseKey)], c.Metric))
}

// meanRow is the mean of each column over t's rows. The figures of
// headline steps (none of the row tags: headK) fill the cells no row
// has; a cell with both is an error: the headline's tags do not tell it
// apart from the rows (give it a column tag of its own, e.g.
// source=published).
func (p Pivot) meanRow(t *PivotTable, cells map[string][]*Benchmark, headK string) (*PivotRow, error) {
	key := make([]string, len(p.Rows))
	key[0] = MeanLabel
	row := &PivotRow{Key: key, Mean: true}
	for i, c := range t.Columns {
		var vals []float64
		for _, r := range t.Rows {
			if r.Cells[i].Present {
				vals = append(vals, r.Cells[i].Value)
			}
		}
		head := p.cell(cells, headK, c)
		switch {
		case head.Present && len(vals) > 0:
			b := cells[headK+"\x01"+joinKey(c.Key)][0]
			return nil, badPivot("the mean row's %q would be both the mean of the rows and the figure of a step with none of the row tags (%s, tags %s): give that step a column value of its own (e.g. a tag source=published in columns) or leave it out",
				c.Header(), p.cellText(c, head), tagList(b))
		case head.Present:
			head.Given, head.N = true, 0
			row.Cells = append(row.Cells, head)
		case len(vals) > 0:
			row.Cells = append(row.Cells, PivotCell{Present: true, Value: StatsOf(vals).Mean, N: len(vals)})
		default:
			row.Cells = append(row.Cells, PivotCell{})
		}
	}
	return row, nil
}

func (p Pivot) cellText(c PivotColumn, cell PivotCell) string {
	if c.Change {
		return FormatChange(cell.Value)
	}
	return FormatFigure(cell.Value)
}

// tagList is "k=v, k=v" of a step's tags, sorted.
func tagList(b *Benchmark) string {
	var out []string
	for _, k := range uniqueSorted(keysOf(b.Summary.Tags)) {
		out = append(out, k+"="+b.Summary.Tags[k])
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}

// metricHeader names a metric in column headers: a family's as it
// declared it, a latency with its unit.
func metricHeader(m Metric) string {
	if spec, ok := m.family(); ok {
		return spec.Name
	}
	if m.Unit() == "ms" {
		return string(m) + " ms"
	}
	return string(m)
}
