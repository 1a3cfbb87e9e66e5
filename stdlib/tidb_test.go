package stdlib_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
	"go.starlark.net/starlark"

	"github.com/starbench/starbench/builtins/db/dbstar"
	"github.com/starbench/starbench/builtins/local/localstar"
	"github.com/starbench/starbench/builtins/yamlstar"
	"github.com/starbench/starbench/internal/sandbox"
	"github.com/starbench/starbench/internal/testutil/plantest"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
	"github.com/starbench/starbench/internal/testutil/tiupstub"
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
	texts := stepTexts(t, `
load("@stdlib//tidb.star", "tidb")
def main(p):
    conn = db.connect()
    tidb.set_global(conn, {"tidb_hashagg_final_concurrency": 1, "tidb_enable_async_commit": True, "tidb_txn_mode": "pessimistic"})
    tidb.split_table(conn, "sbtest1", 0, 1000000, 10)
    tidb.region_distribution(conn, "sbtest1")
    snap = tidb.backup(conn, "sbtest", "local:///data/backup")
    tidb.restore(conn, snap)
`)
	want := []string{
		"connect embedded",
		"SET GLOBAL tidb_hashagg_final_concurrency = 1;\nSET GLOBAL tidb_enable_async_commit = ON;\nSET GLOBAL tidb_txn_mode = 'pessimistic';",
		"SPLIT TABLE `sbtest1` BETWEEN (0) AND (1000000) REGIONS 10",
		"SELECT p.STORE_ID AS store, COUNT(DISTINCT s.REGION_ID) AS regions, COUNT(DISTINCT CASE WHEN p.IS_LEADER = 1 THEN s.REGION_ID END) AS leaders FROM information_schema.TIKV_REGION_STATUS s JOIN information_schema.TIKV_REGION_PEERS p ON s.REGION_ID = p.REGION_ID WHERE s.DB_NAME = ? AND s.TABLE_NAME = ? GROUP BY p.STORE_ID ORDER BY p.STORE_ID",
		"SELECT LABEL FROM information_schema.TIKV_STORE_STATUS",
		"BACKUP DATABASE `sbtest` TO 'local:///data/backup'",
		"DROP DATABASE IF EXISTS `sbtest`",
		"RESTORE DATABASE `sbtest` FROM 'local:///data/backup'",
	}
	if strings.Join(texts, "\n---\n") != strings.Join(want, "\n---\n") {
		t.Errorf("statements:\n%s", strings.Join(texts, "\n---\n"))
	}
}

// stepTexts runs a plan in a dry run and returns its steps' texts.
func stepTexts(t *testing.T, src string) []string {
	t.Helper()
	plan := filepath.Join(t.TempDir(), "plan.star")
	os.WriteFile(plan, []byte(src), 0o644)
	var out bytes.Buffer
	res, err := runner.Evaluate(context.Background(), runner.Options{PlanFile: plan, DryRun: true, Predeclared: modules, Stdlib: stdlib.FS, Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatal(plantest.Backtrace(err))
	}
	var texts []string
	for _, s := range res.Steps {
		texts = append(texts, s.Text)
	}
	return texts
}

// The commands the cluster procedures send tiup, as a dry run lists them:
// tiup's version checked once, files of their own for the topology,
// edit-config with --topology-file and --yes (no editor), readiness
// waits as long as any duration asks, in POSIX sh.
func TestTiDBClusterCommands(t *testing.T) {
	texts := stepTexts(t, `
load("@stdlib//tidb.star", "tidb")
def main(p):
    topo = tidb.topology(pd = ["10.0.1.1"], tidb = ["10.0.1.2"], tikv = ["10.0.1.4"])
    c = tidb.deploy(local, name = "sb", version = "v5.2.0", topology = topo, wait = "1h30m")
    c.wait_ready(90)
    c.wait_ready("250ms", interval = "1500ms")
    c.wait_ready("2m30s")
    c.edit_config(topo)
    c.clean("log")
    c.reload("tikv")
`)
	loop := func(seconds, every int) string {
		return fmt.Sprintf(`deadline=$(($(date +%%s) + %d)); while :; do if out=$(tiup cluster display sb --format json 2>/dev/null) && st=$(printf '%%s\n' "$out" | grep '"status":') && ! printf '%%s\n' "$st" | grep -qvE '"status": "(Up|Healthy)(\|L)?(\|UI)?"'; then exit 0; fi; if [ "$(date +%%s)" -gt "$deadline" ]; then exit 1; fi; sleep %d; done`, seconds, every)
	}
	display := "tiup cluster display sb --format json"
	want := []string{
		"tiup cluster --version",
		"mktemp /tmp/starbench-sb-topology.XXXXXXXX",
		"write /tmp/starbench-sb-topology.yaml (197 bytes)",
		"tiup cluster deploy sb v5.2.0 /tmp/starbench-sb-topology.yaml --yes && rm -f /tmp/starbench-sb-topology.yaml",
		"tiup cluster start sb",
		loop(5400, 2), display,
		// The configuration after deploy and after every reload, into the results folder;
		// after deploy's wait, SHOW CONFIG too.
		display, "connect root@tcp(10.0.1.2:4000)/test?timeout=10s",
		"files/tidb/sb/1-deploy-topology.yaml", display, "files/tidb/sb/1-deploy-display.json",
		"tiup cluster show-config sb", "files/tidb/sb/1-deploy-show-config.yaml",
		"SHOW CONFIG", "files/tidb/sb/1-deploy-show-config.tsv", "close db1",
		loop(90, 2), display,
		loop(1, 2), display, // 250ms and 1500ms round up to whole seconds
		loop(150, 2), display,
		"tiup cluster show-config sb", // the whole specification, which edit-config's file must keep
		"mktemp /tmp/starbench-sb-edit.XXXXXXXX",
		"write /tmp/starbench-sb-edit.yaml (197 bytes)",
		"tiup cluster edit-config sb --topology-file /tmp/starbench-sb-edit.yaml --yes && rm -f /tmp/starbench-sb-edit.yaml",
		"tiup cluster reload sb --yes",
		display, "files/tidb/sb/2-reload-display.json", "tiup cluster show-config sb", "files/tidb/sb/2-reload-show-config.yaml",
		"tiup cluster clean sb --log --yes",
		"tiup cluster reload sb -R tikv --yes",
		display, "files/tidb/sb/3-reload-display.json", "tiup cluster show-config sb", "files/tidb/sb/3-reload-show-config.yaml",
	}
	if strings.Join(texts, "\n") != strings.Join(want, "\n") {
		t.Errorf("steps:\n%s\nwant:\n%s", strings.Join(texts, "\n"), strings.Join(want, "\n"))
	}
	for _, text := range texts {
		if strings.Contains(text, "EDITOR") || strings.Contains(text, "/dev/tcp") {
			t.Errorf("step needs an editor or bash: %s", text)
		}
	}
}

// The readiness loop is POSIX sh: dash (Debian's /bin/sh) runs it against
// a display that shows a TiKV Down, then Up, and ends when all serve.
func TestTiDBReadinessLoopRunsInDash(t *testing.T) {
	requireDashAsSh(t)
	stub := tiupstub.New(t)
	dir := t.TempDir()
	topo := filepath.Join(dir, "topo.yaml")
	closed := closedPort(t)
	os.WriteFile(topo, []byte(fmt.Sprintf("pd_servers:\n  - host: 10.0.1.1\ntidb_servers:\n  - host: 127.0.0.1\n    port: %d\ntikv_servers:\n  - host: 10.0.1.4\n", closed)), 0o644)
	if r := stub.Run(t, "", []string{"SSH_AUTH_SOCK=" + dir}, "cluster", "deploy", "sb", "v5.2.0", topo, "--yes", "-p"); r.Code != 0 {
		t.Fatalf("deploy: %+v", r)
	}
	stub.Run(t, "", nil, "cluster", "start", "sb")
	stub.SetStatus(t, "sb", "10.0.1.4:20160", tiupstub.Status{Status: "Disconnected", UntilDisplays: 2, Then: "Up"})
	r := plantest.Evaluate(t, writePlan(t, fmt.Sprintf(`
load("@stdlib//tidb.star", "tidb")
def main(p):
    tidb.cluster(local, "sb", tiup = %q).wait_ready("30s", interval = 1, password = "unused")
`, stub.Tiup)), "", modules, runner.Options{})
	// wait_ready goes on to SQL on the TiDB server, which does not exist:
	// by then the loop has seen the TiKV Up.
	if ep := fmt.Sprintf("127.0.0.1:%d", closed); r.Err == nil || !strings.Contains(r.Err.Error(), ep) || !strings.Contains(r.Err.Error(), "connection refused") {
		t.Fatalf("want wait_ready to reach SQL on %s, got %v", ep, r.Err)
	}
	if n := stub.Displays(t, "sb"); n != 4 {
		t.Errorf("%d displays, want 4 (Disconnected, Disconnected, Up, then wait_ready's own)", n)
	}
}

// requireDashAsSh stops a test that proves a command runs in POSIX sh when
// /bin/sh (which local.run and sshd use) is not dash: a failure in CI,
// whose Debian machine has it, a skip elsewhere.
func requireDashAsSh(t *testing.T) {
	t.Helper()
	sh, err := filepath.EvalSymlinks("/bin/sh")
	if err == nil && filepath.Base(sh) == "dash" {
		return
	}
	msg := fmt.Sprintf("/bin/sh is %q (%v), not dash, so this test would not show the command runs in POSIX sh; install Debian's dash as /bin/sh", sh, err)
	if sandboxtest.InCI() {
		t.Fatal("CI=true: " + msg)
	}
	t.Skip(msg)
}

// closedPort returns a loopback port nothing listens on.
func closedPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}

func writePlan(t *testing.T, src string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "plan.star")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// region_distribution counts each region once per store, though
// TIKV_REGION_STATUS lists a region once for the table and once for each
// index in it; run on a real server against tables of TiDB's documented
// shape (a front relaying to MariaDB).
func TestTiDBRegionDistributionCountsEachRegionOnce(t *testing.T) {
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{})
	f := tiupstub.StartFront(t, m.Config(), nil)
	for _, q := range []string{
		// Region 1 holds rows of sbtest1 and of its index k_1; region 2
		// rows only; region 3 is another table's.
		"INSERT INTO " + f.Schema + ".tikv_region_status (REGION_ID, DB_NAME, TABLE_NAME, IS_INDEX, INDEX_NAME) VALUES " +
			"(1, 'sbtest', 'sbtest1', 0, NULL), (1, 'sbtest', 'sbtest1', 1, 'k_1'), (2, 'sbtest', 'sbtest1', 0, NULL), (3, 'sbtest', 'sbtest2', 0, NULL)",
		"INSERT INTO " + f.Schema + ".tikv_region_peers (REGION_ID, PEER_ID, STORE_ID, IS_LEADER) VALUES " +
			"(1, 11, 1, 1), (1, 12, 2, 0), (1, 13, 3, 0), (2, 21, 1, 0), (2, 22, 2, 1), (2, 23, 3, 0), (3, 31, 1, 1), (3, 32, 2, 0)",
	} {
		if _, err := f.DB.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	cfg := m.Config()
	cfg.Addr, cfg.DBName = f.Addr, "sbtest"
	r := plantest.Evaluate(t, writePlan(t, fmt.Sprintf(`
load("@stdlib//tidb.star", "tidb")
load(%q, "assert")
def main(p):
    got = tidb.region_distribution(db.connect(%q), "sbtest1")
    assert.eq(got, [{"store": 1, "regions": 2, "leaders": 1}, {"store": 2, "regions": 2, "leaders": 1}, {"store": 3, "regions": 2, "leaders": 0}], "distribution")
`, assertStar(t), cfg.FormatDSN())), "", modules, runner.Options{Secrets: []string{m.Password()}})
	if r.Err != nil {
		t.Fatal(plantest.Backtrace(r.Err))
	}
}

func assertStar(t *testing.T) string {
	abs, err := filepath.Abs("../testdata/lib/assert.star")
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// tidb.playground waits in POSIX sh (dash has no /dev/tcp) until the
// playground says it is ready, then checks over SQL that TiDB sees its
// TiKV stores Up. The playground is the tiup stand-in's; its TiDB, on port
// 4000 of a loopback address of its own, a front relaying to a private
// MariaDB whose root has no password, as a new TiDB's.
func TestTiDBPlaygroundWaitsInPOSIXShell(t *testing.T) {
	requireDashAsSh(t)
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{Database: "test"})
	cfg := m.Config()
	admin, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec("ALTER USER 'root'@'127.0.0.1' IDENTIFIED BY ''"); err != nil {
		t.Fatal(err)
	}
	admin.Close()
	cfg.Passwd = ""
	stub := tiupstub.New(t)
	stub.SetPlayground(t, tiupstub.PlaygroundPlan{ReadyAfter: 1500 * time.Millisecond})
	tag := fmt.Sprintf("pg%d", time.Now().UnixNano())
	host := freeLoopback(t, 4000)
	tiupstub.StartFrontAt(t, host+":4000", cfg, stub.PlaygroundStores(tag))
	r := plantest.Evaluate(t, writePlan(t, fmt.Sprintf(`
load("@stdlib//tidb.star", "tidb")
load(%q, "assert")
def main(p):
    pg = tidb.playground("v7.5.0", kv = 3, host = %q, tag = %q, tiup = %q, wait = "20s")
    assert.eq(pg.connect().query("SELECT DATABASE()")[0][0], "test", "database")
    pg.destroy()
`, assertStar(t), host, tag, stub.Tiup)), "", modules, runner.Options{})
	if r.Err != nil {
		t.Fatal(plantest.Backtrace(r.Err))
	}
	var started, cleaned bool
	for _, c := range stub.Calls(t) {
		args := strings.Join(c.Args, " ")
		started = started || args == "playground v7.5.0 --db 1 --kv 3 --pd 1 --tiflash 0 --host "+host+" --db.port 4000 --tag "+tag+" --without-monitor"
		cleaned = cleaned || (args == "clean "+tag && strings.Contains(c.Stdout, "Kill instance of `playground`"))
	}
	if !started || !cleaned {
		t.Errorf("playground started %v, cleaned %v: %+v", started, cleaned, stub.Calls(t))
	}
}

// freeLoopback returns an address 127.x.y.z whose port is free.
func freeLoopback(t *testing.T, port int) string {
	t.Helper()
	seed := time.Now().UnixNano()
	for i := int64(0); i < 20; i++ {
		host := fmt.Sprintf("127.%d.%d.%d", 10+(seed+i)%200, 1+(seed/7+i)%250, 1+(seed/13+i)%250)
		if l, err := net.Listen("tcp", fmt.Sprintf("%s:%d", host, port)); err == nil {
			l.Close()
			return host
		}
	}
	t.Fatalf("no loopback address with port %d free", port)
	return ""
}

// deploy refuses a tiup-cluster older than v1.8.0 (no edit-config
// --topology-file), reading the version line tiup-cluster prints (cobra's
// "tiup version X tiup"); a tiup here is a script printing that line.
func TestTiDBRefusesAnOldTiup(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ says, want string }{
		{"tiup version 1.7.0 tiup\nGo Version: go1.17.2", "tiup-cluster 1.7.0 is too old: starbench uses `tiup cluster edit-config --topology-file` and `display --format json`, which need v1.8.0 or later"},
		{"something else", "cannot read the version in the output of"},
	} {
		tiup := filepath.Join(dir, "tiup")
		os.WriteFile(tiup, []byte(fmt.Sprintf("#!/bin/sh\nprintf '%%s\\n' %q\n", c.says)), 0o755)
		r := plantest.Evaluate(t, writePlan(t, fmt.Sprintf(`
load("@stdlib//tidb.star", "tidb")
def main(p):
    tidb.deploy(local, name = "sb", version = "v5.2.0", tiup = %q,
                topology = tidb.topology(pd = ["10.0.1.1"], tidb = ["10.0.1.2"], tikv = ["10.0.1.4"]))
`, tiup)), "", modules, runner.Options{})
		if r.Err == nil || !strings.Contains(r.Err.Error(), c.want) {
			t.Errorf("tiup saying %q: want an error saying %q, got %v", c.says, c.want, r.Err)
		}
	}
}

// A tiup that exits 0 and prints nothing is no answer in a real run: each
// procedure fails naming the command, instead of taking the empty output
// for a dry run's (wait_ready passing with nothing checked, say). The same
// plan's dry run lists its steps.
func TestTiDBFailsWhenTiupPrintsNothing(t *testing.T) {
	tiup := filepath.Join(t.TempDir(), "tiup")
	if err := os.WriteFile(tiup, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ call, want string }{
		{`tidb.deploy(local, name = "sb", version = "v5.2.0", tiup = TIUP, topology = tidb.topology(pd = ["10.0.1.1"], tidb = ["10.0.1.2"], tikv = ["10.0.1.4"]))`,
			"`" + tiup + " cluster --version` printed nothing"},
		{`tidb.cluster(local, "sb", tiup = TIUP).wait_ready("1s", interval = 1)`, "`" + tiup + " cluster display sb --format json` printed nothing"},
		{`tidb.cluster(local, "sb", tiup = TIUP).data_dirs()`, "`" + tiup + " cluster display sb --format json` printed nothing"},
		{`tidb.cluster(local, "sb", tiup = TIUP).connect()`, "`" + tiup + " cluster display sb --format json` printed nothing"},
	} {
		plan := writePlan(t, fmt.Sprintf("load(\"@stdlib//tidb.star\", \"tidb\")\nTIUP = %q\ndef main(p):\n    %s\n", tiup, c.call))
		if r := plantest.Evaluate(t, plan, "", modules, runner.Options{}); r.Err == nil || !strings.Contains(r.Err.Error(), c.want) {
			t.Errorf("%s: want an error saying %q, got %v", c.call, c.want, r.Err)
		}
		if r := plantest.Evaluate(t, plan, "", modules, runner.Options{DryRun: true}); r.Err != nil {
			t.Errorf("%s: dry run: %v", c.call, plantest.Backtrace(r.Err))
		}
	}
}

// A dry run's data_dirs() lays the directories out from the topology as
// tiup does; compared with what the tiup stand-in (which follows tiup's
// spec.setCustomDefaults) displays after a real deploy of the same
// topology: relative and absolute data_dir of an instance, none with an
// absolute or a relative global data_dir, an instance's own deploy_dir.
func TestTiDBDryRunDataDirsAsTiupLaysThemOut(t *testing.T) {
	stub := tiupstub.New(t)
	key := identityFile(t)
	for _, global := range []string{"/tidb-data", "data"} {
		plan := writePlan(t, fmt.Sprintf(`
load("@stdlib//tidb.star", "tidb")
TOPO = tidb.topology(
    pd = [{"host": "10.0.1.1"}, {"host": "10.0.1.2", "client_port": 2479, "data_dir": "pd-own"}],
    tidb = ["10.0.1.3"],
    tikv = [{"host": "10.0.1.4"}, {"host": "10.0.1.5", "data_dir": "/nvme/tikv"},
            {"host": "10.0.1.6", "deploy_dir": "/opt/kv", "data_dir": "kvdata"}, {"host": "10.0.1.7", "deploy_dir": "kvhome"}],
    data_dir = %q)
def main(p):
    c = tidb.deploy(local, name = "dirs", version = "v5.2.0", topology = TOPO, identity_file = %q, tiup = %q, wait = None)
    print("dirs", json.encode(sorted(c.data_dirs())))
    c.destroy()
`, global, key, stub.Tiup))
		real, dry := realAndDry(t, plan)
		if got, want := printedLine(dry, "dirs "), printedLine(real, "dirs "); got != want || !strings.Contains(want, "10.0.1.6") {
			t.Errorf("global data_dir %q: dry run's data_dirs\n  %s\ntiup's\n  %s", global, got, want)
		}
	}
}

// edit_config sends tiup its own whole specification with what
// edit-config may change taken from the topology (tiup keeps the old
// topology when any other field differs, and a file built from the
// topology alone differs in every directory and arch); a topology with
// other instances or hosts fails before tiup is asked.
func TestTiDBEditConfigKeepsTiupsSpecification(t *testing.T) {
	stub := tiupstub.New(t)
	key := identityFile(t)
	src := fmt.Sprintf(`
load("@stdlib//tidb.star", "tidb")
load(%q, "assert")
def topo(kv):
    return tidb.topology(pd = ["10.0.1.1"], tidb = ["10.0.1.2"], tikv = kv, data_dir = "data",
                         server_configs = {"tikv": {"storage.block-cache.capacity": "4GB"}})
def main(p):
    c = tidb.deploy(local, name = "ed", version = "v5.2.0", topology = topo(["10.0.1.4", "10.0.1.5"]),
                    identity_file = %q, tiup = %q, wait = None)
    edited = topo(["10.0.1.4", {"host": "10.0.1.5", "numa_node": "1", "config": {"server.grpc-concurrency": 8}}])
    edited["server_configs"]["tikv"]["storage.block-cache.capacity"] = "8GB"
    c.edit_config(edited)
    shown = yaml.decode(c.show_config())
    assert.eq(shown["server_configs"]["tikv"]["storage.block-cache.capacity"], "8GB", "server_configs")
    assert.eq(shown["tikv_servers"][1].get("numa_node"), "1", "numa_node")
    assert.eq(shown["tikv_servers"][1]["data_dir"], "/tidb-deploy/tikv-20160/data", "data_dir, as tiup laid it out")
    WHAT
`, assertStar(t), key, stub.Tiup)
	r := plantest.Evaluate(t, writePlan(t, strings.Replace(src, "WHAT", "c.destroy()", 1)), "", modules, runner.Options{})
	if r.Err != nil {
		t.Fatal(plantest.Backtrace(r.Err))
	}
	for _, c := range []struct{ call, want string }{
		{`c.edit_config(topo(["10.0.1.4", "10.0.1.5", "10.0.1.6"]))`, "the topology has 3 tikv_servers, the cluster 2: adding or removing instances takes tiup cluster scale-out or scale-in"},
		{`c.edit_config(topo(["10.0.1.4", "10.0.1.9"]))`, "tikv_servers 2 is on 10.0.1.5 in the cluster and on 10.0.1.9 in the topology"},
	} {
		plan := strings.Replace(strings.Replace(src, "WHAT", c.call, 1), `name = "ed"`, fmt.Sprintf(`name = "ed%d"`, len(c.want)), 1)
		if r := plantest.Evaluate(t, writePlan(t, plan), "", modules, runner.Options{}); r.Err == nil || !strings.Contains(r.Err.Error(), c.want) {
			t.Errorf("%s: want an error saying %q, got %v", c.call, c.want, r.Err)
		}
	}
}

// metrics_endpoints reads the status ports off tiup's display (the stand-in
// lists each instance's ports in tiup's UsedPorts order), and a dry run
// gives the same from the topology: TiDB's and TiKV's status ports, PD's
// client port, node_exporter on every host.
func TestTiDBMetricsEndpointsFromDisplay(t *testing.T) {
	stub := tiupstub.New(t)
	key := identityFile(t)
	plan := writePlan(t, fmt.Sprintf(`
load("@stdlib//tidb.star", "tidb")
TOPO = tidb.topology(
    pd = [{"host": "10.0.1.1"}, {"host": "10.0.1.2", "client_port": 2479}],
    tidb = ["10.0.1.3", {"host": "10.0.1.3", "port": 4001, "status_port": 10081}],
    tikv = [{"host": "10.0.1.4"}, {"host": "10.0.1.4", "port": 20161, "status_port": 20181}],
    monitoring = ["10.0.1.9"])
def main(p):
    c = tidb.deploy(local, name = "metrics", version = "v5.2.0", topology = TOPO, identity_file = %q, tiup = %q, wait = None)
    print("endpoints", json.encode(sorted([e["name"] + " " + e["url"] for e in c.metrics_endpoints()])))
    print("tikv", json.encode([e["url"] for e in c.metrics_endpoints(roles = ["tikv"], node_exporter_port = None)]))
    c.destroy()
`, key, stub.Tiup))
	real, dry := realAndDry(t, plan)
	for _, want := range []string{
		"tidb-10.0.1.3_10080 http://10.0.1.3:10080/metrics", "tidb-10.0.1.3_10081 http://10.0.1.3:10081/metrics",
		"tikv-10.0.1.4_20180 http://10.0.1.4:20180/metrics", "tikv-10.0.1.4_20181 http://10.0.1.4:20181/metrics",
		"pd-10.0.1.1_2379 http://10.0.1.1:2379/metrics", "pd-10.0.1.2_2479 http://10.0.1.2:2479/metrics",
		"node-10.0.1.9 http://10.0.1.9:9100/metrics", "node-10.0.1.4 http://10.0.1.4:9100/metrics",
	} {
		if !strings.Contains(printedLine(real, "endpoints "), want) {
			t.Errorf("from tiup's display: %s lacks %q", printedLine(real, "endpoints "), want)
		}
	}
	if got, want := printedLine(dry, "endpoints "), printedLine(real, "endpoints "); got != want {
		t.Errorf("the dry run's endpoints\n  %s\ntiup's\n  %s", got, want)
	}
	if got := printedLine(real, "tikv "); got != `tikv ["http://10.0.1.4:20180/metrics","http://10.0.1.4:20181/metrics"]` {
		t.Errorf("TiKV's alone: %s", got)
	}
	// A role whose metrics port it does not know is refused, not guessed.
	other := writePlan(t, `
load("@stdlib//tidb.star", "tidb")
def main(p):
    c = tidb.deploy(local, name = "metrics", version = "v5.2.0", topology = tidb.topology(pd = ["10.0.1.1"], tidb = ["10.0.1.3"], tikv = ["10.0.1.4"]))
    c.metrics_endpoints(roles = ["tiflash"])
`)
	r := plantest.Evaluate(t, other, "", modules, runner.Options{DryRun: true})
	if r.Err == nil || !strings.Contains(plantest.Backtrace(r.Err), `metrics_endpoints knows the status ports of tidb, tikv and pd, not "tiflash"`) {
		t.Errorf("roles=[\"tiflash\"]: %v", r.Err)
	}
}

// identityFile is a new private key for deploy's identity_file: the test
// fails in CI, and is skipped elsewhere, without ssh-keygen.
func identityFile(t *testing.T) string {
	t.Helper()
	key := filepath.Join(t.TempDir(), "id_ed25519")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key).CombinedOutput(); err != nil {
		msg := fmt.Sprintf("ssh-keygen (Debian's openssh-client) is needed: %v %s", err, out)
		if sandboxtest.InCI() {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return key
}

// realAndDry runs a plan for real, then as a dry run, and returns what
// each printed.
func realAndDry(t *testing.T, plan string) (real, dry string) {
	t.Helper()
	r := plantest.Evaluate(t, plan, "", modules, runner.Options{})
	if r.Err != nil {
		t.Fatal(plantest.Backtrace(r.Err))
	}
	d := plantest.Evaluate(t, plan, "", modules, runner.Options{DryRun: true})
	if d.Err != nil {
		t.Fatal(plantest.Backtrace(d.Err))
	}
	return r.Stdout, d.Stdout
}

// printedLine is the first line of out that starts with prefix, "(none)"
// when there is none.
func printedLine(out, prefix string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return "(none)"
}

// tidb.save_config saves what the server's version offers: on TiDB 3.0
// (a front answering as v3.0.5, where SHOW CONFIG is a syntax error, as
// on the real 3.0) the status port's /config, never sending SHOW CONFIG;
// from v4.0 SHOW CONFIG. check_version says whether the server runs the
// report's release.
func TestTiDBSaveConfigByVersion(t *testing.T) {
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{})
	old := tiupstub.StartFront(t, m.Config(), nil)
	old.Version = "5.7.25-TiDB-v3.0.5"
	current := tiupstub.StartFront(t, m.Config(), nil)
	current.Version = "5.7.25-TiDB-v4.0.13"
	current.Config = func() ([]tiupstub.ConfigRow, error) {
		return []tiupstub.ConfigRow{{Type: "tikv", Instance: "10.0.1.7:20160", Name: "raftstore.capacity", Value: "1TB"}}, nil
	}
	const settings = `{"host":"0.0.0.0","log":{"level":"error"},"performance":{"max-procs":0}}`
	status := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/config" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, settings)
	}))
	defer status.Close()
	dsn := func(addr string) string {
		cfg := m.Config()
		cfg.Addr, cfg.DBName = addr, "sbtest"
		return cfg.FormatDSN()
	}
	r := plantest.Evaluate(t, writePlan(t, fmt.Sprintf(`
load("@stdlib//tidb.star", "tidb")
load(%q, "assert")
def main(p):
    old = db.connect(%q)
    refused = old.try_query("SHOW CONFIG")
    assert.eq(refused.code, 1064, "SHOW CONFIG on 3.0")
    assert.eq(tidb.save_config(old, "old", status = %q), "files/config/old-tidb-config.json", "3.0's file")
    assert.true(tidb.check_version(old, "v3.0.5", "seed001"), "3.0.5 is 3.0.5")
    assert.true(not tidb.check_version(old, "v4.0.13", "seed004"), "3.0.5 is not 4.0.13")
    new = db.connect(%q)
    assert.eq(tidb.save_config(new, "new"), "files/config/new-show-config.tsv", "4.0's file")
    assert.eq(tidb.save_config(db.connect(%q), "mariadb"), None, "not TiDB")
`, assertStar(t), dsn(old.Addr), strings.TrimPrefix(status.URL, "http://"), dsn(current.Addr), dsn(m.Config().Addr))), "", modules, runner.Options{Secrets: []string{m.Password()}})
	if r.Err != nil {
		t.Fatalf("%s\n%s", plantest.Backtrace(r.Err), r.Stdout)
	}
	files := filepath.Join(r.Res.Dir, "files", "config")
	if got, err := os.ReadFile(filepath.Join(files, "old-tidb-config.json")); err != nil || string(got) != settings {
		t.Errorf("3.0's settings: %q (%v), want the status port's", got, err)
	}
	if got, err := os.ReadFile(filepath.Join(files, "new-show-config.tsv")); err != nil || !strings.Contains(string(got), "tikv\t10.0.1.7:20160\traftstore.capacity\t1TB\n") {
		t.Errorf("4.0's SHOW CONFIG: %q (%v)", got, err)
	}
	for _, want := range []string{"old runs TiDB 3.0.5, which has no SHOW CONFIG (it came in v4.0): saved the TiDB server's settings from http://",
		"seed001: the target runs TiDB v3.0.5, the report's version",
		"seed004: note: the target runs 5.7.25-TiDB-v3.0.5, not the report's TiDB v4.0.13",
		"tidb.save_config: mariadb runs " + m.Version} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.Stdout)
		}
	}
}
