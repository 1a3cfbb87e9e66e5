package stdlib_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"github.com/starbench/starbench/builtins/ssh/sshstar"
	"github.com/starbench/starbench/internal/testutil/plantest"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
	"github.com/starbench/starbench/internal/testutil/tidbsql"
	"github.com/starbench/starbench/runner"
)

// tidb.star's SQL-level procedures on a real TiDB server (tidb-server on
// unistore: TiDB's SQL layer without PD, TiKV or BR): SPLIT TABLE and its
// regions, AUTO_RANDOM, the global variables, SHOW CONFIG saved, and
// conn.snapshot; the helpers that need PD or BR fail naming what is
// missing, and the informational region report says it is unavailable.
func TestTiDBSQLProceduresOnTiDB(t *testing.T) {
	srv := sandboxtest.SharedTiDB(t)
	cfg := srv.Config()
	cfg.DBName = "tidb_sql"
	plan := filepath.Join(t.TempDir(), "plan.star")
	body := func(extra string) string {
		return `
load("@stdlib//tidb.star", "tidb")
load("@stdlib//datadir.star", "datadir")
def main(p):
    admin = db.connect(` + strconv.Quote(srv.DSN()) + `)
    admin.exec("DROP DATABASE IF EXISTS tidb_sql")
    admin.exec("CREATE DATABASE tidb_sql")
    conn = db.connect(` + strconv.Quote(cfg.FormatDSN()) + `)
    conn.exec("CREATE TABLE t1 (id INT PRIMARY KEY, k INT, KEY k_1 (k))")
    conn.exec("INSERT INTO t1 VALUES (1, 1), (2, 2), (3, 3)")
` + extra
	}
	run := func(extra string) plantest.Result {
		t.Helper()
		os.WriteFile(plan, []byte(body(extra)), 0o644)
		mods := starlark.StringDict{"ssh": sshstar.Module}
		for k, v := range modules {
			mods[k] = v
		}
		return plantest.Evaluate(t, plan, "", mods, runner.Options{Secrets: []string{srv.Password()}})
	}

	r := run(`
    split = tidb.split_table(conn, "t1", 0, 100000, 4)
    print("split", split.total_split_regions, split.scatter_finish_ratio)
    print("regions", len(conn.query("SHOW TABLE t1 REGIONS")))
    conn.exec("CREATE TABLE r1 (id BIGINT PRIMARY KEY AUTO_RANDOM, v INT)")
    for v in range(8):  # TiDB draws the shard bits per transaction: one INSERT's rows share them
        conn.exec("INSERT INTO r1 (v) VALUES (?)", v)
    print("random", conn.query("SELECT COUNT(DISTINCT id >> 58) AS shards, MIN(id) > 0 AS positive FROM r1")[0].shards > 1)
    tidb.set_global(conn, {"tidb_txn_mode": "optimistic", "tidb_enable_1pc": False})
    g = db.connect(` + strconv.Quote(cfg.FormatDSN()) + `).query("SELECT @@GLOBAL.tidb_txn_mode AS m, @@GLOBAL.tidb_enable_1pc AS one")[0]
    print("globals", g.m, g.one)
    tidb.set_global(conn, {"tidb_txn_mode": "pessimistic", "tidb_enable_1pc": True})
    tidb.cluster(local, "x", tiup = "true").record_config("connected", conn = conn)
    snap = conn.snapshot("tidb_sql")
    conn.exec("DELETE FROM t1 WHERE id = 2")
    conn.restore(snap)
    print("rows", conn.query("SELECT COUNT(*) AS n FROM t1")[0].n)
    print("version", "TiDB" in conn.version())
    print("regions by store:", tidb.region_report(conn, "t1", database = "tidb_sql"))
`)
	if r.Err != nil {
		t.Fatalf("%s\n%s", plantest.Backtrace(r.Err), r.Stdout)
	}
	// SPLIT TABLE's 4 new regions, and the table's first region before them.
	for _, want := range []string{"split 4 1.0", "regions 5", "random True", "globals optimistic 0", "rows 3", "version True",
		"regions by store: unavailable: this TiDB server has no PD (Error 1105: pd http client unavailable)"} {
		if !strings.Contains(r.Stdout, want+"\n") {
			t.Errorf("output lacks %q:\n%s", want, r.Stdout)
		}
	}
	// SHOW CONFIG's rows, saved into the results folder: this server's own.
	tsv, err := os.ReadFile(filepath.Join(r.Res.Dir, "files", "tidb", "x", "1-connected-show-config.tsv"))
	lines := strings.Split(strings.TrimSuffix(string(tsv), "\n"), "\n")
	if err != nil || lines[0] != "Type\tInstance\tName\tValue" || len(lines) < 100 {
		t.Fatalf("show-config.tsv: %v\n%s", err, tsv)
	}
	for _, l := range lines[1:] {
		if f := strings.Split(l, "\t"); len(f) != 4 || f[0] != "tidb" || f[1] != cfg.Addr {
			t.Errorf("SHOW CONFIG row %q, want tidb rows of %s", l, cfg.Addr)
			break
		}
	}

	// What needs PD, TiKV or BR says so by name.
	for _, c := range []struct{ call, want string }{
		{`tidb.region_distribution(conn, "t1", database = "tidb_sql")`,
			"tidb.region_distribution needs PD (it reads information_schema.TIKV_REGION_STATUS and TIKV_REGION_PEERS, which TiDB serves from PD): this TiDB server has none"},
		{`tidb.backup(conn, "tidb_sql", "local:///tmp/br")`, "tidb.backup needs PD (it reads information_schema.TIKV_STORE_STATUS"},
		{`tidb.backup(conn, "tidb_sql", "s3://bucket/br")`, "tidb.backup needs BR on a TiKV cluster: `BACKUP DATABASE `tidb_sql` TO 's3://bucket/br'`: Error 1105: BACKUP requires tikv store, not unistore"},
		{`datadir.table_checksums(conn, ["t1"], tidb = True)`, "datadir.table_checksums: ADMIN CHECKSUM TABLE computed nothing for tidb_sql.t1 (Checksum_crc64_xor 0 over 2 KV pairs)"},
	} {
		r := run("    " + c.call + "\n")
		if r.Err == nil || !strings.Contains(r.Err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.call, r.Err, c.want)
		}
	}
}

// What a real TiDB server cannot do without PD, TiKV and BR, on the TiDB
// stand-in, which keeps a model of a cluster (three TiKV stores, PD's
// regions, BR's backups) with TiDB's documented result shapes: BR's
// BACKUP and RESTORE through SQL, the regions of a table per store, and
// ADMIN CHECKSUM TABLE as TiKV computes it.
func TestTiDBClusterProceduresOnTheStandIn(t *testing.T) {
	for _, c := range []struct {
		name    string
		shared  bool   // the stand-in's local:// is one shared mount
		backup  string // the backup call
		wantErr string
	}{
		{"local path on 3 TiKV is refused", false, `tidb.backup(conn, "sbtest", "local:///data/br")`,
			"tidb.backup: local:///data/br is local to each of the 3 TiKV stores"},
		{"shared local path", true, `tidb.backup(conn, "sbtest", "local:///nfs/br", shared = True)`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := tidbsql.Start(t, tidbsql.Options{Databases: []string{"sbtest"}, SharedLocalStorage: c.shared})
			plan := filepath.Join(t.TempDir(), "plan.star")
			os.WriteFile(plan, []byte(fmt.Sprintf(`
load("@stdlib//tidb.star", "tidb")
load("@stdlib//datadir.star", "datadir")
def main(p):
    conn = db.connect(%q)
    conn.exec("CREATE TABLE t1 (id INT PRIMARY KEY, k INT, KEY k_1 (k))")
    conn.exec("INSERT INTO t1 VALUES (1, 1), (2, 2), (3, 3)")
    tidb.split_table(conn, "t1", 0, 100000, 4)
    for r in tidb.region_distribution(conn, "t1"):
        print("store", r["store"], r["regions"], r["leaders"])
    print("report", tidb.region_report(conn, "t1"))
    before = datadir.table_checksums(conn, ["t1"], tidb = True)
    b = %s
    print("backup", b.destination, b.size > 0, b.backup_ts > 0)
    conn.exec("DELETE FROM t1 WHERE id = 2")
    r = tidb.restore(conn, b)
    print("restore", r.destination, r.size > 0)
    print("rows", conn.query("SELECT COUNT(*) AS n FROM sbtest.t1")[0].n)
    after = datadir.table_checksums(db.connect(%q), ["t1"], tidb = True)
    print("same kvs and bytes", [v.split("/")[1:] for v in before.values()] == [v.split("/")[1:] for v in after.values()])
`, srv.DSN("sbtest"), c.backup, srv.DSN("sbtest"))), 0o644)
			mods := starlark.StringDict{"ssh": sshstar.Module}
			for k, v := range modules {
				mods[k] = v
			}
			r := plantest.Evaluate(t, plan, "", mods, runner.Options{})
			if c.wantErr != "" {
				if r.Err == nil || !strings.Contains(r.Err.Error(), c.wantErr) {
					t.Fatalf("want %q, got %v\n%s", c.wantErr, r.Err, r.Stdout)
				}
				return
			}
			if r.Err != nil {
				t.Fatalf("%s\n%s", plantest.Backtrace(r.Err), r.Stdout)
			}
			for _, want := range []string{"backup local:///nfs/br True True", "restore local:///nfs/br True", "rows 3", "same kvs and bytes True",
				"report store 1: 5 regions, "} {
				if !strings.Contains(r.Stdout, want) {
					t.Errorf("output lacks %q:\n%s", want, r.Stdout)
				}
			}
			// 1 region of the table and 4 split off it, each on all 3
			// stores (3 replicas), each led by one of them.
			stores := regexp.MustCompile(`(?m)^store \d+ (\d+) (\d+)$`).FindAllStringSubmatch(r.Stdout, -1)
			leaders := 0
			for _, m := range stores {
				if m[1] != "5" {
					t.Errorf("a store with %s regions, want 5:\n%s", m[1], r.Stdout)
				}
				n, _ := strconv.Atoi(m[2])
				leaders += n
			}
			if len(stores) != 3 || leaders != 5 {
				t.Errorf("region_distribution: %d stores, %d leaders:\n%s", len(stores), leaders, r.Stdout)
			}
		})
	}
}
