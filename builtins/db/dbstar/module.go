// Package dbstar is the Starlark adapter of builtins/db: the predeclared
// `db` module, its connection handles and query results. Every call that
// talks to a server is a runner step.
package dbstar

import (
	"fmt"
	"sync"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/starbench/starbench/builtins/db/targets"
	"github.com/starbench/starbench/runner"
)

// Module is the predeclared `db` module.
var Module = &starlarkstruct.Module{
	Name: "db",
	Members: starlark.StringDict{
		"connect": starlark.NewBuiltin("db.connect", connect),
	},
}

// Doc documents the module for `starbench doc`.
var Doc = runner.ModuleDoc{
	Name: "db",
	Summary: "SQL connections to MySQL-protocol servers. Every call that talks to a server is a step in the journal; " +
		"in dry-run mode nothing connects and calls return placeholders.",
	Funcs: []runner.FuncDoc{
		{Name: "db.connect", Signature: "db.connect(dsn=None, database=None, create=False)",
			Doc: "Opens a connection handle. dsn is a target name given with --target name=SPEC, a DSN, or a list of them: " +
				"several endpoints of one cluster, whose workloads spread their connections round-robin over all (the handle's " +
				"own statements use the first). A single dsn is a target name, a DSN " +
				"(user:pw@tcp(host:port)/db or mysql://user:pw@host:port/db), \"embedded\", \"sandbox:mariadb\" or \"sandbox:tidb\". " +
				"None means the default target: --target SPEC, else the only named target, else the embedded server. " +
				"database overrides the DSN's database. A database the server does not know (error 1049) fails the step, " +
				"saying so; create=True creates it first (CREATE DATABASE IF NOT EXISTS on each endpoint, printed), as the TiDB " +
				"cluster handle's connect(create=True) and go-tpc's -D do. The first connection to a target records its server version and " +
				"SHOW GLOBAL VARIABLES in manifest.json. A password written literally in the plan is warned about. " +
				"The handle keeps its session: its current database (the DSN's or database=, then each USE it runs) and its " +
				"session settings (each SET of a session or user variable, NAMES or CHARACTER SET, in order). Every connection " +
				"a builtin opens from the handle starts with both: sysbench's threads, prepare and cleanup, ANALYZE and " +
				"snapshot copies, and the handle itself when a resumed run opens it again. sysbench steps show the database " +
				"as --mysql-db= in their command line."},
		{Name: "conn.dsn", Signature: "conn.dsn",
			Doc: "The handle's server as shown: its DSN with the password as ***, the endpoints joined with \", \" when the " +
				"target has several (for a plan's print and report lines; it does not connect)."},
		{Name: "conn.target", Signature: "conn.target",
			Doc: "The name of the target the handle connects to (\"default\", or the NAME of --target NAME=SPEC), or for a DSN " +
				"written in the plan its host:port: the key of the target in manifest.json."},
		{Name: "conn.id", Signature: "conn.id",
			Doc: "The handle's id in the run (\"db1\", \"db2\", ... in the order of db.connect calls), as the journal names it."},
		{Name: "conn.exec", Signature: "conn.exec(sql, *args)",
			Doc: "Runs one statement (with ? placeholders bound to args) on the connection's session and returns a struct " +
				"with rows_affected and last_insert_id. A server error fails the plan with the MySQL error code and message."},
		{Name: "conn.query", Signature: "conn.query(sql, *args)",
			Doc: "Runs a statement that returns rows. The result is a sequence of rows with .columns; a row is indexed by " +
				"column name (row[\"c\"]), position (row[0]) or attribute (row.c). Integers come back as int, DECIMAL/FLOAT/DOUBLE " +
				"as float, NULL as None, binary columns as bytes, everything else as string."},
		{Name: "conn.try_query", Signature: "conn.try_query(sql, *args)",
			Doc: "conn.query for a statement the server may refuse (a table only some servers have, a feature to probe): " +
				"returns a struct with ok, rows, code and error. When the server refuses the statement, ok is False, rows " +
				"are empty, code is the MySQL error code and error the server's message; the run goes on. A failure that is " +
				"not the server's answer (a lost connection) fails as conn.query does. In a dry run ok, code and error are " +
				"known only in a real run, so a plan cannot branch on them there."},
		{Name: "conn.exec_each", Signature: "conn.exec_each(statements)",
			Doc: "Runs a list of statements in order as one step and returns the list of their exec results."},
		{Name: "conn.analyze", Signature: "conn.analyze(tables, parallel=1)",
			Doc: "Runs ANALYZE TABLE for a table name or a list of them, up to parallel at a time on extra connections; " +
				"each table is a child step. Returns a list of structs (table, msg_type, msg_text)."},
		{Name: "conn.version", Signature: "conn.version()", Doc: "Returns the server's VERSION() string."},
		{Name: "conn.variables", Signature: "conn.variables(like=None)",
			Doc: "Returns SHOW GLOBAL VARIABLES [LIKE pattern] as a dict of strings."},
		{Name: "conn.close", Signature: "conn.close()", Doc: "Closes the connection. Connections still open when the plan ends are closed then."},
		{Name: "conn.snapshot", Signature: "conn.snapshot(schema=None, store=None, parallel=4)",
			Doc: "Saves every table of schema (default: the current database) into the schema store (default SCHEMA_snapshot, " +
				"made anew) with CREATE TABLE ... LIKE and INSERT ... SELECT, parallel tables at a time, and records each table's " +
				"checksum (CHECKSUM TABLE; on TiDB ADMIN CHECKSUM TABLE's KV count and bytes with a digest of the rows) and AUTO_INCREMENT counter. Returns a snapshot value " +
				"(.schema, .store, .tables, .checksums, .rows). Any MySQL-compatible server."},
		{Name: "conn.restore", Signature: "conn.restore(snapshot, parallel=4)",
			Doc: "Brings the snapshot's schema back to exactly that state: every saved table is replaced by its copy, tables " +
				"made since are dropped, and each table's checksum must equal the recorded one. Returns a struct (restored, " +
				"dropped, seconds). Restore before every concurrency level to give each level the same data."},
	},
}

// runState is the module's per-run state: servers it started, targets it
// recorded, and handle numbering.
type runState struct {
	mu         sync.Mutex
	servers    map[string]*targets.Server
	recorded   map[string]bool
	nextHandle int
	conns      []*Conn
}

type stateKey struct{}

func stateOf(thread *starlark.Thread) *runState {
	h := runner.HostOf(thread)
	return h.State(stateKey{}, func() any {
		st := &runState{servers: map[string]*targets.Server{}, recorded: map[string]bool{}}
		h.OnFinish(st.closeAll)
		return st
	}).(*runState)
}

func (st *runState) closeAll() {
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, c := range st.conns {
		_ = c.closeNow()
	}
	for _, s := range st.servers {
		s.Stop()
	}
}

func (st *runState) newHandleID() string {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.nextHandle++
	return fmt.Sprintf("db%d", st.nextHandle)
}

func resolveTarget(thread *starlark.Thread, dsn starlark.Value) (targets.Resolved, error) {
	run := runner.HostOf(thread).Run()
	resolve := targets.Resolve
	if run.DryRun() {
		resolve = targets.ResolveDry // check and --dry-run need no server
	}
	switch v := dsn.(type) {
	case starlark.NoneType:
		return resolve(run, nil)
	case starlark.String:
		s := string(v)
		return resolve(run, &s)
	}
	return targets.Resolved{}, fmt.Errorf("dsn must be a string or None, not %s", dsn.Type())
}

// resolveTargets reads db.connect's dsn: one target, or a list of them
// (several endpoints of one cluster, e.g. every TiDB server).
func resolveTargets(thread *starlark.Thread, dsn starlark.Value) ([]targets.Resolved, error) {
	list, ok := dsn.(*starlark.List)
	if !ok {
		rt, err := resolveTarget(thread, dsn)
		return []targets.Resolved{rt}, err
	}
	if list.Len() == 0 {
		return nil, fmt.Errorf("dsn: an empty list of endpoints")
	}
	var out []targets.Resolved
	for i := 0; i < list.Len(); i++ {
		rt, err := resolveTarget(thread, list.Index(i))
		if err != nil {
			return nil, fmt.Errorf("endpoint %d: %w", i+1, err)
		}
		out = append(out, rt)
	}
	return out, nil
}
