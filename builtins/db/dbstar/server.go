package dbstar

import (
	"context"
	"fmt"

	"github.com/go-sql-driver/mysql"
	"go.starlark.net/starlark"

	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/builtins/embedded"
	"github.com/starbench/starbench/builtins/sandbox"
	"github.com/starbench/starbench/runner"
)

// server is a target the module started for this run.
type server struct {
	cfg  *mysql.Config
	info map[string]any // what the manifest says about it
	stop func()
}

// startServer starts (once per target) the embedded server or a sandbox,
// and returns how to connect to it.
func (st *runState) startServer(ctx context.Context, thread *starlark.Thread, rt resolvedTarget) (*server, error) {
	key := rt.key()
	st.mu.Lock()
	defer st.mu.Unlock()
	if s, ok := st.servers[key]; ok {
		return s, nil
	}
	var s *server
	switch rt.target.Kind {
	case db.TargetEmbedded:
		srv, err := embedded.Start("sbtest")
		if err != nil {
			return nil, err
		}
		cfg := mysql.NewConfig()
		cfg.User, cfg.Net, cfg.Addr, cfg.DBName = "root", "tcp", srv.Addr(), "sbtest"
		cfg.Timeout = db.DefaultConnectTimeout
		s = &server{cfg: cfg, stop: func() { _ = srv.Close() },
			info: map[string]any{"kind": "embedded", "engine": "go-mysql-server"}}
		runner.Banner(thread, embedded.Banner)
	case db.TargetSandbox:
		m, err := sandbox.StartMariaDB(ctx, sandbox.MariaDBOptions{})
		if err != nil {
			return nil, fmt.Errorf("start sandbox %s: %w", rt.target.Engine, err)
		}
		runner.AddSecret(thread, m.Password())
		s = &server{cfg: m.Config(), stop: func() { _ = m.Stop() },
			info: map[string]any{"kind": "sandbox", "engine": rt.target.Engine, "port": m.Port}}
		runner.Logf(thread, "started sandbox %s %s on 127.0.0.1:%d (data in %s)", rt.target.Engine, m.Version, m.Port, m.Dir)
	default:
		return nil, fmt.Errorf("target %q is not a server starbench starts", rt.spec)
	}
	st.servers[key] = s
	return s, nil
}
