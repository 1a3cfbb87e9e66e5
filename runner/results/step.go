package results

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Meta identifies a workload and the version of the statement stream it
// generates for a seed.
type Meta struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Summary is summary.json: what a benchmark step measured, in one document
// that reports and comparisons read back.
type Summary struct {
	// Format is the results format version the summary was written in
	// (FormatVersion; 0 before version 5 recorded it): it says how to read
	// the step's folder.
	Format   int               `json:"format,omitempty"`
	Workload Meta              `json:"workload"`
	Tags     map[string]string `json:"tags,omitempty"`
	Options  map[string]any    `json:"options,omitempty"`
	Target   string            `json:"target,omitempty"`
	Seed     int64             `json:"seed"`
	Started  time.Time         `json:"started"`
	Threads  int               `json:"threads"`
	Seconds  float64           `json:"seconds"`
	Stopped  string            `json:"stopped"`
	Status   string            `json:"status"` // completed, interrupted, failed
	Error    string            `json:"error,omitempty"`
	Events   int64             `json:"events"`
	Queries  int64             `json:"queries"`
	Reads    int64             `json:"reads"`
	Writes   int64             `json:"writes"`
	Others   int64             `json:"others"`
	Errors   int64             `json:"errors"` // ignored: each rolled back and retried
	// StopError is the server error that stopped the step (one not
	// ignored), counted apart from Errors; nil when none did.
	StopError    *StopError       `json:"stop_error,omitempty"`
	ErrorsByCode map[string]int64 `json:"errors_by_code"`
	Reconnects   int64            `json:"reconnects"`
	TPS          float64          `json:"tps"`
	QPS          float64          `json:"qps"`
	Latency      LatencySummary   `json:"latency"`
	Percentile   float64          `json:"percentile,omitempty"` // the one the text report shows
	Fairness     Fairness         `json:"fairness"`
	ErrorsByKind map[string]int64 `json:"errors_by_kind,omitempty"`
	// Under a rate (open loop): Latency is the response time from each
	// event's intended start; Service is from its actual start.
	Rate           float64         `json:"rate,omitempty"`
	ServiceLatency *LatencySummary `json:"service_latency,omitempty"`
	Late           int64           `json:"late,omitempty"`
	Dropped        int64           `json:"dropped,omitempty"`
	WarmupSeconds  float64         `json:"warmup_seconds,omitempty"`
	// Kinds are the events by kind, for workloads with several (TPC-C's
	// transactions), in the workload's order.
	Kinds []KindSummary `json:"kinds,omitempty"`
	// Metrics are the family's own figures (TPC-C: tpmC, tpmTotal,
	// efficiency), by name.
	Metrics map[string]float64 `json:"metrics,omitempty"`
	// IntervalSeconds is the report interval and PlannedSeconds the
	// planned duration (0: bounded by events): merged parts must agree.
	IntervalSeconds float64 `json:"interval_s,omitempty"`
	PlannedSeconds  float64 `json:"planned_s,omitempty"`
	// Segment is "i/n" for the i-th of n slices of a load (--segment).
	Segment string `json:"segment,omitempty"`
	// Parts are the loads merged into this summary (a together step, or
	// `starbench merge`), each a step folder under parts/.
	Parts []Part `json:"parts,omitempty"`
	// Client is set on a step an agent ran on a client host (or bound to
	// CPUs on this one): where, and how its clock stood.
	Client *Client `json:"client,omitempty"`
	// Imported is set on a step `starbench import` made from published
	// figures or a peer tool's output: its source and the figures it gave.
	Imported *Imported `json:"imported,omitempty"`
	// Telemetry are the series the plan's samplers recorded while the
	// step ran (telemetry.watch), each a file under telemetry/.
	Telemetry []TelemetrySeries `json:"telemetry,omitempty"`
	// Settings are the server settings the step ran with where they are
	// not the manifest's (nil: not read, as for a step outside a plan).
	Settings *ServerSettings `json:"settings,omitempty"`
	// Stages are a step's figures by stage of its load profile (a phase,
	// under phases=): each interval counted in the stage it is in, its
	// latencies from the merged histograms of those intervals. None
	// without a profile, nor for a merged step (its parts have theirs).
	Stages []StageSummary `json:"stages,omitempty"`
}

// ServerSettings are the server settings a benchmark step ran with, as
// far as they are not those the manifest records for its target: the
// global variables whose value when the step started differs from the one
// read at the run's first connect, and the statements each of the step's
// sessions started with (SET SESSION ..., from the connection handle).
type ServerSettings struct {
	Globals map[string]SettingChange `json:"globals,omitempty"`
	Session []string                 `json:"session,omitempty"`
	// Error says why the globals could not be read (Globals is then
	// empty and says nothing).
	Error string `json:"error,omitempty"`
}

// SettingChange is a global variable's value at the run's first connect
// (Was) and when the step started (Now).
type SettingChange struct {
	Was string `json:"was"`
	Now string `json:"now"`
}

// StageSummary is one stage's figures: the load it offered on average
// (threads, or events per second under a rate), its time, counts, rates
// and latency (ms, from its intervals' histograms), and its events by
// kind where the workload has kinds.
type StageSummary struct {
	Stage   int              `json:"stage"`
	Offered float64          `json:"offered"`
	Seconds float64          `json:"seconds"`
	Events  int64            `json:"events"`
	Errors  int64            `json:"errors"`
	TPS     float64          `json:"tps"`
	QPS     float64          `json:"qps"`
	Latency LatencySummary   `json:"latency"`
	Kinds   map[string]int64 `json:"kinds,omitempty"`
}

// TelemetryDir is the folder of a step's telemetry series.
const TelemetryDir = "telemetry"

// TelemetrySeries is one sampler's series of a step: what it read, where
// the points are, and their average and highest value over the step. Rates
// of counters are named NAME/s, quantiles of histograms NAME:pQ.
type TelemetrySeries struct {
	Name   string             `json:"name"`   // "status-db1", "host-10.0.1.5", "prom-127.0.0.1:10080"
	Kind   string             `json:"kind"`   // status, prometheus, host
	Source string             `json:"source"` // what it reads (no password)
	File   string             `json:"file"`   // telemetry/NAME.jsonl, relative to the step folder
	Points int                `json:"points"` // points recorded
	Failed int                `json:"failed,omitempty"`
	Error  string             `json:"error,omitempty"` // the last failure's message
	Avg    map[string]float64 `json:"avg,omitempty"`
	Max    map[string]float64 `json:"max,omitempty"`
	// Totals are how much each counter grew from the first reading to the
	// last (server CPU seconds, bytes written, statements): per event of
	// the step they explain a change.
	Totals map[string]float64 `json:"totals,omitempty"`
}

// TelemetryPoint is one line of a series file: the values a sampler
// derived from its reading at Time and the one before it, or why it could
// not read.
type TelemetryPoint struct {
	Time   time.Time          `json:"time"`
	Values map[string]float64 `json:"values,omitempty"`
	Error  string             `json:"error,omitempty"`
}

// Client is where an agent ran a step: its host, the starbench there,
// how far its clock was ahead of the coordinator's (the step's times are
// the coordinator's) and the round trip that was measured with.
type Client struct {
	Host          string  `json:"host"`
	Placement     string  `json:"placement,omitempty"`    // "cpus 0-3", "NUMA node 1"
	CPUs          string  `json:"cpus_allowed,omitempty"` // the CPUs the agent could run on: "0-3"
	Version       string  `json:"version"`
	OS            string  `json:"os"`
	Arch          string  `json:"arch"`
	ClockOffsetMS float64 `json:"clock_offset_ms"`
	RTTMS         float64 `json:"rtt_ms"`
}

// Part is one of the loads a merged summary is made of.
type Part struct {
	Name     string `json:"name"`
	Dir      string `json:"dir"` // relative to the merged step's folder: parts/<k>-<name>
	Workload string `json:"workload"`
	Target   string `json:"target,omitempty"`
	Client   string `json:"client,omitempty"` // the host an agent ran it on
	Segment  string `json:"segment,omitempty"`
	Status   string `json:"status"`
	Error    string `json:"error,omitempty"`
}

// KindSummary is one kind of event's share of a step.
type KindSummary struct {
	Name      string         `json:"name"`
	Events    int64          `json:"events"`
	Errors    int64          `json:"errors"`
	PerMinute float64        `json:"per_minute"`
	Latency   LatencySummary `json:"latency"`
}

// Fairness is the spread of work over threads.
type Fairness struct {
	EventsAvg    float64 `json:"events_avg"`
	EventsStddev float64 `json:"events_stddev"`
	SecondsAvg   float64 `json:"seconds_avg"`
	SecondsStd   float64 `json:"seconds_stddev"`
}

// LatencySummary is a step's latency in milliseconds.
type LatencySummary struct {
	MinMS       float64            `json:"min_ms"`
	AvgMS       float64            `json:"avg_ms"`
	MaxMS       float64            `json:"max_ms"`
	SumMS       float64            `json:"sum_ms"`
	Percentiles map[string]float64 `json:"percentiles_ms"` // keyed by PercentileKey: "50", "95", "99.9", ...
}

// SummaryPercentiles are the percentiles every summary reports.
var SummaryPercentiles = []float64{50, 90, 95, 99, 99.9, 99.99}

// PercentileKey formats a percentile as a map key: 95 → "95", 99.9 → "99.9".
func PercentileKey(p float64) string { return strconv.FormatFloat(p, 'f', -1, 64) }

// Interval is one line of intervals.csv: a report interval's rates and
// latency percentiles (ms).
type Interval struct {
	Time           float64 // seconds from the start to the interval's end
	Threads        int
	Events         int64
	TPS, QPS       float64
	ReadsPerS      float64
	WritesPerS     float64
	OthersPerS     float64
	ErrorsPerS     float64
	ReconnectsPerS float64
	P50, P95, P99  float64
	Max            float64
	// Stage is the stage of the step's load profile the interval is in
	// (1-based; 0: the step has none) and Target the load the profile
	// offered over it: threads closed-loop, events per second under a
	// rate.
	Stage  int
	Target float64
}

// IntervalColumns are the columns of intervals.csv, in order; a step
// with a load profile has StageColumns after them.
var IntervalColumns = []string{
	"time_s", "threads", "events", "tps", "qps", "reads_per_s", "writes_per_s", "others_per_s",
	"errors_per_s", "reconnects_per_s", "lat_p50_ms", "lat_p95_ms", "lat_p99_ms", "lat_max_ms",
}

// StageColumns are the columns of a step with a load profile: each row's
// stage and the load offered.
var StageColumns = []string{"stage", "target"}

// intervalHeader is intervals.csv's header for rows like first.
func intervalHeader(first Interval) []string {
	if first.Stage > 0 {
		return append(append([]string(nil), IntervalColumns...), StageColumns...)
	}
	return IntervalColumns
}

func (iv Interval) fields() []string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
	row := []string{
		f(iv.Time), strconv.Itoa(iv.Threads), strconv.FormatInt(iv.Events, 10), f(iv.TPS), f(iv.QPS),
		f(iv.ReadsPerS), f(iv.WritesPerS), f(iv.OthersPerS), f(iv.ErrorsPerS), f(iv.ReconnectsPerS),
		f(iv.P50), f(iv.P95), f(iv.P99), f(iv.Max),
	}
	if iv.Stage > 0 {
		row = append(row, strconv.Itoa(iv.Stage), f(iv.Target))
	}
	return row
}

// LatencyInterval is one report interval's latency histogram (µs), for
// latency.hlog; Start and End count from the step's start. Tag is "" for
// the step's latencies, KindTag(name) for one kind of event's, and
// ServiceTag for service times under a rate: each interval has its
// untagged histogram, then its tagged ones.
type LatencyInterval struct {
	Start, End time.Duration
	Tag        string
	Histogram  *hdr.Histogram
}

// ServiceTag tags the service-time histograms of an open-loop step.
const ServiceTag = "service"

// KindTag tags the histograms of one kind of event (a TPC-C transaction).
func KindTag(kind string) string { return "kind:" + kind }

// Step is what a benchmark step writes into its folder.
type Step struct {
	Summary   *Summary
	Intervals []Interval
	Latency   []LatencyInterval
	Output    []byte // output.txt; nil writes none
}

// WriteStep writes a step's files into dir (made if needed), each whole and
// renamed into place, in this build's format version (it sets
// s.Summary.Format); summary.json goes last, so a folder with a summary
// has the rest.
func WriteStep(dir string, s Step) error {
	if err := WritePartial(dir, s); err != nil {
		return err
	}
	return FinishStep(dir, s.Summary, s.Output)
}

// WritePartialOf is WritePartial of histograms made one at a time (decoded
// from what an agent streamed, say), so that a long step's thousands of
// them are never in memory at once.
func WritePartialOf(dir, workload string, started time.Time, rows []Interval, latency iter.Seq2[LatencyInterval, error]) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := WriteFile(filepath.Join(dir, IntervalsFile), intervalsCSV(rows)); err != nil {
		return err
	}
	hlog, err := latencyLogOf(workload, started, latency)
	if err != nil {
		return err
	}
	return WriteFile(filepath.Join(dir, LatencyFile), hlog)
}

// WritePartial writes what a step measured before it was lost (an agent
// whose host went away): its intervals.csv and latency.hlog (s.Summary
// gives the workload's name and the start), and no summary.json, so that
// the folder is not taken for a step's result.
func WritePartial(dir string, s Step) error {
	return WritePartialOf(dir, s.Summary.Workload.Name, s.Summary.Started, s.Intervals, func(yield func(LatencyInterval, error) bool) {
		for _, iv := range s.Latency {
			if !yield(iv, nil) {
				return
			}
		}
	})
}

func intervalsCSV(ivs []Interval) []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	var first Interval
	if len(ivs) > 0 {
		first = ivs[0]
	}
	_ = w.Write(intervalHeader(first))
	for _, iv := range ivs {
		_ = w.Write(iv.fields())
	}
	w.Flush()
	return buf.Bytes()
}

// latencyLogOf writes interval histograms, made one at a time, in
// HdrHistogram's log format (values in µs; timestamps in seconds from the
// whole second the step started in, the log's BaseTime).
func latencyLogOf(workload string, start time.Time, ivs iter.Seq2[LatencyInterval, error]) ([]byte, error) {
	var buf bytes.Buffer
	lw, startMS, err := beginLatencyLog(&buf, workload, start)
	if err != nil {
		return nil, err
	}
	for iv, err := range ivs {
		if err != nil {
			return nil, err
		}
		h := iv.Histogram
		h.SetTag(iv.Tag)
		h.SetStartTimeMs(startMS + iv.Start.Milliseconds())
		h.SetEndTimeMs(startMS + iv.End.Milliseconds())
		if err := lw.OutputIntervalHistogram(h); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

// beginLatencyLog writes a latency.hlog's header lines to w and returns
// the log writer for its interval lines, with the step's start (ms since
// the epoch) the intervals' times count from.
func beginLatencyLog(w io.Writer, workload string, start time.Time) (*hdr.HistogramLogWriter, int64, error) {
	lw := hdr.NewHistogramLogWriter(w)
	startMS := start.UnixMilli()
	if err := lw.OutputLogFormatVersion(); err != nil {
		return nil, 0, err
	}
	if err := lw.OutputComment(fmt.Sprintf("[starbench %s latencies in microseconds]", workload)); err != nil {
		return nil, 0, err
	}
	if err := lw.OutputStartTime(startMS); err != nil {
		return nil, 0, err
	}
	// The log states its base time in whole seconds: interval timestamps
	// count from that second, so that readers place them where they were.
	baseMS := startMS - startMS%1000
	lw.SetBaseTime(baseMS)
	if err := lw.OutputBaseTime(baseMS); err != nil {
		return nil, 0, err
	}
	if err := lw.OutputLegend(); err != nil {
		return nil, 0, err
	}
	return lw, startMS, nil
}

// StepDirs lists the benchmark step folders of a results folder, ordered
// by step id (2 < 10 < 10.1): the folder itself when it holds a summary
// (a `starbench sysbench run` folder), then steps/*/ with a summary.
func StepDirs(dir string) []string {
	var dirs []string
	if _, err := os.Stat(filepath.Join(dir, SummaryFile)); err == nil {
		dirs = append(dirs, dir)
	}
	found, _ := filepath.Glob(filepath.Join(dir, StepsDir, "*", SummaryFile))
	var steps []string
	for _, f := range found {
		steps = append(steps, filepath.Dir(f))
	}
	sort.SliceStable(steps, func(i, j int) bool { return StepLess(StepID(steps[i]), StepID(steps[j])) })
	return append(dirs, steps...)
}

// StepID is the step id in a step folder's name (steps/12.3-name → 12.3).
func StepID(stepDir string) string {
	id, _, _ := strings.Cut(filepath.Base(stepDir), "-")
	return id
}

// StepLess orders step ids numerically part by part: 2 < 10 < 10.1.
func StepLess(a, b string) bool {
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

// ReadSummary reads a step folder's summary.json, of any format version up
// to FormatVersion (Format is what the file says: 0 for versions 1 to 4);
// a missing, truncated or empty one is an error wrapping ErrNotResults,
// one of a later format version a *NewerFormatError.
func ReadSummary(dir string) (*Summary, error) {
	data, err := os.ReadFile(filepath.Join(dir, SummaryFile))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrNotResults, dir, err)
	}
	if err := json.Unmarshal(data, &json.RawMessage{}); err != nil {
		return nil, fmt.Errorf("%w: %s/%s does not parse (truncated?): %v", ErrNotResults, dir, SummaryFile, err)
	}
	if err := checkFormat(filepath.Join(dir, SummaryFile), headOf(data)); err != nil {
		return nil, err
	}
	s := &Summary{}
	if err := json.Unmarshal(data, s); err != nil {
		return nil, fmt.Errorf("%w: %s/%s does not parse (truncated?): %v", ErrNotResults, dir, SummaryFile, err)
	}
	// An imported headline (a report's "+36 %") belongs to no thread level:
	// its threads are unknown, not missing.
	if s.Workload.Name == "" || (s.Threads == 0 && (s.Imported == nil || s.Known(FigureThreads))) {
		return nil, fmt.Errorf("%w: %s/%s names no workload or threads", ErrNotResults, dir, SummaryFile)
	}
	return s, nil
}

// ReadTelemetry reads a series of a step folder's telemetry (the
// summary's TelemetrySeries.File, relative to dir): its points, a last
// line cut short by a crash left out. A file outside the step folder is
// refused.
func ReadTelemetry(dir, file string) ([]TelemetryPoint, error) {
	rel := filepath.FromSlash(file)
	if !filepath.IsLocal(rel) {
		return nil, fmt.Errorf("%w: %s: telemetry file %q is outside the step folder", ErrNotResults, dir, file)
	}
	data, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		return nil, err
	}
	var points []TelemetryPoint
	for _, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var p TelemetryPoint
		if err := json.Unmarshal([]byte(line), &p); err != nil {
			continue // the line a crash cut short
		}
		points = append(points, p)
	}
	return points, nil
}

// ReadIntervals reads a step folder's intervals.csv (none is no rows).
// Columns are found by name, so a file with fewer or more reads as well.
func ReadIntervals(dir string) ([]Interval, error) {
	f, err := os.Open(filepath.Join(dir, IntervalsFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%w: %s/%s: %v", ErrNotResults, dir, IntervalsFile, err)
	}
	if len(recs) == 0 {
		return nil, nil
	}
	col := map[string]int{}
	for i, name := range recs[0] {
		col[name] = i
	}
	var rows []Interval
	for _, rec := range recs[1:] {
		rows = append(rows, intervalOf(col, rec))
	}
	return rows, nil
}

// intervalOf is an intervals.csv record as an Interval, its columns found
// by name (col: the header's columns by name).
func intervalOf(col map[string]int, rec []string) Interval {
	get := func(name string) float64 {
		i, ok := col[name]
		if !ok || i >= len(rec) {
			return 0
		}
		v, _ := strconv.ParseFloat(rec[i], 64)
		return v
	}
	return Interval{
		Time: get("time_s"), Threads: int(get("threads")), Events: int64(get("events")),
		TPS: get("tps"), QPS: get("qps"), ReadsPerS: get("reads_per_s"), WritesPerS: get("writes_per_s"),
		OthersPerS: get("others_per_s"), ErrorsPerS: get("errors_per_s"), ReconnectsPerS: get("reconnects_per_s"),
		P50: get("lat_p50_ms"), P95: get("lat_p95_ms"), P99: get("lat_p99_ms"), Max: get("lat_max_ms"),
		Stage: int(get("stage")), Target: get("target"),
	}
}

// StopError is a server error that stopped a benchmark step: the thread
// that met it, the MySQL error code, the statement's kind (SELECT,
// COMMIT, ...), the message, and how to ignore it instead (the family's
// flag or argument), when the family says.
type StopError struct {
	Thread  int    `json:"thread"`
	Code    string `json:"code"`
	Kind    string `json:"kind,omitempty"`
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
}
