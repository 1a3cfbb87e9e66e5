package runner

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"go.starlark.net/starlark"

	"github.com/starbench/starbench/runner/results"
)

// DefaultTarget is the name of the target given without one (--target
// SPEC), which db.connect() uses without a name (targets.DefaultName).
const DefaultTarget = "default"

// Host is the run as a module's builtins see it: the contract between a
// module and the runner, in one place. A builtin gets it from its thread
// with HostOf and hands it down instead of the thread. Outside a run (a
// module used on its own) steps fail, messages go nowhere and state lasts
// for the call.
type Host interface {
	// Context is cancelled when the run is interrupted.
	Context() context.Context
	// Step runs a builtin's I/O as a journaled step: it allocates the step
	// id, journals start and end, and runs the action, replays its
	// recorded result (resume) or returns its placeholder (dry run).
	Step(info StepInfo, act Action) (starlark.Value, error)
	// Spawn makes a thread on which the current step runs plan code
	// concurrently (one per host, say); its steps get ids under the step.
	Spawn(name string) (*starlark.Thread, error)
	// State returns the module's per-run value under key, made by
	// newState on first use; modules wrap it in a typed accessor.
	State(key any, newState func() any) any
	// OnFinish registers cleanup for the end of the run, however it ends;
	// the last registered runs first.
	OnFinish(fn func())
	// Out is what the module tells the user.
	Out() Out
	// Run is what the run knows and records.
	Run() RunInfo
}

// Out is where a module's messages go.
type Out interface {
	// Writer is for text meant for the user, such as sysbench's interval
	// lines: the terminal in plain mode, and output.log line by line.
	Writer() io.Writer
	// Warn prints a warning with the plan position of the call.
	Warn(format string, args ...any)
	// Banner prints text once per run and records it in the manifest
	// (the embedded server's numbers mean nothing, say).
	Banner(text string)
	// Logf writes a line to output.log only.
	Logf(format string, args ...any)
	// Benchmark hands a benchmark's live numbers to the progress view.
	Benchmark(b BenchmarkStatus)
}

// RunInfo is what the run knows and keeps.
type RunInfo interface {
	Seed() int64  // the run seed, from which every random builtin derives its own
	DryRun() bool // steps only record
	// Segment is "i/n" when the run is the i-th of n slices of every
	// benchmark step's load (Options.Segment), "" otherwise.
	Segment() string
	// Target returns the spec given for a named target (--target name=SPEC).
	Target(name string) (string, bool)
	TargetNames() []string
	// RecordTarget stores what a module knows of a target (server version,
	// variables, topology) in the manifest under name.
	RecordTarget(name string, info any) error
	// RecordedTarget is what the manifest holds of a target: recorded by
	// this run or by the run it resumes.
	RecordedTarget(name string) results.Target
	// RecordTelemetry adds sources the plan watches to the manifest.
	RecordTelemetry(sources []results.TelemetrySource) error
	// AddSecret registers a value (a password) that must never appear in
	// what the run prints or stores; Redact masks the secrets.
	AddSecret(secret string)
	Redact(s string) string
	// ResultsDir makes (if needed) and returns the run's results folder,
	// "" in a dry run; Relative shows a path in it relative to it.
	ResultsDir() (string, error)
	Relative(path string) string
	// ReadPlanFile reads a data file the plan names (a CSV of a report's
	// published figures, say): path is relative to the file whose code
	// calls the builtin, as load() is, or an @stdlib// name. The file is
	// recorded with the plan's sources (sha256, a copy in the results
	// folder), and a rerun or a resumed run reads that copy, so the run
	// repeats with the same bytes. It returns the file's name as recorded.
	ReadPlanFile(path string) (data []byte, name string, err error)
}

// HostOf returns the host of the run a builtin was called in.
func HostOf(thread *starlark.Thread) Host { return &host{r: runOf(thread), thread: thread} }

// host implements Host, Out and RunInfo for one thread of a run (r is nil
// outside a run).
type host struct {
	r      *Run
	thread *starlark.Thread
}

func (h *host) Out() Out     { return h }
func (h *host) Run() RunInfo { return h }
func (h *host) Step(info StepInfo, act Action) (starlark.Value, error) {
	return call(h.thread, info, act)
}

func (h *host) Context() context.Context {
	if h.r != nil {
		return h.r.ctx
	}
	return context.Background()
}

func (h *host) DryRun() bool { return h.r != nil && h.r.opts.DryRun }

func (h *host) Segment() string {
	if h.r != nil {
		return h.r.opts.Segment
	}
	return ""
}

func (h *host) Seed() int64 {
	if h.r != nil {
		return h.r.seed
	}
	return 0
}

func (h *host) Target(name string) (string, bool) {
	if h.r == nil {
		return "", false
	}
	spec, ok := h.r.opts.Targets[name]
	return spec, ok
}

func (h *host) TargetNames() []string {
	if h.r == nil {
		return nil
	}
	var names []string
	for name := range h.r.opts.Targets {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

func (h *host) AddSecret(secret string) {
	if h.r != nil {
		h.r.redactor.Add(secret)
	}
}

func (h *host) Redact(s string) string {
	if h.r != nil {
		return h.r.redact(s)
	}
	return s
}

func (h *host) RecordTarget(name string, info any) error {
	r := h.r
	if r == nil || r.opts.DryRun {
		return nil
	}
	r.mu.Lock()
	r.manifest.Targets[name] = info
	r.mu.Unlock()
	if err := r.ensureDir(); err != nil {
		return err
	}
	return r.writeManifest()
}

func (h *host) RecordedTarget(name string) results.Target {
	r := h.r
	if r == nil {
		return results.Target{}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.manifest.Target(name)
}

func (h *host) RecordTelemetry(sources []results.TelemetrySource) error {
	r := h.r
	if r == nil || r.opts.DryRun {
		return nil
	}
	r.mu.Lock()
	r.manifest.Telemetry = append(r.manifest.Telemetry, sources...)
	r.mu.Unlock()
	if err := r.ensureDir(); err != nil {
		return err
	}
	return r.writeManifest()
}

func (h *host) Banner(text string) {
	r := h.r
	if r == nil {
		return
	}
	r.mu.Lock()
	seen := r.banners[text]
	r.banners[text] = true
	if !seen {
		r.manifest.Banners = append(r.manifest.Banners, text)
	}
	r.mu.Unlock()
	if !seen {
		fmt.Fprintf(r.stderr, "\n%s\n\n", text)
		r.logf("banner: %s", text)
		_ = r.writeManifest()
	}
}

func (h *host) Warn(format string, args ...any) {
	r := h.r
	if r == nil {
		return
	}
	msg := r.redact(fmt.Sprintf(format, args...))
	if h.thread.CallStackDepth() > 1 {
		msg = h.thread.CallFrame(1).Pos.String() + ": " + msg
	}
	fmt.Fprintf(r.stderr, "warning: %s\n", msg)
	r.logf("warning: %s", msg)
	r.mu.Lock()
	r.notes = append(r.notes, "warning: "+msg)
	r.mu.Unlock()
}

func (h *host) State(key any, newState func() any) any {
	r := h.r
	if r == nil {
		return newState()
	}
	r.mu.Lock()
	v, ok := r.state[key]
	r.mu.Unlock()
	if ok {
		return v
	}
	// newState may call back into the run (OnFinish), so it runs unlocked;
	// builtins run on the plan's one thread, so there is no race to create.
	v = newState()
	r.mu.Lock()
	defer r.mu.Unlock()
	if existing, ok := r.state[key]; ok {
		return existing
	}
	r.state[key] = v
	return v
}

func (h *host) OnFinish(fn func()) {
	r := h.r
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.finishers = append(r.finishers, fn)
}

func (h *host) Logf(format string, args ...any) {
	if h.r != nil {
		h.r.logf(format, args...)
	}
}

func (h *host) Benchmark(b BenchmarkStatus) {
	if h.r == nil {
		return
	}
	for _, o := range h.r.observers() {
		o.Benchmark(b)
	}
}

func (h *host) Spawn(name string) (*starlark.Thread, error) {
	r := h.r
	if r == nil {
		return nil, fmt.Errorf("not inside a starbench run")
	}
	st := threadState(h.thread)
	if len(st.active) == 0 {
		return nil, fmt.Errorf("Spawn must be called from inside a step")
	}
	owner := st.active[len(st.active)-1]
	owner.mu.Lock()
	owner.threads++
	n := owner.threads
	owner.mu.Unlock()
	thread := &starlark.Thread{Name: name, Load: h.thread.Load, Print: h.thread.Print}
	thread.SetLocal(runKey, r)
	thread.SetLocal(threadStepsKey, &threadSteps{prefix: fmt.Sprintf("%s.t%d.", owner.id, n)})
	context.AfterFunc(r.ctx, func() { thread.Cancel("interrupted") })
	return thread, nil
}

func (h *host) Writer() io.Writer {
	r := h.r
	if r == nil {
		return io.Discard
	}
	if !r.showsOutput() {
		return &logOnly{r: r}
	}
	return &runOutput{r: r}
}

type runOutput struct {
	r       *Run
	pending []byte
}

func (o *runOutput) Write(p []byte) (int, error) {
	text := o.r.redact(string(p))
	if _, err := io.WriteString(o.r.stdout, text); err != nil {
		return 0, err
	}
	o.pending = append(o.pending, text...)
	for {
		i := bytes.IndexByte(o.pending, '\n')
		if i < 0 {
			break
		}
		o.r.appendLog(string(o.pending[:i]))
		o.pending = o.pending[i+1:]
	}
	return len(p), nil
}

func (h *host) Relative(path string) string {
	r := h.r
	if r == nil || r.dir == "" {
		return path
	}
	if rel, err := filepath.Rel(r.dir, path); err == nil {
		return rel
	}
	return path
}

func (h *host) ReadPlanFile(p string) ([]byte, string, error) {
	r := h.r
	if r == nil {
		data, err := os.ReadFile(p)
		return data, p, err
	}
	from := ""
	if h.thread != nil && h.thread.CallStackDepth() > 1 {
		from = h.thread.CallFrame(1).Pos.Filename()
	}
	name, err := r.loader.resolve(from, p)
	if err != nil {
		return nil, "", err
	}
	data, err := r.loader.readSource(name)
	if err != nil {
		return nil, name, err
	}
	for _, src := range r.loader.sources {
		if src.Name == name {
			return data, name, nil // recorded already
		}
	}
	return data, name, r.loader.record(name, data)
}

func (h *host) ResultsDir() (string, error) {
	r := h.r
	if r == nil || r.opts.DryRun {
		return "", nil
	}
	if err := r.ensureDir(); err != nil {
		return "", err
	}
	return r.dir, nil
}
