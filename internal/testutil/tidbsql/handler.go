package tidbsql

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
)

// handler answers the TiDB statements itself and hands the rest to
// go-mysql-server's handler. Before a query that reads the model's tables
// it brings the model's view of the catalog up to date, and after DDL it
// notes new, dropped, truncated and renamed tables, so table IDs follow the
// order TiDB would give them.
//
// Statements run one at a time (serial): go-mysql-server's in-memory engine
// can lose writes made at once on several connections (a table created,
// filled or renamed on one while another does the same to another table
// came out empty), where TiDB keeps every committed write. Serial
// execution is slower, never wrong, so a test can use its clients'
// parallel paths (snapshot and restore of several tables at once).
type handler struct {
	mysql.Handler // go-mysql-server's
	model         *cluster
	serial        sync.Mutex
}

// session runs internal queries on the client's own session (its current
// database and transaction), through the engine's handler.
type session struct {
	h   *handler
	ctx context.Context
	c   *mysql.Conn
}

func (ss session) query(q string) (*sqltypes.Result, error) {
	out := &sqltypes.Result{}
	err := ss.h.Handler.ComQuery(ss.ctx, ss.c, q, func(r *sqltypes.Result, more bool) error {
		if r == nil {
			return nil
		}
		if len(r.Fields) > 0 && len(out.Fields) == 0 {
			out.Fields = r.Fields
		}
		for _, row := range r.Rows {
			cp := make([]sqltypes.Value, len(row))
			for i, v := range row {
				cp[i] = sqltypes.MakeTrusted(v.Type(), append([]byte(nil), v.Raw()...))
			}
			out.Rows = append(out.Rows, cp)
		}
		out.RowsAffected += r.RowsAffected
		return nil
	})
	return out, err
}

func (ss session) currentDB() (string, error) {
	res, err := ss.query("SELECT DATABASE()")
	if err != nil {
		return "", err
	}
	if len(res.Rows) == 0 || res.Rows[0][0].IsNull() {
		return "", nil
	}
	return res.Rows[0][0].ToString(), nil
}

func (h *handler) ComQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) error {
	h.serial.Lock()
	defer h.serial.Unlock()
	ss := session{h: h, ctx: ctx, c: c}
	st, err := parseTiDB(query)
	if err != nil {
		return err
	}
	if st != nil {
		return h.answer(ss, st, callback)
	}
	if err := h.before(ss, query); err != nil {
		return err
	}
	if err := h.Handler.ComQuery(ctx, c, query, callback); err != nil {
		return err
	}
	h.after(ss, query)
	return nil
}

func (h *handler) ComMultiQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) (string, error) {
	h.serial.Lock()
	defer h.serial.Unlock()
	ss := session{h: h, ctx: ctx, c: c}
	first, rest := splitFirst(query)
	st, err := parseTiDB(first)
	if err != nil {
		return "", err
	}
	if st != nil {
		return rest, h.answer(ss, st, callback)
	}
	if err := h.before(ss, first); err != nil {
		return "", err
	}
	remainder, err := h.Handler.ComMultiQuery(ctx, c, query, callback)
	if err == nil {
		h.after(ss, first)
	}
	return remainder, err
}

func (h *handler) ComStmtExecute(ctx context.Context, c *mysql.Conn, prepare *mysql.PrepareData, callback func(*sqltypes.Result) error) error {
	h.serial.Lock()
	defer h.serial.Unlock()
	ss := session{h: h, ctx: ctx, c: c}
	if err := h.before(ss, prepare.PrepareStmt); err != nil {
		return err
	}
	if err := h.Handler.ComStmtExecute(ctx, c, prepare, callback); err != nil {
		return err
	}
	h.after(ss, prepare.PrepareStmt)
	return nil
}

// ConnectionClosed forgets the connection's TiDB session variables.
func (h *handler) ConnectionClosed(c *mysql.Conn) {
	h.model.mu.Lock()
	delete(h.model.session, c.ConnectionID)
	h.model.mu.Unlock()
	h.Handler.ConnectionClosed(c)
}

// ComInitDB answers an unknown database as TiDB (and MySQL) word it.
func (h *handler) ComInitDB(c *mysql.Conn, schemaName string) error {
	err := h.Handler.ComInitDB(c, schemaName)
	var se *mysql.SQLError
	if errors.As(err, &se) && se.Number() == mysql.ERBadDb {
		return sqlError(mysql.ERBadDb, "42000", "Unknown database '%s'", schemaName)
	}
	return err
}

// modelTables are the engine tables whose rows come from the model; a query
// naming one gets a fresh model first (scanning tables when it reports
// Region sizes).
var modelTables = []struct {
	name string
	scan bool
}{
	{"tikv_region_status", true},
	{"tikv_store_status", true},
	{"tikv_region_peers", false},
}

func (h *handler) before(ss session, query string) error {
	if err := h.checkRenames(ss, query); err != nil {
		return err
	}
	found, scan := false, false
	for _, t := range modelTables {
		if containsFold(query, t.name) {
			found = true
			scan = scan || t.scan
		}
	}
	if !found {
		return nil
	}
	return h.refresh(ss, scan)
}

// containsFold is strings.Contains ignoring ASCII case, without copying s.
func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if (s[i]|0x20) == (sub[0]|0x20) && strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

// after follows DDL: TRUNCATE gives a table a new ID, a rename keeps it
// (RENAME TABLE and ALTER TABLE ... RENAME alike, see renamesOf), and a
// refresh gives new tables theirs in the order they were created.
func (h *handler) after(ss session, query string) {
	word := firstWord(query)
	switch word {
	case "CREATE", "DROP", "ALTER", "TRUNCATE", "RENAME":
	default:
		return
	}
	toks, err := lex(query)
	if err != nil || len(toks) == 0 {
		return
	}
	switch word {
	case "TRUNCATE":
		p := &parser{src: query, toks: toks, i: 1}
		p.kw("TABLE")
		if t, ok := p.tableName(); ok {
			h.forget(ss, t)
		}
	case "RENAME", "ALTER":
		for _, r := range renamesOf(query, toks) {
			h.rename(ss, r[0], r[1])
		}
	}
	// A failure here leaves the model stale; the next statement that uses
	// the model refreshes it again and reports the error.
	_ = h.refresh(ss, false)
}

func (h *handler) qualify(ss session, t tableRef) tableRef {
	if t.db == "" {
		t.db, _ = ss.currentDB()
	}
	return t
}

func (h *handler) forget(ss session, t tableRef) {
	t = h.qualify(ss, t)
	h.model.mu.Lock()
	delete(h.model.tables, keyOf(t.db, t.name))
	h.model.mu.Unlock()
}

// renamesOf lists the tables a statement renames, in order, as [from, to]:
// RENAME TABLE a TO b[, c TO d ...], and ALTER [IGNORE] TABLE t with a
// RENAME [TO | AS] new specification (not RENAME INDEX, KEY or COLUMN,
// which rename parts of the table). In TiDB both statements are the same
// DDL job, ActionRenameTable, which keeps the table's ID (pingcap/tidb
// pkg/ddl: onRenameTable and checkAndRenameTables re-create the same table
// info under the new name; ALTER TABLE's AlterTableRenameTable calls the
// same renameTable as RENAME TABLE).
func renamesOf(src string, toks []token) [][2]tableRef {
	p := &parser{src: src, toks: toks}
	var out [][2]tableRef
	switch {
	case p.kw("RENAME", "TABLE"):
		for {
			from, ok1 := p.tableName()
			ok2 := p.kw("TO")
			to, ok3 := p.tableName()
			if !(ok1 && ok2 && ok3) {
				return out
			}
			out = append(out, [2]tableRef{from, to})
			if !p.punct(",") {
				return out
			}
		}
	case p.kw("ALTER"):
		p.kw("IGNORE")
		if !p.kw("TABLE") {
			return nil
		}
		table, ok := p.tableName()
		if !ok {
			return nil
		}
		// The specifications, separated by commas outside parentheses.
		depth, start := 0, true
		for ; p.i < len(p.toks); p.i++ {
			t := p.toks[p.i]
			if t.kind == tkPunct {
				switch t.text {
				case "(":
					depth++
				case ")":
					depth--
				case ",":
					start = depth == 0
					continue
				}
			}
			if start && t.kind == tkWord && strings.EqualFold(t.text, "RENAME") {
				q := &parser{src: src, toks: p.toks, i: p.i + 1}
				if q.kw("INDEX") || q.kw("KEY") || q.kw("COLUMN") {
					start = false
					continue
				}
				if !q.kw("TO") {
					q.kw("AS")
				}
				if to, ok := q.tableName(); ok {
					out = append(out, [2]tableRef{table, to})
					table = to
				}
			}
			start = false
		}
	}
	return out
}

// checkRenames refuses a rename into another database: the engine behind
// the stand-in renames within the table's database whatever the new name's
// database is, so the model could not follow it.
func (h *handler) checkRenames(ss session, query string) error {
	switch firstWord(query) {
	case "RENAME", "ALTER":
	default:
		return nil
	}
	toks, err := lex(query)
	if err != nil {
		return nil // the engine reports it
	}
	for _, r := range renamesOf(query, toks) {
		from, to := h.qualify(ss, r[0]), h.qualify(ss, r[1])
		if !strings.EqualFold(from.db, to.db) {
			return sqlError(mysql.ERNotSupportedYet, "42000",
				"the TiDB stand-in does not model renaming a table into another database (%s.%s to %s.%s)", from.db, from.name, to.db, to.name)
		}
	}
	return nil
}

// rename moves the model's table from one name to the other, keeping its
// ID (and so its Regions and keys).
func (h *handler) rename(ss session, from, to tableRef) {
	from, to = h.qualify(ss, from), h.qualify(ss, to)
	h.model.mu.Lock()
	defer h.model.mu.Unlock()
	if t := h.model.tables[keyOf(from.db, from.name)]; t != nil {
		delete(h.model.tables, keyOf(from.db, from.name))
		t.db, t.name = to.db, to.name
		h.model.tables[keyOf(to.db, to.name)] = t
	}
}

// answer runs one TiDB statement.
func (h *handler) answer(ss session, st any, cb mysql.ResultSpoolFn) error {
	var res *sqltypes.Result
	var err error
	switch st := st.(type) {
	case *adminChecksum:
		res, err = h.adminChecksum(ss, st)
	case *splitTable:
		res, err = h.splitTable(ss, st)
	case *showConfig:
		return h.showConfig(ss, st, cb)
	case *setTiDBVars:
		h.model.setVars(ss.c.ConnectionID, st.assigns)
		res = &sqltypes.Result{}
	case *brie:
		if st.restore {
			res, err = h.restore(ss, st)
		} else {
			res, err = h.backup(ss, st)
		}
	default:
		err = fmt.Errorf("unhandled statement %T", st)
	}
	if err != nil {
		return err
	}
	return cb(res, false)
}

func sqlError(code int, state, format string, args ...any) error {
	return mysql.NewSQLError(code, state, format, args...)
}

func noSuchTable(t tableRef) error {
	return sqlError(mysql.ERNoSuchTable, "42S02", "Table '%s.%s' doesn't exist", t.db, t.name)
}

// lookup finds a table the statement names, with the current database for
// an unqualified name, as TiDB errors when there is none or no such table.
func (h *handler) lookup(ss session, t tableRef) (tableRef, error) {
	if t.db == "" {
		db, err := ss.currentDB()
		if err != nil {
			return t, err
		}
		if db == "" {
			return t, sqlError(mysql.ERNoDb, "3D000", "No database selected")
		}
		t.db = db
	}
	h.model.mu.Lock()
	defer h.model.mu.Unlock()
	tb := h.model.tables[keyOf(t.db, t.name)]
	if tb == nil {
		return t, noSuchTable(t)
	}
	return tableRef{db: tb.db, name: tb.name}, nil
}
