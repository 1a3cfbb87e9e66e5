package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/builtins/tpcc"
	"github.com/starbench/starbench/internal/sandbox"
	"github.com/starbench/starbench/internal/testutil/gotpctest"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
	"github.com/starbench/starbench/runner/results"
)

// `starbench tpcc` with go-tpc's command lines against a real server:
// prepare, check, run, a broken condition, bad input, cleanup.
func TestTPCCCommandLines(t *testing.T) {
	m, c := serverWith(t, "CREATE DATABASE tpcc", "CREATE DATABASE empty", "CREATE DATABASE other",
		"CREATE TABLE other.warehouse (w_id INT PRIMARY KEY, w_ytd DECIMAL(12,2))")
	ctx := context.Background()
	host, port, _ := strings.Cut(m.Config().Addr, ":")
	conn := []string{"-H", host, "-P", port, "-U", "root", "-p", m.Password()}
	tpcc := func(extra ...string) cliResult {
		return starbench(t, nil, append(append([]string{"tpcc"}, conn...), extra...)...)
	}
	noPassword := func(r cliResult) {
		if strings.Contains(r.stdout+r.stderr, m.Password()) {
			t.Errorf("password printed:\n%s\n%s", r.stdout, r.stderr)
		}
	}

	// A load without --seed draws one, and records its C_LAST beside
	// go-tpc's tables for the runs (clause 2.1.6.1).
	r := tpcc("-D", "tpcc", "--warehouses", "1", "-T", "2", "--no-check", "prepare")
	expect(t, r, 0, "loaded ", "rows into 9 tables", "Creating table 'tpcc.starbench_tpcc_load' (starbench's record of the load's C constants)")
	noPassword(r)
	seed := regexp.MustCompile(`\bseed (\d+)\n`).FindStringSubmatch(r.stdout)
	if seed == nil {
		t.Fatalf("prepare printed no seed:\n%s", r.stdout)
	}
	loadSeed, _ := strconv.ParseUint(seed[1], 10, 64)
	loadCLast := seedCLast(loadSeed)
	r = tpcc("-D", "tpcc", "--warehouses", "1", "prepare")
	expect(t, r, 1, "tables already exist: tpcc.item")

	r = tpcc("-D", "tpcc", "--warehouses", "1", "check")
	expect(t, r, 0, "3.3.2.1 ", "3.3.2.12", "pass")

	out := outDir(t)
	r = tpcc("-D", "tpcc", "--warehouses", "1", "-T", "2", "--count", "200", "--interval", "1s", "--seed", "7", "--out", out, "run")
	expect(t, r, 0, "[Summary] NEW_ORDER - Takes(s):", "[Summary] PAYMENT - Takes(s):", "tpmC: ", "efficiency: ", "tpmTotal: ",
		"results: "+out+" (completed)", fmt.Sprintf("C_LAST: the load's %d (from tpcc.starbench_tpcc_load), the run's ", loadCLast))
	noPassword(r)
	for _, f := range []string{"summary.json", "intervals.csv", "latency.hlog", "output.txt", "manifest.json"} {
		data, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Errorf("results folder lacks %s", f)
		}
		if bytes.Contains(data, []byte(m.Password())) {
			t.Errorf("%s holds the password", f)
		}
	}
	summary, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	for _, w := range []string{`"tpmC"`, `"efficiency"`, `"new_order"`, `"stock_level"`} {
		if !bytes.Contains(summary, []byte(w)) {
			t.Errorf("summary.json lacks %s:\n%s", w, summary)
		}
	}
	var cLast struct {
		Options struct {
			Load *int `json:"c_last_load"`
			Run  int  `json:"c_last_run"`
		} `json:"options"`
	}
	if err := json.Unmarshal(summary, &cLast); err != nil || cLast.Options.Load == nil || *cLast.Options.Load != loadCLast ||
		!validCLastDelta(loadCLast, cLast.Options.Run) {
		t.Errorf("summary.json's C_LAST: %+v (%v), want the load's %d and a run's at 65..119 from it", cLast.Options, err, loadCLast)
	}
	expect(t, starbench(t, nil, "report", out), 0, "tpcc")

	// The same run in two segments at once, merged: one thread and 100
	// transactions each, the transactions by kind summed.
	segs := []string{filepath.Join(t.TempDir(), "seg1"), filepath.Join(t.TempDir(), "seg2")}
	var wg sync.WaitGroup
	for i, dir := range segs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := tpcc("-D", "tpcc", "--warehouses", "1", "-T", "2", "--count", "200", "--interval", "1s", "--seed", "7",
				"--segment", fmt.Sprintf("%d/2", i+1), "--out", dir, "run")
			expect(t, r, 0, fmt.Sprintf("1 threads (segment %d/2 of 2)", i+1))
		}()
	}
	wg.Wait()
	merged := filepath.Join(t.TempDir(), "merged")
	expect(t, starbench(t, nil, "merge", "-o", merged, segs[0], segs[1]), 0, "merged 2 parts: 2 threads, 200 events")
	sum, err := results.ReadSummary(merged)
	if err != nil {
		t.Fatal(err)
	}
	var kinds int64
	for _, k := range sum.Kinds {
		kinds += k.Events
	}
	if sum.Events != 200 || kinds != 200 || sum.Metrics["tpmC"] == 0 || sum.Metrics["efficiency"] != 0 {
		t.Errorf("merged segments: events %d, by kind %d, metrics %v", sum.Events, kinds, sum.Metrics)
	}
	// tpmC and tpmTotal are rates of the same minutes: the merge's are the
	// segments' sums.
	for _, metric := range []string{"tpmC", "tpmTotal"} {
		var parts float64
		for _, seg := range segs {
			s, err := results.ReadSummary(seg)
			if err != nil {
				t.Fatal(err)
			}
			parts += s.Metrics[metric]
		}
		if math.Abs(sum.Metrics[metric]-parts) > 1e-6*parts || parts == 0 {
			t.Errorf("merged %s %v; the segments' sum %v", metric, sum.Metrics[metric], parts)
		}
	}

	// A district whose next order id moved breaks condition 3.3.2.2 (exit 1).
	if _, err := c.Exec(ctx, "UPDATE tpcc.district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = 1 AND d_id = 3"); err != nil {
		t.Fatal(err)
	}
	r = tpcc("-D", "tpcc", "--warehouses", "1", "check")
	expect(t, r, 1, "3.3.2.2", "fail (1 ", "w_id=1 d_id=3")

	// Bad input: exit 2, before any results folder.
	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"-D", "tpcc", "--bogus", "run"}, "unknown flag: --bogus"},
		{[]string{"-D", "tpcc", "--warehouses", "0", "prepare"}, "--warehouses must be at least 1"},
		{[]string{"-D", "tpcc", "--isolation", "3", "--time", "1s", "run"}, "--isolation must be 0"},
		{[]string{"-D", "tpcc", "run"}, "run needs --time or --count"},
		{[]string{"-D", "tpcc", "frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"-D", "tpcc", "--warehouses", "5", "--count", "10", "run"}, "the database holds 1 warehouses (up to w_id 1), the run was told of 5: prepare 5, or run with 1 (--warehouses 1 on the command line"},
		{[]string{"-D", "tpcc", "--warehouses", "5", "check"}, "the database holds 1 of warehouses 1..5"},
		{[]string{"-D", "empty", "--warehouses", "1", "--count", "10", "run"}, "the TPC-C tables are not there (prepare them first): missing empty.item"},
		{[]string{"-D", "other", "--warehouses", "1", "check"}, "table other.warehouse is not go-tpc's layout"},
		{[]string{"-D", "other", "--warehouses", "1", "--count", "10", "--out", filepath.Join(t.TempDir(), "x"), "run"}, "table other.warehouse is not go-tpc's layout"},
	} {
		r = tpcc(bad.args...)
		expect(t, r, 2, bad.want)
		if strings.Contains(r.stderr, "results: ") {
			t.Errorf("%v made a results folder:\n%s", bad.args, r.stderr)
		}
	}

	// A reload empties the record of the earlier load first, saying so.
	r = tpcc("-D", "tpcc", "--warehouses", "1", "-T", "2", "--no-check", "--dropdata", "prepare")
	expect(t, r, 0, "Emptying table 'tpcc.starbench_tpcc_load' (the record of an earlier load)")

	// Cleanup drops the nine tables and the load's record of the database
	// named, and only them.
	r = tpcc("-D", "tpcc", "cleanup")
	expect(t, r, 0, "tpcc.order_line", "Dropping table 'tpcc.starbench_tpcc_load'")
	rs, err := c.Query(ctx, "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA IN ('tpcc', 'other')")
	if err != nil || rs.Rows[0][0] != int64(1) {
		t.Errorf("after cleanup: %v tables left in tpcc and other (%v), want other.warehouse alone", rs, err)
	}

	r = starbench(t, nil, "tpcc", "--help")
	expect(t, r, 0, "Examples:", "go-tpc's and starbench's flags:", "--warehouses int", "--props string")
}

// A BenchmarkSQL props file drives prepare and run: its connection, size,
// loaders, terminals, transactions per terminal and weights; keys it
// knows that starbench does not use are listed in one note; a misspelt
// key is a warning naming the nearest known one.
func TestTPCCProps(t *testing.T) {
	m, c := serverWith(t, "CREATE DATABASE bench")
	ctx := context.Background()
	props := filepath.Join(t.TempDir(), "props.mysql")
	text := strings.Join([]string{
		"db=mysql",
		"driver=com.mysql.jdbc.Driver",
		"conn=jdbc:mysql://" + m.Config().Addr + "/bench?useSSL=false&rewriteBatchedStatements=true",
		"user=root",
		"password=" + m.Password(),
		"warehouses=1",
		"loadWorkers=2",
		"terminals=2",
		"runTxnsPerTerminal=60",
		"runMins=0",
		"limitTxnsPerMin=0",
		"terminalWarehouseFixed=true",
		"newOrderWeight=50",
		"paymentWeight=38",
		"orderStatusWeight=4",
		"deliveryWeight=4",
		"stockLevelWeight=4",
		"resultDirectory=my_result_%tY-%tm-%td_%tH%tM%tS",
		"osCollectorScript=./misc/os_collector_linux.py",
		"terminal=3",
	}, "\n") + "\n"
	if err := os.WriteFile(props, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	r := starbench(t, nil, "tpcc", "--props", props, "--no-check", "prepare")
	expect(t, r, 0, "loaded ", "rows into 10 tables",
		"keys starbench does not use: [db driver osCollectorScript resultDirectory]",
		"conn: rewriteBatchedStatements=true, useSSL=false: the Java driver's own settings, without effect here",
		`unknown key "terminal" (did you mean "terminals"?)`)
	// The tables are BenchmarkSQL's, as its runSQL.sh and LoadData make them.
	rs, err := c.Query(ctx, "SELECT GROUP_CONCAT(TABLE_NAME ORDER BY TABLE_NAME) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'bench'")
	if want := "bmsql_config,bmsql_customer,bmsql_district,bmsql_history,bmsql_item,bmsql_new_order,bmsql_oorder,bmsql_order_line,bmsql_stock,bmsql_warehouse"; err != nil || fmt.Sprint(rs.Rows[0][0]) != want {
		t.Errorf("tables after prepare --props: %v (%v), want %s", rs, err, want)
	}
	expect(t, starbench(t, nil, "tpcc", "--props", props, "--check-all", "check"), 0, "3.3.2.11")
	out := outDir(t)
	r = starbench(t, nil, "tpcc", "--props", props, "--out", out, "run")
	expect(t, r, 0, "TPC-C: 1 warehouses, 2 threads", "[Summary] NEW_ORDER", "results: "+out+" (completed)")
	if strings.Contains(r.stdout+r.stderr, m.Password()) {
		t.Errorf("password printed")
	}
	var summary struct {
		Events  int64 `json:"events"`
		Options struct {
			Weights []int `json:"weights"`
			Threads int   `json:"threads"`
		} `json:"options"`
	}
	data, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	if err := json.Unmarshal(data, &summary); err != nil {
		t.Fatal(err)
	}
	if summary.Events != 120 || summary.Options.Threads != 2 || !slices.Equal(summary.Options.Weights, []int{50, 38, 4, 4, 4}) {
		t.Errorf("2 terminals × 60 transactions in the props' mix: summary.json has %+v", summary)
	}
	// The command line wins over the file, and the run says which is which.
	// The run's C_LAST follows the load's, which bmsql_config keeps, by
	// clause 2.1.6.1.
	if _, err := c.Exec(ctx, "UPDATE bench.bmsql_config SET cfg_value = '10' WHERE cfg_name = 'nURandCLast'"); err != nil {
		t.Fatal(err)
	}
	out = outDir(t)
	r = starbench(t, nil, "tpcc", "--props", props, "-T", "1", "--count", "10", "--out", out, "run")
	expect(t, r, 0, "TPC-C: 1 warehouses, 1 threads", "gives conn, user, password, warehouses, terminalWarehouseFixed=true, the weights; the command line gives --threads, --count (over the file's)",
		"C_LAST: the load's 10 (from bmsql_config), the run's ")
	data, _ = os.ReadFile(filepath.Join(out, "summary.json"))
	var cLast struct {
		Options struct {
			Load int `json:"c_last_load"`
			Run  int `json:"c_last_run"`
		} `json:"options"`
	}
	if err := json.Unmarshal(data, &summary); err != nil || summary.Events != 10 || summary.Options.Threads != 1 {
		t.Errorf("-T 1 --count 10 over the props' 2 terminals x 60: summary.json has %+v (%v)", summary, err)
	}
	if err := json.Unmarshal(data, &cLast); err != nil || cLast.Options.Load != 10 || !tpcc.ValidCLastDelta(10, cLast.Options.Run) {
		t.Errorf("C_LAST in summary.json: %+v (%v), want the load's 10 and a run's 75..129 but 106 and 122", cLast, err)
	}
	// The JDBC URL's session variables reach the server: a statement time
	// limit of a microsecond stops the check's first query.
	limited := strings.Replace(text, "rewriteBatchedStatements=true", "sessionVariables=max_statement_time=0.000001", 1)
	if err := os.WriteFile(props, []byte(limited), 0o600); err != nil {
		t.Fatal(err)
	}
	expect(t, starbench(t, nil, "tpcc", "--props", props, "check"), 1, "sessionVariables: set on every connection (max_statement_time=0.000001)",
		"max_statement_time exceeded")
	// BenchmarkSQL's terminalWarehouseFixed: each terminal on one warehouse
	// and district of its own, so 11 terminals need 2 warehouses.
	fixed := strings.Replace(text, "terminals=2", "terminals=11", 1)
	if err := os.WriteFile(props, []byte(fixed), 0o600); err != nil {
		t.Fatal(err)
	}
	expect(t, starbench(t, nil, "tpcc", "--props", props, "run"), 2, "terminalWarehouseFixed=true gives each terminal a warehouse and district of its own: 11 terminals need 2 warehouses, not 1")
	if err := os.WriteFile(props, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	// BenchmarkSQL's loader draws nURandCLast in 0..255 (jTPCCRandom's
	// nextLong(0, 255)) and stores it as text under that name: a stored 0
	// is the load's 0; a value that is not a number is refused, never
	// read as 0.
	if _, err := c.Exec(ctx, "UPDATE bench.bmsql_config SET cfg_value = '0' WHERE cfg_name = 'nURandCLast'"); err != nil {
		t.Fatal(err)
	}
	expect(t, starbench(t, nil, "tpcc", "--props", props, "-T", "1", "--count", "10", "--out", outDir(t), "run"), 0, "C_LAST: the load's 0 (from bmsql_config), the run's ")
	if _, err := c.Exec(ctx, "UPDATE bench.bmsql_config SET cfg_value = 'ten' WHERE cfg_name = 'nURandCLast'"); err != nil {
		t.Fatal(err)
	}
	expect(t, starbench(t, nil, "tpcc", "--props", props, "-T", "1", "--count", "10", "--out", outDir(t), "run"), 1,
		"read the load's C constants from bmsql_config: column 1 holds \"ten\", not a whole number")
	if _, err := c.Exec(ctx, "DELETE FROM bench.bmsql_config WHERE cfg_name = 'nURandCLast'"); err != nil {
		t.Fatal(err)
	}
	expect(t, starbench(t, nil, "tpcc", "--props", props, "--count", "10", "run"), 2, "bmsql_config does not hold the load's C constants")
	expect(t, starbench(t, nil, "tpcc", "--props", props, "check"), 0, "3.3.2.10")
	// go-tpc's layout is not BenchmarkSQL's: a run told the other one is
	// exit 2, naming what the database holds.
	expect(t, starbench(t, nil, "tpcc", "--props", props, "--layout", "go-tpc", "run"), 2, "the database holds BenchmarkSQL's bmsql_ tables")
	expect(t, starbench(t, nil, "tpcc", "--props", props, "cleanup"), 0, "Dropping table 'bench.bmsql_config'...", "Dropping table 'bench.bmsql_oorder'...")
	noRun := strings.Replace(text, "runTxnsPerTerminal=60", "runTxnsPerTerminal=0", 1)
	if err := os.WriteFile(props, []byte(noRun), 0o600); err != nil {
		t.Fatal(err)
	}
	expect(t, starbench(t, nil, "tpcc", "--props", props, "run"), 2, "give one of runMins and runTxnsPerTerminal, and the other 0")
}

// `starbench check` lists each tpcc step as the command line that does
// the same: go-tpc's, or starbench's for BenchmarkSQL's tables.
func TestTPCCDryRunListsCommandLines(t *testing.T) {
	r := starbench(t, nil, "check", "testdata/plans/tpcc_steps.star")
	expect(t, r, 0,
		"go-tpc tpcc -D tpcc --warehouses 2 -T 2 prepare",
		"go-tpc tpcc -D tpcc --warehouses 2 --check-all check",
		"go-tpc tpcc -D tpcc --warehouses 2 -T 4 --time 5m0s --interval 10s --isolation 2 run",
		"go-tpc tpcc -D tpcc --warehouses 2 -T 16 --time 5m0s --interval 10s --isolation 2 run",
		"go-tpc tpcc -D tpcc cleanup",
		"starbench tpcc --layout benchmarksql -D tpcc --warehouses 1 -T 1 prepare",
		"tpcc_steps.star: OK")
}

// serverWith starts a private MariaDB, runs the statements on it and
// returns it with an open connection (closed at cleanup).
func serverWith(t *testing.T, statements ...string) (*sandbox.MariaDB, *db.Conn) {
	t.Helper()
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{})
	c, err := db.Open(context.Background(), m.Config())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	for _, q := range statements {
		if _, err := c.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return m, c
}

// go-tpc's rule for -D (v1.0.7, cmd/go-tpc/main.go, openDB): a database
// the server says is unknown is created, for every command of tpcc, tpch
// and ch. starbench does the same and says so; go-tpc's own cleanup,
// run against the same server, shows the rule.
func TestUnknownDatabaseIsCreatedAsGoTPC(t *testing.T) {
	bin := gotpctest.Binary(t)
	m, admin := serverWith(t)
	host, port, _ := strings.Cut(m.Config().Addr, ":")
	exists := func(name string) bool {
		rs, err := admin.Query(context.Background(), "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?", name)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(rs.Rows[0][0]) == "1"
	}
	gotpctest.Run(t, bin, m, "bygotpc", "cleanup")
	if !exists("bygotpc") {
		t.Fatalf("go-tpc's cleanup did not create its -D: the rule this test follows is not go-tpc's")
	}
	for _, family := range []string{"tpcc", "tpch", "ch"} {
		name := "new_" + family
		r := starbench(t, nil, family, "-H", host, "-P", port, "-U", "root", "-p", m.Password(), "-D", name, "cleanup")
		expect(t, r, 0, "note: database "+name+" did not exist on "+m.Config().Addr+"; created it, as go-tpc does for its -D")
		if !exists(name) {
			t.Errorf("%s cleanup -D %s: the database was not created", family, name)
		}
		// Once it exists nothing is said.
		r = starbench(t, nil, family, "-H", host, "-P", port, "-U", "root", "-p", m.Password(), "-D", name, "cleanup")
		if strings.Contains(r.stderr, "did not exist") {
			t.Errorf("%s: a database that exists is said to be created:\n%s", family, r.stderr)
		}
	}
}

// seedCLast and validCLastDelta are the tpcc package's, for tests whose
// tpcc is their command.
func seedCLast(seed uint64) int { return tpcc.NewConstants(seed).CLast }

func validCLastDelta(load, run int) bool { return tpcc.ValidCLastDelta(load, run) }
