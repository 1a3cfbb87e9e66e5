package sysbenchstar_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
	"go.starlark.net/starlark"

	"github.com/starbench/starbench/builtins/bench/benchstar"
	"github.com/starbench/starbench/builtins/db/dbstar"
	"github.com/starbench/starbench/builtins/sysbench/sysbenchstar"
	"github.com/starbench/starbench/internal/testutil/plantest"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
	"github.com/starbench/starbench/runner"
	"github.com/starbench/starbench/runner/results"
)

func TestMain(m *testing.M) { sandboxtest.Main(m) }

var modules = starlark.StringDict{"db": dbstar.Module, "sysbench": sysbenchstar.Module}

func TestSnippets(t *testing.T) {
	plantest.RunSnippets(t, "../../../testdata/sysbench/*.star", modules)
}

// A benchmark step writes its results folder, and the journal records its
// summary and tags.
func TestRunWritesResultsFolder(t *testing.T) {
	plan := filepath.Join(t.TempDir(), "plan.star")
	os.WriteFile(plan, []byte(`
def main(p):
    conn = db.connect()
    sysbench.prepare(conn, table_size = 200)
    sysbench.run(conn, "oltp_point_select", threads = 2, time = "2s", table_size = 200, report_interval = 1, tags = {"version": "v1"})
`), 0o644)
	r := plantest.Evaluate(t, plan, "mariadb", modules, runner.Options{})
	if r.Err != nil {
		t.Fatal(plantest.Backtrace(r.Err))
	}
	dir := filepath.Join(r.Res.Dir, "steps", "3-oltp_point_select-t2")
	var files []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		files = append(files, e.Name())
	}
	sort.Strings(files)
	if strings.Join(files, " ") != "intervals.csv latency.hlog output.txt summary.json" {
		t.Fatalf("step folder %s holds %v", dir, files)
	}
	var sum results.Summary
	data, _ := os.ReadFile(filepath.Join(dir, results.SummaryFile))
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Tags["version"] != "v1" || sum.Events == 0 || sum.Reads != sum.Events || sum.Status != "completed" || sum.Options["table_size"] != float64(200) {
		t.Errorf("summary: %+v", sum)
	}
	for _, k := range []string{"50", "90", "95", "99", "99.9", "99.99"} {
		if _, ok := sum.Latency.Percentiles[k]; !ok {
			t.Errorf("summary lacks percentile %s", k)
		}
	}
	out, _ := os.ReadFile(filepath.Join(dir, results.OutputFile))
	if !strings.Contains(string(out), "[ 2s ] thds: 2 tps:") || !strings.Contains(string(out), "Threads fairness:") {
		t.Errorf("output.txt:\n%s", out)
	}
	csv, _ := os.ReadFile(filepath.Join(dir, results.IntervalsFile))
	if lines := strings.Count(string(csv), "\n"); lines < 3 {
		t.Errorf("intervals.csv has %d lines:\n%s", lines, csv)
	}
	hlog, _ := os.ReadFile(filepath.Join(dir, results.LatencyFile))
	if !strings.HasPrefix(string(hlog), "#[Histogram log format version") || strings.Count(string(hlog), "HISTF") < 2 {
		t.Errorf("latency.hlog:\n%s", hlog)
	}
	recs, err := results.ReadJournal(filepath.Join(r.Res.Dir, results.JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		if rec.Event == "start" && rec.Builtin == "sysbench.run" {
			if rec.Text != "sysbench oltp_point_select --mysql-db=s_TestRunWritesResultsFolder --report_interval=1 --table_size=200 --threads=2 --time=2 run" {
				t.Errorf("step text: %s", rec.Text)
			}
		}
		if rec.Event == "end" && rec.Builtin == "sysbench.run" && !strings.Contains(string(rec.Result), `"dir":"steps/3-oltp_point_select-t2"`) {
			t.Errorf("step result: %s", rec.Result)
		}
	}
}

// In dry-run mode the step list shows the equivalent sysbench command
// lines and nothing connects.
func TestDryRunShowsCommandLines(t *testing.T) {
	plan := filepath.Join(t.TempDir(), "plan.star")
	os.WriteFile(plan, []byte(`
def main(p):
    conn = db.connect()
    sysbench.prepare(conn, tables = 16, table_size = 10000000, threads = 16)
    for t in [150, 300]:
        r = sysbench.run(conn, "oltp_read_write", threads = t, time = "300s", tables = 16, table_size = 10000000, rand_type = "uniform")
        if r.tps > 0:
            print("never in dry-run")
`), 0o644)
	r := plantest.Evaluate(t, plan, "", modules, runner.Options{DryRun: true, Targets: map[string]string{"default": "root@tcp(127.0.0.1:1)/x"}})
	if r.Err != nil {
		t.Fatal(plantest.Backtrace(r.Err))
	}
	var texts []string
	for _, s := range r.Res.Steps {
		texts = append(texts, s.Text)
	}
	want := []string{
		"connect root@tcp(127.0.0.1:1)/x?timeout=10s",
		"sysbench oltp_read_write --mysql-db=x --table_size=10000000 --tables=16 --threads=16 prepare",
		"sysbench oltp_read_write --mysql-db=x --rand_type=uniform --table_size=10000000 --tables=16 --threads=150 --time=300 run",
		"sysbench oltp_read_write --mysql-db=x --rand_type=uniform --table_size=10000000 --tables=16 --threads=300 --time=300 run",
	}
	if strings.Join(texts, "\n") != strings.Join(want, "\n") {
		t.Errorf("steps:\n%s", strings.Join(texts, "\n"))
	}
	if strings.Contains(r.Stdout, "never in dry-run") {
		t.Errorf("placeholder result had tps > 0")
	}
}

func TestDocCoversEveryFunction(t *testing.T) {
	documented := map[string]bool{}
	for _, f := range sysbenchstar.Doc.Funcs {
		documented[f.Name] = true
	}
	for name := range sysbenchstar.Module.Members {
		if !documented["sysbench."+name] {
			t.Errorf("sysbench.%s is not documented", name)
		}
	}
	if len(documented) != len(sysbenchstar.Module.Members) {
		t.Errorf("doc entries %d, functions %d", len(documented), len(sysbenchstar.Module.Members))
	}
}

// db.connect with a list of endpoints spreads a workload's connections
// round-robin over them (what "direct to every TiDB server" means).
func TestWorkloadSpreadsOverEndpoints(t *testing.T) {
	dsn, pw := plantest.MariaDBTarget(t, t.Name())
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	addrA, countA := sandboxtest.Proxy(t, cfg.Addr, 0)
	addrB, countB := sandboxtest.Proxy(t, cfg.Addr, 0)
	a, b := cfg.Clone(), cfg.Clone()
	a.Addr, b.Addr = addrA, addrB
	plan := filepath.Join(t.TempDir(), "plan.star")
	os.WriteFile(plan, []byte(`
def main(p):
    conn = db.connect(["a", "b"])
    sysbench.prepare(conn, table_size = 100)
    r = sysbench.run(conn, "oltp_point_select", threads = 4, events = 400, time = 0, table_size = 100)
    print(r.events, conn.dsn)
`), 0o644)
	r := plantest.Evaluate(t, plan, "", modules, runner.Options{Targets: map[string]string{"a": a.FormatDSN(), "b": b.FormatDSN()}, Secrets: []string{pw}})
	if r.Err != nil {
		t.Fatal(plantest.Backtrace(r.Err))
	}
	if !strings.Contains(r.Stdout, "400 root:***@tcp("+addrA+")") || !strings.Contains(r.Stdout, ", root:***@tcp("+addrB+")") {
		t.Errorf("output: %s", r.Stdout)
	}
	// a: the handle's session, prepare's first connection, the run's read
	// of the server's settings and 2 of the 4 workers; b: prepare's
	// loading thread and the other 2 workers.
	if ga, gb := countA.Load(), countB.Load(); ga != 5 || gb != 3 {
		t.Errorf("connections: a %d, b %d (want 5 and 3)", ga, gb)
	}
}

// A step of stages, alone and as parts of a together step, records each
// interval's stage, the load offered and the threads running, and keeps
// its profile with its options; the parts' offered loads add up in the
// merged step.
func TestStagesAreRecorded(t *testing.T) {
	plan := filepath.Join(t.TempDir(), "plan.star")
	os.WriteFile(plan, []byte(`
def main(p):
    conn = db.connect()
    sysbench.prepare(conn, table_size = 200)
    sysbench.run(conn, "oltp_point_select", table_size = 200, report_interval = 1, stages = [("2s", 4), ("2s", 4)])
    bench.together([sysbench.part(conn, "oltp_point_select", table_size = 200, rate_stages = [("2s", 100), ("1s", 100)], threads = 2)
                    for _ in range(2)], report_interval = "1s")
    sysbench.run(conn, "oltp_point_select", table_size = 200, report_interval = 1, phases = [{"time": "1s", "threads": 1}, {"time": "2s", "threads": 3}])
`), 0o644)
	r := plantest.Evaluate(t, plan, "mariadb", starlark.StringDict{"db": dbstar.Module, "sysbench": sysbenchstar.Module, "bench": benchstar.Module}, runner.Options{})
	if r.Err != nil {
		t.Fatal(plantest.Backtrace(r.Err))
	}
	steps := filepath.Join(r.Res.Dir, "steps")
	rows, err := results.ReadIntervals(filepath.Join(steps, "3-oltp_point_select-t4"))
	if err != nil || len(rows) != 4 {
		t.Fatalf("threads step: %d intervals (%v)", len(rows), err)
	}
	// Second by second: a ramp from 0 to 4 threads (offered 1 and 3 on
	// average, running 2 then 4 at the intervals' ends), then the hold.
	for i, want := range []struct {
		stage   int
		target  float64
		threads int
	}{{1, 1, 2}, {1, 3, 4}, {2, 4, 4}, {2, 4, 4}} {
		got := rows[i]
		if got.Stage != want.stage || math.Abs(got.Target-want.target) > 0.1 || got.Threads != want.threads {
			t.Errorf("interval %d: stage %d, target %.3f, %d threads; want %d, %.1f, %d", i+1, got.Stage, got.Target, got.Threads, want.stage, want.target, want.threads)
		}
	}
	sum, err := results.ReadSummary(filepath.Join(steps, "3-oltp_point_select-t4"))
	if err != nil || sum.Threads != 4 || sum.Options["stages"] == nil {
		t.Errorf("threads step's summary: %d threads, options %v (%v)", sum.Threads, sum.Options, err)
	}
	dirs, _ := filepath.Glob(filepath.Join(steps, "*-together"))
	if len(dirs) != 1 {
		t.Fatalf("together steps %v", dirs)
	}
	merged, err := results.ReadIntervals(dirs[0])
	if err != nil || len(merged) < 2 {
		t.Fatalf("merged intervals %v (%v)", merged, err)
	}
	// Each part offers a ramp to 100/s over 2 s: 25/s then 75/s; merged, 50 then 150.
	if merged[0].Stage != 1 || math.Abs(merged[0].Target-50) > 3 || math.Abs(merged[1].Target-150) > 3 {
		t.Errorf("merged offered load %v then %v", merged[0], merged[1])
	}
	// Phases hold their threads from their start: 1, then 3 and 3 (the
	// threads running at an interval's end: the first's is the boundary's).
	phased, err := results.ReadIntervals(filepath.Join(steps, "5-oltp_point_select-t3"))
	if err != nil || len(phased) != 3 {
		t.Fatalf("phases step: %d intervals (%v)", len(phased), err)
	}
	for i, want := range []struct{ stage, threads int }{{1, 1}, {2, 3}, {2, 3}} {
		if got := phased[i]; got.Stage != want.stage || math.Abs(got.Target-float64(want.threads)) > 0.01 || (i > 0 && got.Threads != want.threads) {
			t.Errorf("phase interval %d: stage %d, target %.1f, %d threads; want %d, %d, %d", i+1, got.Stage, got.Target, got.Threads, want.stage, want.threads, want.threads)
		}
	}
}
