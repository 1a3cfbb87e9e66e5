package main

import (
	"database/sql"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/starbench/starbench/internal/sandbox"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
)

// `starbench tpch` with go-tpc's command lines against a real server:
// prepare scale factor 1, run two queries into a results folder that
// report reads, bad input, cleanup.
func TestTPCHCommandLines(t *testing.T) {
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{Database: "tpch", ExtraArgs: []string{"--innodb-buffer-pool-size=1G",
		"--innodb-flush-log-at-trx-commit=0", "--innodb-log-file-size=512M"}})
	host, port, _ := strings.Cut(m.Config().Addr, ":")
	tpch := func(extra ...string) cliResult {
		return starbench(t, nil, append([]string{"tpch", "-H", host, "-P", port, "-U", "root", "-p", m.Password(), "-D", "tpch"}, extra...)...)
	}
	r := tpch("--sf", "1", "-T", "2", "prepare")
	expect(t, r, 0, "Creating table 'tpch.lineitem'", "loaded 8661245 rows into 8 tables")
	expect(t, tpch("--sf", "1", "prepare"), 1, "tables already exist: tpch.lineitem")

	out := outDir(t)
	r = tpch("--sf", "1", "-T", "2", "--queries", "q4,q6", "--count", "4", "--interval", "1s", "--out", out, "run")
	expect(t, r, 0, "[Summary] Q4: ", "[Summary] Q6: ", "(completed)")
	sum := readSummary(t, out)
	if sum.Workload.Name != "tpch" || sum.Events != 4 || len(sum.Kinds) != 2 || sum.Kinds[0].Events != 2 || sum.Metrics["power"] <= 0 {
		t.Errorf("summary: %s, %d queries, kinds %+v, metrics %v", sum.Workload.Name, sum.Events, sum.Kinds, sum.Metrics)
	}
	if strings.Contains(r.stdout+r.stderr, m.Password()) {
		t.Errorf("password printed")
	}
	expect(t, starbench(t, nil, "report", out, "--kinds"), 0, "tpch", "by kind of event", "q4", "power ")

	// --check at scale factor 1: the answers of queries quick on MariaDB
	// (exact values, SUMs, a ratio, 18,333 rows of q16) are TPC-H's.
	r = tpch("--sf", "1", "--queries", "q2,q4,q6,q10,q11,q14,q16", "--check", "--out", outDir(t), "run")
	expect(t, r, 0, "check: 7 answers are TPC-H's")
	// A changed row is caught: the query, row and column.
	host2 := m.Config()
	admin, err := sql.Open("mysql", host2.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.Exec("UPDATE nation SET n_name = 'UTOPIA' WHERE n_name = 'JORDAN'"); err != nil {
		t.Fatal(err)
	}
	expect(t, tpch("--sf", "1", "--queries", "q4,q10", "--check", "run"), 1, "check q10: the answer is not TPC-H's at scale factor 1: row 1 column 5 is UTOPIA, the answer's is JORDAN")
	if _, err := admin.Exec("UPDATE nation SET n_name = 'JORDAN' WHERE n_name = 'UTOPIA'"); err != nil {
		t.Fatal(err)
	}

	// Two segments of one load, run at once and merged: the whole load's
	// queries.
	segs := runSegments(t, 2, func(seg, out string) cliResult {
		r := tpch("--sf", "1", "-T", "2", "--queries", "q4,q6", "--count", "4", "--seed", "9", "--segment", seg, "--out", out, "run")
		expect(t, r, 0, "(segment "+seg+" of 2)")
		return r
	})
	merged := outDir(t)
	expect(t, starbench(t, nil, "merge", segs[0], segs[1], "-o", merged), 0)
	sum = readSummary(t, merged)
	if sum.Events != 4 || sum.Threads != 2 || len(sum.Kinds) != 2 || sum.Kinds[0].Events != 2 || sum.Kinds[1].Events != 2 {
		t.Errorf("merged segments: %d queries on %d threads, kinds %+v", sum.Events, sum.Threads, sum.Kinds)
	}
	// The merged step's figures: queries an hour summed, the geometric
	// mean and power computed again from the merged queries' latencies.
	var qph float64
	for _, dir := range segs {
		qph += readSummary(t, dir).Metrics["qph"]
	}
	g := math.Sqrt(sum.Kinds[0].Latency.AvgMS / 1000 * sum.Kinds[1].Latency.AvgMS / 1000)
	if m := sum.Metrics; math.Abs(m["geomean_s"]-g) > 1e-9*g || math.Abs(m["power"]-3600/g) > 1e-6*m["power"] || m["qph"] != qph {
		t.Errorf("merged figures %v: want geomean_s %v, power %v, qph %v", m, g, 3600/g, qph)
	}

	expect(t, tpch("--queries", "q1,q23", "run"), 2, `no query "q23" in --queries`)
	expect(t, tpch("--sf", "0", "prepare"), 2, "--sf must be at least 1, not 0")
	expect(t, tpch("--sf", "10", "--check", "run"), 2, "--check compares the answers at scale factor 1")
	expect(t, tpch("--check", "--use-explain", "run"), 2, "--check with --use-explain")
	expect(t, tpch("--segment", "1/2", "run"), 2, "--segment 1/2 needs --seed")
	r = tpch("cleanup")
	expect(t, r, 0, "Dropping table 'tpch.lineitem'", "Dropping table 'tpch.nation'")
	if n := strings.Count(r.stdout, "Dropping table"); n != 8 {
		t.Errorf("%d tables dropped:\n%s", n, r.stdout)
	}
}

// runSegments runs segments 1/n ... n/n of one load at once (a merge
// needs them to overlap), each into a results folder of its own, and
// returns the folders.
func runSegments(t *testing.T, n int, run func(seg, out string) cliResult) []string {
	t.Helper()
	dirs := make([]string, n)
	for i := range dirs {
		dirs[i] = outDir(t)
	}
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run(fmt.Sprintf("%d/%d", i+1, n), dirs[i])
		}()
	}
	wg.Wait()
	return dirs
}
