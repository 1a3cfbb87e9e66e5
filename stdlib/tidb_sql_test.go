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
	"github.com/starbench/starbench/internal/testutil/tidbsql"
	"github.com/starbench/starbench/runner"
)

// tidb.star's SQL procedures against the TiDB stand-in, which answers with
// TiDB's documented result shapes: what the module reads from each result
// is tested, not only the statement it sends.
func TestTiDBSQLProceduresOnTheStandIn(t *testing.T) {
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
    split = tidb.split_table(conn, "t1", 0, 100000, 4)
    print("split", split.total_split_regions, split.scatter_finish_ratio)
    for r in tidb.region_distribution(conn, "t1"):
        print("store", r["store"], r["regions"], r["leaders"])
    before = datadir.table_checksums(conn, ["t1"], tidb = True)
    b = %s
    print("backup", b.destination, b.size > 0, b.backup_ts > 0)
    conn.exec("DELETE FROM t1 WHERE id = 2")
    r = tidb.restore(conn, b)
    print("restore", r.destination, r.size > 0)
    print("rows", conn.query("SELECT COUNT(*) AS n FROM sbtest.t1")[0].n)
    after = datadir.table_checksums(db.connect(%q), ["t1"], tidb = True)
    print("same kvs and bytes", [v.split("/")[1:] for v in before.values()] == [v.split("/")[1:] for v in after.values()])
    tidb.cluster(local, "x", tiup = "true").record_config("connected", conn = conn)
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
			for _, want := range []string{"split 4 1.0", "backup local:///nfs/br True True", "restore local:///nfs/br True", "rows 3", "same kvs and bytes True"} {
				if !strings.Contains(r.Stdout, want+"\n") {
					t.Errorf("output lacks %q:\n%s", want, r.Stdout)
				}
			}
			// SHOW CONFIG's rows, saved into the results folder.
			tsv, err := os.ReadFile(filepath.Join(r.Res.Dir, "files", "tidb", "x", "1-connected-show-config.tsv"))
			lines := strings.Split(strings.TrimSpace(string(tsv)), "\n")
			if err != nil || lines[0] != "Type\tInstance\tName\tValue" || len(lines) < 4 {
				t.Fatalf("show-config.tsv: %v\n%s", err, tsv)
			}
			for _, l := range lines[1:] {
				if f := strings.Split(l, "\t"); len(f) != 4 || (f[0] != "tidb" && f[0] != "tikv" && f[0] != "pd") {
					t.Errorf("SHOW CONFIG row %q", l)
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
