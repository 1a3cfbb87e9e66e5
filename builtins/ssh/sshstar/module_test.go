package sshstar_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"go.starlark.net/starlark"
	"go.yaml.in/yaml/v3"

	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/builtins/db/dbstar"
	"github.com/starbench/starbench/builtins/local/localstar"
	"github.com/starbench/starbench/builtins/ssh/sshstar"
	"github.com/starbench/starbench/builtins/yamlstar"
	"github.com/starbench/starbench/internal/testutil/plantest"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
	"github.com/starbench/starbench/internal/testutil/sshtest"
	"github.com/starbench/starbench/internal/testutil/tiupstub"
	"github.com/starbench/starbench/runner"
	"github.com/starbench/starbench/runner/results"
)

func TestMain(m *testing.M) { sandboxtest.Main(m) }

var modules = starlark.StringDict{"ssh": sshstar.Module, "db": dbstar.Module, "local": localstar.Module, "yaml": yamlstar.Module}

// hostArgs is the Starlark call of ssh.host for a test server.
func hostArgs(s *sshtest.Server) string {
	return fmt.Sprintf("%q, key_file = %q, known_hosts = %q", s.User+"@"+s.Addr, s.KeyFile, s.KnownHosts)
}

func assertStar(t *testing.T) string {
	abs, err := filepath.Abs("../../../testdata/lib/assert.star")
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

func writePlan(t *testing.T, src string) string {
	path := filepath.Join(t.TempDir(), "plan.star")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func run(t *testing.T, src string, opts runner.Options) plantest.Result {
	t.Helper()
	return plantest.Evaluate(t, writePlan(t, src), "", modules, opts)
}

func TestHostRunFilesAndGroups(t *testing.T) {
	a, b := sshtest.Start(t), sshtest.Start(t)
	dir := t.TempDir()
	r := run(t, fmt.Sprintf(`
load("%s", "assert")
def main(p):
    h = ssh.host(%s)
    g = ssh.group([h, ssh.host(%s)])
    r = h.run("echo out; echo err >&2")
    assert.eq((r.exit_code, r.stdout, r.stderr, r.ok), (0, "out\n", "err\n", True), "run")
    assert.eq(h.run("exit 4", check = False).exit_code, 4, "exit code")
    assert.eq(h.run("printf %%s \"$X\"", env = {"X": "it's $HOME"}).stdout, "it's $HOME", "env")
    h.write_file(%q, "line 1\n", mode = 0o600)
    assert.eq(h.read_file(%q), "line 1\n", "write/read")
    assert.eq(h.run("stat -c %%a " + ssh.quote(%q)).stdout.strip(), "600", "mode")
    local.write_file(%q, "payload")
    h.upload(%q, %q)
    h.download(%q, %q)
    assert.eq(local.read_file(%q), "payload", "upload/download")
    results = g.run("echo $((6 * 7))")
    assert.eq([x.stdout for x in results], ["42\n", "42\n"], "group")
    assert.eq(ssh.quote("a b'c"), "'a b'\\''c'", "quote")
    assert.eq(h.run("printf %%s " + ssh.quote_args(["a b", "it's"])).stdout, "a bit's", "quote_args")
`, assertStar(t), hostArgs(a), hostArgs(b),
		filepath.Join(dir, "w.txt"), filepath.Join(dir, "w.txt"), filepath.Join(dir, "w.txt"),
		filepath.Join(dir, "src"), filepath.Join(dir, "src"), filepath.Join(dir, "up"), filepath.Join(dir, "up"), filepath.Join(dir, "down"), filepath.Join(dir, "down")),
		runner.Options{})
	if r.Err != nil {
		t.Fatal(plantest.Backtrace(r.Err))
	}
	recs, err := results.ReadJournal(filepath.Join(r.Res.Dir, results.JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, rec := range recs {
		if rec.Event == "start" && strings.HasPrefix(rec.Builtin, "ssh.") {
			ids = append(ids, rec.ID+"="+rec.Builtin)
		}
	}
	if got := strings.Join(ids, " "); !strings.Contains(got, "1=ssh.host 2=ssh.host 3=ssh.run") || !strings.Contains(got, "=ssh.group_run") || !strings.Contains(got, ".1=ssh.run") {
		t.Errorf("journal steps: %s", got)
	}
	logged, _ := os.ReadFile(filepath.Join(r.Res.Dir, "output.log"))
	if !strings.Contains(string(logged), "[step 3] "+a.User+"@"+a.Addr+": out") {
		t.Errorf("output lines not streamed into output.log:\n%s", logged)
	}
}

func TestCheckFailureShowsCommandCodeAndStderr(t *testing.T) {
	s := sshtest.Start(t)
	r := run(t, fmt.Sprintf("def main(p):\n    ssh.host(%s).run(\"echo nope >&2; exit 5\")\n", hostArgs(s)), runner.Options{})
	msg := plantest.Backtrace(r.Err)
	for _, want := range []string{"host.run:", "command exited with code 5: echo nope >&2; exit 5", "nope", "plan.star:2:"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
}

func TestUnknownHostKeyIsRefused(t *testing.T) {
	s := sshtest.Start(t)
	empty := filepath.Join(t.TempDir(), "known_hosts")
	os.WriteFile(empty, nil, 0o644)
	r := run(t, fmt.Sprintf("def main(p):\n    ssh.host(%q, key_file = %q, known_hosts = %q)\n", s.User+"@"+s.Addr, s.KeyFile, empty), runner.Options{})
	if r.Err == nil || !strings.Contains(r.Err.Error(), empty) {
		t.Fatalf("want a host key error naming %s, got %v", empty, r.Err)
	}
	r = run(t, fmt.Sprintf("def main(p):\n    print(ssh.host(%q, key_file = %q, known_hosts = %q, insecure_ignore_host_key = True).run(\"echo ok\").stdout)\n",
		s.User+"@"+s.Addr, s.KeyFile, empty), runner.Options{})
	if r.Err != nil || !strings.Contains(r.Stdout, "warning: ") || !strings.Contains(r.Stdout, "host key checking is off") {
		t.Errorf("insecure: %v\n%s", r.Err, r.Stdout)
	}
}

// tiup and TiDB cannot run here. The control host runs the tiup stand-in
// (internal/testutil/tiupstub), which keeps tiup v1.16.5's command line,
// over the real sshd; the cluster's TiDB server is a front that relays to a
// private MariaDB and answers information_schema.TIKV_STORE_STATUS from the
// stand-in's state. The cluster name is unique, so the files tidb.star
// writes on the control host are this run's.
func TestTiDBClusterWithTheTiupStandIn(t *testing.T) {
	s := sshtest.Start(t)
	m := sandboxtest.Shared(t)
	stub := tiupstub.New(t)
	name := fmt.Sprintf("sb%d", time.Now().UnixNano())
	front := tiupstub.StartFront(t, m.Config(), stub.ClusterStores(name))
	host, port, _ := net.SplitHostPort(front.Addr)
	created := name + "_db"
	// A fresh TiDB has a database test; so has the server behind the front.
	mustExec(t, m.Config(), "CREATE DATABASE IF NOT EXISTS test")
	t.Cleanup(func() { mustExec(t, m.Config(), "DROP DATABASE IF EXISTS "+created) })
	// One TiKV comes up late: Down for the first two displays.
	stub.SetStatus(t, name, "10.0.1.5:20160", tiupstub.Status{Status: "Down", UntilDisplays: 2, Then: "Up"})
	r := run(t, fmt.Sprintf(`
load("@stdlib//tidb.star", "tidb")
load(%q, "assert")
def main(p):
    ctl = ssh.host(%s)
    topo = tidb.topology(pd = ["10.0.1.1"], tidb = [{"host": %q, "port": %s}], tikv = ["10.0.1.4", "10.0.1.5"],
                         server_configs = {"tikv": {"raftstore.apply-pool-size": 3}})
    cluster = tidb.deploy(ctl, name = %q, version = "v5.2.0", topology = topo, identity_file = %q, tiup = %q, wait = None)
    cluster.wait_ready("1m", interval = 1, password = %q)
    print("endpoints", cluster.endpoints())
    conn = cluster.connect(password = %q)
    assert.eq(conn.query("SELECT DATABASE()")[0][0], "test", "connect()'s database")
    made = cluster.connect(password = %q, database = %q, create = True)
    assert.eq(made.query("SELECT DATABASE()")[0][0], %q, "connect(create = True)'s database")
    topo["server_configs"]["tikv"]["raftstore.apply-pool-size"] = 4
    cluster.edit_config(topo)
    assert.contains(cluster.show_config(), "raftstore.apply-pool-size: 4", "show-config after edit_config")
    cluster.stop()
    cluster.start()
    cluster.destroy()
`, assertStar(t), hostArgs(s), host, port, name, s.KeyFile, stub.Tiup, m.Password(), m.Password(), m.Password(), created, created),
		runner.Options{Secrets: []string{m.Password()}})
	if r.Err != nil {
		t.Fatal(plantest.Backtrace(r.Err))
	}
	if !strings.Contains(r.Stdout, fmt.Sprintf(`endpoints ["%s"]`, front.Addr)) {
		t.Errorf("output:\n%s", r.Stdout)
	}

	// What tiup was called with, in order (the readiness loop displays
	// until the late TiKV is Up: twice Down, once Up).
	calls := stub.Calls(t)
	var got []string
	var deployCall, editCall, shownBeforeEdit tiupstub.Call
	for _, c := range calls {
		if c.Editor != "" {
			t.Errorf("tiup was run with EDITOR=%s: %v", c.Editor, c.Args)
		}
		if c.ExitCode != 0 {
			t.Errorf("tiup %v exited %d:\n%s%s", c.Args, c.ExitCode, c.Stdout, c.Stderr)
		}
		got = append(got, strings.Join(c.Args, " "))
		switch {
		case len(c.Args) > 1 && c.Args[1] == "deploy":
			deployCall = c
		case len(c.Args) > 1 && c.Args[1] == "edit-config":
			editCall = c
		case len(c.Args) > 1 && c.Args[1] == "show-config" && editCall.Args == nil:
			shownBeforeEdit = c
		}
	}
	if len(deployCall.Args) < 5 || len(editCall.Args) < 4 {
		t.Fatalf("no deploy or edit-config among the calls:\n%s", strings.Join(got, "\n"))
	}
	topoPath, editPath := deployCall.Args[4], editCall.Args[4]
	display := "cluster display " + name + " --format json"
	want := []string{
		"cluster --version",
		"cluster deploy " + name + " v5.2.0 " + topoPath + " --yes -i " + s.KeyFile,
		"cluster start " + name,
		display, "cluster show-config " + name, // deploy's configuration, saved
		display, display, // the readiness loop: Down (the display saved after deploy was the first Down), Up
		display,                       // wait_ready's own look
		display,                       // endpoints
		display,                       // connect
		display,                       // connect(create = True)
		"cluster show-config " + name, // the whole specification edit-config compares with
		"cluster edit-config " + name + " --topology-file " + editPath + " --yes",
		"cluster reload " + name + " --yes",
		display, "cluster show-config " + name, // the reloaded configuration, saved
		"cluster show-config " + name,
		"cluster stop " + name + " --yes",
		"cluster start " + name,
		"cluster destroy " + name + " --yes",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("tiup was called with:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Files of their own, named after the cluster, gone once tiup took them.
	for _, p := range []struct{ path, what string }{{topoPath, "topology"}, {editPath, "edit"}} {
		if !regexp.MustCompile(`^/tmp/starbench-` + name + `-` + p.what + `\.[A-Za-z0-9]{8}$`).MatchString(p.path) {
			t.Errorf("%s file %s is not a fresh file named after the cluster", p.what, p.path)
		}
		if _, err := os.Stat(p.path); !os.IsNotExist(err) {
			t.Errorf("%s is still there (%v)", p.path, err)
		}
	}
	// The topology files tiup read and checked.
	global := map[string]any{"user": "tidb", "ssh_port": 22, "deploy_dir": "/tidb-deploy", "data_dir": "/tidb-data"}
	servers := func(kvPool int) map[string]any {
		portNum, _ := strconv.Atoi(port)
		return map[string]any{
			"global": global, "server_configs": map[string]any{"tikv": map[string]any{"raftstore.apply-pool-size": kvPool}},
			"pd_servers":   []any{map[string]any{"host": "10.0.1.1"}},
			"tidb_servers": []any{map[string]any{"host": host, "port": portNum}},
			"tikv_servers": []any{map[string]any{"host": "10.0.1.4"}, map[string]any{"host": "10.0.1.5"}},
		}
	}
	checkYAML(t, "deploy's topology", deployCall.Topology, servers(3))
	// edit-config's file is tiup's whole specification (as show-config
	// printed it) with the one setting changed: tiup keeps the old
	// topology when any field it does not let edit-config change differs.
	var shown map[string]any
	if err := yaml.Unmarshal([]byte(shownBeforeEdit.Stdout), &shown); err != nil || shown["tidb_servers"] == nil {
		t.Fatalf("show-config before edit-config: %v\n%s", err, shownBeforeEdit.Stdout)
	}
	shown["server_configs"] = servers(4)["server_configs"]
	// Editable fields the topology does not give go back to their
	// defaults (tiup fills ssh_port from global).
	for _, section := range []string{"pd_servers", "tidb_servers", "tikv_servers"} {
		for _, inst := range shown[section].([]any) {
			delete(inst.(map[string]any), "ssh_port")
		}
	}
	checkYAML(t, "edit-config's topology", editCall.Topology, shown)
	if !strings.Contains(editCall.Stdout, "Applied successfully") {
		t.Errorf("edit-config did not apply:\n%s%s", editCall.Stdout, editCall.Stderr)
	}
	if stub.Deployed(name) {
		t.Error("the cluster is still deployed after destroy")
	}
	// The configurations after deploy and after the reload are in the
	// results folder and its manifest: tiup's own outputs, as it printed them.
	data, err := os.ReadFile(filepath.Join(r.Res.Dir, results.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	var manifest results.Manifest
	if err := json.Unmarshal(data, &manifest); err != nil {
		t.Fatal(err)
	}
	var saved []string
	for _, f := range manifest.Files {
		saved = append(saved, f.Stored)
	}
	prefix := "files/tidb/" + name + "/"
	wantSaved := []string{prefix + "1-deploy-topology.yaml", prefix + "1-deploy-display.json", prefix + "1-deploy-show-config.yaml",
		prefix + "2-reload-display.json", prefix + "2-reload-show-config.yaml"}
	if strings.Join(saved, "\n") != strings.Join(wantSaved, "\n") {
		t.Errorf("saved files:\n%s\nwant:\n%s", strings.Join(saved, "\n"), strings.Join(wantSaved, "\n"))
	}
	reloaded, _ := os.ReadFile(filepath.Join(r.Res.Dir, prefix+"2-reload-show-config.yaml"))
	deployed, _ := os.ReadFile(filepath.Join(r.Res.Dir, prefix+"1-deploy-show-config.yaml"))
	if !strings.Contains(string(reloaded), "raftstore.apply-pool-size: 4") || !strings.Contains(string(deployed), "raftstore.apply-pool-size: 3") {
		t.Errorf("show-config after deploy:\n%s\nafter the reload:\n%s", deployed, reloaded)
	}
	if displayed, _ := os.ReadFile(filepath.Join(r.Res.Dir, prefix+"1-deploy-display.json")); !strings.Contains(string(displayed), `"cluster_meta"`) {
		t.Errorf("display after deploy:\n%s", displayed)
	}
}

// wait_ready names every instance that is not serving (tiup's statuses
// beyond Down: Offline, Tombstone, ...) once its timeout (any duration)
// is over, and fails when TiDB does not see every TiKV store Up.
func TestTiDBWaitReadyNamesWhatIsNotReady(t *testing.T) {
	s := sshtest.Start(t)
	m := sandboxtest.Shared(t)
	stub := tiupstub.New(t)
	name := fmt.Sprintf("sb%d", time.Now().UnixNano())
	front := tiupstub.StartFront(t, m.Config(), stub.ClusterStores(name))
	host, port, _ := net.SplitHostPort(front.Addr)
	stub.SetStatus(t, name, "10.0.1.4:20160", tiupstub.Status{Status: "Tombstone"})
	stub.SetStatus(t, name, "10.0.1.5:20160", tiupstub.Status{Status: "Offline"})
	plan := fmt.Sprintf(`
load("@stdlib//tidb.star", "tidb")
def main(p):
    ctl = ssh.host(%s)
    topo = tidb.topology(pd = ["10.0.1.1"], tidb = [{"host": %q, "port": %s}], tikv = ["10.0.1.4", "10.0.1.5"])
    cluster = tidb.deploy(ctl, name = %q, version = "v5.2.0", topology = topo, identity_file = %q, tiup = %q, wait = "0.05m")
`, hostArgs(s), host, port, name, s.KeyFile, stub.Tiup)
	start := time.Now()
	r := run(t, plan, runner.Options{})
	want := "cluster " + name + " not ready after 0.05m: tikv 10.0.1.4:20160 is Tombstone, tikv 10.0.1.5:20160 is Offline"
	if r.Err == nil || !strings.Contains(r.Err.Error(), want) {
		t.Fatalf("want an error saying %q, got %v", want, r.Err)
	}
	if d := time.Since(start); d < 3*time.Second {
		t.Errorf("gave up after %v, before its timeout of 3s", d)
	}

	// tiup says Up, but TiDB's view of one store is not.
	stub.SetStatus(t, name, "10.0.1.4:20160", tiupstub.Status{Status: "Up"})
	stub.SetStatus(t, name, "10.0.1.5:20160", tiupstub.Status{Status: "Up", Store: "Disconnected"})
	r = run(t, fmt.Sprintf(`
load("@stdlib//tidb.star", "tidb")
def main(p):
    tidb.cluster(ssh.host(%s), %q, tiup = %q).wait_ready(5, password = %q)
`, hostArgs(s), name, stub.Tiup, m.Password()), runner.Options{Secrets: []string{m.Password()}})
	want = "cluster " + name + " not ready: TiDB " + front.Addr + " sees 1 of 2 TiKV stores Up in information_schema.TIKV_STORE_STATUS: 10.0.1.5:20160 is Disconnected"
	if r.Err == nil || !strings.Contains(r.Err.Error(), want) {
		t.Fatalf("want an error saying %q, got %v", want, r.Err)
	}
}

func mustExec(t *testing.T, cfg *mysql.Config, stmt string) {
	t.Helper()
	c, err := db.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Exec(context.Background(), stmt); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
}

// checkYAML fails unless text (a file the tiup stand-in was given)
// parses as YAML into want.
func checkYAML(t *testing.T, what, text string, want map[string]any) {
	t.Helper()
	var got map[string]any
	if err := yaml.Unmarshal([]byte(text), &got); err != nil {
		t.Fatalf("%s does not parse: %v\n%s", what, err, text)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s is\n%s\nwant %v", what, text, want)
	}
}

// datadir.star: stop, copy the data directories, start; restore puts the
// copy back, over real SSH, on several hosts at once.
func TestDataDirSnapshotOverSSH(t *testing.T) {
	a, b := sshtest.Start(t), sshtest.Start(t)
	dirA, dirB := filepath.Join(t.TempDir(), "data"), filepath.Join(t.TempDir(), "data")
	for _, d := range []string{dirA, dirB} {
		os.MkdirAll(filepath.Join(d, "sub"), 0o755)
		os.WriteFile(filepath.Join(d, "sub", "f"), []byte("original"), 0o600)
	}
	r := run(t, fmt.Sprintf(`
load("@stdlib//datadir.star", "datadir")
load(%q, "assert")
events = []
def main(p):
    a, b = ssh.host(%s), ssh.host(%s)
    snap = datadir.snapshot([a, b], [%q, %q], stop = lambda: events.append("stop"), start = lambda: events.append("start"))
    a.run("echo changed > %s/sub/f; touch %s/new")
    b.run("rm -rf %s/sub")
    datadir.restore(snap)
    assert.eq(a.read_file("%s/sub/f"), "original", "a restored")
    assert.eq(b.read_file("%s/sub/f"), "original", "b restored")
    assert.eq(a.run("test -e %s/new", check = False).exit_code, 1, "new files gone")
    assert.eq(a.run("stat -c %%a %s/sub/f").stdout.strip(), "600", "modes kept")
    assert.eq(events, ["stop", "start", "stop", "start"], "stop and start around each copy")
`, assertStar(t), hostArgs(a), hostArgs(b), dirA, dirB, dirA, dirA, dirB, dirA, dirB, dirA, dirA), runner.Options{})
	if r.Err != nil {
		t.Fatal(plantest.Backtrace(r.Err))
	}
}
