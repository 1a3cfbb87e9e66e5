package report

import (
	"bytes"
	"encoding/xml"
	"path/filepath"
	"strings"
	"testing"
)

// The HTML fragment, parsed back as XML.
type xDoc struct {
	Tables []xTable `xml:"table"`
	Notes  []string `xml:"p"`
}

type xTable struct {
	Class   string `xml:"class,attr"`
	Caption string `xml:"caption"`
	Head    []xRow `xml:"thead>tr"`
	Body    []xRow `xml:"tbody>tr"`
}

type xRow struct {
	Class string  `xml:"class,attr"`
	Cells []xCell `xml:",any"`
}

type xCell struct {
	XMLName xml.Name
	Class   string `xml:"class,attr"`
	Title   string `xml:"title,attr"`
	ColSpan int    `xml:"colspan,attr"`
	RowSpan int    `xml:"rowspan,attr"`
	Text    string `xml:",chardata"`
}

func parseHTML(t *testing.T, r *PivotResult) xDoc {
	t.Helper()
	frag, err := r.HTML()
	if err != nil {
		t.Fatal(err)
	}
	var doc xDoc
	if err := xml.Unmarshal([]byte("<div>"+string(frag)+"</div>"), &doc); err != nil {
		t.Fatalf("the HTML does not parse: %v\n%s", err, frag)
	}
	return doc
}

// width is how many columns a header row spans.
func width(r xRow) int {
	n := 0
	for _, c := range r.Cells {
		n += max(1, c.ColSpan)
	}
	return n
}

func TestPivotHTMLSeed003(t *testing.T) {
	run, pub := seed003(t)
	p := Pivot{Split: []string{"workload"}, Rows: []string{"threads"}, Columns: []string{"version", "source"},
		Metrics: []Metric{MetricQPS, MetricP95}, Baseline: "v5.1.1", Mean: true}
	r, err := p.Build(Benchmarks([]*Run{loadRun(t, run), loadRun(t, pub)}))
	if err != nil {
		t.Fatal(err)
	}
	doc := parseHTML(t, r)
	if len(doc.Tables) != 4 || len(doc.Notes) != 1 {
		t.Fatalf("%d tables and %d notes, want 4 and the legend after the last", len(doc.Tables), len(doc.Notes))
	}
	tb := doc.Tables[0]
	if tb.Class != "pivot" || tb.Caption != r.Tables[0].Title || len(tb.Head) != 2 || len(tb.Body) != 7 {
		t.Fatalf("table %q (%s): %d header rows, %d rows", tb.Caption, tb.Class, len(tb.Head), len(tb.Body))
	}
	// First header row: threads over both rows, each version and source
	// over its two metrics, each metric's changes over its two.
	var top []string
	for _, c := range tb.Head[0].Cells {
		top = append(top, c.Text)
	}
	want := "threads|v5.1.1|v5.1.1 published|v5.2.0|v5.2.0 published|qps change|p95 ms change"
	if strings.Join(top, "|") != want || tb.Head[0].Cells[0].RowSpan != 2 || tb.Head[0].Cells[1].ColSpan != 2 {
		t.Errorf("first header row %q, want %q", strings.Join(top, "|"), want)
	}
	if width(tb.Head[0]) != 1+len(r.Tables[0].Columns) || width(tb.Head[1])+1 != width(tb.Head[0]) {
		t.Errorf("header widths %d and %d for %d columns", width(tb.Head[0]), width(tb.Head[1]), len(r.Tables[0].Columns))
	}
	if got := tb.Head[1].Cells[len(tb.Head[1].Cells)-3].Text; got != "v5.2.0 published vs v5.1.1 published" {
		t.Errorf("second header row: %q", got)
	}
	mean := tb.Body[6]
	if mean.Class != "mean" || mean.Cells[0].XMLName.Local != "th" || mean.Cells[0].Text != "mean" || len(mean.Cells) != 1+12 {
		t.Fatalf("mean row %+v", mean)
	}
	// The published point-select change: +11.03 %, better (qps up).
	qps := mean.Cells[1+8+1]
	if qps.Text != "+11.03 %" || qps.Class != "num change better" {
		t.Errorf("mean published qps change %q (%s)", qps.Text, qps.Class)
	}
	// p95 down is better too.
	p95 := mean.Cells[1+8+3]
	if !strings.HasPrefix(p95.Text, "-") || p95.Class != "num change better" {
		t.Errorf("mean published p95 change %q (%s)", p95.Text, p95.Class)
	}

	var page bytes.Buffer
	if err := WritePivotHTML(&page, r, "seed 003", run); err != nil {
		t.Fatal(err)
	}
	frag, _ := r.HTML()
	if !strings.HasPrefix(page.String(), "<!DOCTYPE html>") || !strings.Contains(page.String(), string(frag)) || strings.Contains(page.String(), "<script") {
		t.Errorf("page:\n%s", page.String())
	}
}

// A given change is marked, missing figures are "-", tag values are
// escaped.
func TestPivotHTMLSeed002AndEscaping(t *testing.T) {
	run, pub := seed002(t)
	p := Pivot{Rows: []string{"threads"}, Columns: []string{"version", "source"}, Metrics: []Metric{metricTpmC}, Baseline: "v4.0.12", Mean: true}
	r, err := p.Build(Benchmarks([]*Run{loadRun(t, run), loadRun(t, pub)}))
	if err != nil {
		t.Fatal(err)
	}
	doc := parseHTML(t, r)
	mean := doc.Tables[0].Body[5].Cells
	given := mean[len(mean)-1]
	if given.Text != "+36.00 %" || given.Class != "num change better given" || given.Title == "" {
		t.Errorf("the published change %+v", given)
	}
	if missing := doc.Tables[0].Body[0].Cells[3]; missing.Text != "-" || missing.Class != "num missing" {
		t.Errorf("the published tpmC of the 50-terminal row %+v", missing)
	}

	dir := filepath.Join(t.TempDir(), "odd")
	writeManifest(t, dir, "odd.star", false)
	writeLoadStep(t, filepath.Join(dir, "steps", "1-x"), load{workload: "oltp_point_select", threads: 1, tps: 10, qps: 10, lo: 1, hi: 2,
		tags: map[string]string{"version": `<b>"a" & 'b'</b>`}})
	r, err = Pivot{Columns: []string{"version"}, Metrics: []Metric{MetricTPS}}.Build(loadRun(t, dir).Benchmarks)
	if err != nil {
		t.Fatal(err)
	}
	doc = parseHTML(t, r)
	if got := doc.Tables[0].Head[0].Cells[0].Text; got != `<b>"a" & 'b'</b>` {
		t.Errorf("header %q, want the tag's value as text", got)
	}
}

// The pivot's page draws each table: a chart per metric, a series per
// value column with a point per row (the mean row left out); a table of
// one row draws nothing.
func TestPivotHTMLCharts(t *testing.T) {
	dir := seed004(t)
	r, err := Pivot{Rows: []string{"round"}, Columns: []string{"case"}, Metrics: []Metric{MetricTPS, MetricAvg}, Mean: true}.Build(loadRun(t, dir).Benchmarks)
	if err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	if err := WritePivotHTML(&page, r, "seed 004", ""); err != nil {
		t.Fatal(err)
	}
	html := page.String()
	if n := strings.Count(html, `<figure class="chart" data-kind="pivot"`); n != 2 {
		t.Errorf("%d charts, want one per metric", n)
	}
	if n := strings.Count(html, `<g class="series"`); n != 6 {
		t.Errorf("%d series, want 3 cases x 2 metrics", n)
	}
	if n := strings.Count(html, "<circle "); n != 30 {
		t.Errorf("%d points, want 5 rounds x 6 series (no mean)", n)
	}
	one, err := Pivot{Rows: []string{"case"}, Metrics: []Metric{MetricTPS}}.Build(loadRun(t, dir).Benchmarks)
	if err != nil {
		t.Fatal(err)
	}
	page.Reset()
	if err := WritePivotHTML(&page, one, "by case", ""); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(page.String(), "<figure"); n != 1 {
		t.Errorf("a table of 3 rows: %d charts, want 1", n)
	}
	single, err := Pivot{Columns: []string{"case"}, Metrics: []Metric{MetricTPS}}.Build(loadRun(t, dir).Benchmarks)
	if err != nil {
		t.Fatal(err)
	}
	page.Reset()
	if err := WritePivotHTML(&page, single, "one row", ""); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(page.String(), "<figure") {
		t.Error("a table of one row has a chart")
	}
}
