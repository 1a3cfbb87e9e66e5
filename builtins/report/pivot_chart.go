package report

import (
	"bytes"
	"html/template"
	"math"
	"strings"
)

// pivotCharts draws a pivot table's figures: for each metric a chart of
// its value columns (a series each) over the rows (the mean row left
// out), as the report page draws its charts. A table of fewer than two
// rows has none: a chart of one point says nothing its table does not.
func (t *PivotTable) charts(p Pivot) []*Chart {
	var rows []*PivotRow
	for _, r := range t.Rows {
		if !r.Mean {
			rows = append(rows, r)
		}
	}
	if len(rows) < 2 {
		return nil
	}
	cats := make([]string, len(rows))
	for i, r := range rows {
		cats[i] = strings.Join(r.Key, " ")
	}
	xlabel := strings.Join(p.Rows, ", ")
	if xlabel == "" {
		xlabel = "rows"
	}
	var out []*Chart
	for _, m := range p.Metrics {
		var series []SeriesData
		for ci, c := range t.Columns {
			if c.Change || c.Metric != m {
				continue
			}
			s := SeriesData{Name: c.Label, Color: -1}
			if s.Name == "" {
				s.Name = string(m)
			}
			drawn := false
			for _, r := range rows {
				v := math.NaN()
				if cell := r.Cells[ci]; cell.Present {
					v, drawn = cell.Value, true
				}
				s.Values = append(s.Values, v)
			}
			if drawn {
				series = append(series, s)
			}
		}
		if len(series) == 0 {
			continue
		}
		c := CategoryChart(t.Title+": "+metricHeader(m), xlabel, metricLabel(m), cats, series)
		c.Kind, c.Metric = "pivot", string(m)
		out = append(out, c)
	}
	return out
}

// chartHTML renders charts with the report page's chart template.
func chartHTML(charts []*Chart) (template.HTML, error) {
	var buf bytes.Buffer
	for _, c := range charts {
		if err := pageTemplate.ExecuteTemplate(&buf, "chart", c); err != nil {
			return "", err
		}
	}
	return template.HTML(buf.String()), nil // the template escaped every value
}
