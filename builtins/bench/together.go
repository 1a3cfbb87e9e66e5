package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/starbench/starbench/internal/mysqlconn"
	"github.com/starbench/starbench/runner/results"
)

// Part is one load of a together step: its name (the folder
// parts/<k>-<name>) and its step as the family makes it.
type Part struct {
	Name string
	Step Step
}

// Part failure policies of a together step.
const (
	OnPartFailureFail     = "fail"     // a failed part stops the others and fails the step
	OnPartFailureContinue = "continue" // the others run on; the step keeps what every part measured
)

// Together is a step made of several loads run at once.
type Together struct {
	Parts         []Part
	OnPartFailure string            // OnPartFailureFail ("" too) or OnPartFailureContinue
	Seed          int64             // the step's seed, kept in the merged summary
	Tags          map[string]string // added to the tags the parts share

	Output   io.Writer           // the parts' text, each line prefixed with its part (nil: none)
	Progress func(Progress)      // the whole step's progress, with each part's in Parts
	Redact   func(string) string // applied to the text and errors kept (nil: none)
	Hooks    []Hook              // around the whole step, as Step's (telemetry of the step)
}

// RunTogether runs the parts at once, each into its own step folder
// dir/parts/<k>-<name>/ (written as RunStep writes one), and writes the
// exact merge of them into dir (results.Merge). Every part connects and
// prepares first; then all start their load on one barrier, so their
// first intervals begin within milliseconds of each other, and, running
// for the same time, stop together. A part that fails stops the others
// (their partial results are kept) and fails the step, naming the part,
// unless OnPartFailure is "continue". It returns the merged summary (nil
// when no part ran) and the step's error.
func RunTogether(ctx context.Context, dir string, t Together) (*results.Summary, error) {
	if len(t.Parts) == 0 {
		return nil, fmt.Errorf("together: no parts")
	}
	redact := t.Redact
	if redact == nil {
		redact = func(s string) string { return s }
	}
	threads, spare, longWaits := 0, 0, false
	for _, p := range t.Parts {
		if p.Step.Remote != nil {
			continue // its threads are an agent's
		}
		threads += p.Step.Threads
		if p.Step.OpenLoop {
			spare = 1 // as Run gives an open-loop run: for the schedulers
		}
		longWaits = longWaits || p.Step.LongWaits
	}
	// The sockets are chosen, and Ps reserved, for all parts at once.
	ctx, release := mysqlconn.ForWorkers(ctx, threads, spare, longWaits)
	defer release()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	gate := &startGate{waiting: len(t.Parts), open: make(chan struct{}), ctx: ctx}
	// A step that is one segment of a load run from several machines
	// meets the other segments once all its parts are ready.
	gate.outer, _ = ctx.Value(startKey{}).(StartBarrier)
	for _, p := range t.Parts {
		if p.Step.Remote != nil {
			gate.lead = RemoteStartLead // time for the start to reach the other hosts
		}
	}
	live := &liveParts{progress: t.Progress, parts: make([]Progress, len(t.Parts))}
	var outMu sync.Mutex
	errs := make([]error, len(t.Parts))
	dirs := make([]string, len(t.Parts))
	var wg sync.WaitGroup
	hookErr := withHooks(ctx, dir, t.Hooks, func() error {
		for k, p := range t.Parts {
			dirs[k] = filepath.Join(dir, results.PartDir(k+1, p.Name))
			step := p.Step
			step.Redact = t.Redact
			step.Output = nil
			if t.Output != nil {
				step.Output = &prefixWriter{mu: &outMu, w: t.Output, prefix: fmt.Sprintf("[%d %s] ", k+1, p.Name)}
			}
			step.Progress = func(pr Progress) { live.update(k, pr) }
			ticket := &gateTicket{gate: gate}
			step.Start = ticket
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer ticket.pass() // a part that ends before its load starts must not hold the others
				_, _, err := RunStep(ctx, dirs[k], step)
				// A part stopped because another failed (or the run was
				// interrupted) has not failed itself.
				if err != nil && (ctx.Err() == nil || !errors.Is(err, context.Canceled)) {
					errs[k] = err
					if t.OnPartFailure != OnPartFailureContinue {
						cancel()
					}
				}
			}()
		}
		wg.Wait()
		return nil
	})
	sum, err := mergeParts(dir, dirs, t, errs, redact)
	err = errors.Join(err, hookErr)
	if sum != nil && t.Progress != nil {
		final := FinalProgress(sum.Workload.Name, sum.Threads, sum.PlannedSeconds, sum)
		final.Parts = live.final()
		t.Progress(final)
	}
	return sum, err
}

// mergeParts writes the merged step of the parts that ran into dir and
// returns its summary and the step's error.
func mergeParts(dir string, dirs []string, t Together, errs []error, redact func(string) string) (*results.Summary, error) {
	var ran []results.MergePart
	var idle []int
	for k, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, results.SummaryFile)); err == nil {
			ran = append(ran, results.MergePart{Name: t.Parts[k].Name, Dir: d})
		} else {
			idle = append(idle, k)
		}
	}
	var failed []string
	for k, err := range errs {
		if err != nil {
			failed = append(failed, fmt.Sprintf("part %d (%s) failed: %s", k+1, t.Parts[k].Name, redact(err.Error())))
		}
	}
	// A part the plan asked for what cannot run (ErrBadInput) fails the
	// step whatever the policy: no run fixes it.
	bad := false
	for _, err := range errs {
		bad = bad || errors.Is(err, ErrBadInput)
	}
	var stepErr error
	if len(failed) > 0 && (t.OnPartFailure != OnPartFailureContinue || bad) {
		stepErr = fmt.Errorf("%s; every part's results are kept in %s", strings.Join(failed, "; "), filepath.Join(dir, results.PartsDir))
		if bad {
			stepErr = BadInput(stepErr)
		}
	}
	if len(ran) == 0 {
		if stepErr != nil && bad {
			return nil, stepErr
		}
		return nil, errors.Join(stepErr, errors.New("no part ran"))
	}
	sum, err := results.Merge(dir, ran, results.MergeOptions{Force: true})
	if err != nil {
		return nil, errors.Join(stepErr, err)
	}
	// Merge numbers the parts it was given; keep each part's own folder.
	for i := range sum.Parts {
		rel, _ := filepath.Rel(dir, ran[i].Dir)
		sum.Parts[i].Dir = rel
	}
	for _, k := range idle {
		p := results.Part{Name: t.Parts[k].Name, Dir: results.PartDir(k+1, t.Parts[k].Name), Workload: t.Parts[k].Step.Workload,
			Target: t.Parts[k].Step.Target, Status: results.StatusFailed, Error: "did not start"}
		if errs[k] != nil {
			p.Error = redact(errs[k].Error())
		}
		sum.Parts = append(sum.Parts, p)
	}
	sortParts(sum.Parts)
	if sum.Tags == nil && len(t.Tags) > 0 {
		sum.Tags = map[string]string{}
	}
	for k, v := range t.Tags {
		sum.Tags[k] = v
	}
	sum.Seed = t.Seed
	policy := t.OnPartFailure
	if policy == "" {
		policy = OnPartFailureFail
	}
	names := make([]string, len(t.Parts))
	for k, p := range t.Parts {
		names[k] = p.Name
	}
	sum.Options = map[string]any{"parts": names, "on_part_failure": policy}
	switch {
	case stepErr != nil:
		sum.Status, sum.Error = results.StatusFailed, redact(stepErr.Error())
	case len(failed) > 0: // continue: the step stands on the parts that ran
		sum.Status, sum.Error = results.StatusCompleted, strings.Join(failed, "; ")
	}
	annotate(sum, t.Hooks)
	if err := results.FinishStep(dir, sum, []byte(redact(togetherText(sum)))); err != nil {
		return sum, errors.Join(stepErr, err)
	}
	return sum, stepErr
}

// sortParts orders parts by their folder's number.
func sortParts(parts []results.Part) {
	num := func(p results.Part) int {
		k, _ := strconv.Atoi(strings.SplitN(filepath.Base(p.Dir), "-", 2)[0])
		return k
	}
	sort.SliceStable(parts, func(i, j int) bool { return num(parts[i]) < num(parts[j]) })
}

// togetherText is a together step's output.txt: a line per part and the
// merged figures.
func togetherText(s *results.Summary) string {
	var b strings.Builder
	fmt.Fprintf(&b, "together: %d parts, merged exactly (counts summed, latencies from one histogram of every part's)\n", len(s.Parts))
	for _, p := range s.Parts {
		fmt.Fprintf(&b, "  %s: %s on %s", p.Dir, p.Workload, p.Target)
		if p.Client != "" {
			fmt.Fprintf(&b, " from %s", p.Client)
		}
		fmt.Fprintf(&b, ", %s", p.Status)
		if p.Error != "" {
			fmt.Fprintf(&b, " (%s)", p.Error)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "merged: %d threads, %.2fs, %d events (%.2f/s), %d queries (%.2f/s), %d errors, latency ms min %.2f avg %.2f p95 %.2f p99 %.2f max %.2f\n",
		s.Threads, s.Seconds, s.Events, s.TPS, s.Queries, s.QPS, s.Errors, s.Latency.MinMS, s.Latency.AvgMS,
		s.Latency.Percentiles["95"], s.Latency.Percentiles["99"], s.Latency.MaxMS)
	return b.String()
}

// liveParts folds the parts' live progress into the step's.
type liveParts struct {
	mu       sync.Mutex
	progress func(Progress)
	parts    []Progress
}

func (l *liveParts) update(k int, p Progress) {
	if l.progress == nil {
		return
	}
	if p.Final { // kept for the step's final progress, which sums the summaries
		l.mu.Lock()
		l.parts[k] = p
		l.mu.Unlock()
		return
	}
	l.mu.Lock()
	l.parts[k] = p
	whole := Progress{Parts: append([]Progress(nil), l.parts...)}
	for _, q := range l.parts {
		whole.Workload = joinNew(whole.Workload, q.Workload)
		whole.Threads += q.Threads
		whole.ElapsedS = max(whole.ElapsedS, q.ElapsedS)
		whole.TotalS = max(whole.TotalS, q.TotalS)
		whole.TPS += q.TPS
		// Live only: the summary's percentiles are exact.
		whole.P50MS, whole.P95MS = max(whole.P50MS, q.P50MS), max(whole.P95MS, q.P95MS)
		whole.P99MS, whole.MaxMS = max(whole.P99MS, q.P99MS), max(whole.MaxMS, q.MaxMS)
		whole.Errors += q.Errors
		whole.Reconnects += q.Reconnects
		whole.TotalEvents += q.TotalEvents
		whole.TotalQueries += q.TotalQueries
		for code, n := range q.ErrorsByCode {
			if whole.ErrorsByCode == nil {
				whole.ErrorsByCode = map[string]int64{}
			}
			whole.ErrorsByCode[code] += n
		}
	}
	l.mu.Unlock()
	l.progress(whole)
}

// final is each part's last progress (its summary's, once it ended).
func (l *liveParts) final() []Progress {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Progress(nil), l.parts...)
}

func joinNew(list, s string) string {
	if s == "" {
		return list
	}
	for _, have := range strings.Split(list, "+") {
		if have == s {
			return list
		}
	}
	if list == "" {
		return s
	}
	return list + "+" + s
}

// prefixWriter writes whole lines to w, each prefixed, one writer at a time.
type prefixWriter struct {
	mu     *sync.Mutex
	w      io.Writer
	prefix string
	buf    []byte
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.buf = append(p.buf, b...)
	for {
		i := bytes.IndexByte(p.buf, '\n')
		if i < 0 {
			return len(b), nil
		}
		p.mu.Lock()
		_, err := fmt.Fprintf(p.w, "%s%s", p.prefix, p.buf[:i+1])
		p.mu.Unlock()
		p.buf = p.buf[i+1:]
		if err != nil {
			return len(b), err
		}
	}
}

// StartBarrier holds a run's load until the runs it starts with are
// ready (Options.Start, Step.Start).
type StartBarrier interface {
	// Arrive says the run is ready to load and waits until every run
	// sharing the barrier has arrived or ended, or ctx ends (its error).
	Arrive(ctx context.Context) error
}

// TimedStart is a StartBarrier that opens at a planned time, which a run
// on another host is sent so that it starts with the others.
type TimedStart interface {
	StartBarrier
	// ArriveAt says the run is ready and waits, as Arrive does, until
	// every run sharing the barrier has arrived or ended; it returns the
	// time the load starts at, without waiting for it.
	ArriveAt(ctx context.Context) (time.Time, error)
}

// RemoteStartLead is how far ahead of its start a together step with
// parts on other hosts plans it, for the start to reach them.
const RemoteStartLead = 250 * time.Millisecond

// startGate opens when every part has passed: connected and ready to
// load, or ended without loading, and, with an outer barrier, once that
// let it go. The load starts lead after it opens.
type startGate struct {
	mu      sync.Mutex
	waiting int
	lead    time.Duration
	outer   StartBarrier    // the other segments' (nil: none)
	ctx     context.Context // the step's, for outer
	at      time.Time       // set when open is closed
	err     error           // outer's failure, set when open is closed
	open    chan struct{}
}

// gateTicket is one part's pass through the gate, its StartBarrier;
// passing twice counts once.
type gateTicket struct {
	gate *startGate
	once sync.Once
}

func (t *gateTicket) pass() {
	t.once.Do(func() {
		g := t.gate
		g.mu.Lock()
		g.waiting--
		last := g.waiting == 0
		g.mu.Unlock()
		if !last {
			return
		}
		if g.outer != nil {
			g.err = g.outer.Arrive(g.ctx)
		}
		g.at = time.Now().Add(g.lead)
		close(g.open)
	})
}

// ArriveAt passes the part's ticket and waits for the gate to open.
func (t *gateTicket) ArriveAt(ctx context.Context) (time.Time, error) {
	t.pass()
	select {
	case <-t.gate.open:
		return t.gate.at, t.gate.err
	case <-ctx.Done():
		return time.Time{}, ctx.Err()
	}
}

// Arrive passes the part's ticket, waits for the gate to open and then
// for the planned start.
func (t *gateTicket) Arrive(ctx context.Context) error {
	at, err := t.ArriveAt(ctx)
	if err != nil {
		return err
	}
	return SleepUntil(ctx, at, time.Now)
}

// SleepUntil waits until now() reaches at, or ctx ends (its error).
func SleepUntil(ctx context.Context, at time.Time, now func() time.Time) error {
	d := at.Sub(now())
	if d <= 0 {
		return nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
