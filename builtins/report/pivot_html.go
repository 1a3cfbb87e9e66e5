package report

import (
	"bytes"
	"html/template"
	"io"
	"strings"
)

// The HTML of a pivot: a table per PivotTable, well-formed (it parses as
// XML), with two header rows when there are column tags (the
// combination over its metrics, then the metrics; the change columns
// grouped by metric), a th per row label, classes for styling (num,
// change, better or worse by the metric's direction, given, missing,
// mean) and nothing else: no script, no style of its own. PivotResult.HTML
// is the fragment a report page embeds; WritePivotHTML a page of its own.

var pivotTemplate = template.Must(template.New("pivot").Parse(`{{define "table"}}<table class="pivot">
<caption>{{.Title}}</caption>
<thead>
{{range .Head}}<tr>{{range .}}<th{{if gt .ColSpan 1}} colspan="{{.ColSpan}}"{{end}}{{if gt .RowSpan 1}} rowspan="{{.RowSpan}}"{{end}} scope="col">{{.Text}}</th>{{end}}</tr>
{{end}}</thead>
<tbody>
{{range .Rows}}<tr{{if .Class}} class="{{.Class}}"{{end}}>{{range .Cells}}{{if .Header}}<th scope="row">{{.Text}}</th>{{else}}<td class="{{.Class}}"{{if .Title}} title="{{.Title}}"{{end}}>{{.Text}}</td>{{end}}{{end}}</tr>
{{end}}</tbody>
</table>
{{if .Legend}}<p class="legend-note">{{.Legend}}</p>
{{end}}{{if .Charts}}<div class="charts">{{.Charts}}</div>
{{end}}{{end}}{{define "tables"}}{{range .}}{{template "table" .}}{{end}}{{end}}{{define "page"}}<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
  body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 24px auto; max-width: 1340px; color: #222; padding: 0 16px; }
  h1 { font-size: 22px; margin-bottom: 4px; }
  .sub { color: #666; font-size: 13px; }
  table.pivot { border-collapse: collapse; font-size: 13px; margin: 18px 0 8px; }
  table.pivot caption { text-align: left; font-weight: 600; font-size: 15px; padding-bottom: 6px; }
  table.pivot th, table.pivot td { border: 1px solid #ddd; padding: 4px 8px; }
  table.pivot th { background: #f3f5f7; text-align: left; }
  table.pivot td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
  table.pivot td.better { color: #0a6e2f; }
  table.pivot td.worse { color: #b00020; }
  table.pivot td.given { font-style: italic; }
  table.pivot td.missing { color: #999; }
  table.pivot tr.mean th, table.pivot tr.mean td { border-top: 2px solid #888; font-weight: 600; }
  .legend-note { font-size: 12px; color: #555; }
  .charts { display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-start; margin: 8px 0 18px; }
  figure.chart { margin: 0; background: #fff; border: 1px solid #e3e3e3; width: 610px; }
  figure.chart figcaption { font-size: 13px; font-weight: 600; padding: 8px 10px 0; overflow-wrap: anywhere; }
  svg.chart { display: block; }
  ul.legend { display: flex; flex-wrap: wrap; gap: 4px 16px; list-style: none; margin: 0; padding: 0 10px 10px; font-size: 12px; }
  ul.legend li { display: flex; align-items: center; gap: 6px; min-width: 0; max-width: 100%; overflow-wrap: anywhere; }
  ul.legend svg.swatch { flex: none; }
  svg.chart text { font-family: inherit; font-size: 11px; fill: #333; }
  svg.chart .grid { stroke: #eee; }
  svg.chart .axis { stroke: #888; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
{{if .Subtitle}}<div class="sub">{{.Subtitle}}</div>{{end}}
{{template "tables" .Tables}}</body>
</html>
{{end}}`))

type htmlHead struct {
	Text             string
	ColSpan, RowSpan int
}

type htmlCell struct {
	Text, Class, Title string
	Header             bool
}

type htmlRow struct {
	Class string
	Cells []htmlCell
}

type htmlPivotTable struct {
	Title  string
	Head   [][]htmlHead
	Rows   []htmlRow
	Legend string
	Charts template.HTML // the table's figures drawn (pivotCharts)
}

// htmlTable is the template's model of one table.
func (t *PivotTable) htmlTable(p Pivot, legend string) htmlPivotTable {
	out := htmlPivotTable{Title: t.Title, Legend: legend}
	two := len(p.Columns) > 0
	span := 1
	if two {
		span = 2
	}
	var top, second []htmlHead
	for _, d := range p.Rows {
		top = append(top, htmlHead{Text: d, ColSpan: 1, RowSpan: span})
	}
	for i := 0; i < len(t.Columns); {
		c := t.Columns[i]
		j := i + 1
		for j < len(t.Columns) && sameGroup(c, t.Columns[j]) {
			j++
		}
		switch {
		case !two:
			top = append(top, htmlHead{Text: c.Header(), ColSpan: 1, RowSpan: 1})
			j = i + 1
		case c.Change:
			top = append(top, htmlHead{Text: metricHeader(c.Metric) + " change", ColSpan: j - i, RowSpan: 1})
			for _, g := range t.Columns[i:j] {
				second = append(second, htmlHead{Text: g.Label + " vs " + g.BaseLabel, ColSpan: 1, RowSpan: 1})
			}
		default:
			top = append(top, htmlHead{Text: c.Label, ColSpan: j - i, RowSpan: 1})
			for _, g := range t.Columns[i:j] {
				second = append(second, htmlHead{Text: metricHeader(g.Metric), ColSpan: 1, RowSpan: 1})
			}
		}
		i = j
	}
	out.Head = append(out.Head, top)
	if two {
		out.Head = append(out.Head, second)
	}
	text := t.Table(p)
	for ri, r := range t.Rows {
		row := htmlRow{}
		if r.Mean {
			row.Class = "mean"
		}
		for k := range p.Rows {
			row.Cells = append(row.Cells, htmlCell{Text: text.Rows[ri][k], Header: true})
		}
		for ci, c := range r.Cells {
			col := t.Columns[ci]
			cell := htmlCell{Text: text.Rows[ri][len(p.Rows)+ci], Class: "num"}
			switch {
			case !c.Present:
				cell.Class += " missing"
			case col.Change && c.Value != 0:
				cell.Class += " change"
				if (c.Value > 0) == col.Metric.HigherIsBetter() {
					cell.Class += " better"
				} else {
					cell.Class += " worse"
				}
			case col.Change:
				cell.Class += " change"
			}
			if c.Present && c.Given {
				cell.Class += " given"
				cell.Title = "as given with the figures, not computed"
			}
			row.Cells = append(row.Cells, cell)
		}
		out.Rows = append(out.Rows, row)
	}
	return out
}

// sameGroup reports whether two adjacent columns share a header cell:
// the metrics of one combination, or the changes of one metric.
func sameGroup(a, b PivotColumn) bool {
	if a.Change != b.Change {
		return false
	}
	if a.Change {
		return a.Metric == b.Metric
	}
	return joinKey(a.Key) == joinKey(b.Key)
}

// HTML renders every table of the result as HTML tables (a caption
// each), the legend after the last: the fragment a report page embeds.
func (r *PivotResult) HTML() (template.HTML, error) {
	var buf bytes.Buffer
	tables, err := r.htmlTables()
	if err != nil {
		return "", err
	}
	if err := pivotTemplate.ExecuteTemplate(&buf, "tables", tables); err != nil {
		return "", err
	}
	return template.HTML(buf.String()), nil // the template escaped every value
}

func (r *PivotResult) htmlTables() ([]htmlPivotTable, error) {
	var out []htmlPivotTable
	legend := r.Legend()
	for i, t := range r.Tables {
		l := ""
		if i == len(r.Tables)-1 {
			l = legend
		}
		ht := t.htmlTable(r.Pivot, l)
		charts, err := chartHTML(t.charts(r.Pivot))
		if err != nil {
			return nil, err
		}
		ht.Charts = charts
		out = append(out, ht)
	}
	return out, nil
}

// WritePivotHTML writes a self-contained page (no scripts, fonts or
// network) of the result's tables, titled title, with subtitle under it
// (the folders it read, say).
func WritePivotHTML(w io.Writer, r *PivotResult, title, subtitle string) error {
	tables, err := r.htmlTables()
	if err != nil {
		return err
	}
	return pivotTemplate.ExecuteTemplate(w, "page", struct {
		Title, Subtitle string
		Tables          []htmlPivotTable
	}{title, strings.TrimSpace(subtitle), tables})
}
