package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Chart is an SVG line chart ready for the chart template: everything is
// already in pixel coordinates. Its title and legend are HTML around the
// SVG (the browser lays them out and wraps them, so legend entries never
// overlap whatever their number and length); the axes' labels are placed
// in the SVG with estimated text widths (see textWidth) so that they do
// not overlap either.
type Chart struct {
	Title         string
	Label         string // what the chart shows, for screen readers ("" is Title)
	XLabel        string
	YLabel        string
	Note          string // a line above the plot, e.g. that lines are downsampled
	Width, Height float64
	Plot          Rect
	XTicks        []Tick
	YTicks        []Tick
	// XVertical turns the x tick labels to read upwards, for category
	// labels too long to sit side by side.
	XVertical bool
	Series    []Series
	// Kind ("threads", "time", "compare"), Run, Step and Metric identify
	// the chart in the page's markup (data-* attributes), for readers and
	// tests.
	Kind, Run, Step, Metric string
	yTop                    float64
}

// AriaLabel names the chart for screen readers.
func (c *Chart) AriaLabel() string {
	if c.Label != "" {
		return c.Label
	}
	return c.Title
}

// Rect is the plot area.
type Rect struct{ X, Y, W, H float64 }

// Tick is an axis mark with its label.
type Tick struct {
	Pos   float64
	Label string
}

// Series is one line with its points.
type Series struct {
	Name   string
	Key    string // short name in the markup (data-series): "step", "part 2", "p95"
	Color  string
	Dashed bool
	Width  float64 // stroke width
	Path   string  // SVG path data: one M or L per point drawn
	Points []Point // markers, only for short series
	// Values is how many values the line has, Drawn how many of them are
	// vertices of Path (fewer when downsampled).
	Values, Drawn int
}

// Point is a marker with a tooltip.
type Point struct {
	X, Y  float64
	Title string
}

// palette is distinguishable on white and in grey print.
var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"}

// SeriesData is a series before layout: one value per x (NaN: missing).
type SeriesData struct {
	Name   string
	Key    string // see Series.Key; "" is Name
	Values []float64
	Dashed bool
	Color  int     // palette index; -1 picks by position
	Width  float64 // stroke width; 0 is 2
	// X are the series' own x values for a LineChart (nil: the chart's).
	X []float64
}

const (
	chartW    = 610.0
	plotH     = 210.0
	fontPx    = 11.0 // axis labels (the page's CSS says the same)
	notePx    = 10.0
	lineH     = 14.0 // a line of fontPx text, with its descenders
	edge      = 6.0  // space kept free at the SVG's borders
	tickLen   = 4.0
	tickGap   = 5.0 // between a tick and its label
	labelGap  = 8.0 // between tick labels and the axis title
	minLabelX = 8.0 // horizontal space kept between two x tick labels
	// maxMarkers: series with more points than this are drawn without a
	// marker per point.
	maxMarkers = 40
)

// textWidth is an upper estimate of the width of s in px, set in a
// sans-serif font of size px. Its widths per character are at least DejaVu
// Sans' (what Chromium draws the page in on Debian, and among the widest
// of sans-serif fonts; measured in Chromium, e.g. digits 0.636 em, "m"
// 0.974, "W" 0.990, "=" 0.838). Layout uses it where the browser cannot
// measure: SVG text.
func textWidth(s string, px float64) float64 {
	em := 0.0
	for _, r := range s {
		switch {
		case strings.ContainsRune("ijlI.,:;'|", r):
			em += 0.36
		case strings.ContainsRune("frt()[]-/\\\"! ", r):
			em += 0.5
		case strings.ContainsRune("mwMW%@=+<>^~#&…—", r) || r > 0x7f:
			em += 1.0
		case r >= 'A' && r <= 'Z':
			em += 0.82
		default: // digits, lowercase, the rest of ASCII
			em += 0.66
		}
	}
	return em*px + 1
}

// CategoryChart plots series over labelled, evenly spaced x positions
// (thread counts, comparison keys). Labels that do not fit side by side
// read upwards, and only every k-th is shown when even those do not fit.
func CategoryChart(title, xlabel, ylabel string, categories []string, series []SeriesData) *Chart {
	c := &Chart{Title: title, XLabel: xlabel, YLabel: ylabel, Width: chartW}
	c.layoutY(series)
	widest := 0.0
	for _, cat := range categories {
		widest = math.Max(widest, textWidth(cat, fontPx))
	}
	n := len(categories)
	// Horizontal labels are centred on their positions: the outer ones
	// need half their width inside the plot.
	const right = 16.0
	pad := math.Max(20, widest/2+2)
	spacing := func(pad float64) float64 {
		if n < 2 {
			return chartW
		}
		return (chartW - c.Plot.X - right - 2*pad) / float64(n-1)
	}
	every := 1
	if spacing(pad) < widest+minLabelX {
		c.XVertical, pad = true, 20
		every = max(1, int(math.Ceil((lineH+2)/spacing(pad))))
	}
	c.frameX(widest, right)
	xpos := func(i int) float64 {
		if n == 1 {
			return c.Plot.X + c.Plot.W/2
		}
		return c.Plot.X + pad + float64(i)*(c.Plot.W-2*pad)/float64(n-1)
	}
	for i, cat := range categories {
		if i%every == 0 {
			c.XTicks = append(c.XTicks, Tick{Pos: xpos(i), Label: cat})
		}
	}
	for si, s := range series {
		c.addSeries(si, s, func(i int) float64 { return xpos(i) }, func(i int) string { return categories[i] })
	}
	return c
}

// LineChart plots series over a numeric x axis from 0 to the last x
// (time): each series at x, or at its own X. A series with more points
// than twice the plot's width in pixels is downsampled for drawing (see
// downsample), and the chart's Note says so.
func LineChart(title, xlabel, ylabel string, x []float64, series []SeriesData) *Chart {
	return lineChartTo(title, xlabel, ylabel, x, series, 0)
}

// lineChartTo is LineChart with the x axis going at least to xmax: the
// charts of one step share its time axis.
func lineChartTo(title, xlabel, ylabel string, x []float64, series []SeriesData, xmax float64) *Chart {
	c := &Chart{Title: title, XLabel: xlabel, YLabel: ylabel, Width: chartW}
	c.layoutY(series)
	xsOf := func(s SeriesData) []float64 {
		if s.X != nil {
			return s.X
		}
		return x
	}
	for _, s := range series {
		for _, v := range xsOf(s) {
			if !math.IsNaN(v) {
				xmax = math.Max(xmax, v)
			}
		}
	}
	// The axis ends at the last x (a round tick past it would squeeze the
	// lines); ticks are at round values up to it, on the first scale, from
	// fine to coarse, whose labels fit side by side. The right margin holds
	// half the last one.
	top := xmax
	if top <= 0 {
		top = 1
	}
	var step float64
	for _, step = range timeSteps(top) {
		widest := 0.0
		for _, v := range ticksUpTo(step, top) {
			widest = math.Max(widest, textWidth(fmtSeconds(v), fontPx))
		}
		c.frameX(widest, math.Max(16, widest/2+edge))
		if c.Plot.W*step/top >= widest+minLabelX {
			break
		}
	}
	xpos := func(v float64) float64 { return c.Plot.X + v/top*c.Plot.W }
	for _, v := range ticksUpTo(step, top) {
		c.XTicks = append(c.XTicks, Tick{Pos: xpos(v), Label: fmtSeconds(v)})
	}
	most := 0 // values of the longest downsampled series
	longest := 0
	for si, s := range series {
		xs := xsOf(s)
		c.addSeries(si, s, func(i int) float64 { return xpos(xs[i]) }, func(i int) string { return fmtSeconds(xs[i]) + " s" })
		d := c.Series[len(c.Series)-1]
		if d.Drawn < d.Values {
			most = max(most, d.Values)
		}
		longest = max(longest, d.Values)
	}
	// Markers on all lines of the chart or on none.
	if longest > maxMarkers {
		for i := range c.Series {
			c.Series[i].Points = nil
		}
	}
	if most > 0 {
		c.Note = fmt.Sprintf("lines downsampled for drawing: min and max per pixel of %d points; tables use them all", most)
		if c.NoteX()+textWidth(c.Note, notePx) > chartW-edge {
			c.Note = fmt.Sprintf("downsampled: min and max per pixel of %d points", most)
		}
	}
	return c
}

// layoutY sets the y scale (0 to a round top above the series' largest
// value), its ticks, and the left margin their labels need beside the
// y axis title.
func (c *Chart) layoutY(series []SeriesData) {
	ymax := 0.0
	for _, s := range series {
		for _, v := range s.Values {
			if !math.IsNaN(v) {
				ymax = math.Max(ymax, v)
			}
		}
	}
	step, top := niceScale(ymax)
	c.yTop = top
	widest := 0.0
	vals := ticks(step, top)
	for _, v := range vals {
		widest = math.Max(widest, textWidth(fmtNum(v), fontPx))
	}
	// The y title reads upwards at the left edge, then the tick labels,
	// right-aligned against their ticks.
	c.Plot.X = math.Ceil(edge + lineH + labelGap + widest + tickGap + tickLen)
	c.Plot.Y = edge + lineH + 4 // the note's line, on every chart so that charts side by side align
	c.Plot.H = plotH
	for _, v := range vals {
		c.YTicks = append(c.YTicks, Tick{Pos: c.ypos(v), Label: fmtNum(v)})
	}
}

// frameX sets the plot's width, leaving right px free at its right, and
// the chart's height for x tick labels at most widest px wide (their
// height when they read upwards).
func (c *Chart) frameX(widest, right float64) {
	c.Plot.W = chartW - c.Plot.X - right
	labels := lineH
	if c.XVertical {
		labels = widest
	}
	c.Height = math.Ceil(c.Plot.Y + c.Plot.H + tickLen + tickGap + labels + labelGap + lineH + edge)
}

// XTickY is the baseline of horizontal x tick labels (the top of vertical
// ones).
func (c *Chart) XTickY() float64 {
	if c.XVertical {
		return c.Plot.Y + c.Plot.H + tickLen + tickGap
	}
	return c.Plot.Y + c.Plot.H + tickLen + tickGap + fontPx
}

// XLabelY is the baseline of the x axis title.
func (c *Chart) XLabelY() float64 { return c.Height - edge - (lineH - fontPx) }

// YLabelX is where the y axis title's baseline runs (it reads upwards).
func (c *Chart) YLabelX() float64 { return edge + fontPx }

// NoteX is where the note starts.
func (c *Chart) NoteX() float64 { return c.Plot.X }

// YTickX is where the y tick labels end (they are right-aligned).
func (c *Chart) YTickX() float64 { return c.Plot.X - tickLen - tickGap }

// NoteY is the note's baseline.
func (c *Chart) NoteY() float64 { return edge + notePx }

func (c *Chart) ypos(v float64) float64 { return c.Plot.Y + c.Plot.H - v/c.yTop*c.Plot.H }

// addSeries lays out a series: x(i) is value i's pixel position, label(i)
// names it in tooltips.
func (c *Chart) addSeries(si int, s SeriesData, x func(int) float64, label func(int) string) {
	color := si
	if s.Color >= 0 {
		color = s.Color
	}
	out := Series{Name: s.Name, Key: s.Key, Color: palette[color%len(palette)], Dashed: s.Dashed, Width: s.Width}
	if out.Key == "" {
		out.Key = s.Name
	}
	if out.Width == 0 {
		out.Width = 2
	}
	// Runs of values without a gap (a missing value lifts the pen), each
	// drawn whole or downsampled.
	var runs [][]int
	for i, v := range s.Values {
		if math.IsNaN(v) {
			continue
		}
		if n := len(runs); n > 0 && runs[n-1][len(runs[n-1])-1] == i-1 {
			runs[n-1] = append(runs[n-1], i)
		} else {
			runs = append(runs, []int{i})
		}
		out.Values++
	}
	sample := out.Values > 2*int(c.Plot.W)
	var path strings.Builder
	for _, run := range runs {
		px, py := make([]float64, len(run)), make([]float64, len(run))
		for j, i := range run {
			px[j], py[j] = x(i), c.ypos(s.Values[i])
		}
		keep := run
		if sample {
			keep = nil
			for _, j := range downsample(px, py) {
				keep = append(keep, run[j])
			}
		}
		for n, i := range keep {
			op := "L"
			if n == 0 {
				op = "M"
			}
			x, y := x(i), c.ypos(s.Values[i])
			fmt.Fprintf(&path, "%s%s,%s", op, coord(x), coord(y))
			if out.Values > maxMarkers {
				continue
			}
			out.Points = append(out.Points, Point{X: x, Y: y, Title: fmt.Sprintf("%s: %s at %s", s.Name, num(s.Values[i]), label(i))})
		}
		out.Drawn += len(keep)
	}
	out.Path = path.String()
	c.Series = append(c.Series, out)
}

// coord formats a pixel coordinate with one decimal, without a trailing
// ".0" (the page's size counts for long steps).
func coord(v float64) string {
	return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64)
}

// ticks are the tick values from 0 to top.
func ticks(step, top float64) []float64 {
	var out []float64
	for i := 0; float64(i)*step <= top+step/2; i++ {
		out = append(out, float64(i)*step)
	}
	return out
}

// timeSteps are the tick steps worth trying, finest first, for a time
// axis in seconds up to max with at most eight steps: from four minutes
// on, whole minutes and hours (an hour-long step has its ticks at 600,
// 1200, ... and not 500, 1000, ...); below, and beyond eight days, 1, 2,
// 2.5 or 5 times a power of ten.
func timeSteps(max float64) []float64 {
	var out []float64
	if max >= 240 {
		for _, s := range []float64{60, 120, 300, 600, 900, 1200, 1800, 3600, 7200, 10800, 14400, 21600, 43200, 86400} {
			if max/s <= 8 {
				out = append(out, s)
			}
		}
	}
	if len(out) == 0 {
		for n := 8; n >= 1; n-- {
			if step, _ := niceScaleN(max, n); len(out) == 0 || step > out[len(out)-1] {
				out = append(out, step)
			}
		}
	}
	return out
}

// ticksUpTo are the multiples of step from 0 to at most top.
func ticksUpTo(step, top float64) []float64 {
	var out []float64
	for i := 0; float64(i)*step <= top*(1+1e-9); i++ {
		out = append(out, float64(i)*step)
	}
	return out
}

// niceScale picks a round tick step and an axis top above max, for about
// five ticks.
func niceScale(max float64) (step, top float64) { return niceScaleN(max, 5) }

// niceScaleN picks a round tick step (1, 2, 2.5 or 5 times a power of
// ten) for about n steps up to max, and the axis top above max.
func niceScaleN(max float64, n int) (step, top float64) {
	if max <= 0 || math.IsNaN(max) {
		return 1, float64(n)
	}
	raw := max / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if raw <= m*mag {
			step = m * mag
			break
		}
	}
	top = math.Ceil(max/step) * step
	if top == max {
		top += step
	}
	return step, top
}

// fmtSeconds formats seconds on a time axis: 21600, 0.5.
func fmtSeconds(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// fmtNum formats axis and tooltip numbers compactly.
func fmtNum(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1e6:
		return strconv.FormatFloat(v/1e6, 'f', -1, 64) + "M"
	case a >= 1e4:
		return strconv.FormatFloat(v/1e3, 'f', -1, 64) + "k"
	case a >= 100 || v == math.Trunc(v):
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}
