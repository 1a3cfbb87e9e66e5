package bench

import (
	"context"

	"github.com/go-sql-driver/mysql"

	"github.com/starbench/starbench/internal/mysqlconn"
)

// SQLConnector opens sessions on starbench's own MySQL transport
// (internal/mysqlconn): go-sql-driver/mysql used at the driver level (no
// database/sql pool in between), over blocking TCP sockets when a run has
// few threads and Go's netpoller when it has many; prepared statements run
// on the transport's own binary-protocol path where the connection is
// plain. The cheapest path per query we measured (see the README's Speed
// section and cmd/bench-vs-sysbench).
type SQLConnector struct {
	Config *mysql.Config
	PS     PSMode
	// Init runs on every new session, before it is handed out (and again
	// on each reconnect): the session settings of the handle a workload
	// runs for.
	Init []string
}

// NewSQLConnector makes a connector for a go-sql-driver configuration.
func NewSQLConnector(cfg *mysql.Config, ps PSMode) *SQLConnector {
	return &SQLConnector{Config: cfg, PS: ps}
}

// Connect opens a dedicated connection. Its sessions are also a
// LocalLoader, a ContextBinder and an Interrupter.
func (c *SQLConnector) Connect(ctx context.Context) (Session, error) {
	s, err := mysqlconn.Open(ctx, c.Config, mysqlconn.Options{TextStatements: c.PS == PSDisable, Init: c.Init})
	if err != nil {
		return nil, err
	}
	return sqlSession{s}, nil
}

// Database is the database the connector's sessions start in ("" for
// none), for messages that must name the schema they act on.
func (c *SQLConnector) Database() string { return c.Config.DBName }

// sqlSession is a transport session as a Session. The transport cannot
// import this package (it imports the transport), so its Prepare returns
// its own mysqlconn.Stmt, an interface with Stmt's methods: only Prepare
// needs this adapter; the rest, with LoadLocal, BindContext and Interrupt,
// is the transport's as is. A struct of one pointer, it is stored in a
// Session without an allocation.
type sqlSession struct{ *mysqlconn.Session }

// Prepare implements Session.
func (s sqlSession) Prepare(ctx context.Context, query string) (Stmt, error) {
	st, err := s.Session.Prepare(ctx, query)
	if err != nil {
		return nil, err
	}
	return st, nil
}

var (
	_ Session       = sqlSession{}
	_ LocalLoader   = sqlSession{}
	_ ContextBinder = sqlSession{}
	_ Interrupter   = sqlSession{}
	_ RowStmt       = mysqlconn.Stmt(nil) // the same methods
)

// InProcessServer tells the engine that a database server runs inside this
// process until release is called (the embedded target does). Its workers
// then wait for answers through the Go runtime instead of each holding a
// P of its own: holding every P would leave the server none to answer with.
func InProcessServer() (release func()) { return mysqlconn.InProcessServer() }
