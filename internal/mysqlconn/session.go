// Package mysqlconn is the MySQL client transport under starbench's
// workload engine (package bench): it opens one client session per worker
// and owns everything between a statement and the socket.
//
//   - Sessions are go-sql-driver/mysql connections used at the driver
//     level, with no database/sql pool in between: the driver connects,
//     authenticates and runs text statements and LOAD DATA LOCAL (Open,
//     Session; this file).
//   - Statements a workload prepares are prepared, executed and closed on
//     the same socket by the package's own binary-protocol path, which
//     skips results without decoding them (wire.go); on TLS or compressed
//     connections they go through the driver, and in text mode they are
//     sent as text with the arguments written in (text.go).
//   - The sockets: blocking ones read with raw system calls for runs with
//     few threads (rawconn.go), Go's netpoller without the runtime's
//     system-call bookkeeping for many (pollerconn.go), both reading ahead
//     16 KB at a time (readahead.go); which one a run uses, and the Ps
//     and GC setting its workers need, is decided in workers.go.
//
// Session implements the engine's Session interface and its optional
// extras (bench.LocalLoader, bench.ContextBinder, bench.Interrupter)
// without importing bench, which imports this package: bench adapts a
// *Session to its own interface in one line (Prepare's result type).
// Server errors come back as *mysql.MySQLError with their codes; a lost or
// out-of-step connection as the driver's and the socket's errors
// (mysql.ErrInvalidConn, driver.ErrBadConn, io.EOF, a *net.OpError, ...),
// which the engine's bench.IsConnectionLost recognises.
package mysqlconn

import (
	"cmp"
	"context"
	"database/sql/driver"
	"fmt"
	"io"
	"net"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"
)

// Stmt is a prepared statement of a Session: the engine's bench.Stmt.
type Stmt interface {
	// Exec runs the statement and reports the rows it affected.
	Exec(ctx context.Context, args ...any) (int64, error)
	// Query runs a statement that returns rows and reads its whole result
	// off the connection without decoding the rows: workloads time the
	// round trip (sysbench's do not look at the values either), and
	// decoding a 100-row range result cost an allocation a row.
	Query(ctx context.Context, args ...any) error
	// QueryRows runs a statement and hands each row of its result to row,
	// decoded (see rows.go), reporting how many there were.
	QueryRows(ctx context.Context, row func([]driver.Value) error, args ...any) (int64, error)
	Close() error
}

// Options are how Open sets a session up.
type Options struct {
	// TextStatements makes Prepare emulate prepared statements by sending
	// their text with the arguments written in (sysbench's
	// --db-ps-mode=disable); otherwise they are prepared on the server.
	TextStatements bool
	// Init runs on the new session before Open returns it: the session
	// settings of the handle a workload runs for.
	Init []string
}

// Open opens a dedicated connection with cfg, over blocking TCP sockets
// unless ctx says otherwise (see ForWorkers); prepared statements then run
// on the session's own binary-protocol path (see wireConn) where the
// connection is plain.
func Open(ctx context.Context, cfg *mysql.Config, o Options) (*Session, error) {
	cfg = cfg.Clone()
	// The session keeps the socket it dials: the driver runs without a
	// context (watching one per query costs more than the query), and
	// Interrupt wakes a blocked read by shutting the socket down.
	var raw net.Conn
	var sniff *sniffConn
	dial, mode := cfg.DialFunc, ioModeFor(ctx)
	cfg.DialFunc = func(ctx context.Context, network, addr string) (conn net.Conn, err error) {
		switch {
		case dial != nil:
			conn, err = dial(ctx, network, addr)
		case network == "tcp" && mode != ioPoller:
			conn, err = dialBlocking(ctx, network, addr, mode == ioDedicated)
		case network == "tcp":
			conn, err = dialPoller(ctx, network, addr)
		default:
			var d net.Dialer
			conn, err = d.DialContext(ctx, network, addr)
		}
		raw = conn
		if err != nil {
			return conn, err
		}
		sniff = &sniffConn{Conn: conn}
		return sniff, nil
	}
	// Lost connections are returned as errors, counted and reported; the
	// driver's own log lines would only interleave with the report.
	cfg.Logger = &mysql.NopLogger{}
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	dc, err := connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	s := &Session{conn: dc, raw: raw, text: o.TextStatements, loc: cmp.Or(cfg.Loc, time.UTC)}
	if !o.TextStatements && sniff != nil {
		_, blocking := raw.(*blockingConn)
		s.wire = newWireConn(sniff, cfg, blocking)
	}
	for _, q := range o.Init {
		if _, err := s.Exec(ctx, q); err != nil {
			s.Close()
			return nil, fmt.Errorf("session setting %q: %w", q, err)
		}
	}
	return s, nil
}

// Session is one go-sql-driver connection used directly, with its
// prepared statements on wire when that is set. Results are read and
// discarded: Query reports how many rows came back, Exec how many were
// affected. It is used by one goroutine at a time; Interrupt may be called
// from any.
type Session struct {
	conn   driver.Conn
	raw    net.Conn
	wire   *wireConn      // prepared statements, when the connection allows
	text   bool           // Options.TextStatements
	loc    *time.Location // of the times the server sends (the config's Loc)
	dest   []driver.Value
	bound  context.Context // see BindContext
	unbind func() bool
}

// readerIDs names the readers LoadLocal registers with the driver.
var readerIDs atomic.Uint64

// LoadLocal runs a LOAD DATA LOCAL INFILE statement, in which %s stands
// for the quoted file name, with the file's content read from r, and
// reports the rows affected (the driver's registered readers).
func (s *Session) LoadLocal(ctx context.Context, statement string, r io.Reader) (int64, error) {
	name := fmt.Sprintf("starbench-%d", readerIDs.Add(1))
	mysql.RegisterReaderHandler(name, func() io.Reader { return r })
	defer mysql.DeregisterReaderHandler(name)
	return s.Exec(ctx, fmt.Sprintf(statement, "'Reader::"+name+"'"))
}

// BindContext ties the session to ctx for the rest of its life: when ctx
// ends the session is interrupted (and unusable), and calls made with ctx
// skip the per-call watch, which costs a registration with the context on
// every query.
func (s *Session) BindContext(ctx context.Context) {
	if s.unbind != nil {
		s.unbind()
	}
	s.bound, s.unbind = ctx, context.AfterFunc(ctx, s.Interrupt)
}

// Interrupt wakes the session's blocked I/O from another goroutine; it
// then fails.
func (s *Session) Interrupt() {
	switch c := s.raw.(type) {
	case *blockingConn:
		c.Interrupt()
	case net.Conn:
		_ = c.Close()
	}
}

// watch interrupts the session when ctx ends during a call.
func (s *Session) watch(ctx context.Context) func() bool {
	if ctx.Done() == nil || ctx == s.bound {
		return unwatched
	}
	return context.AfterFunc(ctx, s.Interrupt)
}

func unwatched() bool { return true }

// Prepare makes a statement for repeated execution: prepared on the server
// or, with Options.TextStatements, emulated by sending the text with the
// arguments written in.
func (s *Session) Prepare(ctx context.Context, query string) (Stmt, error) {
	if s.text {
		return &textStmt{s: s, query: query}, nil
	}
	defer s.watch(ctx)()
	if s.wire != nil {
		st, err := s.wire.prepare(query)
		if err != nil {
			return nil, ctxErr(ctx, err)
		}
		return &wireSessionStmt{s: s, st: st, args: make(valueBuffer, 0, st.params)}, nil
	}
	st, err := s.conn.(driver.ConnPrepareContext).PrepareContext(context.Background(), query)
	if err != nil {
		return nil, ctxErr(ctx, err)
	}
	return &driverStmt{s: s, st: st, args: make(valueBuffer, 0, max(st.NumInput(), 0))}, nil
}

// Exec runs a statement that returns no rows and reports affected rows.
func (s *Session) Exec(ctx context.Context, query string) (int64, error) {
	defer s.watch(ctx)()
	res, err := s.conn.(driver.ExecerContext).ExecContext(context.Background(), query, nil)
	if err != nil {
		return 0, ctxErr(ctx, err)
	}
	return res.RowsAffected()
}

// Query runs a statement that returns rows and reports how many.
func (s *Session) Query(ctx context.Context, query string) (int64, error) {
	defer s.watch(ctx)()
	rows, err := s.conn.(driver.QueryerContext).QueryContext(context.Background(), query, nil)
	if err != nil {
		return 0, ctxErr(ctx, err)
	}
	n, err := s.drain(rows)
	return n, ctxErr(ctx, err)
}

func (s *Session) drain(rows driver.Rows) (int64, error) {
	cols := len(rows.Columns())
	if cap(s.dest) < cols {
		s.dest = make([]driver.Value, cols)
	}
	dest := s.dest[:cols]
	var n int64
	var err error
	for {
		if err = rows.Next(dest); err != nil {
			break
		}
		n++
	}
	if err == io.EOF {
		err = nil
	}
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// Close closes the connection.
func (s *Session) Close() error {
	if s.unbind != nil {
		s.unbind()
	}
	return s.conn.Close()
}

// ctxErr reports the context's error when it ended the call.
func ctxErr(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("%w (%v)", ctx.Err(), err)
	}
	return err
}

type driverStmt struct {
	s    *Session
	st   driver.Stmt
	args valueBuffer
}

// valueBuffer is a statement's arguments as the driver's value types, in
// a slice reused by every call (the driver and the wire path are done with
// it when the call returns).
type valueBuffer []driver.Value

// bind converts args into the buffer.
func (b *valueBuffer) bind(args []any) ([]driver.Value, error) {
	values := (*b)[:0]
	for i, a := range args {
		v, err := driverValue(a)
		if err != nil {
			return nil, fmt.Errorf("parameter %d: %w", i+1, err)
		}
		values = append(values, v)
	}
	*b = values
	return values, nil
}

func driverValue(a any) (driver.Value, error) {
	switch a.(type) {
	case nil, int64, uint64, float64, bool, []byte, string, time.Time: // what both paths send as is
		return a, nil
	}
	return driver.DefaultParameterConverter.ConvertValue(a)
}

// Exec and Query call the driver's context-free methods: the session
// handles cancellation itself (watch, BindContext), and the context ones
// cost a closure and a copy of the arguments per call.

func (d *driverStmt) Exec(ctx context.Context, args ...any) (int64, error) {
	values, err := d.args.bind(args)
	if err != nil {
		return 0, err
	}
	defer d.s.watch(ctx)()
	res, err := d.st.Exec(values)
	if err != nil {
		return 0, ctxErr(ctx, err)
	}
	return res.RowsAffected()
}

func (d *driverStmt) Query(ctx context.Context, args ...any) error {
	values, err := d.args.bind(args)
	if err != nil {
		return err
	}
	defer d.s.watch(ctx)()
	rows, err := d.st.Query(values)
	if err != nil {
		return ctxErr(ctx, err)
	}
	// Closing the rows reads the rest of the result without decoding it.
	return ctxErr(ctx, rows.Close())
}

func (d *driverStmt) Close() error { return d.st.Close() }

// wireSessionStmt is a statement prepared on the session's wireConn.
type wireSessionStmt struct {
	s    *Session
	st   *wireStmt
	args valueBuffer
}

func (w *wireSessionStmt) Exec(ctx context.Context, args ...any) (int64, error) {
	values, err := w.args.bind(args)
	if err != nil {
		return 0, err
	}
	defer w.s.watch(ctx)()
	n, err := w.st.execute(values)
	return n, ctxErr(ctx, err)
}

func (w *wireSessionStmt) Query(ctx context.Context, args ...any) error {
	_, err := w.Exec(ctx, args...)
	return err
}

func (w *wireSessionStmt) Close() error { return w.st.close() }
