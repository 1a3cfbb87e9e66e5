package main

import (
	"strings"
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
	expect(t, starbench(t, nil, "report", out), 0, "tpch")

	expect(t, tpch("--queries", "q1,q23", "run"), 2, `no query "q23" in --queries`)
	expect(t, tpch("--sf", "0", "prepare"), 2, "--sf must be at least 1, not 0")
	expect(t, tpch("--sf", "10", "--check", "run"), 2, "--check compares the answers at scale factor 1")
	r = tpch("cleanup")
	expect(t, r, 0, "Dropping table 'tpch.lineitem'", "Dropping table 'tpch.nation'")
	if n := strings.Count(r.stdout, "Dropping table"); n != 8 {
		t.Errorf("%d tables dropped:\n%s", n, r.stdout)
	}
}
