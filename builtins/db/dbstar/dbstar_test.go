package dbstar_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/builtins/db/dbstar"
	"github.com/starbench/starbench/internal/testutil/plantest"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
	"github.com/starbench/starbench/runner"
	"github.com/starbench/starbench/runner/results"
)

func TestMain(m *testing.M) { sandboxtest.Main(m) }

func TestSnippets(t *testing.T) {
	plantest.RunSnippets(t, "../../../testdata/db/*.star", starlark.StringDict{"db": dbstar.Module})
}

func evaluate(t *testing.T, plan, target string, opts runner.Options) plantest.Result {
	return plantest.Evaluate(t, plan, target, starlark.StringDict{"db": dbstar.Module}, opts)
}

func backtrace(err error) string { return plantest.Backtrace(err) }

func mariadbTarget(t *testing.T, name string) (string, string) {
	return plantest.MariaDBTarget(t, name)
}

func writePlan(t *testing.T, src string) string {
	path := filepath.Join(t.TempDir(), "plan.star")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// The journal records each step with its result, and db.connect with the
// spec to reopen the handle; the manifest records the target.
func TestJournalAndManifestOnMariaDB(t *testing.T) {
	plan := writePlan(t, `
def main(p):
    conn = db.connect()
    conn.exec("CREATE TABLE j (id INT PRIMARY KEY)")
    conn.exec("INSERT INTO j VALUES (?), (?)", 1, 2)
    conn.exec("SET SESSION sql_mode = ''")
    print(conn.query("SELECT COUNT(*) AS n FROM j")[0].n)
    conn.analyze(["j"])
`)
	r := evaluate(t, plan, "mariadb", runner.Options{})
	if r.Err != nil {
		t.Fatal(backtrace(r.Err))
	}
	recs, err := results.ReadJournal(filepath.Join(r.Res.Dir, results.JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	ends := map[string]results.JournalRecord{}
	var starts []string
	for _, rec := range recs {
		if rec.Event == "start" {
			starts = append(starts, rec.ID+"="+rec.Builtin)
		}
		if rec.Event == "end" {
			ends[rec.ID] = rec
		}
	}
	want := "1=db.connect 2=db.exec 3=db.exec 4=db.exec 5=db.query 6=db.analyze 6.1=db.analyze_table"
	if got := strings.Join(starts, " "); got != want {
		t.Errorf("steps:\n got %s\nwant %s", got, want)
	}
	connect := ends["1"]
	if connect.Returns == nil || connect.Returns.Kind != "db" || connect.Returns.ID != "db1" {
		t.Fatalf("connect did not record its handle: %+v", connect)
	}
	spec, _ := json.Marshal(connect.Returns.Spec)
	if !strings.Contains(string(spec), `"target":"default"`) || !strings.Contains(string(spec), ":***@tcp(127.0.0.1:") {
		t.Errorf("handle spec: %s", spec)
	}
	if got := string(ends["3"].Result); got != `{"last_insert_id":0,"rows_affected":2}` {
		t.Errorf("insert result: %s", got)
	}
	if !strings.Contains(string(ends["4"].Result), `"session":true`) {
		t.Errorf("SET SESSION not marked as session state: %s", ends["4"].Result)
	}
	var rs db.ResultSet
	if err := json.Unmarshal(ends["5"].Result, &rs); err != nil || len(rs.Rows) != 1 || rs.Rows[0][0] != int64(2) { // read back with its type
		t.Errorf("query result: %s", ends["5"].Result)
	}

	data, err := os.ReadFile(filepath.Join(r.Res.Dir, results.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Targets map[string]struct {
			ServerVersion string            `json:"server_version"`
			Variables     map[string]string `json:"variables"`
			DSN           string            `json:"dsn"`
		} `json:"targets"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	tgt := m.Targets["default"]
	if !strings.Contains(tgt.ServerVersion, "MariaDB") || tgt.Variables["max_connections"] == "" || !strings.Contains(tgt.DSN, "***") {
		t.Errorf("manifest target: version %q, %d variables, dsn %q", tgt.ServerVersion, len(tgt.Variables), tgt.DSN)
	}
	for _, f := range []string{results.ManifestFile, results.JournalFile, "output.log"} {
		data, _ := os.ReadFile(filepath.Join(r.Res.Dir, f))
		if pw := sandboxtest.Shared(t).Password(); bytes.Contains(data, []byte(pw)) {
			t.Errorf("%s contains the password", f)
		}
	}
}

// Dry-run lists the SQL of every step, returns placeholders, notes where the
// plan branched on them and opens no connection (the target is unreachable).
func TestDryRunOpensNoConnection(t *testing.T) {
	plan := writePlan(t, `
def main(p):
    conn = db.connect()
    conn.exec("CREATE TABLE t (id INT)")
    rows = conn.query("SELECT id FROM t")
    if rows:
        conn.exec("DELETE FROM t")
    for r in rows:
        print(r.id)
    print(rows.placeholder, conn.version())
`)
	var stdout bytes.Buffer
	res, err := runner.Evaluate(context.Background(), runner.Options{
		PlanFile: plan, DryRun: true, Predeclared: starlark.StringDict{"db": dbstar.Module},
		Targets: map[string]string{runner.DefaultTarget: "root:pw@tcp(127.0.0.1:1)/x"}, Stdout: &stdout, Stderr: &stdout,
	})
	if err != nil {
		t.Fatal(backtrace(err))
	}
	var texts []string
	for _, s := range res.Steps {
		texts = append(texts, s.Builtin+": "+s.Text)
	}
	want := []string{"db.connect: connect root:***@tcp(127.0.0.1:1)/x?timeout=10s", "db.exec: CREATE TABLE t (id INT)", "db.query: SELECT id FROM t", "db.version: SELECT VERSION()"}
	if strings.Join(texts, "\n") != strings.Join(want, "\n") {
		t.Errorf("steps:\n%s", strings.Join(texts, "\n"))
	}
	if len(res.Notes) != 2 || !strings.Contains(res.Notes[0], "plan.star:6:") || !strings.Contains(res.Notes[1], "iterated over") {
		t.Errorf("notes: %q", res.Notes)
	}
	if !strings.Contains(stdout.String(), "True 0.0.0-dry-run") {
		t.Errorf("placeholders: %q", stdout.String())
	}
}

// A password written in the plan is warned about; one given as a target
// is not.
func TestLiteralPasswordWarning(t *testing.T) {
	plan := writePlan(t, "def main(p):\n    db.connect(\"root:hunter22@tcp(127.0.0.1:1)/x\")\n")
	var stderr bytes.Buffer
	res, err := runner.Evaluate(context.Background(), runner.Options{
		PlanFile: plan, DryRun: true, Predeclared: starlark.StringDict{"db": dbstar.Module}, Stdout: &stderr, Stderr: &stderr,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "plan.star:2:15: a password is written in the plan") || strings.Contains(stderr.String(), "hunter22") {
		t.Errorf("warning: %q", stderr.String())
	}
	if len(res.Notes) != 1 {
		t.Errorf("the warning should be a note of the check: %q", res.Notes)
	}
}

func TestUnreachableTargetNamesItAndHidesPassword(t *testing.T) {
	plan := writePlan(t, "def main(p):\n    db.connect(\"main\")\n")
	r := evaluateWith(t, plan, runner.Options{
		Targets: map[string]string{"main": "root:hunter22@tcp(127.0.0.1:1)/x?timeout=2s"}, Secrets: []string{"hunter22"},
	})
	if r.Err == nil {
		t.Fatal("connecting to a closed port should fail")
	}
	msg := r.Res.Redact(backtrace(r.Err))
	for _, want := range []string{`db.connect: target "main" (root:***@tcp(127.0.0.1:1)/x?timeout=2s)`, "connection refused", "plan.star:2:15"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "hunter22") {
		t.Errorf("password in message: %s", msg)
	}
}

func evaluateWith(t *testing.T, plan string, opts runner.Options) plantest.Result {
	return evaluate(t, plan, "", opts)
}

// Several targets: db.connect() needs a name, and each name reaches its own server.
func TestNamedTargets(t *testing.T) {
	sandboxtest.Require(t)
	dsn, pw := mariadbTarget(t, "named")
	plan := writePlan(t, `
def main(p):
    a = db.connect("real")
    b = db.connect("mem")
    print(a.version(), "|", b.version())
    db.connect()
`)
	r := evaluateWith(t, plan, runner.Options{Targets: map[string]string{"real": dsn, "mem": "embedded"}, Secrets: []string{pw}})
	if r.Err == nil || !strings.Contains(r.Err.Error(), "several targets were given (mem, real)") {
		t.Fatalf("db.connect() with two targets: %v", r.Err)
	}
	if !strings.Contains(r.Stdout, "MariaDB") || !strings.Contains(r.Stdout, "| 8.0") {
		t.Errorf("output: %q", r.Stdout)
	}
}

// The sandbox target starts a private MariaDB for the run and removes it.
func TestSandboxTarget(t *testing.T) {
	sandboxtest.Require(t)
	plan := writePlan(t, `
def main(p):
    conn = db.connect()
    print(conn.version())
    print(conn.query("SELECT @@port AS port, @@datadir AS dir")[0].dir)
`)
	r := evaluateWith(t, plan, runner.Options{Targets: map[string]string{runner.DefaultTarget: "sandbox:mariadb"}})
	if r.Err != nil {
		t.Fatal(backtrace(r.Err))
	}
	lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "MariaDB") {
		t.Fatalf("output: %q", r.Stdout)
	}
	if _, err := os.Stat(lines[1]); !os.IsNotExist(err) {
		t.Errorf("sandbox data dir %s still exists after the run (%v)", lines[1], err)
	}
	data, _ := os.ReadFile(filepath.Join(r.Res.Dir, results.ManifestFile))
	if !strings.Contains(string(data), `"kind": "sandbox"`) || !strings.Contains(string(data), `"engine": "mariadb"`) {
		t.Errorf("manifest does not record the sandbox")
	}
}

// A dry run of conn.try_query lists the statement and cannot branch on the
// server's answer, which only a real run has.
func TestTryQueryInADryRun(t *testing.T) {
	plan := writePlan(t, `
def main(p):
    r = db.connect().try_query("SELECT * FROM information_schema.TIKV_REGION_STATUS")
    print("rows", r.rows)
    if r.ok:
        print("never")
`)
	r := evaluate(t, plan, "", runner.Options{DryRun: true})
	if r.Err == nil || !strings.Contains(r.Err.Error(), "db.try_query(...).ok is known only in a real run") {
		t.Fatalf("dry run branching on try_query's ok: %v\n%s", r.Err, r.Stdout)
	}
	if !strings.Contains(r.Stdout, "rows <rows: dry-run placeholder>") {
		t.Errorf("output:\n%s", r.Stdout)
	}
}
