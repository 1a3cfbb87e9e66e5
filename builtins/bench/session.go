package bench

import (
	"context"
	"database/sql/driver"
	"fmt"
	"io"
	"math"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"
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

// SQLConnector opens sessions with go-sql-driver/mysql, used at the driver
// level (no database/sql pool in between), over blocking TCP sockets when
// a run has few threads (see BlockingIO); prepared statements then run on
// the session's own binary-protocol path (see wireConn) where the
// connection is plain. The cheapest path per query we measured (see
// cmd/bench-vs-sysbench).
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

// Connect opens a dedicated connection.
func (c *SQLConnector) Connect(ctx context.Context) (Session, error) {
	cfg := c.Config.Clone()
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
	s := &driverSession{conn: dc, raw: raw, ps: c.PS}
	if c.PS != PSDisable && sniff != nil {
		_, blocking := raw.(*blockingConn)
		s.wire = newWireConn(sniff, cfg, blocking)
	}
	for _, q := range c.Init {
		if _, err := s.Exec(ctx, q); err != nil {
			s.Close()
			return nil, fmt.Errorf("session setting %q: %w", q, err)
		}
	}
	return s, nil
}

// Database is the database the connector's sessions start in ("" for
// none), for messages that must name the schema they act on.
func (c *SQLConnector) Database() string { return c.Config.DBName }

// Interrupter is a Session whose blocked I/O can be woken from another
// goroutine (it then fails).
type Interrupter interface {
	Interrupt()
}

// driverSession is one go-sql-driver connection used directly, with its
// prepared statements on wire when that is set.
type driverSession struct {
	conn   driver.Conn
	raw    net.Conn
	wire   *wireConn // prepared statements, when the connection allows
	ps     PSMode
	dest   []driver.Value
	bound  context.Context // see BindContext
	unbind func() bool
}

// LocalLoader is a Session that can send a LOAD DATA LOCAL INFILE statement
// with the file's content read from r.
type LocalLoader interface {
	// LoadLocal runs statement, in which %s stands for the quoted file
	// name, and reports the rows affected.
	LoadLocal(ctx context.Context, statement string, r io.Reader) (int64, error)
}

// readerIDs names the readers LoadLocal registers with the driver.
var readerIDs atomic.Uint64

// LoadLocal implements LocalLoader with the driver's registered readers.
func (s *driverSession) LoadLocal(ctx context.Context, statement string, r io.Reader) (int64, error) {
	name := fmt.Sprintf("starbench-%d", readerIDs.Add(1))
	mysql.RegisterReaderHandler(name, func() io.Reader { return r })
	defer mysql.DeregisterReaderHandler(name)
	return s.Exec(ctx, fmt.Sprintf(statement, "'Reader::"+name+"'"))
}

// ContextBinder is a Session that can be tied to one context for the rest
// of its life: when that context ends the session is interrupted (and
// unusable), and calls made with it skip the per-call watch, which costs a
// registration with the context on every query.
type ContextBinder interface {
	BindContext(ctx context.Context)
}

// BindContext implements ContextBinder.
func (s *driverSession) BindContext(ctx context.Context) {
	if s.unbind != nil {
		s.unbind()
	}
	s.bound, s.unbind = ctx, context.AfterFunc(ctx, s.Interrupt)
}

// Interrupt implements Interrupter.
func (s *driverSession) Interrupt() {
	switch c := s.raw.(type) {
	case *blockingConn:
		c.Interrupt()
	case net.Conn:
		_ = c.Close()
	}
}

// watch interrupts the session when ctx ends during a call.
func (s *driverSession) watch(ctx context.Context) func() bool {
	if ctx.Done() == nil || ctx == s.bound {
		return unwatched
	}
	return context.AfterFunc(ctx, s.Interrupt)
}

func unwatched() bool { return true }

func (s *driverSession) Prepare(ctx context.Context, query string) (Stmt, error) {
	if s.ps == PSDisable {
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

func (s *driverSession) Exec(ctx context.Context, query string) (int64, error) {
	defer s.watch(ctx)()
	res, err := s.conn.(driver.ExecerContext).ExecContext(context.Background(), query, nil)
	if err != nil {
		return 0, ctxErr(ctx, err)
	}
	return res.RowsAffected()
}

func (s *driverSession) Query(ctx context.Context, query string) (int64, error) {
	defer s.watch(ctx)()
	rows, err := s.conn.(driver.QueryerContext).QueryContext(context.Background(), query, nil)
	if err != nil {
		return 0, ctxErr(ctx, err)
	}
	n, err := s.drain(rows)
	return n, ctxErr(ctx, err)
}

func (s *driverSession) drain(rows driver.Rows) (int64, error) {
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

func (s *driverSession) Close() error {
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
	s    *driverSession
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
	s    *driverSession
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

// textStmt emulates a prepared statement by writing the arguments into the
// text, as sysbench does with --db-ps-mode=disable.
type textStmt struct {
	s     Session
	query string
}

func (t *textStmt) Exec(ctx context.Context, args ...any) (int64, error) {
	q, err := Interpolate(t.query, args)
	if err != nil {
		return 0, err
	}
	return t.s.Exec(ctx, q)
}

func (t *textStmt) Query(ctx context.Context, args ...any) error {
	q, err := Interpolate(t.query, args)
	if err != nil {
		return err
	}
	_, err = t.s.Query(ctx, q)
	return err
}

func (t *textStmt) Close() error { return nil }

// Interpolate writes args into the ? placeholders of query as SQL literals.
func Interpolate(query string, args []any) (string, error) {
	var b strings.Builder
	b.Grow(len(query) + 16*len(args))
	n := 0
	for i := 0; i < len(query); i++ {
		ch := query[i]
		if ch != '?' {
			b.WriteByte(ch)
			continue
		}
		if n >= len(args) {
			return "", fmt.Errorf("statement has more placeholders than the %d arguments given", len(args))
		}
		if err := appendLiteral(&b, args[n]); err != nil {
			return "", err
		}
		n++
	}
	if n != len(args) {
		return "", fmt.Errorf("statement has %d placeholders, got %d arguments", n, len(args))
	}
	return b.String(), nil
}

func appendLiteral(b *strings.Builder, v any) error {
	switch v := v.(type) {
	case nil:
		b.WriteString("NULL")
	case int:
		b.WriteString(strconv.Itoa(v))
	case int32:
		b.WriteString(strconv.FormatInt(int64(v), 10))
	case int64:
		b.WriteString(strconv.FormatInt(v, 10))
	case uint32:
		b.WriteString(strconv.FormatUint(uint64(v), 10))
	case uint64:
		b.WriteString(strconv.FormatUint(v, 10))
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("cannot write %v as SQL", v)
		}
		b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
	case bool:
		if v {
			b.WriteString("1")
		} else {
			b.WriteString("0")
		}
	case string:
		b.WriteByte('\'')
		for i := 0; i < len(v); i++ {
			switch c := v[i]; c {
			case '\'', '\\':
				b.WriteByte('\\')
				b.WriteByte(c)
			case 0:
				b.WriteString(`\0`)
			case '\n':
				b.WriteString(`\n`)
			case '\r':
				b.WriteString(`\r`)
			case 0x1a:
				b.WriteString(`\Z`)
			default:
				b.WriteByte(c)
			}
		}
		b.WriteByte('\'')
	case []byte:
		return appendLiteral(b, string(v))
	case time.Time:
		return appendLiteral(b, v.Format("2006-01-02 15:04:05.999999"))
	default:
		return fmt.Errorf("cannot write a %T as SQL", v)
	}
	return nil
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
