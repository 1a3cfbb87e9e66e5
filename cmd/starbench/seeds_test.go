package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/starbench/starbench/builtins"
	"github.com/starbench/starbench/internal/sandbox"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
	"github.com/starbench/starbench/internal/testutil/tiupstub"
	"github.com/starbench/starbench/runner"
	"github.com/starbench/starbench/runner/results"
	"github.com/starbench/starbench/stdlib"
)

// Seed 001's procedure, three sysbench processes against three servers,
// is one step per workload: run here against three private MariaDB
// servers, each step keeps the three loads as parts, each on its own
// server, and its result is their sum.
func TestSeed001PlanRunsAgainstThreeServers(t *testing.T) {
	t.Parallel() // time-bound runs on servers of their own: two seeds at once take the time of one
	sandboxtest.Require(t)
	out := outDir(t)
	// The plan's small scale, as its header gives it: every workload, 3 s each.
	r := starbench(t, nil, "run", "plans/seed001_tidb305_three_sysbench.star", "-o", out, "-p", "scale=small", "-p", "tidb=false",
		"-p", "shared_storage=false", "--target", "tidb1=sandbox:mariadb", "--target", "tidb2=sandbox:mariadb", "--target", "tidb3=sandbox:mariadb")
	// It ends in the report's table: per workload, QPS and MIN, AVG and 99TH latency.
	expect(t, r, 0, "qps, min, avg, p99 by workload\nworkload                     qps  min ms  avg ms  p99 ms", "\noltp_point_select      ",
		"\nselect_random_points   ", "\noltp_update_non_index  ")
	if _, err := os.Stat(filepath.Join(out, "seed001.md")); err != nil {
		t.Errorf("the table is not in the results folder: %v", err)
	}
	steps, _ := filepath.Glob(filepath.Join(out, results.StepsDir, "*-*_*"))
	if len(steps) != 7 {
		t.Fatalf("step folders: %v", steps)
	}
	for _, dir := range steps {
		merged, err := results.ReadSummary(dir)
		if err != nil {
			t.Fatal(err)
		}
		var events int64
		targets := map[string]bool{}
		for _, p := range merged.Parts {
			s, err := results.ReadSummary(filepath.Join(dir, p.Dir))
			if err != nil {
				t.Fatal(err)
			}
			events += s.Events
			targets[s.Target] = true
			if s.Threads != 4 || s.Tags["server"] == "" || s.WarmupSeconds != 1 {
				t.Errorf("%s: threads %d tags %v warmup %v", p.Dir, s.Threads, s.Tags, s.WarmupSeconds)
			}
		}
		if len(merged.Parts) != 3 || len(targets) != 3 || merged.Events != events || events == 0 || merged.Threads != 12 {
			t.Errorf("%s: %d parts on %d servers, merged events %d (parts %d), threads %d", dir, len(merged.Parts), len(targets), merged.Events, events, merged.Threads)
		}
	}
	expect(t, starbench(t, nil, "report", out, "--parts"), 0, "3 oltp_write_only-t4")
	// The report's step 6: sysbench's parameters kept with the results.
	if data, err := os.ReadFile(filepath.Join(out, results.SavedDir, "sysbench-options.json")); err != nil || !strings.Contains(string(data), `"table_size": 1000`) {
		t.Errorf("sysbench-options.json: %v\n%s", err, data)
	}
}

// The plan's dry run lists each workload's step with the three sysbench
// command lines, one per server, with the report's sizes.
func TestSeed001PlanDryRun(t *testing.T) {
	r := starbench(t, nil, "check", "plans/seed001_tidb305_three_sysbench.star",
		"--target", "tidb1=root@tcp(10.0.1.1:4000)/sbtest", "--target", "tidb2=root@tcp(10.0.1.2:4000)/sbtest", "--target", "tidb3=root@tcp(10.0.1.3:4000)/sbtest")
	expect(t, r, 0, "OK", "bench.together", "3 loads at once for 5m0s, reporting every 10s",
		"sysbench oltp_read_write --mysql-db=sbtest --profile=master --table_size=40000000 --tables=32 --threads=32 prepare",
		"[3 oltp_update_non_index-t128] on root@tcp(10.0.1.3:4000)/sbtest?timeout=10s: sysbench oltp_update_non_index --mysql-db=sbtest --profile=master --report_interval=10 --table_size=40000000 --tables=32 --threads=128 --time=300 --warmup_time=60 run")
	if n := strings.Count(r.stdout, "bench.together"); n != 7 {
		t.Errorf("%d together steps listed, want 7 (one per workload)", n)
	}
	if n := strings.Count(r.stdout, "sysbench.prepare"); n != 1 {
		t.Errorf("%d prepares listed, want 1 (the servers share one cluster)", n)
	}
	// Its step 1 (the database), its step 6 (every server's configuration and
	// sysbench's parameters saved), and no ANALYZE, which it does not do.
	for text, want := range map[string]int{"CREATE DATABASE IF NOT EXISTS `sbtest`": 1, "          SHOW CONFIG": 3, "files/sysbench-options.json": 1,
		"files/config/tidb3-show-config.tsv": 1, "ANALYZE TABLE": 0} {
		if n := strings.Count(r.stdout, text); n != want {
			t.Errorf("%q listed %d times, want %d", text, n, want)
		}
	}
	// A baseline cluster runs the same way after the first, its version
	// checked against the report's earlier 2.1.8.
	r = starbench(t, nil, "check", "plans/seed001_tidb305_three_sysbench.star", "-p", "baseline_servers=old1,old2,old3",
		"--target", "tidb1=root@tcp(10.0.1.1:4000)/sbtest", "--target", "tidb2=root@tcp(10.0.1.2:4000)/sbtest", "--target", "tidb3=root@tcp(10.0.1.3:4000)/sbtest")
	expect(t, r, 0, "seed001 old3: the run checks that the target runs the report's TiDB v2.1.8", "files/config/old1-show-config.tsv")
	if a, b := strings.Count(r.stdout, "bench.together"), strings.Count(r.stdout, "sysbench.prepare"); a != 14 || b != 2 {
		t.Errorf("with a baseline: %d together steps and %d prepares, want 14 and 2", a, b)
	}
	// With client hosts, each load runs from one, in turn.
	r = starbench(t, nil, "check", "plans/seed001_tidb305_three_sysbench.star", "-p", "clients=bench@10.0.9.1,bench@10.0.9.2",
		"--target", "tidb1=root@tcp(10.0.1.1:4000)/sbtest", "--target", "tidb2=root@tcp(10.0.1.2:4000)/sbtest", "--target", "tidb3=root@tcp(10.0.1.3:4000)/sbtest")
	expect(t, r, 0, "--warmup_time=60 run  # on client host bench@10.0.9.1:22\n            [2 oltp_point_select-t128]",
		"[3 oltp_update_non_index-t128] on root@tcp(10.0.1.3:4000)/sbtest?timeout=10s: sysbench oltp_update_non_index --mysql-db=sbtest --profile=master --report_interval=10 --table_size=40000000 --tables=32 --threads=128 --time=300 --warmup_time=60 run  # on client host bench@10.0.9.1:22")
	if n := strings.Count(r.stdout, "# on client host bench@10.0.9.2:22"); n != 7 {
		t.Errorf("%d loads from the second client host, want 7 (one per workload)", n)
	}
}

// Seed 002's plan: two clusters deployed in turn, BenchmarkSQL's tables
// loaded with 5000 warehouses and analyzed, one TPC-C run per terminals
// level on them, v5.0's global variables only on v5.0, compared on tpmC.
func TestSeed002PlanDryRun(t *testing.T) {
	r := starbench(t, nil, "check", "plans/seed002_tidb_tpcc_v50_vs_v40.star", "-p", "terminals=50,100")
	expect(t, r, 0, "OK",
		"tiup cluster deploy tpcc-v4-0-12 v4.0.12", "tiup cluster deploy tpcc-v5-0-0 v5.0.0",
		"starbench tpcc --layout benchmarksql -D tpcc --warehouses 5000 -T 32 prepare",
		"ANALYZE TABLE bmsql_item, bmsql_warehouse, bmsql_district, bmsql_customer, bmsql_history, bmsql_new_order, bmsql_oorder, bmsql_order_line, bmsql_stock, bmsql_config (database tpcc)",
		"starbench tpcc --layout benchmarksql -D tpcc --warehouses 5000 -T 100 --time 30m0s --interval 10s run",
		"tiup cluster destroy tpcc-v5-0-0 --yes", "write seed002.md, seed002.csv, seed002.html: tpmc by threads per version, source")
	for text, want := range map[string]int{"tpcc.run ": 4, "tpcc.prepare ": 2, "SET GLOBAL tidb_hashagg_final_concurrency = 1": 2,
		"SET GLOBAL tidb_enable_async_commit = 1": 1, "... 3 more statements": 1, "haproxy -f": 0, "command -v haproxy": 0} {
		if n := strings.Count(r.stdout, text); n != want {
			t.Errorf("%q listed %d times, want %d", text, n, want)
		}
	}
	// The terminals from a client host of their own, as the report's; with
	// HAProxy, it is looked for before the first deploy.
	r = starbench(t, nil, "check", "plans/seed002_tidb_tpcc_v50_vs_v40.star", "-p", "terminals=50,100", "-p", "client=bench@10.0.9.1", "-p", "haproxy_port=3390")
	expect(t, r, 0, "--time 30m0s --interval 10s run  # on client host bench@10.0.9.1:22")
	if n := strings.Count(r.stdout, "run  # on client host bench@10.0.9.1:22"); n != 4 {
		t.Errorf("%d TPC-C runs on the client host, want 4", n)
	}
	if check, deploy := strings.Index(r.stdout, "command -v haproxy"), strings.Index(r.stdout, "tiup cluster deploy"); check < 0 || check > deploy {
		t.Errorf("HAProxy is not looked for before the first deploy (at %d, the deploy at %d)", check, deploy)
	}
}

// Seed 004's plan: auto-increment tables prepared by sysbench, the
// random-key ones made by the report's DDL (each drop naming its schema),
// the third case's tables split into 10 regions, five rounds of the three
// cases with insert.lua (the report's test method and figures).
func TestSeed004PlanDryRun(t *testing.T) {
	r := starbench(t, nil, "check", "plans/seed004_tidb_insert_hotspot.star", "--target", "u:pw@tcp(10.100.0.1:4000)/test")
	expect(t, r, 0, "OK",
		"sysbench oltp_legacy/insert --mysql-db=sbtest_incr --table_size=10000 --tables=8 --threads=8 prepare",
		"DROP TABLE IF EXISTS sbtest_split.sbtest8",
		"CREATE TABLE sbtest8 (id bigint NOT NULL auto_random,",
		"SPLIT TABLE `sbtest1` BETWEEN (1000000000000000000) AND (9223372036854775807) REGIONS 10",
		"sysbench oltp_legacy/insert --mysql-db=sbtest_rand --oltp_test_mode=complex --report_interval=5 --table_size=10000 --tables=8 --threads=50 --time=600 run",
		"sysbench oltp_legacy/insert --mysql-db=sbtest_split --oltp_test_mode=complex --report_interval=5 --table_size=10000 --tables=8 --threads=50 --time=600 run",
		"write seed004.md, seed004.csv, seed004.html: tps, avg by round per case, source")
	for text, want := range map[string]int{"sysbench.run ": 15, "sysbench oltp_legacy/bulk_insert": 0, "SPLIT TABLE ": 8, "DROP TABLE IF EXISTS sbtest_rand.": 8, "TIKV_REGION_STATUS": 3} {
		if n := strings.Count(r.stdout, text); n != want {
			t.Errorf("%q listed %d times, want %d", text, n, want)
		}
	}
	if strings.Contains(r.stdout+r.stderr, ":pw@") {
		t.Error("the password is printed")
	}
}

// Seed 000's plan: each of the report's seven set-ups is a cluster whose
// topology tiup would take (checked by the tiup stand-in's parser, which
// keeps tiup's strict keys and port-conflict checks): two TiKV a machine
// on their NVMe disks, bound to NUMA nodes in the last set-up, two TiDB on
// one machine on two ports; with several TiDB servers each level is one
// together step of one sysbench per server.
func TestSeed000PlanDryRun(t *testing.T) {
	// With client hosts, every sysbench runs from one, in turn.
	r := starbench(t, nil, "check", "plans/seed000_tidb_numa_topologies.star", "-p", "clients=bench@10.0.9.1,bench@10.0.9.2",
		"-p", "setups=5.3.0-1tidb,5.3.0-3tidb-3hosts", "-p", "threads=150", "-p", "workloads=oltp_point_select")
	expect(t, r, 0, "--threads=150 --time=300 run  # on client host bench@10.0.9.1:22\n")
	if n, m := strings.Count(r.stdout, "# on client host bench@10.0.9.1:22"), strings.Count(r.stdout, "# on client host bench@10.0.9.2:22"); n != 3 || m != 1 {
		t.Errorf("loads from the client hosts: %d and %d, want 3 (the single server's run, parts 1 and 3) and 1", n, m)
	}
	res := dryRun(t, "../../plans/seed000_tidb_numa_topologies.star", "threads=150,300", "workloads=oltp_point_select")
	topologies := topologiesOf(res)
	together, runs := 0, 0
	for _, s := range res.Steps {
		switch s.Builtin {
		case "bench.together":
			together++
			if !strings.Contains(s.Text, "[2 oltp_point_select-t") {
				t.Errorf("together step: %s", s.Text)
			}
		case "sysbench.run":
			runs++
		}
	}
	// 7 set-ups; 3 with one TiDB (a run a level), 4 with several (a together step a level).
	if len(topologies) != 7 || runs != 3*2 || together != 4*2 {
		t.Fatalf("%d topologies, %d runs, %d together steps", len(topologies), runs, together)
	}
	checkTopologies(t, topologies)
	if !strings.Contains(topologies[3], "port: 4001") || strings.Contains(topologies[5], "numa_node") || !strings.Contains(topologies[6], "numa_node: \"1\"") ||
		!strings.Contains(topologies[6], "data_dir: /nvme1/tidb-data/tikv-20161") {
		t.Errorf("topologies:\n%s\n---\n%s", topologies[3], topologies[6])
	}
	// Two TiKV a machine as tiup's hybrid deployment topology has them:
	// labelled by machine, PD placing replicas by that label, the block
	// cache and read pool sized for two (64 GB, 32 cores: 16GB, 12).
	for _, want := range []string{`replication.location-labels:\n\s+- host\n`, `storage.block-cache.capacity: 16GB\n`,
		`readpool.unified.max-thread-count: 12\n`, `server.labels:\n\s+host: tikv-10.0.2.8\n`} {
		if !regexp.MustCompile(want).MatchString(topologies[0]) {
			t.Errorf("topology lacks %q:\n%s", want, topologies[0])
		}
	}
	if n := strings.Count(topologies[0], "server.labels:"); n != 6 {
		t.Errorf("%d TiKV labelled, want 6", n)
	}
	// The mounts and the machines' size are parameters; no ANALYZE unless
	// asked (the report has none); HAProxy is looked for before the first
	// deploy, and runs with the control host's CPUs as its threads.
	res = dryRun(t, "../../plans/seed000_tidb_numa_topologies.star", "threads=150", "workloads=oltp_point_select",
		"nvme_mounts=/data/a,/data/b/", "tikv_memory_gb=256", "tikv_cores=96", "setups=5.3.0-1tidb-haproxy", "analyze=true")
	top := topologiesOf(res)[0]
	for _, want := range []string{"data_dir: /data/b/tidb-data/tikv-20161", "storage.block-cache.capacity: 64GB", "readpool.unified.max-thread-count: 38"} {
		if !strings.Contains(top, want) {
			t.Errorf("topology lacks %q:\n%s", want, top)
		}
	}
	var order []string
	for _, s := range res.Steps {
		switch {
		case strings.Contains(s.Text, "command -v haproxy"):
			order = append(order, "check")
		case strings.HasPrefix(s.Text, "tiup cluster deploy"):
			order = append(order, "deploy")
		case s.Builtin == "db.analyze":
			order = append(order, "analyze")
		case s.Text == "nproc":
			order = append(order, "nproc")
		}
	}
	if strings.Join(order, " ") != "check deploy nproc analyze" {
		t.Errorf("steps in order: %v, want the HAProxy check before the deploy, nproc for its threads, one ANALYZE", order)
	}
	for _, s := range dryRun(t, "../../plans/seed000_tidb_numa_topologies.star", "threads=150", "workloads=oltp_point_select").Steps {
		if s.Builtin == "db.analyze" {
			t.Errorf("ANALYZE without -p analyze=true: %s", s.Text)
		}
	}
}

// dryRun evaluates a plan in dry-run mode in this process, so that a test
// can read its steps' arguments.
func dryRun(t *testing.T, plan string, params ...string) *runner.Result {
	t.Helper()
	var out bytes.Buffer
	res, err := runner.Evaluate(context.Background(), runner.Options{PlanFile: plan, DryRun: true, Predeclared: builtins.Predeclared(),
		Stdlib: stdlib.FS, Stdout: &out, Stderr: &out, Params: params})
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	return res
}

// topologiesOf are the tiup topology files a dry run writes.
func topologiesOf(res *runner.Result) []string {
	var out []string
	for _, s := range res.Steps {
		if path, _ := s.Args["path"].(string); s.Builtin == "ssh.write_file" && strings.HasSuffix(path, "topology.yaml") {
			out = append(out, s.Args["content"].(string))
		}
	}
	return out
}

// checkTopologies fails for a topology tiup would refuse (the tiup
// stand-in's parser keeps tiup's strict keys and port-conflict checks).
func checkTopologies(t *testing.T, topologies []string) {
	t.Helper()
	for i, text := range topologies {
		if _, err := tiupstub.ParseTopology([]byte(text)); err != nil {
			t.Errorf("topology %d: tiup would refuse it: %v\n%s", i+1, err, text)
		}
	}
}

// The TiDB seed plans deploy topologies tiup takes.
func TestSeedPlanTopologies(t *testing.T) {
	for plan, want := range map[string]int{"../../plans/seed002_tidb_tpcc_v50_vs_v40.star": 2, "../../plans/seed003_tidb_v520_vs_v511.star": 2} {
		topologies := topologiesOf(dryRun(t, plan))
		if len(topologies) != want {
			t.Errorf("%s: %d topologies, want %d", plan, len(topologies), want)
		}
		checkTopologies(t, topologies)
	}
}

// Every plan in plans/ checks offline, as its header says: no --target
// given, a named target is a placeholder in the listing (exit 0).
func TestEveryPlanChecksOffline(t *testing.T) {
	plans, err := filepath.Glob("../../plans/*.star")
	if err != nil || len(plans) < 6 {
		t.Fatalf("plans: %v %v", plans, err)
	}
	for _, plan := range plans {
		rel := strings.TrimPrefix(plan, "../../")
		r := starbench(t, nil, "check", rel)
		if r.code != 0 {
			t.Errorf("starbench check %s: exit %d\n%s", rel, r.code, r.stderr)
		}
	}
	r := starbench(t, nil, "check", "plans/seed001_tidb305_three_sysbench.star")
	expect(t, r, 0, "connect tidb1 (not given)", "[3 oltp_update_non_index-t128] on tidb3 (not given): sysbench oltp_update_non_index")
	// A real run still needs them.
	expect(t, starbench(t, nil, "run", "plans/seed001_tidb305_three_sysbench.star", "--out", filepath.Join(t.TempDir(), "r")), 1,
		`no target named "tidb1": give it on the command line with --target tidb1=DSN`)
}

// check --verbose shows what a reviewer compares with the report: every
// statement of a batch (seed 003's whole SET GLOBAL list) and the content
// of the files a step writes (the topology with its server configs);
// without it the list says it is abridged.
func TestCheckVerboseShowsWholeSteps(t *testing.T) {
	args := []string{"check", "plans/seed003_tidb_v520_vs_v511.star", "-p", "versions=v5.1.1", "-p", "workloads=oltp_point_select", "-p", "threads=150"}
	r := starbench(t, nil, append(args, "--verbose")...)
	expect(t, r, 0, "| SET GLOBAL tidb_enable_1pc = 1;", "| SET GLOBAL tidb_enable_clustered_index = 1;",
		"|         raftstore.apply-pool-size: 3", "|         readpool.unified.max-thread-count: 20", "|     - host: 10.0.1.10")
	r = starbench(t, nil, args...)
	expect(t, r, 0, "... 3 more statements", "(abridged: --verbose shows every statement of a batch")
	if strings.Contains(r.stdout, "| SET GLOBAL") {
		t.Errorf("check without --verbose shows the whole batch:\n%s", r.stdout)
	}
}

// Seed 004 end to end at its small scale, as its header says to run it on
// MariaDB: the inserts (five rounds of the three cases) against a private
// MariaDB, cases 2 and 3 with the ids TiDB's AUTO_RANDOM would give; the
// TiDB-only steps (the report's AUTO_RANDOM DDL, SPLIT TABLE, the region
// query) against a private tidb-server, which has no PD for the region
// query; the end is the report's table, the published figures beside the
// rerun, and a note of what stood in.
func TestSeed004PlanRunsAtSmallScale(t *testing.T) {
	t.Parallel() // time-bound runs on servers of their own: two seeds at once take the time of one
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{})
	real := sandboxtest.FreshTiDB(t, sandbox.TiDBOptions{Database: "test"})
	out := outDir(t)
	r := starbench(t, nil, "run", "plans/seed004_tidb_insert_hotspot.star", "-o", out, "-p", "scale=small", "-p", "tidb=false",
		"-p", "tidb_target=tidb", "--target", m.Config().FormatDSN(), "--target", "tidb="+real.DSN())
	expect(t, r, 0, "tps, avg by round per case, source\nround", "mean  ", "incr published tps", "split rerun avg ms",
		"Not TiDB: cases rand and split inserted into plain BIGINT keys the ids TiDB's AUTO_RANDOM would give (auto_random_ids); the AUTO_RANDOM DDL, SPLIT TABLE and the region query went to target tidb.",
		"sbtest_split.sbtest1 regions by store: unavailable: this TiDB server has no PD")
	if n := strings.Count(r.stdout, "regions by store"); n != 3 {
		t.Errorf("%d region queries, want one per case", n)
	}
	// The TiDB-only statements took on the real TiDB.
	if ddl := tidbQuery(t, real, "SHOW CREATE TABLE sbtest_rand.sbtest1"); !strings.Contains(ddl[0][1], "AUTO_RANDOM") {
		t.Errorf("tidb_target's sbtest_rand.sbtest1 is not the report's AUTO_RANDOM table:\n%s", ddl[0][1])
	}
	if regions := tidbQuery(t, real, "SHOW TABLE sbtest_split.sbtest1 REGIONS"); len(regions) < 10 {
		t.Errorf("tidb_target's sbtest_split.sbtest1 has %d regions after SPLIT TABLE ... REGIONS 10", len(regions))
	}
	steps, _ := filepath.Glob(filepath.Join(out, results.StepsDir, "*-oltp_legacy*"))
	if len(steps) != 15 {
		t.Errorf("%d runs, want 5 rounds x 3 cases", len(steps))
	}
	// Each run recorded what the server did: every insert the client
	// counted, the server counted (Com_insert), and this host's CPU.
	expect(t, r, 0, "incr, run 1: CPUs each server used: no server endpoint watched")
	for _, dir := range steps {
		sum := readSummary(t, dir)
		kinds := map[string]results.TelemetrySeries{}
		for _, ts := range sum.Telemetry {
			kinds[ts.Kind] = ts
		}
		status, host := kinds["status"], kinds["host"]
		if inserts := status.Totals["Com_insert"]; math.Abs(inserts-float64(sum.Events)) > 0.05*float64(sum.Events) || host.Points == 0 {
			t.Errorf("%s: the server counted %v inserts of the client's %d; the host has %d points", filepath.Base(dir), inserts, sum.Events, host.Points)
		}
	}
	// What MariaDB received: AUTO_RANDOM-shaped ids in the random-key tables,
	// increasing ones in the auto-increment tables.
	admin, err := sql.Open("mysql", m.Config().FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	for db, manyShards := range map[string]bool{"sbtest_incr": false, "sbtest_rand": true, "sbtest_split": true} {
		var rows, shards int
		if err := admin.QueryRow("SELECT COUNT(*), COUNT(DISTINCT id >> 58) FROM "+db+".sbtest1").Scan(&rows, &shards); err != nil {
			t.Fatal(err)
		}
		if rows == 0 || (shards > 1) != manyShards {
			t.Errorf("%s.sbtest1: %d rows, %d shard values", db, rows, shards)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "seed004-published", results.ManifestFile)); err != nil {
		t.Errorf("the published figures are not kept with the run: %v", err)
	}
}

// Seed 003 end to end at its small scale: two clusters deployed in turn
// through the tiup stand-in over a private sshd, HAProxy (the real one) in
// front of their three TiDB servers, TiDB's global variables and
// configuration, sysbench's tables prepared and ANALYZEd, a backup taken
// and restored before every level of the four workloads, each cluster
// destroyed; the end is the report's table, each version's QPS and p95
// per level beside the published figures, with the per-level and mean
// changes.
func TestSeed003PlanRunsAtSmallScale(t *testing.T) {
	t.Parallel() // time-bound runs on servers of their own: two seeds at once take the time of one
	clusters := []string{"sb-v5-1-1", "sb-v5-2-0"}
	rig := newTiDBRig(t, 3, clusters)
	other := otherHosts(6)
	hosts := append(append(append([]string{}, other[:3]...), rig.tidbHosts...), other[3:]...)
	out := outDir(t)
	args := append([]string{"run", "plans/seed003_tidb_v520_vs_v511.star", "-o", out, "-p", "scale=small",
		"-p", "hosts=" + strings.Join(hosts, ","), "-p", "haproxy_bind=127.0.0.1", "-p", fmt.Sprintf("haproxy_port=%d", freePort(t))}, rig.params()...)
	r := starbench(t, nil, args...)
	expect(t, r, 0, "workload=oltp_point_select: qps, p95 by threads per version, source",
		"v5.2.0 rerun qps vs v5.1.1 rerun", "v5.2.0 published qps vs v5.1.1 published", "\n   mean  ", "+11.03 %")
	for _, name := range clusters {
		if rig.stub.Deployed(name) {
			t.Errorf("cluster %s is still deployed", name)
		}
	}
	// The report's global variables reached the TiDB servers (through
	// HAProxy, whichever it chose); 2 versions x 4 workloads x 2 levels ran.
	var globals []string
	for _, f := range rig.fronts {
		for k, v := range f.Globals() {
			globals = append(globals, k+"="+v)
		}
	}
	if all := strings.Join(globals, " "); !strings.Contains(all, "tidb_enable_clustered_index=1") || !strings.Contains(all, "tidb_enable_1pc=1") {
		t.Errorf("the report's global variables did not reach a TiDB server: %v", globals)
	}
	steps, _ := filepath.Glob(filepath.Join(out, results.StepsDir, "*-oltp_*"))
	if len(steps) != 16 {
		t.Errorf("%d sysbench runs, want 16", len(steps))
	}
	for _, f := range []string{"seed003.md", "seed003.csv", "seed003.html", filepath.Join("seed003-published", results.ManifestFile)} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// Seed 002 end to end at its small scale: two clusters deployed in turn
// through the tiup stand-in, each version's TiKV parameters and global
// variables, BenchmarkSQL's tables loaded (1 warehouse) and ANALYZEd,
// TPC-C at two terminal levels through the three TiDB servers, each
// cluster destroyed; the end is tpmC per version with the change and its
// mean, beside the report's only figure, +36 %.
func TestSeed002PlanRunsAtSmallScale(t *testing.T) {
	t.Parallel() // time-bound runs on servers of their own: two seeds at once take the time of one
	clusters := []string{"tpcc-v4-0-12", "tpcc-v5-0-0"}
	rig := newTiDBRig(t, 3, clusters)
	other := otherHosts(6)
	hosts := append(append(append([]string{}, other[:3]...), rig.tidbHosts...), other[3:]...)
	out := outDir(t)
	r := starbench(t, nil, append([]string{"run", "plans/seed002_tidb_tpcc_v50_vs_v40.star", "-o", out, "-p", "scale=small",
		"-p", "hosts=" + strings.Join(hosts, ",")}, rig.params()...)...)
	expect(t, r, 0, "tpmc by threads per version, source", "v5.0.0 rerun tpmC vs v4.0.12 rerun", "v5.0.0 published tpmC vs v4.0.12 published",
		"+36.00 %")
	steps, _ := filepath.Glob(filepath.Join(out, results.StepsDir, "*-tpcc*"))
	var runs int
	for _, dir := range steps {
		s, err := results.ReadSummary(dir)
		if err == nil && s.Metrics["tpmC"] > 0 {
			runs++
		}
	}
	if runs != 4 {
		t.Errorf("%d TPC-C runs with a tpmC, want 2 versions x 2 levels (%v)", runs, steps)
	}
	var globals []string
	for _, f := range rig.fronts {
		for k, v := range f.Globals() {
			globals = append(globals, k+"="+v)
		}
	}
	if all := strings.Join(globals, " "); !strings.Contains(all, "tidb_enable_async_commit=1") {
		t.Errorf("v5.0's global variables did not reach a TiDB server: %v", globals)
	}
}

// Seed 000 end to end at its small scale: the report's seven set-ups, each
// a cluster deployed through the tiup stand-in (two TiKV a machine on its
// two disks, bound to NUMA nodes in the last; a second TiDB on one machine
// on port 4001), HAProxy (the real one) in front in one set-up, one
// sysbench per TiDB server run together where there are several; the end
// is a table per set-up and workload at the per-server level, beside the
// report's figures.
func TestSeed000PlanRunsAtSmallScale(t *testing.T) {
	t.Parallel() // time-bound runs on servers of their own: two seeds at once take the time of one
	var clusters []string
	for _, s := range []string{"4.0.11-1tidb", "5.3.0-1tidb", "5.3.0-1tidb-haproxy", "5.3.0-2tidb-1host", "5.3.0-2tidb-2hosts",
		"5.3.0-3tidb-3hosts", "5.3.0-3tidb-3hosts-numa-tikv"} {
		clusters = append(clusters, "numa-"+strings.ReplaceAll(s, ".", "-"))
	}
	rig := newTiDBRig(t, 3, clusters)
	rig.addTiDB(rig.tidbHosts[0], 4001)
	other := otherHosts(4)
	out := outDir(t)
	r := starbench(t, nil, append([]string{"run", "plans/seed000_tidb_numa_topologies.star", "-o", out, "-p", "scale=small",
		"-p", "pd=" + other[0], "-p", "tidb_hosts=" + strings.Join(rig.tidbHosts, ","), "-p", "tikv_hosts=" + strings.Join(other[1:], ","),
		"-p", "haproxy_bind=127.0.0.1", "-p", fmt.Sprintf("haproxy_port=%d", freePort(t))}, rig.params()...)...)
	expect(t, r, 0, "setup=4.0.11-1tidb, workload=oltp_update_non_index: tps, qps, p95 by threads per source",
		"setup=5.3.0-3tidb-3hosts-numa-tikv, workload=oltp_read_write: tps, qps, p95 by threads per source",
		"  2 ×2  ", "  2 ×3  ", "150 ×3  ", "Together steps are shown per server")
	steps, _ := filepath.Glob(filepath.Join(out, results.StepsDir, "*"))
	var single, together int
	for _, dir := range steps {
		s, err := results.ReadSummary(dir)
		if err != nil {
			continue
		}
		if len(s.Parts) > 0 {
			together++
		} else {
			single++
		}
	}
	// 3 set-ups of one TiDB and 4 of several, 4 workloads each.
	if single != 12 || together != 16 {
		t.Errorf("%d runs of one sysbench, %d of several at once; want 12 and 16", single, together)
	}
	for _, name := range clusters {
		if rig.stub.Deployed(name) {
			t.Errorf("cluster %s is still deployed", name)
		}
	}
}

// Seeds 000, 002 and 003 on one MariaDB alone (-p deploy=false, and
// -p tidb=false for 002 and 003, as their headers say to try them without
// tiup and without TiDB): every set-up or version runs
// against the target given, the tables of the one before dropped by name,
// and the run ends in the report's table. Small sizes given as -p at full
// scale keep it to seconds.
func TestSeedPlansRunOnOneServerWithoutTiup(t *testing.T) {
	t.Parallel() // time-bound runs on a server of their own
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{})
	target := m.Config().FormatDSN()
	countSteps := func(out string, pred func(*results.Summary) bool) int {
		steps, _ := filepath.Glob(filepath.Join(out, results.StepsDir, "*"))
		n := 0
		for _, dir := range steps {
			if s, err := results.ReadSummary(dir); err == nil && pred(s) {
				n++
			}
		}
		return n
	}

	out := outDir(t)
	r := starbench(t, nil, "run", "plans/seed003_tidb_v520_vs_v511.star", "-o", out, "-p", "deploy=false", "-p", "tidb=false", "-p", "backup_mode=sql",
		"-p", "workloads=oltp_update_index", "-p", "threads=2", "-p", "tables=2", "-p", "table_size=500", "-p", "time=1s", "--target", target)
	expect(t, r, 0, "workload=oltp_update_index: qps, p95 by threads per version, source", "v5.2.0 rerun qps vs v5.1.1 rerun",
		"Dropping table 'sbtest.sbtest1' (if_exists=drop)")
	if n := countSteps(out, func(s *results.Summary) bool { return s.Workload.Name == "oltp_update_index" }); n != 2 {
		t.Errorf("seed 003: %d sysbench runs, want one per version", n)
	}
	if strings.Contains(r.stdout+r.stderr, "tiup") {
		t.Errorf("seed 003 without tiup ran tiup:\n%s", r.stdout)
	}
	// The data directories of a cluster cannot be copied without one.
	expect(t, starbench(t, nil, "run", "plans/seed003_tidb_v520_vs_v511.star", "-o", outDir(t), "-p", "deploy=false", "--target", target),
		1, "plans/seed003_tidb_v520_vs_v511.star:", "deploy=false: there are no data directories to copy; give -p backup_mode=sql")

	out = outDir(t)
	r = starbench(t, nil, "run", "plans/seed002_tidb_tpcc_v50_vs_v40.star", "-o", out, "-p", "deploy=false", "-p", "tidb=false",
		"-p", "warehouses=1", "-p", "load_workers=1", "-p", "terminals=2", "-p", "time=2s", "--target", target)
	expect(t, r, 0, "tpmc by threads per version, source", "v5.0.0 rerun tpmC vs v4.0.12 rerun", "+36.00 %")
	if n := countSteps(out, func(s *results.Summary) bool { return s.Metrics["tpmC"] > 0 }); n != 2 {
		t.Errorf("seed 002: %d TPC-C runs with a tpmC, want one per version", n)
	}

	out = outDir(t)
	r = starbench(t, nil, "run", "plans/seed000_tidb_numa_topologies.star", "-o", out, "-p", "deploy=false",
		"-p", "setups=5.3.0-1tidb,5.3.0-3tidb-3hosts", "-p", "workloads=oltp_point_select", "-p", "threads=2",
		"-p", "tables=2", "-p", "table_size=500", "-p", "time=1s", "--target", target)
	expect(t, r, 0, "setup=5.3.0-3tidb-3hosts, workload=oltp_point_select: tps, qps, p95 by threads per source", "  2 ×3  ",
		"5.3.0-3tidb-3hosts, oltp_point_select, 2 threads: disk MB/s written by host: host-local ")
	if n := countSteps(out, func(s *results.Summary) bool { return len(s.Parts) == 3 }); n != 1 {
		t.Errorf("seed 000: %d runs of three sysbench at once, want 1", n)
	}
}
