package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/runner/results"
)

// A mix declared in a .star file runs from the command line against a real
// server: prepare, run (a results folder that report and compare read),
// cleanup, and one clear message with exit status 2 for a bad command line
// or a mix the file does not define.
func TestMixCommandLine(t *testing.T) {
	m, admin := serverWith(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "shop.star")
	src := `load("@stdlib//oltp.star", "oltp_read_write")

rw = oltp_read_write(table_size = 200)

shop = mix.define("shop",
    tables = {"accounts": "id BIGINT PRIMARY KEY, hits BIGINT NOT NULL"},
    data = {"accounts": mix.rows(100, id = mix.sequence(), hits = 0)},
    transactions = {"pay": mix.txn([
        mix.stmt("SELECT id FROM accounts WHERE id = ?", mix.uniform(1, 100)),
        mix.stmt("UPDATE accounts SET hits = hits + 1 WHERE id = ?", mix.ref("id")),
    ])})
`
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	target := []string{"--target", m.DSN()}
	mix := func(args ...string) cliResult {
		return starbench(t, []string{"STARBENCH_TARGET="}, append(append([]string{"mix", file}, target...), args...)...)
	}
	expect(t, mix("run"), 2, "shop.star defines several mixes (rw, shop): name one with --mix")
	expect(t, mix("--mix", "nope", "run"), 2, "--mix nope: shop.star defines no such mix (it defines rw, shop)")
	expect(t, mix("--mix", "shop", "--threads", "0", "run"), 2, "want --threads >= 1")
	expect(t, mix("--mix", "shop", "fly"), 2, `unknown command "fly": want prepare, run or cleanup`)

	expect(t, mix("--mix", "shop", "--threads", "2", "prepare"), 0, "Creating table 'sbtest.accounts'...", "Loading 100 rows into 'sbtest.accounts'...")
	expect(t, mix("--mix", "shop", "prepare"), 1, "tables already exist: sbtest.accounts")
	outs := []string{filepath.Join(dir, "a"), filepath.Join(dir, "b")}
	for _, out := range outs {
		r := mix("--mix", "shop", "--threads", "2", "--time", "0", "--events", "200", "--report-interval", "1s", "--out", out, "run")
		expect(t, r, 0, "starbench mix shop (mix-gen1/", "Transactions:", "results: "+out+" (completed)")
		data, err := os.ReadFile(filepath.Join(out, "steps", "2-shop-t2", results.SummaryFile))
		if err != nil {
			t.Fatal(err)
		}
		var sum results.Summary
		if err := json.Unmarshal(data, &sum); err != nil {
			t.Fatal(err)
		}
		if sum.Events != 200 || len(sum.Kinds) != 1 || sum.Kinds[0].Name != "pay" || sum.Kinds[0].Events != 200 || sum.Workload.Name != "shop" {
			t.Errorf("summary: %d events, kinds %+v, workload %+v", sum.Events, sum.Kinds, sum.Workload)
		}
	}
	rs, err := admin.Query(context.Background(), "SELECT SUM(hits) FROM sbtest.accounts")
	if err != nil || len(rs.Rows) != 1 || fmt.Sprint(rs.Rows[0][0]) != "400" {
		t.Errorf("hits after two runs of 200 (each a read and an update of its row): %v, %v", rs, err)
	}
	expect(t, starbench(t, nil, "compare", outs[0], outs[1]), 0, "shop")

	// Two segments of one load of 3 threads and 300 events, merged: the
	// whole load's counts, every event's update on the server.
	expect(t, mix("--mix", "shop", "--threads", "3", "--segment", "1/2", "run"), 2,
		"mix: --segment 1/2 needs --seed=N, the same for every segment")
	expect(t, mix("--mix", "shop", "--threads", "3", "--seed", "7", "--segment", "1/2", "prepare"), 2,
		"mix: --segment slices a run; prepare runs whole")
	var segs []string
	for i := 1; i <= 2; i++ {
		out := filepath.Join(dir, fmt.Sprintf("seg%d", i))
		r := mix("--mix", "shop", "--threads", "3", "--time", "0", "--events", "300", "--seed", "7", "--segment", fmt.Sprintf("%d/2", i), "--out", out, "run")
		expect(t, r, 0, "results: "+out+" (completed)")
		segs = append(segs, out)
	}
	merged := filepath.Join(dir, "merged")
	expect(t, starbench(t, nil, "merge", segs[0], segs[1], "-o", merged), 0)
	data, err := os.ReadFile(filepath.Join(merged, results.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	var sum results.Summary
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Events != 300 || sum.Threads != 3 || len(sum.Kinds) != 1 || sum.Kinds[0].Events != 300 {
		t.Errorf("merged segments: %d events on %d threads, kinds %+v; want 300 on 3", sum.Events, sum.Threads, sum.Kinds)
	}
	rs, err = admin.Query(context.Background(), "SELECT SUM(hits) FROM sbtest.accounts")
	if err != nil || len(rs.Rows) != 1 || fmt.Sprint(rs.Rows[0][0]) != "700" {
		t.Errorf("hits after two segments of one load of 300: %v, %v", rs, err)
	}
	expect(t, mix("--mix", "shop", "cleanup"), 0, "Dropping table 'sbtest.accounts'...")
	expect(t, mix("--mix", "rw", "--dry-run", "run"), 0, "mix run oltp_read_write_mix (mix-gen1/")
}

// plans/insert_hotspot_mix.star at its small scale against a real server:
// the three key schemes' runs in each round, the report's table, and what
// reached the tables: the loaded rows plus one row per counted insert,
// seq's keys one sequence without gaps across its tables, and nothing of
// any scheme left when keep is false.
func TestInsertHotspotMixPlan(t *testing.T) {
	m, admin := serverWith(t)
	ctx := context.Background()
	run := func(keep bool, scale ...string) (string, cliResult) {
		out := outDir(t)
		args := []string{"run", "plans/insert_hotspot_mix.star", "-o", out, "-p", "tidb=false", "-p", fmt.Sprintf("keep=%v", keep), "--target", m.DSN()}
		for _, p := range scale {
			args = append(args, "-p", p)
		}
		return out, starbench(t, nil, args...)
	}
	out, r := run(true, "scale=small")
	expect(t, r, 0, "incr, run 2: TPS", "seq, run 2: TPS", "rand, run 2: TPS", "tps, avg by round per scheme",
		"Not TiDB: rand's keys are drawn by the client")
	if _, err := os.Stat(filepath.Join(out, "insert_hotspot.md")); err != nil {
		t.Errorf("the table is not in the results folder: %v", err)
	}
	// The folder's report.html links the plan's own table.
	if page, err := os.ReadFile(filepath.Join(out, results.ReportHTML)); err != nil ||
		!strings.Contains(string(page), `<a href="insert_hotspot.html">insert_hotspot.html</a>, <a href="insert_hotspot.md">insert_hotspot.md</a>`) {
		t.Errorf("report.html does not link the plan's table (%v)", err)
	}
	events := map[string]int64{}
	steps, _ := filepath.Glob(filepath.Join(out, results.StepsDir, "*-insert_*"))
	for _, dir := range steps {
		s, err := results.ReadSummary(dir)
		if err != nil {
			t.Fatal(err)
		}
		events[s.Tags["scheme"]] += s.Events
	}
	if len(steps) != 6 || len(events) != 3 {
		t.Fatalf("steps %v, events by scheme %v: want 2 rounds of 3 schemes", steps, events)
	}
	count := func(query string) int64 {
		t.Helper()
		rs, err := admin.Query(ctx, query)
		if err != nil || len(rs.Rows) != 1 {
			t.Fatalf("%s: %v %v", query, rs, err)
		}
		var n int64
		fmt.Sscan(fmt.Sprint(rs.Rows[0][0]), &n)
		return n
	}
	union := func(scheme, expr string) string {
		var parts []string
		for i := 1; i <= 8; i++ {
			parts = append(parts, fmt.Sprintf("SELECT id FROM sbtest.%s_t%d", scheme, i))
		}
		return fmt.Sprintf("SELECT %s FROM (%s) AS u", expr, strings.Join(parts, " UNION ALL "))
	}
	for scheme, loaded := range map[string]int64{"incr": 800, "seq": 800, "rand": 0} {
		if n := count(union(scheme, "COUNT(*)")); n != loaded+events[scheme] || events[scheme] == 0 {
			t.Errorf("%s: %d rows, want %d loaded and %d inserted", scheme, n, loaded, events[scheme])
		}
	}
	if top := count(union("seq", "MAX(id)")); top != 100+events["seq"] {
		t.Errorf("seq: the largest key is %d, want %d (100 loaded a table, then one sequence)", top, 100+events["seq"])
	}
	// Once more, one round of a second each, without keep: every table dropped.
	_, r = run(false, "rounds=1", "time=1s", "table_size=100", "threads=2", "report_interval=1s")
	expect(t, r, 0, "Dropping table 'sbtest.rand_t8'...")
	if n := count("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'sbtest'"); n != 0 {
		t.Errorf("%d tables left in sbtest after a run without keep", n)
	}
}

// The standard library's YCSB workloads run from the command line by
// their @stdlib// name (the "//" kept), a workload a global of the module.
func TestMixRunsYCSBFromTheStandardLibrary(t *testing.T) {
	out := outDir(t)
	r := starbench(t, nil, "mix", "@stdlib//ycsb.star", "--mix", "b", "--time", "0", "--events", "200", "--out", out, "run")
	expect(t, r, 0, "read ", "update ", "results: "+out+" (completed)")
	expect(t, starbench(t, nil, "mix", "@stdlib//nope.star", "--mix", "b", "run"), 2, "cannot read plan @stdlib//nope.star: no such file in the standard library")
}

// A mix declared wrongly is a bad plan: exit 2, as the README says, with
// the plan's line.
func TestMixDeclarationErrorsExit2(t *testing.T) {
	expect(t, starbench(t, nil, "run", "testdata/mix/error_table.star", "--out", outDir(t)), 2,
		"error_table.star:6:15", "mix.define: shop: transaction buy: statement 1: names table customers")
	expect(t, starbench(t, nil, "run", "testdata/mix/error_weight.star", "--dry-run"), 2, "mix.txn: weight must be positive, got 0")
}

// A mix's run counts a lock wait timeout (1205, one of sysbench's default
// --mysql-ignore-errors with 1213 and 1020) and goes on, as sysbench does,
// instead of stopping at it: a row another session holds locked makes
// every event of a 2 s run wait its 1 s and fail, and the run completes
// with those errors counted by code.
func TestMixGoesOnAfterSysbenchsIgnoredErrors(t *testing.T) {
	m, _ := serverWith(t, "SET GLOBAL innodb_lock_wait_timeout = 1",
		"CREATE TABLE sbtest.locked (id INT PRIMARY KEY, v INT NOT NULL)", "INSERT INTO sbtest.locked VALUES (1, 0)")
	holder, err := db.Open(context.Background(), m.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	for _, q := range []string{"BEGIN", "SELECT v FROM sbtest.locked WHERE id = 1 FOR UPDATE"} {
		if _, err := holder.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "locked.star")
	src := `locked = mix.define("locked",
    tables = {"locked": "id INT PRIMARY KEY, v INT NOT NULL"},
    data = {"locked": mix.rows(1, id = 1, v = 0)},
    transactions = {"bump": mix.txn([mix.stmt("UPDATE locked SET v = v + 1 WHERE id = 1")])})
`
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	r := starbench(t, []string{"STARBENCH_TARGET="}, "mix", file, "--target", m.DSN(), "--time", "2s", "--out", out, "run")
	expect(t, r, 0, "results: "+out+" (completed)")
	steps, _ := filepath.Glob(filepath.Join(out, results.StepsDir, "*-locked-t1"))
	if len(steps) != 1 {
		t.Fatalf("step folders %v", steps)
	}
	sum, err := results.ReadSummary(steps[0])
	if err != nil {
		t.Fatal(err)
	}
	if sum.ErrorsByCode["1205"] < 1 || sum.Events != 0 {
		t.Errorf("errors by code %v, %d events: want lock wait timeouts counted and no event through", sum.ErrorsByCode, sum.Events)
	}
}
