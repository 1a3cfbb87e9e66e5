package sysbench_test

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/builtins/sysbench"
	"github.com/starbench/starbench/internal/sandbox"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
)

// On a real TiDB, sysbench and starbench send the same statements per
// event, for a workload of each kind: transactions with prepared
// statements, point selects sent as text, inserts into an AUTO_INCREMENT
// table, and bulk inserts.
func TestStatementStreamsMatchSysbenchOnTiDB(t *testing.T) {
	bin := requireSysbench(t)
	checkStreams(t, bin, startTiDBCompatServer(t), []compatCase{
		{script: "oltp_read_write", tables: 2, trx: true},
		{script: "oltp_point_select", tables: 1, extra: []string{"--db-ps-mode=disable"}},
		{script: "oltp_insert", tables: 1},
		{script: "bulk_insert", tables: 1},
	})
}

// Prepare on TiDB leaves the tables sysbench leaves: the same DDL with
// TiDB's own clauses (a clustered primary key, the AUTO_INCREMENT the
// server's allocator reached), the same indexes and rows, whether the rows
// went in by LOAD DATA (starbench's default) or by INSERT (sysbench's).
func TestPrepareMatchesSysbenchOnTiDB(t *testing.T) {
	bin := requireSysbench(t)
	checkPrepare(t, bin, startTiDBCompatServer(t), [][]string{nil, {"--auto_inc=off"}})
}

// TiDB's pessimistic transactions end in deadlocks under contention
// (error 1213, in sysbench's default --mysql-ignore-errors): each tool
// rolls the event back, counts an ignored error and goes on. The count is
// exact for both: it equals the deadlocks the server recorded during the
// tool's run (information_schema.DEADLOCKS, one DEADLOCK_ID a deadlock).
// (A 5 s run at 4 threads on larger tables counted 3 for sysbench and 0
// for starbench once: deadlocks are rare there, and both counts were the
// server's.) In optimistic mode a conflict at COMMIT is error 9007, which
// sysbench does not ignore by default: both stop with exit code 1; with
// --mysql-ignore-errors=9007 both count them and finish.
func TestTiDBConflictsCountedAsSysbench(t *testing.T) {
	bin := requireSysbench(t)
	srv := sandboxtest.FreshTiDB(t, sandbox.TiDBOptions{Config: "[pessimistic-txn]\ndeadlock-history-capacity = 10000\n"})
	cfg := srv.Config()
	host, port, _ := strings.Cut(cfg.Addr, ":")
	common := []string{"oltp_read_write", "--tables=1", "--table-size=20", "--threads=8", "--events=300", "--time=0",
		"--mysql-host=" + host, "--mysql-port=" + port, "--mysql-user=root", "--mysql-password=" + cfg.Passwd, "--mysql-db=sbtest"}
	runSysbench(t, bin, append(common, "prepare")...)
	admin, err := db.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	deadlocks := func() int {
		rs, err := admin.Query(context.Background(), "SELECT COUNT(DISTINCT DEADLOCK_ID) FROM information_schema.DEADLOCKS")
		if err != nil {
			t.Fatal(err)
		}
		n, _ := strconv.Atoi(fmt.Sprint(rs.Rows[0][0]))
		return n
	}
	ours := func(extra ...string) (*bench.Result, error) {
		cl, err := sysbench.ParseCommandLine(append(append(append([]string(nil), common...), extra...), "run"))
		if err != nil {
			t.Fatal(err)
		}
		wl, err := sysbench.NewWorkload(cl.Script, cl.Options)
		if err != nil {
			t.Fatal(err)
		}
		p := &sysbench.Printer{W: io.Discard, Opts: &wl.Options}
		return sysbench.Run(context.Background(), bench.NewSQLConnector(cfg, bench.PSAuto), wl, sysbench.RunOptions{Seed: 3, Printer: p})
	}
	theirs := func(extra ...string) (string, error) {
		out, err := exec.Command(bin, append(append(append([]string(nil), common...), extra...), "run")...).CombinedOutput()
		return string(out), err
	}

	before := deadlocks()
	out, err := theirs()
	if err != nil {
		t.Fatalf("sysbench: %v\n%s", err, out)
	}
	mid := deadlocks()
	if got := ignoredErrors(t, out); got != mid-before {
		t.Errorf("sysbench counted %d ignored errors; the server recorded %d deadlocks", got, mid-before)
	}
	res, err := ours()
	if err != nil {
		t.Fatal(err)
	}
	after := deadlocks()
	if got := int(res.Counts.Errors); got != after-mid {
		t.Errorf("starbench counted %d ignored errors; the server recorded %d deadlocks", got, after-mid)
	}
	for code, n := range res.ErrorCodes {
		if code != "1213" {
			t.Errorf("starbench ignored %d errors %s; on pessimistic TiDB only deadlocks (1213) were expected", n, code)
		}
	}
	t.Logf("deadlocks: sysbench's run %d, starbench's %d", mid-before, after-mid)

	// Sessions opened from now on take the global mode.
	if _, err := admin.Exec(context.Background(), "SET GLOBAL tidb_txn_mode = 'optimistic'"); err != nil {
		t.Fatal(err)
	}
	out, sysErr := theirs()
	stopped, ourErr := ours()
	if sysErr == nil || !strings.Contains(out, "error 9007") || ourErr == nil || !strings.Contains(ourErr.Error(), "Error 9007") {
		t.Errorf("optimistic conflicts without --mysql-ignore-errors=9007: sysbench %v, starbench %v; both must stop on 9007\n%s", sysErr, ourErr, out)
	}
	// sysbench prints no statistics then; starbench counts and names the
	// error that stopped it, and says how to go on.
	if strings.Contains(out, "SQL statistics") || !strings.Contains(out, "FATAL: `thread_run' function failed") {
		t.Errorf("sysbench's output on 9007 is not what the hint says (FATAL, no statistics):\n%s", out)
	}
	if ourErr != nil && !strings.Contains(ourErr.Error(), "give --mysql-ignore-errors=1213,1020,1205,9007 (mysql_ignore_errors= in a plan)") {
		t.Errorf("the stopping error does not say how to go on: %v", ourErr)
	}
	if stopped == nil || stopped.StopError == nil || stopped.StopError.Code != "9007" || stopped.StopError.Kind != "COMMIT" || stopped.Counts.Errors != 0 {
		t.Errorf("the stopping error is not recorded: %+v", stopped)
	}
	out, err = theirs("--mysql-ignore-errors=9007")
	if err != nil {
		t.Fatalf("sysbench --mysql-ignore-errors=9007: %v\n%s", err, out)
	}
	res, err = ours("--mysql-ignore-errors=9007")
	if err != nil {
		t.Fatalf("starbench --mysql-ignore-errors=9007: %v", err)
	}
	if res.Counts.Events != 300 {
		t.Errorf("starbench --mysql-ignore-errors=9007: %d events, want 300", res.Counts.Events)
	}
	for code := range res.ErrorCodes {
		if code != "9007" && code != "1213" {
			t.Errorf("starbench --mysql-ignore-errors=9007 ignored error %s", code)
		}
	}
	t.Logf("optimistic conflicts ignored: sysbench %d, starbench %d", ignoredErrors(t, out), res.Counts.Errors)
}

// ignoredErrors reads a sysbench report's "ignored errors:" count.
func ignoredErrors(t *testing.T, out string) int {
	t.Helper()
	m := regexp.MustCompile(`(?m)^    ignored errors: +(\d+) `).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no ignored errors line in:\n%s", out)
	}
	return atoi(m[1])
}
