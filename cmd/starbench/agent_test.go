package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/starbench/starbench/internal/sandbox"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
	"github.com/starbench/starbench/internal/testutil/sshtest"
	"github.com/starbench/starbench/runner/results"
)

// agentPlan runs one oltp_point_select part per client host, at once, as
// one step.
const agentPlan = `
params(dsn = "", hosts = [""], keys = [""], known = [""], time = 3, policy = "fail", threads = 2, prepare = True, cpus = "",
       again = False)

def main(p):
    conn = db.connect(p.dsn)
    if p.prepare:
        sysbench.prepare(conn, tables = 1, table_size = 2000)
    parts = []
    for i in range(len(p.hosts)):
        h = ssh.host(p.hosts[i], key_file = p.keys[i], known_hosts = p.known[i])
        parts.append(sysbench.part(conn, "oltp_point_select", tables = 1, table_size = 2000, threads = p.threads,
                                   time = p.time, rand_seed = 7, client = h, cpus = p.cpus if i == 0 and p.cpus else None))
    r = bench.together(parts, on_part_failure = p.policy)
    for x in r.parts:
        print("part", x.name, x.status, x.error)
    if p.again:
        r = bench.together(parts, time = "1s", on_part_failure = p.policy, name = "again")
        print("again:", [x.status for x in r.parts])
`

// clientHosts are sshd servers standing in for client hosts: each has a
// home of its own (its per-user cache), and env for its sessions.
type clientHosts struct {
	servers []*sshtest.Server
	homes   []string
}

func startClientHosts(t *testing.T, n int, env func(i int) map[string]string) *clientHosts {
	t.Helper()
	h := &clientHosts{}
	for i := 0; i < n; i++ {
		home := t.TempDir()
		e := map[string]string{"HOME": home}
		if env != nil {
			for k, v := range env(i) {
				e[k] = v
			}
		}
		h.servers = append(h.servers, sshtest.StartWith(t, sshtest.Options{Env: e}))
		h.homes = append(h.homes, home)
	}
	t.Cleanup(func() { h.killAgents() })
	return h
}

// params are the plan's -p values for the hosts.
func (h *clientHosts) params() []string {
	var hosts, keys, known []string
	for _, s := range h.servers {
		hosts = append(hosts, s.User+"@"+s.Addr)
		keys = append(keys, s.KeyFile)
		known = append(known, s.KnownHosts)
	}
	return []string{"-p", "hosts=" + strings.Join(hosts, ","), "-p", "keys=" + strings.Join(keys, ","), "-p", "known=" + strings.Join(known, ",")}
}

// agents are the pids of agent processes started from the hosts' homes.
func (h *clientHosts) agents() []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		argv := strings.Split(strings.TrimSuffix(string(cmdline), "\x00"), "\x00")
		for _, home := range h.homes {
			if len(argv) == 2 && strings.HasPrefix(argv[0], home+"/") && argv[1] == "agent" {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// waitNoAgents fails the test when an agent is still running after wait.
func (h *clientHosts) waitNoAgents(t *testing.T, wait time.Duration) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for {
		pids := h.agents()
		if len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("agents still running %v after the step ended: %v", wait, pids)
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (h *clientHosts) killAgents() {
	for _, pid := range h.agents() {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// togetherStep reads a run's together step: its merged summary and its
// parts' summaries.
func togetherStep(t *testing.T, out string) (string, *results.Summary, []*results.Summary) {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(out, "steps", "*-together"))
	if len(dirs) != 1 {
		t.Fatalf("together steps in %s: %v", out, dirs)
	}
	merged := readSummary(t, dirs[0])
	var parts []*results.Summary
	for _, p := range merged.Parts {
		if _, err := os.Stat(filepath.Join(dirs[0], p.Dir, results.SummaryFile)); err == nil {
			parts = append(parts, readSummary(t, filepath.Join(dirs[0], p.Dir)))
		} else {
			parts = append(parts, nil)
		}
	}
	return dirs[0], merged, parts
}

func readSummary(t *testing.T, dir string) *results.Summary {
	t.Helper()
	var s results.Summary
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(dir, results.SummaryFile))), &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

// Three agents on three client hosts (sshd on loopback, each with its own
// home) run one step against a private MariaDB: the merged counts and
// percentiles are the exact merge of what each measured, as for parts run
// here; the binary is uploaded once per host and version, again when it
// changed; no agent is left running.
func TestAgentsOnClientHosts(t *testing.T) {
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{})
	hosts := startClientHosts(t, 3, nil)
	plan := filepath.Join(t.TempDir(), "agents.star")
	if err := os.WriteFile(plan, []byte(agentPlan), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"run", plan, "-p", "dsn=" + m.DSN()}, hosts.params()...)

	out := outDir(t)
	r := starbench(t, nil, append(args, "--out", out)...)
	expect(t, r, 0, "part oltp_point_select-t2 completed", "clock offset")
	if n := strings.Count(r.stdout+r.stderr, "agent: uploaded starbench"); n != 3 {
		t.Errorf("%d uploads, want one per host (3):\n%s", n, r.stdout)
	}
	hosts.waitNoAgents(t, 5*time.Second)
	dir, merged, parts := togetherStep(t, out)
	if merged.Status != results.StatusCompleted || merged.Threads != 6 || len(parts) != 3 {
		t.Fatalf("merged: status %s, %d threads, %d parts", merged.Status, merged.Threads, len(parts))
	}
	var events, queries int64
	first, last := parts[0].Started, parts[0].Started
	for i, p := range parts {
		events, queries = events+p.Events, queries+p.Queries
		want := "ssh " + hosts.servers[i].Addr
		if p.Client == nil || p.Client.Host != want || merged.Parts[i].Client != want || p.Client.OS != "linux" {
			t.Errorf("part %d's client %+v (in the merged list %q), want host %s", i+1, p.Client, merged.Parts[i].Client, want)
		} else if math.Abs(p.Client.ClockOffsetMS) > 50 {
			t.Errorf("part %d: clock offset %.3f ms on one machine", i+1, p.Client.ClockOffsetMS)
		}
		if p.Events == 0 {
			t.Errorf("part %d ran no event", i+1)
		}
		if p.Started.Before(first) {
			first = p.Started
		}
		if p.Started.After(last) {
			last = p.Started
		}
	}
	if merged.Events != events || merged.Queries != queries {
		t.Errorf("merged %d events, %d queries; the parts' sum %d, %d", merged.Events, merged.Queries, events, queries)
	}
	if spread := last.Sub(first); spread > 100*time.Millisecond {
		t.Errorf("the agents' loads started %v apart", spread)
	}
	// The same folders merged by 'starbench merge' give the same figures:
	// the agents' folders merge exactly, as parts run here do.
	var partDirs []string
	for _, p := range merged.Parts {
		partDirs = append(partDirs, filepath.Join(dir, p.Dir))
	}
	again := filepath.Join(t.TempDir(), "again")
	expect(t, starbench(t, nil, append(append([]string{"merge"}, partDirs...), "-o", again)...), 0)
	re := readSummary(t, again)
	if re.Events != merged.Events || fmt.Sprint(re.Latency) != fmt.Sprint(merged.Latency) {
		t.Errorf("starbench merge of the agents' folders: %d events, latency %v; the step: %d, %v", re.Events, re.Latency, merged.Events, merged.Latency)
	}

	// A second run finds the binary on every host.
	r = starbench(t, nil, append(args, "-p", "prepare=false", "--out", outDir(t))...)
	expect(t, r, 0, "part oltp_point_select-t2 completed")
	if strings.Contains(r.stdout+r.stderr, "agent: uploaded") {
		t.Errorf("the same binary was uploaded again:\n%s", r.stdout)
	}
	// A changed binary is uploaded again, to every host.
	changed := filepath.Join(t.TempDir(), "starbench")
	data, err := os.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(changed, append(data, []byte("changed")...), 0o755); err != nil {
		t.Fatal(err)
	}
	r = runBinary(t, changed, "../..", nil, append(args, "-p", "prepare=false", "--out", outDir(t))...)
	expect(t, r, 0, "part oltp_point_select-t2 completed")
	if n := strings.Count(r.stdout+r.stderr, "agent: uploaded starbench"); n != 3 {
		t.Errorf("a changed binary: %d uploads, want 3:\n%s", n, r.stdout)
	}
	hosts.waitNoAgents(t, 5*time.Second)
}

// runInBackground starts the built binary and returns it with its output.
func runInBackground(t *testing.T, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = "../.."
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	return cmd, &out
}

// waitAgents waits until n agents run from the hosts' homes.
func (h *clientHosts) waitAgents(t *testing.T, n int) []int {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if pids := h.agents(); len(pids) >= n {
			time.Sleep(1500 * time.Millisecond) // into the load
			return pids
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d agents did not start within 30s (%v)", n, h.agents())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func exitCode(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(90 * time.Second):
		t.Fatal("starbench did not end within 90s")
	}
	return -1
}

// An agent killed with SIGKILL, and a client host whose sshd dies: the
// step fails naming the host, or, with on_part_failure="continue", keeps
// the other part's results; no agent is left running; and one whose
// coordinator is killed ends by itself.
func TestAgentFailures(t *testing.T) {
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{})
	hosts := startClientHosts(t, 2, nil)
	plan := filepath.Join(t.TempDir(), "agents.star")
	if err := os.WriteFile(plan, []byte(agentPlan), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"run", plan, "-p", "dsn=" + m.DSN(), "-p", "time=8"}, hosts.params()...)
	expect(t, starbench(t, nil, append(args, "-p", "time=1", "--out", outDir(t))...), 0) // tables and binaries in place
	args = append(args, "-p", "prepare=false")
	second := "ssh " + hosts.servers[1].Addr

	t.Run("agent killed, step fails", func(t *testing.T) {
		out := outDir(t)
		cmd, output := runInBackground(t, append(args, "--out", out)...)
		pids := hosts.waitAgents(t, 2)
		for _, pid := range pids {
			if strings.Contains(readFile(t, fmt.Sprintf("/proc/%d/environ", pid)), hosts.homes[1]) {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		if code := exitCode(t, cmd); code != 1 {
			t.Fatalf("exit code %d, want 1:\n%s", code, output)
		}
		if !strings.Contains(output.String(), "agent on "+second+" ended before its part did") || !strings.Contains(output.String(), "signal KILL") {
			t.Errorf("the error does not name the host and the signal:\n%s", output)
		}
		hosts.waitNoAgents(t, 5*time.Second)
		dir, merged, parts := togetherStep(t, out)
		if merged.Status != results.StatusFailed || parts[0] == nil || parts[1] != nil {
			t.Errorf("merged %s; first part kept: %v, second part's summary: %v", merged.Status, parts[0] != nil, parts[1] != nil)
		}
		// What the lost agent streamed is kept: its intervals, no summary.
		lost := filepath.Join(dir, merged.Parts[1].Dir)
		if rows := strings.Count(readFile(t, filepath.Join(lost, results.IntervalsFile)), "\n"); rows < 2 {
			t.Errorf("the lost part's intervals.csv has %d lines", rows)
		}
		if hlog := readFile(t, filepath.Join(lost, results.LatencyFile)); strings.Count(hlog, "\n") < 6 {
			t.Errorf("the lost part's latency.hlog:\n%s", hlog)
		}
	})

	t.Run("sshd dies, step continues", func(t *testing.T) {
		out := outDir(t)
		cmd, output := runInBackground(t, append(args, "-p", "policy=continue", "-p", "again=true", "--out", out)...)
		hosts.waitAgents(t, 2)
		if n := hosts.servers[1].KillConnections(); n == 0 {
			t.Fatal("no sshd connection to kill")
		}
		if code := exitCode(t, cmd); code != 0 {
			t.Fatalf("exit code %d, want 0:\n%s", code, output)
		}
		// The next step reaches the host again over a new connection.
		if !strings.Contains(output.String(), `again: ["completed", "completed"]`) {
			t.Errorf("the step after the lost connection:\n%s", output)
		}
		// The agent's stdin closed with its connection: it stopped itself.
		hosts.waitNoAgents(t, 5*time.Second)
		_, merged, parts := togetherStep(t, out)
		if merged.Status != results.StatusCompleted || parts[0] == nil || parts[0].Status != results.StatusCompleted || parts[1] != nil {
			t.Fatalf("merged %s, parts %v", merged.Status, merged.Parts)
		}
		if p := merged.Parts[1]; p.Status != results.StatusFailed || !strings.Contains(p.Error, second) {
			t.Errorf("the lost part: %+v, want failed naming %s", p, second)
		}
		if merged.Events != parts[0].Events {
			t.Errorf("merged %d events, the surviving part %d", merged.Events, parts[0].Events)
		}
	})

	// Interrupted (Ctrl-C): the agents are told to stop, and every part's
	// partial results are kept. The password is on no agent's command line.
	t.Run("interrupted", func(t *testing.T) {
		out := outDir(t)
		cmd, output := runInBackground(t, append(args, "--out", out)...)
		for _, pid := range hosts.waitAgents(t, 2) {
			if cmdline := readFile(t, fmt.Sprintf("/proc/%d/cmdline", pid)); strings.Contains(cmdline, m.Password()) {
				t.Errorf("an agent's command line holds the password: %q", cmdline)
			}
		}
		cmd.Process.Signal(syscall.SIGINT)
		if code := exitCode(t, cmd); code != 130 {
			t.Fatalf("exit code %d, want 130:\n%s", code, output)
		}
		hosts.waitNoAgents(t, 5*time.Second)
		_, _, parts := togetherStep(t, out)
		for i, p := range parts {
			if p == nil || p.Status != results.StatusInterrupted || p.Events == 0 || p.Seconds > 7 {
				t.Errorf("part %d after the interrupt: %+v", i+1, p)
			}
		}
	})

	t.Run("coordinator killed", func(t *testing.T) {
		cmd, _ := runInBackground(t, append(args, "--out", outDir(t))...)
		hosts.waitAgents(t, 2)
		cmd.Process.Kill()
		cmd.Wait()
		hosts.waitNoAgents(t, 15*time.Second)
	})

	// A coordinator that hangs keeps its connections open but sends no
	// heartbeat: the agents' watchdog (10s) ends them.
	t.Run("coordinator hangs", func(t *testing.T) {
		cmd, _ := runInBackground(t, append(args, "-p", "time=30", "--out", outDir(t))...)
		hosts.waitAgents(t, 2)
		cmd.Process.Signal(syscall.SIGSTOP)
		defer func() { cmd.Process.Kill(); cmd.Process.Signal(syscall.SIGCONT); cmd.Wait() }()
		time.Sleep(5 * time.Second)
		if len(hosts.agents()) == 0 {
			t.Fatal("the agents ended before their watchdog's time")
		}
		hosts.waitNoAgents(t, 15*time.Second)
	})
}

// An agent whose clock is 3s behind (the skew hook of the tests' build):
// its messages and its part's recorded start are on that clock; the
// coordinator measures the offset, sends the start in the agent's clock
// and converts the agent's times into its own, so the parts' starts agree
// (a conversion with the wrong sign, or none, leaves them 3 s or 6 s
// apart: the bound is far from both and from a busy machine's delays).
// A host whose CPU no binary at hand is for is refused (exit 2) naming it,
// until $STARBENCH_AGENT_BINARIES has one.
func TestAgentClockAndPlatform(t *testing.T) {
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{})
	fakeBin := t.TempDir()
	uname := "#!/bin/sh\nif [ \"$1\" = -m ]; then echo aarch64; else exec /bin/uname \"$@\"; fi\n"
	if err := os.WriteFile(filepath.Join(fakeBin, "uname"), []byte(uname), 0o755); err != nil {
		t.Fatal(err)
	}
	hosts := startClientHosts(t, 2, func(i int) map[string]string {
		if i == 0 {
			return map[string]string{"STARBENCH_AGENT_CLOCK_SKEW": "-3s"}
		}
		return map[string]string{"PATH": fakeBin + ":/usr/local/bin:/usr/bin:/bin"}
	})
	plan := filepath.Join(t.TempDir(), "agents.star")
	if err := os.WriteFile(plan, []byte(agentPlan), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"run", plan, "-p", "dsn=" + m.DSN()}, hosts.params()...)
	expect(t, starbench(t, nil, append(args, "--out", outDir(t))...), 2,
		"agents.star:14:", "client host "+hosts.servers[1].Addr+": no starbench binary for linux/arm64 is at hand", "STARBENCH_AGENT_BINARIES")
	hosts.waitNoAgents(t, 5*time.Second)

	binaries := t.TempDir()
	data, err := os.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(binaries, "starbench-linux-arm64"), data, 0o755); err != nil {
		t.Fatal(err)
	}
	out := outDir(t)
	r := starbench(t, []string{"STARBENCH_AGENT_BINARIES=" + binaries}, append(args, "-p", "prepare=false", "-p", "cpus=0", "--out", out)...)
	expect(t, r, 0, "agent: uploaded starbench-linux-arm64", "part oltp_point_select-t2 completed")
	_, _, parts := togetherStep(t, out)
	if c := parts[0].Client; c.Placement != "cpus 0" || c.CPUs != "0" { // taskset on the client host
		t.Errorf("the first agent's placement %q, cpus %q", c.Placement, c.CPUs)
	}
	if off := parts[0].Client.ClockOffsetMS; math.Abs(off+3000) > 50 {
		t.Errorf("the skewed agent's offset %.3f ms, want about -3000", off)
	}
	if spread := parts[0].Started.Sub(parts[1].Started); spread.Abs() > time.Second {
		t.Errorf("the parts started %v apart: the offset was not applied", spread)
	}
	if parts[1].Client.Arch != "amd64" { // the binary it ran is this machine's, whatever uname said
		t.Errorf("the second agent runs on %s", parts[1].Client.Arch)
	}
}

// cpus= and numa_node= without client= run the part in an agent on this
// host under taskset and numactl: the agents can run only there.
func TestAgentsBoundHere(t *testing.T) {
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{})
	plan := filepath.Join(t.TempDir(), "bound.star")
	src := `
params(dsn = "")
def main(p):
    conn = db.connect(p.dsn)
    sysbench.prepare(conn, tables = 1, table_size = 1000)
    bench.together([
        sysbench.part(conn, "oltp_point_select", tables = 1, table_size = 1000, threads = 2, time = 2, cpus = "0"),
        sysbench.part(conn, "oltp_point_select", tables = 1, table_size = 1000, threads = 2, time = 2, numa_node = 0),
        sysbench.part(conn, "oltp_point_select", tables = 1, table_size = 1000, threads = 2, time = 2),
    ])
`
	if err := os.WriteFile(plan, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := outDir(t)
	expect(t, starbench(t, nil, "run", plan, "-p", "dsn="+m.DSN(), "--out", out), 0, "agent on this host (cpus 0)", "agent on this host (NUMA node 0)")
	_, merged, parts := togetherStep(t, out)
	if parts[0].Client == nil || parts[0].Client.CPUs != "0" || parts[0].Client.Placement != "cpus 0" {
		t.Errorf("the cpus=\"0\" part's client: %+v", parts[0].Client)
	}
	node0, err := os.ReadFile("/sys/devices/system/node/node0/cpulist")
	if parts[1].Client == nil || parts[1].Client.Placement != "NUMA node 0" || err == nil && parts[1].Client.CPUs != strings.TrimSpace(string(node0)) {
		t.Errorf("the numa_node=0 part's client: %+v (node 0 has cpus %s)", parts[1].Client, node0)
	}
	if parts[2].Client != nil || merged.Events != parts[0].Events+parts[1].Events+parts[2].Events {
		t.Errorf("the part run here has client %+v; merged %d events", parts[2].Client, merged.Events)
	}
	expect(t, starbench(t, nil, "check", plan, "-p", "dsn="+m.DSN()), 0)
	bad := strings.Replace(src, `cpus = "0"`, `cpus = "0;reboot"`, 1)
	if err := os.WriteFile(plan, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	expect(t, starbench(t, nil, "check", plan, "-p", "dsn="+m.DSN()), 2, "bound.star:7:", `cpus "0;reboot" is not a CPU list`)
}

// Load profiles travel to agents: a part on an agent follows its stages=
// or phases= as one run here would, and records each interval's stage and
// offered load.
func TestProfilesOnAgents(t *testing.T) {
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{})
	plan := writePlan(t, t.TempDir(), "profiles.star", `
params(dsn = "")
def main(p):
    conn = db.connect(p.dsn)
    sysbench.prepare(conn, tables = 1, table_size = 1000)
    bench.together([
        sysbench.part(conn, "oltp_point_select", tables = 1, table_size = 1000, cpus = "0", stages = [("1s", 2), ("1s", 2)]),
        sysbench.part(conn, "oltp_point_select", tables = 1, table_size = 1000, cpus = "0",
                      phases = [{"time": "1s", "threads": 1}, {"time": "1s", "threads": 3}]),
    ], report_interval = "1s")
`)
	out := outDir(t)
	expect(t, starbench(t, nil, "run", plan, "-p", "dsn="+m.DSN(), "--out", out), 0, "agent on this host (cpus 0)")
	dir, merged, parts := togetherStep(t, out)
	for k, want := range [][2][2]float64{{{1, 1}, {2, 2}}, {{1, 1}, {2, 3}}} { // (stage, offered) per interval
		if parts[k] == nil || parts[k].Client == nil {
			t.Fatalf("part %d did not run on an agent", k+1)
		}
		rows, err := results.ReadIntervals(filepath.Join(dir, merged.Parts[k].Dir))
		if err != nil || len(rows) != 2 {
			t.Fatalf("part %d: %d intervals (%v)", k+1, len(rows), err)
		}
		for i, w := range want {
			if rows[i].Stage != int(w[0]) || math.Abs(rows[i].Target-w[1]) > 0.05 {
				t.Errorf("part %d interval %d: stage %d, offered %.2f; want %v", k+1, i+1, rows[i].Stage, rows[i].Target, w)
			}
		}
	}
	if parts[1].Options["phases"] == nil || parts[0].Options["stages"] == nil {
		t.Errorf("the parts' options: %v, %v", parts[0].Options, parts[1].Options)
	}
}
