package results

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
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
// histogram, untagged and tagged, with Start and End counted from started
// (the step's start, its summary's Started). A folder without one has
// none.
func ReadLatency(dir string, started time.Time) ([]LatencyInterval, error) {
	f, err := os.Open(filepath.Join(dir, LatencyFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := hdr.NewHistogramLogReader(f)
	base := started.UnixMilli()
	var out []LatencyInterval
	for {
		h, err := r.NextIntervalHistogram()
		if err == io.EOF || (err == nil && h == nil) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %s/%s: %v", ErrNotResults, dir, LatencyFile, err)
		}
		out = append(out, LatencyInterval{
			Start: time.Duration(h.StartTimeMs()-base) * time.Millisecond,
			End:   time.Duration(h.EndTimeMs()-base) * time.Millisecond,
			Tag:   h.Tag(), Histogram: h,
		})
	}
}

// emptyLike makes an empty histogram with h's geometry.
func emptyLike(h *hdr.Histogram) *hdr.Histogram {
	return hdr.New(h.LowestTrackableValue(), h.HighestTrackableValue(), int(h.SignificantFigures()))
}
