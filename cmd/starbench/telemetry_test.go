package main

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/starbench/starbench/internal/sandbox"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
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
		if host.Failed != 0 || host.Points < int(sum.Seconds) { // two a second asked; a busy machine skips ticks
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
			if host.Avg[yes+"/s"] < 0.3 || host.Max["cpu_busy_pct"] < 0.8*100/cpus {
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

// telemetryComparePlan runs oltp_read_only twice with telemetry, the
// second with range queries a hundred times longer: more server work per
// transaction, fewer transactions.
const telemetryComparePlan = `
params(dsn = "")

def main(p):
    conn = db.connect(p.dsn)
    sysbench.prepare(conn, tables = 1, table_size = 3000)
    telemetry.watch(status = conn, hosts = ["local"], processes = ["mariadbd"], interval = "500ms")
    for version, size in [("a", 10), ("b", 1000)]:
        sysbench.run(conn, "oltp_read_only", tables = 1, table_size = 3000, threads = 2, time = 3, range_size = size,
                     report_interval = 1, tags = {"version": version})
`

// The report charts each step's telemetry on the step's own time axis,
// with a table of the series; compare puts the resource figures beside
// the step whose tps changed: the slower version used more server CPU
// per transaction, and the server saw the statements the client counted.
func TestTelemetryReportAndCompare(t *testing.T) {
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{})
	plan := filepath.Join(t.TempDir(), "compare.star")
	if err := os.WriteFile(plan, []byte(telemetryComparePlan), 0o644); err != nil {
		t.Fatal(err)
	}
	out := outDir(t)
	expect(t, starbench(t, nil, "run", plan, "-p", "dsn="+m.DSN(), "--out", out), 0)

	page := filepath.Join(t.TempDir(), "report.html")
	expect(t, starbench(t, nil, "report", out, "--format", "html", "-o", page), 0)
	html := readFile(t, page)
	for _, want := range []string{"telemetry (averages over each step)", "status-127.0.0.1_", "host-local"} {
		if !strings.Contains(html, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	charts := regexp.MustCompile(`(?s)<figure class="chart" data-kind="time"[^>]* data-step="([^"]+)" data-metric="([^"]+)">.*?</figure>`).FindAllStringSubmatch(html, -1)
	ticks := regexp.MustCompile(`<text class="xtick"[^>]*>([^<]*)</text>`)
	axes := map[string]string{}      // step → its first chart's x tick labels
	metrics := map[string][]string{} // step → its charts
	for _, c := range charts {
		step, metric := c[1], c[2]
		metrics[step] = append(metrics[step], metric)
		var labels []string
		for _, m := range ticks.FindAllStringSubmatch(c[0], -1) {
			labels = append(labels, m[1])
		}
		axis := strings.Join(labels, " ")
		if first, seen := axes[step]; !seen {
			axes[step] = axis
		} else if axis != first {
			t.Errorf("step %s: chart %s's time axis is %q, the step's tps chart's %q", step, metric, axis, first)
		}
	}
	if len(metrics) != 2 {
		t.Fatalf("time charts of %d steps, want 2: %v", len(metrics), metrics)
	}
	for step, ms := range metrics {
		all := strings.Join(ms, " ")
		for _, want := range []string{"tps", "latency", "host-cpu", "process-cpu", "host-disk", "host-net", "server-statements", "server-rows"} {
			if !strings.Contains(" "+all+" ", " "+want+" ") {
				t.Errorf("step %s has no %s chart over time: %s", step, want, all)
			}
		}
	}

	r := starbench(t, nil, "compare", out, "--by", "version", "--format", "json")
	expect(t, r, 0)
	var cmp struct {
		Contenders []string `json:"contenders"`
		Rows       []struct {
			Cells []struct {
				Change float64 `json:"change_pct"`
			} `json:"cells"`
		} `json:"rows"`
		Resources []struct {
			Figure string     `json:"figure"`
			Values []*float64 `json:"values"`
		} `json:"resources"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &cmp); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	if len(cmp.Rows) != 1 || cmp.Rows[0].Cells[1].Change > -10 {
		t.Fatalf("version b's tps should have dropped: %+v", cmp.Rows)
	}
	figures := map[string][]*float64{}
	for _, row := range cmp.Resources {
		figures[row.Figure] = row.Values
	}
	cpu, stmts, queries := figures["server CPU µs/event"], figures["server statements/event"], figures["client queries/event"]
	if len(cpu) != 2 || cpu[0] == nil || cpu[1] == nil || *cpu[1] < 1.5**cpu[0] {
		t.Errorf("server CPU µs a transaction: %v, want b's well above a's", deref(cpu))
	}
	for i := range cmp.Contenders {
		if len(stmts) != 2 || len(queries) != 2 || stmts[i] == nil || queries[i] == nil ||
			math.Abs(*stmts[i]-*queries[i]) > 0.05**queries[i] {
			t.Errorf("%s: the server saw %v statements a transaction, the client sent %v", cmp.Contenders[i], deref(stmts), deref(queries))
		}
	}
	text := starbench(t, nil, "compare", out, "--by", "version")
	expect(t, text, 0, "what the servers did in the steps whose tps changed", "server CPU µs/event", "disk KB written/event")
}

func deref(vs []*float64) []any {
	var out []any
	for _, v := range vs {
		if v == nil {
			out = append(out, nil)
		} else {
			out = append(out, *v)
		}
	}
	return out
}
