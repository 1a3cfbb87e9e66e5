package tidbsql

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc64"
	"sort"
	"strconv"
	"strings"

	"github.com/dolthub/vitess/go/sqltypes"
)

// tableInfo is a table as TiDB knows it: its ID, its handle (the integer
// primary key when there is one, else the hidden _tidb_rowid) and its
// secondary indexes with their IDs.
type tableInfo struct {
	id          int64
	db, name    string
	columns     []columnInfo
	handle      string // integer primary-key column, "" for _tidb_rowid
	indexes     []*indexInfo
	nextIndexID int64
	stats       *tableStats // from the last scan
}

type columnInfo struct {
	name     string
	dataType string
}

type indexInfo struct {
	id      int64
	name    string
	unique  bool
	columns []string
}

type tableStats struct {
	kvs []kvStat // sorted by key
}

type kvStat struct {
	key  []byte
	size int
}

func (t *tableInfo) index(name string) *indexInfo {
	for _, ix := range t.indexes {
		if strings.EqualFold(ix.name, name) {
			return ix
		}
	}
	return nil
}

// snapshot copies what a scan needs, so scans run without the model's lock.
func (t *tableInfo) snapshot() tableInfo {
	cp := *t
	cp.columns = append([]columnInfo(nil), t.columns...)
	cp.indexes = nil
	for _, ix := range t.indexes {
		x := *ix
		x.columns = append([]string(nil), ix.columns...)
		cp.indexes = append(cp.indexes, &x)
	}
	cp.stats = nil
	return cp
}

// systemSchemas hold no user tables in TiDB's sense here.
var systemSchemas = map[string]bool{
	"information_schema": true, "mysql": true, "performance_schema": true, "sys": true, "metrics_schema": true,
}

var integerTypes = map[string]bool{
	"tinyint": true, "smallint": true, "mediumint": true, "int": true, "integer": true, "bigint": true,
}

// catalogView is the engine's schemas, tables, columns and indexes, read
// through SQL on the client's session.
type catalogView struct {
	schemas []string
	tables  []tableKey // original case
	columns map[tableKey][]columnInfo
	indexes map[tableKey][]*indexInfo // PRIMARY included, IDs unset
}

func readCatalog(ss session) (*catalogView, error) {
	v := &catalogView{columns: map[tableKey][]columnInfo{}, indexes: map[tableKey][]*indexInfo{}}
	res, err := ss.query("SELECT SCHEMA_NAME FROM information_schema.SCHEMATA")
	if err != nil {
		return nil, err
	}
	for _, r := range res.Rows {
		if name := r[0].ToString(); !systemSchemas[strings.ToLower(name)] {
			v.schemas = append(v.schemas, name)
		}
	}
	res, err = ss.query("SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES WHERE TABLE_TYPE = 'BASE TABLE'")
	if err != nil {
		return nil, err
	}
	for _, r := range res.Rows {
		if db := r[0].ToString(); !systemSchemas[strings.ToLower(db)] {
			v.tables = append(v.tables, tableKey{db, r[1].ToString()})
		}
	}
	sort.Slice(v.tables, func(i, j int) bool {
		a, b := keyOf(v.tables[i].db, v.tables[i].name), keyOf(v.tables[j].db, v.tables[j].name)
		return a.db < b.db || a.db == b.db && a.name < b.name
	})
	res, err = ss.query("SELECT TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME, DATA_TYPE, COLUMN_KEY FROM information_schema.COLUMNS " +
		"ORDER BY TABLE_SCHEMA, TABLE_NAME, ORDINAL_POSITION")
	if err != nil {
		return nil, err
	}
	primary := map[tableKey][]string{}
	for _, r := range res.Rows {
		k := keyOf(r[0].ToString(), r[1].ToString())
		v.columns[k] = append(v.columns[k], columnInfo{name: r[2].ToString(), dataType: strings.ToLower(r[3].ToString())})
		if r[4].ToString() == "PRI" {
			primary[k] = append(primary[k], r[2].ToString())
		}
	}
	res, err = ss.query("SELECT TABLE_SCHEMA, TABLE_NAME, INDEX_NAME, NON_UNIQUE, COLUMN_NAME FROM information_schema.STATISTICS " +
		"ORDER BY TABLE_SCHEMA, TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX")
	if err != nil {
		return nil, err
	}
	for _, r := range res.Rows {
		k := keyOf(r[0].ToString(), r[1].ToString())
		name := r[2].ToString()
		list := v.indexes[k]
		if len(list) == 0 || list[len(list)-1].name != name {
			list = append(list, &indexInfo{name: name, unique: r[3].ToString() == "0"})
		}
		last := list[len(list)-1]
		last.columns = append(last.columns, r[4].ToString())
		v.indexes[k] = list
	}
	// A primary key the engine keeps no index for still shows in COLUMNS.
	for k, cols := range primary {
		found := false
		for _, ix := range v.indexes[k] {
			found = found || ix.name == "PRIMARY"
		}
		if !found {
			v.indexes[k] = append(v.indexes[k], &indexInfo{name: "PRIMARY", unique: true, columns: cols})
		}
	}
	return v, nil
}

// refresh brings the model's tables in line with the engine's: new tables
// get IDs (and their Region, as TiDB splits at every new table), dropped ones
// leave, indexes get IDs. With scan, it also reads every table to update the
// Regions' approximate keys and sizes.
func (h *handler) refresh(ss session, scan bool) error {
	v, err := readCatalog(ss)
	if err != nil {
		return fmt.Errorf("reading the catalog: %w", err)
	}
	c := h.model
	c.mu.Lock()
	schemas := map[string]bool{}
	for _, db := range v.schemas {
		c.noteDB(db)
		schemas[strings.ToLower(db)] = true
	}
	for name := range c.dbs {
		if !schemas[name] {
			delete(c.dbs, name) // dropped: a new one of that name gets a new ID
		}
	}
	live := map[tableKey]bool{}
	for _, tk := range v.tables {
		k := keyOf(tk.db, tk.name)
		live[k] = true
		t := c.tables[k]
		if t == nil {
			c.noteDB(tk.db)
			t = &tableInfo{id: c.nextMetaID, db: tk.db, name: tk.name, nextIndexID: 1}
			c.nextMetaID++
			c.tables[k] = t
			c.split([][]byte{tablePrefix(t.id)})
		}
		t.db, t.name = tk.db, tk.name
		t.columns = v.columns[k]
		t.setIndexes(v.indexes[k])
	}
	for k := range c.tables {
		if !live[k] {
			delete(c.tables, k)
		}
	}
	var todo []tableInfo
	if scan {
		for _, t := range c.liveTables() {
			todo = append(todo, t.snapshot())
		}
	}
	c.mu.Unlock()
	for _, t := range todo {
		data, err := scanTable(ss, &t)
		if err != nil {
			return err
		}
		c.mu.Lock()
		if cur := c.tables[keyOf(t.db, t.name)]; cur != nil && cur.id == t.id {
			cur.stats = data.stats()
		}
		c.mu.Unlock()
	}
	return nil
}

// setIndexes takes the engine's indexes: a single integer PRIMARY KEY is the
// handle (TiDB v5.2 clusters integer primary keys only); every other index
// keeps the ID it had or gets the next one, PRIMARY first.
func (t *tableInfo) setIndexes(list []*indexInfo) {
	t.handle = ""
	sort.SliceStable(list, func(i, j int) bool { return list[i].name == "PRIMARY" && list[j].name != "PRIMARY" })
	var out []*indexInfo
	for _, ix := range list {
		if ix.name == "PRIMARY" && len(ix.columns) == 1 && integerTypes[t.columnType(ix.columns[0])] {
			t.handle = ix.columns[0]
			continue
		}
		if old := t.index(ix.name); old != nil {
			ix.id = old.id
		} else {
			ix.id = t.nextIndexID
			t.nextIndexID++
		}
		out = append(out, ix)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	t.indexes = out
}

func (t *tableInfo) columnType(name string) string {
	for _, c := range t.columns {
		if strings.EqualFold(c.name, name) {
			return c.dataType
		}
	}
	return ""
}

// tableData is a table's rows and the KV pairs TiDB would keep for them.
type tableData struct {
	fields  []string
	rows    [][]sqltypes.Value
	kvs     []kvPair
	records int
}

type kvPair struct {
	key, value []byte
}

func (d *tableData) stats() *tableStats {
	s := &tableStats{}
	for _, kv := range d.kvs {
		s.kvs = append(s.kvs, kvStat{key: kv.key, size: len(kv.key) + len(kv.value)})
	}
	sort.Slice(s.kvs, func(i, j int) bool { return bytes.Compare(s.kvs[i].key, s.kvs[j].key) < 0 })
	return s
}

// checksum is ADMIN CHECKSUM's triple: the XOR of each pair's CRC64 (ECMA)
// over key and value, the number of pairs and their bytes.
func (d *tableData) checksum() (crc uint64, kvs, size uint64) {
	table := crc64.MakeTable(crc64.ECMA)
	for _, kv := range d.kvs {
		h := crc64.New(table)
		h.Write(kv.key)
		h.Write(kv.value)
		crc ^= h.Sum64()
		size += uint64(len(kv.key) + len(kv.value))
	}
	return crc, uint64(len(d.kvs)), size
}

func quoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// scanTable reads a table and builds its KV pairs: one record per row keyed
// by the handle (the integer primary key, else a row ID in scan order) with
// the other columns as value, and one entry per row and secondary index.
func scanTable(ss session, t *tableInfo) (*tableData, error) {
	res, err := ss.query("SELECT * FROM " + quoteIdent(t.db) + "." + quoteIdent(t.name))
	if err != nil {
		return nil, fmt.Errorf("reading %s.%s: %w", t.db, t.name, err)
	}
	d := &tableData{rows: res.Rows}
	pos := map[string]int{}
	for i, f := range res.Fields {
		d.fields = append(d.fields, f.Name)
		pos[strings.ToLower(f.Name)] = i
	}
	hpos := -1
	if t.handle != "" {
		p, ok := pos[strings.ToLower(t.handle)]
		if !ok {
			return nil, fmt.Errorf("%s.%s has no column %s", t.db, t.name, t.handle)
		}
		hpos = p
	}
	for n, row := range res.Rows {
		handle := int64(n + 1)
		if hpos >= 0 {
			h, err := parseHandle(row[hpos])
			if err != nil {
				return nil, fmt.Errorf("%s.%s: %w", t.db, t.name, err)
			}
			handle = h
		}
		var val []byte
		for i, v := range row {
			if i == hpos {
				continue
			}
			val = binary.AppendUvarint(val, uint64(i+1))
			if v.IsNull() {
				val = append(val, 0)
				continue
			}
			val = append(val, 1)
			val = binary.AppendUvarint(val, uint64(len(v.Raw())))
			val = append(val, v.Raw()...)
		}
		d.kvs = append(d.kvs, kvPair{key: recordKey(t.id, handle), value: val})
		d.records++
		for _, ix := range t.indexes {
			key := indexPrefix(t.id, ix.id)
			hasNull := false
			for _, col := range ix.columns {
				p, ok := pos[strings.ToLower(col)]
				if !ok || row[p].IsNull() {
					key = append(key, 0)
					hasNull = true
					continue
				}
				key = append(key, 1)
				key = append(key, encodeBytes(row[p].Raw())...)
			}
			var value []byte
			if ix.unique && !hasNull {
				value = encodeInt(nil, handle)
			} else {
				key = encodeInt(key, handle)
				value = []byte{'0'}
			}
			d.kvs = append(d.kvs, kvPair{key: key, value: value})
		}
	}
	return d, nil
}

func parseHandle(v sqltypes.Value) (int64, error) {
	s := v.ToString()
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	if n, err := strconv.ParseUint(s, 10, 64); err == nil {
		return int64(n), nil
	}
	return 0, fmt.Errorf("handle value %q is not an integer", s)
}
