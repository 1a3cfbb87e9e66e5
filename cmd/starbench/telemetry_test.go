package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/starbench/starbench/runner/results"
)

// telemetryHostPlan watches a host over SSH through a quiet step and a
// step during which a CPU-bound command runs on it.
const telemetryHostPlan = `
params(hosts = [""], keys = [""], known = [""])

def main(p):
    h = ssh.host(p.hosts[0], key_file = p.keys[0], known_hosts = p.known[0])
    conn = db.connect()
    sysbench.prepare(conn, tables = 1, table_size = 100)
    print("series:", telemetry.watch(hosts = [h], processes = ["yes"], interval = "500ms"))
    sysbench.run(conn, "oltp_point_select", tables = 1, table_size = 100, threads = 1, time = 2, tags = {"phase": "quiet"})
    h.run("setsid timeout 5 yes >/dev/null 2>&1 </dev/null &")
    sysbench.run(conn, "oltp_point_select", tables = 1, table_size = 100, threads = 1, time = 3, tags = {"phase": "busy"})
`

// A host's telemetry over the real sshd, read by an agent kept for the
// run: the CPU-bound command's CPU seconds and the host's busy share
// show in the step it ran in and not in the one before; the points'
// times fall within their steps, though the host's clock is off; no agent
// is left.
func TestTelemetryOfAHostOverSSH(t *testing.T) {
	// The host's clock is 3 s behind: its readings' times must be moved
	// by the offset the agent's session measured.
	hosts := startClientHosts(t, 1, func(int) map[string]string { return map[string]string{"STARBENCH_AGENT_CLOCK_SKEW": "-3s"} })
	plan := filepath.Join(t.TempDir(), "watch.star")
	if err := os.WriteFile(plan, []byte(telemetryHostPlan), 0o644); err != nil {
		t.Fatal(err)
	}
	out := outDir(t)
	r := starbench(t, nil, append([]string{"run", plan, "--target", "embedded", "--out", out}, hosts.params()...)...)
	expect(t, r, 0, "series: [\"host-127.0.0.1_")
	hosts.waitNoAgents(t, 10*time.Second)

	m, err := results.ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Telemetry) != 1 || m.Telemetry[0].Kind != "host" || m.Telemetry[0].Source != "ssh "+hosts.servers[0].Addr {
		t.Fatalf("manifest's telemetry %+v", m.Telemetry)
	}
	dirs, _ := filepath.Glob(filepath.Join(out, "steps", "*-oltp_point_select-t1"))
	if len(dirs) != 2 {
		t.Fatalf("steps %v", dirs)
	}
	yes := `proc_cpu_seconds{comm="yes"}`
	for _, dir := range dirs {
		sum := readSummary(t, dir)
		if len(sum.Telemetry) != 1 {
			t.Fatalf("%s: telemetry %+v", dir, sum.Telemetry)
		}
		host := sum.Telemetry[0]
		phase := sum.Tags["phase"]
		if host.Failed != 0 || host.Points < 2*int(sum.Seconds) {
			t.Errorf("%s step: %d points, %d failed (%s)", phase, host.Points, host.Failed, host.Error)
		}
		// The points are in this host's clock, within the step.
		for _, p := range readPoints(t, filepath.Join(dir, host.File)) {
			if p.Time.Before(sum.Started.Add(-time.Second)) || p.Time.After(sum.Started.Add(time.Duration(sum.Seconds*float64(time.Second))+time.Second)) {
				t.Errorf("%s step started %v for %.1fs has a point at %v", phase, sum.Started, sum.Seconds, p.Time)
			}
		}
		cpus := float64(runtime.NumCPU())
		switch phase {
		case "quiet":
			if host.Totals[yes] > 0.1 {
				t.Errorf("quiet step: yes used %.2f CPU seconds", host.Totals[yes])
			}
		case "busy":
			if host.Avg[yes+"/s"] < 0.6 || host.Max["cpu_busy_pct"] < 0.8*100/cpus {
				t.Errorf("busy step: yes used %.2f CPU seconds a second, the host was at most %.0f%% busy (one CPU of %.0f is %.0f%%)",
					host.Avg[yes+"/s"], host.Max["cpu_busy_pct"], cpus, 100/cpus)
			}
		}
	}
}

// readPoints reads a telemetry series file.
func readPoints(t *testing.T, path string) []results.TelemetryPoint {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var points []results.TelemetryPoint
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var p results.TelemetryPoint
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		points = append(points, p)
	}
	return points
}
