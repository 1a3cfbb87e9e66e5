package stdlib_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"github.com/starbench/starbench/builtins/db/dbstar"
	"github.com/starbench/starbench/builtins/local/localstar"
	"github.com/starbench/starbench/builtins/yamlstar"
	"github.com/starbench/starbench/internal/testutil/plantest"
	"github.com/starbench/starbench/runner"
	"github.com/starbench/starbench/stdlib"
)

var modules = starlark.StringDict{"db": dbstar.Module, "local": localstar.Module, "yaml": yamlstar.Module}

func TestTiDBSnippets(t *testing.T) {
	const pattern = "../testdata/tidb/*.star"
	paths, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatalf("%s: %v", pattern, err)
	}
	if len(paths) == 0 {
		t.Fatalf("no snippets match %s", pattern)
	}
	for _, path := range paths {
		s := plantest.ReadSnippet(t, path)
		t.Run(filepath.Base(path), func(t *testing.T) {
			r := plantest.Evaluate(t, path, "", modules, runner.Options{DryRun: true})
			if s.WantError == "" && r.Err != nil {
				t.Fatal(plantest.Backtrace(r.Err))
			}
			if s.WantError != "" && (r.Err == nil || !strings.Contains(r.Err.Error(), s.WantError)) {
				t.Fatalf("want error %q, got %v", s.WantError, r.Err)
			}
		})
	}
}

// The SQL tidb.star generates, as TiDB documents the statements.
func TestTiDBStatements(t *testing.T) {
	plan := filepath.Join(t.TempDir(), "plan.star")
	os.WriteFile(plan, []byte(`
load("@stdlib//tidb.star", "tidb")
def main(p):
    conn = db.connect()
    tidb.set_global(conn, {"tidb_hashagg_final_concurrency": 1, "tidb_enable_async_commit": True, "tidb_txn_mode": "pessimistic"})
    tidb.split_table(conn, "sbtest1", 0, 1000000, 10)
    tidb.region_distribution(conn, "sbtest1")
    snap = tidb.backup(conn, "sbtest", "local:///data/backup")
    tidb.restore(conn, snap)
`), 0o644)
	var out bytes.Buffer
	res, err := runner.Evaluate(context.Background(), runner.Options{PlanFile: plan, DryRun: true, Predeclared: modules, Stdlib: stdlib.FS, Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatal(plantest.Backtrace(err))
	}
	var texts []string
	for _, s := range res.Steps {
		texts = append(texts, s.Text)
	}
	want := []string{
		"connect embedded",
		"SET GLOBAL tidb_hashagg_final_concurrency = 1;\nSET GLOBAL tidb_enable_async_commit = ON;\nSET GLOBAL tidb_txn_mode = 'pessimistic';",
		"SPLIT TABLE `sbtest1` BETWEEN (0) AND (1000000) REGIONS 10",
		"SELECT p.STORE_ID AS store, COUNT(*) AS regions, SUM(p.IS_LEADER) AS leaders FROM information_schema.TIKV_REGION_STATUS s JOIN information_schema.TIKV_REGION_PEERS p ON s.REGION_ID = p.REGION_ID WHERE s.DB_NAME = ? AND s.TABLE_NAME = ? GROUP BY p.STORE_ID ORDER BY p.STORE_ID",
		"BACKUP DATABASE `sbtest` TO 'local:///data/backup'",
		"DROP DATABASE IF EXISTS `sbtest`",
		"RESTORE DATABASE `sbtest` FROM 'local:///data/backup'",
	}
	if strings.Join(texts, "\n---\n") != strings.Join(want, "\n---\n") {
		t.Errorf("statements:\n%s", strings.Join(texts, "\n---\n"))
	}
}
