package stdlib_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.starlark.net/starlark"

	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/builtins/db/dbstar"
	"github.com/starbench/starbench/builtins/local/localstar"
	"github.com/starbench/starbench/builtins/sysbench/sysbenchstar"
	"github.com/starbench/starbench/internal/sandbox"
	"github.com/starbench/starbench/internal/testutil/plantest"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
	"github.com/starbench/starbench/runner"
)

// requireHAProxy finds Debian's haproxy, or skips (fails under CI=true).
func requireHAProxy(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"haproxy", "/usr/sbin/haproxy"} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	if sandboxtest.InCI() {
		t.Fatal("CI=true and haproxy is needed: apt-get install haproxy (make test does as root)")
	}
	t.Skip("skipping: haproxy is not installed (apt-get install haproxy)")
	return ""
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func comSelect(t *testing.T, m *sandbox.MariaDB) int64 {
	t.Helper()
	c, err := db.Open(context.Background(), m.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rs, err := c.Query(context.Background(), "SHOW GLOBAL STATUS LIKE 'Com_select'")
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.ParseInt(fmt.Sprint(rs.Rows[0][1]), 10, 64)
	return n
}

// haproxy.start with its defaults in front of two private MariaDB servers,
// on a host whose open-file limit cannot hold HAProxy's old fixed maxconn
// of 20,000 (40,025 files): a workload through it reaches both servers,
// and one server stopped mid-run is reconnected around.
func TestHAProxyInFrontOfTwoServers(t *testing.T) {
	bin := requireHAProxy(t)
	servers := []*sandbox.MariaDB{sandboxtest.Fresh(t, sandbox.MariaDBOptions{}), sandboxtest.Fresh(t, sandbox.MariaDBOptions{})}
	var endpoints []string
	for _, m := range servers {
		c, err := db.Open(context.Background(), m.Config())
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{"CREATE USER 'bench'@'%' IDENTIFIED BY 'hp-secret'", "GRANT ALL ON *.* TO 'bench'@'%'"} {
			if _, err := c.Exec(context.Background(), q); err != nil {
				t.Fatal(err)
			}
		}
		c.Close()
		endpoints = append(endpoints, m.Config().Addr)
	}
	port := freePort(t)
	dir := t.TempDir()
	modules := starlark.StringDict{"db": dbstar.Module, "local": localstar.Module, "sysbench": sysbenchstar.Module}
	plan := filepath.Join(dir, "proxy.star")
	os.WriteFile(plan, []byte(fmt.Sprintf(`
load("@stdlib//haproxy.star", "haproxy")
def main(p):
    for ep in %s:
        sysbench.prepare(db.connect("bench:hp-secret@tcp(%%s)/sbtest" %% ep), tables = 1, table_size = 1000)
    proxy = haproxy.start(local, %s, bind = "127.0.0.1:%d", haproxy = %q, connections = 64)
    haproxy.check(local, haproxy = %q)
    print("maxconn", proxy.maxconn)
    print("threads", proxy.threads)
    print("pid", proxy.pid)
    via = db.connect("bench:hp-secret@tcp(127.0.0.1:%d)/sbtest")
    r = sysbench.run(via, "oltp_point_select", threads = 4, time = "3s", tables = 1, table_size = 1000)
    print("events", r.events)
`, starList(endpoints), starList(endpoints), port, bin, bin, port)), 0o644)
	before := []int64{comSelect(t, servers[0]), comSelect(t, servers[1])}
	r := plantest.Evaluate(t, plan, "", modules, runner.Options{})
	if pid := regexp.MustCompile(`(?m)^pid (\S+)$`).FindStringSubmatch(r.Stdout); pid != nil {
		t.Cleanup(func() { _ = exec.Command("sh", "-c", "kill $(cat "+pid[1]+")").Run() })
	}
	if r.Err != nil {
		t.Fatalf("%s\n%s", plantest.Backtrace(r.Err), r.Stdout)
	}
	// With its defaults, maxconn is the old fixed 20,000 lowered to what
	// this host's hard open-file limit carries (20,000 here: the old
	// config asked for 40,025 and HAProxy refused to start).
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	wantMaxconn := int64(20000)
	if lim.Max < 1<<40 {
		wantMaxconn = min(wantMaxconn, (int64(lim.Max)-64-2*2)/2)
	}
	if !strings.Contains(r.Stdout, fmt.Sprintf("maxconn %d\n", wantMaxconn)) {
		t.Errorf("maxconn sized to the hard limit %d: want %d\n%s", lim.Max, wantMaxconn, r.Stdout)
	}
	// Its threads are the host's CPUs, and the config says so; check
	// found the binary and printed its version.
	nproc, err := exec.Command("nproc").Output()
	if err != nil {
		t.Fatal(err)
	}
	cpus := strings.TrimSpace(string(nproc))
	if !strings.Contains(r.Stdout, "threads "+cpus+"\n") || !regexp.MustCompile(`haproxy: \S*haproxy on .* \(HAProxy? version `).MatchString(r.Stdout) {
		t.Errorf("want threads %s and the version HAProxy printed:\n%s", cpus, r.Stdout)
	}
	for i, m := range servers {
		if d := comSelect(t, m) - before[i]; d < 100 {
			t.Errorf("server %d got %d SELECTs through the proxy", i+1, d)
		}
	}

	// One server stopped mid-run: the run reconnects around it.
	// (and a second proxy started and stopped: stop returns once it has
	// let go of its port.)
	port2 := freePort(t)
	plan2 := filepath.Join(dir, "failover.star")
	os.WriteFile(plan2, []byte(fmt.Sprintf(`
load("@stdlib//haproxy.star", "haproxy")
def main(p):
    via = db.connect("bench:hp-secret@tcp(127.0.0.1:%d)/sbtest")
    r = sysbench.run(via, "oltp_point_select", threads = 4, time = "6s", tables = 1, table_size = 1000, report_interval = 1)
    print("events", r.events, "reconnects", r.reconnects, "errors", r.errors)
    other = haproxy.start(local, [%q], bind = "127.0.0.1:%d", haproxy = %q)
    other.stop()
`, port, endpoints[0], port2, bin)), 0o644)
	before0 := comSelect(t, servers[0])
	done := make(chan plantest.Result, 1)
	go func() { done <- plantest.Evaluate(t, plan2, "", modules, runner.Options{}) }()
	time.Sleep(2 * time.Second)
	if err := servers[1].Kill(); err != nil {
		t.Fatal(err)
	}
	r = <-done
	if r.Err != nil {
		t.Fatalf("the run did not survive a stopped server: %s\n%s", plantest.Backtrace(r.Err), r.Stdout)
	}
	m := regexp.MustCompile(`events (\d+) reconnects (\d+) errors (\d+)`).FindStringSubmatch(r.Stdout)
	if m == nil {
		t.Fatalf("no result line:\n%s", r.Stdout)
	}
	if reconnects, _ := strconv.Atoi(m[2]); reconnects < 1 {
		t.Errorf("no reconnect after a server was stopped:\n%s", r.Stdout)
	}
	if d := comSelect(t, servers[0]) - before0; d < 100 {
		t.Errorf("the server left got %d SELECTs", d)
	}
	if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port2)); err == nil {
		c.Close()
		t.Errorf("a stopped proxy still listens on %d", port2)
	}
}

// A plan that asks for more connections than the host's open-file limit
// can carry through HAProxy fails before starting it, naming the limit.
func TestHAProxyRefusesTooManyConnections(t *testing.T) {
	dir := t.TempDir()
	r := localPlan(t, fmt.Sprintf(`
    haproxy.start(local, ["127.0.0.1:1"], bind = "127.0.0.1:1", path = %q, connections = 1200, fd_limit = 1024)
`, filepath.Join(dir, "haproxy.cfg")))
	want := "haproxy.start: the plan opens 1200 connections through HAProxy, and the open-file limit (ulimit -Hn 1024) lets it carry 479"
	if r.Err == nil || !strings.Contains(r.Err.Error(), want) {
		t.Fatalf("want %q, got %v", want, r.Err)
	}
	if _, err := os.Stat(filepath.Join(dir, "haproxy.cfg")); err == nil {
		t.Error("a config was written")
	}
}

// localPlan runs a plan whose main is body (indented), with the haproxy
// helper loaded and the local module predeclared.
func localPlan(t *testing.T, body string) plantest.Result {
	t.Helper()
	plan := filepath.Join(t.TempDir(), "plan.star")
	if err := os.WriteFile(plan, []byte("load(\"@stdlib//haproxy.star\", \"haproxy\")\ndef main(p):"+body), 0o644); err != nil {
		t.Fatal(err)
	}
	return plantest.Evaluate(t, plan, "", starlark.StringDict{"local": localstar.Module}, runner.Options{})
}

// starList is a Starlark list of strings.
func starList(items []string) string {
	quoted := make([]string, len(items))
	for i, s := range items {
		quoted[i] = strconv.Quote(s)
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}

// The config's nbthread is the threads asked for; check fails at once,
// saying what to install, when the binary is not on the host.
func TestHAProxyThreadsAndCheck(t *testing.T) {
	dir := t.TempDir()
	r := localPlan(t, fmt.Sprintf(`
    print(haproxy.config(["127.0.0.1:1"], threads = 6))
    proxy = haproxy.start(local, ["127.0.0.1:1"], bind = "127.0.0.1:1", path = %q, haproxy = "true", threads = 3, fd_limit = 4096)
    print("threads", proxy.threads)
    haproxy.check(local, haproxy = "/nonexistent/haproxy")
`, filepath.Join(dir, "haproxy.cfg")))
	want := "haproxy.check: /nonexistent/haproxy is not installed on"
	if r.Err == nil || !strings.Contains(r.Err.Error(), want) || !strings.Contains(r.Err.Error(), "apt-get install haproxy") {
		t.Fatalf("want %q, got %v", want, r.Err)
	}
	if !strings.Contains(r.Stdout, "    nbthread 6\n") || !strings.Contains(r.Stdout, "threads 3\n") {
		t.Errorf("config and start's threads:\n%s", r.Stdout)
	}
	cfg, err := os.ReadFile(filepath.Join(dir, "haproxy.cfg"))
	if err != nil || !strings.Contains(string(cfg), "    nbthread 3\n") {
		t.Errorf("the written config (%v):\n%s", err, cfg)
	}
}
