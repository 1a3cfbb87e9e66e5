package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"go.starlark.net/starlark"

	"github.com/starbench/starbench/internal/redact"
	"github.com/starbench/starbench/runner/mods"
	"github.com/starbench/starbench/runner/results"
)

// Options configure one evaluation of a plan.
type Options struct {
	PlanFile    string              // path of the .star plan
	Params      []string            // "name=value" overrides from -p
	Predeclared starlark.StringDict // builtin modules (db, ...)
	Stdlib      fs.FS               // modules served as @stdlib//name.star
	Targets     map[string]string   // named target specs for modules (e.g. db); opaque to the runner
	OutDir      string              // results directory; "" picks ResultsRoot/<UTC time>-<plan>
	ResultsRoot string              // parent of default results directories; "" means "results"
	DryRun      bool                // record steps, act on nothing, write nothing
	Seed        *int64              // run seed; nil draws one
	Secrets     []string            // values to redact everywhere (passwords)
	Stdout      io.Writer           // plan print() output; nil means os.Stdout
	Stderr      io.Writer           // banners and warnings; nil means os.Stderr
	ToolVersion string
	CommandLine []string // recorded in the manifest, redacted
	// Progress, when set, is a live view: plan output goes through it and
	// builtin output (sysbench's text) only to output.log.
	Progress Progress
	// Observer, when set, follows the steps and benchmarks as the live
	// view does, whatever the view (live metrics).
	Observer StepObserver
	// Quiet keeps builtin output off the terminal (it still goes to
	// output.log and the step folders); plan print() output stays.
	Quiet bool
	// Resume continues a stopped run in its own folder: the plan and
	// modules come from the folder's copies (PlanFile, when set, is an
	// edited plan), params and seed from its manifest, and steps the
	// journal records as completed return their recorded results.
	Resume *Recorded
	// Rerun repeats a run's plan, params and seed into a new folder (a
	// bundle made with a seed repeats so too).
	Rerun *Recorded
	// From runs the plan a bundle or a results folder holds, afresh: its
	// files only, its parameters with Params after them, a new seed
	// unless Seed is given.
	From *Recorded
	// Entry, when set, gives what is called in place of the plan's
	// main(p), from the globals of the file it evaluates (which then
	// needs no main): a command that runs a module file as a plan, such
	// as `starbench mix FILE.star run`.
	Entry func(globals starlark.StringDict) (starlark.Callable, error)
	// Segment, "i/n", runs the i-th of n slices of every benchmark step's
	// load (the plan run by n machines or pods with one seed); "" runs
	// them whole.
	Segment string
}

// Result is what a finished (or failed) evaluation leaves behind.
type Result struct {
	Dir    string        // results directory, "" when none was written
	Steps  []StepSummary // the steps, in dry-run mode
	Notes  []string      // dry-run notes: where the plan branched on placeholders
	Params *ParamSet     // declared parameters, nil if the plan never got that far
	Seed   int64
	// Plan is the plan's name, Sources every file the evaluation read
	// (the plan first... in the order read) and Modules the pinned shared
	// modules they came from: what a bundle holds.
	Plan    string
	Sources []SourceCopy
	Modules []*results.ModuleRecord
	Status  string
	// Redact removes every secret the run knew of from a string. Use it on
	// anything derived from the run before printing it.
	Redact func(string) string
}

// Run is the state of one plan evaluation, reachable from builtins through
// the Starlark thread.
type Run struct {
	opts     Options
	ctx      context.Context
	redactor *redact.Set
	loader   *loader
	params   *ParamSet
	seed     int64
	stdout   io.Writer
	stderr   io.Writer

	replay  *replay
	mu      sync.Mutex
	dir     string
	journal *results.Journal
	// pendingJournal are the records a resume made while replaying, written
	// when the folder is (ensureDir).
	pendingJournal []*results.JournalRecord
	editedPlanCopy []byte // a resume's --plan, copied when the folder is written
	log            *os.File
	manifest       results.Manifest
	steps          []StepSummary
	notes          []string
	banners        map[string]bool
	state          map[any]any
	finishers      []func()
	topSteps       int
	// placeholderErr is set when a dry run tested an Unknown for truth.
	placeholderErr error
}

const runKey = "starbench.run"

func runOf(thread *starlark.Thread) *Run {
	r, _ := thread.Local(runKey).(*Run)
	return r
}

// Evaluate loads the plan, resolves its parameters, calls main(p) and
// writes the results directory. Errors: *PlanError and *UsageError for bad
// input, an error wrapping ErrInterrupted when ctx was cancelled, and
// anything else (often a *starlark.EvalError) when the plan failed.
func Evaluate(ctx context.Context, opts Options) (*Result, error) {
	r := &Run{opts: opts, ctx: ctx, stdout: opts.Stdout, stderr: opts.Stderr, banners: map[string]bool{}, state: map[any]any{}}
	if r.stdout == nil {
		r.stdout = os.Stdout
	}
	if r.stderr == nil {
		r.stderr = os.Stderr
	}
	r.redactor = redact.New(opts.Secrets...)
	res := &Result{Redact: r.redact, Status: results.StatusFailed}
	err := r.evaluate(res)
	res.Dir, res.Steps, res.Notes, res.Params, res.Seed = r.dir, r.steps, r.notes, r.params, r.seed
	if r.loader != nil {
		res.Plan = r.manifest.Plan
		for _, src := range r.loader.sources {
			res.Sources = append(res.Sources, SourceCopy{SourceFile: *src.SourceFile, Data: src.data})
		}
		res.Modules = r.moduleRecords()
	}
	return res, err
}

// evaluate runs the plan: it reads the plan's source, sets up the loader
// and the manifest, compiles the plan, runs its top level and then
// main(p); once the plan has started, finish ends the run whatever
// happens.
func (r *Run) evaluate(res *Result) (err error) {
	planName, data, recorded, err := r.planSource()
	if err != nil {
		return err
	}
	r.seed = drawSeed(r.opts.Seed)
	planGlobals := r.setUpLoader(planName, recorded)
	if err := r.startManifest(planName, data); err != nil {
		return err
	}
	prog, err := r.compilePlan(planName, data, planGlobals)
	if err != nil {
		return err
	}

	thread := &starlark.Thread{Name: "main", Load: r.loader.loadFunc, Print: r.print}
	thread.SetLocal(runKey, r)
	stop := context.AfterFunc(r.ctx, func() { thread.Cancel("interrupted") })
	defer stop()
	defer func() { err = r.finish(err, res) }()

	mainFn, err := r.runTopLevel(thread, prog, planGlobals, planName)
	if err != nil {
		return err
	}
	if err := r.ensureDir(); err != nil {
		return err
	}
	if _, err := starlark.Call(thread, mainFn, starlark.Tuple{r.params.Struct()}, nil); err != nil {
		return r.classify(err)
	}
	return nil
}

// setUpLoader makes the run's module loader, which reads a recorded
// run's copies when recorded is set, and returns the plan's globals: the
// predeclared modules, the language builtins and params().
func (r *Run) setUpLoader(planName string, recorded map[string][]byte) starlark.StringDict {
	r.loader = &loader{
		stdlib: r.opts.Stdlib, planDir: filepath.Dir(planName), cache: map[string]*loadEntry{},
		onSource: r.storeSource, recorded: recorded,
	}
	for _, rec := range []*Recorded{r.opts.From, r.opts.Rerun} {
		if rec != nil && rec.sealed {
			r.loader.sealed = rec.Dir
		}
	}
	r.loader.mods = mods.NewGraph(r.ctx, filepath.Dir(planName), nil, r.loader.readRecording)
	r.loader.mods.Notify = r.moduleNote
	predeclared := starlark.StringDict{}
	for k, v := range r.opts.Predeclared {
		predeclared[k] = v
	}
	for k, v := range languageBuiltins() {
		predeclared[k] = v
	}
	r.loader.predecl = predeclared
	r.loader.stdlibPredecl = starlark.StringDict{}
	for k, v := range predeclared {
		r.loader.stdlibPredecl[k] = v
	}
	for k, v := range stdlibBuiltins() {
		r.loader.stdlibPredecl[k] = v
	}
	planGlobals := starlark.StringDict{"params": starlark.NewBuiltin("params", r.paramsBuiltin)}
	for k, v := range predeclared {
		planGlobals[k] = v
	}
	return planGlobals
}

// startManifest fills in the manifest of a starting run: the tool, the
// plan, the seed, the command line and the host, what run it repeats,
// and (on resume) what the recorded manifest says.
func (r *Run) startManifest(planName string, data []byte) error {
	r.manifest = results.Manifest{
		Tool:        results.Tool(r.opts.ToolVersion),
		Plan:        planName,
		Seed:        r.seed,
		Segment:     r.opts.Segment,
		CommandLine: r.opts.CommandLine,
		Overrides:   r.opts.Params,
		Host:        results.ReadHostInfo(),
		Targets:     map[string]any{},
		Started:     time.Now().UTC(),
		Status:      results.StatusRunning,
	}
	if rec := r.opts.Rerun; rec != nil {
		r.manifest.RerunOf = &results.RerunRecord{Dir: rec.Dir, Started: rec.Manifest.Started, Seed: rec.Manifest.Seed}
	}
	for _, rec := range []*Recorded{r.opts.From, r.opts.Rerun} {
		if rec != nil && rec.sealed {
			kind := "results"
			if rec.bundleSHA256 != "" {
				kind = "bundle"
			}
			r.manifest.From = &results.FromRecord{Path: rec.Dir, Kind: kind, SHA256: rec.bundleSHA256}
		}
	}
	return r.resumeManifest(data)
}

// compilePlan compiles the plan (a syntax or name error is a
// *PlanError) and records its source with the loaded files.
func (r *Run) compilePlan(planName string, data []byte, planGlobals starlark.StringDict) (*starlark.Program, error) {
	_, prog, err := starlark.SourceProgramOptions(fileOptions, planName, data, planGlobals.Has)
	if err != nil {
		return nil, &PlanError{Err: err}
	}
	if err := r.loader.record(planName, data); err != nil {
		return nil, err
	}
	return prog, nil
}

// runTopLevel executes the plan's top level, resolves the parameters
// when the plan declared none with params(), and returns main, which
// must take exactly one parameter.
func (r *Run) runTopLevel(thread *starlark.Thread, prog *starlark.Program, planGlobals starlark.StringDict, planName string) (starlark.Callable, error) {
	globals, err := prog.Init(thread, planGlobals)
	if err != nil {
		return nil, r.classify(err)
	}
	if r.params == nil {
		r.params = &ParamSet{}
		if err := r.params.apply(r.opts.Params); err != nil {
			return nil, err
		}
	}
	if r.opts.Entry != nil {
		entry, err := r.opts.Entry(globals)
		if err != nil {
			return nil, &PlanError{Err: fmt.Errorf("%s: %w", planName, err)}
		}
		return entry, nil
	}
	mainFn, ok := globals["main"].(starlark.Callable)
	if !ok {
		return nil, &PlanError{Err: fmt.Errorf("%s: the plan defines no main(p) function", planName)}
	}
	if fn, ok := mainFn.(*starlark.Function); ok && fn.NumParams() != 1 {
		return nil, &PlanError{Err: fmt.Errorf("%s: main must take exactly one parameter (the resolved params), it takes %d", fn.Position(), fn.NumParams())}
	}
	return mainFn, nil
}

// classify turns an evaluation error into the run's error kinds.
func (r *Run) classify(err error) error {
	r.mu.Lock()
	placeholderErr := r.placeholderErr
	r.mu.Unlock()
	if placeholderErr != nil {
		return &PlanError{Err: placeholderErr}
	}
	if r.ctx.Err() != nil {
		return fmt.Errorf("%w: %w", ErrInterrupted, err)
	}
	var usage *UsageError
	if errors.As(err, &usage) {
		return usage
	}
	var div *DivergenceError
	if errors.As(err, &div) {
		return &PlanError{Err: div}
	}
	var planErr *PlanError
	if errors.As(err, &planErr) {
		// A load() failed: report it with the load statement's position.
		return &PlanError{Err: err}
	}
	return err
}

// finish runs the finishers (e.g. stopping an embedded server), then
// writes the final manifest and closes the journal.
func (r *Run) finish(runErr error, res *Result) error {
	r.mu.Lock()
	finishers := r.finishers
	r.finishers = nil
	r.mu.Unlock()
	for i := len(finishers) - 1; i >= 0; i-- {
		finishers[i]()
	}
	status := results.StatusCompleted
	switch {
	case runErr != nil && errors.Is(runErr, ErrInterrupted):
		status = results.StatusInterrupted
	case runErr != nil:
		status = results.StatusFailed
	}
	res.Status = status
	if r.replay != nil && r.dir == "" && !r.opts.DryRun {
		if runErr != nil {
			fmt.Fprintf(r.stderr, "resume: %s is unchanged: the resume stopped while replaying the steps it had completed\n", r.opts.Resume.Dir)
			return runErr
		}
		r.replay.finishReplay() // every step replayed and the plan ended: the run is complete now
		if err := r.ensureDir(); err != nil {
			return err
		}
		res.Dir = r.dir
	}
	if r.opts.DryRun || r.dir == "" {
		return runErr
	}
	now := time.Now().UTC()
	r.mu.Lock()
	if r.replay != nil && len(r.manifest.Resumes) > 0 {
		last := &r.manifest.Resumes[len(r.manifest.Resumes)-1]
		last.FromStep, last.Replayed, last.RanAgain = r.replay.fromStep, r.replay.replayed, r.replay.again
	}
	r.manifest.Status, r.manifest.Ended = status, &now
	if runErr != nil {
		r.manifest.Error = errorText(runErr)
	}
	r.mu.Unlock()
	errs := []error{runErr}
	errs = append(errs, r.journal.Write(&results.JournalRecord{Event: "run", Status: status, Time: now}, true))
	errs = append(errs, r.writeManifest(), r.journal.Close())
	if r.log != nil {
		errs = append(errs, r.log.Close())
	}
	if runErr != nil {
		return runErr
	}
	return errors.Join(errs...)
}

func errorText(err error) string {
	var evalErr *starlark.EvalError
	if errors.As(err, &evalErr) {
		return evalErr.Backtrace()
	}
	return err.Error()
}

// ensureDir creates the results directory, its manifest, journal and
// source copies the first time something needs them.
func (r *Run) ensureDir() error {
	if r.replaying() {
		return nil // a resume writes nothing into its folder until a step runs anew
	}
	if r.opts.DryRun {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.dir != "" {
		return nil
	}
	dir, err := r.makeDir()
	if err != nil {
		var usage *UsageError
		if errors.As(err, &usage) {
			return usage
		}
		return fmt.Errorf("results directory: %w", err)
	}
	r.dir = dir
	if r.journal, err = results.OpenJournal(dir, r.redact); err != nil {
		return err
	}
	if r.log, err = os.OpenFile(filepath.Join(dir, results.LogFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err != nil {
		return err
	}
	for _, src := range r.loader.sources {
		if err := r.copySource(src); err != nil {
			return err
		}
	}
	if err := r.journal.Write(&results.JournalRecord{Event: "run", Status: results.StatusRunning, Time: r.manifest.Started}, true); err != nil {
		return err
	}
	if r.editedPlanCopy != nil {
		last := r.manifest.Resumes[len(r.manifest.Resumes)-1]
		if err := results.WriteFile(filepath.Join(dir, filepath.FromSlash(last.PlanCopy)), r.editedPlanCopy); err != nil {
			return err
		}
		r.editedPlanCopy = nil
	}
	for _, rec := range r.pendingJournal { // what the resume did while replaying
		if err := r.journal.Write(rec, false); err != nil {
			return err
		}
	}
	r.pendingJournal = nil
	return r.writeManifestLocked()
}

// replaying reports whether a resumed run is still replaying the steps its
// journal records as completed: until one runs anew it writes nothing into
// the folder, so that a resume that stops there (a plan that diverges, a
// target not given again) leaves the folder as it was.
func (r *Run) replaying() bool {
	return r.replay != nil && r.replay.isActive()
}

// writeJournal writes a journal record, or while a resume replays keeps it
// until the folder is written (ensureDir).
func (r *Run) writeJournal(rec *results.JournalRecord, sync bool) error {
	r.mu.Lock()
	if r.dir == "" && r.replaying() {
		r.pendingJournal = append(r.pendingJournal, rec)
		r.mu.Unlock()
		return nil
	}
	r.mu.Unlock()
	return r.journal.Write(rec, sync)
}

func (r *Run) makeDir() (string, error) {
	if r.opts.Resume != nil {
		return r.opts.Resume.Dir, nil // the run continues in its own folder
	}
	dir, err := results.Create(r.opts.OutDir, r.opts.ResultsRoot, strings.TrimSuffix(filepath.Base(r.manifest.Plan), ".star"), time.Now())
	if errors.Is(err, results.ErrNotEmpty) {
		return "", usageErrorf("%s exists and is not empty; choose a new --out", r.opts.OutDir)
	}
	return dir, err
}

// storeSource is called for every file the loader reads.
func (r *Run) storeSource(src loadedSource) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.opts.Resume != nil {
		return nil // the manifest already lists the run's sources
	}
	r.manifest.Sources = append(r.manifest.Sources, src.SourceFile)
	if r.dir == "" {
		return nil // copied when the directory is made
	}
	if err := r.copySource(src); err != nil {
		return err
	}
	return r.writeManifestLocked()
}

func (r *Run) copySource(src loadedSource) error {
	dst := filepath.Join(r.dir, filepath.FromSlash(src.Stored))
	if r.opts.Resume != nil {
		if _, err := os.Stat(dst); err == nil {
			return nil // a resumed run keeps the copies it started with
		}
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return results.WriteFile(dst, src.data)
}

func (r *Run) writeManifest() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.writeManifestLocked()
}

func (r *Run) writeManifestLocked() error {
	if r.dir == "" {
		return nil
	}
	r.manifest.Modules = r.moduleRecords()
	if r.params != nil {
		r.manifest.Params = r.params.Resolved()
		r.manifest.ParamTypes = map[string]string{}
		for _, p := range r.params.Params {
			r.manifest.ParamTypes[p.Name] = p.TypeName()
		}
	}
	return results.WriteManifest(r.dir, &r.manifest, r.redact)
}

func (r *Run) redact(s string) string { return r.redactor.Redact(s) }

// moduleRecords lists the pinned modules the run loaded from, for the
// manifest.
func (r *Run) moduleRecords() []*results.ModuleRecord {
	if r.loader == nil || r.loader.mods == nil {
		return nil
	}
	var out []*results.ModuleRecord
	for _, m := range r.loader.mods.Used() {
		out = append(out, &results.ModuleRecord{Name: m.Display, URL: m.Pin.URL, Commit: m.Pin.Commit, Ref: m.Pin.Ref,
			TreeSHA256: m.Hash, PinnedBy: m.PinnedBy, Note: m.Note})
	}
	return out
}

// moduleNote says, as the run goes, that a module's pin gave way to the
// plan's.
func (r *Run) moduleNote(note string) {
	note = "note: " + r.redact(note)
	fmt.Fprintln(r.stderr, note)
	r.logf("%s", note)
}

// print is the thread's print(): plan output goes to stdout (through the
// live view, if any) and output.log.
func (r *Run) print(_ *starlark.Thread, msg string) {
	msg = r.redact(msg)
	if r.opts.Progress != nil {
		r.opts.Progress.Line(msg)
	} else {
		fmt.Fprintln(r.stdout, msg)
	}
	r.appendLog(msg)
}

func (r *Run) logf(format string, args ...any) {
	r.appendLog(r.redact(fmt.Sprintf(format, args...)))
}

func (r *Run) appendLog(line string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.log != nil {
		fmt.Fprintf(r.log, "%s %s\n", time.Now().UTC().Format(time.RFC3339Nano), line)
	}
}

func (r *Run) listStep(s StepSummary) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.steps = append(r.steps, s)
}

func (r *Run) countStep() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.manifest.Steps++
}

// topStep counts top-level steps for the live view.
func (r *Run) topStep() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.topSteps++
	return r.topSteps
}

func (r *Run) addNote(note string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range r.notes {
		if n == note {
			return
		}
	}
	r.notes = append(r.notes, note)
}

// paramsBuiltin is params(name=default_or_param(...), ...): it declares the
// plan's parameters and applies the -p overrides at once, so a bad -p stops
// the run before any step.
func (r *Run) paramsBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) > 0 {
		return nil, fmt.Errorf("%s: parameters are declared by keyword, e.g. params(threads = [1, 2, 4])", b.Name())
	}
	if r.params != nil {
		return nil, fmt.Errorf("%s: called twice; declare every parameter in one call", b.Name())
	}
	if thread.CallStackDepth() > 1 && thread.CallFrame(1).Pos.Filename() != r.manifest.Plan {
		return nil, fmt.Errorf("%s: only the plan file declares parameters, not a loaded module", b.Name())
	}
	ps := &ParamSet{}
	for _, kv := range kwargs {
		name := string(kv[0].(starlark.String))
		p, err := declareParam(name, kv[1])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", b.Name(), err)
		}
		ps.Params = append(ps.Params, p)
	}
	r.params = ps
	if err := ps.apply(r.opts.Params); err != nil {
		return nil, err
	}
	return r.params.Struct(), nil
}

func drawSeed(given *int64) int64 {
	if given != nil {
		return *given
	}
	return results.DrawSeed()
}

// planSource returns the plan's name and content: the file given, or for
// a resumed or repeated run the copy kept in its folder (or, resuming,
// an edited plan given as PlanFile). It also checks that -p and --seed
// agree with the recorded run.
func (r *Run) planSource() (name string, data []byte, recorded map[string][]byte, err error) {
	if rec := r.opts.From; rec != nil {
		r.opts.Params = append(append([]string{}, rec.Manifest.Overrides...), r.opts.Params...)
		return rec.Manifest.Plan, rec.sources[rec.Manifest.Plan], rec.sources, nil
	}
	rec := r.opts.Resume
	if rec == nil {
		rec = r.opts.Rerun
	}
	if rec == nil {
		if rest, ok := strings.CutPrefix(r.opts.PlanFile, StdlibPrefix); ok { // a plan of the standard library
			name = StdlibPrefix + path.Clean(rest)
			if r.opts.Stdlib == nil {
				return "", nil, nil, &PlanError{Err: fmt.Errorf("cannot read plan %s: no standard library is available", name)}
			}
			if data, err = fs.ReadFile(r.opts.Stdlib, path.Clean(rest)); err != nil {
				return "", nil, nil, &PlanError{Err: fmt.Errorf("cannot read plan %s: no such file in the standard library (starbench doc lists it)", name)}
			}
			return name, data, nil, nil
		}
		name = filepath.Clean(r.opts.PlanFile)
		data, err = os.ReadFile(name)
		if err != nil {
			return "", nil, nil, &PlanError{Err: fmt.Errorf("cannot read plan: %w", err)}
		}
		return name, data, nil, nil
	}
	if len(r.opts.Params) > 0 && strings.Join(r.opts.Params, "\x00") != strings.Join(rec.Manifest.Overrides, "\x00") {
		return "", nil, nil, usageErrorf("%s was run with -p %s; it repeats with the same parameters (give none, or exactly those)",
			rec.Dir, strings.Join(quoteAll(rec.Manifest.Overrides), " -p "))
	}
	if rec.bundleSHA256 != "" && !rec.bundleSeeded {
		return "", nil, nil, usageErrorf("%s was made without --seed: it has no run to repeat; run it with 'starbench run %s' (or make it with 'starbench bundle ... --seed N')", rec.Dir, rec.Dir)
	}
	seed := rec.Manifest.Seed
	if r.opts.Seed != nil && *r.opts.Seed != seed {
		return "", nil, nil, usageErrorf("%s was run with seed %d; it repeats with that seed", rec.Dir, seed)
	}
	r.opts.Params = rec.Manifest.Overrides
	r.opts.Seed = &seed
	name, data = rec.Manifest.Plan, rec.sources[rec.Manifest.Plan]
	if r.opts.Resume != nil {
		if gone := rec.InMemoryTargets(); len(gone) > 0 {
			return "", nil, nil, usageErrorf("%s cannot be resumed: its target %s kept its data in memory or in a throwaway server, gone with the run; repeat it with 'starbench rerun %s'",
				rec.Dir, strings.Join(gone, ", "), rec.Dir)
		}
		r.replay = newReplay(rec)
		if r.opts.PlanFile != "" {
			if data, err = os.ReadFile(r.opts.PlanFile); err != nil {
				return "", nil, nil, &PlanError{Err: fmt.Errorf("cannot read edited plan: %w", err)}
			}
		}
	}
	return name, data, rec.sources, nil
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// resumeManifest continues the manifest of a resumed run, noting the
// resumption (and an edited plan, whose copy is kept beside the others).
func (r *Run) resumeManifest(planData []byte) error {
	rec := r.opts.Resume
	if rec == nil {
		return nil
	}
	m := rec.Manifest
	m.Status, m.Ended, m.Error = results.StatusRunning, nil, ""
	m.CommandLine = r.opts.CommandLine
	resume := results.ResumeRecord{Time: time.Now().UTC()}
	if r.opts.PlanFile != "" {
		sum := sha256.Sum256(planData)
		resume.EditedPlan, resume.PlanSHA256 = r.opts.PlanFile, hex.EncodeToString(sum[:])
		resume.PlanCopy = fmt.Sprintf("sources/resume-%d-%s", len(m.Resumes)+1, filepath.Base(r.opts.PlanFile))
		r.editedPlanCopy = planData // written with the folder (ensureDir)
	}
	m.Resumes = append(m.Resumes, resume)
	if m.Targets == nil {
		m.Targets = map[string]any{}
	}
	r.manifest = m
	return nil
}
