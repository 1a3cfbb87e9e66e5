package runner

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.starlark.net/starlark"

	"github.com/starbench/starbench/runner/results"
)

// StepInfo describes a builtin call that does I/O. It is what the journal
// records when the step starts and what dry-run lists.
type StepInfo struct {
	Builtin string         // module.function, e.g. "db.exec"
	Args    map[string]any // JSON-able summary of the arguments
	Text    string         // the SQL or command, shown in step lists
	Handle  string         // the handle the step acts on, if any
	// Detail is the whole of what Text abbreviates (every statement of a
	// batch, the content of a file a step writes), for a reviewer to read
	// in the dry-run list (check --verbose). It is neither journaled nor
	// part of the step's hash: Text and Args are.
	Detail string
	// State marks a step that sets or reads server or session state (a
	// SET statement, conn.variables(), SHOW VARIABLES or CONFIG): a resume
	// runs it again instead of replaying its recorded result, since a
	// restart, a redeploy or a change made behind the plan's back may have
	// undone what it set or changed what it read. A read that finds
	// something else than the run recorded is said (Replay's note).
	State bool
}

// HandleSpec is what a step that returns a handle (a connection, a host, a
// cluster) records so that the handle can be opened again later; the
// journal keeps it (results.HandleSpec).
type HandleSpec = results.HandleSpec

// Outcome is what a step's action produced.
type Outcome struct {
	Value  starlark.Value // returned to the plan
	Record any            // JSON-able result kept in the journal
	Handle *HandleSpec    // set by steps that return a handle
}

// Action is the work of a step called from Starlark.
type Action struct {
	// Run does the I/O. It is not called in dry-run mode.
	Run func(s *Step) (Outcome, error)
	// Placeholder returns the dry-run value, of the type Run would return.
	// Nil means None.
	Placeholder func(s *Step) starlark.Value
	// Replay rebuilds the value of a step a resumed run already completed,
	// from the record Run returned then. Steps without Replay (local and
	// idempotent ones, like writing a report) run again on resume.
	Replay func(s *Step, record json.RawMessage) (starlark.Value, error)
}

// Step is one journaled builtin call. Its id is hierarchical: top-level steps
// of the plan thread are "1", "2", ...; steps started inside step "2" (by Go
// code through Child, or by Starlark code the step calls back) are "2.1",
// "2.2", ...
type Step struct {
	run    *Run
	id     string
	info   StepInfo
	pos    string
	thread *starlark.Thread // the calling thread, nil for Go-level children
	parent *Step            // the step that made it with Child, nil for a plan's step

	mu        sync.Mutex
	nextChild int
	threads   int // threads made by NewThread under this step
}

// ID returns the step's hierarchical id.
func (s *Step) ID() string { return s.id }

// Seed is the step's own seed, derived from the run seed and the step id:
// every step has its own random stream, and the same run seed repeats it.
// Below 2^53, as seeds are kept in JSON.
func (s *Step) Seed() int64 {
	var buf [8]byte
	binary.LittleEndian.PutUint64(buf[:], uint64(s.run.seed))
	sum := sha256.Sum256(append(buf[:], s.id...))
	return int64(binary.LittleEndian.Uint64(sum[:8]) & (1<<53 - 1))
}

// Context is cancelled when the run is interrupted.
func (s *Step) Context() context.Context { return s.run.ctx }

// DryRun reports whether the run only records steps.
func (s *Step) DryRun() bool { return s.run.opts.DryRun }

// Logf writes a line to the run's log, prefixed with the step id.
func (s *Step) Logf(format string, args ...any) {
	s.run.logf("[step %s] %s", s.id, fmt.Sprintf(format, args...))
}

// AddSecret registers a value that must never appear in output or results.
func (s *Step) AddSecret(secret string) { s.run.redactor.Add(secret) }

// OutputDir makes the folder for this step's files inside the results
// directory, steps/<id>-<label>/, and returns its path. In dry-run mode it
// returns "" and makes nothing.
func (s *Step) OutputDir(label string) (string, error) {
	if s.DryRun() {
		return "", nil
	}
	if err := s.run.ensureDir(); err != nil {
		return "", err
	}
	if s.run.dir == "" { // a resume's state step, run again while replaying
		return "", fmt.Errorf("step %s: no results folder yet (a resumed run writes none until a step runs anew)", s.id)
	}
	dir := results.StepDir(s.run.dir, s.id, label)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return dir, nil
}

// Child allocates the next child step. Children are numbered in the order
// Child is called, so allocate them before starting goroutines to keep ids
// stable across runs.
func (s *Step) Child(info StepInfo) *Step {
	s.mu.Lock()
	s.nextChild++
	n := s.nextChild
	s.mu.Unlock()
	return &Step{run: s.run, id: s.id + "." + strconv.Itoa(n), info: info, pos: s.pos, parent: s}
}

// ExecuteOrReplay journals a child step (from Child) around run, as
// Execute does, unless the run resumes one in which this child already
// completed: its parent started there with the same builtin and
// arguments, and it completed with the same. Then replay is handed the
// record run returned then, the child is journaled as replayed and
// replayed is true. A step whose children depend on each other's
// results (a capacity search's probes) takes up its completed children
// so; a plan's own steps are replayed by the runner.
func (s *Step) ExecuteOrReplay(run func(*Step) (any, error), replay func(json.RawMessage) error) (replayed bool, err error) {
	r := s.run
	if r.replay != nil && !r.opts.DryRun && s.parent != nil {
		hash := s.hash()
		if done := r.replay.completedChild(s.id, hash, s.parent.id, s.parent.hash()); done != nil {
			_, err := s.replayed(done, hash, func(_ *Step, raw json.RawMessage) (starlark.Value, error) {
				return starlark.None, replay(raw)
			})
			return err == nil, err
		}
	}
	return false, s.Execute(run)
}

// Execute journals the step around fn, which returns the record to keep.
// In dry-run mode fn is not called; the step is only listed.
func (s *Step) Execute(fn func(*Step) (any, error)) error {
	_, err := s.execute(func(st *Step) (Outcome, error) {
		rec, err := fn(st)
		return Outcome{Record: rec}, err
	}, nil, nil)
	return err
}

// NotePlaceholder records, in dry-run mode, that the plan's control flow
// depended on this step's placeholder result; what says how. The position
// is the Starlark statement evaluating at the time of the call.
func (s *Step) NotePlaceholder(what string) {
	if !s.DryRun() {
		return
	}
	pos := s.pos
	if s.thread != nil && s.thread.CallStackDepth() > 0 {
		pos = s.thread.CallFrame(0).Pos.String()
	}
	s.run.addNote(fmt.Sprintf("%s: %s a placeholder result of step %s (%s); a real run may take another path", pos, what, s.id, s.info.Builtin))
}

// call runs a builtin's step (Host.Step): it allocates the step id,
// journals start and end, runs the action (or, in dry-run mode, returns its
// placeholder) and returns the value to the plan.
func call(thread *starlark.Thread, info StepInfo, act Action) (starlark.Value, error) {
	r := runOf(thread)
	if r == nil {
		return nil, fmt.Errorf("%s: not inside a starbench run", info.Builtin)
	}
	st := threadState(thread)
	var s *Step
	if n := len(st.active); n > 0 {
		s = st.active[n-1].Child(info)
	} else {
		st.next++
		s = &Step{run: r, id: st.prefix + strconv.Itoa(st.next), info: info}
	}
	s.thread = thread
	if thread.CallStackDepth() > 1 {
		s.pos = thread.CallFrame(1).Pos.String()
	}
	st.active = append(st.active, s)
	defer func() { st.active = st.active[:len(st.active)-1] }()
	out, err := s.execute(act.Run, act.Placeholder, act.Replay)
	if err != nil {
		return nil, err
	}
	if out.Value == nil {
		return starlark.None, nil
	}
	return out.Value, nil
}

func (s *Step) execute(run func(*Step) (Outcome, error), placeholder func(*Step) starlark.Value,
	replayFn func(*Step, json.RawMessage) (starlark.Value, error)) (Outcome, error) {
	r := s.run
	hash := s.hash()
	var again *results.JournalRecord // a completed state step run again on resume
	if r.replay != nil && !r.opts.DryRun {
		done, err := r.replay.lookup(s.id, s.info, hash, s.pos)
		if err != nil {
			return Outcome{}, err
		}
		if done != nil && replayFn != nil && !s.info.State {
			return s.replayed(done, hash, replayFn)
		}
		if done != nil && s.info.State {
			again = done
		}
	}
	if r.opts.DryRun {
		r.listStep(StepSummary{ID: s.id, Builtin: s.info.Builtin, Text: r.redact(s.info.Text), Detail: r.redact(s.info.Detail),
			Pos: s.pos, Handle: s.info.Handle, Args: s.info.Args})
		out := Outcome{Value: starlark.None}
		if placeholder != nil {
			out.Value = placeholder(s)
		}
		return out, nil
	}
	if err := r.ensureDir(); err != nil {
		return Outcome{}, err
	}
	start := time.Now()
	if err := r.writeJournal(&results.JournalRecord{
		Event: "start", ID: s.id, Builtin: s.info.Builtin, Args: s.info.Args, Hash: hash,
		Text: s.info.Text, Handle: s.info.Handle, Pos: s.pos, Time: start.UTC(),
	}, false); err != nil {
		return Outcome{}, err
	}
	r.countStep()
	var observers []StepObserver
	if !strings.Contains(s.id, ".") {
		observers = r.observers()
	}
	if len(observers) > 0 {
		n, text := r.topStep(), r.redact(s.info.Text)
		for _, o := range observers {
			o.StepStarted(n, s.id, s.info.Builtin, text)
		}
	}
	var out Outcome
	var err error
	if err = r.ctx.Err(); err == nil {
		out, err = run(s)
	}
	end := &results.JournalRecord{
		Event: "end", ID: s.id, Builtin: s.info.Builtin, Hash: hash, Time: time.Now().UTC(),
		DurationMS: float64(time.Since(start).Microseconds()) / 1000, Outcome: "ok", Returns: out.Handle,
	}
	switch {
	case err != nil && (r.ctx.Err() != nil || errors.Is(err, context.Canceled)):
		end.Outcome, end.Error = "cancelled", err.Error()
	case err != nil:
		end.Outcome, end.Error = "error", err.Error()
	case out.Record != nil:
		data, merr := json.Marshal(out.Record)
		if merr != nil {
			end.Outcome, end.Error = "error", "cannot record result: "+merr.Error()
			err = merr
		} else {
			end.Result = data
		}
	}
	if again != nil && err == nil {
		r.replay.ranAgain(s, again, end.Result, r.stderr)
	}
	if jerr := r.writeJournal(end, true); jerr != nil && err == nil {
		err = jerr
	}
	for _, o := range observers {
		o.StepEnded(s.id, end.Outcome)
	}
	return out, err
}

// replayed returns a completed step's recorded result on resume.
func (s *Step) replayed(done *results.JournalRecord, hash string, replayFn func(*Step, json.RawMessage) (starlark.Value, error)) (Outcome, error) {
	r := s.run
	raw, err := r.replay.result(done)
	if err != nil {
		return Outcome{}, fmt.Errorf("resume: step %s: %w", s.id, err)
	}
	v, err := replayFn(s, raw)
	if err != nil {
		return Outcome{}, fmt.Errorf("resume: step %s (%s): %w", s.id, s.info.Builtin, err)
	}
	if err := r.ensureDir(); err != nil {
		return Outcome{}, err
	}
	r.replay.mu.Lock()
	r.replay.replayed++
	r.replay.mu.Unlock()
	if err := r.writeJournal(&results.JournalRecord{Event: "replayed", ID: s.id, Builtin: s.info.Builtin, Hash: hash, Time: time.Now().UTC()}, false); err != nil {
		return Outcome{}, err
	}
	if v == nil {
		v = starlark.None
	}
	return Outcome{Value: v}, nil
}

// hash identifies a step by what it does: builtin, arguments, text and the
// handle it acts on. Secrets are redacted before hashing.
func (s *Step) hash() string {
	data, _ := json.Marshal(struct {
		B string         `json:"b"`
		A map[string]any `json:"a,omitempty"`
		T string         `json:"t,omitempty"`
		H string         `json:"h,omitempty"`
	}{s.info.Builtin, s.info.Args, s.info.Text, s.info.Handle})
	sum := sha256.Sum256([]byte(s.run.redact(string(data))))
	return "sha256:" + hex.EncodeToString(sum[:12])
}

// StepSummary is one line of a dry-run step list.
type StepSummary struct {
	ID      string
	Builtin string
	Text    string
	Detail  string // StepInfo.Detail, redacted
	Pos     string
	Handle  string
	Args    map[string]any // as the journal would record them (secrets not masked: for tests)
}

// threadSteps is the step numbering state of one Starlark thread.
type threadSteps struct {
	prefix string  // "" for the plan's main thread
	next   int     // last top-level number used
	active []*Step // steps currently executing on this thread
}

const threadStepsKey = "starbench.steps"

func threadState(thread *starlark.Thread) *threadSteps {
	st, _ := thread.Local(threadStepsKey).(*threadSteps)
	if st == nil {
		st = &threadSteps{}
		thread.SetLocal(threadStepsKey, st)
	}
	return st
}
