package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/starbench/starbench/internal/results"
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
	expect(t, mix("--mix", "shop", "cleanup"), 0, "Dropping table 'sbtest.accounts'...")
	expect(t, mix("--mix", "rw", "--dry-run", "run"), 0, "mix run oltp_read_write_mix (mix-gen1/")
}
