package tiupstub_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/builtins/db/snapshot"
	"github.com/starbench/starbench/internal/sandbox"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
	"github.com/starbench/starbench/internal/testutil/tiupstub"
)

// frontDB connects through the front to database name on its server.
func frontDB(t *testing.T, m *sandbox.MariaDB, f *tiupstub.Front, name string) (*sql.DB, *mysql.Config) {
	t.Helper()
	cfg := m.Config()
	cfg.Addr, cfg.DBName = f.Addr, name
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	d := sql.OpenDB(conn)
	d.SetMaxOpenConns(1)
	t.Cleanup(func() { d.Close() })
	return d, cfg
}

// The TiDB-only statements a seed plan sends, through a front to a real
// MariaDB: SET of TiDB's variables recorded and answered OK, SHOW CONFIG
// from the stand-in cluster's topology with TiDB's filters, ADMIN
// CHECKSUM TABLE that follows the data, VERSION() in TiDB's form.
func TestFrontAnswersTiDBStatements(t *testing.T) {
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{Database: "fr"})
	s := tiupstub.New(t)
	f := tiupstub.StartFront(t, m.Config(), s.ClusterStores("sb"))
	f.Config, f.Version = s.ClusterConfig("sb"), "5.7.25-TiDB-v5.2.0"
	d, _ := frontDB(t, m, f, "fr")
	exec := func(q string) error {
		_, err := d.Exec(q)
		return err
	}

	// SET of TiDB's variables, in every form; others still reach the server.
	for _, q := range []string{"SET GLOBAL tidb_enable_async_commit = 1", "set @@global.tidb_txn_mode = 'pessimistic', @@tidb_x = 2",
		"SET SESSION tidb_hashagg_final_concurrency=1", "SET NAMES utf8mb4", "SET @a = 1"} {
		if err := exec(q); err != nil {
			t.Errorf("%s: %v", q, err)
		}
	}
	g := f.Globals()
	if g["tidb_enable_async_commit"] != "1" || g["tidb_txn_mode"] != "pessimistic" || g["tidb_x"] != "2" || g["tidb_hashagg_final_concurrency"] != "1" || len(g) != 4 {
		t.Errorf("globals %v", g)
	}
	var me *mysql.MySQLError
	if err := exec("SET GLOBAL tidb_enable_1pc = 1, max_connections = 10"); !errors.As(err, &me) || me.Number != 1105 || !strings.Contains(me.Message, "set them apart") {
		t.Errorf("a mixed SET: %v", err)
	}
	if err := exec("SET GLOBAL not_a_variable = 1"); err == nil {
		t.Error("an unknown non-TiDB variable reached no server")
	}

	// SHOW CONFIG of a cluster deployed through the stand-in.
	topoFile, key := files(t, `global:
  user: tidb
server_configs:
  tidb:
    log.level: error
  tikv:
    raftstore.apply-pool-size: 3
    readpool:
      unified:
        max-thread-count: 20
pd_servers:
  - host: 10.0.1.1
tidb_servers:
  - host: 10.0.1.2
tikv_servers:
  - host: 10.0.1.4
  - host: 10.0.1.5
    config:
      server.grpc-concurrency: 6
`)
	expect(t, s.Run(t, "", nil, "cluster", "deploy", "sb", "v5.2.0", topoFile, "-i", key, "--yes"), 0)
	rowsOf := func(q string) []string {
		t.Helper()
		rows, err := d.Query(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var a, b, c, e string
			if err := rows.Scan(&a, &b, &c, &e); err != nil {
				t.Fatal(err)
			}
			out = append(out, strings.Join([]string{a, b, c, e}, " "))
		}
		return out
	}
	want := "tidb 10.0.1.2:4000 log.level error|tikv 10.0.1.4:20160 raftstore.apply-pool-size 3|tikv 10.0.1.4:20160 readpool.unified.max-thread-count 20|" +
		"tikv 10.0.1.5:20160 raftstore.apply-pool-size 3|tikv 10.0.1.5:20160 readpool.unified.max-thread-count 20|tikv 10.0.1.5:20160 server.grpc-concurrency 6"
	if got := strings.Join(rowsOf("SHOW CONFIG"), "|"); got != want {
		t.Errorf("SHOW CONFIG:\n%s\nwant\n%s", got, want)
	}
	if got := rowsOf("show config like 'tidb'"); len(got) != 1 || !strings.HasPrefix(got[0], "tidb ") {
		t.Errorf("LIKE 'tidb': %v", got)
	}
	if got := rowsOf("SHOW CONFIG WHERE type = 'tikv' AND name LIKE 'server.%'"); len(got) != 1 || got[0] != "tikv 10.0.1.5:20160 server.grpc-concurrency 6" {
		t.Errorf("WHERE: %v", got)
	}

	// ADMIN CHECKSUM TABLE follows the data: the same for the same rows,
	// changed by an UPDATE of one row and by an INSERT; TiDB's KV count.
	for _, q := range []string{"CREATE TABLE t1 (id INT PRIMARY KEY, k INT, c VARCHAR(20), KEY k_1 (k))", "INSERT INTO t1 VALUES (1, 10, 'a'), (2, 20, 'b')"} {
		if err := exec(q); err != nil {
			t.Fatal(err)
		}
	}
	checksum := func(q string) string {
		t.Helper()
		var dbName, table, sum string
		var kvs, bytes int64
		if err := d.QueryRow(q).Scan(&dbName, &table, &sum, &kvs, &bytes); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if dbName != "fr" || table != "t1" {
			t.Errorf("%s: %s.%s", q, dbName, table)
		}
		return strings.Join([]string{sum, itoa(kvs), itoa(bytes)}, "/")
	}
	first := checksum("ADMIN CHECKSUM TABLE t1")
	if again := checksum("admin checksum table `fr`.`t1`"); again != first || !strings.HasSuffix(first, "/4/"+strings.Split(first, "/")[2]) {
		t.Errorf("checksum %s, again %s (want 4 KVs: 2 rows, 2 index entries)", first, again)
	}
	exec("UPDATE t1 SET c = 'x' WHERE id = 2")
	updated := checksum("ADMIN CHECKSUM TABLE t1")
	exec("INSERT INTO t1 VALUES (3, 30, 'c')")
	inserted := checksum("ADMIN CHECKSUM TABLE t1")
	if updated == first || inserted == updated || !strings.Contains(inserted, "/6/") {
		t.Errorf("checksums %s, after an update %s, after an insert %s", first, updated, inserted)
	}
	if _, err := d.Query("ADMIN CHECKSUM TABLE nope"); err == nil || !strings.Contains(err.Error(), "Table 'fr.nope' doesn't exist") {
		t.Errorf("a missing table: %v", err)
	}

	var v string
	if err := d.QueryRow("SELECT VERSION()").Scan(&v); err != nil || v != "5.7.25-TiDB-v5.2.0" {
		t.Errorf("VERSION() %q %v", v, err)
	}
	// tidb_version() named as a client names it (stdlib/tidb.star reads
	// "SELECT tidb_version() AS v"): v5's layout, no Store line.
	rows, err := d.Query("SELECT tidb_version() AS v")
	if err != nil {
		t.Fatalf("tidb_version() AS v: %v", err)
	}
	cols, _ := rows.Columns()
	for rows.Next() {
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
	}
	rows.Close()
	if len(cols) != 1 || cols[0] != "v" || !strings.HasPrefix(v, "Release Version: v5.2.0\n") || strings.Contains(v, "Store:") {
		t.Errorf("tidb_version() AS v: columns %v, %q", cols, v)
	}
}

// conn.snapshot and conn.restore through a front taken for TiDB (its
// VERSION()): ADMIN CHECKSUM TABLE and the rows' digest agree after a
// restore, so a snapshot verified on the stand-in restores on the real
// server behind it.
func TestSnapshotThroughAFront(t *testing.T) {
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{Database: "sbtest"})
	f := tiupstub.StartFront(t, m.Config(), nil)
	f.Version = "5.7.25-TiDB-v5.2.0"
	_, cfg := frontDB(t, m, f, "sbtest")
	ctx := context.Background()
	conn, err := db.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range []string{"CREATE TABLE t1 (id INT PRIMARY KEY, k INT, c VARCHAR(20), KEY k_1 (k))", "INSERT INTO t1 VALUES (1, 10, 'a'), (2, 20, 'b'), (3, 30, NULL)"} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if engine, err := snapshot.Engine(ctx, conn); err != nil || engine != "tidb" {
		t.Fatalf("engine %q %v", engine, err)
	}
	snap, err := snapshot.Take(ctx, conn, "sbtest", "", snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "UPDATE t1 SET k = 11 WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	if _, err := snapshot.Restore(ctx, conn, snap, snapshot.Options{}); err != nil {
		t.Fatalf("restore: %v", err)
	}
	var k int
	if err := sql.OpenDB(mustConnector(t, m.Config(), "sbtest")).QueryRow("SELECT k FROM t1 WHERE id = 1").Scan(&k); err != nil || k != 10 {
		t.Errorf("after restore, on the server: k %d %v", k, err)
	}
}

func mustConnector(t *testing.T, cfg *mysql.Config, db string) driver.Connector {
	t.Helper()
	cfg = cfg.Clone()
	cfg.DBName = db
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
