package dbstar

import (
	"context"

	"go.starlark.net/starlark"

	"github.com/starbench/starbench/builtins/db/targets"
	"github.com/starbench/starbench/runner"
)

// openServer opens a target once per run; servers starbench started are
// stopped when the run ends. DSNs written in the plan are told apart by
// the whole DSN, not the server they reach (their Key): two of them for
// one server may name other users and databases.
func (st *runState) openServer(ctx context.Context, thread *starlark.Thread, rt targets.Resolved) (*targets.Server, error) {
	key := rt.Key()
	if rt.Target.Kind == targets.KindDSN && rt.Literal {
		key = "dsn " + rt.Spec
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if s, ok := st.servers[key]; ok {
		return s, nil
	}
	s, err := targets.Open(ctx, rt.Target)
	if err != nil {
		return nil, err
	}
	if s.Secret != "" {
		runner.HostOf(thread).Run().AddSecret(s.Secret)
	}
	if s.Banner != "" {
		runner.HostOf(thread).Out().Banner(s.Banner)
	}
	if s.Note != "" {
		runner.HostOf(thread).Out().Logf("%s", s.Note)
	}
	st.servers[key] = s
	return s, nil
}
