// Package telemetry records what the servers and hosts were doing while a
// benchmark step ran: samplers (Source) that read a server's status
// variables, a Prometheus text endpoint or a host's /proc, and the
// Recorder, a step hook that reads each source every interval from the
// step's start to its end and writes one series per source into the
// step's folder (telemetry/NAME.jsonl), counters as rates per second and
// histograms as quantiles of each interval. A source that fails marks its
// series and never fails the step. Nothing here imports Starlark.
package telemetry

import (
	"context"
	"math"
	"sort"
	"strconv"
	"time"
)

// Reading is what a source read at one time: cumulative counters (rated
// per second between readings), gauges (kept as they are) and cumulative
// histograms (their quantiles over each interval).
type Reading struct {
	Time       time.Time            `json:"time"`
	Counters   map[string]float64   `json:"counters,omitempty"`
	Gauges     map[string]float64   `json:"gauges,omitempty"`
	Histograms map[string]Histogram `json:"histograms,omitempty"`
}

// Histogram is a cumulative histogram: Counts[i] observations at or under
// Bounds[i] (ascending, finite), and Counts[len(Bounds)] all of them.
type Histogram struct {
	Bounds []float64 `json:"bounds"`
	Counts []float64 `json:"counts"`
}

// Source is one thing a sampler reads. Read may be called from several
// steps' recorders at once (steps running in parallel).
type Source interface {
	// Name names the series: a file name's worth of letters, digits, '-',
	// '_' and '.'.
	Name() string
	Kind() string   // status, prometheus, host
	Source() string // what it reads, for the record (never a password)
	Read(ctx context.Context) (Reading, error)
}

// Deriver is a source that adds figures of its own to each point from
// the rates and gauges (a host's CPU busy percentage from its CPU seconds).
type Deriver interface {
	Derive(values map[string]float64)
}

// Quantiles are the quantiles kept of every histogram, as NAME:pQ.
var Quantiles = []float64{0.5, 0.99}

// rater turns consecutive readings of a source into points.
type rater struct {
	prev    Reading
	hasPrev bool
	derive  func(map[string]float64)
	totals  map[string]float64 // each counter's growth since the first reading
}

// next returns the values of the interval that ends with r (false for the
// first reading, which only starts one).
func (t *rater) next(r Reading) (map[string]float64, bool) {
	prev, had := t.prev, t.hasPrev
	t.prev, t.hasPrev = r, true
	if !had {
		return nil, false
	}
	dt := r.Time.Sub(prev.Time).Seconds()
	if dt <= 0 {
		return nil, false
	}
	values := map[string]float64{}
	for name, v := range r.Gauges {
		values[name] = v
	}
	for name, v := range r.Counters {
		if p, ok := prev.Counters[name]; ok && v >= p { // a counter that went down was reset: no rate
			values[name+"/s"] = (v - p) / dt
			if t.totals == nil {
				t.totals = map[string]float64{}
			}
			t.totals[name] += v - p
		}
	}
	for name, h := range r.Histograms {
		p, ok := prev.Histograms[name]
		if !ok || len(p.Counts) != len(h.Counts) {
			continue
		}
		delta := Histogram{Bounds: h.Bounds, Counts: make([]float64, len(h.Counts))}
		for i := range h.Counts {
			delta.Counts[i] = h.Counts[i] - p.Counts[i]
		}
		total := delta.Counts[len(delta.Counts)-1]
		if total < 0 {
			continue
		}
		values[name+":count/s"] = total / dt
		if total == 0 {
			continue
		}
		for _, q := range Quantiles {
			values[name+":"+QuantileName(q)] = delta.Quantile(q)
		}
	}
	if t.derive != nil {
		t.derive(values)
	}
	return values, true
}

// QuantileName is how a quantile is named in a series: 0.99 is "p99",
// 0.999 "p99.9".
func QuantileName(q float64) string {
	return "p" + strconv.FormatFloat(q*100, 'f', -1, 64)
}

// Quantile is the q-quantile of the observations, interpolated linearly
// within the bucket it falls in (from 0 for the first bucket), as
// Prometheus' histogram_quantile does; the highest finite bound when it
// falls in the last, unbounded one; NaN when there are none.
func (h Histogram) Quantile(q float64) float64 {
	n := len(h.Counts)
	if n == 0 || n != len(h.Bounds)+1 || h.Counts[n-1] <= 0 {
		return math.NaN()
	}
	rank := q * h.Counts[n-1]
	i := sort.Search(n, func(i int) bool { return h.Counts[i] >= rank })
	if i >= len(h.Bounds) {
		if len(h.Bounds) == 0 {
			return math.NaN()
		}
		return h.Bounds[len(h.Bounds)-1]
	}
	lower, below := 0.0, 0.0
	if i > 0 {
		lower, below = h.Bounds[i-1], h.Counts[i-1]
	}
	in := h.Counts[i] - below
	if in <= 0 {
		return h.Bounds[i]
	}
	return lower + (h.Bounds[i]-lower)*(rank-below)/in
}
