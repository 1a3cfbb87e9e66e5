package tpch

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/internal/testutil/gotpctest"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
)

// TPC-H's answers from a real TiDB, on the smallest data that has them:
// scale factor 1's five tables that q2, q11 and q16 read (1,010,030 rows;
// orders and lineitem, 7.5 million rows and the rest of a 150 s load on
// TiDB, are left out). TiDB's answers (its DECIMAL sums and products,
// strings, counts) on starbench's rows are TPC-H's by the specification's
// precisions, for starbench's --check and for go-tpc's own --check on the
// same server. (All 22 queries on all of scale factor 1 on TiDB:
// `starbench tpch --target sandbox:tidb --sf 1 -T 2 --check run`, about
// five minutes; every answer is TPC-H's.)
func TestAnswersOnTiDB(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a million rows into TiDB")
	}
	bin := gotpctest.Binary(t)
	srv := sandboxtest.SharedTiDB(t)
	ctx := context.Background()
	cfg := srv.Config()
	cfg.DBName = "tpch_answers"
	admin, err := db.Open(ctx, srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.Exec(ctx, "CREATE DATABASE tpch_answers"); err != nil {
		t.Fatal(err)
	}
	conn := bench.NewSQLConnector(cfg, bench.PSAuto)
	var out bytes.Buffer
	tables := []string{"nation", "region", "part", "supplier", "partsupp"}
	res, err := Prepare(ctx, conn, PrepareOptions{ScaleFactor: 1, Threads: 2, Tables: tables}, &out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	want := map[string]int64{"nation": 25, "region": 5, "part": 200_000, "partsupp": 800_000, "supplier": 10_000}
	for table, n := range want {
		rs, err := admin.Query(ctx, "SELECT COUNT(*) FROM tpch_answers."+table)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(rs.Rows[0][0]); got != fmt.Sprint(n) || res.Rows[table] != n {
			t.Errorf("%s: %s rows in the table, %d loaded, want %d", table, got, res.Rows[table], n)
		}
	}
	t.Logf("loaded %d rows in %.1f s", res.TotalRows, res.Seconds)

	queries := []string{"q2", "q11", "q16"}
	step, err := Step(conn, RunOptions{ScaleFactor: 1, Queries: queries, Check: true, Threads: 1, Count: 3, Interval: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	sum, _, err := bench.RunStep(ctx, t.TempDir(), step)
	if err != nil {
		t.Fatalf("starbench's --check on TiDB: %v", err)
	}
	if got := sum.Metrics[MetricChecked]; got != 3 {
		t.Errorf("answers checked: %v, want 3", got)
	}

	host, port, _ := strings.Cut(cfg.Addr, ":")
	gotpc, err := exec.Command(bin, "tpch", "run", "-H", host, "-P", port, "-U", cfg.User, "-p", cfg.Passwd, "-D", cfg.DBName,
		"--sf", "1", "--check", "--count", "3", "--queries", strings.Join(queries, ",")).CombinedOutput()
	if err != nil || strings.Contains(string(gotpc), "failed") || strings.Count(string(gotpc), "[Summary] Q") != 3 {
		t.Errorf("go-tpc tpch run --check on starbench's rows on TiDB: %v\n%s", err, gotpc)
	}

	// A wrong value is found: one supplier's balance changed moves q2's
	// answer.
	if _, err := admin.Exec(ctx, "UPDATE tpch_answers.supplier SET s_acctbal = s_acctbal + 1 WHERE s_name = 'Supplier#000002334'"); err != nil {
		t.Fatal(err)
	}
	step, _ = Step(conn, RunOptions{ScaleFactor: 1, Queries: []string{"q2"}, Check: true, Threads: 1, Count: 1, Interval: time.Second})
	if _, _, err := bench.RunStep(ctx, t.TempDir(), step); err == nil || !strings.Contains(err.Error(), "q2") {
		t.Errorf("a changed supplier's balance: %v, want q2's answer refused", err)
	}
}
