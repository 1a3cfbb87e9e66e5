package bench

import (
	"context"
	"database/sql/driver"
	"fmt"
	"io"
	"sync/atomic"
)

// Session is one client connection as workloads see it. Results are read
// and discarded: a workload learns how many rows came back (Query) or were
// affected (Exec), which is what query counting needs.
type Session interface {
	// Prepare makes a statement for repeated execution. Depending on the
	// prepared-statement mode it is prepared on the server or emulated by
	// sending the text with the arguments written in.
	Prepare(ctx context.Context, query string) (Stmt, error)
	// Exec runs a statement that returns no rows and reports affected rows.
	Exec(ctx context.Context, query string) (int64, error)
	// Query runs a statement that returns rows and reports how many.
	Query(ctx context.Context, query string) (int64, error)
	Close() error
}

// Stmt is a prepared statement of a Session.
type Stmt interface {
	Exec(ctx context.Context, args ...any) (int64, error)
	// Query runs a statement that returns rows and reads its whole result
	// off the connection without decoding the rows: workloads time the
	// round trip (sysbench's do not look at the values either), and
	// decoding a 100-row range result cost an allocation a row.
	Query(ctx context.Context, args ...any) error
	Close() error
}

// RowStmt is a Stmt that also hands back the rows it reads, decoded, for
// workloads that use what they read (TPC-C's transactions). Statements of
// the engine's own transport are RowStmts.
type RowStmt interface {
	Stmt
	// QueryRows runs the statement and calls row for each row of its
	// result: integers as int64 (uint64 above its range), FLOAT and
	// DOUBLE as float64, dates and times as time.Time, NULL as nil, and
	// the rest (DECIMAL, characters) as []byte, valid only during the
	// call. When row returns an error the rest of the result is read and
	// dropped and that error returned. It reports how many rows there were.
	QueryRows(ctx context.Context, row func(cols []driver.Value) error, args ...any) (int64, error)
}

// PSMode says how statements a workload prepares reach the server.
type PSMode string

const (
	// PSAuto prepares statements on the server (binary protocol).
	PSAuto PSMode = "auto"
	// PSDisable sends every statement as text with its arguments written in.
	PSDisable PSMode = "disable"
)

// Connector opens sessions for workers.
type Connector interface {
	Connect(ctx context.Context) (Session, error)
}

// Interrupter is a Session whose blocked I/O can be woken from another
// goroutine (it then fails).
type Interrupter interface {
	Interrupt()
}

// LocalLoader is a Session that can send a LOAD DATA LOCAL INFILE statement
// with the file's content read from r.
type LocalLoader interface {
	// LoadLocal runs statement, in which %s stands for the quoted file
	// name, and reports the rows affected.
	LoadLocal(ctx context.Context, statement string, r io.Reader) (int64, error)
}

// ContextBinder is a Session that can be tied to one context for the rest
// of its life: when that context ends the session is interrupted (and
// unusable), and calls made with it skip the per-call watch, which costs a
// registration with the context on every query.
type ContextBinder interface {
	BindContext(ctx context.Context)
}

// RoundRobin spreads sessions over several connectors in turn, as sysbench
// does with several --mysql-host values.
type RoundRobin struct {
	Connectors []Connector
	next       atomic.Uint64
}

// Database is the first connector's database (see SQLConnector.Database),
// "" when it does not say.
func (r *RoundRobin) Database() string {
	if len(r.Connectors) > 0 {
		if d, ok := r.Connectors[0].(interface{ Database() string }); ok {
			return d.Database()
		}
	}
	return ""
}

// Connect opens a session on the next connector.
func (r *RoundRobin) Connect(ctx context.Context) (Session, error) {
	if len(r.Connectors) == 0 {
		return nil, fmt.Errorf("no endpoints to connect to")
	}
	i := r.next.Add(1) - 1
	return r.Connectors[i%uint64(len(r.Connectors))].Connect(ctx)
}

// SchemaOf is the database conn's sessions start in, when the connector
// says (SQLConnector and RoundRobin do), for messages that must name the
// schema they act on.
func SchemaOf(conn Connector) string {
	if d, ok := conn.(interface{ Database() string }); ok {
		return d.Database()
	}
	return ""
}

// Qualified is schema.table, or table when the schema is not known.
func Qualified(schema, table string) string {
	if schema == "" {
		return table
	}
	return schema + "." + table
}
