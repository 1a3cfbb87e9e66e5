package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/internal/sandbox"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
	"github.com/starbench/starbench/runner/results"
)

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "starbench-cli-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "starbench")
	// Static, as the container image holds it (TestKubernetesJob runs it
	// in an empty root directory); with the agenttest tag, whose only
	// difference is the hook that moves an agent's clock
	// (agent_skew_hook.go), which the product binary lacks.
	build := exec.Command("go", "build", "-tags", "agenttest", "-o", binary, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build starbench:", err)
		os.Exit(1)
	}
	defer os.RemoveAll(dir)
	sandboxtest.Main(m)
}

type cliResult struct {
	code           int
	stdout, stderr string
}

// starbench runs the built binary from the repository root.
func starbench(t *testing.T, env []string, args ...string) cliResult {
	t.Helper()
	return starbenchIn(t, "../..", env, args...)
}

// starbenchIn runs the built binary in dir.
func starbenchIn(t *testing.T, dir string, env []string, args ...string) cliResult {
	t.Helper()
	return runBinary(t, binary, dir, env, args...)
}

// runBinary runs a starbench binary in dir.
func runBinary(t *testing.T, binary, dir string, env []string, args ...string) cliResult {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	r := cliResult{code: code, stdout: stdout.String(), stderr: stderr.String()}
	if strings.Contains(r.stderr, "goroutine ") || strings.Contains(r.stderr, "panic:") {
		t.Errorf("Go stack trace in output:\n%s", r.stderr)
	}
	return r
}

func expect(t *testing.T, r cliResult, code int, wants ...string) {
	t.Helper()
	if r.code != code {
		t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.stdout, r.stderr)
	}
	all := r.stdout + r.stderr
	for _, w := range wants {
		if !strings.Contains(all, w) {
			t.Errorf("output lacks %q\nstdout:\n%s\nstderr:\n%s", w, r.stdout, r.stderr)
		}
	}
}

func outDir(t *testing.T) string { return filepath.Join(t.TempDir(), "out") }

func TestQuickstartOnEmbeddedTarget(t *testing.T) {
	out := outDir(t)
	r := starbench(t, []string{"STARBENCH_TARGET="}, "run", "plans/quickstart.star", "--out", out)
	expect(t, r, 0, "Creating table 'sbtest2'...", "[ 2s ] thds: 4 tps:", "oltp_read_only, 2 tables x 1000 rows, 2s per level:",
		"threads  tps", "embedded go-mysql-server", "results: "+out+" (completed)")
	for _, step := range []string{"5-oltp_read_only-t1", "6-oltp_read_only-t2", "7-oltp_read_only-t4"} {
		if _, err := os.Stat(filepath.Join(out, "steps", step, "summary.json")); err != nil {
			t.Errorf("benchmark step folder: %v", err)
		}
	}
	data, err := os.ReadFile(filepath.Join(out, results.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	var m results.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for _, s := range m.Sources {
		names[s.Name] = s.SHA256
	}
	if len(names["plans/quickstart.star"]) != 64 || len(names["@stdlib//helpers.star"]) != 64 {
		t.Errorf("manifest sources: %v", names)
	}
	if m.Status != results.StatusCompleted || len(m.Banners) != 1 || m.Targets["default"] == nil || m.Host.CPUs == 0 {
		t.Errorf("manifest: status %s banners %d targets %v", m.Status, len(m.Banners), m.Targets)
	}
	if _, err := results.ReadJournal(filepath.Join(out, results.JournalFile)); err != nil {
		t.Error(err)
	}
}

func TestSyntaxErrorExits2WithPosition(t *testing.T) {
	r := starbench(t, nil, "run", "testdata/plans/syntax_error.star", "--out", outDir(t))
	expect(t, r, 2, "testdata/plans/syntax_error.star:3:1: got outdent, want ','")
	if strings.Contains(r.stderr, "Traceback") {
		t.Errorf("a syntax error needs no traceback:\n%s", r.stderr)
	}
	r = starbench(t, nil, "check", "testdata/plans/syntax_error.star")
	expect(t, r, 2, "syntax_error.star:3:1:")
}

func TestRuntimeErrorExits1WithBacktrace(t *testing.T) {
	out := outDir(t)
	r := starbench(t, nil, "run", "testdata/plans/runtime_error.star", "--out", out)
	expect(t, r, 1, "Traceback (most recent call last):",
		"testdata/plans/runtime_error.star:6:11: in main",
		"testdata/plans/runtime_error.star:2:14: in divide",
		"Error: floored division by zero", "results: "+out+" (failed)")
}

func TestBadParamsExit2AndListValidOnes(t *testing.T) {
	for _, p := range []string{"nope=1", "tables=many", "threads=1,two", "time=forever"} {
		r := starbench(t, nil, "run", "testdata/plans/params.star", "-p", p, "--out", outDir(t))
		expect(t, r, 2, "valid parameters:", "threads          list[int]", "time             duration", "tables           int", "client threads per level")
	}
	r := starbench(t, nil, "run", "testdata/plans/params.star", "-p", "threads=150,300,600", "-p", "time=300s", "--out", outDir(t))
	expect(t, r, 0, "threads=[150, 300, 600] time=300s tables=4 workload=oltp_read_only")
}

func TestUnreachableTargetExits1AndRedacts(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	r := starbench(t, nil, "run", "testdata/plans/connect_only.star", "--out", outDir(t),
		"--target", "root:Sup3rSecret@tcp("+addr+")/x?timeout=2s")
	expect(t, r, 1, `db.connect: target "default" (root:***@tcp(`+addr+`)/x?timeout=2s)`, "connection refused", "connect_only.star:2:22")
	if strings.Contains(r.stdout+r.stderr, "Sup3rSecret") {
		t.Errorf("password printed:\n%s", r.stderr)
	}
	r = starbench(t, nil, "run", "testdata/plans/connect_only.star", "--target", "root:Sup3rSecret@tcp(127.0.0.1:1/x")
	expect(t, r, 2, "--target root:***@")
	if strings.Contains(r.stdout+r.stderr, "Sup3rSecret") {
		t.Errorf("password printed for a bad DSN:\n%s", r.stderr)
	}
}

// The results folder of a run against a real server never holds its password.
func TestSQLErrorOnMariaDB(t *testing.T) {
	m := sandboxtest.Shared(t)
	out := outDir(t)
	r := starbench(t, nil, "run", "testdata/plans/sql_error.star", "--out", out, "--target", m.DSN())
	expect(t, r, 1, "testdata/plans/sql_error.star:4:14: in main", "conn.exec: mysql error 1146 (42S02): Table 'sbtest.missing_table' doesn't exist")
	if strings.Contains(r.stdout+r.stderr, m.Password()) {
		t.Errorf("password printed")
	}
	filepath.Walk(out, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			if data, _ := os.ReadFile(path); bytes.Contains(data, []byte(m.Password())) {
				t.Errorf("%s holds the password", path)
			}
		}
		return nil
	})
}

func TestInterruptExits130AndLeavesValidFiles(t *testing.T) {
	m := sandboxtest.Shared(t)
	out := outDir(t)
	cmd := exec.Command(binary, "run", "testdata/plans/sleep.star", "--out", out, "--target", m.DSN())
	cmd.Dir = "../.."
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() || lines.Text() != "sleeping" {
		t.Fatalf("plan did not start: %q %s", lines.Text(), stderr.String())
	}
	time.Sleep(300 * time.Millisecond) // let the SLEEP query reach the server
	start := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("exit: %v\n%s", err, stderr.String())
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("interrupt took %s", took)
	}
	data, err := os.ReadFile(filepath.Join(out, results.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	var man results.Manifest
	if err := json.Unmarshal(data, &man); err != nil || man.Status != results.StatusInterrupted {
		t.Fatalf("manifest: %v status %q", err, man.Status)
	}
	recs, err := results.ReadJournal(filepath.Join(out, results.JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(filepath.Join(out, results.JournalFile))
	if !bytes.HasSuffix(raw, []byte("\n")) {
		t.Errorf("journal does not end with a whole line")
	}
	var sawCancelled bool
	for _, rec := range recs {
		if rec.Event == "end" && rec.Builtin == "db.query" && rec.Outcome == "cancelled" {
			sawCancelled = true
		}
		if strings.Contains(rec.Text, "after_sleep") {
			t.Errorf("a step after the interrupt ran")
		}
	}
	if !sawCancelled || recs[len(recs)-1].Status != results.StatusInterrupted {
		t.Errorf("journal does not record the interrupted query and run:\n%s", raw)
	}
}

// countingListener accepts TCP connections and counts them.
func countingListener(t *testing.T) (string, *atomic.Int64) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return ln.Addr().String(), &n
}

func TestDryRunAndCheckOpenNoConnection(t *testing.T) {
	addr, accepted := countingListener(t)
	target := "root:pw@tcp(" + addr + ")/x"
	root := t.TempDir()
	for _, args := range [][]string{
		{"run", "testdata/plans/connect_only.star", "--dry-run", "--target", target},
		{"check", "testdata/plans/connect_only.star", "--target", target},
	} {
		r := starbench(t, []string{"TMPDIR=" + root}, args...)
		expect(t, r, 0, "3 steps; nothing was executed and no connection was opened",
			"1  db.connect", "connect root:***@tcp("+addr+")/x", "2  db.query", "SELECT 1 AS one",
			"3  db.exec", "CREATE TABLE t (id INT)", "connect_only.star:4:", "a placeholder result of step 2 (db.query)")
	}
	if n := accepted.Load(); n != 0 {
		t.Errorf("dry-run opened %d connections", n)
	}
	if _, err := os.Stat("../../results"); err == nil {
		entries, _ := os.ReadDir("../../results")
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), "-connect_only") {
				t.Errorf("dry-run wrote results/%s", e.Name())
			}
		}
	}
	r := starbench(t, nil, "check", "testdata/plans/params.star", "-p", "tables=8")
	expect(t, r, 0, "parameters:", "tables           int            = 8  (from -p)", "params.star: OK")
}

func TestSandboxTargetFromCLI(t *testing.T) {
	sandboxtest.Require(t)
	out := outDir(t)
	r := starbench(t, nil, "run", "plans/quickstart.star", "--target", "sandbox:mariadb", "--out", out, "-p", "table_size=500", "-p", "threads=2", "-p", "time=1s")
	expect(t, r, 0, "MariaDB", "Inserting 500 records into 'sbtest2'", "[ 1s ] thds: 2 tps:")
	if strings.Contains(r.stderr, "embedded go-mysql-server") {
		t.Errorf("the embedded banner was printed for a sandbox run")
	}
}

// --target sandbox:tidb runs on a private tidb-server (unistore); the
// manifest says so, and a tidb-server that is not there is one message
// saying how to get one.
func TestSandboxTiDBTargetFromCLI(t *testing.T) {
	sandboxtest.RequireTiDB(t)
	out := outDir(t)
	r := starbench(t, nil, "run", "plans/quickstart.star", "--target", "sandbox:tidb", "--out", out, "-p", "table_size=500", "-p", "threads=2", "-p", "time=1s")
	expect(t, r, 0, "Inserting 500 records into 'sbtest2'", "[ 1s ] thds: 2 tps:")
	if log, _ := os.ReadFile(filepath.Join(out, "output.log")); !strings.Contains(string(log), "started sandbox tidb 8.0.11-TiDB-") ||
		!strings.Contains(string(log), "unistore: one server, no PD, TiKV or BR") {
		t.Errorf("output.log does not say where the sandbox is:\n%s", log)
	}
	m, err := results.ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	if tg := m.Target("default"); tg.Kind != "sandbox" || tg.Engine != "tidb" || !strings.Contains(tg.ServerVersion, "TiDB") {
		t.Errorf("manifest target: %+v", tg)
	}

	r = starbench(t, []string{sandbox.TiDBServerEnv + "=/nonexistent/tidb-server"}, "run", "plans/quickstart.star", "--target", "sandbox:tidb", "--out", outDir(t))
	expect(t, r, 1, "start sandbox tidb: "+sandbox.TiDBServerEnv+"=/nonexistent/tidb-server: not an executable file")
	r = starbench(t, []string{sandbox.TiDBServerEnv + "=", "PATH=/usr/bin:/bin", "GOPATH=" + t.TempDir(), "HOME=" + t.TempDir(), "GOBIN="}, "run", "plans/quickstart.star", "--target", "sandbox:tidb", "--out", outDir(t))
	expect(t, r, 1, "tidb-server was not found", "tiup install tidb", "bash scripts/build-tidb.sh")
}

// A sysbench run on a server that lives for the command only prepares its
// tables first (there is no other way they could exist), saying so.
func TestSysbenchRunOnAThrowawayTarget(t *testing.T) {
	out := outDir(t)
	r := starbench(t, nil, "sysbench", "oltp_point_select", "--target", "embedded", "--table-size=100", "--events=50", "--time=0", "--out", out, "run")
	expect(t, r, 0, "note: --target embedded starts an empty server for this command only; preparing the tables first",
		"Inserting 100 records into 'sbtest1'", "total number of events:              50", "results: "+out+" (completed)")
	if strings.Contains(r.stdout, "Inserting") {
		t.Errorf("the prepare's lines went to stdout, among the run's report:\n%s", r.stdout)
	}
}

func TestHelpHasExamples(t *testing.T) {
	for _, cmd := range []string{"run", "check", "sysbench", "tpcc", "doc", "version"} {
		r := starbench(t, nil, cmd, "--help")
		expect(t, r, 0, "Examples:", "starbench "+cmd)
	}
	r := starbench(t, nil, "--help")
	expect(t, r, 0, "run", "check", "doc", "version")
}

func TestUsageErrorsExit2(t *testing.T) {
	expect(t, starbench(t, nil, "run"), 2, "needs exactly one plan file")
	expect(t, starbench(t, nil, "run", "a.star", "b.star"), 2, "needs exactly one plan file")
	expect(t, starbench(t, nil, "run", "plans/quickstart.star", "--bogus"), 2, "unknown flag: --bogus")
	expect(t, starbench(t, nil, "frobnicate"), 2, "unknown command")
	expect(t, starbench(t, nil, "run", "testdata/plans/nope.star"), 2, "cannot read plan")
	expect(t, starbench(t, nil, "run", "plans/quickstart.star", "--target", "sandbox:oracle"), 2, "unknown sandbox engine")
	expect(t, starbench(t, nil, "doc", "nosuchmodule"), 2, `no module or function "nosuchmodule"`)
	// TPC-C's tables do not load into the embedded server in useful time:
	// refused at once, saying where to run instead.
	expect(t, starbench(t, nil, "tpcc", "--target", "embedded", "--warehouses", "1", "--time", "1s", "run"), 2,
		"tpcc: the embedded server cannot load a TPC-C warehouse in useful time", "--target sandbox:mariadb")
	expect(t, starbench(t, nil, "ch", "--target", "embedded", "prepare"), 2, "ch: the embedded server cannot load")
	// A dry run refused before its first step says only why: no step list.
	for _, args := range [][]string{
		{"run", "plans/quickstart.star", "-p", "nosuch=1", "--dry-run"},
		{"mix", "plans/insert_hotspot_mix.star", "--mix", "nosuch", "--dry-run", "run"},
	} {
		r := starbench(t, nil, args...)
		expect(t, r, 2)
		if strings.Contains(r.stdout+r.stderr, "dry run (seed") {
			t.Errorf("%v printed a dry run's step list before its error:\n%s%s", args, r.stdout, r.stderr)
		}
	}
}

func TestDocAndVersion(t *testing.T) {
	r := starbench(t, nil, "doc")
	expect(t, r, 0, "params(name=default", "db.connect(dsn=None, database=None, create=False)", "conn.analyze(tables, parallel=1)")
	r = starbench(t, nil, "doc", "db", "--markdown")
	expect(t, r, 0, "### `db`", "- `conn.query(sql, *args)`:")
	if strings.Contains(r.stdout, "params(") {
		t.Errorf("doc db printed the language reference too")
	}
	expect(t, starbench(t, nil, "version"), 0, "starbench ", "go1.")
}

// The README's reference section is the output of `starbench doc --markdown`.
func TestReadmeReferenceIsCurrent(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "<!-- doc:begin -->\n")
	section, _, ok2 := strings.Cut(rest, "<!-- doc:end -->")
	if !ok || !ok2 {
		t.Fatal("README lacks the <!-- doc:begin --> ... <!-- doc:end --> markers")
	}
	r := starbench(t, nil, "doc", "--markdown")
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	if section != r.stdout {
		t.Errorf("README reference is stale; regenerate it with: go run ./cmd/starbench doc --markdown")
	}
}

// sysbench command lines as printed in reports run against a real server.
func TestSysbenchCommandLines(t *testing.T) {
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{})
	host, port, _ := strings.Cut(m.Config().Addr, ":")
	conn := []string{"--mysql-host=" + host, "--mysql-port=" + port, "--mysql-user=root", "--mysql-password=" + m.Password()}
	args := func(extra ...string) []string { return append(append([]string{"sysbench"}, conn...), extra...) }

	r := starbench(t, nil, args("--db-driver=mysql", "/usr/share/sysbench/oltp_read_write.lua", "--tables=2", "--table-size=500", "--threads=2", "prepare")...)
	expect(t, r, 0, "Creating table 'sbtest1'...", "Inserting 500 records into 'sbtest2'", "Creating a secondary index on 'sbtest2'...")
	r = starbench(t, nil, args("oltp_read_write", "--tables=2", "--table-size=500", "prepare")...)
	expect(t, r, 1, "tables already exist: sbtest.sbtest1, sbtest.sbtest2")
	r = starbench(t, nil, args("oltp_read_write", "--tables=2", "--table-size=500", "--threads=2", "prewarm")...)
	expect(t, r, 0, "Initializing worker threads...", "Prewarming table sbtest1", "Prewarming table sbtest2")

	out := outDir(t)
	r = starbench(t, nil, args("oltp_read_write", "--tables=2", "--table-size=500", "run", "--threads=2", "--time=2", "--report-interval=1", "--out", out)...)
	expect(t, r, 0, "Number of threads: 2", "[ 1s ] thds: 2 tps:", "[ 2s ] thds: 2 tps:", "SQL statistics:", "95th percentile:", "results: "+out+" (completed)")
	for _, f := range []string{"summary.json", "intervals.csv", "latency.hlog", "output.txt", "manifest.json"} {
		data, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Errorf("results folder lacks %s", f)
		}
		if bytes.Contains(data, []byte(m.Password())) {
			t.Errorf("%s holds the password", f)
		}
	}
	printed, _ := os.ReadFile(filepath.Join(out, "output.txt"))
	if !strings.Contains(r.stdout, string(printed)) || len(printed) < 500 {
		t.Errorf("output.txt is not what was printed (%d bytes)", len(printed))
	}
	if strings.Contains(r.stdout+r.stderr, m.Password()) {
		t.Errorf("password printed")
	}

	r = starbench(t, nil, args("oltp_read_write", "--tables=2", "cleanup")...)
	expect(t, r, 0, "Dropping table 'sbtest.sbtest1'...", "Dropping table 'sbtest.sbtest2'...")

	for _, bad := range [][]string{{"oltp_read_write", "run", "--threads=0"}, {"oltp_read_write", "run", "--rand-type=foo"},
		{"oltp_read_write", "run", "--tables=-1"}, {"oltp_read_write", "run", "--foo=1"}, {"oltp_nothing", "run"}} {
		r = starbench(t, nil, args(bad...)...)
		if r.code != 2 {
			t.Errorf("%v: exit %d, want 2\n%s", bad, r.code, r.stderr)
		}
	}
	expect(t, starbench(t, nil, "sysbench", "oltp_read_only", "help"), 0, "oltp_read_only options:", "--range_selects[=on|off]", "[10000]")
	expect(t, starbench(t, nil, "sysbench", "--help"), 0, "Sysbench runs sysbench command lines", "--rand-type", "--mysql-ignore-errors")
}

// The legacy scripts of seed 004 (oltp_legacy/insert.lua, bulk_insert.lua)
// with their command lines: legacy schema, one INSERT per event.
func TestSysbenchLegacyScripts(t *testing.T) {
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{})
	host, port, _ := strings.Cut(m.Config().Addr, ":")
	legacy := func(script string, extra ...string) []string {
		return append([]string{"sysbench", "--db-driver=mysql", "/usr/share/sysbench/tests/include/oltp_legacy/" + script,
			"--mysql-host=" + host, "--mysql-port=" + port, "--mysql-user=root", "--mysql-db=sbtest", "--mysql-password=" + m.Password(),
			"--oltp-test-mode=complex", "--oltp-tables-count=2", "--oltp-table-size=100"}, extra...)
	}
	expect(t, starbench(t, nil, legacy("insert.lua", "--threads=4", "prepare")...), 0,
		"Creating table 'sbtest1'...", "Inserting 100 records into 'sbtest2'", "Creating secondary indexes on 'sbtest2'...")
	out := outDir(t)
	expect(t, starbench(t, nil, legacy("insert.lua", "--threads=4", "--events=60", "--time=0", "--report-interval=5", "--out", out, "run")...), 0,
		"transactions:                        60 ", "write:                           60")
	ctx := context.Background()
	c, err := db.Open(ctx, m.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rs, err := c.Query(ctx, "SELECT (SELECT COUNT(*) FROM sbtest1) + (SELECT COUNT(*) FROM sbtest2)")
	if err != nil || rs.Rows[0][0] != int64(260) {
		t.Errorf("rows after 60 inserts: %v %v", rs, err)
	}
	ddl, err := c.Query(ctx, "SHOW CREATE TABLE sbtest1")
	if err != nil || !strings.Contains(fmt.Sprint(ddl.Rows[0][1]), "`id` int(10) unsigned NOT NULL AUTO_INCREMENT") ||
		!strings.Contains(fmt.Sprint(ddl.Rows[0][1]), "MAX_ROWS=1000000") {
		t.Errorf("legacy schema: %v %v", ddl, err)
	}
	expect(t, starbench(t, nil, legacy("insert.lua", "cleanup")...), 0, "Dropping table 'sbtest.sbtest1'...", "Dropping table 'sbtest.sbtest2'...")
	expect(t, starbench(t, nil, legacy("bulk_insert.lua", "--threads=2", "prepare")...), 0, "Creating table 'sbtest0'...", "Creating table 'sbtest1'...")
	expect(t, starbench(t, nil, legacy("bulk_insert.lua", "--threads=2", "--events=1000", "--time=0", "--out", outDir(t), "run")...), 0,
		"transactions:                        1000 ")
	// Each thread fills its own table; together they hold one row per event.
	rs, err = c.Query(ctx, "SELECT (SELECT COUNT(*) FROM sbtest0) + (SELECT COUNT(*) FROM sbtest1)")
	if err != nil || rs.Rows[0][0] != int64(1000) {
		t.Errorf("bulk_insert rows in sbtest0 and sbtest1: %v %v", rs, err)
	}
	expect(t, starbench(t, nil, legacy("bulk_insert.lua", "--threads=2", "cleanup")...), 0, "Dropping table 'sbtest.sbtest0'...")
}

func TestProgressViews(t *testing.T) {
	out := outDir(t)
	r := starbench(t, nil, "run", "plans/quickstart.star", "--out", out, "--progress=tty", "-p", "threads=1,2", "-p", "time=2s")
	expect(t, r, 0, "\r\x1b[K", "step 1/6 db.connect", "/6 oltp_read_only t2 | ", "step 6 ok: oltp_read_only at 2 threads:", "threads  tps")
	if strings.Contains(r.stdout, "SQL statistics:") {
		t.Errorf("the live view printed sysbench's report text")
	}
	logged, _ := os.ReadFile(filepath.Join(out, "output.log"))
	if !strings.Contains(string(logged), "SQL statistics:") || !strings.Contains(string(logged), "threads  tps") {
		t.Errorf("output.log lacks the benchmark output or the plan output")
	}
	r = starbench(t, nil, "run", "plans/quickstart.star", "--out", outDir(t), "--quiet", "-p", "threads=1", "-p", "time=1s")
	expect(t, r, 0, "threads  tps")
	if strings.Contains(r.stdout, "SQL statistics:") || strings.Contains(r.stdout, "\x1b[K") {
		t.Errorf("--quiet printed benchmark output:\n%s", r.stdout)
	}
	// Without a terminal, auto is plain: sysbench's own lines.
	r = starbench(t, nil, "run", "plans/quickstart.star", "--out", outDir(t), "-p", "threads=1", "-p", "time=1s")
	expect(t, r, 0, "[ 1s ] thds: 1 tps:", "SQL statistics:")
	expect(t, starbench(t, nil, "run", "plans/quickstart.star", "--progress=fancy"), 2, "unknown --progress")
}

// Seed 003 as a plan: the whole procedure (deploy through a control host,
// prepare, analyze, backup, restore before every level, destroy) lists in
// a dry run without touching a host.
func TestSeed003PlanDryRun(t *testing.T) {
	r := starbench(t, nil, "check", "plans/seed003_tidb_v520_vs_v511.star", "-p", "threads=150,300", "-p", "workloads=oltp_point_select,oltp_read_write")
	expect(t, r, 0, "plans/seed003_tidb_v520_vs_v511.star: OK",
		"ssh.host", "connect tidb@10.0.1.1:22",
		"ssh.write_file", "/tmp/starbench-sb-v5-1-1-topology.yaml",
		"tiup cluster deploy sb-v5-1-1 v5.1.1 /tmp/starbench-sb-v5-1-1-topology.yaml --yes",
		"tiup cluster start sb-v5-1-1",
		"haproxy -f /tmp/starbench-haproxy/haproxy.cfg", "ulimit -Hn", "mktemp -d",
		"SET GLOBAL tidb_hashagg_final_concurrency = 1;",
		// The plan connects to /test and then USEs sbtest: prepare, ANALYZE
		// and every run follow the handle into sbtest.
		"sysbench oltp_read_write --mysql-db=sbtest --profile=master --rand_type=uniform --table_size=10000000 --tables=16 --threads=16 prepare",
		"ANALYZE TABLE sbtest1, sbtest2",
		"sbtest16 (database sbtest)",
		"tiup cluster stop sb-v5-1-1 --yes",
		// The whole cluster's data: PD's directory with TiKV's, and the
		// tables' checksums compared after each restore.
		"cp -a /tidb-data/pd-2379 /tidb-data/pd-2379.starbench-snapshot",
		"cp -a /tidb-data/tikv-20160 /tidb-data/tikv-20160.starbench-snapshot",
		"rm -rf /tidb-data/pd-2379 && cp -a /tidb-data/pd-2379.starbench-snapshot /tidb-data/pd-2379",
		"rm -rf /tidb-data/tikv-20160 && cp -a /tidb-data/tikv-20160.starbench-snapshot /tidb-data/tikv-20160",
		"ADMIN CHECKSUM TABLE sbtest1, sbtest2,",
		"sysbench oltp_point_select --mysql-db=sbtest --profile=master --rand_type=uniform --report_interval=1 --table_size=10000000 --tables=16 --threads=300 --time=300 run",
		"tiup cluster destroy sb-v5-2-0 --yes",
		"write seed003.md, seed003.csv, seed003.html: qps, p95 by threads per version, source, a table per workload")
	// 2 versions x 2 workloads x 2 levels: 8 benchmark steps, each after a restore.
	if n := strings.Count(r.stdout, "sysbench.run"); n != 8 {
		t.Errorf("%d benchmark steps listed, want 8", n)
	}
	if n := strings.Count(r.stdout, "cp -a /tidb-data/tikv-20160.starbench-snapshot"); n != 8 {
		t.Errorf("%d restores listed, want 8", n)
	}
}

// Every file the README links to exists (the longer texts live in docs/).
func TestReadmeLinksResolve(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	links := regexp.MustCompile(`\]\(([^)#:]+)\)`).FindAllStringSubmatch(string(readme), -1)
	if len(links) < 2 {
		t.Fatalf("the README links to %d files: is the pattern right?", len(links))
	}
	for _, l := range links {
		if _, err := os.Stat(filepath.Join("../..", l[1])); err != nil {
			t.Errorf("the README links to %s: %v", l[1], err)
		}
	}
}
