package snapshot_test

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/builtins/db/snapshot"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
)

func TestMain(m *testing.M) { sandboxtest.Main(m) }

// onTiDB connects to the shared private TiDB, in a new database sbtest_N
// (returned).
func onTiDB(t *testing.T) (*db.Conn, string) {
	t.Helper()
	srv := sandboxtest.SharedTiDB(t)
	schema := fmt.Sprintf("snap_%d", nextSchema.Add(1))
	conn, err := db.Open(context.Background(), srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := conn.Exec(context.Background(), "CREATE DATABASE "+schema); err != nil {
		t.Fatal(err)
	}
	return conn, schema
}

var nextSchema atomic.Int64

// On TiDB a table and its copy have different table IDs, which ADMIN
// CHECKSUM TABLE's CRC folds in: a snapshot compares what does not depend
// on them, or every snapshot and restore on TiDB would fail. A snapshot
// and restore on a real TiDB bring the rows back.
func TestSnapshotOnTiDB(t *testing.T) {
	ctx := context.Background()
	conn, schema := onTiDB(t)
	for _, q := range []string{
		"CREATE TABLE " + schema + ".t1 (id INT PRIMARY KEY, k INT, c VARCHAR(20), KEY k_1 (k))",
		"INSERT INTO " + schema + ".t1 VALUES (1, 10, 'a'), (2, 20, 'b'), (3, 30, NULL)",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	engine, err := snapshot.Engine(ctx, conn)
	if err != nil || engine != "tidb" {
		t.Fatalf("engine %q, %v", engine, err)
	}
	snap, err := snapshot.Take(ctx, conn, schema, "", snapshot.Options{})
	if err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	if _, err := conn.Exec(ctx, "UPDATE "+schema+".t1 SET k = 11 WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	changed, err := snapshot.Checksum(ctx, conn, engine, schema, "t1")
	if err != nil {
		t.Fatal(err)
	}
	if changed == snap.Tables[0].Checksum {
		t.Errorf("a changed row (same length) left the checksum %s as it was", changed)
	}
	if _, err := snapshot.Restore(ctx, conn, snap, snapshot.Options{}); err != nil {
		t.Fatalf("restore: %v", err)
	}
	rs, err := conn.Query(ctx, "SELECT k FROM "+schema+".t1 WHERE id = 1")
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
	conn, schema := onTiDB(t)
	exec := func(q string) {
		t.Helper()
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec("CREATE TABLE " + schema + ".dup (k INT, c VARCHAR(20))")
	exec("INSERT INTO " + schema + ".dup VALUES (1, 'aaaa'), (1, 'aaaa'), (7, NULL)")
	before, err := snapshot.Checksum(ctx, conn, "tidb", schema, "dup")
	if err != nil {
		t.Fatal(err)
	}
	exec("UPDATE " + schema + ".dup SET k = 2, c = 'bbbb' WHERE k = 1")
	after, err := snapshot.Checksum(ctx, conn, "tidb", schema, "dup")
	if err != nil {
		t.Fatal(err)
	}
	if before == after {
		t.Errorf("rows A, A changed into B, B left the checksum %s as it was", after)
	}
	exec("UPDATE " + schema + ".dup SET k = 1, c = 'aaaa' WHERE k = 2")
	again, err := snapshot.Checksum(ctx, conn, "tidb", schema, "dup")
	if err != nil || again != before {
		t.Errorf("the same rows again: checksum %s, first %s (%v)", again, before, err)
	}
	// A NULL and an empty string differ.
	exec("UPDATE " + schema + ".dup SET c = '' WHERE k = 7")
	if empty, err := snapshot.Checksum(ctx, conn, "tidb", schema, "dup"); err != nil || empty == before {
		t.Errorf("NULL changed into '': checksum %s, before %s (%v)", empty, before, err)
	}
}

// The rows' digest is exact on a real TiDB: the server's SUM of 64-bit
// row hashes (a DECIMAL) equals their sum in exact arithmetic, far past
// the 2^53 a float64 holds exactly (the stand-in summed in float64). And
// ADMIN CHECKSUM TABLE on unistore, which computes nothing (a CRC of 0
// and 2 KV pairs for any table), is not part of the checksum.
func TestTiDBRowDigestIsExact(t *testing.T) {
	ctx := context.Background()
	conn, schema := onTiDB(t)
	exec := func(q string) {
		t.Helper()
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec("CREATE TABLE " + schema + ".many (id INT PRIMARY KEY, c VARCHAR(40), KEY c_1 (c))")
	var values []string
	for i := 1; i <= 2000; i++ {
		values = append(values, fmt.Sprintf("(%d, 'row-%d')", i, i*7919))
	}
	exec("INSERT INTO " + schema + ".many VALUES " + strings.Join(values, ", "))

	got, err := snapshot.Checksum(ctx, conn, "tidb", schema, "many")
	if err != nil {
		t.Fatal(err)
	}
	// Each row's hash, read as text, summed here exactly.
	hashes, err := conn.Query(ctx, "SELECT CAST(CAST(CONV(LEFT(MD5(CONCAT_WS(CHAR(31), `id`, `c`, CONCAT(ISNULL(`id`), ISNULL(`c`)))), 16), 16, 10) AS UNSIGNED) AS CHAR) FROM "+schema+".many")
	if err != nil {
		t.Fatal(err)
	}
	sum, float := new(big.Int), 0.0
	for _, r := range hashes.Rows {
		h, ok := new(big.Int).SetString(toString(r[0]), 10)
		if !ok {
			t.Fatalf("hash %v", r[0])
		}
		sum.Add(sum, h)
		f, _ := new(big.Float).SetInt(h).Float64()
		float += f
	}
	want := fmt.Sprintf("rows:2000/md5sum64:%s", sum)
	if got != want {
		t.Errorf("checksum %s, want the exact sum: %s", got, want)
	}
	if fl := new(big.Float).SetFloat64(float); fl.Text('f', 0) == sum.String() {
		t.Errorf("the sum %s is exact in float64 too: the test needs larger sums", sum)
	}

	// unistore's ADMIN CHECKSUM: nothing computed, nothing taken.
	rs, err := conn.Query(ctx, "ADMIN CHECKSUM TABLE "+schema+".many")
	if err != nil {
		t.Fatal(err)
	}
	if crc := toString(rs.Rows[0][2]); crc != "0" {
		t.Skipf("this store computes ADMIN CHECKSUM (CRC %s): the unistore case does not apply", crc)
	}
	if strings.Contains(got, "kvs:") {
		t.Errorf("the checksum %s holds ADMIN CHECKSUM's figures, which this store did not compute (%v)", got, rs.Rows[0])
	}
}

// A snapshot journaled by an earlier starbench, whose digest's sum went
// through a float64, still restores: the exact sum that rounds to it
// matches, another does not.
func TestOldFloatDigestsStillMatch(t *testing.T) {
	exact := "kvs:9/bytes:10/rows:2000/md5sum64:18054488015858703263309"
	for recorded, want := range map[string]bool{
		"kvs:9/bytes:10/rows:2000/md5sum64:1.8054488015858704e+22": true,
		"kvs:9/bytes:10/rows:2000/md5sum64:1.8054488015858714e+22": false,
		"kvs:9/bytes:11/rows:2000/md5sum64:1.8054488015858704e+22": false,
		"rows:2000/md5sum64:18054488015858703263309":               false,
		exact: true,
	} {
		if got := snapshot.SameChecksum(recorded, exact); got != want {
			t.Errorf("%s against %s: %v, want %v", recorded, exact, got, want)
		}
	}
}
