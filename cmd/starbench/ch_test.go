package main

import (
	"strings"
	"testing"

	"github.com/starbench/starbench/internal/sandbox"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
)

// `starbench ch` with go-tpc's command lines against a real server: run
// before the tables are there, prepare after `starbench tpcc prepare`,
// run both loads into a results folder that report reads, bad input,
// cleanup of CH's tables only.
func TestCHCommandLines(t *testing.T) {
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{Database: "ch"})
	host, port, _ := strings.Cut(m.Config().Addr, ":")
	conn := []string{"-H", host, "-P", port, "-U", "root", "-p", m.Password(), "-D", "ch"}
	ch := func(extra ...string) cliResult {
		return starbench(t, nil, append(append([]string{"ch"}, conn...), extra...)...)
	}

	expect(t, ch("--warehouses", "1", "prepare"), 2, "CH-benCHmark adds to TPC-C's tables", "tpcc prepare")
	expect(t, ch("--warehouses", "1", "--time", "1s", "run"), 2, "the TPC-C tables are not there")
	expect(t, starbench(t, nil, append(append([]string{"tpcc"}, conn...), "--warehouses", "1", "-T", "2", "--no-check", "prepare")...), 0)
	r := ch("prepare")
	expect(t, r, 0, "Creating table 'ch.supplier'", "Creating view 'ch.revenue1'", "loaded 10030 rows into 3 tables")
	expect(t, ch("prepare"), 1, "view ch.revenue1 already exists")

	out := outDir(t)
	r = ch("--warehouses", "1", "-T", "2", "-t", "1", "--queries", "q6,q14", "--time", "3s", "--interval", "1s", "--seed", "7", "--out", out, "run")
	expect(t, r, 0, "[Summary] NEW_ORDER", "[Summary] Q6     - Count: ", "QphH: ", "tpmC: ", "Finished: 2 OLTP workers, 1 OLAP workers", "(completed)")
	sum := readSummary(t, out)
	kinds := map[string]int64{}
	for _, k := range sum.Kinds {
		kinds[k.Name] = k.Events
	}
	if sum.Workload.Name != "ch" || kinds["new_order"] == 0 || kinds["q6"] == 0 || sum.Metrics["tpmC"] <= 0 || sum.Metrics["QphH"] <= 0 {
		t.Errorf("summary: %s, kinds %v, metrics %v", sum.Workload.Name, kinds, sum.Metrics)
	}
	if strings.Contains(r.stdout+r.stderr, m.Password()) {
		t.Errorf("password printed")
	}
	expect(t, starbench(t, nil, "report", out, "--kinds"), 0, "ch", "by kind of event", "q6", "new_order", "QphH ")

	// Two segments of one load, run at once and merged: both loads' kinds.
	segs := runSegments(t, 2, func(seg, out string) cliResult {
		r := ch("--warehouses", "1", "-T", "2", "-t", "2", "--queries", "q6,q14", "--time", "3s", "--seed", "11", "--segment", seg, "--out", out, "run")
		expect(t, r, 0, "(segment "+seg+": 2 of them)")
		return r
	})
	merged := outDir(t)
	expect(t, starbench(t, nil, "merge", segs[0], segs[1], "-o", merged), 0)
	sum = readSummary(t, merged)
	kinds = map[string]int64{}
	for _, k := range sum.Kinds {
		kinds[k.Name] = k.Events
	}
	if m := sum.Metrics; sum.Threads != 4 || kinds["new_order"] == 0 || kinds["q6"] == 0 || kinds["q14"] == 0 || m["tpmC"] <= 0 || m["QphH"] <= 0 || m["geomean_s"] <= 0 {
		t.Errorf("merged segments: %d threads, kinds %v, figures %v", sum.Threads, kinds, m)
	}

	// compare reads them: one segment against the other, by CH's figure.
	expect(t, starbench(t, nil, "compare", segs[0], segs[1], "--metric", "qphh"), 0, "qphh")

	// A plan's dry run lists the steps as go-tpc's command lines.
	plan := writePlan(t, t.TempDir(), "ch.star", `
def main(p):
    conn = db.connect()
    tpcc.prepare(conn, warehouses = 2)
    ch.prepare(conn)
    ch.run(conn, warehouses = 2, threads = 4, ap_threads = 1, time = "1m")
    tpch.run(conn, queries = "q1,q6", count = 2)
`)
	expect(t, starbench(t, nil, "run", plan, "--dry-run"), 0, "go-tpc ch prepare", "go-tpc ch --warehouses 2 -T 4 -t 1 --time 1m0s run",
		"go-tpc tpch run --sf 1 --queries q1,q6 -T 1 --count 2")

	expect(t, ch("--queries", "q1,q23", "--time", "1s", "run"), 2, `no query "q23" in --queries`)
	expect(t, ch("-T", "0", "-t", "0", "--time", "1s", "run"), 2, "-T and -t must not be negative, nor both 0")
	expect(t, ch("--tiflash", "prepare"), 2, "--tiflash: starbench's ch prepare makes the tables and the view only")
	expect(t, ch("run"), 2, "run needs --time or --count")
	expect(t, ch("--warehouses", "3", "--time", "1s", "run"), 2, "the database holds 1 warehouses")
	r = ch("cleanup")
	expect(t, r, 0, "Dropping view 'ch.revenue1'", "Dropping table 'ch.nation'")
	if n := strings.Count(r.stdout, "Dropping"); n != 4 {
		t.Errorf("%d dropped:\n%s", n, r.stdout)
	}
}
