package results

import (
	"fmt"
	"math"
	"sort"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// oracleMerge is the merge as it was before it streamed (every part's
// intervals.csv and latency.hlog read whole into dense histograms, the
// merged intervals built in memory), kept as the reference the streaming
// Merge must equal byte for byte (merge_exact_test.go).
func oracleMerge(parts []MergePart, opts MergeOptions) (Step, error) {
	if len(parts) == 0 {
		return Step{}, fmt.Errorf("%w: no parts", ErrCannotMerge)
	}
	in := make([]*oracleInput, len(parts))
	for i, p := range parts {
		mi, err := oracleRead(p)
		if err != nil {
			return Step{}, err
		}
		in[i] = mi
	}
	plain := make([]*mergeInput, len(in))
	for i, m := range in {
		plain[i] = &m.mergeInput
	}
	if err := checkMergeable(plain, opts); err != nil {
		return Step{}, err
	}
	sum := mergeSummary(plain, opts)
	ivs, lat := oracleIntervals(in, sum)
	for k := range sum.Parts {
		sum.Parts[k].Dir = PartDir(k+1, parts[k].Name)
	}
	extra := extraPercentile(sum)
	sum.Latency = LatencyOf(oracleTotal(lat, ""), sum.Latency.MinMS, sum.Latency.MaxMS, sum.Latency.SumMS, sum.Events, extra...)
	if sum.ServiceLatency != nil {
		svc := LatencySummary{Percentiles: PercentilesOf(nil, append(append([]float64(nil), SummaryPercentiles...), extra...))}
		if h := oracleTotal(lat, ServiceTag); h != nil && h.TotalCount() > 0 {
			svc = LatencySummary{MinMS: float64(h.Min()) / 1000, MaxMS: float64(h.Max()) / 1000, AvgMS: h.Mean() / 1000,
				Percentiles: PercentilesOf(h, append(append([]float64(nil), SummaryPercentiles...), extra...))}
		}
		sum.ServiceLatency = &svc
	}
	for i := range sum.Kinds {
		k := &sum.Kinds[i]
		k.Latency = LatencyOf(oracleTotal(lat, KindTag(k.Name)), k.Latency.MinMS, k.Latency.MaxMS, k.Latency.SumMS, k.Events, extra...)
	}
	return Step{Summary: sum, Intervals: ivs, Latency: lat}, nil
}

type oracleInput struct {
	mergeInput
	intervals []Interval
	latency   []LatencyInterval
}

func oracleRead(p MergePart) (*oracleInput, error) {
	sum, err := ReadSummary(p.Dir)
	if err != nil {
		return nil, err
	}
	rows, err := ReadIntervals(p.Dir)
	if err != nil {
		return nil, err
	}
	lat, err := ReadLatency(p.Dir, sum)
	if err != nil {
		return nil, err
	}
	if len(lat) == 0 && sum.Events > 0 {
		return nil, fmt.Errorf("%w: %s has no %s: its latencies cannot be merged", ErrNotResults, p.Dir, LatencyFile)
	}
	return &oracleInput{mergeInput: mergeInput{part: p, sum: sum}, intervals: rows, latency: lat}, nil
}

type oracleBucket struct {
	start, end time.Duration
	hists      map[string]*hdr.Histogram
	tags       []string
	row        *Interval
}

func oracleIntervals(in []*oracleInput, sum *Summary) ([]Interval, []LatencyInterval) {
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
	buckets := map[int]*oracleBucket{}
	for _, m := range in {
		offset := m.sum.Started.Sub(sum.Started)
		rowAt := oracleRowsByEnd(m.intervals)
		var cur *oracleBucket
		for _, li := range m.latency {
			if li.Tag == "" {
				k := int(math.Round(float64(offset+li.Start) / float64(length)))
				b := buckets[k]
				if b == nil {
					b = &oracleBucket{start: offset + li.Start, end: offset + li.End, hists: map[string]*hdr.Histogram{}}
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

func (b *oracleBucket) add(tag string, h *hdr.Histogram) {
	if m, ok := b.hists[tag]; ok {
		m.Merge(h)
		return
	}
	b.hists[tag] = h
	b.tags = append(b.tags, tag)
}

func (b *oracleBucket) addRow(r Interval) {
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

func oracleRowsByEnd(rows []Interval) func(end time.Duration) (Interval, bool) {
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

func oracleTotal(lat []LatencyInterval, tag string) *hdr.Histogram {
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

// oracleWrite merges parts the old way into dir, as a caller wrote it.
func oracleWrite(dir string, parts []MergePart, opts MergeOptions) error {
	step, err := oracleMerge(parts, opts)
	if err != nil {
		return err
	}
	return WriteStep(dir, step)
}
