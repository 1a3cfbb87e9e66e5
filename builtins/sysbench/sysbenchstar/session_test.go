package sysbenchstar_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/internal/testutil/plantest"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
	"github.com/starbench/starbench/runner"
	"github.com/starbench/starbench/runner/results"
)

// A workload follows its handle's session: after USE and SET on the handle,
// prepare (with if_exists="drop"), run, analyze and cleanup act in the
// database the handle is in, with its settings, and never on the
// same-named tables of the database the DSN named. Every drop names the
// schema it acts on, in the printed lines and the journal.
func TestWorkloadsFollowTheHandleSession(t *testing.T) {
	plan := filepath.Join(t.TempDir(), "plan.star")
	os.WriteFile(plan, []byte(`
load("`+testdataLib+`", "assert")

def main(p):
    conn = db.connect()
    home = conn.query("SELECT DATABASE() AS d")[0].d
    other = home + "_other"
    # Another test's table in the database the DSN names.
    conn.exec("CREATE TABLE sbtest1 (id INT PRIMARY KEY)")
    conn.exec("INSERT INTO sbtest1 VALUES (42)")
    conn.exec("DROP DATABASE IF EXISTS " + other)
    conn.exec("CREATE DATABASE " + other)
    conn.exec("USE " + other)
    conn.exec("SET SESSION auto_increment_increment = 5")

    sysbench.prepare(conn, tables = 1, table_size = 100)
    sysbench.prepare(conn, tables = 1, table_size = 100, if_exists = "drop")
    # The prepare's connections had the handle's auto_increment_increment.
    got = conn.query("SELECT COUNT(*) AS n, MAX(id) AS m FROM sbtest1")[0]
    assert.eq([got.n, got.m], [100, 1 + 5 * 99], "rows and last id in " + other)

    r = sysbench.run(conn, "oltp_insert", threads = 2, events = 20, time = 0, table_size = 100)
    assert.eq(r.writes, 20, "inserts")
    added = conn.query("SELECT COUNT(*) AS n, SUM(id % 5 <> 1) AS off FROM sbtest1 WHERE id > 496")[0]
    assert.eq([added.n, added.off], [20, 0], "new rows, and ids off the handle's increment")

    analyzed = conn.analyze(["sbtest1"])
    assert.eq(analyzed[0].table, other + ".sbtest1", "analyzed table")

    assert.eq(sysbench.cleanup(conn, tables = 1), ["sbtest1"], "cleanup")
    assert.eq(len(conn.query("SHOW TABLES")), 0, "tables left in " + other)
    kept = conn.query("SELECT id FROM " + home + ".sbtest1")
    assert.eq([row.id for row in kept], [42], "the DSN database's sbtest1")
    conn.exec("DROP DATABASE " + other)
    print("other=" + other)
`), 0o644)
	r := plantest.Evaluate(t, plan, "mariadb", modules, runner.Options{})
	if r.Err != nil {
		t.Fatalf("%s\noutput:\n%s", plantest.Backtrace(r.Err), r.Stdout)
	}
	_, other, _ := strings.Cut(r.Stdout, "other=")
	other = strings.TrimSpace(other)
	for _, line := range []string{
		"Dropping table '" + other + ".sbtest1' (if_exists=drop)...",
		"Dropping table '" + other + ".sbtest1'...",
	} {
		if !strings.Contains(r.Stdout, line) {
			t.Errorf("output lacks %q:\n%s", line, r.Stdout)
		}
	}
	recs, err := results.ReadJournal(filepath.Join(r.Res.Dir, results.JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, rec := range recs {
		if !strings.HasPrefix(rec.Builtin, "sysbench.") {
			continue
		}
		if rec.Event == "start" && !strings.Contains(rec.Text, " --mysql-db="+other+" ") {
			t.Errorf("%s step text does not name the database: %s", rec.Builtin, rec.Text)
		}
		if rec.Event == "end" && rec.Builtin != "sysbench.run" {
			seen[rec.Builtin] = true
			if !strings.Contains(string(rec.Result), `"schema":"`+other+`"`) {
				t.Errorf("%s result does not name the schema: %s", rec.Builtin, rec.Result)
			}
		}
	}
	if !seen["sysbench.prepare"] || !seen["sysbench.cleanup"] {
		t.Errorf("journal lacks prepare or cleanup ends: %v", seen)
	}
}

// testdataLib is the assertion library, by absolute path: the plans here
// are written to temp dirs, and load() paths are relative to the plan.
var testdataLib, _ = filepath.Abs("../../../testdata/lib/assert.star")

// A failed drop names the schema; select_random_* accept --tables > 1 in
// run (sysbench asserts it only in prepare and cleanup) and refuse it there.
func TestSingleTableScriptsAndDropErrors(t *testing.T) {
	plan := filepath.Join(t.TempDir(), "plan.star")
	os.WriteFile(plan, []byte(`
load("`+testdataLib+`", "assert")

def main(p):
    conn = db.connect()
    sysbench.prepare(conn, workload = "select_random_points", tables = 1, table_size = 100)
    for wl in ["select_random_points", "select_random_ranges"]:
        r = sysbench.run(conn, wl, tables = 16, events = 10, time = 0, table_size = 100)
        assert.eq(r.reads, 10, wl + " reads")
    sysbench.cleanup(conn, workload = "select_random_ranges", tables = 16)
`), 0o644)
	r := plantest.Evaluate(t, plan, "mariadb", modules, runner.Options{})
	if r.Err == nil || !strings.Contains(r.Err.Error(), "select_random_ranges: this benchmark does not support --tables > 1 (got 16)") {
		t.Fatalf("want cleanup with tables=16 refused, got %v\n%s", r.Err, r.Stdout)
	}
	if strings.Contains(r.Stdout, "Dropping") {
		t.Errorf("a refused cleanup dropped tables:\n%s", r.Stdout)
	}
	if !strings.Contains(plantest.Backtrace(r.Err), "plan.star:10") {
		t.Errorf("error does not point at the cleanup line: %s", plantest.Backtrace(r.Err))
	}

	// A drop the server refuses names the schema it was for.
	m := sandboxtest.Shared(t)
	dsn, pw := plantest.MariaDBTarget(t, "drop_refused")
	ctx := context.Background()
	admin, err := db.Open(ctx, m.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	for _, q := range []string{
		"CREATE TABLE s_drop_refused.sbtest1 (id INT PRIMARY KEY)",
		"DROP USER IF EXISTS 'nodrop'@'%'",
		"CREATE USER 'nodrop'@'%' IDENTIFIED BY 'pw-nodrop'",
		"GRANT SELECT ON s_drop_refused.* TO 'nodrop'@'%'",
	} {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := db.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.User, cfg.Passwd = "nodrop", "pw-nodrop"
	os.WriteFile(plan, []byte(`
def main(p):
    sysbench.cleanup(db.connect(), tables = 1)
`), 0o644)
	r = plantest.Evaluate(t, plan, "", modules, runner.Options{Targets: map[string]string{runner.DefaultTarget: cfg.FormatDSN()}, Secrets: []string{pw, "pw-nodrop"}})
	if r.Err == nil || !strings.Contains(r.Err.Error(), "drop s_drop_refused.sbtest1: Error 1142") {
		t.Fatalf("want the refused drop named with its schema, got %v", r.Err)
	}
}
