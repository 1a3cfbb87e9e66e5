package db

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/go-sql-driver/mysql"

	"github.com/starbench/starbench/internal/sqltext"
)

// Conn is a connection pool with one pinned session. Exec and Query run on
// the pinned session, so SET SESSION and USE apply to the statements after
// them. The pool's other connections (Analyze, PoolExec, PoolQuery) start
// in the session's current database with its settings (see Session), and
// so do connections others open from Session: what a plan does on a
// handle holds for everything done on the handle's behalf.
type Conn struct {
	cfg     *mysql.Config
	pool    *sql.DB
	session *sql.Conn
	state   Session
	mu      sync.Mutex
}

// poolIdle is how many idle connections the pool keeps (database/sql's
// default).
const poolIdle = 2

// Open connects to the server and pins a session in cfg's database.
func Open(ctx context.Context, cfg *mysql.Config) (*Conn, error) {
	return OpenSession(ctx, cfg, Session{Database: cfg.DBName})
}

// OpenSession connects to the server and pins a session that starts as
// state says: in its database, with its settings applied (a handle opened
// again by a resumed run).
func OpenSession(ctx context.Context, cfg *mysql.Config, state Session) (*Conn, error) {
	c := &Conn{cfg: cfg, state: state.Clone()}
	c.pool = sql.OpenDB(&sessionConnector{conn: c})
	c.pool.SetMaxIdleConns(poolIdle)
	session, err := c.pool.Conn(ctx)
	if err != nil {
		c.pool.Close()
		return nil, fmt.Errorf("connect to %s: %w", Redacted(cfg), err)
	}
	c.session = session
	return c, nil
}

// sessionConnector opens the pool's connections in the session's current
// state.
type sessionConnector struct{ conn *Conn }

func (sc *sessionConnector) Connect(ctx context.Context) (driver.Conn, error) {
	state := sc.conn.Session()
	cfg := sc.conn.cfg.Clone()
	cfg.DBName = state.Database
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	dc, err := connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	for _, q := range state.Settings {
		if _, err := dc.(driver.ExecerContext).ExecContext(ctx, q, nil); err != nil {
			dc.Close()
			return nil, statementError(err, q)
		}
	}
	return dc, nil
}

func (sc *sessionConnector) Driver() driver.Driver { return &mysql.MySQLDriver{} }

// Config returns the connection's configuration.
func (c *Conn) Config() *mysql.Config { return c.cfg }

// Session returns the session's current database and settings, which
// connections opened on its behalf start with.
func (c *Conn) Session() Session {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state.Clone()
}

// noteSession records a statement that ran on the session. When it changed
// the database or a setting, idle pool connections (opened in the old
// state) are let go.
func (c *Conn) noteSession(query string) {
	c.mu.Lock()
	changed := c.state.Note(query)
	pool := c.pool
	c.mu.Unlock()
	if changed && pool != nil {
		pool.SetMaxIdleConns(0)
		pool.SetMaxIdleConns(poolIdle)
	}
}

// Close ends the session and the pool.
func (c *Conn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pool == nil {
		return nil
	}
	err := errors.Join(c.session.Close(), c.pool.Close())
	c.pool, c.session = nil, nil
	return err
}

func (c *Conn) sessionConn() (*sql.Conn, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.session == nil {
		return nil, fmt.Errorf("connection is closed")
	}
	return c.session, nil
}

// ExecResult is what a statement without a result set reports.
type ExecResult struct {
	RowsAffected int64 `json:"rows_affected"`
	LastInsertID int64 `json:"last_insert_id"`
}

// Exec runs one statement on the session.
func (c *Conn) Exec(ctx context.Context, query string, args ...any) (ExecResult, error) {
	s, err := c.sessionConn()
	if err != nil {
		return ExecResult{}, err
	}
	res, err := s.ExecContext(ctx, query, args...)
	if err != nil {
		return ExecResult{}, statementError(err, query)
	}
	c.noteSession(query)
	return execResult(res), nil
}

func execResult(res sql.Result) ExecResult {
	var out ExecResult
	out.RowsAffected, _ = res.RowsAffected()
	out.LastInsertID, _ = res.LastInsertId()
	return out
}

// ResultSet is a query's rows as plain Go values: int64, uint64, float64,
// string, []byte or nil (NULL). Types holds the server's column type names.
type ResultSet struct {
	Columns []string `json:"columns"`
	Types   []string `json:"types"`
	Rows    [][]any  `json:"rows"`
}

// Query runs a statement that returns rows on the session.
func (c *Conn) Query(ctx context.Context, query string, args ...any) (*ResultSet, error) {
	s, err := c.sessionConn()
	if err != nil {
		return nil, err
	}
	rs, err := queryOn(ctx, s, query, args...)
	if err == nil {
		c.noteSession(query)
	}
	return rs, err
}

type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func queryOn(ctx context.Context, q querier, query string, args ...any) (*ResultSet, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, statementError(err, query)
	}
	defer rows.Close()
	rs, err := readRows(rows)
	if err != nil {
		return nil, statementError(err, query)
	}
	return rs, nil
}

func readRows(rows *sql.Rows) (*ResultSet, error) {
	cols, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	rs := &ResultSet{Rows: [][]any{}}
	for _, c := range cols {
		rs.Columns = append(rs.Columns, c.Name())
		rs.Types = append(rs.Types, c.DatabaseTypeName())
	}
	for rows.Next() {
		raw := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range raw {
			ptrs[i] = &raw[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := make([]any, len(cols))
		for i, v := range raw {
			row[i] = convertValue(rs.Types[i], v)
		}
		rs.Rows = append(rs.Rows, row)
	}
	return rs, rows.Err()
}

// convertValue turns a driver value into the Go value its column type
// suggests: integers for integer columns, floats for DECIMAL/FLOAT/DOUBLE,
// bytes for binary columns and strings for the rest.
func convertValue(typeName string, v any) any {
	b, isBytes := v.([]byte)
	if !isBytes {
		switch v := v.(type) {
		case uint64:
			if v <= 1<<63-1 {
				return int64(v)
			}
			return v
		case nil, int64, float64, string:
			return v
		case int32:
			return int64(v)
		case float32:
			return float64(v)
		default:
			return fmt.Sprint(v)
		}
	}
	s := string(b)
	switch {
	case isIntegerType(typeName):
		if strings.HasPrefix(typeName, "UNSIGNED") {
			if n, err := strconv.ParseUint(s, 10, 64); err == nil {
				if n <= 1<<63-1 {
					return int64(n)
				}
				return n
			}
		}
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n
		}
	case typeName == "DECIMAL" && !strings.ContainsAny(s, ".eE"):
		// An integral DECIMAL (SUM of integers) stays exact.
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return f
		}
	case typeName == "DECIMAL" || typeName == "FLOAT" || typeName == "DOUBLE":
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return f
		}
	case isBinaryType(typeName):
		return append([]byte(nil), b...)
	}
	return s
}

func isIntegerType(t string) bool {
	t = strings.TrimPrefix(t, "UNSIGNED ")
	switch t {
	case "INT", "BIGINT", "TINYINT", "SMALLINT", "MEDIUMINT", "YEAR":
		return true
	}
	return false
}

func isBinaryType(t string) bool {
	switch t {
	case "BLOB", "TINYBLOB", "MEDIUMBLOB", "LONGBLOB", "BINARY", "VARBINARY", "BIT", "GEOMETRY":
		return true
	}
	return false
}

// Version returns the server's VERSION().
func (c *Conn) Version(ctx context.Context) (string, error) {
	rs, err := c.Query(ctx, "SELECT VERSION()")
	if err != nil {
		return "", err
	}
	if len(rs.Rows) != 1 || len(rs.Rows[0]) != 1 {
		return "", fmt.Errorf("SELECT VERSION() returned %d rows", len(rs.Rows))
	}
	return fmt.Sprint(rs.Rows[0][0]), nil
}

// Variables returns SHOW GLOBAL VARIABLES, filtered by a LIKE pattern when
// like is not empty.
func (c *Conn) Variables(ctx context.Context, like string) (map[string]string, error) {
	q := "SHOW GLOBAL VARIABLES"
	if like != "" {
		q += " LIKE " + sqltext.QuoteString(like)
	}
	rs, err := c.Query(ctx, q)
	if err != nil {
		return nil, err
	}
	vars := make(map[string]string, len(rs.Rows))
	for _, row := range rs.Rows {
		if len(row) >= 2 {
			vars[fmt.Sprint(row[0])] = valueText(row[1])
		}
	}
	return vars, nil
}

func valueText(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case []byte:
		return string(v)
	}
	return fmt.Sprint(v)
}

// AnalyzeResult is one table's ANALYZE TABLE outcome.
type AnalyzeResult struct {
	Table   string `json:"table"`
	MsgType string `json:"msg_type"`
	MsgText string `json:"msg_text"`
}

// PoolExec runs a statement on a pool connection, not the session, so
// that several can run at once (copies, checksums).
func (c *Conn) PoolExec(ctx context.Context, query string, args ...any) (ExecResult, error) {
	c.mu.Lock()
	pool := c.pool
	c.mu.Unlock()
	if pool == nil {
		return ExecResult{}, fmt.Errorf("connection is closed")
	}
	res, err := pool.ExecContext(ctx, query, args...)
	if err != nil {
		return ExecResult{}, statementError(err, query)
	}
	return execResult(res), nil
}

// PoolExecAll runs statements in order on one pool connection (not the
// session), for work that needs a session setting of its own: the
// results of the last statement are returned. reset, when given, runs
// after them whatever happened, so that the connection goes back to the
// pool as it came.
func (c *Conn) PoolExecAll(ctx context.Context, stmts []string, reset string) (ExecResult, error) {
	c.mu.Lock()
	pool := c.pool
	c.mu.Unlock()
	if pool == nil {
		return ExecResult{}, fmt.Errorf("connection is closed")
	}
	conn, err := pool.Conn(ctx)
	if err != nil {
		return ExecResult{}, err
	}
	defer conn.Close()
	if reset != "" {
		defer func() {
			if _, err := conn.ExecContext(context.WithoutCancel(ctx), reset); err != nil {
				_ = conn.Raw(func(any) error { return driver.ErrBadConn }) // not back into the pool
			}
		}()
	}
	var last ExecResult
	for _, q := range stmts {
		res, err := conn.ExecContext(ctx, q)
		if err != nil {
			return ExecResult{}, statementError(err, q)
		}
		last = execResult(res)
	}
	return last, nil
}

// PoolQuery runs a query on a pool connection, not the session.
func (c *Conn) PoolQuery(ctx context.Context, query string, args ...any) (*ResultSet, error) {
	c.mu.Lock()
	pool := c.pool
	c.mu.Unlock()
	if pool == nil {
		return nil, fmt.Errorf("connection is closed")
	}
	return queryOn(ctx, pool, query, args...)
}

// CurrentDatabase returns the session's DATABASE(), "" when none is selected.
func (c *Conn) CurrentDatabase(ctx context.Context) (string, error) {
	rs, err := c.Query(ctx, "SELECT DATABASE()")
	if err != nil {
		return "", err
	}
	if len(rs.Rows) == 1 && len(rs.Rows[0]) == 1 && rs.Rows[0][0] != nil {
		return valueText(rs.Rows[0][0]), nil
	}
	return "", nil
}

// AnalyzeTable runs ANALYZE TABLE on a pool connection (not the session),
// so that several tables can be analyzed at once. An unqualified table name
// is taken from schema (the session's database). A row whose Msg_type is
// "error" is returned as an error.
func (c *Conn) AnalyzeTable(ctx context.Context, schema, table string) ([]AnalyzeResult, error) {
	c.mu.Lock()
	pool := c.pool
	c.mu.Unlock()
	if pool == nil {
		return nil, fmt.Errorf("connection is closed")
	}
	name := table
	if !strings.Contains(table, ".") && schema != "" {
		name = schema + "." + table
	}
	rs, err := queryOn(ctx, pool, "ANALYZE TABLE "+sqltext.QuoteTableName(name))
	if err != nil {
		return nil, err
	}
	var out []AnalyzeResult
	for _, row := range rs.Rows {
		if len(row) < 4 {
			continue
		}
		r := AnalyzeResult{Table: valueText(row[0]), MsgType: valueText(row[2]), MsgText: valueText(row[3])}
		out = append(out, r)
		if strings.EqualFold(r.MsgType, "error") {
			return out, fmt.Errorf("ANALYZE TABLE %s: %s", name, r.MsgText)
		}
	}
	return out, nil
}

// UnmarshalJSON reads back a ResultSet written as JSON (a journal record),
// restoring the Go types Query gave: integers, floats by column type,
// bytes for binary columns, NULL as nil.
func (rs *ResultSet) UnmarshalJSON(data []byte) error {
	var raw struct {
		Columns []string `json:"columns"`
		Types   []string `json:"types"`
		Rows    [][]any  `json:"rows"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return fmt.Errorf("recorded rows: %w", err)
	}
	*rs = ResultSet{Columns: raw.Columns, Types: raw.Types, Rows: make([][]any, len(raw.Rows))}
	for i, row := range raw.Rows {
		out := make([]any, len(row))
		for j, v := range row {
			typeName := ""
			if j < len(raw.Types) {
				typeName = raw.Types[j]
			}
			decoded, err := decodeValue(typeName, v)
			if err != nil {
				return fmt.Errorf("recorded rows: row %d column %d: %w", i+1, j+1, err)
			}
			out[j] = decoded
		}
		rs.Rows[i] = out
	}
	return nil
}

func decodeValue(typeName string, v any) (any, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case string:
		if isBinaryType(typeName) {
			return base64.StdEncoding.DecodeString(v)
		}
		return v, nil
	case json.Number:
		text := v.String()
		integral := !strings.ContainsAny(text, ".eE")
		if typeName == "FLOAT" || typeName == "DOUBLE" || !integral {
			return strconv.ParseFloat(text, 64)
		}
		if n, err := strconv.ParseInt(text, 10, 64); err == nil {
			return n, nil
		}
		return strconv.ParseUint(text, 10, 64)
	case bool:
		return v, nil
	}
	return fmt.Sprint(v), nil
}

// CreateDatabaseIfUnknown creates cfg's database when the server answers
// that it is unknown (error 1049): it connects without a database and runs
// CREATE DATABASE IF NOT EXISTS. It reports whether it created it; a
// server that refuses for another reason is left to the caller's own
// connection to report (false, nil).
func CreateDatabaseIfUnknown(ctx context.Context, cfg *mysql.Config) (bool, error) {
	if cfg.DBName == "" {
		return false, nil
	}
	probe, err := Open(ctx, cfg)
	if err == nil {
		probe.Close()
		return false, nil
	}
	if code, ok := ErrorCode(err); !ok || code != 1049 {
		return false, nil
	}
	admin := cfg.Clone()
	admin.DBName = ""
	c, err := Open(ctx, admin)
	if err != nil {
		return false, fmt.Errorf("connect to %s to create database %s: %w", Endpoint(cfg), cfg.DBName, err)
	}
	defer c.Close()
	if _, err := c.Exec(ctx, "CREATE DATABASE IF NOT EXISTS "+sqltext.QuoteIdent(cfg.DBName)); err != nil {
		return false, fmt.Errorf("create database %s on %s: %w", cfg.DBName, Endpoint(cfg), err)
	}
	return true, nil
}
