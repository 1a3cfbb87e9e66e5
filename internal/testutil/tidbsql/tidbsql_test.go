package tidbsql

import (
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/starbench/starbench/internal/testutil/sandboxtest"
)

// connect opens one connection (so USE and the current database hold) to
// the stand-in's database db.
func connect(t *testing.T, s *Server, db string) *sql.DB {
	t.Helper()
	conn, err := sql.Open("mysql", s.DSN(db))
	if err != nil {
		t.Fatal(err)
	}
	conn.SetMaxOpenConns(1)
	t.Cleanup(func() { conn.Close() })
	return conn
}

type result struct {
	cols  []string
	types []string
	rows  [][]string // NULL as "NULL"
}

func query(t *testing.T, db *sql.DB, q string, args ...any) result {
	t.Helper()
	rows, err := db.Query(q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var res result
	res.cols, _ = rows.Columns()
	cts, _ := rows.ColumnTypes()
	for _, ct := range cts {
		res.types = append(res.types, ct.DatabaseTypeName())
	}
	for rows.Next() {
		vals := make([]sql.RawBytes, len(res.cols))
		ptrs := make([]any, len(vals))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		row := make([]string, len(vals))
		for i, v := range vals {
			if v == nil {
				row[i] = "NULL"
			} else {
				row[i] = string(v)
			}
		}
		res.rows = append(res.rows, row)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return res
}

func exec(t *testing.T, db *sql.DB, stmts ...string) {
	t.Helper()
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// mustFail runs q and returns its MySQL error, failing the test when there
// is none or it is not code.
func mustFail(t *testing.T, db *sql.DB, code uint16, q string) *mysql.MySQLError {
	t.Helper()
	rows, err := db.Query(q)
	if err == nil {
		rows.Close()
		t.Fatalf("%s: succeeded, want error %d", q, code)
	}
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != code {
		t.Fatalf("%s: error %v, want MySQL error %d", q, err, code)
	}
	return me
}

func colValues(t *testing.T, r result, name string) []string {
	t.Helper()
	for i, c := range r.cols {
		if c == name {
			var out []string
			for _, row := range r.rows {
				out = append(out, row[i])
			}
			return out
		}
	}
	t.Fatalf("no column %s in %v", name, r.cols)
	return nil
}

func wantCols(t *testing.T, what string, r result, want ...string) {
	t.Helper()
	if !reflect.DeepEqual(r.cols, want) {
		t.Fatalf("%s columns:\n got  %q\n want %q", what, r.cols, want)
	}
}

func TestVersionAnswersAsTiDB(t *testing.T) {
	s := Start(t, Options{})
	db := connect(t, s, "test")
	r := query(t, db, "SELECT VERSION()")
	if r.rows[0][0] != "5.7.25-TiDB-v5.2.0" {
		t.Errorf("VERSION() = %q", r.rows[0][0])
	}
	r = query(t, db, "select TIDB_VERSION()")
	v := r.rows[0][0]
	if !strings.HasPrefix(v, "Release Version: v5.2.0\nEdition: Community\nGit Commit Hash: ") ||
		!strings.Contains(v, "\nTiKV Min Version: ") || !strings.HasSuffix(v, "\nCheck Table Before Drop: false") {
		t.Errorf("tidb_version() = %q", v)
	}
}

func TestOrdinarySQLIsServedByTheEngine(t *testing.T) {
	s := Start(t, Options{})
	db := connect(t, s, "")
	r := query(t, db, "SHOW DATABASES")
	dbs := strings.Join(colValues(t, r, "Database"), ",")
	if !strings.Contains(dbs, "test") || strings.Contains(dbs, "sbtest") {
		t.Errorf("a fresh cluster has test and no sbtest: %s", dbs)
	}
	exec(t, db,
		"CREATE DATABASE sbtest", "USE sbtest",
		"CREATE TABLE sbtest1 (id INT PRIMARY KEY, k INT NOT NULL, c CHAR(20), KEY k_1 (k))",
		"INSERT INTO sbtest1 VALUES (1, 10, 'one'), (2, 20, 'two')",
		"UPDATE sbtest1 SET k = 21 WHERE id = 2",
		"SET @x = 7",
	)
	r = query(t, db, "SELECT id, k, c, @x FROM sbtest1 ORDER BY id")
	if want := [][]string{{"1", "10", "one", "7"}, {"2", "21", "two", "7"}}; !reflect.DeepEqual(r.rows, want) {
		t.Errorf("rows %v, want %v", r.rows, want)
	}
	if got := colValues(t, query(t, db, "SHOW TABLES"), "Tables_in_sbtest"); !reflect.DeepEqual(got, []string{"sbtest1"}) {
		t.Errorf("SHOW TABLES = %v", got)
	}

	bad, err := sql.Open("mysql", s.DSN("nosuch"))
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	var me *mysql.MySQLError
	if err := bad.Ping(); !errors.As(err, &me) || me.Number != 1049 || me.Message != "Unknown database 'nosuch'" {
		t.Errorf("connecting to a missing database: %v, want 1049 Unknown database 'nosuch'", err)
	}
}

func checksums(t *testing.T, db *sql.DB, q string) map[string]string {
	t.Helper()
	r := query(t, db, q)
	out := map[string]string{}
	for _, row := range r.rows {
		out[row[0]+"."+row[1]] = strings.Join(row[2:], "/")
	}
	return out
}

func TestAdminChecksumTable(t *testing.T) {
	s := Start(t, Options{})
	db := connect(t, s, "test")
	exec(t, db,
		"CREATE TABLE t1 (id INT PRIMARY KEY, k INT, c VARCHAR(20), KEY k_1 (k))",
		"INSERT INTO t1 VALUES (1, 10, 'a'), (2, 20, 'b'), (3, 30, NULL)",
		"CREATE TABLE t2 (name VARCHAR(10), v INT)",
	)
	r := query(t, db, "ADMIN CHECKSUM TABLE t1, test.t2")
	wantCols(t, "ADMIN CHECKSUM TABLE", r, "Db_name", "Table_name", "Checksum_crc64_xor", "Total_kvs", "Total_bytes")
	if want := []string{"VARCHAR", "VARCHAR", "UNSIGNED BIGINT", "UNSIGNED BIGINT", "UNSIGNED BIGINT"}; !reflect.DeepEqual(r.types, want) {
		t.Errorf("types %v, want %v", r.types, want)
	}
	if len(r.rows) != 2 || r.rows[0][1] != "t1" || r.rows[1][1] != "t2" || r.rows[0][0] != "test" {
		t.Fatalf("rows %v", r.rows)
	}
	// Three rows, each a record and an entry in k_1; the empty table has none.
	if r.rows[0][3] != "6" || r.rows[1][2] != "0" || r.rows[1][3] != "0" || r.rows[1][4] != "0" {
		t.Errorf("rows %v: want 6 KVs for t1, 0/0/0 for the empty t2", r.rows)
	}

	before := checksums(t, db, "ADMIN CHECKSUM TABLE t1")
	if again := checksums(t, db, "admin /* twice */ checksum  table `test`.`t1`"); !reflect.DeepEqual(again, before) {
		t.Errorf("unchanged table: %v, then %v", before, again)
	}
	exec(t, db, "UPDATE t1 SET c = 'z' WHERE id = 2")
	changed := checksums(t, db, "ADMIN CHECKSUM TABLE t1")
	if changed["test.t1"] == before["test.t1"] {
		t.Errorf("a changed row left the checksum at %s", before["test.t1"])
	}
	exec(t, db, "UPDATE t1 SET c = 'b' WHERE id = 2")
	if back := checksums(t, db, "ADMIN CHECKSUM TABLE t1"); !reflect.DeepEqual(back, before) {
		t.Errorf("the row changed back: %v, want %v", back, before)
	}
	exec(t, db, "INSERT INTO t2 VALUES ('x', 1)")
	if got := checksums(t, db, "ADMIN CHECKSUM TABLE t2")["test.t2"]; strings.HasSuffix(got, "/0/0") || !strings.Contains(got, "/1/") {
		t.Errorf("t2 with one row (no index): %s, want 1 KV", got)
	}

	mustFail(t, db, 1146, "ADMIN CHECKSUM TABLE nosuch")
	none := connect(t, s, "")
	mustFail(t, none, 1046, "ADMIN CHECKSUM TABLE t1")
	if got := checksums(t, none, "ADMIN CHECKSUM TABLE test.t1"); !reflect.DeepEqual(got, before) {
		t.Errorf("from another session: %v, want %v", got, before)
	}
}

func tableID(t *testing.T, db *sql.DB, table string) string {
	t.Helper()
	r := query(t, db, "SELECT DISTINCT TABLE_ID FROM information_schema.TIKV_REGION_STATUS WHERE DB_NAME = 'test' AND TABLE_NAME = ?", table)
	if len(r.rows) != 1 {
		t.Fatalf("table %s has IDs %v", table, r.rows)
	}
	return r.rows[0][0]
}

// SPLIT TABLE makes the Regions the model's PD tables list: the record
// prefix (the table has an index) and each inner key, none for keys that
// are boundaries already, each Region on the three stores; its answers and
// its refusals are a real TiDB's (TestSplitAnswersAsARealTiDB).
func TestSplitTable(t *testing.T) {
	s := Start(t, Options{})
	db := connect(t, s, "test")
	exec(t, db, "CREATE TABLE t1 (id INT PRIMARY KEY, k INT, KEY k_1 (k))")
	id := tableID(t, db, "t1")
	regions := func() int {
		t.Helper()
		n, _ := strconv.Atoi(query(t, db, "SELECT COUNT(DISTINCT REGION_ID) FROM information_schema.TIKV_REGION_STATUS WHERE TABLE_ID = "+id).rows[0][0])
		return n
	}
	if n := regions(); n != 1 {
		t.Fatalf("a new table has %d Regions, want 1", n)
	}
	peers := query(t, db, "SELECT COUNT(*) FROM information_schema.TIKV_REGION_PEERS p JOIN information_schema.TIKV_REGION_STATUS s "+
		"ON p.REGION_ID = s.REGION_ID WHERE s.TABLE_ID = "+id+" AND s.IS_INDEX = 0")
	if peers.rows[0][0] != "3" {
		t.Errorf("the table's Region has %s peers, want 3", peers.rows[0][0])
	}

	r := query(t, db, "SPLIT TABLE t1 BETWEEN (0) AND (100000) REGIONS 4")
	wantCols(t, "SPLIT TABLE", r, "TOTAL_SPLIT_REGION", "SCATTER_FINISH_RATIO")
	// The record prefix (the table has an index) and 25000, 50000, 75000.
	if !reflect.DeepEqual(r.rows, [][]string{{"4", "1"}}) {
		t.Errorf("SPLIT TABLE: %v, want 4 new Regions, all scattered", r.rows)
	}
	if n := regions(); n != 5 {
		t.Errorf("%d Regions after the split, want 5", n)
	}
	r = query(t, db, "SPLIT TABLE t1 BETWEEN (0) AND (100000) REGIONS 4")
	if !reflect.DeepEqual(r.rows, [][]string{{"0", "0"}}) {
		t.Errorf("splitting at existing boundaries: %v, want 0 new Regions and ratio 0", r.rows)
	}
	r = query(t, db, "SPLIT TABLE t1 BY (10000), (20000), (50000)")
	if !reflect.DeepEqual(r.rows, [][]string{{"2", "1"}}) {
		t.Errorf("SPLIT BY: %v, want 2 new Regions", r.rows)
	}
	if n := regions(); n != 7 {
		t.Errorf("%d Regions after both splits, want 7", n)
	}
	for q, msg := range splitRefusals {
		if me := mustFail(t, db, 1105, q); me.Message != msg {
			t.Errorf("%s: %q, want %q", q, me.Message, msg)
		}
	}
	mustFail(t, db, 1146, "SPLIT TABLE nosuch BETWEEN (0) AND (100000) REGIONS 4")
}

// splitRefusals are SPLIT TABLE statements TiDB refuses with error 1105,
// and its messages.
var splitRefusals = map[string]string{
	"SPLIT TABLE t1 BETWEEN (100) AND (10) REGIONS 2":        "Split table `t1` region lower value 100 should less than the upper value 10",
	"SPLIT TABLE t1 BETWEEN (0) AND (1000) REGIONS 2":        "Split table `t1` region step value should more than 1000, step 500 is invalid",
	"SPLIT TABLE t1 BETWEEN (0) AND (100000) REGIONS 0":      "Split table region num should more than 0",
	"SPLIT TABLE t1 BETWEEN (0) AND (10000000) REGIONS 1001": "Split table region num exceeded the limit 1000",
}

// The stand-in's SPLIT TABLE answers as a real tidb-server does, statement
// for statement: the new Regions and the scatter ratio, and the same error
// codes and messages for what TiDB refuses, but for two refusals whose
// error TiDB changed after v5.2, the version the stand-in follows: v5.2's
// executor (pkg executor/split.go) raised them as plain errors (1105,
// "Split table ... region lower value ..."), v8.4 as
// ErrInvalidSplitRegionRanges (8212, "Failed to split region ranges: ...").
// Both versions' answers are pinned here.
func TestSplitAnswersAsARealTiDB(t *testing.T) {
	real := sandboxtest.SharedTiDB(t)
	stand := Start(t, Options{})
	admin, err := sql.Open("mysql", real.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	exec(t, admin, "DROP DATABASE IF EXISTS split_contract", "CREATE DATABASE split_contract")
	cfg := real.Config()
	cfg.DBName = "split_contract"
	rdb, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	sdb := connect(t, stand, "test")
	stmts := []string{"CREATE TABLE t1 (id INT PRIMARY KEY, k INT, KEY k_1 (k))",
		"SPLIT TABLE t1 BETWEEN (0) AND (100000) REGIONS 4", "SPLIT TABLE t1 BETWEEN (0) AND (100000) REGIONS 4",
		"SPLIT TABLE t1 BY (10000), (20000), (50000)", "SPLIT TABLE nosuch BETWEEN (0) AND (100000) REGIONS 4"}
	for q := range splitRefusals {
		stmts = append(stmts, q)
	}
	answer := func(db *sql.DB, q string) string {
		rows, err := db.Query(q)
		if err != nil {
			var me *mysql.MySQLError
			if errors.As(err, &me) {
				return fmt.Sprintf("error %d: %s", me.Number, strings.ReplaceAll(me.Message, "split_contract.", "test."))
			}
			t.Fatalf("%s: %v", q, err)
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		var out []string
		for rows.Next() {
			vals := make([]sql.RawBytes, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			rows.Scan(ptrs...)
			for _, v := range vals {
				out = append(out, string(v))
			}
		}
		return strings.Join(cols, ",") + ": " + strings.Join(out, ",")
	}
	changed := map[string]string{
		"SPLIT TABLE t1 BETWEEN (100) AND (10) REGIONS 2": "error 8212: Failed to split region ranges: lower value 100 should less than the upper value 10",
		"SPLIT TABLE t1 BETWEEN (0) AND (1000) REGIONS 2": "error 8212: Failed to split region ranges: the region size is too small, expected at least 1000, but got 500",
	}
	for _, q := range stmts {
		a, b := answer(rdb, q), answer(sdb, q)
		if v8, ok := changed[q]; ok {
			if a != v8 || b != "error 1105: "+splitRefusals[q] {
				t.Errorf("%s:\n  TiDB      %s (want v8.4's %s)\n  stand-in  %s (want v5.2's)", q, a, v8, b)
			}
			continue
		}
		if a != b {
			t.Errorf("%s:\n  TiDB      %s\n  stand-in  %s", q, a, b)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestRegionStatusListsRecordsAndIndexesApart(t *testing.T) {
	s := Start(t, Options{})
	db := connect(t, s, "test")
	exec(t, db, "CREATE TABLE t1 (id INT PRIMARY KEY, k INT, KEY k_1 (k))", "INSERT INTO t1 VALUES (1, 1), (2, 2)")

	r := query(t, db, "SELECT * FROM information_schema.TIKV_REGION_STATUS WHERE TABLE_NAME = 't1' ORDER BY IS_INDEX")
	wantCols(t, "TIKV_REGION_STATUS", r, "REGION_ID", "START_KEY", "END_KEY", "TABLE_ID", "DB_NAME", "TABLE_NAME", "IS_INDEX",
		"INDEX_ID", "INDEX_NAME", "EPOCH_CONF_VER", "EPOCH_VERSION", "WRITTEN_BYTES", "READ_BYTES", "APPROXIMATE_SIZE",
		"APPROXIMATE_KEYS", "REPLICATIONSTATUS_STATE", "REPLICATIONSTATUS_STATEID")
	// One Region holds both the records and k_1: TiDB lists it twice.
	if len(r.rows) != 2 || r.rows[0][0] != r.rows[1][0] {
		t.Fatalf("rows %v: want the table's one Region twice", r.rows)
	}
	rec, idx := r.rows[0], r.rows[1]
	if rec[6] != "0" || rec[7] != "NULL" || rec[8] != "NULL" || idx[6] != "1" || idx[7] != "1" || idx[8] != "k_1" {
		t.Errorf("record row %v, index row %v", rec, idx)
	}
	// Two records and two index entries in the Region.
	if rec[14] != "4" || rec[13] != "1" {
		t.Errorf("APPROXIMATE_SIZE %s, APPROXIMATE_KEYS %s: want 1 (MB) and 4", rec[13], rec[14])
	}
	if !strings.HasPrefix(rec[1], "7480000000000000FF") {
		t.Errorf("START_KEY %q: want PD's hex of the encoded table prefix", rec[1])
	}

	r = query(t, db, "SELECT * FROM information_schema.TIKV_REGION_PEERS")
	wantCols(t, "TIKV_REGION_PEERS", r, "REGION_ID", "PEER_ID", "STORE_ID", "IS_LEARNER", "IS_LEADER", "STATUS", "DOWN_SECONDS")

	// tidb.region_distribution's query, with its arguments (a prepared
	// statement): without DISTINCT it counts the Region twice per store.
	dist := "SELECT p.STORE_ID AS store, COUNT(%s) AS regions, SUM(p.IS_LEADER) AS leaders " +
		"FROM information_schema.TIKV_REGION_STATUS s JOIN information_schema.TIKV_REGION_PEERS p ON s.REGION_ID = p.REGION_ID " +
		"WHERE s.DB_NAME = ? AND s.TABLE_NAME = ? GROUP BY p.STORE_ID ORDER BY p.STORE_ID"
	r = query(t, db, fmt.Sprintf(dist, "*"), "test", "t1")
	if got := colValues(t, r, "regions"); !reflect.DeepEqual(got, []string{"2", "2", "2"}) {
		t.Errorf("COUNT(*) per store %v, want 2 on each of the 3 stores", got)
	}
	r = query(t, db, fmt.Sprintf(dist, "DISTINCT s.REGION_ID"), "test", "t1")
	if got := colValues(t, r, "regions"); !reflect.DeepEqual(got, []string{"1", "1", "1"}) {
		t.Errorf("COUNT(DISTINCT) per store %v, want 1", got)
	}

	exec(t, db, "SPLIT TABLE t1 BETWEEN (0) AND (40000) REGIONS 4")
	r = query(t, db, "SELECT IS_INDEX, COUNT(*) FROM information_schema.TIKV_REGION_STATUS WHERE TABLE_NAME = 't1' GROUP BY IS_INDEX ORDER BY IS_INDEX")
	if !reflect.DeepEqual(r.rows, [][]string{{"0", "4"}, {"1", "1"}}) {
		t.Errorf("after the split: %v, want 4 record Regions and 1 index Region", r.rows)
	}
}

func TestTableIDsFollowDDL(t *testing.T) {
	s := Start(t, Options{})
	db := connect(t, s, "test")
	exec(t, db, "CREATE TABLE a (id INT PRIMARY KEY)", "CREATE TABLE b (id INT PRIMARY KEY)")
	a, b := tableID(t, db, "a"), tableID(t, db, "b")
	if ai, _ := strconv.Atoi(a); strconv.Itoa(ai+1) != b {
		t.Errorf("table IDs %s then %s: want consecutive, in creation order", a, b)
	}
	exec(t, db, "TRUNCATE TABLE a")
	if got := tableID(t, db, "a"); got == a {
		t.Errorf("TRUNCATE kept table ID %s; TiDB gives a new one", a)
	}
	exec(t, db, "RENAME TABLE b TO c")
	if got := tableID(t, db, "c"); got != b {
		t.Errorf("RENAME changed the table ID from %s to %s", b, got)
	}
}

// TiDB keeps a table's ID through a rename, by RENAME TABLE (one table or
// several, within a database or across) or by ALTER TABLE ... RENAME [TO |
// AS]: both are the DDL job ActionRenameTable, whose worker (pingcap/tidb
// pkg/ddl, onRenameTable and checkAndRenameTables) drops the table's info
// from the old schema and creates the same info, ID included, under the
// new name; TiDB's own pkg/ddl/db_rename_test.go (renameTableTest,
// TestRenameMultiTables) checks the ID for both statements. So the IDs the
// stand-in shows in TIKV_REGION_STATUS.TABLE_ID stay, and no Region is
// split off for a "new" table.
func TestRenameKeepsTableID(t *testing.T) {
	s := Start(t, Options{})
	db := connect(t, s, "test")
	exec(t, db, "CREATE DATABASE other",
		"CREATE TABLE a (id INT PRIMARY KEY, k INT, KEY k (k))", "CREATE TABLE b (id INT PRIMARY KEY)", "CREATE TABLE x (id INT PRIMARY KEY)")
	a, b, x := tableID(t, db, "a"), tableID(t, db, "b"), tableID(t, db, "x")
	regions := func() string {
		t.Helper()
		return query(t, db, "SELECT COUNT(DISTINCT REGION_ID) FROM information_schema.TIKV_REGION_STATUS").rows[0][0]
	}
	before := regions()
	for _, c := range []struct{ stmt, table, want string }{
		{"ALTER TABLE a RENAME TO a2", "a2", a},
		{"alter table test.a2 rename as `a3`", "a3", a},
		{"ALTER TABLE a3 RENAME a4", "a4", a},
		{"ALTER TABLE a4 RENAME INDEX k TO k2", "a4", a}, // an index, not the table
		{"ALTER TABLE a4 ADD COLUMN v INT, RENAME TO a5", "a5", a},
		{"RENAME TABLE b TO c", "c", b},
		{"RENAME TABLE test.c TO tmp, x TO c, tmp TO x", "x", b}, // a swap
		{"SELECT 1", "c", x},
	} {
		exec(t, db, c.stmt)
		if got := tableID(t, db, c.table); got != c.want {
			t.Errorf("after %s: %s has table ID %s, want %s (the ID it had)", c.stmt, c.table, got, c.want)
		}
	}
	// The engine behind the stand-in cannot move a table to another
	// database: the stand-in refuses rather than lose track of it.
	mustFail(t, db, 1235, "RENAME TABLE x TO other.x")
	mustFail(t, db, 1235, "ALTER TABLE x RENAME TO other.x")
	if got := tableID(t, db, "x"); got != b {
		t.Errorf("after the refused renames x has table ID %s, want %s", got, b)
	}
	if after := regions(); after != before {
		t.Errorf("%s Regions after the renames, %s before: a rename splits no Region", after, before)
	}
}

func TestStoreStates(t *testing.T) {
	s := Start(t, Options{})
	db := connect(t, s, "test")
	exec(t, db, "CREATE TABLE t1 (id INT PRIMARY KEY)", "SPLIT TABLE t1 BETWEEN (0) AND (90000) REGIONS 9")

	r := query(t, db, "SELECT * FROM information_schema.TIKV_STORE_STATUS ORDER BY STORE_ID")
	wantCols(t, "TIKV_STORE_STATUS", r, "STORE_ID", "ADDRESS", "STORE_STATE", "STORE_STATE_NAME", "LABEL", "VERSION",
		"CAPACITY", "AVAILABLE", "LEADER_COUNT", "LEADER_WEIGHT", "LEADER_SCORE", "LEADER_SIZE", "REGION_COUNT",
		"REGION_WEIGHT", "REGION_SCORE", "REGION_SIZE", "START_TS", "LAST_HEARTBEAT_TS", "UPTIME")
	if got := colValues(t, r, "STORE_STATE_NAME"); !reflect.DeepEqual(got, []string{"Up", "Up", "Up"}) {
		t.Fatalf("a new cluster's stores: %v", got)
	}
	if got := colValues(t, r, "ADDRESS"); got[0] != "127.0.0.1:20160" {
		t.Errorf("ADDRESS %v", got)
	}
	for _, n := range colValues(t, r, "LEADER_COUNT") {
		if n == "0" {
			t.Errorf("LEADER_COUNT %v: leaders are spread over the stores", colValues(t, r, "LEADER_COUNT"))
		}
	}

	if err := s.SetStoreState(2, "Down"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetStoreState(3, "offline"); err != nil {
		t.Fatal(err)
	}
	r = query(t, db, "SELECT STORE_ID, STORE_STATE, STORE_STATE_NAME, LEADER_COUNT, LAST_HEARTBEAT_TS FROM information_schema.TIKV_STORE_STATUS ORDER BY STORE_ID")
	got := [][]string{}
	for _, row := range r.rows {
		got = append(got, row[:3])
	}
	if want := [][]string{{"1", "0", "Up"}, {"2", "0", "Down"}, {"3", "1", "Offline"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("states %v, want %v (Down is an Up store PD has not heard from)", got, want)
	}
	if r.rows[1][3] != "0" {
		t.Errorf("the Down store still leads %s Regions", r.rows[1][3])
	}
	upBeat, err1 := time.Parse(time.DateTime, r.rows[0][4])
	downBeat, err2 := time.Parse(time.DateTime, r.rows[1][4])
	if err1 != nil || err2 != nil || upBeat.Sub(downBeat) < 29*time.Minute {
		t.Errorf("last heartbeats: Up store %s, Down store %s: want the Down one older by PD's 30m max-store-down-time", r.rows[0][4], r.rows[1][4])
	}
	r = query(t, db, "SELECT STATUS, COUNT(*), MIN(DOWN_SECONDS) FROM information_schema.TIKV_REGION_PEERS WHERE STORE_ID = 2 GROUP BY STATUS")
	if len(r.rows) != 1 || r.rows[0][0] != "DOWN" {
		t.Errorf("peers on the Down store: %v, want all DOWN", r.rows)
	} else if n, _ := strconv.Atoi(r.rows[0][2]); n < 1800 {
		t.Errorf("DOWN_SECONDS %s, want at least 1800", r.rows[0][2])
	}

	if err := s.SetStoreState(1, "Tombstone"); err != nil {
		t.Fatal(err)
	}
	r = query(t, db, "SELECT STORE_ID FROM information_schema.TIKV_STORE_STATUS ORDER BY STORE_ID")
	if got := colValues(t, r, "STORE_ID"); !reflect.DeepEqual(got, []string{"2", "3"}) {
		t.Errorf("stores listed %v: PD leaves the Tombstone store out", got)
	}
	if r := query(t, db, "SELECT COUNT(*) FROM information_schema.TIKV_REGION_PEERS WHERE STORE_ID = 1"); r.rows[0][0] != "0" {
		t.Errorf("the Tombstone store keeps %s peers", r.rows[0][0])
	}
	for _, bad := range []struct {
		id    uint64
		state string
	}{{1, "Up"}, {9, "Up"}, {2, "Sleepy"}} {
		if err := s.SetStoreState(bad.id, bad.state); err == nil {
			t.Errorf("SetStoreState(%d, %q) succeeded", bad.id, bad.state)
		}
	}
}

func TestShowConfig(t *testing.T) {
	s := Start(t, Options{TiKV: 2, Config: map[string]map[string]string{"tikv": {"storage.reserve-space": "0MB"}}})
	db := connect(t, s, "test")

	r := query(t, db, "SHOW CONFIG WHERE type = 'tikv' AND name LIKE 'raftstore.%'")
	wantCols(t, "SHOW CONFIG", r, "Type", "Instance", "Name", "Value")
	want := [][]string{
		{"tikv", "127.0.0.1:20160", "raftstore.apply-pool-size", "2"},
		{"tikv", "127.0.0.1:20160", "raftstore.store-pool-size", "2"},
		{"tikv", "127.0.0.1:20161", "raftstore.apply-pool-size", "2"},
		{"tikv", "127.0.0.1:20161", "raftstore.store-pool-size", "2"},
	}
	if !reflect.DeepEqual(r.rows, want) {
		t.Errorf("rows %v, want %v", r.rows, want)
	}
	if err := s.SetConfig("tikv", "raftstore.apply-pool-size", "3"); err != nil {
		t.Fatal(err)
	}
	r = query(t, db, "SHOW CONFIG WHERE type='tikv' AND name='raftstore.apply-pool-size'")
	if got := colValues(t, r, "Value"); !reflect.DeepEqual(got, []string{"3", "3"}) {
		t.Errorf("after SetConfig: %v", got)
	}
	r = query(t, db, "SHOW CONFIG WHERE name = 'storage.reserve-space'")
	if got := colValues(t, r, "Value"); !reflect.DeepEqual(got, []string{"0MB", "0MB"}) {
		t.Errorf("Options.Config: %v", got)
	}
	r = query(t, db, "SHOW CONFIG LIKE 'tidb'")
	if got := colValues(t, r, "Instance"); len(got) == 0 || got[0] != s.Addr() || contains(colValues(t, r, "Type"), "tikv") {
		t.Errorf("SHOW CONFIG LIKE 'tidb' (LIKE matches Type): %v", r.rows)
	}
	if err := s.SetStoreState(2, "Down"); err != nil {
		t.Fatal(err)
	}
	r = query(t, db, "SHOW CONFIG WHERE type = 'tikv' AND name = 'raftstore.apply-pool-size'")
	if got := colValues(t, r, "Instance"); !reflect.DeepEqual(got, []string{"127.0.0.1:20160"}) {
		t.Errorf("a Down TiKV answers no config: %v", got)
	}
	if r := query(t, db, "SELECT COUNT(*) FROM information_schema.CLUSTER_CONFIG WHERE TYPE = 'pd'"); r.rows[0][0] == "0" {
		t.Errorf("CLUSTER_CONFIG has no pd rows")
	}
}

func sumColumn(t *testing.T, r result, name string) uint64 {
	var sum uint64
	for _, v := range colValues(t, r, name) {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		sum += n
	}
	return sum
}

func TestBackupThenRestoreBringsRowsBack(t *testing.T) {
	s := Start(t, Options{})
	db := connect(t, s, "")
	exec(t, db, "CREATE DATABASE sbtest", "USE sbtest",
		"CREATE TABLE sbtest1 (id INT PRIMARY KEY, k INT NOT NULL, c CHAR(20), pad BLOB, KEY k_1 (k))",
		"INSERT INTO sbtest1 VALUES (1, 10, 'it''s', X'00FF'), (2, 20, 'back\\\\slash', NULL), (3, 30, NULL, '')",
		"CREATE TABLE log (at DATETIME, note TEXT)",
		"INSERT INTO log VALUES ('2021-08-27 10:00:00', 'first'), ('2021-08-27 10:00:01', NULL)",
	)
	rowsBefore := query(t, db, "SELECT id, k, c, HEX(pad) FROM sbtest1 ORDER BY id").rows
	logBefore := query(t, db, "SELECT at, note FROM log ORDER BY at").rows
	sumsBefore := query(t, db, "ADMIN CHECKSUM TABLE sbtest1, log")

	started := time.Now()
	r := query(t, db, "BACKUP DATABASE `sbtest` TO 's3://bucket/snap'")
	wantCols(t, "BACKUP", r, "Destination", "Size", "BackupTS", "Queue Time", "Execution Time")
	if want := []string{"VARCHAR", "UNSIGNED BIGINT", "UNSIGNED BIGINT", "DATETIME", "DATETIME"}; !reflect.DeepEqual(r.types, want) {
		t.Errorf("BACKUP types %v, want %v", r.types, want)
	}
	row := r.rows[0]
	if row[0] != "s3://bucket/snap" || row[1] != strconv.FormatUint(sumColumn(t, sumsBefore, "Total_bytes"), 10) {
		t.Errorf("BACKUP row %v: want the destination and the tables' bytes (%d)", row, sumColumn(t, sumsBefore, "Total_bytes"))
	}
	ts, _ := strconv.ParseUint(row[2], 10, 64)
	if physical := time.UnixMilli(int64(ts >> 18)); physical.Before(started.Add(-time.Second)) || physical.After(time.Now()) {
		t.Errorf("BackupTS %s is not a TSO of the backup's time (%v)", row[2], physical)
	}
	mustFail(t, db, 8124, "BACKUP DATABASE sbtest TO 's3://bucket/snap'")

	// Into a table that holds rows (none the backup's keys), RESTORE fails
	// as BR's checksum does.
	exec(t, db, "DELETE FROM sbtest1", "INSERT INTO sbtest1 VALUES (99, 0, 'new', NULL)")
	if me := mustFail(t, db, 8125, "RESTORE DATABASE sbtest FROM 's3://bucket/snap'"); !strings.HasPrefix(me.Message, "Restore failed: ") ||
		!strings.Contains(me.Message, "restore checksum mismatch") {
		t.Errorf("message %q", me.Message)
	}
	if n := len(query(t, db, "SELECT * FROM sbtest1").rows); n != 1 {
		t.Errorf("the failed RESTORE changed the table: %d rows", n)
	}

	exec(t, db, "DROP DATABASE sbtest")
	r = query(t, db, "RESTORE DATABASE sbtest FROM 's3://bucket/snap'")
	wantCols(t, "RESTORE", r, "Destination", "Size", "BackupTS", "Queue Time", "Execution Time")
	if r.rows[0][0] != "s3://bucket/snap" || r.rows[0][1] != row[1] || r.rows[0][2] != "0" {
		t.Errorf("RESTORE row %v: want the destination, the backup's size and BackupTS 0", r.rows[0])
	}
	if got := query(t, db, "SELECT id, k, c, HEX(pad) FROM sbtest.sbtest1 ORDER BY id").rows; !reflect.DeepEqual(got, rowsBefore) {
		t.Errorf("restored rows %v, want %v", got, rowsBefore)
	}
	if got := query(t, db, "SELECT at, note FROM sbtest.log ORDER BY at").rows; !reflect.DeepEqual(got, logBefore) {
		t.Errorf("restored rows %v, want %v", got, logBefore)
	}
	// The restored tables have new IDs: their KVs are the same, the CRC (for
	// these rows) not.
	sumsAfter := query(t, db, "ADMIN CHECKSUM TABLE sbtest.sbtest1, sbtest.log")
	for i := range sumsBefore.rows {
		b, a := sumsBefore.rows[i], sumsAfter.rows[i]
		if a[3] != b[3] || a[4] != b[4] || a[2] == b[2] {
			t.Errorf("checksums before %v, after %v: want the same KVs and bytes under a new table ID", b, a)
		}
	}

	mustFail(t, db, 8125, "RESTORE DATABASE sbtest FROM 's3://bucket/elsewhere'")
	r = query(t, db, "RESTORE DATABASE nosuch FROM 's3://bucket/snap'")
	if r.rows[0][1] != "0" {
		t.Errorf("restoring a database the backup lacks: %v, want nothing done", r.rows[0])
	}
	if got := s.Backups(); !reflect.DeepEqual(got, []string{"s3://bucket/snap"}) {
		t.Errorf("Backups() = %v", got)
	}
}

func TestLocalBackupNeedsSharedStorageOnSeveralTiKVs(t *testing.T) {
	for _, c := range []struct {
		opts Options
		ok   bool
	}{
		{Options{TiKV: 3}, false},
		{Options{TiKV: 3, SharedLocalStorage: true}, true},
		{Options{TiKV: 1}, true},
	} {
		s := Start(t, c.opts)
		db := connect(t, s, "test")
		exec(t, db, "CREATE TABLE t (id INT PRIMARY KEY)", "INSERT INTO t VALUES (1)",
			"BACKUP DATABASE test TO 'local:///data/backup'", "DROP TABLE t")
		_, err := db.Exec("RESTORE DATABASE test FROM 'local:///data/backup'")
		var me *mysql.MySQLError
		switch {
		case c.ok && err != nil:
			t.Errorf("%+v: RESTORE: %v", c.opts, err)
		case !c.ok && (!errors.As(err, &me) || me.Number != 8125):
			t.Errorf("%+v: RESTORE from local:// on separate disks: %v, want error 8125", c.opts, err)
		}
	}
}

func TestSetTiDBVariables(t *testing.T) {
	s := Start(t, Options{})
	db := connect(t, s, "test")
	exec(t, db, "SET GLOBAL tidb_enable_1pc = 1", "set @@global.tidb_txn_mode = 'pessimistic'", "SET tidb_mem_quota_query = -1",
		"SET @user_var = 5")
	for name, want := range map[string]string{"tidb_enable_1pc": "1", "TIDB_TXN_MODE": "pessimistic"} {
		if got, ok := s.GlobalVariable(name); !ok || got != want {
			t.Errorf("GlobalVariable(%s) = %q, %v; want %q", name, got, ok, want)
		}
	}
	if _, ok := s.GlobalVariable("tidb_mem_quota_query"); ok {
		t.Errorf("a session SET became global")
	}
	if r := query(t, db, "SELECT @user_var"); r.rows[0][0] != "5" {
		t.Errorf("SET @user_var went astray: %v", r.rows)
	}
}

func TestMultiStatementQuery(t *testing.T) {
	s := Start(t, Options{})
	conn, err := sql.Open("mysql", s.DSN("test")+"?multiStatements=true")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	exec(t, conn, "CREATE TABLE t (id INT PRIMARY KEY); INSERT INTO t VALUES (1)")
	rows, err := conn.Query("ADMIN CHECKSUM TABLE t; SELECT COUNT(*) FROM t")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	if len(cols) != 5 || cols[2] != "Checksum_crc64_xor" {
		t.Errorf("first result %v", cols)
	}
	for rows.Next() {
	}
	if !rows.NextResultSet() {
		t.Fatalf("no second result set: %v", rows.Err())
	}
	var n int
	if !rows.Next() || rows.Scan(&n) != nil || n != 1 {
		t.Errorf("second result: %d, %v", n, rows.Err())
	}
}

// Writes made at once on several connections all stay, as on TiDB: tables
// created, filled, copied and renamed on eight connections at once each
// keep their rows (go-mysql-server's engine, run concurrently, lost some:
// the stand-in runs statements one at a time).
func TestConcurrentWritesAreKept(t *testing.T) {
	s := Start(t, Options{Databases: []string{"cw"}})
	const tables, rows = 8, 50
	errs := make(chan error, tables)
	for i := 1; i <= tables; i++ {
		go func() {
			db, err := sql.Open("mysql", s.DSN("cw"))
			if err != nil {
				errs <- err
				return
			}
			defer db.Close()
			db.SetMaxOpenConns(1)
			var values []string
			for r := 1; r <= rows; r++ {
				values = append(values, fmt.Sprintf("(%d, 'row %d of %d')", r, r, i))
			}
			for _, q := range []string{
				fmt.Sprintf("CREATE TABLE t%d (id INT PRIMARY KEY, c VARCHAR(40))", i),
				fmt.Sprintf("INSERT INTO t%d VALUES %s", i, strings.Join(values, ", ")),
				fmt.Sprintf("CREATE TABLE t%d_copy LIKE t%d", i, i),
				fmt.Sprintf("INSERT INTO t%d_copy SELECT * FROM t%d", i, i),
				fmt.Sprintf("DROP TABLE t%d", i),
				fmt.Sprintf("RENAME TABLE t%d_copy TO t%d", i, i),
			} {
				if _, err := db.Exec(q); err != nil {
					errs <- fmt.Errorf("%s: %w", q, err)
					return
				}
			}
			errs <- nil
		}()
	}
	for i := 0; i < tables; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	db := connect(t, s, "cw")
	for i := 1; i <= tables; i++ {
		if got := query(t, db, fmt.Sprintf("SELECT COUNT(*) FROM t%d", i)).rows[0][0]; got != strconv.Itoa(rows) {
			t.Errorf("t%d holds %s rows, want %d", i, got, rows)
		}
	}
}

func TestMain(m *testing.M) { sandboxtest.Main(m) }
