package bench

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/starbench/starbench/builtins/atomicfile"
)

// Files of a benchmark's results folder.
const (
	SummaryFile   = "summary.json"
	IntervalsFile = "intervals.csv"
	LatencyFile   = "latency.hlog"
	OutputFile    = "output.txt"
)

// Summary is summary.json: what a benchmark measured, in one document that
// reports and comparisons read back.
type Summary struct {
	Workload     Meta              `json:"workload"`
	Tags         map[string]string `json:"tags,omitempty"`
	Options      map[string]any    `json:"options,omitempty"`
	Target       string            `json:"target,omitempty"`
	Seed         int64             `json:"seed"`
	Started      time.Time         `json:"started"`
	Threads      int               `json:"threads"`
	Seconds      float64           `json:"seconds"`
	Stopped      string            `json:"stopped"`
	Status       string            `json:"status"` // completed, interrupted, failed
	Error        string            `json:"error,omitempty"`
	Events       int64             `json:"events"`
	Queries      int64             `json:"queries"`
	Reads        int64             `json:"reads"`
	Writes       int64             `json:"writes"`
	Others       int64             `json:"others"`
	Errors       int64             `json:"errors"`
	ErrorsByCode map[string]int64  `json:"errors_by_code"`
	Reconnects   int64             `json:"reconnects"`
	TPS          float64           `json:"tps"`
	QPS          float64           `json:"qps"`
	Latency      LatencySummary    `json:"latency"`
	Percentile   float64           `json:"percentile,omitempty"` // the one the text report shows
	Fairness     Fairness          `json:"fairness"`
	ErrorsByKind map[string]int64  `json:"errors_by_kind,omitempty"`
	// Under a rate (open loop): Latency is the response time from each
	// event's intended start; Service is from its actual start.
	Rate           float64         `json:"rate,omitempty"`
	ServiceLatency *LatencySummary `json:"service_latency,omitempty"`
	Late           int64           `json:"late,omitempty"`
	Dropped        int64           `json:"dropped,omitempty"`
	WarmupSeconds  float64         `json:"warmup_seconds,omitempty"`
}

// Fairness is the spread of work over threads.
type Fairness struct {
	EventsAvg    float64 `json:"events_avg"`
	EventsStddev float64 `json:"events_stddev"`
	SecondsAvg   float64 `json:"seconds_avg"`
	SecondsStd   float64 `json:"seconds_stddev"`
}

// Summarize builds the summary of a result.
func Summarize(r *Result, percentile float64) *Summary {
	secs := r.Elapsed.Seconds()
	per := func(n int64) float64 {
		if secs <= 0 {
			return 0
		}
		return float64(n) / secs
	}
	s := &Summary{
		Workload: r.Meta, Started: r.StartTime.UTC(), Threads: r.Threads, Seconds: secs, Stopped: r.Stopped,
		Status: "completed", Events: r.Counts.Events, Queries: r.Counts.Queries(), Reads: r.Counts.Reads,
		Writes: r.Counts.Writes, Others: r.Counts.Others, Errors: r.Counts.Errors, ErrorsByCode: r.ErrorCodes,
		Reconnects: r.Counts.Reconnects, TPS: per(r.Counts.Events), QPS: per(r.Counts.Queries()),
		Percentile: percentile,
	}
	var extra []float64 // the report's own percentile
	if percentile > 0 {
		extra = []float64{percentile}
	}
	s.Latency = r.Summary(extra...)
	if r.Stopped == "interrupted" {
		s.Status = "interrupted"
	}
	if len(r.ErrorKinds) > 0 {
		s.ErrorsByKind = r.ErrorKinds
	}
	s.WarmupSeconds = r.Warmup.Seconds()
	if r.Rate > 0 {
		s.Rate, s.Late, s.Dropped = r.Rate, r.Late, r.Dropped
		svc := LatencySummary{Percentiles: percentilesOf(r.Service, summaryPercentiles(extra...))}
		if n := r.Service.TotalCount(); n > 0 {
			svc.MinMS = float64(r.Service.Min()) / 1000
			svc.MaxMS = float64(r.Service.Max()) / 1000
			svc.AvgMS = r.Service.Mean() / 1000
		}
		s.ServiceLatency = &svc
	}
	ea, es, ta, ts := r.Fairness()
	s.Fairness = Fairness{ea, es, ta, ts}
	return s
}

// WriteResults writes summary.json, intervals.csv and latency.hlog into
// dir (created if needed). Each file is written whole and renamed into
// place, so a crash never leaves a half-written summary.
func WriteResults(dir string, r *Result, s *Summary) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, IntervalsFile), intervalsCSV(r)); err != nil {
		return err
	}
	hlog, err := latencyLog(r)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, LatencyFile), hlog); err != nil {
		return err
	}
	return atomicfile.WriteJSON(filepath.Join(dir, SummaryFile), s)
}

// IntervalColumns are the columns of intervals.csv.
var IntervalColumns = []string{
	"time_s", "threads", "events", "tps", "qps", "reads_per_s", "writes_per_s", "others_per_s",
	"errors_per_s", "reconnects_per_s", "lat_p50_ms", "lat_p95_ms", "lat_p99_ms", "lat_max_ms",
}

func intervalsCSV(r *Result) []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.Write(IntervalColumns)
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
	for _, iv := range r.Intervals {
		if iv.Partial && iv.End-iv.Start < r.Interval/10 {
			continue // a few milliseconds at the end: its rates would mean nothing
		}
		c := iv.Counts
		p := func(q float64) string {
			if iv.Latency.TotalCount() == 0 {
				return "0.000"
			}
			return f(float64(iv.Latency.ValueAtPercentile(q)) / 1000)
		}
		max := "0.000"
		if iv.Latency.TotalCount() > 0 {
			max = f(float64(iv.Latency.Max()) / 1000)
		}
		_ = w.Write([]string{
			f(iv.End.Seconds()), strconv.Itoa(iv.Threads), strconv.FormatInt(c.Events, 10),
			f(iv.Rate(c.Events)), f(iv.Rate(c.Queries())), f(iv.Rate(c.Reads)), f(iv.Rate(c.Writes)), f(iv.Rate(c.Others)),
			f(iv.Rate(c.Errors)), f(iv.Rate(c.Reconnects)), p(50), p(95), p(99), max,
		})
	}
	w.Flush()
	return buf.Bytes()
}

// latencyLog writes the interval histograms in HdrHistogram's log format
// (values in µs; timestamps in seconds from the start).
func latencyLog(r *Result) ([]byte, error) {
	var buf bytes.Buffer
	lw := hdr.NewHistogramLogWriter(&buf)
	startMS := r.StartTime.UnixMilli()
	if err := lw.OutputLogFormatVersion(); err != nil {
		return nil, err
	}
	if err := lw.OutputComment(fmt.Sprintf("[starbench %s latencies in microseconds]", r.Meta.Name)); err != nil {
		return nil, err
	}
	if err := lw.OutputStartTime(startMS); err != nil {
		return nil, err
	}
	lw.SetBaseTime(startMS)
	if err := lw.OutputBaseTime(startMS); err != nil {
		return nil, err
	}
	if err := lw.OutputLegend(); err != nil {
		return nil, err
	}
	for _, iv := range r.Intervals {
		h := iv.Latency
		h.SetStartTimeMs(startMS + iv.Start.Milliseconds())
		h.SetEndTimeMs(startMS + iv.End.Milliseconds())
		if err := lw.OutputIntervalHistogram(h); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}
