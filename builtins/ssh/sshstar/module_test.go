package sshstar_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.starlark.net/starlark"
	"go.yaml.in/yaml/v3"

	"github.com/starbench/starbench/builtins/db/dbstar"
	"github.com/starbench/starbench/builtins/local/localstar"
	"github.com/starbench/starbench/builtins/ssh/sshstar"
	"github.com/starbench/starbench/builtins/yamlstar"
	"github.com/starbench/starbench/internal/results"
	"github.com/starbench/starbench/internal/testutil/plantest"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
	"github.com/starbench/starbench/internal/testutil/sshtest"
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

// tiup and TiDB cannot run here: a tiup stand-in on the test host records
// its arguments and prints what `tiup cluster display --format json`
// documents, pointing the "tidb" instance at a private MariaDB. Like tiup,
// it reads the topology file deploy names and runs $EDITOR on a file of its
// own for edit-config; it keeps copies of both in the test's directory, so
// what is checked is what this run gave tiup. The cluster name is unique,
// so the files tidb.star writes on the control host are this run's.
func TestTiDBDeployWithATiupStandIn(t *testing.T) {
	s := sshtest.Start(t)
	m := sandboxtest.Shared(t)
	host, port, _ := strings.Cut(m.Config().Addr, ":")
	dir := t.TempDir()
	name := fmt.Sprintf("sb%d", time.Now().UnixNano())
	topoPath, editPath := "/tmp/starbench-"+name+"-topology.yaml", "/tmp/starbench-"+name+"-edit.yaml"
	t.Cleanup(func() { os.Remove(topoPath); os.Remove(editPath) })
	argvLog := filepath.Join(dir, "argv.log")
	deployed, edited := filepath.Join(dir, "deployed.yaml"), filepath.Join(dir, "edited.yaml")
	display := fmt.Sprintf(`{"cluster_meta":{"cluster_type":"tidb","cluster_name":"%s","cluster_version":"v5.2.0","deploy_user":"tidb","ssh_type":"builtin","tls_enabled":false,"dashboard_url":"http://10.0.1.1:2379/dashboard"},
"instances":[{"id":"10.0.1.1:2379","role":"pd","host":"10.0.1.1","ports":"2379/2380","os_arch":"linux/x86_64","status":"Up|L|UI","since":"-","data_dir":"/tidb-data/pd-2379","deploy_dir":"/tidb-deploy/pd-2379","ComponentName":"pd","Port":2379},
{"id":"%s:%s","role":"tidb","host":"%s","ports":"%s/10080","os_arch":"linux/x86_64","status":"Up","since":"-","data_dir":"-","deploy_dir":"/tidb-deploy/tidb-4000","ComponentName":"tidb","Port":%s},
{"id":"10.0.1.4:20160","role":"tikv","host":"10.0.1.4","ports":"20160/20180","os_arch":"linux/x86_64","status":"Up","since":"-","data_dir":"/tidb-data/tikv-20160","deploy_dir":"/tidb-deploy/tikv-20160","ComponentName":"tikv","Port":20160}]}`,
		name, m.Config().Addr, port, host, port, port)
	os.WriteFile(filepath.Join(dir, "display.json"), []byte(display), 0o644)
	tiup := filepath.Join(dir, "tiup")
	os.WriteFile(tiup, []byte(fmt.Sprintf(`#!/bin/sh
printf '%%s\n' "$*" >> %[1]s
if [ -n "$EDITOR" ]; then echo "EDITOR=$EDITOR" >> %[1]s; fi
case "$*" in
  "cluster deploy "*) cp "$5" %[2]s ;;
  "cluster edit-config "*) $EDITOR %[3]s ;;
  *"display %[4]s --format json"*) cat %[5]s ;;
esac
`, argvLog, deployed, edited, name, filepath.Join(dir, "display.json"))), 0o755)
	r := run(t, fmt.Sprintf(`
load("@stdlib//tidb.star", "tidb")
def main(p):
    ctl = ssh.host(%s)
    topo = tidb.topology(pd = ["10.0.1.1"], tidb = ["10.0.1.2"], tikv = ["10.0.1.4"], server_configs = {"tikv": {"raftstore.apply-pool-size": 3}})
    cluster = tidb.deploy(ctl, name = %q, version = "v5.2.0", topology = topo, tiup = %q, wait = "10s")
    print("endpoints", cluster.endpoints())
    conn = cluster.connect(user = "root", password = %q, database = "sbtest")
    print("connected", conn.version())
    topo["tikv_servers"].append({"host": "10.0.1.5", "port": 20161})
    cluster.edit_config(topo)
    cluster.stop()
    cluster.start()
    cluster.destroy()
`, hostArgs(s), name, tiup, m.Password()), runner.Options{Secrets: []string{m.Password()}})
	if r.Err != nil {
		t.Fatal(plantest.Backtrace(r.Err))
	}
	if !strings.Contains(r.Stdout, fmt.Sprintf(`endpoints ["%s:%s"]`, host, port)) || !strings.Contains(r.Stdout, "connected 10.") {
		t.Errorf("output:\n%s", r.Stdout)
	}
	argv, _ := os.ReadFile(argvLog)
	lines := strings.Split(strings.TrimSpace(string(argv)), "\n")
	want := []string{
		"cluster deploy " + name + " v5.2.0 " + topoPath + " --yes",
		"cluster start " + name,
		"cluster display " + name + " --format json", // readiness
		"cluster display " + name + " --format json", // endpoints
		"cluster display " + name + " --format json", // connect
		"cluster edit-config " + name,
		"EDITOR=cp " + editPath,
		"cluster reload " + name + " --yes",
		"cluster stop " + name + " --yes",
		"cluster start " + name,
		"cluster destroy " + name + " --yes",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("tiup was called with:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	global := map[string]any{"user": "tidb", "ssh_port": 22, "deploy_dir": "/tidb-deploy", "data_dir": "/tidb-data"}
	configs := map[string]any{"tikv": map[string]any{"raftstore.apply-pool-size": 3}}
	checkYAML(t, deployed, map[string]any{
		"global": global, "server_configs": configs,
		"pd_servers":   []any{map[string]any{"host": "10.0.1.1"}},
		"tidb_servers": []any{map[string]any{"host": "10.0.1.2"}},
		"tikv_servers": []any{map[string]any{"host": "10.0.1.4"}},
	})
	checkYAML(t, edited, map[string]any{
		"global": global, "server_configs": configs,
		"pd_servers":   []any{map[string]any{"host": "10.0.1.1"}},
		"tidb_servers": []any{map[string]any{"host": "10.0.1.2"}},
		"tikv_servers": []any{map[string]any{"host": "10.0.1.4"}, map[string]any{"host": "10.0.1.5", "port": 20161}},
	})
}

// checkYAML fails unless the file (a copy the tiup stand-in made) parses
// as YAML into want.
func checkYAML(t *testing.T, path string, want map[string]any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("tiup was not given the file: %v", err)
	}
	var got map[string]any
	if err := yaml.Unmarshal(data, &got); err != nil {
		t.Fatalf("%s does not parse: %v\n%s", filepath.Base(path), err, data)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s is\n%s\nwant %v", filepath.Base(path), data, want)
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
