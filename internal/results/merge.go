package results

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// PartsDir is the folder, inside a merged step's folder, of its parts:
// parts/<k>-<name>/, each a whole step folder.
const PartsDir = "parts"

// ErrCannotMerge marks parts that cannot be merged into one honest result
// (different report intervals or durations, different workloads without
// force): bad input, exit 2 on the command line.
var ErrCannotMerge = errors.New("cannot merge")

// MergePart is one part to merge: a step folder and the part's name.
type MergePart struct {
	Name string
	Dir  string
}

// MergeOptions control Merge.
type MergeOptions struct {
	// Force merges parts of different workloads (a together step of a
	// sysbench and a TPC-C load, say), whose counts then add events of
	// different kinds.
	Force bool
	// NotAdditive are metrics that do not add up over parts (TPC-C's
	// efficiency, per warehouse); the merged summary leaves them out.
	NotAdditive []string
}

// Merge merges the parts' step folders exactly into one step: counts,
// errors by code and by kind summed; latency percentiles read off one
// histogram holding every part's recorded latencies (the HdrHistogram
// merge of their latency.hlog), with the exact minimum, maximum and sum;
// rates summed; intervals aligned on the parts' common clock, each part's
// interval going into the merged interval its start is nearest to. The
// merged summary lists the parts (Dir as PartDir gives it). Parts whose
// report intervals or planned durations differ, or whose workloads differ
// without opts.Force, are an error wrapping ErrCannotMerge.
func Merge(parts []MergePart, opts MergeOptions) (Step, error) {
	if len(parts) == 0 {
		return Step{}, fmt.Errorf("%w: no parts", ErrCannotMerge)
	}
	in := make([]*mergeInput, len(parts))
	for i, p := range parts {
		mi, err := readMergeInput(p)
		if err != nil {
			return Step{}, err
		}
		in[i] = mi
	}
	if err := checkMergeable(in, opts); err != nil {
		return Step{}, err
	}
	sum := mergeSummary(in, opts)
	ivs, lat := mergeIntervals(in, sum)
	for k := range sum.Parts {
		sum.Parts[k].Dir = PartDir(k+1, parts[k].Name)
	}
	extra := extraPercentile(sum)
	sum.Latency = LatencyOf(totalOf(lat, ""), sum.Latency.MinMS, sum.Latency.MaxMS, sum.Latency.SumMS, sum.Events, extra...)
	if sum.ServiceLatency != nil {
		svc := LatencySummary{Percentiles: PercentilesOf(nil, append(append([]float64(nil), SummaryPercentiles...), extra...))}
		if h := totalOf(lat, ServiceTag); h != nil && h.TotalCount() > 0 {
			svc = LatencySummary{MinMS: float64(h.Min()) / 1000, MaxMS: float64(h.Max()) / 1000, AvgMS: h.Mean() / 1000,
				Percentiles: PercentilesOf(h, append(append([]float64(nil), SummaryPercentiles...), extra...))}
		}
		sum.ServiceLatency = &svc
	}
	for i := range sum.Kinds {
		k := &sum.Kinds[i]
		k.Latency = LatencyOf(totalOf(lat, KindTag(k.Name)), k.Latency.MinMS, k.Latency.MaxMS, k.Latency.SumMS, k.Events, extra...)
	}
	return Step{Summary: sum, Intervals: ivs, Latency: lat}, nil
}

// PartDir is part k's folder (1-based) inside a merged step's folder.
func PartDir(k int, name string) string {
	return filepath.Join(PartsDir, fmt.Sprintf("%d-%s", k, safeName(name)))
}

// safeName keeps a part's name usable as a folder name.
func safeName(name string) string {
	name = strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, name)
	if len(name) > 60 {
		name = name[:60]
	}
	return strings.Trim(name, ".")
}

// extraPercentile is the merged summary's report percentile, when it has one.
func extraPercentile(s *Summary) []float64 {
	if s.Percentile > 0 {
		return []float64{s.Percentile}
	}
	return nil
}

// mergeInput is one part read back.
type mergeInput struct {
	part      MergePart
	sum       *Summary
	intervals []Interval
	latency   []LatencyInterval
}

func readMergeInput(p MergePart) (*mergeInput, error) {
	sum, err := ReadSummary(p.Dir)
	if err != nil {
		return nil, err
	}
	rows, err := ReadIntervals(p.Dir)
	if err != nil {
		return nil, err
	}
	lat, err := ReadLatency(p.Dir, sum.Started)
	if err != nil {
		return nil, err
	}
	if len(lat) == 0 && sum.Events > 0 {
		return nil, fmt.Errorf("%w: %s has no %s: its latencies cannot be merged", ErrNotResults, p.Dir, LatencyFile)
	}
	return &mergeInput{part: p, sum: sum, intervals: rows, latency: lat}, nil
}

// checkMergeable refuses parts that would not merge into one honest result.
func checkMergeable(in []*mergeInput, opts MergeOptions) error {
	first := in[0]
	name := func(m *mergeInput) string { return fmt.Sprintf("%s (%s)", m.part.Name, m.part.Dir) }
	for _, p := range in[1:] {
		a, b := first.sum, p.sum
		if a.IntervalSeconds != b.IntervalSeconds {
			return fmt.Errorf("%w: %s reports every %gs, %s every %gs: give the parts one report interval",
				ErrCannotMerge, name(first), a.IntervalSeconds, name(p), b.IntervalSeconds)
		}
		if a.PlannedSeconds != b.PlannedSeconds {
			return fmt.Errorf("%w: %s was planned for %gs, %s for %gs: give the parts one duration",
				ErrCannotMerge, name(first), a.PlannedSeconds, name(p), b.PlannedSeconds)
		}
		if a.Workload != b.Workload && !opts.Force {
			return fmt.Errorf("%w: %s ran %s %s, %s ran %s %s: merging different workloads adds unlike events (--force merges them anyway)",
				ErrCannotMerge, name(first), a.Workload.Name, a.Workload.Version, name(p), b.Workload.Name, b.Workload.Version)
		}
	}
	seen := map[string]*mergeInput{}
	for _, p := range in {
		if p.sum.Segment == "" {
			continue
		}
		key := fmt.Sprintf("%s seed %d", p.sum.Segment, p.sum.Seed)
		if q, ok := seen[key]; ok {
			return fmt.Errorf("%w: %s and %s are both segment %s of one load (seed %d)", ErrCannotMerge, q.part.Dir, p.part.Dir, p.sum.Segment, p.sum.Seed)
		}
		seen[key] = p
	}
	return nil
}

// mergeSummary adds up the parts' summaries; the latency percentiles are
// filled in from the merged histograms afterwards.
func mergeSummary(in []*mergeInput, opts MergeOptions) *Summary {
	s := &Summary{ErrorsByCode: map[string]int64{}, Status: StatusCompleted, Percentile: in[0].sum.Percentile,
		IntervalSeconds: in[0].sum.IntervalSeconds, PlannedSeconds: in[0].sum.PlannedSeconds}
	var workloads, versions, targets, stopped []string
	var threads float64
	var eventsSum, eventsSq, secsSum, secsSq float64 // fairness: pooled over every thread
	kinds := map[string]int{}
	s.Latency.MinMS = math.Inf(1)
	for i, m := range in {
		p := m.sum
		workloads = appendNew(workloads, p.Workload.Name)
		versions = appendNew(versions, p.Workload.Version)
		if p.Target != "" {
			targets = appendNew(targets, p.Target)
		}
		stopped = appendNew(stopped, p.Stopped)
		if i == 0 || p.Started.Before(s.Started) {
			s.Started = p.Started
		}
		s.Threads += p.Threads
		s.Seconds = math.Max(s.Seconds, p.Seconds)
		s.Events += p.Events
		s.Queries += p.Queries
		s.Reads += p.Reads
		s.Writes += p.Writes
		s.Others += p.Others
		s.Errors += p.Errors
		s.Reconnects += p.Reconnects
		s.TPS += p.TPS
		s.QPS += p.QPS
		s.Rate += p.Rate
		s.Late += p.Late
		s.Dropped += p.Dropped
		s.WarmupSeconds = math.Max(s.WarmupSeconds, p.WarmupSeconds)
		for code, n := range p.ErrorsByCode {
			s.ErrorsByCode[code] += n
		}
		for kind, n := range p.ErrorsByKind {
			if s.ErrorsByKind == nil {
				s.ErrorsByKind = map[string]int64{}
			}
			s.ErrorsByKind[kind] += n
		}
		mergeExtremes(&s.Latency, p.Latency, p.Events)
		if p.ServiceLatency != nil {
			s.ServiceLatency = &LatencySummary{}
		}
		for _, k := range p.Kinds {
			j, ok := kinds[k.Name]
			if !ok {
				j = len(s.Kinds)
				kinds[k.Name] = j
				s.Kinds = append(s.Kinds, KindSummary{Name: k.Name, Latency: LatencySummary{MinMS: math.Inf(1)}})
			}
			sk := &s.Kinds[j]
			sk.Events += k.Events
			sk.Errors += k.Errors
			sk.PerMinute += k.PerMinute
			mergeExtremes(&sk.Latency, k.Latency, k.Events)
		}
		for name, v := range p.Metrics {
			if slices.Contains(opts.NotAdditive, name) {
				continue
			}
			if s.Metrics == nil {
				s.Metrics = map[string]float64{}
			}
			s.Metrics[name] += v
		}
		n := float64(p.Threads)
		threads += n
		f := p.Fairness
		eventsSum += n * f.EventsAvg
		eventsSq += n * (f.EventsStddev*f.EventsStddev + f.EventsAvg*f.EventsAvg)
		secsSum += n * f.SecondsAvg
		secsSq += n * (f.SecondsStd*f.SecondsStd + f.SecondsAvg*f.SecondsAvg)
		s.Parts = append(s.Parts, Part{Name: m.part.Name, Workload: p.Workload.Name, Target: p.Target, Segment: p.Segment,
			Status: p.Status, Error: p.Error})
		switch {
		case p.Status == StatusFailed:
			s.Status = StatusFailed
		case p.Status == StatusInterrupted && s.Status != StatusFailed:
			s.Status = StatusInterrupted
		}
	}
	noInf(&s.Latency)
	for i := range s.Kinds {
		noInf(&s.Kinds[i].Latency)
	}
	s.Workload = Meta{Name: strings.Join(workloads, "+"), Version: strings.Join(versions, "+")}
	s.Target = strings.Join(targets, ", ")
	s.Stopped = strings.Join(stopped, "+")
	s.Tags = commonTags(in)
	if len(in) > 0 && sameSeed(in) {
		s.Seed = in[0].sum.Seed
	}
	if segs := segmentsOf(in); segs != "" {
		s.Segment = segs
	}
	var failed []string
	for _, p := range s.Parts {
		if p.Error != "" {
			failed = append(failed, fmt.Sprintf("part %s: %s", p.Name, p.Error))
		}
	}
	s.Error = strings.Join(failed, "; ")
	if threads > 0 {
		ea, ta := eventsSum/threads, secsSum/threads
		s.Fairness = Fairness{EventsAvg: ea, EventsStddev: math.Sqrt(math.Max(0, eventsSq/threads-ea*ea)),
			SecondsAvg: ta, SecondsStd: math.Sqrt(math.Max(0, secsSq/threads-ta*ta))}
	}
	return s
}

// mergeExtremes folds a part's exact minimum, maximum and sum into dst
// (whose minimum starts at +Inf: see noInf).
func mergeExtremes(dst *LatencySummary, part LatencySummary, events int64) {
	if events == 0 {
		return
	}
	dst.MinMS = math.Min(dst.MinMS, part.MinMS)
	dst.MaxMS = math.Max(dst.MaxMS, part.MaxMS)
	dst.SumMS += part.SumMS
}

// noInf makes the minimum of a latency no part contributed to 0.
func noInf(l *LatencySummary) {
	if math.IsInf(l.MinMS, 1) {
		l.MinMS = 0
	}
}

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// commonTags are the tags every part has with the same value.
func commonTags(in []*mergeInput) map[string]string {
	tags := map[string]string{}
	for k, v := range in[0].sum.Tags {
		same := true
		for _, m := range in[1:] {
			if m.sum.Tags[k] != v {
				same = false
			}
		}
		if same {
			tags[k] = v
		}
	}
	if len(tags) == 0 {
		return nil
	}
	return tags
}

func sameSeed(in []*mergeInput) bool {
	for _, m := range in[1:] {
		if m.sum.Seed != in[0].sum.Seed {
			return false
		}
	}
	return true
}

// segmentsOf is "n" when the parts are segments of one load of n
// segments (by seed), else "".
func segmentsOf(in []*mergeInput) string {
	n := ""
	for _, m := range in {
		_, of, ok := strings.Cut(m.sum.Segment, "/")
		if !ok || (n != "" && of != n) {
			return ""
		}
		n = of
	}
	if !sameSeed(in) {
		return ""
	}
	return fmt.Sprintf("%d of %s", len(in), n)
}

// bucket is one merged interval: the parts' intervals whose start is
// nearest to its start on the common clock.
type bucket struct {
	start, end time.Duration // on the common clock
	hists      map[string]*hdr.Histogram
	tags       []string // in the order first seen, "" first
	row        *Interval
}

// mergeIntervals aligns the parts' intervals on the clock of the earliest
// start and adds up each merged interval's rows and histograms.
func mergeIntervals(in []*mergeInput, sum *Summary) ([]Interval, []LatencyInterval) {
	length := time.Duration(sum.IntervalSeconds * float64(time.Second))
	if length <= 0 {
		length = time.Second
		for _, m := range in {
			if len(m.latency) > 0 && m.latency[0].End > m.latency[0].Start {
				length = m.latency[0].End - m.latency[0].Start
				break
			}
		}
	}
	buckets := map[int]*bucket{}
	for _, m := range in {
		offset := m.sum.Started.Sub(sum.Started)
		rowAt := rowsByEnd(m.intervals)
		var cur *bucket
		for _, li := range m.latency {
			if li.Tag == "" {
				k := int(math.Round(float64(offset+li.Start) / float64(length)))
				b := buckets[k]
				if b == nil {
					b = &bucket{start: offset + li.Start, end: offset + li.End, hists: map[string]*hdr.Histogram{}}
					buckets[k] = b
				}
				b.start, b.end = min(b.start, offset+li.Start), max(b.end, offset+li.End)
				if row, ok := rowAt(li.End); ok {
					b.addRow(row)
				}
				cur = b
			}
			if cur != nil {
				cur.add(li.Tag, li.Histogram)
			}
		}
	}
	keys := make([]int, 0, len(buckets))
	for k := range buckets {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	var rows []Interval
	var lat []LatencyInterval
	for _, k := range keys {
		b := buckets[k]
		for _, tag := range b.tags {
			lat = append(lat, LatencyInterval{Start: b.start, End: b.end, Tag: tag, Histogram: b.hists[tag]})
		}
		if b.row == nil {
			continue
		}
		row := *b.row
		row.Time = b.end.Seconds()
		if h := b.hists[""]; h != nil && h.TotalCount() > 0 {
			at := func(q float64) float64 { return float64(h.ValueAtPercentile(q)) / 1000 }
			row.P50, row.P95, row.P99, row.Max = at(50), at(95), at(99), float64(h.Max())/1000
		} else {
			row.P50, row.P95, row.P99, row.Max = 0, 0, 0, 0
		}
		rows = append(rows, row)
	}
	return rows, lat
}

// add merges a part's interval histogram into the bucket's; the first of
// a tag becomes the bucket's own (the parts' histograms are read for the
// merge alone).
func (b *bucket) add(tag string, h *hdr.Histogram) {
	if m, ok := b.hists[tag]; ok {
		m.Merge(h)
		return
	}
	b.hists[tag] = h
	b.tags = append(b.tags, tag)
}

func (b *bucket) addRow(r Interval) {
	if b.row == nil {
		b.row = &Interval{}
	}
	t := b.row
	t.Threads += r.Threads
	t.Events += r.Events
	t.TPS += r.TPS
	t.QPS += r.QPS
	t.ReadsPerS += r.ReadsPerS
	t.WritesPerS += r.WritesPerS
	t.OthersPerS += r.OthersPerS
	t.ErrorsPerS += r.ErrorsPerS
	t.ReconnectsPerS += r.ReconnectsPerS
}

// rowsByEnd finds a part's intervals.csv row by its interval's end, each
// row once, the nearest within 3 ms: the row's time is rounded to the
// millisecond, the log's end truncated to it twice (when written, and
// when read back through floating-point seconds), so the two may differ
// by 2 ms.
func rowsByEnd(rows []Interval) func(end time.Duration) (Interval, bool) {
	byMS := make(map[int64]Interval, len(rows))
	for _, r := range rows {
		byMS[int64(math.Round(r.Time*1000))] = r
	}
	return func(end time.Duration) (Interval, bool) {
		ms := end.Milliseconds()
		for _, k := range []int64{ms, ms + 1, ms - 1, ms + 2, ms - 2, ms + 3, ms - 3} {
			if r, ok := byMS[k]; ok {
				delete(byMS, k)
				return r, true
			}
		}
		return Interval{}, false
	}
}

// totalOf merges every interval histogram with tag.
func totalOf(lat []LatencyInterval, tag string) *hdr.Histogram {
	var total *hdr.Histogram
	for _, li := range lat {
		if li.Tag != tag {
			continue
		}
		if total == nil {
			total = emptyLike(li.Histogram)
		}
		total.Merge(li.Histogram)
	}
	return total
}

// CopyStep copies a step folder's files (not its parts) into dst.
func CopyStep(src, dst string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	for _, name := range []string{IntervalsFile, LatencyFile, OutputFile, SummaryFile} { // the summary last
		data, err := os.ReadFile(filepath.Join(src, name))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if err := WriteFile(filepath.Join(dst, name), data); err != nil {
			return err
		}
	}
	return nil
}
