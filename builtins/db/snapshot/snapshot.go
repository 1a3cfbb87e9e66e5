// Package snapshot saves a schema's tables and brings them back exactly,
// on any MySQL-compatible server, through SQL: each table is copied into
// a snapshot schema (CREATE TABLE ... LIKE and INSERT ... SELECT, in
// parallel) and restored the same way, and both directions are verified
// with checksums (CHECKSUM TABLE on MySQL and MariaDB; on TiDB, ADMIN
// CHECKSUM TABLE's KV count and bytes with a digest of the rows, since its
// CRC depends on the table's ID, which a copy does not keep). Benchmarks restore before every concurrency level so that each
// level starts from the same data. It has no Starlark in it.
package snapshot

import (
	"context"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-multierror"

	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/internal/sqltext"
)

// Table is one table's state in a snapshot.
type Table struct {
	Name          string `json:"name"`
	Rows          int64  `json:"rows"`
	Checksum      string `json:"checksum"`
	AutoIncrement int64  `json:"auto_increment,omitempty"`
}

// Snapshot is what Take saved.
type Snapshot struct {
	Schema  string    `json:"schema"` // the schema saved
	Store   string    `json:"store"`  // the schema holding the copies
	Engine  string    `json:"engine"` // mysql (MySQL, MariaDB) or tidb
	Tables  []Table   `json:"tables"`
	Created time.Time `json:"created"`
	Seconds float64   `json:"seconds"`
}

// Options tune Take and Restore.
type Options struct {
	Parallel int // tables copied at once; 0 means 4
}

func (o Options) parallel() int {
	if o.Parallel <= 0 {
		return 4
	}
	return o.Parallel
}

// Engine tells how to checksum on the server behind conn.
func Engine(ctx context.Context, conn *db.Conn) (string, error) {
	v, err := conn.Version(ctx)
	if err != nil {
		return "", err
	}
	if strings.Contains(strings.ToLower(v), "tidb") {
		return "tidb", nil
	}
	return "mysql", nil
}

// Checksum computes a table's checksum the way the engine offers. On
// TiDB it is the rows' digest with ADMIN CHECKSUM TABLE's KV count and
// bytes, when a store computed them: TiDB's embedded stores (unistore,
// mocktikv, which tidb_version() names) do not (unistore answers a CRC of
// 0 and 2 KV pairs for a table of three rows, 5 after a split), and an
// answer no TiKV gives (a CRC of 0 over KV pairs, fewer pairs than rows)
// is not one; then the checksum is the rows' digest alone, never a
// checksum of what was not computed.
func Checksum(ctx context.Context, conn *db.Conn, engine, schema, table string) (string, error) {
	name := sqltext.QuoteIdent(schema) + "." + sqltext.QuoteIdent(table)
	if engine == "tidb" {
		digest, rows, err := rowDigest(ctx, conn, schema, table)
		if err != nil {
			return "", err
		}
		rs, err := conn.PoolQuery(ctx, "ADMIN CHECKSUM TABLE "+name)
		if err != nil {
			return "", err
		}
		if len(rs.Rows) != 1 || len(rs.Rows[0]) < 5 {
			return "", fmt.Errorf("ADMIN CHECKSUM TABLE %s returned %d rows", name, len(rs.Rows))
		}
		// Checksum_crc64_xor folds in the table's ID, which a copy (and a
		// table restored from one) does not share: compare the KV count
		// and bytes, and the rows' own digest.
		r := rs.Rows[0]
		embedded, err := embeddedStore(ctx, conn)
		if err != nil {
			return "", err
		}
		if embedded || !adminChecksumComputed(r[2], r[3], rows) {
			return digest, nil
		}
		return fmt.Sprintf("kvs:%v/bytes:%v/%s", r[3], r[4], digest), nil
	}
	rs, err := conn.PoolQuery(ctx, "CHECKSUM TABLE "+name)
	if err != nil {
		return "", err
	}
	if len(rs.Rows) != 1 || len(rs.Rows[0]) < 2 || rs.Rows[0][1] == nil {
		return "", fmt.Errorf("CHECKSUM TABLE %s gave no checksum", name)
	}
	return fmt.Sprint(rs.Rows[0][1]), nil
}

// embeddedStore reports whether the TiDB server's store is one of its
// embedded ones, which tidb_version() names on its Store line (TiDB v6
// and later; v5's has no such line, and is taken as TiKV).
func embeddedStore(ctx context.Context, conn *db.Conn) (bool, error) {
	rs, err := conn.PoolQuery(ctx, "SELECT tidb_version()")
	if err != nil {
		return false, err
	}
	if len(rs.Rows) != 1 || len(rs.Rows[0]) != 1 {
		return false, fmt.Errorf("tidb_version() returned %d rows", len(rs.Rows))
	}
	v := textOf(rs.Rows[0][0])
	return strings.Contains(v, "\nStore: unistore") || strings.Contains(v, "\nStore: mocktikv"), nil
}

// adminChecksumComputed tells whether ADMIN CHECKSUM TABLE's CRC and KV
// count are a store's computation for a table of rows rows: every row is
// at least one KV pair, and a CRC64 XOR of 0 over pairs that exist is what
// a store answers that computed none (TiKV gives 0 only for no pairs).
func adminChecksumComputed(crc, kvs any, rows uint64) bool {
	c, err1 := strconv.ParseUint(fmt.Sprint(crc), 10, 64)
	k, err2 := strconv.ParseUint(fmt.Sprint(kvs), 10, 64)
	if err1 != nil || err2 != nil {
		return false
	}
	return k >= rows && !(c == 0 && k > 0)
}

// rowDigest is a digest of a table's rows that does not depend on where
// the table is: its row count and the sum of a 64-bit hash of each row's
// values (with which of them are NULL): the first 64 bits of its MD5, a
// number the server sums exactly (SUM of integers is a DECIMAL in MySQL,
// MariaDB and TiDB). A sum tells multisets apart where an XOR does not:
// two equal rows cancel in an XOR, so rows A, A changed into B, B kept it.
func rowDigest(ctx context.Context, conn *db.Conn, schema, table string) (digest string, rows uint64, err error) {
	rs, err := conn.PoolQuery(ctx, "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION", schema, table)
	if err != nil {
		return "", 0, err
	}
	if len(rs.Rows) == 0 {
		return "", 0, fmt.Errorf("%s.%s has no columns", schema, table)
	}
	// The sum as text: the driver's DECIMAL would come back a float64,
	// which holds 53 bits where the sum of 64-bit hashes needs more.
	d, err := conn.PoolQuery(ctx, "SELECT COUNT(*), CAST(COALESCE(SUM("+rowHash(rs.Rows)+"), 0) AS CHAR) FROM "+
		sqltext.QuoteIdent(schema)+"."+sqltext.QuoteIdent(table))
	if err != nil {
		return "", 0, fmt.Errorf("digest of %s.%s: %w", schema, table, err)
	}
	if len(d.Rows) != 1 || len(d.Rows[0]) != 2 {
		return "", 0, fmt.Errorf("digest of %s.%s: %d rows", schema, table, len(d.Rows))
	}
	rows, err = strconv.ParseUint(fmt.Sprint(d.Rows[0][0]), 10, 64)
	if err != nil {
		return "", 0, fmt.Errorf("digest of %s.%s: row count %v", schema, table, d.Rows[0][0])
	}
	return fmt.Sprintf("rows:%v/md5sum64:%s", d.Rows[0][0], textOf(d.Rows[0][1])), rows, nil
}

func textOf(v any) string {
	if b, ok := v.([]byte); ok {
		return string(b)
	}
	return fmt.Sprint(v)
}

// sameChecksum compares a recorded checksum with one computed now. A
// snapshot journaled before the digest's sum was read exactly recorded it
// as a float64 (md5sum64:1.8054488015858704e+22): it matches the exact sum
// that rounds to it.
func sameChecksum(recorded, now string) bool {
	if recorded == now {
		return true
	}
	const key = "md5sum64:"
	ri, ni := strings.LastIndex(recorded, key), strings.LastIndex(now, key)
	if ri < 0 || ni < 0 || recorded[:ri] != now[:ni] || !strings.ContainsAny(recorded[ri:], ".e") {
		return false
	}
	old, err := strconv.ParseFloat(recorded[ri+len(key):], 64)
	exact, ok := new(big.Float).SetString(now[ni+len(key):])
	if err != nil || !ok {
		return false
	}
	f, _ := exact.Float64()
	return f == old
}

// rowHash is the SQL of a row's 64-bit hash, over the columns named in
// the first value of each of columns' rows: the first 64 bits of the MD5
// of its values and of which of them are NULL.
func rowHash(columns [][]any) string {
	cols := make([]string, len(columns))
	nulls := make([]string, len(columns))
	for i, row := range columns {
		cols[i] = sqltext.QuoteIdent(fmt.Sprint(row[0]))
		nulls[i] = "ISNULL(" + cols[i] + ")"
	}
	return fmt.Sprintf("CAST(CONV(LEFT(MD5(CONCAT_WS(CHAR(31), %s, CONCAT(%s))), 16), 16, 10) AS UNSIGNED)",
		strings.Join(cols, ", "), strings.Join(nulls, ", "))
}

// tables lists a schema's base tables with their row estimate and
// AUTO_INCREMENT counter.
func tables(ctx context.Context, conn *db.Conn, schema string) ([]Table, error) {
	rs, err := conn.PoolQuery(ctx, "SELECT TABLE_NAME, AUTO_INCREMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME", schema)
	if err != nil {
		return nil, err
	}
	var out []Table
	for _, row := range rs.Rows {
		t := Table{Name: fmt.Sprint(row[0])}
		if n, ok := row[1].(int64); ok {
			t.AutoIncrement = n
		}
		out = append(out, t)
	}
	return out, nil
}

// forEach runs fn on every table, parallel at a time; the tables that
// failed are listed together (go-multierror, as for parallel work
// everywhere), in table order.
func forEach(n, parallel int, fn func(i int) error) error {
	errs := make([]error, n)
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			errs[i] = fn(i)
		}(i)
	}
	wg.Wait()
	var merr *multierror.Error
	for _, err := range errs {
		if err != nil {
			merr = multierror.Append(merr, err)
		}
	}
	return merr.ErrorOrNil()
}

// copyTable makes dst an exact copy of src: definition, rows, counter.
func copyTable(ctx context.Context, conn *db.Conn, engine, srcSchema, dstSchema string, t Table) (int64, error) {
	src := sqltext.QuoteIdent(srcSchema) + "." + sqltext.QuoteIdent(t.Name)
	dst := sqltext.QuoteIdent(dstSchema) + "." + sqltext.QuoteIdent(t.Name)
	for _, q := range []string{"DROP TABLE IF EXISTS " + dst, "CREATE TABLE " + dst + " LIKE " + src} {
		if _, err := conn.PoolExec(ctx, q); err != nil {
			return 0, err
		}
	}
	insert := "INSERT INTO " + dst + " SELECT * FROM " + src
	var res db.ExecResult
	var err error
	if engine == "tidb" {
		// TiDB refuses the values of an AUTO_RANDOM column unless the
		// session allows them (error 8216): the copy keeps the ids.
		res, err = conn.PoolExecAll(ctx, []string{"SET SESSION allow_auto_random_explicit_insert = ON", insert},
			"SET SESSION allow_auto_random_explicit_insert = DEFAULT")
	} else {
		res, err = conn.PoolExec(ctx, insert)
	}
	if err != nil {
		return 0, err
	}
	if t.AutoIncrement > 0 {
		if _, err := conn.PoolExec(ctx, fmt.Sprintf("ALTER TABLE %s AUTO_INCREMENT = %d", dst, t.AutoIncrement)); err != nil {
			return 0, err
		}
	}
	return res.RowsAffected, nil
}

// StoreName is the default snapshot schema of a schema.
func StoreName(schema string) string { return schema + "_snapshot" }

// Take copies every table of schema into store (made anew) and records
// each table's checksum; a copy whose checksum differs from its source
// is an error.
func Take(ctx context.Context, conn *db.Conn, schema, store string, o Options) (*Snapshot, error) {
	start := time.Now()
	if store == "" {
		store = StoreName(schema)
	}
	if store == schema {
		return nil, fmt.Errorf("the snapshot schema must differ from %s", schema)
	}
	engine, err := Engine(ctx, conn)
	if err != nil {
		return nil, err
	}
	list, err := tables(ctx, conn, schema)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("schema %s has no tables to snapshot", schema)
	}
	for _, q := range []string{"DROP DATABASE IF EXISTS " + sqltext.QuoteIdent(store), "CREATE DATABASE " + sqltext.QuoteIdent(store)} {
		if _, err := conn.PoolExec(ctx, q); err != nil {
			return nil, fmt.Errorf("snapshot %s: make the snapshot schema %s anew: %w", schema, store, err)
		}
	}
	err = forEach(len(list), o.parallel(), func(i int) error {
		t := &list[i]
		rows, err := copyTable(ctx, conn, engine, schema, store, *t)
		if err != nil {
			return fmt.Errorf("snapshot %s.%s: %w", schema, t.Name, err)
		}
		t.Rows = rows
		orig, err := Checksum(ctx, conn, engine, schema, t.Name)
		if err != nil {
			return err
		}
		copied, err := Checksum(ctx, conn, engine, store, t.Name)
		if err != nil {
			return err
		}
		if orig != copied {
			return fmt.Errorf("snapshot %s.%s: the copy's checksum %s differs from the table's %s (was it written during the snapshot?)", schema, t.Name, copied, orig)
		}
		t.Checksum = orig
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &Snapshot{Schema: schema, Store: store, Engine: engine, Tables: list, Created: time.Now().UTC(), Seconds: time.Since(start).Seconds()}, nil
}

// Result says what Restore did.
type Result struct {
	Schema   string   `json:"schema"` // the schema restored
	Restored []string `json:"restored"`
	Dropped  []string `json:"dropped,omitempty"` // tables made after the snapshot
	Seconds  float64  `json:"seconds"`
}

// Restore brings schema back to the snapshot's state: its tables are
// replaced by copies of the saved ones, tables made since are dropped,
// and every restored table's checksum must equal the recorded one.
func Restore(ctx context.Context, conn *db.Conn, snap *Snapshot, o Options) (*Result, error) {
	start := time.Now()
	res := &Result{Schema: snap.Schema}
	current, err := tables(ctx, conn, snap.Schema)
	if err != nil {
		return nil, err
	}
	saved := map[string]bool{}
	for _, t := range snap.Tables {
		saved[t.Name] = true
	}
	for _, t := range current {
		if !saved[t.Name] {
			if _, err := conn.PoolExec(ctx, "DROP TABLE "+sqltext.QuoteIdent(snap.Schema)+"."+sqltext.QuoteIdent(t.Name)); err != nil {
				return nil, fmt.Errorf("restore %s: drop %s.%s, made after the snapshot: %w", snap.Schema, snap.Schema, t.Name, err)
			}
			res.Dropped = append(res.Dropped, t.Name)
		}
	}
	err = forEach(len(snap.Tables), o.parallel(), func(i int) error {
		t := snap.Tables[i]
		if _, err := copyTable(ctx, conn, snap.Engine, snap.Store, snap.Schema, t); err != nil {
			return fmt.Errorf("restore %s.%s: %w", snap.Schema, t.Name, err)
		}
		got, err := Checksum(ctx, conn, snap.Engine, snap.Schema, t.Name)
		if err != nil {
			return err
		}
		if !sameChecksum(t.Checksum, got) {
			return fmt.Errorf("restore %s.%s: checksum %s after restore, the snapshot recorded %s", snap.Schema, t.Name, got, t.Checksum)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, t := range snap.Tables {
		res.Restored = append(res.Restored, t.Name)
	}
	sort.Strings(res.Dropped)
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}
