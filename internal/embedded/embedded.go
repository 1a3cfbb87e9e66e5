//go:build !slim

// Package embedded runs go-mysql-server in process as starbench's default
// target, so plans can be written and tried with zero set-up. It is the only
// package of the starbench binary that imports go-mysql-server (the tests'
// TiDB stand-in, internal/testutil/tidbsql, is the other); build with -tags
// slim to leave it out.
//
// Measured limits: primary-key lookups scan whole tables and concurrent
// writes can be lost, so numbers taken against it say nothing about a real
// database.
package embedded

import (
	"fmt"
	"net"
	"sync"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/memory"
	"github.com/dolthub/go-mysql-server/server"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/sirupsen/logrus"
)

// Available reports whether this binary includes the embedded server.
const Available = true

// Banner is printed and recorded for every run against the embedded server.
const Banner = "NOTE: this run uses the embedded go-mysql-server (in memory, in process). It is for trying and\n" +
	"authoring plans: its primary-key lookups scan whole tables and concurrent writes can be lost, so its\n" +
	"numbers say nothing about a real database. Use --target DSN, --target sandbox:mariadb or --target sandbox:tidb to measure."

// Server is a running embedded server listening on a loopback port.
type Server struct {
	srv  *server.Server
	addr string
	done chan error
}

// Version is what the embedded server reports as VERSION().
const Version = "8.0.31-go-mysql-server"

// Start listens on 127.0.0.1 with a random port and serves the given
// databases (created empty).
func Start(databases ...string) (*Server, error) {
	logrus.SetLevel(logrus.ErrorLevel)
	var dbs []sql.Database
	for _, name := range databases {
		db := memory.NewDatabase(name)
		db.BaseDatabase.EnablePrimaryKeyIndexes()
		dbs = append(dbs, db)
	}
	provider := memory.NewDBProvider(dbs...)
	engine := sqle.NewDefault(provider)
	engine.Analyzer.Catalog.StatsProvider = &serializedStats{inner: engine.Analyzer.Catalog.StatsProvider}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("embedded server: %w", err)
	}
	cfg := server.Config{Protocol: "tcp", Listener: ln, Version: Version}
	srv, err := server.NewServer(cfg, engine, sql.NewContext, memory.NewSessionBuilder(provider), nil)
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("embedded server: %w", err)
	}
	s := &Server{srv: srv, addr: ln.Addr().String(), done: make(chan error, 1)}
	go func() { s.done <- srv.Start() }()
	return s, nil
}

// Addr is the host:port the server listens on.
func (s *Server) Addr() string { return s.addr }

// Close stops the server and drops its data.
func (s *Server) Close() error {
	err := s.srv.Close()
	<-s.done
	return err
}

// serializedStats lets one caller at a time into go-mysql-server's in-memory
// statistics, whose maps have no lock of their own: two ANALYZE TABLE at once
// (conn.analyze(tables, parallel=2)) crashed the process with a concurrent
// map write.
type serializedStats struct {
	mu    sync.Mutex
	inner sql.StatsProvider
}

func (s *serializedStats) GetTableStats(ctx *sql.Context, db string, table sql.Table) ([]sql.Statistic, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inner.GetTableStats(ctx, db, table)
}

func (s *serializedStats) AnalyzeTable(ctx *sql.Context, table sql.Table, db string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inner.AnalyzeTable(ctx, table, db)
}

func (s *serializedStats) SetStats(ctx *sql.Context, stats sql.Statistic) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inner.SetStats(ctx, stats)
}

func (s *serializedStats) GetStats(ctx *sql.Context, qual sql.StatQualifier, cols []string) (sql.Statistic, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inner.GetStats(ctx, qual, cols)
}

func (s *serializedStats) DropStats(ctx *sql.Context, qual sql.StatQualifier, cols []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inner.DropStats(ctx, qual, cols)
}

func (s *serializedStats) DropDbStats(ctx *sql.Context, db string, flush bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inner.DropDbStats(ctx, db, flush)
}

func (s *serializedStats) RowCount(ctx *sql.Context, db string, table sql.Table) (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inner.RowCount(ctx, db, table)
}

func (s *serializedStats) DataLength(ctx *sql.Context, db string, table sql.Table) (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inner.DataLength(ctx, db, table)
}
