package main

import (
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// metricsPlan runs a step of nothing but ignored errors (its tables do not
// exist), a benchmark, and then waits, printing each step's counts.
const metricsPlan = `
def main(p):
    conn = db.connect()
    e = sysbench.run(conn, "oltp_point_select", tables = 1, table_size = 100, threads = 1, time = 1, mysql_ignore_errors = "all",
                     db_ps_mode = "disable")
    print("errors", e.errors_by_code)
    sysbench.prepare(conn, tables = 1, table_size = 100)
    r = sysbench.run(conn, "oltp_point_select", tables = 1, table_size = 100, threads = 2, time = 3, report_interval = 1)
    print("counted", r.events, r.queries)
    local.run("sleep 3")
`

// scrape reads the run's metrics: values by name and label text.
func scrape(url string) (map[string]float64, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for name, mf := range families {
		for _, m := range mf.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				if l.GetName() != "plan" {
					labels = append(labels, l.GetName()+"="+l.GetValue())
				}
			}
			key := name
			if len(labels) > 0 {
				key += "{" + strings.Join(labels, ",") + "}"
			}
			switch mf.GetType() {
			case dto.MetricType_COUNTER:
				out[key] = m.GetCounter().GetValue()
			case dto.MetricType_GAUGE:
				out[key] = m.GetGauge().GetValue()
			}
		}
	}
	return out, nil
}

// --metrics-addr serves the run's live numbers while it runs: scraped
// during the benchmark it shows the step and its tps; after it, the
// counters equal the run's own results (events, queries, errors by code).
// A taken address exits 2 before the plan starts.
func TestMetricsAddr(t *testing.T) {
	plan := filepath.Join(t.TempDir(), "metrics.star")
	if err := os.WriteFile(plan, []byte(metricsPlan), 0o644); err != nil {
		t.Fatal(err)
	}
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	out := outDir(t)
	r := starbench(t, nil, "run", plan, "--target", "embedded", "--out", out, "--metrics-addr", taken.Addr().String())
	expect(t, r, 2, "--metrics-addr", taken.Addr().String())
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a results folder was made though the metrics address was taken")
	}
	addr := taken.Addr().String()
	taken.Close()

	stdout, exited := startBinary(t, "run", plan, "--target", "embedded", "--out", outDir(t), "--metrics-addr", addr, "--progress", "plain")
	printed := func(prefix string) string {
		for _, l := range strings.Split(stdout.String(), "\n") {
			if strings.HasPrefix(l, prefix) {
				return l
			}
		}
		return ""
	}
	url := "http://" + addr + "/metrics"
	var during map[string]float64
	deadline := time.Now().Add(60 * time.Second)
	for printed("counted ") == "" && time.Now().Before(deadline) && len(exited) == 0 {
		if m, err := scrape(url); err == nil && m["starbench_benchmark_running"] == 1 && m["starbench_tps"] > 0 &&
			printed("errors ") != "" {
			during = m
		}
		time.Sleep(200 * time.Millisecond)
	}
	counted := strings.Fields(printed("counted "))
	if len(counted) != 3 {
		t.Fatalf("the plan did not print its counts:\n%s", stdout.String())
	}
	if during == nil {
		t.Fatal("no scrape during the benchmark saw it running with a tps")
	}
	if during["starbench_benchmark_threads"] != 2 || during["starbench_benchmark_planned_seconds"] != 3 ||
		during[`starbench_step_info{builtin=sysbench.run,number=4,step=4}`] != 1 {
		t.Errorf("during the benchmark: %v", during)
	}
	after, err := scrape(url)
	if err != nil {
		t.Fatal(err)
	}
	events, _ := strconv.ParseFloat(counted[1], 64)
	queries, _ := strconv.ParseFloat(counted[2], 64)
	errs := printed("errors ")
	code := strings.Trim(strings.SplitN(strings.TrimPrefix(errs, "errors {"), ":", 2)[0], `"`)
	n, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(strings.SplitN(errs, ":", 2)[1]), "}"), 64)
	if n == 0 || after[`starbench_errors_total{code=`+code+`}`] != n {
		t.Errorf("errors: the run printed %q, the metrics say %v", errs, after)
	}
	if after["starbench_events_total"] != events || after["starbench_queries_total"] != queries {
		t.Errorf("the run counted %v events and %v queries, the metrics %v and %v", events, queries,
			after["starbench_events_total"], after["starbench_queries_total"])
	}
	if after["starbench_benchmark_running"] != 0 || after[`starbench_step_info{builtin=local.run,number=5,step=5}`] != 1 ||
		after[`starbench_steps_ended_total{outcome=ok}`] != 4 {
		t.Errorf("after the benchmark: %v", after)
	}
	if err := <-exited; err != nil {
		t.Errorf("the run: %v", err)
	}
}

// startBinary starts the built binary in the repository's root without
// waiting for it: its standard output as it comes, and its exit. It is
// killed at the test's end if still running.
func startBinary(t *testing.T, args ...string) (*lockedBuffer, <-chan error) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = "../.."
	stdout := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = stdout, io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return stdout, exited
}

// lockedBuffer is a buffer a process writes while a test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// A family command serves its live numbers too (go-tpc's --metrics-addr):
// scraped while sysbench runs, its gauges say the run and its events
// counter counts up to the events its summary records.
func TestMetricsAddrOfAFamilyCommand(t *testing.T) {
	addr, out := freeAddr(t), outDir(t)
	// The embedded target prepares the tables it is asked to run on.
	_, exited := startBinary(t, "sysbench", "oltp_point_select", "--target", "embedded", "--table-size=1000",
		"--threads=2", "--time=3", "--report-interval=1", "--metrics-addr", addr, "--out", out, "run")
	var seen map[string]float64
	for len(exited) == 0 {
		if m, err := scrape("http://" + addr + "/metrics"); err == nil && m["starbench_benchmark_running"] == 1 && m["starbench_events_total"] > 0 {
			seen = m
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err := <-exited; err != nil {
		t.Fatalf("sysbench: %v", err)
	}
	if seen == nil {
		t.Fatal("no scrape saw the run counting events")
	}
	sum := readSummary(t, out)
	if seen["starbench_benchmark_threads"] != 2 || seen["starbench_benchmark_planned_seconds"] != 3 ||
		seen["starbench_events_total"] > float64(sum.Events) || seen[`starbench_step_info{builtin=sysbench run,number=1,step=1}`] != 1 {
		t.Errorf("scraped %v; the run's summary: %d events", seen, sum.Events)
	}
	expect(t, starbench(t, nil, "tpcc", "--metrics-addr", "256.0.0.1:1", "run"), 2, "--metrics-addr")
}
