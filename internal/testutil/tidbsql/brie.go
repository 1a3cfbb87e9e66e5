package tidbsql

import (
	"encoding/hex"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
)

// backup is what BACKUP wrote to one storage URL: each table's definition
// and rows, kept in memory.
type backup struct {
	url     string
	ts      uint64
	local   bool
	perTiKV bool // local:// on several TiKVs: each store kept its own SST files
	tables  []*backupTable
}

type backupTable struct {
	db, name string
	create   string
	fields   []*querypb.Field
	rows     [][]sqltypes.Value
	size     uint64
}

var brieCols = fields(
	colDef{"Destination", sqltypes.VarChar, false, 255},
	colDef{"Size", sqltypes.Uint64, true, 20},
	colDef{"BackupTS", sqltypes.Uint64, true, 20},
	colDef{"Queue Time", sqltypes.Datetime, true, 19},
	colDef{"Execution Time", sqltypes.Datetime, true, 19},
)

// TiDB's errors for BACKUP and RESTORE (ErrBRIEBackupFailed,
// ErrBRIERestoreFailed).
func backupFailed(format string, args ...any) error {
	return sqlError(8124, "HY000", "Backup failed: %s", fmt.Sprintf(format, args...))
}

func restoreFailed(format string, args ...any) error {
	return sqlError(8125, "HY000", "Restore failed: %s", fmt.Sprintf(format, args...))
}

// storageKey checks a BR storage URL's scheme and normalizes it; a bare
// path is local storage, as in BR.
func storageKey(raw string) (key string, local, noop bool, err error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", false, false, fmt.Errorf("invalid storage URL %q: %v", raw, err)
	}
	switch strings.ToLower(u.Scheme) {
	case "", "local", "file":
		local = true
	case "noop":
		noop = true
	case "s3", "gcs", "gs", "azure", "azblob", "hdfs":
	default:
		return "", false, false, fmt.Errorf("storage scheme %q is not supported (local, s3, gcs, azure, hdfs, noop)", u.Scheme)
	}
	return strings.TrimRight(raw, "/"), local, noop, nil
}

// tso is a TiDB timestamp: physical milliseconds shifted over 18 logical
// bits.
func tso(t time.Time) uint64 { return uint64(t.UnixMilli()) << 18 }

func datetimeValue(t time.Time) sqltypes.Value {
	return sqltypes.MakeTrusted(sqltypes.Datetime, []byte(t.Format("2006-01-02 15:04:05")))
}

func (h *handler) backup(ss session, st *brie) (*sqltypes.Result, error) {
	queued := time.Now()
	key, local, noop, err := storageKey(st.storage)
	if err != nil {
		return nil, backupFailed("%v", err)
	}
	if err := h.refresh(ss, false); err != nil {
		return nil, err
	}
	c := h.model
	c.mu.Lock()
	if _, ok := c.backups[key]; ok {
		c.mu.Unlock()
		return nil, backupFailed("backup meta file exists in %s/backupmeta: the path already holds a backup, give an empty one", key)
	}
	var todo []tableInfo
	for _, t := range c.liveTables() {
		if st.matches(t.db, t.name) {
			todo = append(todo, t.snapshot())
		}
	}
	tikvs := 0
	for _, s := range c.stores {
		if s.state != "Tombstone" {
			tikvs++
		}
	}
	c.mu.Unlock()
	// A database that does not exist or has no tables gives an empty backup,
	// as BR v5.2 does (pingcap/tidb#27466).
	b := &backup{url: key, ts: tso(queued), local: local, perTiKV: local && tikvs > 1}
	var size uint64
	for i := range todo {
		t := &todo[i]
		data, err := scanTable(ss, t)
		if err != nil {
			return nil, backupFailed("%v", err)
		}
		res, err := ss.query("SHOW CREATE TABLE " + quoteIdent(t.db) + "." + quoteIdent(t.name))
		if err != nil || len(res.Rows) == 0 || len(res.Rows[0]) < 2 {
			return nil, backupFailed("reading the definition of %s.%s: %v", t.db, t.name, err)
		}
		_, _, bytes := data.checksum()
		size += bytes
		b.tables = append(b.tables, &backupTable{
			db: t.db, name: t.name, create: res.Rows[0][1].ToString(),
			fields: fieldsOf(data), rows: data.rows, size: bytes,
		})
	}
	if !noop {
		c.mu.Lock()
		c.backups[key] = b
		c.mu.Unlock()
	}
	return &sqltypes.Result{Fields: brieCols, Rows: [][]sqltypes.Value{{
		sqltypes.NewVarChar(st.storage), sqltypes.NewUint64(size), sqltypes.NewUint64(b.ts),
		datetimeValue(queued), datetimeValue(time.Now()),
	}}}, nil
}

func fieldsOf(d *tableData) []*querypb.Field {
	out := make([]*querypb.Field, len(d.fields))
	for i, name := range d.fields {
		out[i] = &querypb.Field{Name: name}
	}
	if len(d.rows) > 0 {
		for i, v := range d.rows[0] {
			out[i].Type = v.Type()
		}
	}
	return out
}

// matches reports whether a BACKUP or RESTORE statement names the table.
func (st *brie) matches(db, name string) bool {
	if st.all {
		return true
	}
	for _, d := range st.dbs {
		if strings.EqualFold(d, db) {
			return true
		}
	}
	for _, t := range st.tables {
		if strings.EqualFold(t.db, db) && strings.EqualFold(t.name, name) {
			return true
		}
	}
	return false
}

func (h *handler) restore(ss session, st *brie) (*sqltypes.Result, error) {
	queued := time.Now()
	key, _, _, err := storageKey(st.storage)
	if err != nil {
		return nil, restoreFailed("%v", err)
	}
	for i, t := range st.tables {
		if t.db == "" {
			if st.tables[i].db, err = ss.currentDB(); err != nil {
				return nil, err
			}
		}
	}
	if err := h.refresh(ss, false); err != nil {
		return nil, err
	}
	c := h.model
	c.mu.Lock()
	b := c.backups[key]
	shared := c.opts.SharedLocalStorage
	var existing []tableInfo
	if b != nil {
		for _, bt := range b.tables {
			if t := c.tables[keyOf(bt.db, bt.name)]; t != nil && st.matches(bt.db, bt.name) {
				existing = append(existing, t.snapshot())
			}
		}
	}
	c.mu.Unlock()
	if b == nil {
		return nil, restoreFailed("no backupmeta in %s: nothing was backed up there", st.storage)
	}
	if b.perTiKV && !shared {
		return nil, restoreFailed("download sst failed: the SST files of %s are spread over the TiKV stores' own disks "+
			"(local:// on several TiKVs), and no store has them all", st.storage)
	}
	// BR restores into tables that must not hold data: v5.2 ingests and then
	// fails its checksum; the stand-in fails before writing.
	for _, t := range existing {
		res, err := ss.query("SELECT COUNT(*) FROM " + quoteIdent(t.db) + "." + quoteIdent(t.name))
		if err != nil {
			return nil, restoreFailed("%v", err)
		}
		if len(res.Rows) > 0 && res.Rows[0][0].ToString() != "0" {
			return nil, restoreFailed("failed to validate checksum: [BR:Restore:ErrRestoreChecksumMismatch]restore checksum mismatch "+
				"(table %s.%s already holds rows)", t.db, t.name)
		}
	}
	var size uint64
	dbs := map[string]bool{}
	tables := append([]*backupTable(nil), b.tables...)
	sort.Slice(tables, func(i, j int) bool { return tables[i].db+"."+tables[i].name < tables[j].db+"."+tables[j].name })
	for _, bt := range tables {
		if !st.matches(bt.db, bt.name) {
			continue
		}
		qname := quoteIdent(bt.db) + "." + quoteIdent(bt.name)
		if !dbs[strings.ToLower(bt.db)] {
			if _, err := ss.query("CREATE DATABASE IF NOT EXISTS " + quoteIdent(bt.db)); err != nil {
				return nil, restoreFailed("%v", err)
			}
			dbs[strings.ToLower(bt.db)] = true
		}
		if _, err := ss.query(qualifyCreate(bt.create, bt.name, qname)); err != nil {
			return nil, restoreFailed("creating %s: %v", qname, err)
		}
		if err := insertRows(ss, qname, bt); err != nil {
			return nil, restoreFailed("%v", err)
		}
		size += bt.size
	}
	if err := h.refresh(ss, false); err != nil {
		return nil, err
	}
	return &sqltypes.Result{Fields: brieCols, Rows: [][]sqltypes.Value{{
		sqltypes.NewVarChar(st.storage), sqltypes.NewUint64(size), sqltypes.NewUint64(0),
		datetimeValue(queued), datetimeValue(time.Now()),
	}}}, nil
}

// qualifyCreate turns SHOW CREATE TABLE's "CREATE TABLE `t` (" into
// "CREATE TABLE IF NOT EXISTS `db`.`t` (".
func qualifyCreate(create, name, qname string) string {
	prefix := "CREATE TABLE " + quoteIdent(name)
	if strings.HasPrefix(create, prefix) {
		return "CREATE TABLE IF NOT EXISTS " + qname + create[len(prefix):]
	}
	return create
}

func insertRows(ss session, qname string, bt *backupTable) error {
	var cols []string
	for _, f := range bt.fields {
		cols = append(cols, quoteIdent(f.Name))
	}
	head := "INSERT INTO " + qname + " (" + strings.Join(cols, ", ") + ") VALUES "
	const batch = 200
	for start := 0; start < len(bt.rows); start += batch {
		end := min(start+batch, len(bt.rows))
		var vals []string
		for _, row := range bt.rows[start:end] {
			var lits []string
			for _, v := range row {
				lits = append(lits, literal(v))
			}
			vals = append(vals, "("+strings.Join(lits, ", ")+")")
		}
		if _, err := ss.query(head + strings.Join(vals, ", ")); err != nil {
			return fmt.Errorf("writing %s: %w", qname, err)
		}
	}
	return nil
}

// literal is v as an SQL literal: numbers as they are, binary data in hex,
// everything else quoted.
func literal(v sqltypes.Value) string {
	switch {
	case v.IsNull():
		return "NULL"
	case v.IsIntegral() || v.IsFloat() || v.Type() == sqltypes.Decimal:
		return v.ToString()
	case v.IsBinary() || v.Type() == sqltypes.Bit:
		if len(v.Raw()) == 0 {
			return "''"
		}
		return "X'" + hex.EncodeToString(v.Raw()) + "'"
	}
	return sqlString(v.ToString())
}
