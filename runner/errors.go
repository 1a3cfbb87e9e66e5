package runner

import (
	"errors"
	"fmt"

	"go.starlark.net/starlark"
)

// PlanError reports a plan that cannot be evaluated at all: a syntax or
// resolve error, a load() that fails, or a missing main. The CLI maps it to
// exit code 2.
type PlanError struct {
	Err error
}

func (e *PlanError) Error() string { return e.Err.Error() }
func (e *PlanError) Unwrap() error { return e.Err }

// UsageError reports bad input from the command line, such as an unknown or
// mistyped -p parameter. The CLI maps it to exit code 2.
type UsageError struct {
	Msg string
}

func (e *UsageError) Error() string { return e.Msg }

func usageErrorf(format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...)}
}

// ErrInterrupted is returned (wrapped) when the run was cancelled by its
// context, typically SIGINT or SIGTERM.
var ErrInterrupted = errors.New("interrupted")

// BadPlanInput is a builtin's complaint about what the plan gave it that
// running cannot fix (loads that cannot run as one step, say): a
// *UsageError, exit 2, that starts with the position of the call in the
// plan.
func BadPlanInput(thread *starlark.Thread, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if thread != nil && thread.CallStackDepth() > 1 {
		msg = thread.CallFrame(1).Pos.String() + ": " + msg
	}
	return &UsageError{Msg: msg}
}
