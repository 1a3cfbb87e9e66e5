package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/internal/sandbox"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
	"github.com/starbench/starbench/runner/results"
)

// tidbQuery runs a query on a sandbox TiDB and returns its rows as text.
func tidbQuery(t *testing.T, srv *sandbox.TiDB, q string) [][]string {
	t.Helper()
	c, err := db.Open(context.Background(), srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rs, err := c.Query(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	out := make([][]string, len(rs.Rows))
	for i, r := range rs.Rows {
		for _, v := range r {
			if b, ok := v.([]byte); ok {
				v = string(b)
			}
			out[i] = append(out[i], fmt.Sprint(v))
		}
	}
	return out
}

// Seeds 002 and 003 on a TiDB cluster that exists (-p deploy=false), here
// a private tidb-server: their TiDB steps run (the report's global
// variables set, the values before them and SHOW CONFIG saved, the tables
// loaded and analyzed), the variables TiDB runs only over TiKV left as
// they are and said, and each ends in the report's table beside the
// published figures.
func TestSeedsOnAnExistingTiDB(t *testing.T) {
	t.Parallel() // time-bound runs on servers of their own
	for _, c := range []struct {
		plan, first, version string   // the plan, its baseline version and the other
		table                []string // what the report's table shows
		extra                []string
		global               string // a global the report sets, as the server has it after the run
	}{
		{"plans/seed002_tidb_tpcc_v50_vs_v40.star", "v4.0.12", "v5.0.0", []string{"tpmc by threads per version, source", "v5.0.0 published tpmC vs v4.0.12 published", "+36.00 %"},
			[]string{"-p", "terminals=2", "-p", "time=2s"}, "tidb_enable_clustered_index ON"},
		{"plans/seed003_tidb_v520_vs_v511.star", "v5.1.1", "v5.2.0", []string{"workload=oltp_update_index: qps, p95 by threads per version, source",
			"v5.2.0 published qps vs v5.1.1 published", "+11.03 %"},
			[]string{"-p", "workloads=oltp_update_index", "-p", "threads=2"}, "tidb_hashagg_final_concurrency 1"},
	} {
		srv := sandboxtest.FreshTiDB(t, sandbox.TiDBOptions{})
		out := outDir(t)
		before := tidbQuery(t, srv, "SHOW GLOBAL VARIABLES LIKE 'tidb_hashagg_final_concurrency'")
		args := append([]string{"run", c.plan, "-o", out, "-p", "scale=small", "-p", "deploy=false", "--target", srv.DSN()}, c.extra...)
		r := starbench(t, nil, args...)
		expect(t, r, 0, append(c.table, "tidb.set_global: tidb_enable_async_commit, tidb_enable_1pc left as they are: this TiDB server's store is unistore")...)
		got := tidbQuery(t, srv, "SHOW GLOBAL VARIABLES LIKE '"+strings.Fields(c.global)[0]+"'")
		if len(got) != 1 || strings.Join(got[0], " ") != c.global {
			t.Errorf("%s: the report's global: %v, want %s", c.plan, got, c.global)
		}
		// What was there before the plan set them, and what it ran with.
		for _, f := range []string{"before-" + c.first + "-globals.tsv", "connected-" + c.version + "-globals.tsv", "connected-" + c.version + "-show-config.tsv"} {
			data, err := os.ReadFile(filepath.Join(out, "files", "tidb", "target", f))
			if err != nil || len(data) < 100 {
				t.Errorf("%s: %s: %v (%d bytes)", c.plan, f, err, len(data))
			}
			if strings.HasPrefix(f, "before") && !strings.Contains(string(data), "tidb_hashagg_final_concurrency\t"+before[0][1]+"\n") {
				t.Errorf("%s: %s does not hold the value before the plan (%v)", c.plan, f, before)
			}
		}
		recs, err := results.ReadJournal(filepath.Join(out, results.JournalFile))
		if err != nil {
			t.Fatal(err)
		}
		analyzed := 0
		for _, rec := range recs {
			if rec.Event == "end" && rec.Builtin == "db.analyze_table" {
				analyzed++
			}
		}
		if analyzed == 0 {
			t.Errorf("%s: no table analyzed", c.plan)
		}
	}
}

// Seed 004 on a real TiDB, its TiDB steps on (the default): the report's
// AUTO_RANDOM tables, SPLIT TABLE into 10 regions, the inserts of five
// rounds of three cases; the region query, which needs PD, says it is
// unavailable and the run goes on to the report's table; the servers'
// CPUs come from TiDB's status port. TiDB's own AUTO_RANDOM ids have the
// layout starbench's auto_random_ids gives on MySQL: the sign bit clear,
// shard bits 58-62 spread over rows inserted one by one, a counter below
// them that no two rows share.
func TestSeed004OnTiDB(t *testing.T) {
	t.Parallel() // time-bound runs on a server of its own
	srv := sandboxtest.FreshTiDB(t, sandbox.TiDBOptions{})
	out := outDir(t)
	r := starbench(t, nil, "run", "plans/seed004_tidb_insert_hotspot.star", "-o", out, "-p", "scale=small", "-p", "rounds=2",
		"-p", "metrics="+srv.StatusURL()+"/metrics", "--target", srv.DSN())
	expect(t, r, 0, "tps, avg by round per case, source", "mean  ", "split published tps",
		"sbtest_split.sbtest1 regions by store: unavailable: this TiDB server has no PD (Error 1105: pd http client unavailable)",
		"incr, run 1: CPUs each server used: ",
		// This TiDB is not the report's release, and the output says so.
		"seed004: note: the target runs ", "not the report's TiDB v4.0.13")
	if strings.Contains(r.stdout, "Not TiDB") || strings.Contains(r.stdout, "no server endpoint watched") {
		t.Errorf("a run on TiDB says it is not, or watched no server:\n%s", r.stdout)
	}
	if ddl := tidbQuery(t, srv, "SHOW CREATE TABLE sbtest_rand.sbtest1"); !strings.Contains(ddl[0][1], "AUTO_RANDOM") {
		t.Errorf("sbtest_rand.sbtest1 is not the report's AUTO_RANDOM table:\n%s", ddl[0][1])
	}
	if regions := tidbQuery(t, srv, "SHOW TABLE sbtest_split.sbtest1 REGIONS"); len(regions) < 10 {
		t.Errorf("sbtest_split.sbtest1 has %d regions after SPLIT TABLE ... REGIONS 10", len(regions))
	}
	for _, database := range []string{"sbtest_rand", "sbtest_split"} {
		ids := tidbQuery(t, srv, "SELECT COUNT(*), COUNT(DISTINCT id >> 58), SUM(id < 0), COUNT(DISTINCT id & ((1 << 58) - 1)) FROM "+database+".sbtest1")
		if n := ids[0]; n[0] == "0" || n[1] == "1" || n[2] != "0" || n[3] != n[0] {
			t.Errorf("%s.sbtest1's AUTO_RANDOM ids: %v rows, shards, negative ids, distinct counters", database, n)
		}
	}
	steps, _ := filepath.Glob(filepath.Join(out, results.StepsDir, "*-oltp_legacy*"))
	if len(steps) != 6 {
		t.Errorf("%d runs, want 2 rounds x 3 cases", len(steps))
	}
}

// Seed 001 on a real TiDB (three targets, one server), with a baseline
// cluster (here the first server again, labelled old): each server's
// version is checked against the report's 3.0.5 (the baseline's against
// 2.1.8) and said to be another, the configuration is saved as this
// version offers it, SHOW CONFIG (the 3.0 way, the status port's /config,
// is TestTiDBSaveConfigByVersion's), and the final table gives each
// version and the change, with the report's 30+% as its footnote.
func TestSeed001OnTiDB(t *testing.T) {
	t.Parallel() // time-bound runs on a server of its own
	srv := sandboxtest.FreshTiDB(t, sandbox.TiDBOptions{})
	out := outDir(t)
	r := starbench(t, nil, "run", "plans/seed001_tidb305_three_sysbench.star", "-o", out, "-p", "scale=small",
		"-p", "workloads=oltp_write_only", "-p", "baseline_servers=tidb1", "-p", "versions=new,old",
		"--target", "tidb1="+srv.DSN(), "--target", "tidb2="+srv.DSN(), "--target", "tidb3="+srv.DSN())
	expect(t, r, 0, "seed001 tidb1: note: the target runs ", "not the report's TiDB v3.0.5", "not the report's TiDB v2.1.8",
		"qps, min, avg, p99 by workload per version", "new qps vs old", "\"普遍在 30+%\"")
	for _, name := range []string{"tidb1", "tidb2", "tidb3"} {
		got, err := os.ReadFile(filepath.Join(out, "files", "config", name+"-show-config.tsv"))
		if err != nil || !strings.HasPrefix(string(got), "Type\tInstance\tName\tValue\ntidb\t") {
			t.Errorf("%s's SHOW CONFIG: %v\n%.300s", name, err, got)
		}
	}
}
