package dbstar

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/go-sql-driver/mysql"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/builtins/db/targets"
	"github.com/starbench/starbench/internal/sqltext"
	"github.com/starbench/starbench/runner"
)

// Conn is a connection handle in a plan. In dry-run mode conn is nil and
// every method returns a placeholder.
type Conn struct {
	id      string
	target  string          // manifest key of the target
	display string          // redacted DSN
	cfgs    []*mysql.Config // the session's endpoint first; workloads spread over all
	conn    *db.Conn        // nil until opened; a resumed run opens it on first use
	closed  bool
	mu      sync.Mutex
	// pending is the session state while no connection is open: learnt
	// in a dry run from the plan's statements, and in a resumed run from
	// the recorded ones, to open the handle with on first use. Once open,
	// the connection keeps its own (db.Conn.Session).
	pending db.Session
}

var _ starlark.HasAttrs = (*Conn)(nil)

func (c *Conn) String() string        { return fmt.Sprintf("<db connection %s to %s>", c.id, c.display) }
func (c *Conn) Type() string          { return "db.connection" }
func (c *Conn) Freeze()               {}
func (c *Conn) Truth() starlark.Bool  { return true }
func (c *Conn) Hash() (uint32, error) { return starlark.String(c.id).Hash() }

var connMethods = map[string]func(*Conn, *starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error){
	"exec":      (*Conn).exec,
	"query":     (*Conn).query,
	"try_query": (*Conn).tryQuery,
	"exec_each": (*Conn).execEach,
	"analyze":   (*Conn).analyze,
	"version":   (*Conn).version,
	"variables": (*Conn).variables,
	"close":     (*Conn).close,
	"snapshot":  (*Conn).snapshotMethod,
	"restore":   (*Conn).restoreMethod,
}

func (c *Conn) Attr(name string) (starlark.Value, error) {
	switch name {
	case "id":
		return starlark.String(c.id), nil
	case "target":
		return starlark.String(c.target), nil
	case "dsn":
		return starlark.String(c.display), nil
	}
	if m, ok := connMethods[name]; ok {
		return starlark.NewBuiltin("conn."+name, func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			return m(c, thread, b, args, kwargs)
		}), nil
	}
	return nil, nil
}

// connAttrs are a handle's attributes that are not methods.
var connAttrs = []string{"dsn", "id", "target"}

func (c *Conn) AttrNames() []string {
	names := append([]string{}, connAttrs...)
	for n := range connMethods {
		names = append(names, n)
	}
	return names
}

// connect is db.connect(dsn=None, database=None).
func connect(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var dsn starlark.Value = starlark.None
	var database starlark.Value = starlark.None
	create := false
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "dsn?", &dsn, "database?", &database, "create?", &create); err != nil {
		return nil, err
	}
	dbName, _ := starlark.AsString(database)
	if database != starlark.None {
		if _, ok := database.(starlark.String); !ok {
			return nil, fmt.Errorf("%s: database must be a string, not %s", b.Name(), database.Type())
		}
	}
	rts, err := resolveTargets(thread, dsn)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	cc := newConnectCall(thread, b.Name(), rts, endpointDisplays(thread, rts), database, dbName)
	cc.create = create
	text := "connect " + cc.display
	if create {
		cc.spec["create"] = true
		text += " (creating its database if it is unknown)"
	}
	info := runner.StepInfo{Builtin: "db.connect", Args: cc.spec, Text: text}
	return runner.HostOf(thread).Step(info, runner.Action{
		Run:         cc.open,
		Placeholder: cc.placeholder,
		Replay:      cc.replay,
	})
}

// endpointDisplays returns how each endpoint is shown: a DSN with its
// password redacted (the run learns the password as a secret, and warns
// when the plan itself spells it out), any other target as given.
func endpointDisplays(thread *starlark.Thread, rts []targets.Resolved) []string {
	var displays []string
	for _, rt := range rts {
		d := rt.Spec
		if rt.Target.Kind == targets.KindDSN {
			cfg, _ := db.ParseDSN(rt.Spec)
			if cfg.Passwd != "" {
				runner.HostOf(thread).Run().AddSecret(cfg.Passwd)
				if rt.Literal {
					runner.HostOf(thread).Out().Warn("a password is written in the plan (%s); it is stored with the plan's copy in every results folder. Give it with --target NAME=DSN or MYSQL_PWD instead", db.Redacted(cfg))
				}
			}
			d = db.Redacted(cfg)
		}
		displays = append(displays, d)
	}
	return displays
}

// connectCall is one db.connect: the endpoints it resolved, the database
// it asked for, and the handle it makes.
type connectCall struct {
	name     string // the builtin's, for errors
	thread   *starlark.Thread
	st       *runState
	rts      []targets.Resolved // the session's endpoint first
	rt       targets.Resolved   // rts[0]
	displays []string           // each endpoint as shown
	display  string             // displays, joined
	database starlark.Value     // as given: None keeps each target's own
	dbName   string             // database as a string ("" when None)
	spec     map[string]any     // the handle's spec in the manifest
	create   bool               // create=True: an unknown database is created
	c        *Conn
}

// newConnectCall makes the handle (not yet open) and its spec.
func newConnectCall(thread *starlark.Thread, name string, rts []targets.Resolved, displays []string, database starlark.Value, dbName string) *connectCall {
	rt, display := rts[0], strings.Join(displays, ", ")
	st := stateOf(thread)
	c := &Conn{id: st.newHandleID(), target: rt.Key(), display: display}
	spec := map[string]any{"target": rt.Name, "dsn": display, "database": dbName, "kind": rt.Target.Kind}
	if len(rts) > 1 {
		spec["endpoints"] = displays
	}
	return &connectCall{
		name: name, thread: thread, st: st, rts: rts, rt: rt, displays: displays, display: display,
		database: database, dbName: dbName, spec: spec, c: c,
	}
}

// configs resolves every endpoint (starting servers when a target is
// one) and returns their configs, in the database asked for, and the
// first endpoint's server information.
func (cc *connectCall) configs(s *runner.Step) ([]*mysql.Config, map[string]any, error) {
	var cfgs []*mysql.Config
	var first map[string]any
	for i, rt := range cc.rts {
		cfg, serverInfo, err := cc.st.configFor(s.Context(), cc.thread, rt)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: target %s: %w", cc.name, describeTarget(rt, cc.displays[i]), err)
		}
		if cc.database != starlark.None {
			cfg = cfg.Clone()
			cfg.DBName = cc.dbName
		}
		if i == 0 {
			first = serverInfo
		}
		cfgs = append(cfgs, cfg)
	}
	return cfgs, first, nil
}

// open is the step's run: it connects to the first endpoint, registers
// the handle and records the target in the manifest.
func (cc *connectCall) open(s *runner.Step) (runner.Outcome, error) {
	cfgs, serverInfo, err := cc.configs(s)
	if err != nil {
		return runner.Outcome{}, err
	}
	if cc.create {
		for _, cfg := range cfgs {
			created, err := db.CreateDatabaseIfUnknown(s.Context(), cfg)
			if err != nil {
				return runner.Outcome{}, fmt.Errorf("%s: create=True: %w", cc.name, err)
			}
			if created {
				fmt.Fprintf(runner.HostOf(cc.thread).Out().Writer(), "db.connect: database %s did not exist on %s; created it (create=True)\n", cfg.DBName, db.Endpoint(cfg))
			}
		}
	}
	conn, err := db.Open(s.Context(), cfgs[0])
	if code, ok := db.ErrorCode(err); ok && code == 1049 {
		return runner.Outcome{}, fmt.Errorf("%s: target %s: %w (create it with CREATE DATABASE %s, or connect with db.connect(..., create=True), which creates it)",
			cc.name, describeTarget(cc.rt, cc.displays[0]), err, sqltext.QuoteIdent(cfgs[0].DBName))
	}
	if err != nil {
		return runner.Outcome{}, fmt.Errorf("%s: target %s: %w", cc.name, describeTarget(cc.rt, cc.displays[0]), err)
	}
	c := cc.c
	c.conn, c.cfgs = conn, cfgs
	if cc.rt.Target.Kind != targets.KindDSN && len(cfgs) == 1 {
		c.display = db.Redacted(cfgs[0])
	}
	cc.st.addConn(c)
	version, err := cc.st.recordTarget(s.Context(), cc.thread, cc.rt, c, serverInfo)
	if err != nil {
		return runner.Outcome{}, fmt.Errorf("%s: target %s: %w", cc.name, describeTarget(cc.rt, cc.display), err)
	}
	return runner.Outcome{
		Value:  c,
		Record: map[string]any{"server_version": version, "dsn": c.display},
		Handle: &runner.HandleSpec{Kind: "db", ID: c.id, Spec: cc.spec},
	}, nil
}

// placeholder is the step in a dry run: nothing connects, and the
// database is known when the plan or a DSN names it (a dry run shows it
// in equivalent commands).
func (cc *connectCall) placeholder(*runner.Step) starlark.Value {
	c := cc.c
	c.pending.Database = cc.dbName
	if cc.database == starlark.None && cc.rt.Target.Kind == targets.KindDSN {
		if cfg, err := db.ParseDSN(cc.rt.Spec); err == nil {
			c.pending.Database = cfg.DBName
		}
	}
	return c
}

// replay is the step in a resumed run: the handle opens again, lazily, on
// the targets given now.
func (cc *connectCall) replay(s *runner.Step, _ json.RawMessage) (starlark.Value, error) {
	cfgs, _, err := cc.configs(s)
	if err != nil {
		return nil, err
	}
	c := cc.c
	c.cfgs = cfgs
	c.pending = db.Session{Database: cfgs[0].DBName}
	cc.st.addConn(c)
	return c, nil
}

// addConn registers an open (or lazily reopened) handle with the run.
func (st *runState) addConn(c *Conn) {
	st.mu.Lock()
	st.conns = append(st.conns, c)
	st.mu.Unlock()
}

func describeTarget(rt targets.Resolved, display string) string {
	if rt.Name != "" {
		return fmt.Sprintf("%q (%s)", rt.Name, display)
	}
	return display
}

// configFor returns the connection config of a target, starting the
// embedded server or a sandbox when the target is one.
func (st *runState) configFor(ctx context.Context, thread *starlark.Thread, rt targets.Resolved) (*mysql.Config, map[string]any, error) {
	srv, err := st.openServer(ctx, thread, rt)
	if err != nil {
		return nil, nil, err
	}
	return srv.Config, srv.Info, nil
}

// recordTarget puts a target's server version and global variables in the
// manifest the first time the run connects to it.
func (st *runState) recordTarget(ctx context.Context, thread *starlark.Thread, rt targets.Resolved, c *Conn, serverInfo map[string]any) (string, error) {
	version, err := c.conn.Version(ctx)
	if err != nil {
		return "", err
	}
	st.mu.Lock()
	done := st.recorded[c.target]
	st.recorded[c.target] = true
	st.mu.Unlock()
	if done {
		return version, nil
	}
	info := map[string]any{"dsn": c.display, "server_version": version}
	for k, v := range serverInfo {
		info[k] = v
	}
	if vars, err := c.conn.Variables(ctx, ""); err == nil {
		info["variables"] = vars
	} else {
		info["variables_error"] = err.Error()
	}
	return version, runner.HostOf(thread).Run().RecordTarget(c.target, info)
}

// noteSession records a statement that changed (or, in a dry run, would
// change) the handle's session without running on an open connection.
func (c *Conn) noteSession(sql string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pending.Note(sql)
}

// Session is the handle's current database and session settings: every
// connection a builtin opens from the handle starts with them.
func (c *Conn) Session() db.Session {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn != nil {
		return c.conn.Session()
	}
	return c.pending.Clone()
}

// live returns the open connection. A handle of a resumed run opens here,
// on first use, in the session state its recorded statements left.
func (c *Conn) live(ctx context.Context, name string) (*db.Conn, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || len(c.cfgs) == 0 {
		return nil, fmt.Errorf("%s: connection %s is closed", name, c.id)
	}
	if c.conn != nil {
		return c.conn, nil
	}
	conn, err := db.OpenSession(ctx, c.cfgs[0], c.pending)
	if err != nil {
		return nil, fmt.Errorf("%s: reopen %s (%s) in database %q with %d session settings: %w", name, c.id, c.display, c.pending.Database, len(c.pending.Settings), err)
	}
	c.conn = conn
	return conn, nil
}

func execResultValue(res db.ExecResult, placeholder bool) starlark.Value {
	return starlarkstruct.FromStringDict(starlark.String("exec_result"), starlark.StringDict{
		"rows_affected":  starlark.MakeInt64(res.RowsAffected),
		"last_insert_id": starlark.MakeInt64(res.LastInsertID),
		"placeholder":    starlark.Bool(placeholder),
	})
}

func unpackStatement(b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (string, []any, error) {
	if len(kwargs) > 0 {
		return "", nil, fmt.Errorf("%s: unexpected keyword argument %s", b.Name(), kwargs[0][0])
	}
	if len(args) == 0 {
		return "", nil, fmt.Errorf("%s: missing the SQL statement", b.Name())
	}
	sql, ok := starlark.AsString(args[0])
	if !ok {
		return "", nil, fmt.Errorf("%s: the statement must be a string, not %s", b.Name(), args[0].Type())
	}
	params, err := toSQLArgs(args[1:])
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return sql, params, nil
}

// exec is conn.exec(sql, *args).
func (c *Conn) exec(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	sql, params, err := unpackStatement(b, args, kwargs)
	name := b.Name()
	if err != nil {
		return nil, err
	}
	return runner.HostOf(thread).Step(runner.StepInfo{Builtin: "db.exec", Args: argsSummary(params), Text: sql, Handle: c.id, State: db.IsStateStatement(sql)}, runner.Action{
		Run: func(s *runner.Step) (runner.Outcome, error) {
			conn, err := c.live(s.Context(), name)
			if err != nil {
				return runner.Outcome{}, err
			}
			res, err := conn.Exec(s.Context(), sql, params...)
			if err != nil {
				return runner.Outcome{}, fmt.Errorf("%s: %w", name, err)
			}
			rec := map[string]any{"rows_affected": res.RowsAffected, "last_insert_id": res.LastInsertID}
			if db.IsSessionStatement(sql) {
				rec["session"] = true // the connection noted it
			}
			return runner.Outcome{Value: execResultValue(res, false), Record: rec}, nil
		},
		Placeholder: func(*runner.Step) starlark.Value {
			c.noteSession(sql)
			return execResultValue(db.ExecResult{}, true)
		},
		Replay: func(_ *runner.Step, raw json.RawMessage) (starlark.Value, error) {
			var res db.ExecResult
			if err := json.Unmarshal(raw, &res); err != nil {
				return nil, err
			}
			c.noteSession(sql)
			return execResultValue(res, false), nil
		},
	})
}

// query is conn.query(sql, *args).
func (c *Conn) query(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	sql, params, err := unpackStatement(b, args, kwargs)
	name := b.Name()
	if err != nil {
		return nil, err
	}
	return runner.HostOf(thread).Step(runner.StepInfo{Builtin: "db.query", Args: argsSummary(params), Text: sql, Handle: c.id, State: db.IsStateStatement(sql)}, runner.Action{
		Run: func(s *runner.Step) (runner.Outcome, error) {
			conn, err := c.live(s.Context(), name)
			if err != nil {
				return runner.Outcome{}, err
			}
			rs, err := conn.Query(s.Context(), sql, params...)
			if err != nil {
				return runner.Outcome{}, fmt.Errorf("%s: %w", name, err)
			}
			return runner.Outcome{Value: newRows(rs), Record: rs}, nil
		},
		Placeholder: func(s *runner.Step) starlark.Value {
			c.noteSession(sql)
			return placeholderRows(s)
		},
		Replay: func(_ *runner.Step, raw json.RawMessage) (starlark.Value, error) {
			rs := &db.ResultSet{}
			if err := json.Unmarshal(raw, rs); err != nil {
				return nil, err
			}
			c.noteSession(sql)
			return newRows(rs), nil
		},
	})
}

// tryRecord is what the journal keeps of a conn.try_query: its rows, or
// the server's refusal.
type tryRecord struct {
	Rows    *db.ResultSet `json:"rows,omitempty"`
	Code    uint16        `json:"code,omitempty"`
	Message string        `json:"error,omitempty"`
}

// tryQuery is conn.try_query(sql, *args): conn.query whose statement the
// server may refuse. It returns struct(ok, rows, code, error): on a
// refusal ok is False, rows are empty, code is the MySQL error code and
// error the server's message. A failure that is not the server's answer
// (a lost connection, a cancelled run) still fails the step. In a dry run
// ok, code and error are known only in a real run.
func (c *Conn) tryQuery(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	sql, params, err := unpackStatement(b, args, kwargs)
	name := b.Name()
	if err != nil {
		return nil, err
	}
	return runner.HostOf(thread).Step(runner.StepInfo{Builtin: "db.try_query", Args: argsSummary(params), Text: sql, Handle: c.id, State: db.IsStateStatement(sql)}, runner.Action{
		Run: func(s *runner.Step) (runner.Outcome, error) {
			conn, err := c.live(s.Context(), name)
			if err != nil {
				return runner.Outcome{}, err
			}
			rs, err := conn.Query(s.Context(), sql, params...)
			if err != nil {
				var se *db.SQLError
				if !errors.As(err, &se) || s.Context().Err() != nil {
					return runner.Outcome{}, fmt.Errorf("%s: %w", name, err)
				}
				rec := tryRecord{Code: se.Code, Message: se.Message}
				return runner.Outcome{Value: tryValue(rec), Record: rec}, nil
			}
			rec := tryRecord{Rows: rs}
			return runner.Outcome{Value: tryValue(rec), Record: rec}, nil
		},
		Placeholder: func(s *runner.Step) starlark.Value {
			c.noteSession(sql)
			return starlarkstruct.FromStringDict(starlark.String("try_result"), starlark.StringDict{
				"ok":    s.Unknown("ok", "the server's answer is known only in a real run"),
				"code":  s.Unknown("code", ""),
				"error": s.Unknown("error", ""),
				"rows":  placeholderRows(s),
			})
		},
		Replay: func(_ *runner.Step, raw json.RawMessage) (starlark.Value, error) {
			var rec tryRecord
			if err := json.Unmarshal(raw, &rec); err != nil {
				return nil, err
			}
			c.noteSession(sql)
			return tryValue(rec), nil
		},
	})
}

func tryValue(rec tryRecord) starlark.Value {
	rows := rec.Rows
	if rows == nil {
		rows = &db.ResultSet{}
	}
	return starlarkstruct.FromStringDict(starlark.String("try_result"), starlark.StringDict{
		"ok":    starlark.Bool(rec.Rows != nil),
		"code":  starlark.MakeInt(int(rec.Code)),
		"error": starlark.String(rec.Message),
		"rows":  newRows(rows),
	})
}

// execEach is conn.exec_each(statements).
func (c *Conn) execEach(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	stmts, err := unpackStatementList(b, args, kwargs)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(strings.Join(stmts, "\x00")))
	info := runner.StepInfo{
		Builtin: "db.exec_each", Handle: c.id, Text: summarizeStatements(stmts), Detail: strings.Join(stmts, ";\n") + ";",
		Args:  map[string]any{"statements": len(stmts), "sha256": fmt.Sprintf("%x", sum)},
		State: slices.ContainsFunc(stmts, db.IsStateStatement),
	}
	return runner.HostOf(thread).Step(info, runner.Action{
		Run: func(s *runner.Step) (runner.Outcome, error) {
			return c.execStatements(s, b.Name(), stmts)
		},
		Replay: func(_ *runner.Step, raw json.RawMessage) (starlark.Value, error) {
			var recorded []db.ExecResult
			if err := json.Unmarshal(raw, &recorded); err != nil {
				return nil, err
			}
			results := make([]starlark.Value, len(recorded))
			for i, res := range recorded {
				results[i] = execResultValue(res, false)
			}
			for _, sql := range stmts {
				c.noteSession(sql)
			}
			return starlark.NewList(results), nil
		},
		Placeholder: func(*runner.Step) starlark.Value {
			for _, sql := range stmts {
				c.noteSession(sql)
			}
			results := make([]starlark.Value, len(stmts))
			for i := range results {
				results[i] = execResultValue(db.ExecResult{}, true)
			}
			return starlark.NewList(results)
		},
	})
}

// unpackStatementList unpacks exec_each's one argument, an iterable of
// statements that must all be strings.
func unpackStatementList(b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) ([]string, error) {
	var list starlark.Iterable
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "statements", &list); err != nil {
		return nil, err
	}
	var stmts []string
	iter := list.Iterate()
	defer iter.Done()
	var v starlark.Value
	for iter.Next(&v) {
		s, ok := starlark.AsString(v)
		if !ok {
			return nil, fmt.Errorf("%s: statement %d is a %s, not a string", b.Name(), len(stmts)+1, v.Type())
		}
		stmts = append(stmts, s)
	}
	return stmts, nil
}

// execStatements runs exec_each's statements in order on the open
// connection, stopping at the first error; name is the builtin's.
func (c *Conn) execStatements(s *runner.Step, name string, stmts []string) (runner.Outcome, error) {
	conn, err := c.live(s.Context(), name)
	if err != nil {
		return runner.Outcome{}, err
	}
	results := make([]starlark.Value, 0, len(stmts))
	recorded := make([]db.ExecResult, 0, len(stmts))
	for i, sql := range stmts {
		res, err := conn.Exec(s.Context(), sql)
		if err != nil {
			return runner.Outcome{}, fmt.Errorf("%s: statement %d of %d: %w", name, i+1, len(stmts), err)
		}
		recorded = append(recorded, res)
		results = append(results, execResultValue(res, false))
	}
	return runner.Outcome{Value: starlark.NewList(results), Record: recorded}, nil
}

// summarizeStatements shows the first statements of a batch in step lists.
func summarizeStatements(stmts []string) string {
	const shown = 3
	var b strings.Builder
	for i, s := range stmts {
		if i == shown {
			fmt.Fprintf(&b, "\n... %d more statements", len(stmts)-shown)
			break
		}
		if i > 0 {
			b.WriteString("\n")
		}
		line := strings.Join(strings.Fields(s), " ")
		if len(line) > 160 {
			line = line[:160] + "…"
		}
		b.WriteString(line + ";")
	}
	return b.String()
}

// analyze is conn.analyze(tables, parallel=1).
func (c *Conn) analyze(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var tablesArg starlark.Value
	parallel := 1
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "tables", &tablesArg, "parallel?", &parallel); err != nil {
		return nil, err
	}
	tables, err := stringList(tablesArg)
	if err != nil {
		return nil, fmt.Errorf("%s: tables: %w", b.Name(), err)
	}
	if parallel < 1 {
		return nil, fmt.Errorf("%s: parallel must be at least 1, got %d", b.Name(), parallel)
	}
	text := "ANALYZE TABLE " + strings.Join(tables, ", ")
	if database := c.Session().Database; database != "" {
		text += " (database " + database + ")"
	}
	info := runner.StepInfo{
		Builtin: "db.analyze", Handle: c.id, Text: text,
		Args: map[string]any{"tables": tables, "parallel": parallel},
	}
	return runner.HostOf(thread).Step(info, runner.Action{
		Run: func(s *runner.Step) (runner.Outcome, error) {
			conn, err := c.live(s.Context(), b.Name())
			if err != nil {
				return runner.Outcome{}, err
			}
			results, err := analyzeTables(s, conn, conn.Session().Database, tables, parallel)
			if err != nil {
				return runner.Outcome{}, fmt.Errorf("%s: %w", b.Name(), err)
			}
			return runner.Outcome{Value: analyzeValue(results), Record: results}, nil
		},
		Placeholder: func(*runner.Step) starlark.Value { return starlark.NewList(nil) },
		Replay: func(_ *runner.Step, raw json.RawMessage) (starlark.Value, error) {
			var results []db.AnalyzeResult
			if err := json.Unmarshal(raw, &results); err != nil {
				return nil, err
			}
			return analyzeValue(results), nil
		},
	})
}

func analyzeValue(results []db.AnalyzeResult) starlark.Value {
	values := make([]starlark.Value, 0, len(results))
	for _, r := range results {
		values = append(values, starlarkstruct.FromStringDict(starlark.String("analyze_result"), starlark.StringDict{
			"table": starlark.String(r.Table), "msg_type": starlark.String(r.MsgType), "msg_text": starlark.String(r.MsgText),
		}))
	}
	return starlark.NewList(values)
}

// analyzeTables analyzes each table as a child step, parallel at a time.
func analyzeTables(s *runner.Step, conn *db.Conn, schema string, tables []string, parallel int) ([]db.AnalyzeResult, error) {
	children := make([]*runner.Step, len(tables))
	for i, t := range tables {
		children[i] = s.Child(runner.StepInfo{Builtin: "db.analyze_table", Text: "ANALYZE TABLE " + t, Args: map[string]any{"table": t}, Handle: s.ID()})
	}
	results := make([][]db.AnalyzeResult, len(tables))
	errs := make([]error, len(tables))
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i := range tables {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			errs[i] = children[i].Execute(func(cs *runner.Step) (any, error) {
				res, err := conn.AnalyzeTable(cs.Context(), schema, tables[i])
				results[i] = res
				return res, err
			})
		}(i)
	}
	wg.Wait()
	var all []db.AnalyzeResult
	for i := range tables {
		if errs[i] != nil {
			return nil, errs[i]
		}
		all = append(all, results[i]...)
	}
	return all, nil
}

func stringList(v starlark.Value) ([]string, error) {
	out, err := runner.StringsOf(v)
	if err == nil && len(out) == 0 {
		err = fmt.Errorf("no tables given")
	}
	return out, err
}

// version is conn.version().
func (c *Conn) version(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	return runner.HostOf(thread).Step(runner.StepInfo{Builtin: "db.version", Text: "SELECT VERSION()", Handle: c.id, State: true}, runner.Action{
		Run: func(s *runner.Step) (runner.Outcome, error) {
			conn, err := c.live(s.Context(), b.Name())
			if err != nil {
				return runner.Outcome{}, err
			}
			v, err := conn.Version(s.Context())
			if err != nil {
				return runner.Outcome{}, fmt.Errorf("%s: %w", b.Name(), err)
			}
			return runner.Outcome{Value: starlark.String(v), Record: v}, nil
		},
		Placeholder: func(*runner.Step) starlark.Value { return starlark.String("0.0.0-dry-run") },
		Replay: func(_ *runner.Step, raw json.RawMessage) (starlark.Value, error) {
			var v string
			err := json.Unmarshal(raw, &v)
			return starlark.String(v), err
		},
	})
}

// variables is conn.variables(like=None).
func (c *Conn) variables(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var like string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "like?", &like); err != nil {
		return nil, err
	}
	text := "SHOW GLOBAL VARIABLES"
	if like != "" {
		text += " LIKE " + sqltext.QuoteString(like)
	}
	return runner.HostOf(thread).Step(runner.StepInfo{Builtin: "db.variables", Text: text, Handle: c.id, Args: map[string]any{"like": like}, State: true}, runner.Action{
		Run: func(s *runner.Step) (runner.Outcome, error) {
			conn, err := c.live(s.Context(), b.Name())
			if err != nil {
				return runner.Outcome{}, err
			}
			vars, err := conn.Variables(s.Context(), like)
			if err != nil {
				return runner.Outcome{}, fmt.Errorf("%s: %w", b.Name(), err)
			}
			return runner.Outcome{Value: stringDict(vars), Record: vars}, nil
		},
		Placeholder: func(*runner.Step) starlark.Value { return starlark.NewDict(0) },
		Replay: func(_ *runner.Step, raw json.RawMessage) (starlark.Value, error) {
			var vars map[string]string
			err := json.Unmarshal(raw, &vars)
			return stringDict(vars), err
		},
	})
}

func stringDict(m map[string]string) *starlark.Dict {
	d := starlark.NewDict(len(m))
	for k, v := range m {
		_ = d.SetKey(starlark.String(k), starlark.String(v))
	}
	return d
}

// close is conn.close().
func (c *Conn) close(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	return runner.HostOf(thread).Step(runner.StepInfo{Builtin: "db.close", Handle: c.id, Text: "close " + c.id}, runner.Action{
		Run: func(*runner.Step) (runner.Outcome, error) {
			return runner.Outcome{}, c.closeNow()
		},
		Replay: func(*runner.Step, json.RawMessage) (starlark.Value, error) {
			return starlark.None, c.closeNow()
		},
	})
}

func (c *Conn) closeNow() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	if c.conn == nil {
		return nil
	}
	err := c.conn.Close()
	c.conn = nil
	return err
}

// Endpoints returns what another module (sysbench) needs to open its own
// sessions on the handle's behalf: the endpoints, the session's first, each
// starting in the handle's current database, and the session settings to
// apply on every new connection. It returns no endpoints for a dry-run
// placeholder or a closed connection.
func (c *Conn) Endpoints() ([]*mysql.Config, []string) {
	state := c.Session()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, nil
	}
	cfgs := make([]*mysql.Config, len(c.cfgs))
	for i, cfg := range c.cfgs {
		cfgs[i] = cfg.Clone()
		cfgs[i].DBName = state.Database
	}
	return cfgs, state.Settings
}

// ID is the handle id recorded in the journal ("db1").
func (c *Conn) ID() string { return c.id }

// Display is the connection's DSN with its password redacted.
func (c *Conn) Display() string { return c.display }
