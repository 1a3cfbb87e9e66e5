package telemetry

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// PrometheusMetrics are the metrics read from an endpoint when the plan
// names none: the process's own CPU and memory (every Prometheus client
// library exports them), TiDB's queries and their duration, TiKV's gRPC
// messages and CPU by thread pool, PD's region heartbeats, node_exporter's
// CPU, disk and network, and mysqld_exporter's queries. Those an endpoint
// does not have are left out of its series.
var PrometheusMetrics = []string{
	"process_cpu_seconds_total", "process_resident_memory_bytes",
	// TiDB (:10080/metrics)
	"tidb_server_query_total", "tidb_server_handle_query_duration_seconds", "tidb_server_connections",
	"tidb_session_transaction_duration_seconds",
	// TiKV (:20180/metrics)
	"tikv_grpc_msg_duration_seconds", "tikv_engine_flow_bytes by (type)", "tikv_thread_cpu_seconds_total",
	// PD (:2379/metrics)
	"pd_scheduler_region_heartbeat_latency_seconds",
	// node_exporter (:9100/metrics)
	`node_cpu_seconds_total by (mode)`, "node_disk_read_bytes_total", "node_disk_written_bytes_total",
	"node_network_receive_bytes_total", "node_network_transmit_bytes_total", "node_memory_MemAvailable_bytes",
	// mysqld_exporter (:9104/metrics)
	"mysql_global_status_questions", "mysql_global_status_threads_running",
	`mysql_global_status_commands_total{command="select"}`,
	`mysql_global_status_innodb_data_written`,
}

// Selector picks series of one metric family: the family's name, label
// matchers (label="value" or label!="value"), and the labels whose values
// keep series apart (by); the others are summed.
type Selector struct {
	Name     string
	Matchers []Matcher
	By       []string
}

// Matcher is one label matcher of a selector.
type Matcher struct {
	Label, Value string
	Not          bool
}

// ParseSelector reads `name`, `name{label="value",...}` and either with
// ` by (label, ...)`.
func ParseSelector(text string) (Selector, error) {
	var sel Selector
	rest := strings.TrimSpace(text)
	if head, by, ok := strings.Cut(rest, " by "); ok {
		by = strings.TrimSpace(by)
		if !strings.HasPrefix(by, "(") || !strings.HasSuffix(by, ")") {
			return sel, fmt.Errorf("metric %q: by takes labels in parentheses: by (label, ...)", text)
		}
		for _, l := range strings.Split(by[1:len(by)-1], ",") {
			if l = strings.TrimSpace(l); l != "" {
				if !model.LabelName(l).IsValidLegacy() {
					return sel, fmt.Errorf("metric %q: %q is not a label name", text, l)
				}
				sel.By = append(sel.By, l)
			}
		}
		rest = strings.TrimSpace(head)
	}
	name, matchers, hasLabels := strings.Cut(rest, "{")
	sel.Name = strings.TrimSpace(name)
	if !model.IsValidLegacyMetricName(sel.Name) {
		return sel, fmt.Errorf("metric %q: %q is not a metric name", text, sel.Name)
	}
	if hasLabels {
		body, ok := strings.CutSuffix(strings.TrimSpace(matchers), "}")
		if !ok {
			return sel, fmt.Errorf("metric %q: its labels do not end with }", text)
		}
		for _, m := range splitMatchers(body) {
			if m = strings.TrimSpace(m); m == "" {
				continue
			}
			not := false
			label, value, ok := strings.Cut(m, "!=")
			if ok {
				not = true
			} else if label, value, ok = strings.Cut(m, "="); !ok {
				return sel, fmt.Errorf("metric %q: %q is not label=\"value\" or label!=\"value\"", text, m)
			}
			label, value = strings.TrimSpace(label), strings.TrimSpace(value)
			if len(value) < 2 || value[0] != '"' || value[len(value)-1] != '"' || !model.LabelName(label).IsValidLegacy() {
				return sel, fmt.Errorf("metric %q: %q is not label=\"value\" or label!=\"value\"", text, m)
			}
			sel.Matchers = append(sel.Matchers, Matcher{Label: label, Value: value[1 : len(value)-1], Not: not})
		}
	}
	return sel, nil
}

// splitMatchers splits a selector's label list at the commas outside
// quotes.
func splitMatchers(s string) []string {
	var parts []string
	quoted, start := false, 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '"' && (i == 0 || s[i-1] != '\\'):
			quoted = !quoted
		case s[i] == ',' && !quoted:
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:])
}

// matches tells whether a series' labels pass the selector's matchers.
func (sel Selector) matches(labels []*dto.LabelPair) bool {
	for _, m := range sel.Matchers {
		if (labelValue(labels, m.Label) == m.Value) == m.Not {
			return false
		}
	}
	return true
}

// labelValue is a series' value of a label ("" when it has none, as
// Prometheus reads a missing label).
func labelValue(labels []*dto.LabelPair, name string) string {
	for _, l := range labels {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// column is the name of a series' column: the family's name, with the
// values of the selector's by labels.
func (sel Selector) column(labels []*dto.LabelPair) string {
	if len(sel.By) == 0 {
		return sel.Name
	}
	var kv []string
	for _, b := range sel.By {
		kv = append(kv, fmt.Sprintf("%s=%q", b, labelValue(labels, b)))
	}
	return sel.Name + "{" + strings.Join(kv, ",") + "}"
}

// Prometheus reads a Prometheus text endpoint (/metrics) and keeps the
// selected metrics: counters rated per second, gauges as they are,
// histograms as quantiles of each interval. Lines of other metrics are
// dropped before parsing, so a large exposition (TiKV's) costs little.
type Prometheus struct {
	name, url string
	selectors []Selector
	wanted    map[string]bool
	client    *http.Client
	buffers   sync.Pool // of *bytes.Buffer: an exposition's bytes, kept between readings
}

// NewPrometheus is a source named name reading url, keeping the metrics
// the selectors pick (nil: PrometheusMetrics).
func NewPrometheus(name, url string, metrics []string) (*Prometheus, error) {
	if metrics == nil {
		metrics = PrometheusMetrics
	}
	p := &Prometheus{name: name, url: url, wanted: map[string]bool{}, client: &http.Client{}}
	p.buffers.New = func() any { return new(bytes.Buffer) }
	for _, m := range metrics {
		sel, err := ParseSelector(m)
		if err != nil {
			return nil, err
		}
		p.selectors = append(p.selectors, sel)
		p.wanted[sel.Name] = true
	}
	return p, nil
}

func (p *Prometheus) Name() string   { return p.name }
func (p *Prometheus) Kind() string   { return "prometheus" }
func (p *Prometheus) Source() string { return p.url }

// maxExposition bounds an endpoint's answer (TiKV's is a few MB).
const maxExposition = 256 << 20

// Read scrapes the endpoint once.
func (p *Prometheus) Read(ctx context.Context) (Reading, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.url, nil)
	if err != nil {
		return Reading{}, err
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	resp, err := p.client.Do(req)
	if err != nil {
		return Reading{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Reading{}, fmt.Errorf("%s: %s", p.url, resp.Status)
	}
	at := time.Now()
	buf := p.buffers.Get().(*bytes.Buffer)
	defer p.buffers.Put(buf)
	buf.Reset()
	if _, err := buf.ReadFrom(io.LimitReader(resp.Body, maxExposition+1)); err != nil {
		return Reading{}, fmt.Errorf("%s: %w", p.url, err)
	}
	if buf.Len() > maxExposition {
		return Reading{}, fmt.Errorf("%s: the exposition is larger than %d MB", p.url, maxExposition>>20)
	}
	kept := p.filter(buf.Bytes())
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(kept))
	if err != nil {
		return Reading{}, fmt.Errorf("%s: %w", p.url, err)
	}
	return p.reading(at, families), nil
}

// filter keeps the lines of the wanted families: their HELP and TYPE
// comments and their samples (a histogram's _bucket, _sum and _count).
func (p *Prometheus) filter(body []byte) []byte {
	var kept bytes.Buffer
	// A family's lines come together: the last name's verdict serves
	// the lines after it.
	var last []byte
	lastWanted := false
	for len(body) > 0 {
		line := body
		if i := bytes.IndexByte(body, '\n'); i >= 0 {
			line, body = body[:i], body[i+1:]
		} else {
			body = nil
		}
		if len(line) == 0 {
			continue
		}
		var name []byte
		switch {
		case line[0] != '#':
			if n := len(last); n > 0 && len(line) > n && (line[n] == '{' || line[n] == ' ') && bytes.Equal(line[:n], last) {
				name = last
				break
			}
			name = line
			for i, c := range name {
				if c == '{' || c == ' ' || c == '\t' {
					name = name[:i]
					break
				}
			}
		case bytes.HasPrefix(line, []byte("# HELP ")), bytes.HasPrefix(line, []byte("# TYPE ")):
			name = line[7:]
			if i := bytes.IndexByte(name, ' '); i >= 0 {
				name = name[:i]
			}
		default:
			continue
		}
		if !bytes.Equal(name, last) {
			last = append(last[:0], name...)
			lastWanted = p.want(name)
		}
		if lastWanted {
			kept.Write(line)
			kept.WriteByte('\n')
		}
	}
	return kept.Bytes()
}

// sampleSuffixes are the suffixes of a histogram's or summary's samples.
var sampleSuffixes = [][]byte{[]byte("_bucket"), []byte("_sum"), []byte("_count")}

// want tells whether a sample's or family's name belongs to a wanted family.
func (p *Prometheus) want(name []byte) bool {
	if p.wanted[string(name)] {
		return true
	}
	for _, suffix := range sampleSuffixes {
		if base, ok := bytes.CutSuffix(name, suffix); ok && p.wanted[string(base)] {
			return true
		}
	}
	return false
}

// reading sums each selector's series into its columns.
func (p *Prometheus) reading(at time.Time, families map[string]*dto.MetricFamily) Reading {
	r := Reading{Time: at, Counters: map[string]float64{}, Gauges: map[string]float64{}, Histograms: map[string]Histogram{}}
	for _, sel := range p.selectors {
		mf, ok := families[sel.Name]
		if !ok {
			continue
		}
		for _, m := range mf.GetMetric() {
			if !sel.matches(m.GetLabel()) {
				continue
			}
			col := sel.column(m.GetLabel())
			switch mf.GetType() {
			case dto.MetricType_COUNTER:
				r.Counters[col] += m.GetCounter().GetValue()
			case dto.MetricType_GAUGE:
				r.Gauges[col] += m.GetGauge().GetValue()
			case dto.MetricType_UNTYPED:
				r.Gauges[col] += m.GetUntyped().GetValue()
			case dto.MetricType_SUMMARY:
				r.Counters[col+":count"] += float64(m.GetSummary().GetSampleCount())
				r.Counters[col+":sum"] += m.GetSummary().GetSampleSum()
			case dto.MetricType_HISTOGRAM, dto.MetricType_GAUGE_HISTOGRAM:
				addHistogram(r.Histograms, col, m.GetHistogram())
				r.Counters[col+":sum"] += m.GetHistogram().GetSampleSum()
			}
		}
	}
	return r
}

// addHistogram adds a series' buckets to the column's histogram; a series
// whose bounds differ from those already summed is left out.
func addHistogram(into map[string]Histogram, col string, h *dto.Histogram) {
	var bounds, counts []float64
	for _, b := range h.GetBucket() {
		if ub := b.GetUpperBound(); ub < 1e308 { // +Inf is the total, below
			bounds = append(bounds, ub)
			counts = append(counts, float64(b.GetCumulativeCount()))
		}
	}
	order := make([]int, len(bounds))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return bounds[order[a]] < bounds[order[b]] })
	got := Histogram{Bounds: make([]float64, len(bounds)), Counts: make([]float64, len(bounds)+1)}
	for i, k := range order {
		got.Bounds[i], got.Counts[i] = bounds[k], counts[k]
	}
	got.Counts[len(bounds)] = float64(h.GetSampleCount())
	have, ok := into[col]
	if !ok {
		into[col] = got
		return
	}
	if len(have.Bounds) != len(got.Bounds) {
		return
	}
	for i := range have.Bounds {
		if have.Bounds[i] != got.Bounds[i] {
			return
		}
	}
	for i := range have.Counts {
		have.Counts[i] += got.Counts[i]
	}
}
