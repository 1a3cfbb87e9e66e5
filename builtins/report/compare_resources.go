package report

import (
	"fmt"
	"math"
	"strconv"
)

// changedPct is how much a step's metric must change (beyond noise) for
// a comparison to put its resource figures beside it.
const changedPct = 2.0

// ResourceRow is one resource figure of a changed step, per contender:
// what the servers and hosts did per event (Benchmark.Resources),
// averaged over the contender's repeats; nil where the contender recorded
// none (no telemetry, or not that figure).
type ResourceRow struct {
	Key    Key        `json:"-"`
	Name   string     `json:"key"`
	Figure string     `json:"figure"`
	Values []*float64 `json:"values"` // in Contenders' order
}

// addResources puts the resource figures beside each step whose metric
// changed beyond noise by changedPct or more for some contender: the
// first suspects of a regression.
func (c *Comparison) addResources() {
	for _, r := range c.Rows {
		if r.Key.Part > 0 || !changed(r) {
			continue
		}
		perContender := make([]map[string]float64, len(c.Contenders))
		for i, name := range c.Contenders {
			if g := c.groups[name][r.Key]; g != nil {
				perContender[i] = averageResources(g.Benchmarks)
			}
		}
		for _, fig := range resourceNames {
			row := ResourceRow{Key: r.Key, Name: r.Name, Figure: fig}
			any := false
			for _, res := range perContender {
				var v *float64
				if x, ok := res[fig]; ok {
					v, any = &x, true
				}
				row.Values = append(row.Values, v)
			}
			if any {
				c.Resources = append(c.Resources, row)
			}
		}
	}
}

// changed tells a row where a contender's metric changed beyond noise by
// changedPct or more.
func changed(r Row) bool {
	for _, cell := range r.Cells[1:] {
		if cell.Present && !cell.Unknown && !r.Cells[0].Unknown && cell.Significant && math.Abs(cell.Change) >= changedPct {
			return true
		}
	}
	return false
}

// averageResources is the mean of each resource figure over the repeats
// that recorded it.
func averageResources(bs []*Benchmark) map[string]float64 {
	sum, n := map[string]float64{}, map[string]int{}
	for _, b := range bs {
		for fig, v := range b.Resources() {
			sum[fig] += v
			n[fig]++
		}
	}
	for fig := range sum {
		sum[fig] /= float64(n[fig])
	}
	return sum
}

// Tables are the comparison's tables: Table; when a changed step has
// resource figures, ResourceTable; when the contenders' settings differ,
// SettingsTable.
func (c *Comparison) Tables() []Table {
	tables := []Table{c.Table()}
	if t, ok := c.ResourceTable(); ok {
		tables = append(tables, t)
	}
	if t, ok := c.SettingsTable(); ok {
		tables = append(tables, t)
	}
	return tables
}

// ResourceTable lists the resource figures beside each changed step, a
// row each, after a row of the compared metric itself: per contender its
// value and, for the others, the change against the baseline. ok is
// false when no changed step has any.
func (c *Comparison) ResourceTable() (Table, bool) {
	if len(c.Resources) == 0 {
		return Table{}, false
	}
	t := Table{Title: fmt.Sprintf("what the servers did in the steps whose %s changed by %.0f%% or more", c.Metric, changedPct),
		Columns: []string{"workload", "threads", "tags", "figure"}, Numeric: []bool{false, true, false, false}}
	for i, name := range c.Contenders {
		t.Columns, t.Numeric = append(t.Columns, name), append(t.Numeric, true)
		if i > 0 {
			t.Columns, t.Numeric = append(t.Columns, "vs "+c.Baseline), append(t.Numeric, true)
		}
	}
	cells := func(values []*float64) []string {
		var out []string
		for i, v := range values {
			switch {
			case v == nil:
				out = append(out, "-")
			default:
				out = append(out, num(*v))
			}
			if i == 0 {
				continue
			}
			if v == nil || values[0] == nil || *values[0] == 0 {
				out = append(out, "-")
			} else {
				out = append(out, fmt.Sprintf("%+.2f%%", (*v-*values[0]) / *values[0] * 100))
			}
		}
		return out
	}
	var last Key
	for i, r := range c.Resources {
		head := []string{r.Key.Workload, strconv.Itoa(r.Key.Threads), r.Key.Tags}
		if i == 0 || r.Key != last {
			metric := ResourceRow{Key: r.Key}
			for _, row := range c.Rows {
				if row.Key == r.Key {
					for _, cell := range row.Cells {
						var v *float64
						if cell.Present && !cell.Unknown {
							mean := cell.Stats.Mean
							v = &mean
						}
						metric.Values = append(metric.Values, v)
					}
				}
			}
			t.Rows = append(t.Rows, append(append(head, string(c.Metric)), cells(metric.Values)...))
		}
		last = r.Key
		t.Rows = append(t.Rows, append(append([]string{"", "", ""}, r.Figure), cells(r.Values)...))
	}
	return t, true
}
