package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Chart is an SVG line chart ready for the chart template: everything is
// already in pixel coordinates.
type Chart struct {
	Title         string
	XLabel        string
	YLabel        string
	Width, Height float64
	Plot          Rect
	XTicks        []Tick
	YTicks        []Tick
	Series        []Series
	yTop          float64
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
	Color  string
	Dashed bool
	Path   string // SVG path data
	Points []Point
}

// Point is a marker with a tooltip.
type Point struct {
	X, Y  float64
	Title string
}

// LegendY places legend entries below the plot.
func (c *Chart) LegendY() float64 { return c.Plot.Y + c.Plot.H + 54 }

// LegendX places legend entry i.
func (c *Chart) LegendX(i int) float64 { return c.Plot.X + float64(i%4)*((c.Plot.W)/4) }

// LegendRow offsets legend rows.
func (c *Chart) LegendRow(i int) float64 { return c.LegendY() + float64(i/4)*18 }

// palette is distinguishable on white and in grey print.
var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"}

// SeriesData is a series before layout: one value per x (NaN: missing).
type SeriesData struct {
	Name   string
	Values []float64
	Dashed bool
	Color  int // palette index; -1 picks by position
}

const (
	chartW      = 610.0
	chartH      = 300.0
	marginLeft  = 70.0
	marginRight = 20.0
	marginTop   = 34.0
	marginBot   = 56.0
)

// newChart lays out the frame; legend rows add height.
func newChart(title, xlabel, ylabel string, nSeries int) *Chart {
	rows := (nSeries + 3) / 4
	c := &Chart{Title: title, XLabel: xlabel, YLabel: ylabel, Width: chartW, Height: chartH + float64(rows)*18 + 20}
	c.Plot = Rect{X: marginLeft, Y: marginTop, W: chartW - marginLeft - marginRight, H: chartH - marginTop - marginBot}
	return c
}

// CategoryChart plots series over labelled, evenly spaced x positions
// (thread counts, comparison keys).
func CategoryChart(title, xlabel, ylabel string, categories []string, series []SeriesData) *Chart {
	c := newChart(title, xlabel, ylabel, len(series))
	n := len(categories)
	xpos := func(i int) float64 {
		if n == 1 {
			return c.Plot.X + c.Plot.W/2
		}
		return c.Plot.X + 20 + float64(i)*(c.Plot.W-40)/float64(n-1)
	}
	for i, cat := range categories {
		c.XTicks = append(c.XTicks, Tick{Pos: xpos(i), Label: cat})
	}
	c.layoutY(series)
	for si, s := range series {
		c.addSeries(si, s, func(i int) float64 { return xpos(i) }, func(i int) string { return categories[i] })
	}
	return c
}

// LineChart plots series over a numeric x axis (time).
func LineChart(title, xlabel, ylabel string, x []float64, series []SeriesData) *Chart {
	c := newChart(title, xlabel, ylabel, len(series))
	xmax := 0.0
	for _, v := range x {
		xmax = math.Max(xmax, v)
	}
	step, top := niceScale(xmax)
	xpos := func(v float64) float64 { return c.Plot.X + v/top*c.Plot.W }
	for v := 0.0; v <= top+step/2; v += step {
		c.XTicks = append(c.XTicks, Tick{Pos: xpos(v), Label: fmtNum(v)})
	}
	c.layoutY(series)
	for si, s := range series {
		c.addSeries(si, s, func(i int) float64 { return xpos(x[i]) }, func(i int) string { return fmtNum(x[i]) + " " + xlabel })
	}
	return c
}

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
	for v := 0.0; v <= top+step/2; v += step {
		c.YTicks = append(c.YTicks, Tick{Pos: c.ypos(v), Label: fmtNum(v)})
	}
}

func (c *Chart) ypos(v float64) float64 { return c.Plot.Y + c.Plot.H - v/c.yTop*c.Plot.H }

func (c *Chart) addSeries(si int, s SeriesData, x func(int) float64, label func(int) string) {
	color := si
	if s.Color >= 0 {
		color = s.Color
	}
	out := Series{Name: s.Name, Color: palette[color%len(palette)], Dashed: s.Dashed}
	var path strings.Builder
	pen := false
	for i, v := range s.Values {
		if math.IsNaN(v) {
			pen = false
			continue
		}
		px, py := x(i), c.ypos(v)
		if pen {
			fmt.Fprintf(&path, " L%.1f,%.1f", px, py)
		} else {
			fmt.Fprintf(&path, " M%.1f,%.1f", px, py)
		}
		pen = true
		out.Points = append(out.Points, Point{X: px, Y: py, Title: fmt.Sprintf("%s: %s at %s", s.Name, num(v), label(i))})
	}
	out.Path = strings.TrimSpace(path.String())
	c.Series = append(c.Series, out)
}

// niceScale picks a round tick step and an axis top above max.
func niceScale(max float64) (step, top float64) {
	if max <= 0 || math.IsNaN(max) {
		return 1, 5
	}
	raw := max / 5
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
