package bench

import (
	"bytes"
	"context"
	"errors"
	"io"
	"time"

	"github.com/starbench/starbench/runner/results"
)

// Step is one benchmark step as a workload family hands it to RunStep:
// how to run its workload on the engine, and what to record with it.
// RunStep is the one place that turns an engine run into a step folder;
// the plan modules and the command line of every family go through it.
type Step struct {
	// Run runs the workload on the engine, printing the family's text
	// (sysbench's layout for sysbench) to r.Output and handing every
	// interval to r.Sinks as well as to its own, its engine run starting
	// at r.Start. It returns what the engine measured, also when it fails
	// (nil when nothing ran).
	Run func(ctx context.Context, r StepRun) (*Result, error)
	// Start, when set, holds the step's load until the other steps that
	// share it are ready (RunTogether sets it for its parts).
	Start StartBarrier

	Workload   string            // for progress
	Threads    int               // for progress
	Total      float64           // planned seconds (0: bounded by events), for progress
	Percentile float64           // the family's report percentile, kept in the summary
	Seed       int64             // the step's seed, kept in the summary
	Tags       map[string]string // kept in the summary, for reports and compare
	Options    map[string]any    // the family's options, kept in the summary
	Target     string            // where it ran (password redacted), kept in the summary
	Segment    string            // "i/n" when the step is a segment of a load, kept in the summary
	OpenLoop   bool              // the run has a rate: its scheduler wants a P of its own (RunTogether)
	LongWaits  bool              // its events wait seconds on the server (Options.LongWaits, for RunTogether)
	Profile    LoadProfile       // the load profile the family's run follows (StepRun.Profile); no stages: steady

	// Annotate, when set, adds the family's own figures to the summary
	// (TPC-C's tpmC) before it is written.
	Annotate func(sum *results.Summary, res *Result)

	Output   io.Writer           // where the text goes live, besides output.txt (nil: only there)
	Progress func(Progress)      // live progress: every interval and once at the end (nil: none)
	Sinks    []Sink              // given every interval, besides Progress (an agent streams them)
	Hooks    []Hook              // started before the run and stopped after it, in order
	Redact   func(string) string // applied to output.txt and the recorded error (nil: none)

	// ClockOffset is how far this host's clock is ahead of the clock the
	// step's times are kept in (an agent's, against its coordinator's):
	// the recorded start time is moved back by it.
	ClockOffset time.Duration

	// Remote, when set, runs the step somewhere else (an agent on a
	// client host): RunStep hands it the step and the folder to write, and
	// it returns the step's summary (nil when nothing ran) and error. It
	// honours Start, Output, Progress and Redact as RunStep does.
	Remote func(ctx context.Context, dir string, s Step) (*results.Summary, error)
}

// ErrBadInput marks a step's error that is the plan's, not the run's
// (exit 2): what it asked for cannot run, such as a part for a client host
// no binary at hand is for. errors.Is finds it in BadInput's errors.
var ErrBadInput = errors.New("bad input")

// BadInput marks err as ErrBadInput, its message unchanged.
func BadInput(err error) error { return badInput{err} }

type badInput struct{ error }

func (e badInput) Unwrap() error        { return e.error }
func (e badInput) Is(target error) bool { return target == ErrBadInput }

// StepRun is what RunStep hands a step's Run.
type StepRun struct {
	Output io.Writer    // the family's text: shown live and kept as output.txt
	Sinks  []Sink       // to be given every interval, besides the family's own
	Start  StartBarrier // for Options.Start: nil to start at once
	// Profile is the step's load profile (no stages: the family's steady
	// load), for WithStages.
	Profile LoadProfile
}

// Progress is a step's live state for progress views.
type Progress struct {
	Workload   string
	Threads    int
	ElapsedS   float64
	TotalS     float64
	TPS        float64
	P99MS      float64
	Errors     int64
	Reconnects int64
	Final      bool   // the step ended; the figures are its summary's
	Client     string // where an agent runs the step ("" for this process)
	// The last interval's other latency percentiles (ms), for live
	// metrics.
	P50MS, P95MS, MaxMS float64
	// TotalEvents, TotalQueries and ErrorsByCode count since the step
	// started (a final progress: the summary's), for live metrics.
	TotalEvents, TotalQueries int64
	ErrorsByCode              map[string]int64
	// Parts are each part's progress, for a together step (RunTogether);
	// the figures above are their sums (P99MS their highest).
	Parts []Progress
}

// Hook runs around a step's engine run (a telemetry sampler, say): Start
// before the workload starts, given the step's folder to write into, and
// Stop after it ended, whether it succeeded or not.
type Hook interface {
	Start(ctx context.Context, dir string) error
	Stop(ctx context.Context) error
}

// Annotator is a hook that adds what it recorded to the step's summary
// (the telemetry series), after it stopped and before the summary is
// written.
type Annotator interface {
	Annotate(sum *results.Summary)
}

// withHooks starts the hooks in order, runs run when all started, and
// stops those that started in reverse order; a hook's error is the run's.
func withHooks(ctx context.Context, dir string, hooks []Hook, run func() error) error {
	started := 0
	var err error
	for _, h := range hooks {
		if err = h.Start(ctx, dir); err != nil {
			break
		}
		started++
	}
	if err == nil {
		err = run()
	}
	for i := started - 1; i >= 0; i-- {
		if stopErr := hooks[i].Stop(context.WithoutCancel(ctx)); stopErr != nil {
			err = errors.Join(err, stopErr)
		}
	}
	return err
}

// annotate has the hooks that record something add it to sum.
func annotate(sum *results.Summary, hooks []Hook) {
	for _, h := range hooks {
		if a, ok := h.(Annotator); ok {
			a.Annotate(sum)
		}
	}
}

type startKey struct{}

type progressKey struct{}

// WithProgress makes RunStep hand the live progress of a step that has
// no Progress of its own to progress: a family command's live metrics
// (--metrics-addr), set by the command that runs it.
func WithProgress(ctx context.Context, progress func(Progress)) context.Context {
	return context.WithValue(ctx, progressKey{}, progress)
}

// WithStart makes RunStep hold the load of a step that has no Start of
// its own on start: the start of a segment of a load run from several
// machines (--start-at, --start-barrier), set by the command that runs it.
func WithStart(ctx context.Context, start StartBarrier) context.Context {
	return context.WithValue(ctx, startKey{}, start)
}

// RunStep runs a step and writes its folder dir: summary.json (with the
// step's tags, options, seed, target and status), intervals.csv,
// latency.hlog and output.txt, also when the run failed or was
// interrupted, so that what it measured is kept. It returns the summary
// and the engine's result (both nil when nothing ran) and the run's error.
func RunStep(ctx context.Context, dir string, s Step) (*results.Summary, *Result, error) {
	redact := s.Redact
	if redact == nil {
		redact = func(t string) string { return t }
	}
	var text bytes.Buffer
	w := io.Writer(&text)
	if s.Output != nil {
		w = io.MultiWriter(s.Output, &text)
	}
	if s.Start == nil {
		s.Start, _ = ctx.Value(startKey{}).(StartBarrier)
	}
	if s.Progress == nil {
		s.Progress, _ = ctx.Value(progressKey{}).(func(Progress))
	}
	if s.Remote != nil {
		var sum *results.Summary
		err := withHooks(ctx, dir, s.Hooks, func() (err error) {
			sum, err = s.Remote(ctx, dir, s)
			return err
		})
		if sum != nil && len(s.Hooks) > 0 {
			annotate(sum, s.Hooks)
			err = errors.Join(err, results.FinishStep(dir, sum, nil))
		}
		return sum, nil, err
	}
	sinks := append([]Sink(nil), s.Sinks...)
	if s.Progress != nil {
		var events, queries int64 // sinks are called one interval at a time
		sinks = append(sinks, SinkFunc(func(iv *Interval) {
			events, queries = events+iv.Counts.Events, queries+iv.Counts.Queries()
			p := intervalProgress(&s, iv)
			p.TotalEvents, p.TotalQueries = events, queries
			s.Progress(p)
		}))
	}
	var res *Result
	runErr := withHooks(ctx, dir, s.Hooks, func() (err error) {
		res, err = s.Run(ctx, StepRun{Output: w, Sinks: sinks, Start: s.Start, Profile: s.Profile})
		return err
	})
	if res == nil {
		return nil, nil, runErr
	}
	res.StartTime = res.StartTime.Add(-s.ClockOffset)
	sum := Summarize(res, s.Percentile)
	sum.Tags, sum.Options, sum.Seed, sum.Target, sum.Segment = s.Tags, s.Options, s.Seed, s.Target, s.Segment
	sum.IntervalSeconds, sum.PlannedSeconds = res.Interval.Seconds(), s.Total
	if s.Annotate != nil {
		s.Annotate(sum, res)
	}
	annotate(sum, s.Hooks)
	if runErr != nil {
		sum.Status, sum.Error = results.StatusFailed, redact(runErr.Error())
	}
	if s.Progress != nil {
		s.Progress(FinalProgress(s.Workload, s.Threads, s.Total, sum))
	}
	if err := WriteResults(dir, res, sum, []byte(redact(text.String()))); err != nil {
		return sum, res, errors.Join(runErr, err)
	}
	return sum, res, runErr
}

func intervalProgress(s *Step, iv *Interval) Progress {
	p := Progress{Workload: s.Workload, Threads: s.Threads, ElapsedS: iv.End.Seconds(), TotalS: s.Total,
		TPS: iv.Rate(iv.Counts.Events), Errors: iv.Counts.Errors, Reconnects: iv.Counts.Reconnects, ErrorsByCode: iv.ErrorCodes}
	if iv.Latency.TotalCount() > 0 {
		ms := func(pct float64) float64 { return float64(iv.Latency.ValueAtPercentile(pct)) / 1000 }
		p.P50MS, p.P95MS, p.P99MS, p.MaxMS = ms(50), ms(95), ms(99), float64(iv.Latency.Max())/1000
	}
	return p
}

// FinalProgress is the progress of a step that ended with summary sum:
// its figures for the whole step.
func FinalProgress(workload string, threads int, total float64, sum *results.Summary) Progress {
	return Progress{Workload: workload, Threads: threads, ElapsedS: sum.Seconds, TotalS: total, TPS: sum.TPS,
		P50MS: sum.Latency.Percentiles["50"], P95MS: sum.Latency.Percentiles["95"], P99MS: sum.Latency.Percentiles["99"],
		MaxMS: sum.Latency.MaxMS, Errors: sum.Errors, Reconnects: sum.Reconnects, Final: true,
		TotalEvents: sum.Events, TotalQueries: sum.Queries, ErrorsByCode: sum.ErrorsByCode}
}
