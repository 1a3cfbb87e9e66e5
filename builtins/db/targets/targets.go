// Package targets is the one place that turns a target into a server to
// connect to: it parses a spec (a DSN, "embedded", "sandbox:mariadb",
// "sandbox:tidb"),
// resolves which of a run's targets a plan means (by name, the default,
// or a spec written in the plan), and opens it: the embedded in-process
// server or a throwaway sandbox are started, a DSN gives its
// configuration. The db module, the CLI and the families' command lines
// share it; it has no Starlark in it.
package targets

import (
	"context"
	"fmt"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/internal/embedded"
	"github.com/starbench/starbench/internal/sandbox"
)

// Server is an opened target.
type Server struct {
	Config *mysql.Config
	// Info is what the manifest says about the target besides its server
	// version and variables: kind, engine, port.
	Info map[string]any
	// Secret is a password starbench made up (sandbox) and must redact.
	Secret string
	// Banner, when set, must be printed and recorded for every run on it.
	Banner string
	// Note is a line for the run log (where a sandbox lives).
	Note string
	stop func()
}

// Stop ends a server starbench started; it does nothing for a DSN.
func (s *Server) Stop() {
	if s.stop != nil {
		s.stop()
		s.stop = nil
	}
}

// Open resolves a parsed target, starting the embedded server or a sandbox
// when it names one.
func Open(ctx context.Context, t Target) (*Server, error) {
	switch t.Kind {
	case KindDSN:
		cfg, err := db.ParseDSN(t.DSN)
		if err != nil {
			return nil, err
		}
		return &Server{Config: cfg, Info: map[string]any{"kind": "dsn"}}, nil
	case KindEmbedded:
		srv, err := embedded.Start("sbtest")
		if err != nil {
			return nil, err
		}
		release := bench.InProcessServer()
		cfg := mysql.NewConfig()
		cfg.User, cfg.Net, cfg.Addr, cfg.DBName = "root", "tcp", srv.Addr(), "sbtest"
		cfg.Timeout = db.DefaultConnectTimeout
		return &Server{Config: cfg, Banner: embedded.Banner, stop: func() { _ = srv.Close(); release() },
			Info: map[string]any{"kind": "embedded", "engine": "go-mysql-server"}}, nil
	case KindSandbox:
		return openSandbox(ctx, t.Engine)
	}
	return nil, fmt.Errorf("unknown target kind %q", t.Kind)
}

// openSandbox starts a throwaway server of engine for the run.
func openSandbox(ctx context.Context, engine string) (*Server, error) {
	type started struct {
		cfg               *mysql.Config
		password, version string
		port              int
		dir               string
		stop              func() error
		info              map[string]any
	}
	var s started
	switch engine {
	case "mariadb":
		m, err := sandbox.StartMariaDB(ctx, sandbox.MariaDBOptions{})
		if err != nil {
			return nil, fmt.Errorf("start sandbox %s: %w", engine, err)
		}
		s = started{m.Config(), m.Password(), m.Version, m.Port, m.Dir, m.Stop, nil}
	case "tidb":
		t, err := sandbox.StartTiDB(ctx, sandbox.TiDBOptions{})
		if err != nil {
			return nil, fmt.Errorf("start sandbox %s: %w", engine, err)
		}
		s = started{t.Config(), t.Password(), t.Version, t.Port, t.Dir, t.Stop,
			map[string]any{"status_port": t.StatusPort, "store": "unistore", "binary": t.Binary}}
	default:
		return nil, fmt.Errorf("unknown sandbox engine %q (available: %s)", engine, strings.Join(SandboxEngines, ", "))
	}
	info := map[string]any{"kind": "sandbox", "engine": engine, "port": s.port}
	for k, v := range s.info {
		info[k] = v
	}
	note := fmt.Sprintf("started sandbox %s %s on 127.0.0.1:%d (data in %s)", engine, s.version, s.port, s.dir)
	if engine == "tidb" {
		note += fmt.Sprintf("; status and metrics on http://127.0.0.1:%v; unistore: one server, no PD, TiKV or BR", s.info["status_port"])
	}
	return &Server{Config: s.cfg, Secret: s.password, stop: func() { _ = s.stop() }, Info: info, Note: note}, nil
}
