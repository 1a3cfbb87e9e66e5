package report

import (
	"bytes"
	"math"
	"math/rand"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/starbench/starbench/runner/results"
)

// Downsampling keeps, in every pixel column, a lowest and a highest point
// (so a one-interval spike or dip is drawn), the first and last points,
// in order, and at most two points a column besides.
func TestDownsampleKeepsEachColumnsExtremes(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	const n, width = 21600, 520.0
	px, py := make([]float64, n), make([]float64, n)
	for i := range px {
		px[i] = 70 + float64(i)*width/n
		py[i] = 100 + 50*math.Sin(float64(i)/500) + rng.NormFloat64()*5
	}
	py[13000] = 2 // a spike (y grows downwards)
	py[13001] = 230
	keep := downsample(px, py)
	cols := map[float64][2]float64{} // column: lowest and highest y
	for i := range px {
		c := math.Floor(px[i])
		mm, ok := cols[c]
		if !ok {
			mm = [2]float64{py[i], py[i]}
		}
		cols[c] = [2]float64{math.Min(mm[0], py[i]), math.Max(mm[1], py[i])}
	}
	if len(keep) > 2*len(cols)+2 || keep[0] != 0 || keep[len(keep)-1] != n-1 {
		t.Fatalf("kept %d of %d points (%d columns), first %d, last %d", len(keep), n, len(cols), keep[0], keep[len(keep)-1])
	}
	got := map[float64][2]float64{}
	for j, i := range keep {
		if j > 0 && i <= keep[j-1] {
			t.Fatalf("kept indexes out of order at %d: %d after %d", j, i, keep[j-1])
		}
		c := math.Floor(px[i])
		mm, ok := got[c]
		if !ok {
			mm = [2]float64{py[i], py[i]}
		}
		got[c] = [2]float64{math.Min(mm[0], py[i]), math.Max(mm[1], py[i])}
	}
	for c, want := range cols {
		if got[c] != want {
			t.Errorf("column %v: kept points span y %v, the column's span %v", c, got[c], want)
		}
	}
}

// vertices reads a path's points back.
func vertices(t *testing.T, d string) [][2]float64 {
	t.Helper()
	var out [][2]float64
	for _, m := range regexp.MustCompile(`[ML](-?[\d.]+),(-?[\d.]+)`).FindAllStringSubmatch(d, -1) {
		x, _ := strconv.ParseFloat(m[1], 64)
		y, _ := strconv.ParseFloat(m[2], 64)
		out = append(out, [2]float64{x, y})
	}
	if strings.Count(d, "M")+strings.Count(d, "L") != len(out) {
		t.Fatalf("path %q does not parse", d[:min(len(d), 80)])
	}
	return out
}

// A line of up to twice the plot's width in points is drawn whole, a
// point a vertex; a longer one is downsampled, still reaching its highest
// value, and the chart says so.
func TestLineChartDownsamplesOnlyLongLines(t *testing.T) {
	line := func(n int) *Chart {
		x, y := make([]float64, n), make([]float64, n)
		for i := range x {
			x[i], y[i] = float64(i+1), 100+float64(i%17)
		}
		y[n*3/5] = 900
		return LineChart("tps", "s", "tps", x, []SeriesData{{Name: "tps", Values: y}})
	}
	w := int(line(1000).Plot.W) // the tick labels of lines that long leave it this wide
	for _, n := range []int{1, 2, 3, 40, 41, 600, 2*w - 1, 2 * w, 2*w + 1, 21600, 86400} {
		c := line(n)
		s := c.Series[0]
		v := vertices(t, s.Path)
		if n <= 2*int(c.Plot.W) && s.Drawn != n || n >= 21600 && s.Drawn >= n {
			t.Errorf("%d points on a plot %v px wide: %d drawn", n, c.Plot.W, s.Drawn)
		}
		if s.Drawn == n { // whole: two points a column or fewer
			if len(v) != n || s.Values != n || c.Note != "" {
				t.Errorf("%d points: %d vertices, values %d, note %q", n, len(v), s.Values, c.Note)
			}
			if markers := len(s.Points) > 0; markers != (n <= maxMarkers) {
				t.Errorf("%d points: %d markers", n, len(s.Points))
			}
			continue
		}
		top := math.Inf(1)
		for _, p := range v {
			top = math.Min(top, p[1])
		}
		if len(v) != s.Drawn || s.Drawn > 2*(int(c.Plot.W)+2)+2 || s.Values != n || len(s.Points) != 0 ||
			!strings.Contains(c.Note, "downsampled") || !strings.Contains(c.Note, strconv.Itoa(n)) {
			t.Errorf("%d points: %d vertices, drawn %d, values %d, %d markers, note %q", n, len(v), s.Drawn, s.Values, len(s.Points), c.Note)
		}
		if want := math.Round(c.ypos(900)*10) / 10; top != want {
			t.Errorf("%d points: the highest vertex is at y %v, the spike at %v", n, top, want)
		}
	}
}

// A missing value lifts the pen; each run of values is a subpath.
func TestChartGapsLiftThePen(t *testing.T) {
	c := CategoryChart("x", "threads", "tps", []string{"1", "2", "4", "8"}, []SeriesData{{Name: "a", Values: []float64{1, math.NaN(), 3, 4}}})
	if d := c.Series[0].Path; strings.Count(d, "M") != 2 || strings.Count(d, "L") != 1 {
		t.Errorf("path %q", d)
	}
}

// The charts against threads show only series run at two thread levels
// or more; a workload with none has no such charts.
func TestThreadChartsNeedTwoThreadLevels(t *testing.T) {
	r := &Run{Name: "run"}
	bm(r, "oltp_point_select", 8, 1000, 5, map[string]string{"version": "a", "round": "1"})
	bm(r, "oltp_point_select", 8, 1010, 5, map[string]string{"version": "a", "round": "2"})
	bm(r, "oltp_point_select", 8, 900, 6, map[string]string{"version": "b"})
	if cs := threadCharts("oltp_point_select", r.Benchmarks); cs != nil {
		t.Errorf("one thread level: %d charts", len(cs))
	}
	bm(r, "oltp_point_select", 16, 1800, 7, map[string]string{"version": "a"})
	bm(r, "oltp_point_select", 32, 1900, 9, map[string]string{"version": "c"})
	cs := threadCharts("oltp_point_select", r.Benchmarks)
	if len(cs) != 2 {
		t.Fatalf("%d charts", len(cs))
	}
	var ticks []string
	for _, tk := range cs[0].XTicks {
		ticks = append(ticks, tk.Label)
	}
	if len(cs[0].Series) != 1 || cs[0].Series[0].Name != "version=a" || len(cs[1].Series) != 2 || strings.Join(ticks, ",") != "8,16" {
		t.Errorf("series %+v, %+v; threads %v", cs[0].Series, cs[1].Series, ticks)
	}
}

// intervals makes n one-second rows.
func intervals(n int, tps, p99 float64, errs float64) []results.Interval {
	out := make([]results.Interval, n)
	for i := range out {
		out[i] = results.Interval{Time: float64(i + 1), TPS: tps, QPS: tps, P95: p99 / 2, P99: p99, ErrorsPerS: errs}
	}
	return out
}

// A merged step's charts over time have its line and a line per part that
// ran, placed by the part's start; queries and errors have charts only
// when they say something.
func TestStepTimeSeriesOfAMergedStep(t *testing.T) {
	start := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	b := &Benchmark{Step: "7", Summary: results.Summary{Workload: results.Meta{Name: "a+b"}, Threads: 3, Started: start}, Intervals: intervals(12, 300, 4, 0)}
	part := func(k int, name string, late time.Duration, ran bool, rows []results.Interval) *Benchmark {
		p := &Benchmark{Step: "7", Summary: results.Summary{Started: start.Add(late)}, Intervals: rows,
			Part: &PartInfo{K: k, Entry: results.Part{Name: name}, Ran: ran}}
		b.Parts = append(b.Parts, p)
		return p
	}
	part(1, "a", 0, true, intervals(10, 100, 2, 0))
	part(2, "b", 2*time.Second, true, intervals(10, 200, 4, 0))
	part(3, "c", 0, false, nil)
	v := stepTimeSeries(b, "step 7")
	if v == nil || len(v.Charts) != 2 {
		t.Fatalf("charts %+v", v)
	}
	tps, lat := v.Charts[0], v.Charts[1]
	var keys []string
	for _, s := range tps.Series {
		keys = append(keys, s.Key+"="+s.Name)
	}
	if strings.Join(keys, ",") != "step=merged tps,part 1=part 1 a tps,part 2=part 2 b tps" || len(lat.Series) != 6 || tps.Metric != "tps" || lat.Metric != "latency" || tps.Step != "7" {
		t.Errorf("tps %v, latency %d lines, metrics %s %s", keys, len(lat.Series), tps.Metric, lat.Metric)
	}
	// Part 2 started 2 s late: its first row (1 s) is at 3 s on the step's clock.
	first := vertices(t, tps.Series[2].Path)[0][0]
	if want := math.Round((tps.Plot.X+3.0/12*tps.Plot.W)*10) / 10; first != want {
		t.Errorf("part 2 starts at x %v, want %v", first, want)
	}

	// Queries other than transactions, and errors, add their charts.
	b.Parts[0].Intervals[3].QPS = 150
	b.Parts[1].Intervals = intervals(10, 200, 4, 1.5)
	v = stepTimeSeries(b, "step 7")
	var metrics []string
	for _, c := range v.Charts {
		metrics = append(metrics, c.Metric)
	}
	if strings.Join(metrics, ",") != "tps,latency,qps,errors" || len(v.Charts[3].Series) != 3 || v.Charts[3].Series[0].Name != "merged errors/s" {
		t.Errorf("charts %v", metrics)
	}

	// A step of a single interval has no chart over time.
	one := &Benchmark{Summary: results.Summary{Workload: results.Meta{Name: "a"}, Threads: 1}, Intervals: intervals(1, 1, 1, 0)}
	if v := stepTimeSeries(one, "x"); v != nil {
		t.Errorf("one interval: %+v", v)
	}
}

// The page has each step's charts over time under its workload, no chart
// against threads for a workload at one level, and is valid for
// html/template (its figures identify themselves for readers and tests).
func TestHTMLPageCharts(t *testing.T) {
	r := &Run{Name: "run"}
	for i, threads := range []int{1, 2, 4} {
		b := bm(r, "oltp_read_only", threads, float64(100*(i+1)), 5, nil)
		b.Step = strconv.Itoa(i + 1)
		b.Intervals = intervals(5, float64(100*(i+1)), 5, 0)
	}
	b := bm(r, "oltp_point_select", 8, 1000, 1, nil)
	b.Step, b.Intervals = "4", intervals(50, 1000, 1, 0)
	var page bytes.Buffer
	if err := WriteHTML(&page, []*Run{r}); err != nil {
		t.Fatal(err)
	}
	html := page.String()
	for _, want := range []string{`<section data-title="oltp_read_only">`, `data-kind="threads" data-metric="tps"`, `data-kind="time" data-run="run" data-step="4" data-metric="tps"`,
		`<h3 class="step">step 4: oltp_point_select, 8 threads: over time</h3>`, `<ul class="legend">`} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	ps := html[strings.Index(html, `<section data-title="oltp_point_select">`):]
	if strings.Contains(ps, `data-kind="threads"`) || strings.Count(html, `data-kind="threads"`) != 2 || strings.Count(html, `data-kind="time"`) != 8 {
		t.Errorf("%d charts against threads (none for oltp_point_select), %d over time", strings.Count(html, `data-kind="threads"`), strings.Count(html, `data-kind="time"`))
	}
}

// textWidth is no less than what Chromium measures in DejaVu Sans (em
// widths of each character, measured in Chromium on Debian): the widest
// of each class of characters it counts.
func TestTextWidthCoversDejaVuSans(t *testing.T) {
	measured := map[string]float64{"!": 0.401, `"`: 0.460, "#": 0.838, "%": 0.950, "&": 0.784, "*": 0.505, "0": 0.636,
		"?": 0.532, "@": 1.0, "D": 0.770, "M": 0.863, "O": 0.790, "Q": 0.790, "W": 0.990, "^": 0.838, "_": 0.514,
		"a": 0.613, "m": 0.974, "w": 0.818, "{": 0.636, "~": 0.838, "é": 0.617, "…": 1.0, "i": 0.278, "f": 0.348, " ": 0.318}
	for c, em := range measured {
		if got, want := textWidth(strings.Repeat(c, 10), 11), em*110; got < want {
			t.Errorf("%q: estimated %.1f px for ten, measured %.1f", c, got, want)
		}
	}
}

// Category labels sit side by side when they fit, with room between them;
// otherwise they read upwards, a label every line height at least, and the
// chart is tall enough for them.
func TestCategoryLabelsDoNotCrowd(t *testing.T) {
	cats := func(n int, label string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = label + strconv.Itoa(i)
		}
		return out
	}
	for _, tc := range []struct {
		cats     []string
		vertical bool
	}{
		{cats(3, "t"), false},
		{cats(8, "point_select t"), true},
		{cats(200, "read_write t16 version=v8.5.1-nightly "), true},
	} {
		values := make([]float64, len(tc.cats))
		c := CategoryChart("x", "keys", "tps", tc.cats, []SeriesData{{Name: "a", Values: values}})
		widest := 0.0
		for _, cat := range tc.cats {
			widest = math.Max(widest, textWidth(cat, fontPx))
		}
		gap := widest + minLabelX
		if c.XVertical {
			gap = lineH
		}
		for i := 1; i < len(c.XTicks); i++ {
			if d := c.XTicks[i].Pos - c.XTicks[i-1].Pos; d < gap {
				t.Errorf("%d categories: ticks %d and %d %.1f px apart, want %.1f", len(tc.cats), i-1, i, d, gap)
			}
		}
		if c.XVertical != tc.vertical || c.XVertical && c.Height < c.Plot.Y+c.Plot.H+widest+lineH ||
			len(c.XTicks) == 0 || c.XTicks[0].Pos-widest/2 < c.Plot.X && !c.XVertical {
			t.Errorf("%d categories: vertical %v, height %v, plot %+v, %d ticks", len(tc.cats), c.XVertical, c.Height, c.Plot, len(c.XTicks))
		}
	}
}

// A TPC-C step's page charts tpmC over time, read from its New-Order
// histograms in latency.hlog (60 New-Orders in each 1 s interval: 3600 a
// minute), and New-Order's latency; a step without tpmC has neither.
func TestTpmCOverTime(t *testing.T) {
	dir := t.TempDir()
	sum := &results.Summary{Workload: results.Meta{Name: "tpcc", Version: "test"}, Started: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC),
		Threads: 4, Seconds: 3, Stopped: "time", Status: results.StatusCompleted, Events: 300, TPS: 100, IntervalSeconds: 1,
		Metrics: map[string]float64{"tpmC": 3600}}
	var ivs []results.Interval
	var lat []results.LatencyInterval
	for i := range 3 {
		all, newOrder := hdr.New(1, 3600e6, 3), hdr.New(1, 3600e6, 3)
		all.RecordValues(2000, 100)
		newOrder.RecordValues(int64(3000*(i+1)), 60)
		start, end := time.Duration(i)*time.Second, time.Duration(i+1)*time.Second
		lat = append(lat, results.LatencyInterval{Start: start, End: end, Histogram: all},
			results.LatencyInterval{Start: start, End: end, Tag: results.KindTag("new_order"), Histogram: newOrder})
		ivs = append(ivs, results.Interval{Time: float64(i + 1), Threads: 4, Events: 100, TPS: 100, QPS: 100, P95: 2, P99: 2})
	}
	if err := results.WriteStep(dir, results.Step{Summary: sum, Intervals: ivs, Latency: lat}); err != nil {
		t.Fatal(err)
	}
	points, err := results.ReadKindSeries(dir, sum, "new_order")
	if err != nil || len(points) != 3 || points[1].PerMinute != 3600 || math.Abs(points[2].P99-9) > 0.01 {
		t.Fatalf("New-Order's series %+v (%v)", points, err)
	}
	b := &Benchmark{Dir: dir, Summary: *sum, Intervals: ivs}
	v := stepTimeSeries(b, "step 1")
	var titles []string
	for _, c := range v.Charts {
		titles = append(titles, c.Title)
	}
	if !slices.Contains(titles, "tpmC") || !slices.Contains(titles, "new_order latency") {
		t.Errorf("charts %q: want tpmC and new_order latency", titles)
	}
	b.Summary.Metrics = nil
	for _, c := range stepTimeSeries(b, "step 1").Charts {
		if c.Title == "tpmC" {
			t.Errorf("a step without tpmC charts it")
		}
	}
}
