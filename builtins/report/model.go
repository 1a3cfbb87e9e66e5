// Package report reads results folders back (manifest, journal, benchmark
// steps) into one model and renders it: text and Markdown tables, CSV,
// JSON, a self-contained HTML page with SVG charts, and N-way comparisons
// with noise estimates and thresholds. It has no Starlark in it: the CLI
// and the plan module `report` share it.
package report

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/starbench/starbench/runner/results"
)

// ErrNotResults marks a folder that is not a starbench results folder (or
// is missing or truncated); the CLI maps it to exit code 2.
var ErrNotResults = results.ErrNotResults

// Run is one results folder.
type Run struct {
	Dir        string
	Name       string // the folder's base name
	Manifest   results.Manifest
	Benchmarks []*Benchmark
	// Capacities are the run's capacity searches (bench.capacity), in
	// step order; their probes are not benchmarks of the run.
	Capacities []*results.Capacity
	// Live is set on the run a plan's own report step reads while the
	// run goes on: its status "running" is not a run that never ended.
	Live bool
}

// Benchmark is one benchmark step (or the single benchmark of a
// `starbench sysbench run` folder).
type Benchmark struct {
	Run       *Run
	Dir       string // folder of summary.json
	Step      string // step id, "" for a CLI run
	Summary   results.Summary
	Intervals []results.Interval
	// Parts are a merged step's parts (a together step, or `starbench
	// merge`) in order, each read from its folder under parts/. They are
	// not benchmarks of the run: the merged step is the result.
	Parts []*Benchmark
	// Part is set on one of Parts: which part of the merged step it is.
	Part *PartInfo
	// Telemetry are the step's telemetry series (Summary.Telemetry, in
	// order) with their points.
	Telemetry []TelemetryData
}

// TelemetryData is one telemetry series of a step with its points (none
// when its file is missing).
type TelemetryData struct {
	results.TelemetrySeries
	Points []results.TelemetryPoint
}

// PartInfo places a part in its merged step.
type PartInfo struct {
	K     int          // 1-based
	Entry results.Part // the merged summary's entry for it
	// Ran is false for a part whose folder has no summary.json (it did
	// not start): its Summary then holds only the entry's workload,
	// target, status and error, and it has no numbers.
	Ran bool
}

// PartLabel names a part in tables: its number and name, e.g.
// "1 oltp_point_select-t2"; "" for a benchmark that is not a part.
func (b *Benchmark) PartLabel() string {
	if b.Part == nil {
		return ""
	}
	return fmt.Sprintf("%d %s", b.Part.K, b.Part.Entry.Name)
}

// Workload is the benchmark's workload name.
func (b *Benchmark) Workload() string { return b.Summary.Workload.Name }

// Threads is the benchmark's thread count.
func (b *Benchmark) Threads() int { return b.Summary.Threads }

// Tag returns a tag's value, "" when unset.
func (b *Benchmark) Tag(name string) string { return b.Summary.Tags[name] }

// Load reads a results folder with package results' reader. A missing
// folder, one without a manifest, a truncated manifest or summary, or a
// foreign folder is an error wrapping ErrNotResults that names the folder
// and what is wrong.
func Load(dir string) (*Run, error) {
	m, err := results.ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	r := &Run{Dir: dir, Name: filepath.Base(filepath.Clean(dir)), Manifest: *m}
	for _, sd := range results.StepDirs(dir) {
		b := &Benchmark{Run: r, Dir: sd}
		if sd != dir {
			b.Step = results.StepID(sd)
		}
		sum, err := results.ReadSummary(sd)
		if err != nil {
			return nil, err
		}
		b.Summary = *sum
		if b.Intervals, err = results.ReadIntervals(sd); err != nil {
			return nil, err
		}
		if b.Parts, err = loadParts(b); err != nil {
			return nil, err
		}
		for _, ts := range b.Summary.Telemetry {
			points, err := results.ReadTelemetry(sd, ts.File)
			if errors.Is(err, results.ErrNotResults) {
				return nil, err
			}
			b.Telemetry = append(b.Telemetry, TelemetryData{TelemetrySeries: ts, Points: points})
		}
		r.Benchmarks = append(r.Benchmarks, b)
	}
	for _, cd := range results.CapacityDirs(dir) {
		c, err := results.ReadCapacity(cd)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrNotResults, err)
		}
		r.Capacities = append(r.Capacities, c)
	}
	return r, nil
}

// loadParts reads the parts a merged benchmark's summary lists, each from
// its folder (relative to the benchmark's). A part without a summary.json
// did not start and is kept with its entry's status and error; a part
// folder outside the benchmark's, or a truncated part summary, is an
// error wrapping ErrNotResults.
func loadParts(b *Benchmark) ([]*Benchmark, error) {
	var parts []*Benchmark
	for i, e := range b.Summary.Parts {
		if !filepath.IsLocal(e.Dir) {
			return nil, fmt.Errorf("%w: %s/%s: part %d's folder %q is not inside the step's folder", ErrNotResults, b.Dir, results.SummaryFile, i+1, e.Dir)
		}
		p := &Benchmark{Run: b.Run, Dir: filepath.Join(b.Dir, e.Dir), Step: b.Step, Part: &PartInfo{K: i + 1, Entry: e}}
		if _, err := os.Stat(filepath.Join(p.Dir, results.SummaryFile)); errors.Is(err, os.ErrNotExist) {
			p.Summary = results.Summary{Workload: results.Meta{Name: e.Workload}, Target: e.Target, Segment: e.Segment, Status: e.Status, Error: e.Error}
			parts = append(parts, p)
			continue
		}
		sum, err := results.ReadSummary(p.Dir)
		if err != nil {
			return nil, err
		}
		p.Summary, p.Part.Ran = *sum, true
		if p.Intervals, err = results.ReadIntervals(p.Dir); err != nil {
			return nil, err
		}
		parts = append(parts, p)
	}
	return parts, nil
}

// Metric names a number of a benchmark: one every step has (tps, qps
// and the latencies), or one a family declares for its steps
// (results.DeclareMetric: TPC-C's tpmc, a mix's retries), named in
// lower case.
type Metric string

// The metrics every step has.
const (
	MetricTPS Metric = "tps"
	MetricQPS Metric = "qps"
	MetricMin Metric = "min"
	MetricAvg Metric = "avg"
	MetricP95 Metric = "p95"
	MetricP99 Metric = "p99"
	MetricMax Metric = "max"
)

// stepMetrics are the metrics every step has, in display order.
var stepMetrics = []Metric{MetricTPS, MetricQPS, MetricMin, MetricAvg, MetricP95, MetricP99, MetricMax}

// Metrics lists the metrics reports and comparisons know: every step's,
// then the families' of this build, by name.
func Metrics() []Metric {
	out := append([]Metric(nil), stepMetrics...)
	for _, s := range results.DeclaredMetrics() {
		out = append(out, Metric(strings.ToLower(s.Name)))
	}
	return out
}

// family is the declaration of a family's metric, if m is one.
func (m Metric) family() (results.MetricSpec, bool) {
	for _, s := range results.DeclaredMetrics() {
		if strings.EqualFold(s.Name, string(m)) {
			return s, true
		}
	}
	return results.MetricSpec{}, false
}

// ParseMetric accepts a metric name.
func ParseMetric(s string) (Metric, error) {
	want := Metric(strings.ToLower(strings.TrimSpace(s)))
	for _, m := range Metrics() {
		if m == want {
			return m, nil
		}
	}
	return "", fmt.Errorf("unknown metric %q (want %s)", s, metricNames())
}

// HigherIsBetter says which way a metric improves.
func (m Metric) HigherIsBetter() bool {
	if s, ok := m.family(); ok {
		return s.HigherIsBetter
	}
	return m == MetricTPS || m == MetricQPS
}

// Unit is the metric's unit for labels.
func (m Metric) Unit() string {
	if s, ok := m.family(); ok {
		return s.Unit
	}
	if m == MetricTPS || m == MetricQPS {
		return "/s"
	}
	return "ms"
}

// summedOverLoads says whether a merged step's figure is the sum of its loads'
// (a rate, or a family's additive metric), so that a step of N loads
// shows 1/N of it per load.
func (m Metric) summedOverLoads() bool {
	if s, ok := m.family(); ok {
		return s.Additive
	}
	return m == MetricTPS || m == MetricQPS
}

// Value reads a metric from a benchmark.
func (b *Benchmark) Value(m Metric) float64 {
	s := &b.Summary
	switch m {
	case MetricTPS:
		return s.TPS
	case MetricQPS:
		return s.QPS
	case MetricMin:
		return s.Latency.MinMS
	case MetricAvg:
		return s.Latency.AvgMS
	case MetricP95:
		return s.Latency.Percentiles["95"]
	case MetricP99:
		return s.Latency.Percentiles["99"]
	case MetricMax:
		return s.Latency.MaxMS
	}
	if spec, ok := m.family(); ok {
		return s.Metrics[spec.Name]
	}
	return 0
}

// figureOf is the summary figure each of every step's metrics reads, for
// Known.
var figureOf = map[Metric]string{
	MetricTPS: results.FigureTPS, MetricQPS: results.FigureQPS, MetricMin: results.FigureMinMS, MetricAvg: results.FigureAvgMS,
	MetricP95: results.FigurePercentile(95), MetricP99: results.FigurePercentile(99), MetricMax: results.FigureMaxMS,
}

// Known reports whether the benchmark has metric m: a run's steps have
// every metric; an imported step (starbench import) only those its source
// gave, and tables show the others as "-", not 0.
func (b *Benchmark) Known(m Metric) bool {
	if spec, ok := m.family(); ok {
		return b.Summary.Known(spec.Name)
	}
	f, ok := figureOf[m]
	return !ok || b.Summary.Known(f)
}
