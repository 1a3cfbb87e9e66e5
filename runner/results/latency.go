package results

import (
	"fmt"
	"math"
	"sort"

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
	r, err := openHlog(dir, sum, nil)
	if err != nil || r == nil {
		return nil, err
	}
	defer r.close()
	var out []LatencyInterval
	for {
		tag, start, end, payload, ok, err := r.nextLine()
		if err != nil {
			return nil, fmt.Errorf("%w: %s/%s: %v", ErrNotResults, dir, LatencyFile, err)
		}
		if !ok {
			return out, nil
		}
		h, err := hdr.Decode(payload)
		if err != nil {
			return nil, fmt.Errorf("%w: %s/%s: %v", ErrNotResults, dir, LatencyFile, err)
		}
		h.SetTag(tag)
		h.SetStartTimeMs(r.base + start.Milliseconds())
		h.SetEndTimeMs(r.base + end.Milliseconds())
		out = append(out, LatencyInterval{Start: start, End: end, Tag: tag, Histogram: h})
	}
}

// emptyLike makes an empty histogram with h's geometry.
func emptyLike(h *hdr.Histogram) *hdr.Histogram {
	return hdr.New(h.LowestTrackableValue(), h.HighestTrackableValue(), int(h.SignificantFigures()))
}
