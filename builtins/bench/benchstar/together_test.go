package benchstar_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"go.starlark.net/starlark"

	"github.com/starbench/starbench/builtins/bench/benchstar"
	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/builtins/db/dbstar"
	"github.com/starbench/starbench/builtins/mix/mixstar"
	"github.com/starbench/starbench/builtins/sysbench/sysbenchstar"
	"github.com/starbench/starbench/builtins/tpcc/tpccstar"
	"github.com/starbench/starbench/internal/sandbox"
	"github.com/starbench/starbench/internal/testutil/plantest"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
	"github.com/starbench/starbench/runner"
	"github.com/starbench/starbench/runner/results"
)

func TestMain(m *testing.M) { sandboxtest.Main(m) }

var modules = starlark.StringDict{"db": dbstar.Module, "sysbench": sysbenchstar.Module, "tpcc": tpccstar.Module, "mix": mixstar.Module, "bench": benchstar.Module}

func TestSnippets(t *testing.T) {
	plantest.RunSnippets(t, "../../../testdata/bench/*.star", modules)
}

// writePlan writes a plan file into a temporary folder.
func writePlan(t *testing.T, text string) string {
	t.Helper()
	plan := filepath.Join(t.TempDir(), "plan.star")
	if err := os.WriteFile(plan, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return plan
}

// threeServers starts three private MariaDB servers at once.
func threeServers(t *testing.T) []*sandbox.MariaDB {
	t.Helper()
	servers := make([]*sandbox.MariaDB, 3)
	var wg sync.WaitGroup
	for i := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			servers[i] = sandboxtest.Fresh(t, sandbox.MariaDBOptions{Database: "tg"})
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	return servers
}

// stepDir is the folder of the plan's one together step.
func stepDir(t *testing.T, runDir string) string {
	t.Helper()
	found, _ := filepath.Glob(filepath.Join(runDir, results.StepsDir, "*-together"))
	if len(found) != 1 {
		t.Fatalf("together step folders in %s: %v", runDir, found)
	}
	return found[0]
}

// partsOf reads the summaries of a merged step's parts.
func partsOf(t *testing.T, dir string, merged *results.Summary) []*results.Summary {
	t.Helper()
	var out []*results.Summary
	for _, p := range merged.Parts {
		s, err := results.ReadSummary(filepath.Join(dir, p.Dir))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// checkExactMerge asserts that the merged counts are the parts' sums and
// that its percentiles are those of one histogram fed every latency every
// part recorded (read from the parts' latency.hlog, independently of the
// merge), within the exact minimum and maximum.
func checkExactMerge(t *testing.T, dir string) (*results.Summary, []*results.Summary) {
	t.Helper()
	merged, err := results.ReadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	parts := partsOf(t, dir, merged)
	var events, queries, errs int64
	var threads int
	one := hdr.New(1, int64(time.Hour/time.Microsecond), 3)
	for i, p := range parts {
		events, queries, errs, threads = events+p.Events, queries+p.Queries, errs+p.Errors, threads+p.Threads
		f, err := os.Open(filepath.Join(dir, merged.Parts[i].Dir, results.LatencyFile))
		if err != nil {
			t.Fatal(err)
		}
		r := hdr.NewHistogramLogReader(f)
		for {
			h, err := r.NextIntervalHistogram()
			if h == nil || err != nil {
				break
			}
			if h.Tag() == "" {
				one.Merge(h)
			}
		}
		f.Close()
	}
	if merged.Events != events || merged.Queries != queries || merged.Errors != errs || merged.Threads != threads || events == 0 {
		t.Errorf("merged events %d queries %d errors %d threads %d; the parts' sums: %d %d %d %d",
			merged.Events, merged.Queries, merged.Errors, merged.Threads, events, queries, errs, threads)
	}
	if one.TotalCount() != events {
		t.Errorf("the parts' histograms hold %d latencies for %d events", one.TotalCount(), events)
	}
	for _, p := range results.SummaryPercentiles {
		want := float64(one.ValueAtPercentile(p)) / 1000
		want = min(max(want, merged.Latency.MinMS), merged.Latency.MaxMS)
		if got := merged.Latency.Percentiles[results.PercentileKey(p)]; got != want {
			t.Errorf("merged p%v = %v ms; one histogram of every part's latencies gives %v", p, got, want)
		}
	}
	return merged, parts
}

// firstIntervalStarts are the absolute starts (ms) of each part's first
// interval, from its latency.hlog.
func firstIntervalStarts(t *testing.T, dir string, merged *results.Summary) []int64 {
	t.Helper()
	var starts []int64
	for _, p := range merged.Parts {
		f, err := os.Open(filepath.Join(dir, p.Dir, results.LatencyFile))
		if err != nil {
			t.Fatal(err)
		}
		h, err := hdr.NewHistogramLogReader(f).NextIntervalHistogram()
		f.Close()
		if err != nil || h == nil {
			t.Fatalf("%s: no interval: %v", p.Dir, err)
		}
		starts = append(starts, h.StartTimeMs())
	}
	return starts
}

// Seed 001's procedure: one sysbench per server, three servers, as one
// step. The parts start on one barrier, the merged result is exact, each
// server got its part's load.
func TestTogetherAgainstThreeServers(t *testing.T) {
	servers := threeServers(t)
	targets := map[string]string{}
	var secrets []string
	for i, m := range servers {
		targets["s"+string(rune('1'+i))] = m.DSN()
		secrets = append(secrets, m.Password())
	}
	plan := writePlan(t, `
def main(p):
    conns = [db.connect(n) for n in ["s1", "s2", "s3"]]
    for c in conns:
        sysbench.prepare(c, table_size = 500)
    # Every connection to the third server replays this setting: its part
    # connects 0.3 s later than the others, and the barrier waits for it.
    conns[2].exec("SET @slow_start = SLEEP(0.3)")
    parts = [sysbench.part(c, "oltp_point_select", threads = 2, table_size = 500) for c in conns]
    r = bench.together(parts, time = "3s", report_interval = "1s", tags = {"case": "three servers"})
    print("merged %d events in %s: %s" % (r.events, r.dir, [p.status for p in r.parts]))
`)
	r := plantest.Evaluate(t, plan, "", modules, runner.Options{Targets: targets, Secrets: secrets})
	if r.Err != nil {
		t.Fatalf("%s\n%s", plantest.Backtrace(r.Err), r.Stdout)
	}
	dir := stepDir(t, r.Res.Dir)
	merged, parts := checkExactMerge(t, dir)
	if len(parts) != 3 || merged.Tags["case"] != "three servers" || merged.Status != results.StatusCompleted || merged.Workload.Name != "oltp_point_select" {
		t.Fatalf("merged summary: %+v", merged)
	}
	for i, p := range parts {
		if p.Threads != 2 || p.Status != results.StatusCompleted || p.Seconds < 2.9 || !strings.Contains(p.Target, servers[i].Config().Addr) {
			t.Errorf("part %d: threads %d status %s seconds %.2f target %s", i+1, p.Threads, p.Status, p.Seconds, p.Target)
		}
		// Each server executed its part's point selects.
		conn, err := db.Open(context.Background(), servers[i].Config())
		if err != nil {
			t.Fatal(err)
		}
		rows, err := conn.Query(context.Background(), "SHOW GLOBAL STATUS LIKE 'Com_stmt_execute'")
		conn.Close()
		if err != nil {
			t.Fatal(err)
		}
		n, _ := strconv.ParseInt(fmt.Sprint(rows.Rows[0][1]), 10, 64)
		if n < p.Events {
			t.Errorf("server %d executed %d prepared statements; its part counted %d events", i+1, n, p.Events)
		}
	}
	starts := firstIntervalStarts(t, dir, merged)
	lo, hi := starts[0], starts[0]
	for _, s := range starts {
		lo, hi = min(lo, s), max(hi, s)
	}
	if hi-lo > 20 {
		t.Errorf("the parts' first intervals start %d ms apart (%v), want within 20 ms", hi-lo, starts)
	}
	// The merged intervals add up the parts' interval by interval.
	rows, err := results.ReadIntervals(dir)
	if err != nil || len(rows) < 3 {
		t.Fatalf("merged intervals: %v %v", rows, err)
	}
	// The parts started within 20 ms, so interval k of each part falls in
	// merged interval k.
	sums := make([]results.Interval, len(rows))
	for i, p := range merged.Parts {
		partRows, err := results.ReadIntervals(filepath.Join(dir, p.Dir))
		if err != nil || len(partRows) != len(rows) {
			t.Fatalf("part %d: %d intervals (%v), merged %d", i+1, len(partRows), err, len(rows))
		}
		for k, r := range partRows {
			sums[k].Threads += r.Threads
			sums[k].Events += r.Events
			sums[k].TPS += r.TPS
		}
	}
	for k, r := range rows {
		if r.Threads != 6 || r.Threads != sums[k].Threads || r.Events != sums[k].Events || r.Events == 0 || math.Abs(r.TPS-sums[k].TPS) > 0.01 {
			t.Errorf("merged interval %d: threads %d, events %d, tps %.3f; the parts' sums %d, %d, %.3f",
				k+1, r.Threads, r.Events, r.TPS, sums[k].Threads, sums[k].Events, sums[k].TPS)
		}
	}
	if !strings.Contains(r.Stdout, "[2 oltp_point_select-t2] ") || !strings.Contains(r.Stdout, "merged ") {
		t.Errorf("output lacks the parts' prefixed text or the plan's line:\n%s", r.Stdout)
	}
}

// Three parts against one server, of two families: the merge keeps the
// TPC-C part's transactions by kind and tpmC, and leaves efficiency (per
// warehouse) in the part.
func TestTogetherOfTwoFamiliesAgainstOneServer(t *testing.T) {
	plan := writePlan(t, `
def main(p):
    conn = db.connect()
    sysbench.prepare(conn, table_size = 500)
    tpcc.prepare(conn, warehouses = 1, threads = 2)
    r = bench.together([
        sysbench.part(conn, "oltp_point_select", threads = 2, table_size = 500),
        sysbench.part(conn, "oltp_read_only", threads = 1, table_size = 500),
        tpcc.part(conn, warehouses = 1, threads = 2),
    ], time = "3s", report_interval = "1s")
    print(r.workload, r.events)
`)
	r := plantest.Evaluate(t, plan, "mariadb", modules, runner.Options{})
	if r.Err != nil {
		t.Fatalf("%s\n%s", plantest.Backtrace(r.Err), r.Stdout)
	}
	dir := stepDir(t, r.Res.Dir)
	merged, parts := checkExactMerge(t, dir)
	if merged.Workload.Name != "oltp_point_select+oltp_read_only+tpcc" || len(merged.Kinds) != 5 || merged.Metrics["tpmC"] != parts[2].Metrics["tpmC"] ||
		merged.Metrics["tpmC"] == 0 || merged.Metrics["efficiency"] != 0 || parts[2].Metrics["efficiency"] == 0 {
		t.Errorf("merged: workload %s, kinds %d, metrics %v; tpcc part's %v", merged.Workload.Name, len(merged.Kinds), merged.Metrics, parts[2].Metrics)
	}
	if merged.Kinds[0].Events != parts[2].Kinds[0].Events || merged.Kinds[0].Latency.Percentiles["95"] != parts[2].Kinds[0].Latency.Percentiles["95"] {
		t.Errorf("new_order merged %+v, part's %+v", merged.Kinds[0], parts[2].Kinds[0])
	}
}

// A part that fails stops the others, whose results are kept, and fails
// the step naming it; with on_part_failure="continue" the others run
// their time and the step stands.
func TestTogetherPartFailure(t *testing.T) {
	for _, policy := range []string{"fail", "continue"} {
		t.Run(policy, func(t *testing.T) {
			plan := writePlan(t, `
def main(p):
    conn = db.connect()
    sysbench.prepare(conn, table_size = 500)
    conn.exec("CREATE DATABASE IF NOT EXISTS tg_failing_`+policy+`")
    bad = db.connect(database = "tg_failing_`+policy+`")
    sysbench.prepare(bad, table_size = 500, if_exists = "drop")
    bad.exec("CREATE TRIGGER stop_inserts BEFORE INSERT ON sbtest1 FOR EACH ROW BEGIN IF (SELECT COUNT(*) FROM sbtest1) > 1500 THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'planned failure'; END IF; END")
    r = bench.together([
        sysbench.part(conn, "oltp_point_select", threads = 1, table_size = 500),
        sysbench.part(bad, "oltp_insert", threads = 1, table_size = 500),
        sysbench.part(conn, "oltp_point_select", threads = 1, table_size = 500),
    ], time = "3s", on_part_failure = "`+policy+`")
    print("step status", r.status, [p.status for p in r.parts])
`)
			r := plantest.Evaluate(t, plan, "mariadb", modules, runner.Options{})
			dir := stepDir(t, r.Res.Dir)
			merged, err := results.ReadSummary(dir)
			if err != nil {
				t.Fatalf("the merged summary of a step with a failed part: %v\n%s", err, r.Stdout)
			}
			parts := partsOf(t, dir, merged)
			if parts[1].Status != results.StatusFailed || !strings.Contains(parts[1].Error, "planned failure") {
				t.Errorf("part 2: %s %s", parts[1].Status, parts[1].Error)
			}
			if policy == "fail" {
				if r.Err == nil || !strings.Contains(r.Err.Error(), "part 2 (oltp_insert-t1) failed") || !strings.Contains(r.Err.Error(), "planned failure") {
					t.Fatalf("want the step to fail naming part 2, got %v", r.Err)
				}
				for _, k := range []int{0, 2} {
					if parts[k].Events == 0 || parts[k].Seconds > 2.5 || parts[k].Status != results.StatusInterrupted {
						t.Errorf("part %d, stopped by part 2's failure: status %s, %.2fs, %d events", k+1, parts[k].Status, parts[k].Seconds, parts[k].Events)
					}
				}
				if merged.Status != results.StatusFailed {
					t.Errorf("merged status %s", merged.Status)
				}
				return
			}
			if r.Err != nil {
				t.Fatalf("continue: %s\n%s", plantest.Backtrace(r.Err), r.Stdout)
			}
			for _, k := range []int{0, 2} {
				if parts[k].Seconds < 2.9 || parts[k].Status != results.StatusCompleted {
					t.Errorf("part %d ran on: status %s, %.2fs", k+1, parts[k].Status, parts[k].Seconds)
				}
			}
			if merged.Status != results.StatusCompleted || !strings.Contains(r.Stdout, "step status completed") || !strings.Contains(merged.Error, "part 2") {
				t.Errorf("merged status %s error %q\n%s", merged.Status, merged.Error, r.Stdout)
			}
		})
	}
}

// A dry run lists every part's equivalent command line; parts that would
// not stop together or report on one clock are refused with exit 2 and
// the plan position.
func TestTogetherDryRunAndBadInput(t *testing.T) {
	plan := writePlan(t, `
def main(p):
    conn = db.connect()
    bench.together([
        sysbench.part(conn, "oltp_point_select", threads = 150, tables = 16, table_size = 10000000),
        tpcc.part(conn, warehouses = 100, threads = 64),
    ], time = "300s", report_interval = "10s")
`)
	r := plantest.Evaluate(t, plan, "", modules, runner.Options{DryRun: true, Targets: map[string]string{"default": "root@tcp(127.0.0.1:1)/x"}})
	if r.Err != nil {
		t.Fatal(plantest.Backtrace(r.Err))
	}
	var text string
	for _, s := range r.Res.Steps {
		if s.Builtin == "bench.together" {
			text = s.Text
		}
	}
	for _, want := range []string{
		"2 loads at once for 5m0s, reporting every 10s",
		"[1 oltp_point_select-t150] on root@tcp(127.0.0.1:1)/x?timeout=10s: sysbench oltp_point_select --mysql-db=x --report_interval=10 --table_size=10000000 --tables=16 --threads=150 --time=300 run",
		"[2 tpcc-t64] on root@tcp(127.0.0.1:1)/x?timeout=10s: go-tpc tpcc",
		"--warehouses 100 -T 64 --time 5m0s --interval 10s",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("dry-run step text lacks %q:\n%s", want, text)
		}
	}
	for name, call := range map[string]string{
		"durations": `bench.together([sysbench.part(conn, "oltp_point_select", time = "10s"), sysbench.part(conn, "oltp_point_select", time = "20s")])`,
		"intervals": `bench.together([sysbench.part(conn, "oltp_point_select"), tpcc.part(conn, warehouses = 1)], time = "10s")`,
		"not parts": `bench.together([sysbench.part(conn, "oltp_point_select"), 42], time = "10s")`,
		"policy":    `bench.together([sysbench.part(conn, "oltp_point_select")], on_part_failure = "ignore")`,
	} {
		plan := writePlan(t, "def main(p):\n    conn = db.connect()\n    "+call+"\n")
		r := plantest.Evaluate(t, plan, "", modules, runner.Options{DryRun: true, Targets: map[string]string{"default": "root@tcp(127.0.0.1:1)/x"}})
		var usage *runner.UsageError
		if !errors.As(r.Err, &usage) || !strings.Contains(usage.Msg, "plan.star:3:") {
			t.Errorf("%s: want a usage error (exit 2) at plan.star:3, got %v", name, r.Err)
		}
	}
}
