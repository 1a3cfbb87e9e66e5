package runner

import (
	"errors"
	"fmt"

	"go.starlark.net/starlark"
)

// Unknown is a dry run's stand-in for a value only a real run can know,
// such as whether a consistency check passed. A plan may carry it, print it
// and store it, but testing it for truth (if, not, and, or, bool()) would
// pick a branch the real run may not take: that stops the dry run with an
// error at the plan line that tested it (a *PlanError, exit 2).
type Unknown struct {
	step *Step
	what string // e.g. "tpcc.check(...).passed"
	hint string // what to do instead, or ""
}

var _ starlark.Value = (*Unknown)(nil)

// Unknown returns the placeholder for a value of this step's result that
// only a real run can know; what names it for the user ("passed"), hint
// says what a plan can do instead of branching on it ("" for nothing).
func (s *Step) Unknown(what, hint string) *Unknown {
	return &Unknown{step: s, what: s.info.Builtin + "(...)." + what, hint: hint}
}

func (u *Unknown) String() string { return "<" + u.what + ": known only in a real run>" }
func (u *Unknown) Type() string   { return "unknown" }
func (u *Unknown) Freeze()        {}
func (u *Unknown) Hash() (uint32, error) {
	return 0, fmt.Errorf("unhashable: %s is known only in a real run", u.what)
}

// Truth cannot return an error, so it records one in the run and cancels
// the thread, which stops before its next instruction; the run's error is
// then the recorded one.
func (u *Unknown) Truth() starlark.Bool {
	s := u.step
	pos := s.pos
	if s.thread != nil && s.thread.CallStackDepth() > 0 {
		pos = s.thread.CallFrame(0).Pos.String()
	}
	msg := fmt.Sprintf("%s: %s is known only in a real run (step %s): a dry run cannot test it, as the real run may take the other branch", pos, u.what, s.id)
	if u.hint != "" {
		msg += "; " + u.hint
	}
	err := errors.New(msg)
	s.run.failDryRun(err)
	if s.thread != nil {
		s.thread.Cancel(err.Error())
	}
	return false
}

// failDryRun keeps the first error a placeholder raised; classify returns
// it instead of the cancellation it caused.
func (r *Run) failDryRun(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.placeholderErr == nil {
		r.placeholderErr = err
	}
}

// stdlibBuiltins are the globals only modules of the standard library
// have: what a plan must not branch on (whether the run is a dry run), so
// that `check` shows the steps the real run takes.
func stdlibBuiltins() starlark.StringDict {
	return starlark.StringDict{
		"dry_run": starlark.NewBuiltin("dry_run", dryRunBuiltin),
	}
}

// dryRunBuiltin is dry_run(): True when the run only records steps. A
// module uses it to tell a dry run's empty placeholder output from a real
// command that printed nothing (which is then an error).
func dryRunBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 0); err != nil {
		return nil, err
	}
	r := runOf(thread)
	return starlark.Bool(r != nil && r.opts.DryRun), nil
}
