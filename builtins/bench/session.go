package bench

import (
	"context"
	"database/sql"
	"fmt"
	"math"
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
	Query(ctx context.Context, args ...any) (int64, error)
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

// SQLConnector opens sessions with go-sql-driver/mysql.
type SQLConnector struct {
	Config *mysql.Config
	PS     PSMode
	pool   atomic.Pointer[sql.DB]
}

// NewSQLConnector makes a connector for a go-sql-driver configuration.
func NewSQLConnector(cfg *mysql.Config, ps PSMode) *SQLConnector {
	return &SQLConnector{Config: cfg, PS: ps}
}

func (c *SQLConnector) db() (*sql.DB, error) {
	if db := c.pool.Load(); db != nil {
		return db, nil
	}
	connector, err := mysql.NewConnector(c.Config)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(connector)
	db.SetMaxIdleConns(0)
	if !c.pool.CompareAndSwap(nil, db) {
		db.Close()
	}
	return c.pool.Load(), nil
}

// Connect opens a dedicated connection.
func (c *SQLConnector) Connect(ctx context.Context) (Session, error) {
	db, err := c.db()
	if err != nil {
		return nil, err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	return &sqlSession{conn: conn, ps: c.PS}, nil
}

// Close releases the connector's pool; sessions must be closed first.
func (c *SQLConnector) Close() error {
	if db := c.pool.Swap(nil); db != nil {
		return db.Close()
	}
	return nil
}

type sqlSession struct {
	conn *sql.Conn
	ps   PSMode
}

func (s *sqlSession) Prepare(ctx context.Context, query string) (Stmt, error) {
	if s.ps == PSDisable {
		return &textStmt{s: s, query: query}, nil
	}
	st, err := s.conn.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	return &sqlStmt{st: st}, nil
}

func (s *sqlSession) Exec(ctx context.Context, query string) (int64, error) {
	res, err := s.conn.ExecContext(ctx, query)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (s *sqlSession) Query(ctx context.Context, query string) (int64, error) {
	rows, err := s.conn.QueryContext(ctx, query)
	if err != nil {
		return 0, err
	}
	return drain(rows)
}

func (s *sqlSession) Close() error { return s.conn.Close() }

func drain(rows *sql.Rows) (int64, error) {
	var n int64
	for rows.Next() {
		n++
	}
	err := rows.Err()
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	return n, err
}

type sqlStmt struct{ st *sql.Stmt }

func (s *sqlStmt) Exec(ctx context.Context, args ...any) (int64, error) {
	res, err := s.st.ExecContext(ctx, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (s *sqlStmt) Query(ctx context.Context, args ...any) (int64, error) {
	rows, err := s.st.QueryContext(ctx, args...)
	if err != nil {
		return 0, err
	}
	return drain(rows)
}

func (s *sqlStmt) Close() error { return s.st.Close() }

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

func (t *textStmt) Query(ctx context.Context, args ...any) (int64, error) {
	q, err := Interpolate(t.query, args)
	if err != nil {
		return 0, err
	}
	return t.s.Query(ctx, q)
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

// Connect opens a session on the next connector.
func (r *RoundRobin) Connect(ctx context.Context) (Session, error) {
	if len(r.Connectors) == 0 {
		return nil, fmt.Errorf("no endpoints to connect to")
	}
	i := r.next.Add(1) - 1
	return r.Connectors[i%uint64(len(r.Connectors))].Connect(ctx)
}
