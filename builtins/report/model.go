// Package report reads results folders back (manifest, journal, benchmark
// steps) into one model and renders it: text and Markdown tables, CSV,
// JSON, a self-contained HTML page with SVG charts, and N-way comparisons
// with noise estimates and thresholds. It has no Starlark in it: the CLI
// and the plan module `report` share it.
package report

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/starbench/starbench/builtins/bench"
)

// ErrNotResults marks a folder that is not a starbench results folder (or
// is missing or truncated); the CLI maps it to exit code 2.
var ErrNotResults = errors.New("not a starbench results folder")

// Manifest is the part of manifest.json reports use.
type Manifest struct {
	Tool struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"tool"`
	Plan        string            `json:"plan"`
	Params      map[string]any    `json:"params"`
	Seed        int64             `json:"seed"`
	CommandLine []string          `json:"command_line"`
	Host        map[string]any    `json:"host"`
	Targets     map[string]Target `json:"targets"`
	Banners     []string          `json:"banners"`
	Started     time.Time         `json:"started"`
	Ended       *time.Time        `json:"ended"`
	Status      string            `json:"status"`
	Error       string            `json:"error"`
	Sources     []struct {
		Name   string `json:"name"`
		SHA256 string `json:"sha256"`
	} `json:"sources"`
}

// Target is what a manifest says about a target.
type Target struct {
	Kind          string `json:"kind"`
	Engine        string `json:"engine"`
	DSN           string `json:"dsn"`
	Endpoints     string `json:"endpoints"`
	ServerVersion string `json:"server_version"`
}

// Run is one results folder.
type Run struct {
	Dir        string
	Name       string // the folder's base name
	Manifest   Manifest
	Benchmarks []*Benchmark
}

// Benchmark is one benchmark step (or the single benchmark of a
// `starbench sysbench run` folder).
type Benchmark struct {
	Run       *Run
	Dir       string // folder of summary.json
	Step      string // step id, "" for a CLI run
	Summary   bench.Summary
	Intervals []IntervalRow
}

// IntervalRow is one line of intervals.csv.
type IntervalRow struct {
	Time, TPS, QPS, P50, P95, P99, Max, ErrorsPerS float64
	Threads                                        int
}

// Workload is the benchmark's workload name.
func (b *Benchmark) Workload() string { return b.Summary.Workload.Name }

// Threads is the benchmark's thread count.
func (b *Benchmark) Threads() int { return b.Summary.Threads }

// Tag returns a tag's value, "" when unset.
func (b *Benchmark) Tag(name string) string { return b.Summary.Tags[name] }

// Load reads a results folder. A missing folder, one without a manifest,
// a truncated manifest or summary, or a foreign folder is an error
// wrapping ErrNotResults that names the folder and what is wrong.
func Load(dir string) (*Run, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrNotResults, dir, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%w: %s is a file, not a folder", ErrNotResults, dir)
	}
	r := &Run{Dir: dir, Name: filepath.Base(filepath.Clean(dir))}
	data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return nil, fmt.Errorf("%w: %s has no manifest.json (a results folder holds manifest.json and journal.jsonl or summary.json)", ErrNotResults, dir)
	}
	if err := json.Unmarshal(data, &r.Manifest); err != nil {
		return nil, fmt.Errorf("%w: %s/manifest.json does not parse (truncated?): %v", ErrNotResults, dir, err)
	}
	if r.Manifest.Tool.Name != "starbench" {
		return nil, fmt.Errorf("%w: %s/manifest.json was not written by starbench", ErrNotResults, dir)
	}
	var summaries []string
	if _, err := os.Stat(filepath.Join(dir, bench.SummaryFile)); err == nil {
		summaries = append(summaries, dir)
	}
	steps, _ := filepath.Glob(filepath.Join(dir, "steps", "*", bench.SummaryFile))
	for _, s := range steps {
		summaries = append(summaries, filepath.Dir(s))
	}
	for _, sd := range summaries {
		b, err := loadBenchmark(r, sd)
		if err != nil {
			return nil, err
		}
		r.Benchmarks = append(r.Benchmarks, b)
	}
	sort.SliceStable(r.Benchmarks, func(i, j int) bool { return stepLess(r.Benchmarks[i].Step, r.Benchmarks[j].Step) })
	return r, nil
}

// stepLess orders step ids numerically part by part: 2 < 10 < 10.1.
func stepLess(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(pa) && i < len(pb); i++ {
		na, ea := strconv.Atoi(strings.TrimPrefix(pa[i], "t"))
		nb, eb := strconv.Atoi(strings.TrimPrefix(pb[i], "t"))
		if ea == nil && eb == nil && na != nb {
			return na < nb
		}
		if pa[i] != pb[i] {
			return pa[i] < pb[i]
		}
	}
	return len(pa) < len(pb)
}

func loadBenchmark(r *Run, dir string) (*Benchmark, error) {
	b := &Benchmark{Run: r, Dir: dir}
	if dir != r.Dir {
		b.Step, _, _ = strings.Cut(filepath.Base(dir), "-")
	}
	data, err := os.ReadFile(filepath.Join(dir, bench.SummaryFile))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrNotResults, dir, err)
	}
	if err := json.Unmarshal(data, &b.Summary); err != nil {
		return nil, fmt.Errorf("%w: %s/summary.json does not parse (truncated?): %v", ErrNotResults, dir, err)
	}
	if b.Summary.Workload.Name == "" || b.Summary.Threads == 0 {
		return nil, fmt.Errorf("%w: %s/summary.json names no workload or threads", ErrNotResults, dir)
	}
	rows, err := readIntervals(filepath.Join(dir, bench.IntervalsFile))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s: %v", ErrNotResults, dir, err)
	}
	b.Intervals = rows
	return b, nil
}

func readIntervals(path string) ([]IntervalRow, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("intervals.csv: %w", err)
	}
	if len(recs) == 0 {
		return nil, nil
	}
	col := map[string]int{}
	for i, name := range recs[0] {
		col[name] = i
	}
	get := func(rec []string, name string) float64 {
		i, ok := col[name]
		if !ok || i >= len(rec) {
			return 0
		}
		v, _ := strconv.ParseFloat(rec[i], 64)
		return v
	}
	var rows []IntervalRow
	for _, rec := range recs[1:] {
		rows = append(rows, IntervalRow{
			Time: get(rec, "time_s"), Threads: int(get(rec, "threads")), TPS: get(rec, "tps"), QPS: get(rec, "qps"),
			P50: get(rec, "lat_p50_ms"), P95: get(rec, "lat_p95_ms"), P99: get(rec, "lat_p99_ms"), Max: get(rec, "lat_max_ms"),
			ErrorsPerS: get(rec, "errors_per_s"),
		})
	}
	return rows, nil
}

// Metric names a number of a benchmark.
type Metric string

// Metrics reports and comparisons know.
const (
	MetricTPS Metric = "tps"
	MetricQPS Metric = "qps"
	MetricAvg Metric = "avg"
	MetricP95 Metric = "p95"
	MetricP99 Metric = "p99"
	MetricMax Metric = "max"
)

// Metrics lists them in display order.
var Metrics = []Metric{MetricTPS, MetricQPS, MetricAvg, MetricP95, MetricP99, MetricMax}

// ParseMetric accepts a metric name.
func ParseMetric(s string) (Metric, error) {
	for _, m := range Metrics {
		if string(m) == strings.ToLower(strings.TrimSpace(s)) {
			return m, nil
		}
	}
	names := make([]string, len(Metrics))
	for i, m := range Metrics {
		names[i] = string(m)
	}
	return "", fmt.Errorf("unknown metric %q (want %s)", s, strings.Join(names, ", "))
}

// HigherIsBetter says which way a metric improves.
func (m Metric) HigherIsBetter() bool { return m == MetricTPS || m == MetricQPS }

// Unit is the metric's unit for labels.
func (m Metric) Unit() string {
	if m.HigherIsBetter() {
		return "/s"
	}
	return "ms"
}

// Value reads a metric from a benchmark.
func (b *Benchmark) Value(m Metric) float64 {
	s := &b.Summary
	switch m {
	case MetricTPS:
		return s.TPS
	case MetricQPS:
		return s.QPS
	case MetricAvg:
		return s.Latency.AvgMS
	case MetricP95:
		return s.Latency.Percentiles["95"]
	case MetricP99:
		return s.Latency.Percentiles["99"]
	case MetricMax:
		return s.Latency.MaxMS
	}
	return 0
}
