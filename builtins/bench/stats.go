package bench

import (
	"sync"
	"sync/atomic"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Latency histograms count microseconds from 1 µs to one hour with three
// significant figures.
const (
	histLowest  = 1
	histHighest = int64(time.Hour / time.Microsecond)
	histSigFigs = 3
)

// NewHistogram makes a dense latency histogram with the engine's geometry.
func NewHistogram() *hdr.Histogram { return hdr.New(histLowest, histHighest, histSigFigs) }

func micros(d time.Duration) int64 {
	us := int64(d / time.Microsecond)
	switch {
	case us < histLowest:
		return histLowest
	case us > histHighest:
		return histHighest
	}
	return us
}

// Counts are the query and event counters of a worker or an interval.
type Counts struct {
	Events     int64 `json:"events"`
	Reads      int64 `json:"reads"`
	Writes     int64 `json:"writes"`
	Others     int64 `json:"others"`
	Errors     int64 `json:"errors"` // ignored errors
	Reconnects int64 `json:"reconnects"`
}

// Queries is reads + writes + others.
func (c Counts) Queries() int64 { return c.Reads + c.Writes + c.Others }

func (c Counts) minus(o Counts) Counts {
	return Counts{c.Events - o.Events, c.Reads - o.Reads, c.Writes - o.Writes, c.Others - o.Others, c.Errors - o.Errors, c.Reconnects - o.Reconnects}
}

// workerStats is one worker's handle: its own histograms and counters.
// The worker writes; the ticker reads and resets the histograms.
type workerStats struct {
	reads, writes, others atomic.Int64 // updated per query by the counting session

	late atomic.Int64 // events started late (open loop)

	mu         sync.Mutex
	hist       recorder // latencies since the last tick
	service    recorder // service times since the last tick; open loop only, else nil
	events     int64
	errors     int64
	reconnects int64
	errorCodes map[string]int64
	errorKinds map[string]int64
	busy       time.Duration // time spent in events, for thread fairness
	minLat     time.Duration
	maxLat     time.Duration
	sumLat     time.Duration
	kinds      []kindStats // by kind of event, for Kinded workloads
	_          [64]byte    // keep workers' hot fields on separate cache lines
}

// kindStats is one kind of event's share of a worker's events.
type kindStats struct {
	events, errors         int64
	hist                   recorder // latencies since the last tick
	sumLat, minLat, maxLat time.Duration
}

// KindCounts are one kind's events and ignored errors.
type KindCounts struct {
	Events int64 `json:"events"`
	Errors int64 `json:"errors"`
}

// recorder is a worker's histogram: dense (*hdr.Histogram, ~190 KB,
// cheapest to record into) or packed (*hdr.PackedHistogram, sized by what
// it holds, for runs with thousands of workers).
type recorder interface {
	RecordValue(v int64) error
	Reset()
}

// denseHistogramThreads is the most workers a run gives dense histograms:
// at ~190 KB each (two under a rate), 256 of them take about 50 MB.
const denseHistogramThreads = 256

func newRecorder(dense bool) recorder {
	if dense {
		return NewHistogram()
	}
	return hdr.NewPacked(histLowest, histHighest, histSigFigs)
}

// mergeInto adds what r holds to dst.
func mergeInto(dst *hdr.Histogram, r recorder) {
	switch r := r.(type) {
	case *hdr.Histogram:
		dst.Merge(r)
	case *hdr.PackedHistogram:
		r.MergeInto(dst)
	}
}

func newWorkerStats(open, dense bool, kinds int) *workerStats {
	w := &workerStats{hist: newRecorder(dense), errorCodes: map[string]int64{}, errorKinds: map[string]int64{}}
	if open {
		w.service = newRecorder(dense)
	}
	w.kinds = make([]kindStats, kinds)
	for i := range w.kinds {
		w.kinds[i].hist = newRecorder(dense)
	}
	return w
}

// recordEvent records an event's latency (from its intended start) and its
// service time (from its actual start; the same in a closed loop), and
// for a Kinded workload the latency of its kind (-1: none).
func (w *workerStats) recordEvent(lat, service time.Duration, kind int) {
	w.mu.Lock()
	if kind >= 0 && kind < len(w.kinds) {
		k := &w.kinds[kind]
		_ = k.hist.RecordValue(micros(lat))
		k.events++
		k.sumLat += lat
		if k.minLat == 0 || lat < k.minLat {
			k.minLat = lat
		}
		k.maxLat = max(k.maxLat, lat)
	}
	_ = w.hist.RecordValue(micros(lat))
	if w.service != nil {
		_ = w.service.RecordValue(micros(service))
	}
	w.events++
	w.busy += lat
	w.sumLat += lat
	if w.minLat == 0 || lat < w.minLat {
		w.minLat = lat
	}
	if lat > w.maxLat {
		w.maxLat = lat
	}
	w.mu.Unlock()
}

// recordError counts an ignored error by MySQL code, by statement kind
// and, for a Kinded workload, by the kind of event it broke (-1: none).
func (w *workerStats) recordError(code, stmtKind string, lat time.Duration, kind int) {
	w.mu.Lock()
	w.errors++
	if kind >= 0 && kind < len(w.kinds) {
		w.kinds[kind].errors++
	}
	w.errorCodes[code]++
	if stmtKind != "" {
		w.errorKinds[stmtKind]++
	}
	w.busy += lat
	w.mu.Unlock()
}

// addErrorCodes adds the worker's ignored errors by code to into.
func (w *workerStats) addErrorCodes(into map[string]int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for code, n := range w.errorCodes {
		into[code] += n
	}
}

// reset forgets everything (the end of a warmup).
func (w *workerStats) reset() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.hist.Reset()
	if w.service != nil {
		w.service.Reset()
	}
	w.reads.Store(0)
	w.writes.Store(0)
	w.others.Store(0)
	w.late.Store(0)
	w.events, w.errors, w.reconnects = 0, 0, 0
	w.errorCodes, w.errorKinds = map[string]int64{}, map[string]int64{}
	w.busy, w.minLat, w.maxLat, w.sumLat = 0, 0, 0, 0
	for i := range w.kinds {
		k := &w.kinds[i]
		k.hist.Reset()
		k.events, k.errors, k.sumLat, k.minLat, k.maxLat = 0, 0, 0, 0, 0
	}
}

func (w *workerStats) recordReconnect() {
	w.mu.Lock()
	w.reconnects++
	w.mu.Unlock()
}

// drain moves the worker's latencies into dst (service times, which only
// open-loop runs keep, into svc; each kind's into kinds) and returns its
// counters, adding its kinds' to kindCounts.
func (w *workerStats) drain(dst, svc *hdr.Histogram, kinds []*hdr.Histogram, kindCounts []KindCounts) Counts {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := range w.kinds {
		k := &w.kinds[i]
		if i < len(kinds) {
			mergeInto(kinds[i], k.hist)
			kindCounts[i].Events += k.events
			kindCounts[i].Errors += k.errors
		}
		k.hist.Reset()
	}
	mergeInto(dst, w.hist)
	w.hist.Reset()
	if w.service != nil {
		mergeInto(svc, w.service)
		w.service.Reset()
	}
	return Counts{
		Events: w.events, Reads: w.reads.Load(), Writes: w.writes.Load(), Others: w.others.Load(),
		Errors: w.errors, Reconnects: w.reconnects,
	}
}
