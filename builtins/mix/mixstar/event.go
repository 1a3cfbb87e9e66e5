package mixstar

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.starlark.net/starlark"

	"github.com/starbench/starbench/builtins/db/dbstar"
	"github.com/starbench/starbench/builtins/mix"
	"github.com/starbench/starbench/builtins/sysbench"
)

// The escape hatch's Starlark side: mix.txn(event = fn) runs fn(ctx) per
// event on a Starlark thread of the worker's own, ctx giving the worker's
// statements (exec, query) and random draws. fn and what it captures are
// frozen when the transaction is declared, so that every worker may call
// it at once.

// maxEventSteps bounds the Starlark steps of one event: a loop that does
// not end stops the run with a message instead of hanging it.
const maxEventSteps = 10_000_000

// maxEventRows is how many rows ctx.query keeps unless told.
const maxEventRows = 10_000

// customOf makes the core's CustomMaker of an event function.
func customOf(fn starlark.Callable) mix.CustomMaker {
	return func(w *mix.CustomWorker) (mix.CustomBody, error) {
		ev := &eventCtx{
			thread: &starlark.Thread{Name: fmt.Sprintf("mix event, worker %d", w.ID)},
			worker: w,
			rand:   sysbench.NewRand(w.Seed^0x5bd1e9955bd1e995, &sysbench.Options{RandSpecIter: 12}),
		}
		ev.thread.Print = func(*starlark.Thread, string) {} // an event's print would flood the run's output
		return func(ctx context.Context, q mix.Querier) error {
			ev.bind(ctx)
			ev.q, ev.ctx = q, ctx
			ev.thread.SetMaxExecutionSteps(ev.thread.ExecutionSteps() + maxEventSteps)
			_, err := starlark.Call(ev.thread, fn, starlark.Tuple{ev}, nil)
			ev.q, ev.ctx = nil, nil
			return eventError(err)
		}, nil
	}
}

// eventError keeps a server's error as it is (the engine counts it by code
// and retries the transaction where the mix says so) and gives any other
// the event's Starlark backtrace.
func eventError(err error) error {
	var ee *starlark.EvalError
	if err == nil || !errors.As(err, &ee) {
		return err
	}
	var sent *statementError
	if errors.As(err, &sent) {
		return sent.err
	}
	return fmt.Errorf("event function: %s", ee.Backtrace())
}

// statementError marks the error of a statement the event sent (the
// server's, or a lost connection), to be handed back to the engine
// unchanged through the Starlark call stack.
type statementError struct{ err error }

func (e *statementError) Error() string { return e.err.Error() }
func (e *statementError) Unwrap() error { return e.err }

// eventCtx is the ctx an event function gets.
type eventCtx struct {
	thread *starlark.Thread
	worker *mix.CustomWorker
	rand   *sysbench.Rand
	q      mix.Querier
	ctx    context.Context
	bound  context.Context
	stop   func() bool
}

// bind cancels the worker's thread when the run's context ends.
func (e *eventCtx) bind(ctx context.Context) {
	if ctx == e.bound {
		return
	}
	if e.stop != nil {
		e.stop()
	}
	e.bound = ctx
	e.stop = context.AfterFunc(ctx, func() { e.thread.Cancel("the run stopped") })
}

var _ starlark.HasAttrs = (*eventCtx)(nil)

func (e *eventCtx) String() string        { return fmt.Sprintf("<mix event ctx, worker %d>", e.worker.ID) }
func (e *eventCtx) Type() string          { return "mix.event_ctx" }
func (e *eventCtx) Freeze()               {}
func (e *eventCtx) Truth() starlark.Bool  { return true }
func (e *eventCtx) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable: mix.event_ctx") }

// AttrNames lists ctx's members.
func (e *eventCtx) AttrNames() []string {
	return []string{"draw", "exec", "pattern", "query", "uniform", "worker"}
}

// Attr gives ctx's members.
func (e *eventCtx) Attr(name string) (starlark.Value, error) {
	switch name {
	case "worker":
		return starlark.MakeInt(e.worker.ID), nil
	case "draw":
		return starlark.NewBuiltin("ctx.draw", e.draw), nil
	case "exec":
		return starlark.NewBuiltin("ctx.exec", e.exec), nil
	case "query":
		return starlark.NewBuiltin("ctx.query", e.query), nil
	case "uniform":
		return starlark.NewBuiltin("ctx.uniform", e.uniform), nil
	case "pattern":
		return starlark.NewBuiltin("ctx.pattern", e.pattern), nil
	}
	return nil, nil
}

func (e *eventCtx) statement(b *starlark.Builtin, args starlark.Tuple) (string, []any, error) {
	if e.q == nil {
		return "", nil, fmt.Errorf("%s: ctx is used outside its event", b.Name())
	}
	if len(args) == 0 {
		return "", nil, fmt.Errorf("%s: missing the statement", b.Name())
	}
	sql, ok := starlark.AsString(args[0])
	if !ok {
		return "", nil, fmt.Errorf("%s: the statement must be a string, not %s", b.Name(), args[0].Type())
	}
	vals := make([]any, len(args)-1)
	for i, a := range args[1:] {
		v, err := dbstar.ToSQLArg(a)
		if err != nil {
			return "", nil, fmt.Errorf("%s: argument %d: %w", b.Name(), i+1, err)
		}
		vals[i] = v
	}
	return sql, vals, nil
}

// sent wraps a statement's error so that it reaches the engine as it is.
func sent(b *starlark.Builtin, err error) error {
	if err == nil {
		return nil
	}
	var ee *starlark.EvalError
	if errors.As(err, &ee) || errors.Is(err, context.Canceled) {
		return err
	}
	return &statementError{err: fmt.Errorf("%s: %w", b.Name(), err)}
}

func (e *eventCtx) exec(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(kwargs) > 0 {
		return nil, fmt.Errorf("%s: takes the statement and its arguments, in order, and no keywords", b.Name())
	}
	sql, vals, err := e.statement(b, args)
	if err != nil {
		return nil, err
	}
	n, err := e.q.Exec(e.ctx, sql, vals...)
	if err != nil {
		return nil, sent(b, err)
	}
	return starlark.MakeInt64(n), nil
}

func (e *eventCtx) query(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	limit := maxEventRows
	for _, kv := range kwargs {
		if k, _ := starlark.AsString(kv[0]); k != "limit" {
			return nil, fmt.Errorf("%s: unexpected keyword %s (it takes limit =)", b.Name(), kv[0])
		}
		if err := starlark.AsInt(kv[1], &limit); err != nil || limit < 1 {
			return nil, fmt.Errorf("%s: limit must be a positive integer, got %s", b.Name(), kv[1])
		}
	}
	sql, vals, err := e.statement(b, args)
	if err != nil {
		return nil, err
	}
	rows, err := e.q.Query(e.ctx, sql, limit, vals...)
	if err != nil {
		return nil, sent(b, err)
	}
	out := make([]starlark.Value, len(rows))
	for i, row := range rows {
		t := make(starlark.Tuple, len(row))
		for j, v := range row {
			t[j] = dbstar.FromSQLValue(v)
		}
		out[i] = t
	}
	return starlark.NewList(out), nil
}

func (e *eventCtx) uniform(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var lo, hi int64
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 2, &lo, &hi); err != nil {
		return nil, err
	}
	if lo > hi {
		return nil, fmt.Errorf("%s: lo %d is above hi %d", b.Name(), lo, hi)
	}
	return starlark.MakeInt64(e.rand.Uniform(lo, hi)), nil
}

func (e *eventCtx) draw(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var g *GenValue
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &g); err != nil {
		return nil, err
	}
	v, err := e.worker.Draw(g.Gen)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	switch x := v.(type) {
	case []byte:
		return starlark.String(x), nil
	case time.Time:
		return starlark.String(x.Format(time.DateTime)), nil
	}
	return dbstar.FromSQLValue(v), nil
}

func (e *eventCtx) pattern(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var template string
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &template); err != nil {
		return nil, err
	}
	return starlark.String(e.rand.String(template)), nil
}
