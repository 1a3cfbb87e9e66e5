package results

import (
	"fmt"
	"math"
	"sort"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// PercentilesOf reads percentiles (in ms) off a histogram of µs, keyed by
// PercentileKey; an empty histogram gives zeros.
func PercentilesOf(h *hdr.Histogram, ps []float64) map[string]float64 {
	out := make(map[string]float64, len(ps))
	if h == nil || h.TotalCount() == 0 {
		for _, p := range ps {
			out[PercentileKey(p)] = 0
		}
		return out
	}
	sorted := append([]float64(nil), ps...)
	sort.Float64s(sorted)
	for _, p := range sorted {
		out[PercentileKey(p)] = float64(h.ValueAtPercentile(p)) / 1000
	}
	return out
}

// LatencyOf reduces a histogram of µs and the exact minimum, maximum and
// sum (ms) of its events to a LatencySummary with SummaryPercentiles and
// the extra ones asked for. A histogram bucket reports its upper edge, so
// percentiles are held between the exact minimum and maximum.
func LatencyOf(h *hdr.Histogram, minMS, maxMS, sumMS float64, events int64, extra ...float64) LatencySummary {
	s := LatencySummary{MinMS: minMS, MaxMS: maxMS, SumMS: sumMS,
		Percentiles: PercentilesOf(h, append(append([]float64(nil), SummaryPercentiles...), extra...))}
	if events > 0 {
		s.AvgMS = sumMS / float64(events)
		for k, v := range s.Percentiles {
			s.Percentiles[k] = math.Min(math.Max(v, minMS), maxMS)
		}
	}
	return s
}

// ReadLatency reads a step folder's latency.hlog back: every interval
// histogram, untagged and tagged, with Start and End counted from the
// step's start (sum is the folder's summary: its Started, and its Format,
// which says how an older log counts its times; see hlogReader). A folder
// without one has none.
func ReadLatency(dir string, sum *Summary) ([]LatencyInterval, error) {
	var out []LatencyInterval
	err := scanHlog(dir, sum, nil, func(tag string, start, end time.Duration, h *hdr.Histogram, base int64) {
		h.SetTag(tag)
		h.SetStartTimeMs(base + start.Milliseconds())
		h.SetEndTimeMs(base + end.Milliseconds())
		out = append(out, LatencyInterval{Start: start, End: end, Tag: tag, Histogram: h})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// scanHlog decodes a step folder's latency.hlog one histogram at a time,
// in order, handing each line that keep takes (nil: every one) to visit
// with the log's base time (ms); a folder without one has none.
func scanHlog(dir string, sum *Summary, keep func(tag string, start, end time.Duration) bool,
	visit func(tag string, start, end time.Duration, h *hdr.Histogram, base int64)) error {
	r, err := openHlog(dir, sum, nil)
	if err != nil || r == nil {
		return err
	}
	defer r.close()
	for {
		tag, start, end, payload, ok, err := r.nextLine()
		if err != nil {
			return fmt.Errorf("%w: %s/%s: %v", ErrNotResults, dir, LatencyFile, err)
		}
		if !ok {
			return nil
		}
		if keep != nil && !keep(tag, start, end) {
			continue
		}
		h, err := hdr.Decode(payload)
		if err != nil {
			return fmt.Errorf("%w: %s/%s: %v", ErrNotResults, dir, LatencyFile, err)
		}
		visit(tag, start, end, h, r.base)
	}
}

// emptyLike makes an empty histogram with h's geometry.
func emptyLike(h *hdr.Histogram) *hdr.Histogram {
	return hdr.New(h.LowestTrackableValue(), h.HighestTrackableValue(), int(h.SignificantFigures()))
}

// KindPoint is one report interval of one kind of event: its end (seconds
// from the step's start), its events a minute and its latency (ms).
type KindPoint struct {
	Time, PerMinute, P95, P99 float64
}

// ReadKindSeries reads one kind of event's intervals from a step folder's
// latency.hlog (its KindTag histograms), one histogram at a time: a
// six-hour step's log is not held in memory. A folder without a log, or
// a log without the kind, has none.
func ReadKindSeries(dir string, sum *Summary, kind string) ([]KindPoint, error) {
	want := KindTag(kind)
	var out []KindPoint
	err := scanHlog(dir, sum, func(tag string, start, end time.Duration) bool { return tag == want && end > start },
		func(_ string, start, end time.Duration, h *hdr.Histogram, _ int64) {
			p := KindPoint{Time: end.Seconds(), PerMinute: float64(h.TotalCount()) / (end - start).Minutes()}
			if h.TotalCount() > 0 {
				p.P95, p.P99 = float64(h.ValueAtQuantile(95))/1000, float64(h.ValueAtQuantile(99))/1000
			}
			out = append(out, p)
		})
	if err != nil {
		return nil, err
	}
	return out, nil
}
