package sysbench_test

import (
	"context"
	"database/sql"
	"fmt"
	"testing"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/sysbench"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
)

// auto_random_ids on MariaDB: oltp_legacy/insert into tables whose id is a
// plain BIGINT key gives every row the id TiDB's AUTO_RANDOM(5) would: the
// counters below the shard bits go on from the table's highest with no
// gap or repeat over the run's threads, the shard bits spread (more than
// one value; a counter alone would be one), the sign bit clear.
func TestAutoRandomIDsOnMariaDB(t *testing.T) {
	m := sandboxtest.Shared(t)
	ctx := context.Background()
	admin, err := sql.Open("mysql", m.Config().FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	for _, q := range []string{
		"DROP TABLE IF EXISTS sbtest1, sbtest2",
		"CREATE TABLE sbtest1 (id bigint NOT NULL, k int NOT NULL DEFAULT '0', c char(120) NOT NULL DEFAULT '', pad char(60) NOT NULL DEFAULT '', PRIMARY KEY (id), KEY k_1 (k))",
		"CREATE TABLE sbtest2 LIKE sbtest1",
		// A row from an earlier run: shard 3, counter 41.
		"INSERT INTO sbtest1 (id) VALUES ((3 << 58) | 41)",
	} {
		if _, err := admin.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	o := sysbench.Defaults(sysbench.Profile1020)
	o.Threads, o.Tables, o.Events, o.Time, o.AutoRandomIDs = 4, 2, 400, 0, true
	wl, err := sysbench.NewWorkload("oltp_legacy/insert", o)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sysbench.Run(ctx, bench.NewSQLConnector(m.Config(), bench.PSAuto), wl, sysbench.RunOptions{Seed: 7})
	if err != nil || res.Counts.Errors != 0 {
		t.Fatalf("run: %v, %d errors", err, res.Counts.Errors)
	}
	// The earlier row is left out of sbtest1 only: in sbtest2 a new row has
	// its id when counter 41 draws shard 3, one run in 32.
	for table, from := range map[string]int64{"sbtest1": 41, "sbtest2": 0} {
		where := ""
		if from > 0 {
			where = " WHERE id <> ((3 << 58) | 41)"
		}
		var n, lo, hi, distinctCounters, shards, negative int64
		err := admin.QueryRow(fmt.Sprintf("SELECT COUNT(*), MIN(id & ((1 << 58) - 1)), MAX(id & ((1 << 58) - 1)), COUNT(DISTINCT id & ((1 << 58) - 1)), "+
			"COUNT(DISTINCT id >> 58), SUM(id < 0) FROM %s%s", table, where)).Scan(&n, &lo, &hi, &distinctCounters, &shards, &negative)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 || lo != from+1 || hi != from+n || distinctCounters != n || shards < 5 || negative != 0 {
			t.Errorf("%s: %d rows, counters %d..%d (%d distinct), %d shard values, %d negative; want %d.., no gap or repeat, several shards",
				table, n, lo, hi, distinctCounters, shards, negative, from+1)
		}
	}
	o.AutoRandom = true
	if _, err := sysbench.NewWorkload("oltp_legacy/insert", o); err == nil {
		t.Error("auto_random_ids with auto_random is accepted")
	}
}
