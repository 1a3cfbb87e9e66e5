package runner

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sort"

	"go.starlark.net/starlark"
)

// This file is the runner's API for builtin modules. Every function takes
// the calling thread, whose locals hold the run.

// DefaultTarget is the name of the target db.connect() uses without a name.
const DefaultTarget = "default"

// Context returns the run's context, cancelled on interrupt. Outside a run
// it returns context.Background().
func Context(thread *starlark.Thread) context.Context {
	if r := runOf(thread); r != nil {
		return r.ctx
	}
	return context.Background()
}

// IsDryRun reports whether steps only record instead of acting.
func IsDryRun(thread *starlark.Thread) bool {
	r := runOf(thread)
	return r != nil && r.opts.DryRun
}

// Seed returns the run seed, from which every random builtin derives its own.
func Seed(thread *starlark.Thread) int64 {
	if r := runOf(thread); r != nil {
		return r.seed
	}
	return 0
}

// Target returns the spec given for a named target (--target name=SPEC).
func Target(thread *starlark.Thread, name string) (string, bool) {
	r := runOf(thread)
	if r == nil {
		return "", false
	}
	spec, ok := r.opts.Targets[name]
	return spec, ok
}

// TargetNames lists the targets given on the command line.
func TargetNames(thread *starlark.Thread) []string {
	r := runOf(thread)
	if r == nil {
		return nil
	}
	var names []string
	for name := range r.opts.Targets {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// AddSecret registers a value (a password) that must never appear in what
// the run prints or stores.
func AddSecret(thread *starlark.Thread, secret string) {
	if r := runOf(thread); r != nil {
		r.redactor.Add(secret)
	}
}

// Redact removes every registered secret from s.
func Redact(thread *starlark.Thread, s string) string {
	if r := runOf(thread); r != nil {
		return r.redact(s)
	}
	return s
}

// RecordTarget stores what a module knows about a target (server version,
// variables, topology) in the manifest under name.
func RecordTarget(thread *starlark.Thread, name string, info any) error {
	r := runOf(thread)
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

// Banner prints a warning once per run to stderr and records it in the
// manifest, e.g. that the embedded server's numbers mean nothing.
func Banner(thread *starlark.Thread, text string) {
	r := runOf(thread)
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

// Warn prints a warning to stderr (and the run log) with the plan position
// of the current call.
func Warn(thread *starlark.Thread, format string, args ...any) {
	r := runOf(thread)
	if r == nil {
		return
	}
	msg := r.redact(fmt.Sprintf(format, args...))
	if thread.CallStackDepth() > 1 {
		msg = thread.CallFrame(1).Pos.String() + ": " + msg
	}
	fmt.Fprintf(r.stderr, "warning: %s\n", msg)
	r.logf("warning: %s", msg)
	r.mu.Lock()
	r.notes = append(r.notes, "warning: "+msg)
	r.mu.Unlock()
}

// State returns the per-run value a module keeps under key, creating it
// with newState on first use. Modules wrap it in typed accessors.
func State(thread *starlark.Thread, key any, newState func() any) any {
	r := runOf(thread)
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

// OnFinish registers cleanup to run when the run ends, however it ends;
// the last registered runs first.
func OnFinish(thread *starlark.Thread, fn func()) {
	r := runOf(thread)
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.finishers = append(r.finishers, fn)
}

// Logf writes a line to the run's output.log (not to the terminal).
func Logf(thread *starlark.Thread, format string, args ...any) {
	if r := runOf(thread); r != nil {
		r.logf(format, args...)
	}
}

// NewThread makes a Starlark thread on which a builtin can run plan code
// concurrently (one per host, say). The calling builtin must be running as
// a step; the new thread's steps get ids under it, "<step>.t<n>.<k>", so
// they stay stable however the threads interleave. The thread is cancelled
// with the run.
func NewThread(parent *starlark.Thread, name string) (*starlark.Thread, error) {
	r := runOf(parent)
	if r == nil {
		return nil, fmt.Errorf("not inside a starbench run")
	}
	st := threadState(parent)
	if len(st.active) == 0 {
		return nil, fmt.Errorf("runner.NewThread must be called from inside a step")
	}
	owner := st.active[len(st.active)-1]
	owner.mu.Lock()
	owner.threads++
	n := owner.threads
	owner.mu.Unlock()
	thread := &starlark.Thread{Name: name, Load: parent.Load, Print: parent.Print}
	thread.SetLocal(runKey, r)
	thread.SetLocal(threadStepsKey, &threadSteps{prefix: fmt.Sprintf("%s.t%d.", owner.id, n)})
	context.AfterFunc(r.ctx, func() { thread.Cancel("interrupted") })
	return thread, nil
}

// Output is where a builtin prints progress meant for the user, such as
// sysbench's interval lines: the run's stdout, and output.log line by line.
func Output(thread *starlark.Thread) io.Writer {
	r := runOf(thread)
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

// RelativeToResults shows a path inside the results directory relative to
// it, as step records and result values give it.
func RelativeToResults(thread *starlark.Thread, path string) string {
	r := runOf(thread)
	if r == nil || r.dir == "" {
		return path
	}
	if rel, err := filepath.Rel(r.dir, path); err == nil {
		return rel
	}
	return path
}

// ResultsDir makes (if needed) and returns the run's results directory;
// "" in dry-run mode.
func ResultsDir(thread *starlark.Thread) (string, error) {
	r := runOf(thread)
	if r == nil || r.opts.DryRun {
		return "", nil
	}
	if err := r.ensureDir(); err != nil {
		return "", err
	}
	return r.dir, nil
}
