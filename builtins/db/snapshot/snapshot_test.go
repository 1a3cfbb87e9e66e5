package snapshot_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/builtins/db/snapshot"
	"github.com/starbench/starbench/internal/testutil/tidbsql"
)

// onStandIn connects to a new TiDB SQL stand-in's database sbtest.
func onStandIn(t *testing.T) *db.Conn {
	t.Helper()
	srv := tidbsql.Start(t, tidbsql.Options{Databases: []string{"sbtest"}})
	cfg, err := mysql.ParseDSN(srv.DSN("sbtest"))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// On TiDB a table and its copy have different table IDs, which ADMIN
// CHECKSUM TABLE's CRC folds in: a snapshot must compare what does not
// depend on them, or every snapshot and restore on TiDB fails (here on
// the TiDB stand-in, which keeps that documented behaviour).
func TestSnapshotOnTiDB(t *testing.T) {
	ctx := context.Background()
	conn := onStandIn(t)
	for _, q := range []string{
		"CREATE TABLE sbtest.t1 (id INT PRIMARY KEY, k INT, c VARCHAR(20), KEY k_1 (k))",
		"INSERT INTO sbtest.t1 VALUES (1, 10, 'a'), (2, 20, 'b'), (3, 30, NULL)",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	engine, err := snapshot.Engine(ctx, conn)
	if err != nil || engine != "tidb" {
		t.Fatalf("engine %q, %v", engine, err)
	}
	snap, err := snapshot.Take(ctx, conn, "sbtest", "", snapshot.Options{})
	if err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	if _, err := conn.Exec(ctx, "UPDATE sbtest.t1 SET k = 11 WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	changed, err := snapshot.Checksum(ctx, conn, engine, "sbtest", "t1")
	if err != nil {
		t.Fatal(err)
	}
	if changed == snap.Tables[0].Checksum {
		t.Errorf("a changed row (same length) left the checksum %s as it was", changed)
	}
	if _, err := snapshot.Restore(ctx, conn, snap, snapshot.Options{}); err != nil {
		t.Fatalf("restore: %v", err)
	}
	rs, err := conn.Query(ctx, "SELECT k FROM sbtest.t1 WHERE id = 1")
	if err != nil || len(rs.Rows) != 1 || !strings.Contains(strings.TrimSpace(toString(rs.Rows[0][0])), "10") {
		t.Errorf("after restore: %v %v", rs, err)
	}
}

func toString(v any) string {
	switch v := v.(type) {
	case []byte:
		return string(v)
	case string:
		return v
	}
	return fmt.Sprint(v)
}

// The rows' digest on TiDB is a multiset's: equal rows do not cancel. Rows
// A, A changed into B, B (same count, same lengths, so the same KV count
// and bytes) change it, as do rows moved between tables' worth of the
// same values; an XOR of row hashes kept it.
func TestTiDBRowDigestSeesEqualRowsChange(t *testing.T) {
	ctx := context.Background()
	conn := onStandIn(t)
	exec := func(q string) {
		t.Helper()
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec("CREATE TABLE sbtest.dup (k INT, c VARCHAR(20))")
	exec("INSERT INTO sbtest.dup VALUES (1, 'aaaa'), (1, 'aaaa'), (7, NULL)")
	before, err := snapshot.Checksum(ctx, conn, "tidb", "sbtest", "dup")
	if err != nil {
		t.Fatal(err)
	}
	exec("UPDATE sbtest.dup SET k = 2, c = 'bbbb' WHERE k = 1")
	after, err := snapshot.Checksum(ctx, conn, "tidb", "sbtest", "dup")
	if err != nil {
		t.Fatal(err)
	}
	if before == after {
		t.Errorf("rows A, A changed into B, B left the checksum %s as it was", after)
	}
	exec("UPDATE sbtest.dup SET k = 1, c = 'aaaa' WHERE k = 2")
	again, err := snapshot.Checksum(ctx, conn, "tidb", "sbtest", "dup")
	if err != nil || again != before {
		t.Errorf("the same rows again: checksum %s, first %s (%v)", again, before, err)
	}
	// A NULL and an empty string differ.
	exec("UPDATE sbtest.dup SET c = '' WHERE k = 7")
	if empty, err := snapshot.Checksum(ctx, conn, "tidb", "sbtest", "dup"); err != nil || empty == before {
		t.Errorf("NULL changed into '': checksum %s, before %s (%v)", empty, before, err)
	}
}
