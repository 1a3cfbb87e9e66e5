package tpch

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/internal/sandbox"
	"github.com/starbench/starbench/internal/testutil/gotpctest"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
	"github.com/starbench/starbench/runner/results"
)

func TestMain(m *testing.M) { sandboxtest.Main(m) }

// checkedQueries are queries whose answers go-tpc checks in the suite:
// exact values and SUMs (q2, q10), a ratio (q14), 18,333 rows (q16).
const checkedQueries = "q2,q10,q14,q16"

// answer runs one of the queries' statements on c and returns its rows,
// values '|'-separated, as go-tpc's answer files have them.
func answer(t *testing.T, c *db.Conn, name string) []string {
	t.Helper()
	stmts, err := Statements(name, false)
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, s := range stmts {
		if isDDL(s) {
			if _, err := c.Exec(context.Background(), s); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			continue
		}
		rs, err := c.Query(context.Background(), s)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, r := range rs.Rows {
			var f []string
			for _, v := range r {
				switch x := v.(type) {
				case []byte:
					f = append(f, string(x))
				case float64:
					f = append(f, strconv.FormatFloat(x, 'f', -1, 64))
				default:
					f = append(f, fmt.Sprint(x))
				}
			}
			rows = append(rows, strings.Join(f, "|"))
		}
	}
	return rows
}

// Scale factor 1 loaded into a private MariaDB has TPC-H's row counts,
// and go-tpc's queries on it give the answers go-tpc checks its runs
// against (its output files for scale factor 1, where dbgen's data is the
// specification's); the run of a query stream counts each query apart.
func TestScaleFactorOne(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 1 GB")
	}
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{ExtraArgs: []string{"--innodb-buffer-pool-size=1G", "--innodb-flush-log-at-trx-commit=0",
		"--innodb-log-file-size=512M", "--general-log=0", "--log-output=TABLE"}})
	conn := bench.NewSQLConnector(m.Config(), bench.PSAuto)
	ctx := context.Background()
	var out bytes.Buffer
	start := time.Now()
	res, err := Prepare(ctx, conn, PrepareOptions{ScaleFactor: 1, Threads: 2}, &out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	t.Logf("loaded %d rows in %v (%.0f rows/s)", res.TotalRows, time.Since(start).Round(time.Second), res.RowsPerS)
	want := map[string]int64{"nation": 25, "region": 5, "part": 200_000, "partsupp": 800_000, "supplier": 10_000,
		"customer": 150_000, "orders": 1_500_000, "lineitem": 6_001_215}
	c, err := db.Open(ctx, m.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for table, n := range want {
		rs, err := c.Query(ctx, "SELECT COUNT(*) FROM "+table)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(rs.Rows[0][0]); got != fmt.Sprint(n) || res.Rows[table] != n {
			t.Errorf("%s: %s rows in the table, %d loaded, want %d", table, got, res.Rows[table], n)
		}
	}
	// go-tpc's output/q4.out and q6.out for scale factor 1.
	if got := answer(t, c, "q4"); strings.Join(got, "\n") != "1-URGENT|10332\n2-HIGH|10407\n3-MEDIUM|10312\n4-NOT SPECIFIED|10409\n5-LOW|10379" {
		t.Errorf("q4: %q", got)
	}
	if got := answer(t, c, "q6"); len(got) != 1 || got[0] != "123141078.2283" {
		t.Errorf("q6: %q", got)
	}

	// go-tpc's own check of its answers, on starbench's data: the queries
	// quick on MariaDB (18 of the 22 run in under 20 s each; q13, q17, q20
	// and q22 take minutes without TPC-H's secondary indexes). Both tools
	// send the same texts.
	bin := gotpctest.Binary(t)
	cfg := m.Config()
	logging := &sandboxtest.LoggingServer{MariaDB: m, Admin: c}
	var gotpc []byte
	goLog := logging.Capture(t, func() {
		gotpc, err = exec.Command(bin, "tpch", "run", "-H", "127.0.0.1", "-P", strconv.Itoa(m.Port), "-U", cfg.User, "-p", cfg.Passwd, "-D", cfg.DBName,
			"--sf", "1", "--check", "--count", "4", "--queries", checkedQueries).CombinedOutput()
	})
	if err != nil || strings.Contains(string(gotpc), "failed") || strings.Count(string(gotpc), "[Summary] Q") != 4 {
		t.Errorf("go-tpc tpch run --check on starbench's data: %v\n%s", err, gotpc)
	}
	ourLog := logging.Capture(t, func() {
		step, err := Step(conn, RunOptions{ScaleFactor: 1, Queries: strings.Split(checkedQueries, ","), Threads: 1, Count: 4, Interval: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := bench.RunStep(ctx, t.TempDir(), step); err != nil {
			t.Fatal(err)
		}
	})
	if a, b := sentQueries(goLog), sentQueries(ourLog); strings.Join(a, "\n") != strings.Join(b, "\n") || len(a) != 4 {
		t.Errorf("the queries sent: go-tpc\n%s\nstarbench\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
	}

	step, err := Step(conn, RunOptions{ScaleFactor: 1, Queries: []string{"q4", "q6"}, Threads: 2, Count: 4, Interval: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	sum, _, err := bench.RunStep(ctx, t.TempDir(), step)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Events != 4 || len(sum.Kinds) != 2 || sum.Kinds[0].Events != 2 || sum.Kinds[1].Events != 2 {
		t.Errorf("run: %d queries, kinds %+v", sum.Events, sum.Kinds)
	}
	if g := sum.Metrics[MetricGeomean]; g <= 0 || sum.Metrics[MetricPower] != 3600/g || sum.Metrics[MetricQPH] <= 0 {
		t.Errorf("metrics %v", sum.Metrics)
	}
	var kinds []results.KindSummary = sum.Kinds
	t.Logf("q4 %.2f s, q6 %.2f s, power %.0f", kinds[0].Latency.AvgMS/1000, kinds[1].Latency.AvgMS/1000, sum.Metrics[MetricPower])
}

// sentQueries are the TPC-H queries among logged statements (those that
// bear go-tpc's placeholder), as sent.
func sentQueries(logged []sandboxtest.Logged) []string {
	var out []string
	for _, l := range logged {
		if strings.Contains(l.Text, placeholder) {
			out = append(out, l.Command+": "+l.Text)
		}
	}
	return out
}
