package sshstar_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"github.com/starbench/starbench/builtins/db/dbstar"
	"github.com/starbench/starbench/builtins/local/localstar"
	"github.com/starbench/starbench/builtins/plantest"
	"github.com/starbench/starbench/builtins/sandbox/sandboxtest"
	"github.com/starbench/starbench/builtins/ssh/sshstar"
	"github.com/starbench/starbench/builtins/ssh/sshtest"
	"github.com/starbench/starbench/builtins/yamlstar"
	"github.com/starbench/starbench/runner"
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
	recs, err := runner.ReadJournal(filepath.Join(r.Res.Dir, runner.JournalFile))
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

// tiup and TiDB cannot run here: a tiup stand-in on the test host records
// its arguments and prints what `tiup cluster display --format json`
// documents, pointing the "tidb" instance at a private MariaDB.
func TestTiDBDeployWithATiupStandIn(t *testing.T) {
	s := sshtest.Start(t)
	m := sandboxtest.Shared(t)
	host, port, _ := strings.Cut(m.Config().Addr, ":")
	dir := t.TempDir()
	argvLog := filepath.Join(dir, "argv.log")
	display := fmt.Sprintf(`{"cluster_meta":{"cluster_type":"tidb","cluster_name":"sb","cluster_version":"v5.2.0","deploy_user":"tidb","ssh_type":"builtin","tls_enabled":false,"dashboard_url":"http://10.0.1.1:2379/dashboard"},
"instances":[{"id":"10.0.1.1:2379","role":"pd","host":"10.0.1.1","ports":"2379/2380","os_arch":"linux/x86_64","status":"Up|L|UI","since":"-","data_dir":"/tidb-data/pd-2379","deploy_dir":"/tidb-deploy/pd-2379","ComponentName":"pd","Port":2379},
{"id":"%s:%s","role":"tidb","host":"%s","ports":"%s/10080","os_arch":"linux/x86_64","status":"Up","since":"-","data_dir":"-","deploy_dir":"/tidb-deploy/tidb-4000","ComponentName":"tidb","Port":%s},
{"id":"10.0.1.4:20160","role":"tikv","host":"10.0.1.4","ports":"20160/20180","os_arch":"linux/x86_64","status":"Up","since":"-","data_dir":"/tidb-data/tikv-20160","deploy_dir":"/tidb-deploy/tikv-20160","ComponentName":"tikv","Port":20160}]}`,
		m.Config().Addr, port, host, port, port)
	os.WriteFile(filepath.Join(dir, "display.json"), []byte(display), 0o644)
	tiup := filepath.Join(dir, "tiup")
	os.WriteFile(tiup, []byte(fmt.Sprintf(`#!/bin/sh
printf '%%s\n' "$*" >> %s
if [ -n "$EDITOR" ]; then echo "EDITOR=$EDITOR" >> %s; fi
case "$*" in
  *"display sb --format json"*) cat %s ;;
esac
`, argvLog, argvLog, filepath.Join(dir, "display.json"))), 0o755)
	r := run(t, fmt.Sprintf(`
load("@stdlib//tidb.star", "tidb")
def main(p):
    ctl = ssh.host(%s)
    topo = tidb.topology(pd = ["10.0.1.1"], tidb = ["10.0.1.2"], tikv = ["10.0.1.4"], server_configs = {"tikv": {"raftstore.apply-pool-size": 3}})
    cluster = tidb.deploy(ctl, name = "sb", version = "v5.2.0", topology = topo, tiup = %q, wait = "10s")
    print("endpoints", cluster.endpoints())
    conn = cluster.connect(user = "root", password = %q, database = "sbtest")
    print("connected", conn.version())
    cluster.edit_config(topo)
    cluster.stop()
    cluster.start()
    cluster.destroy()
`, hostArgs(s), tiup, m.Password()), runner.Options{Secrets: []string{m.Password()}})
	if r.Err != nil {
		t.Fatal(plantest.Backtrace(r.Err))
	}
	if !strings.Contains(r.Stdout, fmt.Sprintf(`endpoints ["%s:%s"]`, host, port)) || !strings.Contains(r.Stdout, "connected 10.") {
		t.Errorf("output:\n%s", r.Stdout)
	}
	argv, _ := os.ReadFile(argvLog)
	lines := strings.Split(strings.TrimSpace(string(argv)), "\n")
	want := []string{
		"cluster deploy sb v5.2.0 /tmp/starbench-sb-topology.yaml --yes",
		"cluster start sb",
		"cluster display sb --format json", // readiness
		"cluster display sb --format json", // endpoints
		"cluster display sb --format json", // connect
		"cluster edit-config sb",
		"EDITOR=cp /tmp/starbench-sb-edit.yaml",
		"cluster reload sb --yes",
		"cluster stop sb --yes",
		"cluster start sb",
		"cluster destroy sb --yes",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("tiup was called with:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	topo, _ := os.ReadFile("/tmp/starbench-sb-topology.yaml")
	if !strings.Contains(string(topo), "raftstore.apply-pool-size: 3") || !strings.Contains(string(topo), "tikv_servers:\n    - host: 10.0.1.4") {
		t.Errorf("topology file:\n%s", topo)
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
