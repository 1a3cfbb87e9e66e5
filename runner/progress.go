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
	// StepStarted reports a top-level step; n counts them from 1.
	StepStarted(n int, id, builtin, text string)
	// StepEnded reports its outcome: ok, error or cancelled.
	StepEnded(id, outcome string)
	// Benchmark reports the live numbers of the running benchmark.
	Benchmark(b BenchmarkStatus)
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
