package telemetry

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path"
	"path/filepath"
	"sync"
	"time"

	"github.com/starbench/starbench/runner/results"
)

// DefaultInterval is how often a source is read when the step says no
// report interval.
const DefaultInterval = time.Second

// Recorder samples its sources while one benchmark step runs: a
// bench.Hook, started before the step's load and stopped after it. Each
// source is read at Start, every Interval, and once more at Stop; each
// point is written to the source's series file as soon as it is read, so
// an interrupted step keeps what was sampled. Failures are recorded in
// the series, never returned.
type Recorder struct {
	Sources  []Source
	Interval time.Duration // 0: DefaultInterval
	// Redact masks secrets in what a failed reading's error says before
	// it is written (nil: none).
	Redact func(string) string

	stop   chan struct{}
	wg     sync.WaitGroup
	series []*series
}

// series is one source's recording during a step.
type series struct {
	src    Source
	rel    string   // the file, relative to the step folder
	file   *os.File // nil when it could not be made
	rate   rater
	redact func(string) string

	points, failed int
	lastErr        string
	sum, max       map[string]float64
	count          map[string]int
}

// Start begins sampling into dir/telemetry. It never fails: a source
// whose file cannot be made is recorded as failed.
func (r *Recorder) Start(ctx context.Context, dir string) error {
	every := r.Interval
	if every <= 0 {
		every = DefaultInterval
	}
	r.stop = make(chan struct{})
	folder := filepath.Join(dir, results.TelemetryDir)
	mkErr := os.MkdirAll(folder, 0o755)
	ctx = context.WithoutCancel(ctx) // the last reading is taken after an interrupted step, too
	for _, src := range r.Sources {
		s := &series{src: src, rel: path.Join(results.TelemetryDir, src.Name()+".jsonl"),
			sum: map[string]float64{}, max: map[string]float64{}, count: map[string]int{}}
		if d, ok := src.(Deriver); ok {
			s.rate.derive = d.Derive
		}
		s.redact = r.Redact
		if s.redact == nil {
			s.redact = func(t string) string { return t }
		}
		r.series = append(r.series, s)
		err := mkErr
		if err == nil {
			s.file, err = os.Create(filepath.Join(dir, filepath.FromSlash(s.rel)))
		}
		if err != nil {
			s.failed, s.lastErr = 1, s.redact(err.Error())
			continue
		}
	}
	// The first readings are the baselines of the first interval: taken
	// before the load starts (a host's agent starts with its first).
	var first sync.WaitGroup
	for _, s := range r.series {
		if s.file != nil {
			first.Go(func() { s.sample(ctx, firstTimeout) })
		}
	}
	first.Wait()
	for _, s := range r.series {
		if s.file != nil {
			r.wg.Go(func() { s.loop(ctx, every, r.stop) })
		}
	}
	return nil
}

// firstTimeout bounds a source's first reading of a step, which may start
// what reads it (an agent on a host, installed over SSH).
const firstTimeout = 90 * time.Second

// Stop takes each source's last reading and closes the series files.
func (r *Recorder) Stop(context.Context) error {
	if r.stop == nil {
		return nil
	}
	close(r.stop)
	r.wg.Wait()
	for _, s := range r.series {
		if s.file != nil {
			_ = s.file.Close()
		}
	}
	return nil
}

// Annotate adds the series to the step's summary.
func (r *Recorder) Annotate(sum *results.Summary) {
	for _, s := range r.series {
		ts := results.TelemetrySeries{Name: s.src.Name(), Kind: s.src.Kind(), Source: s.src.Source(), File: s.rel,
			Points: s.points, Failed: s.failed, Error: s.lastErr}
		if len(s.count) > 0 {
			ts.Avg, ts.Max = map[string]float64{}, map[string]float64{}
			for name, n := range s.count {
				ts.Avg[name], ts.Max[name] = s.sum[name]/float64(n), s.max[name]
			}
		}
		ts.Totals = s.rate.totals
		sum.Telemetry = append(sum.Telemetry, ts)
	}
}

// loop reads the source every interval and when stopped.
func (s *series) loop(ctx context.Context, every time.Duration, stop <-chan struct{}) {
	timeout := max(every, 2*time.Second)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			s.sample(ctx, timeout)
		case <-stop:
			s.sample(ctx, timeout)
			return
		}
	}
}

// sample reads the source once and writes the point it makes.
func (s *series) sample(ctx context.Context, timeout time.Duration) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	reading, err := s.src.Read(ctx)
	if err != nil {
		s.failed++
		s.lastErr = s.redact(err.Error())
		s.write(results.TelemetryPoint{Time: time.Now().UTC(), Error: s.lastErr})
		return
	}
	values, ok := s.rate.next(reading)
	if !ok {
		return
	}
	for name, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			delete(values, name)
			continue
		}
		s.sum[name] += v
		s.count[name]++
		if m, seen := s.max[name]; !seen || v > m {
			s.max[name] = v
		}
	}
	s.points++
	s.write(results.TelemetryPoint{Time: reading.Time.UTC(), Values: values})
}

func (s *series) write(p results.TelemetryPoint) {
	line, err := json.Marshal(p)
	if err != nil {
		s.lastErr = fmt.Sprintf("a point does not encode: %v", err)
		return
	}
	_, _ = s.file.Write(append(line, '\n')) // a whole line at once: an interrupted step keeps every point read
}
