package runner

import (
	"io"
	"strings"
)

// Progress receives what a live view shows. The runner calls it from the
// plan's thread; builtins report benchmark numbers from their ticker.
type Progress interface {
	// Line prints a line of plan output (print()) above the live view.
	Line(text string)
	StepObserver
}

// StepObserver follows a run's top-level steps and its benchmarks' live
// numbers: the live view, and live metrics (Options.Observer).
type StepObserver interface {
	// StepStarted reports a top-level step; n counts them from 1.
	StepStarted(n int, id, builtin, text string)
	// StepEnded reports its outcome: ok, error or cancelled.
	StepEnded(id, outcome string)
	// Benchmark reports the live numbers of the running benchmark.
	Benchmark(b BenchmarkStatus)
}

// observers are the live view and the observer, those set.
func (r *Run) observers() []StepObserver {
	var out []StepObserver
	if r.opts.Progress != nil {
		out = append(out, r.opts.Progress)
	}
	if r.opts.Observer != nil {
		out = append(out, r.opts.Observer)
	}
	return out
}

// BenchmarkStatus is a snapshot of a running benchmark step.
type BenchmarkStatus struct {
	Workload   string
	Threads    int
	ElapsedS   float64
	TotalS     float64 // 0 when bounded by events only
	TPS        float64
	P99MS      float64
	Errors     int64
	Reconnects int64
	Final      bool   // the whole step's numbers, sent once at its end
	Client     string // the client host an agent runs the step on ("" for this process)
	// The last interval's other latency percentiles (ms); at the end the
	// step's.
	P50MS, P95MS, MaxMS float64
	// TotalEvents, TotalQueries and ErrorsByCode count since the step
	// started.
	TotalEvents, TotalQueries int64
	ErrorsByCode              map[string]int64
	// Parts are each part's numbers for a step of several loads run at
	// once (bench.together); the figures above are their sums.
	Parts []BenchmarkStatus
}

// showsOutput reports whether builtin output (sysbench's report text)
// goes to the terminal: only in plain mode.
func (r *Run) showsOutput() bool { return r.opts.Progress == nil && !r.opts.Quiet }

// logOnly writes builtin output to output.log only, line by line.
type logOnly struct {
	r       *Run
	pending []byte
}

func (o *logOnly) Write(p []byte) (int, error) {
	o.pending = append(o.pending, o.r.redact(string(p))...)
	for {
		s := string(o.pending)
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			break
		}
		o.r.appendLog(s[:i])
		o.pending = o.pending[i+1:]
	}
	return len(p), nil
}

var _ io.Writer = (*logOnly)(nil)
