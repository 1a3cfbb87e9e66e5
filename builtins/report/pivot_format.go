package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// FormatFigure writes a figure for tables: two decimals, thousands
// separated ("143,014.13").
func FormatFigure(v float64) string {
	s := strconv.FormatFloat(math.Abs(v), 'f', 2, 64)
	whole, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	if v < 0 && s != "0.00" {
		b.WriteByte('-')
	}
	for i, d := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
	return b.String() + "." + frac
}

// FormatChange writes a change in percent: "+11.03 %", "-1.98 %".
func FormatChange(v float64) string {
	s := strconv.FormatFloat(v, 'f', 2, 64)
	if s == "-0.00" {
		s = "0.00"
	}
	if !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	return s + " %"
}

// text is the cell as tables show it: "-" when missing, a figure with
// its repeats' 95% interval and count, or a change.
func (c PivotCell) text(col PivotColumn, mean bool) string {
	switch {
	case !c.Present:
		return "-"
	case col.Change && c.Noise:
		return FormatChange(c.Value) + " ~"
	case col.Change:
		return FormatChange(c.Value)
	case !mean && c.N > 1:
		ci := ""
		if c.Stats.Mean != 0 {
			ci = fmt.Sprintf(" ±%.1f%%", (c.Stats.CIHigh-c.Stats.Mean)/math.Abs(c.Stats.Mean)*100)
		}
		return fmt.Sprintf("%s%s (n=%d)", FormatFigure(c.Value), ci, c.N)
	}
	return FormatFigure(c.Value)
}

// Table renders the table for WriteText and WriteMarkdown: a column per
// row tag, then a column per PivotColumn. A row value a step does not
// have shows "-"; the row of headline steps, when there is no mean row,
// reads "all".
func (t *PivotTable) Table(p Pivot) Table {
	out := Table{Title: t.Title}
	for _, d := range p.Rows {
		out.Columns = append(out.Columns, d)
		out.Numeric = append(out.Numeric, d == ThreadsDim)
	}
	for _, c := range t.Columns {
		out.Columns = append(out.Columns, c.Header())
		out.Numeric = append(out.Numeric, true)
	}
	for _, r := range t.Rows {
		var cells []string
		headline := !r.Mean && len(r.Key) > 0 && strings.Join(r.Key, "") == ""
		for i, v := range r.Key {
			switch {
			case r.Mean && i > 0:
			case headline && i == 0:
				v = HeadlineLabel
			case v == "" && !r.Mean:
				v = "-"
			}
			cells = append(cells, v)
		}
		for i, c := range r.Cells {
			cells = append(cells, c.text(t.Columns[i], r.Mean))
		}
		out.Rows = append(out.Rows, cells)
	}
	return out
}

// TextTables renders every table of the result (see PivotTable.Table).
func (r *PivotResult) TextTables() []Table {
	var out []Table
	for _, t := range r.Tables {
		out = append(out, t.Table(r.Pivot))
	}
	return out
}

// Legend says what the tables' marks mean, for what they show.
func (r *PivotResult) Legend() string {
	var changes, repeats, missing, given, noise bool
	for _, t := range r.Tables {
		for _, c := range t.Columns {
			changes = changes || c.Change
		}
		for _, row := range t.Rows {
			for i, c := range row.Cells {
				missing = missing || !c.Present
				given = given || (c.Given && t.Columns[i].Change)
				noise = noise || c.Noise
				repeats = repeats || (!row.Mean && !t.Columns[i].Change && c.N > 1)
			}
		}
	}
	var parts []string
	if r.Pivot.Note != "" {
		parts = append(parts, r.Pivot.Note)
	}
	if changes {
		s := "Changes are (x - base) / base"
		if r.Pivot.Mean {
			s += "; on the mean row, the mean of the rows' changes"
		}
		parts = append(parts, s+".")
	}
	if given {
		parts = append(parts, "A change given with the figures (change_<metric>, e.g. a published report's) is shown as given.")
	}
	if repeats {
		parts = append(parts, "n: repeats averaged; ±: 95% confidence interval of their mean.")
	}
	if noise {
		parts = append(parts, "~: the change is within run-to-run noise (Welch's t-test, 95%).")
	}
	if r.perServer {
		parts = append(parts, "Together steps are shown per server: T ×N is T threads on each of N servers, and tps, qps and tpmC are divided by N.")
	}
	if missing {
		parts = append(parts, "-: no such figure.")
	}
	return strings.Join(parts, " ")
}

// WriteText writes the tables with aligned columns, and the legend.
func (r *PivotResult) WriteText(w io.Writer) {
	WriteText(w, r.TextTables())
	if l := r.Legend(); l != "" {
		fmt.Fprintf(w, "\n%s\n", l)
	}
}

// WriteMarkdown writes the tables as GitHub Markdown, and the legend.
func (r *PivotResult) WriteMarkdown(w io.Writer) {
	tables := r.TextTables()
	for i := range tables {
		t := &tables[i]
		t.Title = escapeMarkdown(t.Title)
		for c := range t.Columns {
			t.Columns[c] = escapeMarkdown(t.Columns[c])
		}
		for _, row := range t.Rows {
			for c := range row {
				row[c] = escapeMarkdown(row[c])
			}
		}
	}
	WriteMarkdown(w, tables)
	if l := r.Legend(); l != "" {
		fmt.Fprintf(w, "\n%s\n", l)
	}
}

// plainNumber writes a number for CSV: ten significant digits, no
// exponent (the last bits of a mean differ between machines that fuse
// multiply-adds and those that do not).
func plainNumber(v float64) string {
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 10, 64), 64)
	if err != nil {
		r = v
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}

func escapeMarkdown(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// PivotRecord is one cell in long form: where it is and its figure, for
// CSV, JSON and plans.
type PivotRecord struct {
	Split  []Pair   `json:"split,omitempty"`
	Row    []Pair   `json:"row,omitempty"`
	Mean   bool     `json:"mean,omitempty"`
	Column []Pair   `json:"column,omitempty"`
	Metric Metric   `json:"metric"`
	Kind   string   `json:"kind"`  // "value" or "change"
	Value  *float64 `json:"value"` // nil: no figure
	N      int      `json:"n,omitempty"`
	Vs     string   `json:"vs,omitempty"` // a change's base column
	Given  bool     `json:"given,omitempty"`
	Noise  bool     `json:"within_noise,omitempty"` // a change within the repeats' noise
}

// Pair is a tag and its value.
type Pair struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

func pairs(names, values []string) []Pair {
	out := make([]Pair, len(names))
	for i, n := range names {
		out[i] = Pair{n, values[i]}
	}
	return out
}

// Records lists every cell of every table, row by row.
func (r *PivotResult) Records() []PivotRecord {
	var out []PivotRecord
	p := r.Pivot
	for _, t := range r.Tables {
		for _, row := range t.Rows {
			for i, c := range row.Cells {
				col := t.Columns[i]
				rec := PivotRecord{Split: pairs(p.Split, t.Split), Row: pairs(p.Rows, row.Key), Mean: row.Mean,
					Column: pairs(p.Columns, col.Key), Metric: col.Metric, Kind: "value", N: c.N, Given: c.Given, Noise: c.Noise}
				if col.Change {
					rec.Kind, rec.Vs = "change", col.BaseLabel
				}
				if c.Present {
					v := c.Value
					rec.Value = &v
				}
				out = append(out, rec)
			}
		}
	}
	return out
}

// WriteCSV writes the cells in long form, one line per cell (easy to
// plot): the split, row and column tags' values, then metric, kind
// (value or change), value (empty: no figure), n (repeats averaged, or
// rows on the mean row), vs (a change's base column), given (a change
// taken from the figures, or a headline's figure on the mean row) and
// within_noise (a change between repeats within their noise). The mean
// row has "mean" in its first row column.
func (r *PivotResult) WriteCSV(w io.Writer) error {
	p := r.Pivot
	cw := csv.NewWriter(w)
	header := append(append(append([]string{}, p.Split...), p.Rows...), p.Columns...)
	header = append(header, "metric", "kind", "value", "n", "vs", "given", "within_noise")
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, rec := range r.Records() {
		var line []string
		for _, group := range [][]Pair{rec.Split, rec.Row, rec.Column} {
			for _, pr := range group {
				line = append(line, pr.Value)
			}
		}
		value, n := "", ""
		if rec.Value != nil {
			value = plainNumber(*rec.Value)
		}
		if rec.N > 0 {
			n = strconv.Itoa(rec.N)
		}
		line = append(line, string(rec.Metric), rec.Kind, value, n, rec.Vs, strconv.FormatBool(rec.Given), strconv.FormatBool(rec.Noise))
		if err := cw.Write(line); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
