package tpcc

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"math"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/builtins/db/snapshot"
	"github.com/starbench/starbench/internal/sandbox"
	"github.com/starbench/starbench/internal/testutil/gotpctest"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
)

// --- go-tpc and a server loaded by it ---

// goTPCServer is a private MariaDB with one warehouse loaded by go-tpc.
type goTPCServer struct {
	m     *sandbox.MariaDB
	goTPC string
	admin *sql.DB
}

func startGoTPCServer(t *testing.T) *goTPCServer {
	t.Helper()
	bin := gotpctest.Binary(t)
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{Database: "tpcc"})
	srv := &goTPCServer{m: m, goTPC: bin}
	srv.goTPCRun(t, "prepare", "--warehouses", "1", "-T", "2", "--no-check")
	admin, err := sql.Open("mysql", m.Config().FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	srv.admin = admin
	return srv
}

// goTPCRun runs go-tpc tpcc COMMAND against the server and returns its
// output; cpu is the client's CPU time.
func (srv *goTPCServer) goTPCRun(t *testing.T, command string, args ...string) (out string, cpu time.Duration) {
	t.Helper()
	cfg := srv.m.Config()
	all := append([]string{"tpcc", command, "-H", "127.0.0.1", "-P", strconv.Itoa(srv.m.Port), "-U", cfg.User,
		"-p", cfg.Passwd, "-D", cfg.DBName}, args...)
	cmd := exec.Command(srv.goTPC, all...)
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	if err := cmd.Run(); err != nil {
		t.Fatalf("go-tpc tpcc %s: %v\n%s", command, err, b.String())
	}
	return b.String(), cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

func (srv *goTPCServer) int(t *testing.T, query string, args ...any) int64 {
	t.Helper()
	var n sql.NullInt64
	if err := srv.admin.QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n.Int64
}

func (srv *goTPCServer) decimal(t *testing.T, query string, args ...any) string {
	t.Helper()
	var s sql.NullString
	if err := srv.admin.QueryRow(query, args...).Scan(&s); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return s.String
}

// checksums are CHECKSUM TABLE of the nine tables.
func (srv *goTPCServer) checksums(t *testing.T) string {
	t.Helper()
	rows, err := srv.admin.Query("CHECKSUM TABLE " + strings.Join(Tables, ", "))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var name string
		var sum sql.NullInt64
		if err := rows.Scan(&name, &sum); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s=%d ", name, sum.Int64)
	}
	return b.String()
}

// --- recording what a worker sends ---

// recorder wraps a session and writes down every statement a worker runs,
// with its arguments, one line each.
type recorder struct {
	s     bench.Session
	lines []string
}

func (r *recorder) add(query string, args []any) {
	var b strings.Builder
	b.WriteString(query)
	for _, a := range args {
		if v, ok := a.([]byte); ok {
			a = string(v)
		}
		fmt.Fprintf(&b, " | %T %v", a, a)
	}
	r.lines = append(r.lines, b.String())
}

func (r *recorder) Prepare(ctx context.Context, query string) (bench.Stmt, error) {
	st, err := r.s.Prepare(ctx, query)
	if err != nil {
		return nil, err
	}
	if rs, ok := st.(bench.RowStmt); ok {
		return &recordedRowStmt{recordedStmt{rs, r, query}, rs}, nil
	}
	return &recordedStmt{st, r, query}, nil
}

func (r *recorder) Exec(ctx context.Context, query string) (int64, error) {
	r.add(query, nil)
	return r.s.Exec(ctx, query)
}

func (r *recorder) Query(ctx context.Context, query string) (int64, error) {
	r.add(query, nil)
	return r.s.Query(ctx, query)
}

func (r *recorder) Close() error { return r.s.Close() }

// count is how many statements start with prefix.
func (r *recorder) count(prefix string) int {
	n := 0
	for _, l := range r.lines {
		if strings.HasPrefix(l, prefix) {
			n++
		}
	}
	return n
}

type recordedStmt struct {
	st    bench.Stmt
	r     *recorder
	query string
}

func (s *recordedStmt) Exec(ctx context.Context, args ...any) (int64, error) {
	s.r.add(s.query, args)
	return s.st.Exec(ctx, args...)
}

func (s *recordedStmt) Query(ctx context.Context, args ...any) error {
	s.r.add(s.query, args)
	return s.st.Query(ctx, args...)
}

func (s *recordedStmt) Close() error { return s.st.Close() }

type recordedRowStmt struct {
	recordedStmt
	rs bench.RowStmt
}

func (s *recordedRowStmt) QueryRows(ctx context.Context, row func([]driver.Value) error, args ...any) (int64, error) {
	s.r.add(s.query, args)
	return s.rs.QueryRows(ctx, row, args...)
}

// --- running events ---

// oneWorker prepares worker id of wl (seed) on a session of conn wrapped
// in a recorder.
func oneWorker(t *testing.T, wl *Workload, conn bench.Connector, id int, seed uint64) (*txnWorker, *recorder) {
	t.Helper()
	ctx := context.Background()
	s, err := conn.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{s: s}
	t.Cleanup(func() { rec.Close() })
	w, err := wl.NewWorker(id, seed)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Prepare(ctx, rec); err != nil {
		t.Fatal(err)
	}
	rec.lines = nil
	return w.(*txnWorker), rec
}

// events runs n events on one worker, failing the test on any error.
func events(t *testing.T, w *txnWorker, s bench.Session, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		if err := w.Event(context.Background(), s); err != nil {
			t.Fatalf("event %d (%s): %v", i, Kind(w.Kind()), err)
		}
	}
}

// runMix runs wl through the engine on its own transport: threads
// workers, events transactions (or, when events is 0, for d), deadlocks
// and lock wait timeouts retried.
func runMix(t *testing.T, wl *Workload, cfg *mysql.Config, ps bench.PSMode, threads int, events int64, d time.Duration, seed int64) *bench.Result {
	t.Helper()
	res, err := bench.Run(context.Background(), wl, bench.NewSQLConnector(cfg, ps),
		bench.Options{Threads: threads, Events: events, Time: d, Seed: seed, IgnoreErrors: []uint16{1213, 1205}})
	if err != nil {
		t.Fatalf("bench.Run: %v", err)
	}
	return res
}

// --- the tests ---

func TestTxnWorkloadOptions(t *testing.T) {
	if _, err := NewWorkload(WorkloadOptions{}); err == nil {
		t.Error("0 warehouses accepted")
	}
	if _, err := NewWorkload(WorkloadOptions{Warehouses: 1, Weights: Weights{50, 43, 4, 4, 4}}); err == nil || !strings.Contains(err.Error(), "add up to 100, got 105") {
		t.Errorf("weights adding up to 105: %v", err)
	}
	if _, err := NewWorkload(WorkloadOptions{Warehouses: 1, Weights: Weights{104, -4}}); err == nil || !strings.Contains(err.Error(), "payment must not be negative") {
		t.Errorf("a negative weight: %v", err)
	}
	wl, err := NewWorkload(WorkloadOptions{Warehouses: 3})
	if err != nil {
		t.Fatal(err)
	}
	if wl.Options().Weights != DefaultWeights {
		t.Errorf("default weights %v", wl.Options().Weights)
	}
	if m := wl.Meta(); m.Name != "tpcc" || m.Version == "" {
		t.Errorf("meta %+v", m)
	}
	if got := strings.Join(wl.Kinds(), ","); got != "new_order,payment,order_status,delivery,stock_level" {
		t.Errorf("kinds %s", got)
	}
	var _ bench.Kinded = wl
	w, _ := wl.NewWorker(0, 1)
	if _, ok := w.(bench.KindReporter); !ok {
		t.Error("the worker is not a KindReporter")
	}
	// The deck: every 100 transactions of a worker hold the weights exactly.
	tw := w.(*txnWorker)
	for round := 0; round < 3; round++ {
		var n [numKinds]int
		for i := 0; i < 100; i++ {
			n[tw.deal()]++
		}
		if Weights(n) != DefaultWeights {
			t.Fatalf("round %d dealt %v", round, n)
		}
	}
	// A session whose statements cannot return rows is refused.
	if err := w.Prepare(context.Background(), plainSession{}); !errors.Is(err, ErrNoRowValues) {
		t.Errorf("Prepare on a session without row values: %v", err)
	}
}

// plainSession prepares statements that only run.
type plainSession struct{}

func (plainSession) Prepare(context.Context, string) (bench.Stmt, error) { return plainStmt{}, nil }
func (plainSession) Exec(context.Context, string) (int64, error)         { return 0, nil }
func (plainSession) Query(context.Context, string) (int64, error)        { return 0, nil }
func (plainSession) Close() error                                        { return nil }

type plainStmt struct{}

func (plainStmt) Exec(context.Context, ...any) (int64, error) { return 0, nil }
func (plainStmt) Query(context.Context, ...any) error         { return nil }
func (plainStmt) Close() error                                { return nil }

// --- general log ---

// loggedStmt is one command from mysql.general_log.
type loggedStmt struct {
	thread  int64
	command string // Query, Prepare, Execute, Close stmt, ...
	text    string
}

// captureLog runs fn with the general log on and returns what other
// connections sent.
func (srv *goTPCServer) captureLog(t *testing.T, fn func()) []loggedStmt {
	t.Helper()
	for _, q := range []string{"SET GLOBAL general_log = 0", "SET GLOBAL log_output = 'TABLE'", "TRUNCATE mysql.general_log", "SET GLOBAL general_log = 1"} {
		if _, err := srv.admin.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	fn()
	if _, err := srv.admin.Exec("SET GLOBAL general_log = 0"); err != nil {
		t.Fatal(err)
	}
	conn, err := srv.admin.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	rows, err := conn.QueryContext(context.Background(), "SELECT thread_id, command_type, CONVERT(argument USING utf8mb4) FROM mysql.general_log WHERE thread_id <> CONNECTION_ID() ORDER BY event_time")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []loggedStmt
	for rows.Next() {
		var l loggedStmt
		if err := rows.Scan(&l.thread, &l.command, &l.text); err != nil {
			t.Fatal(err)
		}
		out = append(out, l)
	}
	return out
}

var (
	sqlNumberRe = regexp.MustCompile(`-?\b\d+(\.\d+)?\b`)
	sqlQuotedRe = regexp.MustCompile(`'(\\.|[^'\\])*'`)
	sqlSpaceRe  = regexp.MustCompile(`\s+`)
	sqlTuplesRe = regexp.MustCompile(`\((N|\?)(,(N|\?))*\)(,\s*\((N|\?)(,(N|\?))*\))+`)
)

// normalizeSQL replaces values and spacing so that statements of the same
// shape compare equal; a list of tuples becomes one tuple and "...".
func normalizeSQL(q string) string {
	q = sqlQuotedRe.ReplaceAllString(q, "S")
	q = sqlNumberRe.ReplaceAllString(q, "N")
	q = sqlSpaceRe.ReplaceAllString(strings.TrimSpace(q), " ")
	q = strings.ReplaceAll(strings.ReplaceAll(q, "( ", "("), " )", ")")
	return q
}

// TestTxnDraws checks the transactions' inputs over many draws, with
// three warehouses: the shares go-tpc draws them with.
func TestTxnDraws(t *testing.T) {
	wl, err := NewWorkload(WorkloadOptions{Warehouses: 3, Constants: NewConstants(5)})
	if err != nil {
		t.Fatal(err)
	}
	wk, _ := wl.NewWorker(0, 99)
	w := wk.(*txnWorker)
	const n = 20000
	var rollbacks, lines, remoteLines, notLocal int
	for i := 0; i < n; i++ {
		w.drawNewOrder()
		o := &w.no
		lines += len(o.lines)
		if o.lines[len(o.lines)-1].iID == -1 {
			rollbacks++
		}
		seen := map[int64]bool{}
		for _, l := range o.lines {
			if seen[l.iID] || l.quantity < 1 || l.quantity > 10 {
				t.Fatalf("line %+v", l)
			}
			seen[l.iID] = true
			if l.remote == 1 {
				remoteLines++
				if l.supplyWID == o.wID {
					t.Fatal("a remote line supplied by its home warehouse")
				}
			}
		}
		if o.allLocal == 0 {
			notLocal++
		}
	}
	within := func(what string, got, want, tol float64) {
		if got < want-tol || got > want+tol {
			t.Errorf("%s: %.4f, want %.4f ± %.4f", what, got, want, tol)
		}
	}
	within("new_order rollbacks", float64(rollbacks)/n, 0.01, 0.003)
	within("new_order lines per order", float64(lines)/n, 10, 0.1)
	within("new_order remote lines", float64(remoteLines)/float64(lines), 0.01, 0.002)
	var byName, remote int
	for i := 0; i < n; i++ {
		w.drawPayment()
		p := &w.pay
		if p.byName {
			byName++
			if p.cID != 0 || len(p.cLast) == 0 {
				t.Fatalf("by name: %+v", p)
			}
		}
		if p.cWID != p.wID {
			remote++
		}
		if p.amount < 1 || p.amount > 5000 {
			t.Fatalf("amount %v", p.amount)
		}
	}
	within("payment by last name", float64(byName)/n, 0.60, 0.015)
	within("payment remote customer", float64(remote)/n, 0.15, 0.01)
	byName = 0
	for i := 0; i < n; i++ {
		w.drawOrderStatus()
		if w.os.byName {
			byName++
		}
	}
	within("order_status by last name", float64(byName)/n, 0.60, 0.015)
	for i := 0; i < 1000; i++ {
		w.drawStockLevel()
		w.drawDelivery()
		if th := w.sl.threshold; th < 10 || th > 20 {
			t.Fatalf("threshold %d", th)
		}
		if c := w.dl.carrier; c < 1 || c > 10 {
			t.Fatalf("carrier %d", c)
		}
	}
	// One warehouse: nothing remote.
	wl1, _ := NewWorkload(WorkloadOptions{Warehouses: 1})
	wk1, _ := wl1.NewWorker(0, 1)
	w1 := wk1.(*txnWorker)
	for i := 0; i < 2000; i++ {
		w1.drawNewOrder()
		w1.drawPayment()
		if w1.no.allLocal != 1 || w1.pay.cWID != 1 || w1.no.wID != 1 {
			t.Fatal("a remote warehouse with one warehouse")
		}
	}
}

// FixedWarehouse (BenchmarkSQL's terminalWarehouseFixed): every
// transaction of worker i has home warehouse i mod 4 + 1, remote
// warehouses still drawn; without it the homes spread over all four.
func TestTxnFixedWarehouse(t *testing.T) {
	for _, fixed := range []bool{true, false} {
		wl, err := NewWorkload(WorkloadOptions{Warehouses: 4, Constants: NewConstants(5), FixedWarehouse: fixed})
		if err != nil {
			t.Fatal(err)
		}
		wk, _ := wl.NewWorker(6, 99)
		w := wk.(*txnWorker)
		homes, remote := map[int64]bool{}, 0
		for range 2000 {
			w.drawNewOrder()
			w.drawPayment()
			w.drawOrderStatus()
			w.drawDelivery()
			w.drawStockLevel()
			for _, h := range []int64{w.no.wID, w.pay.wID, w.os.wID, w.dl.wID, w.sl.wID} {
				homes[h] = true
			}
			if w.pay.cWID != w.pay.wID {
				remote++
			}
		}
		if fixed && (len(homes) != 1 || !homes[3] || remote == 0) {
			t.Errorf("fixed: homes %v, %d remote payments; want warehouse 3 only, some remote", homes, remote)
		}
		if !fixed && len(homes) != 4 {
			t.Errorf("not fixed: homes %v, want all four", homes)
		}
	}
}

// TestTxnOnGoTPCData runs the transactions on one warehouse loaded by
// go-tpc: each kind on its own, checking what it changed; a seed's stream
// twice from the same data; and the mix with four threads.
func TestTxnOnGoTPCData(t *testing.T) {
	srv := startGoTPCServer(t)
	ctx := context.Background()
	cfg := srv.m.Config()
	conn := bench.NewSQLConnector(cfg, bench.PSAuto)
	only := func(k Kind) *Workload {
		var w Weights
		w[k] = 100
		wl, err := NewWorkload(WorkloadOptions{Warehouses: 1, Weights: w, Constants: NewConstants(3)})
		if err != nil {
			t.Fatal(err)
		}
		return wl
	}
	exec := func(q string) {
		t.Helper()
		if _, err := srv.admin.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	cents := func(q string) int64 {
		t.Helper()
		f, err := strconv.ParseFloat(srv.decimal(t, q), 64)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return int64(math.Round(f * 100))
	}

	t.Run("isolation", func(t *testing.T) {
		// go-sql-driver's BeginTx with an isolation level, as go-tpc's
		// --isolation: SET TRANSACTION ISOLATION LEVEL, then START
		// TRANSACTION, every transaction; MariaDB takes both.
		wl, err := NewWorkload(WorkloadOptions{Warehouses: 1, Constants: NewConstants(5), Isolation: IsolationLevels[2]})
		if err != nil {
			t.Fatal(err)
		}
		w, rec := oneWorker(t, wl, conn, 0, 9)
		events(t, w, rec, 30)
		starts := 0
		for i, l := range rec.lines {
			if strings.HasPrefix(l, "START TRANSACTION") {
				starts++
				if i == 0 || rec.lines[i-1] != "SET TRANSACTION ISOLATION LEVEL READ COMMITTED" {
					t.Fatalf("statement %d: START TRANSACTION without the isolation level before it:\n%s", i, strings.Join(rec.lines[max(0, i-3):i+1], "\n"))
				}
			}
		}
		if starts < 30 {
			t.Errorf("%d transactions started in 30 events", starts)
		}
	})

	t.Run("same_seed_same_stream", func(t *testing.T) {
		admin, err := db.Open(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer admin.Close()
		snap, err := snapshot.Take(ctx, admin, cfg.DBName, "", snapshot.Options{})
		if err != nil {
			t.Fatal(err)
		}
		wl, err := NewWorkload(WorkloadOptions{Warehouses: 1, Constants: NewConstants(11)})
		if err != nil {
			t.Fatal(err)
		}
		clock := time.Date(2021, 6, 1, 12, 0, 0, 0, time.UTC)
		wl.now = func() time.Time { return clock }
		stream := func(seed uint64) []string {
			w, rec := oneWorker(t, wl, conn, 0, seed)
			events(t, w, rec, 200)
			return rec.lines
		}
		a := stream(bench.WorkerSeed(7, 0))
		if _, err := snapshot.Restore(ctx, admin, snap, snapshot.Options{}); err != nil {
			t.Fatal(err)
		}
		b := stream(bench.WorkerSeed(7, 0))
		if len(a) < 200*5 {
			t.Fatalf("only %d statements in 200 events", len(a))
		}
		for i := range max(len(a), len(b)) {
			if i >= len(a) || i >= len(b) || a[i] != b[i] {
				t.Fatalf("the streams differ at statement %d of %d/%d:\n%s\n%s", i, len(a), len(b), at(a, i), at(b, i))
			}
		}
		c := stream(bench.WorkerSeed(7, 1))
		if strings.Join(c[:50], "\n") == strings.Join(a[:50], "\n") {
			t.Error("another seed gave the same stream")
		}
		t.Logf("%d statements, the same twice", len(a))
	})

	t.Run("new_order", func(t *testing.T) {
		exec("DROP TABLE IF EXISTS t_before")
		exec("CREATE TABLE t_before AS SELECT d_w_id, d_id, d_next_o_id FROM district")
		orders, lines := srv.int(t, "SELECT COUNT(*) FROM orders"), srv.int(t, "SELECT COUNT(*) FROM order_line")
		newOrders := srv.int(t, "SELECT COUNT(*) FROM new_order")
		stockOrders := srv.int(t, "SELECT SUM(s_order_cnt) FROM stock")
		stockYTD := srv.int(t, "SELECT SUM(s_ytd) FROM stock")
		w, rec := oneWorker(t, only(KindNewOrder), conn, 0, 1)
		const n = 400
		rolledBack := 0
		for i := 0; i < n; i++ {
			events(t, w, rec, 1)
			if w.rolledBack {
				rolledBack++
			}
		}
		if rolledBack == 0 || rolledBack != rec.count("ROLLBACK") || rolledBack > n/25 {
			t.Errorf("%d of %d New-Orders rolled back, %d ROLLBACKs sent", rolledBack, n, rec.count("ROLLBACK"))
		}
		done := int64(n - rolledBack)
		newRows := "FROM orders o JOIN t_before b ON o.o_w_id = b.d_w_id AND o.o_d_id = b.d_id AND o.o_id >= b.d_next_o_id"
		for _, c := range []struct {
			what      string
			got, want int64
		}{
			{"d_next_o_id raised", srv.int(t, "SELECT SUM(d.d_next_o_id - b.d_next_o_id) FROM district d JOIN t_before b USING (d_w_id, d_id)"), done},
			{"orders added", srv.int(t, "SELECT COUNT(*) FROM orders") - orders, done},
			{"new orders", srv.int(t, "SELECT COUNT(*) "+newRows), done},
			{"new_order rows added", srv.int(t, "SELECT COUNT(*) FROM new_order") - newOrders, done},
			{"new orders without their new_order row", srv.int(t, "SELECT COUNT(*) "+newRows+" WHERE NOT EXISTS (SELECT 1 FROM new_order WHERE no_w_id = o.o_w_id AND no_d_id = o.o_d_id AND no_o_id = o.o_id)"), 0},
			{"order lines added", srv.int(t, "SELECT COUNT(*) FROM order_line") - lines, srv.int(t, "SELECT SUM(o_ol_cnt) "+newRows)},
			{"new orders whose lines are not o_ol_cnt", srv.int(t, "SELECT COUNT(*) "+newRows+" WHERE o.o_ol_cnt <> (SELECT COUNT(*) FROM order_line WHERE ol_w_id = o.o_w_id AND ol_d_id = o.o_d_id AND ol_o_id = o.o_id)"), 0},
			{"new orders with o_ol_cnt out of 5..15 or not all local", srv.int(t, "SELECT COUNT(*) "+newRows+" WHERE o.o_ol_cnt NOT BETWEEN 5 AND 15 OR o.o_all_local <> 1 OR o.o_carrier_id IS NOT NULL"), 0},
			{"districts whose next order id is not their last order's + 1", srv.int(t, "SELECT COUNT(*) FROM district WHERE d_next_o_id <> (SELECT MAX(o_id) + 1 FROM orders WHERE o_w_id = d_w_id AND o_d_id = d_id)"), 0},
			{"stock orders counted", srv.int(t, "SELECT SUM(s_order_cnt) FROM stock") - stockOrders, srv.int(t, "SELECT COUNT(*) FROM order_line") - lines},
			{"stock ytd raised", srv.int(t, "SELECT SUM(s_ytd) FROM stock") - stockYTD, srv.int(t, "SELECT SUM(ol_quantity) FROM order_line l JOIN t_before b ON l.ol_w_id = b.d_w_id AND l.ol_d_id = b.d_id AND l.ol_o_id >= b.d_next_o_id")},
		} {
			if c.got != c.want {
				t.Errorf("%s: %d, want %d", c.what, c.got, c.want)
			}
		}
		t.Logf("%d New-Orders, %d rolled back", n, rolledBack)
	})

	t.Run("payment", func(t *testing.T) {
		wYTD, dYTD := cents("SELECT w_ytd FROM warehouse"), cents("SELECT SUM(d_ytd) FROM district")
		balance, paid := cents("SELECT SUM(c_balance) FROM customer"), cents("SELECT SUM(c_ytd_payment) FROM customer")
		payments, histories := srv.int(t, "SELECT SUM(c_payment_cnt) FROM customer"), srv.int(t, "SELECT COUNT(*) FROM history")
		amounts := cents("SELECT SUM(h_amount) FROM history")
		dataChanged := srv.int(t, "SELECT COUNT(*) FROM customer WHERE c_data LIKE '| %'")
		w, rec := oneWorker(t, only(KindPayment), conn, 0, 2)
		const n = 400
		events(t, w, rec, n)
		amount := cents("SELECT SUM(h_amount) FROM history") - amounts
		for _, c := range []struct {
			what      string
			got, want int64
		}{
			{"history rows added", srv.int(t, "SELECT COUNT(*) FROM history") - histories, n},
			{"w_ytd raised", cents("SELECT w_ytd FROM warehouse") - wYTD, amount},
			{"d_ytd raised", cents("SELECT SUM(d_ytd) FROM district") - dYTD, amount},
			{"c_balance lowered", balance - cents("SELECT SUM(c_balance) FROM customer"), amount},
			{"c_ytd_payment raised", cents("SELECT SUM(c_ytd_payment) FROM customer") - paid, amount},
			{"c_payment_cnt raised", srv.int(t, "SELECT SUM(c_payment_cnt) FROM customer") - payments, n},
			{"good-credit customers whose c_data changed", srv.int(t, "SELECT COUNT(*) FROM customer WHERE c_data LIKE '| %' AND c_credit <> 'BC'"), 0},
			{"bad-credit customers paid whose c_data did not change", srv.int(t, "SELECT COUNT(*) FROM customer WHERE c_credit = 'BC' AND c_payment_cnt > 1 AND c_data NOT LIKE '| %'"), 0},
			{"c_data longer than 500", srv.int(t, "SELECT COUNT(*) FROM customer WHERE LENGTH(c_data) > 500"), 0},
		} {
			if c.got != c.want {
				t.Errorf("%s: %d, want %d", c.what, c.got, c.want)
			}
		}
		if bc := srv.int(t, "SELECT COUNT(*) FROM customer WHERE c_data LIKE '| %'") - dataChanged; bc == 0 || amount < n*100 {
			t.Errorf("%d bad-credit customers' c_data updated, %d cents paid", bc, amount)
		}
		byName := rec.count(paySelectCustomerIDs)
		if byName < n/2 || byName > n*7/10 {
			t.Errorf("%d of %d payments by last name", byName, n)
		}
	})

	for _, k := range []Kind{KindOrderStatus, KindStockLevel} {
		t.Run(k.String()+"_changes_nothing", func(t *testing.T) {
			before := srv.checksums(t)
			w, rec := oneWorker(t, only(k), conn, 0, 3)
			events(t, w, rec, 300)
			if after := srv.checksums(t); after != before {
				t.Errorf("tables changed:\n%s\n%s", before, after)
			}
			if k == KindOrderStatus {
				if byName := rec.count(osCountByLast); byName < 150 || byName > 210 {
					t.Errorf("%d of 300 by last name", byName)
				}
			}
		})
	}

	t.Run("delivery", func(t *testing.T) {
		// District 10 has nothing to deliver: it is skipped.
		exec("DELETE FROM new_order WHERE no_d_id = 10")
		exec("DROP TABLE IF EXISTS t_oldest")
		exec("CREATE TABLE t_oldest AS SELECT no_w_id AS w, no_d_id AS d, MIN(no_o_id) AS first, COUNT(*) AS n FROM new_order GROUP BY no_w_id, no_d_id")
		if n := srv.int(t, "SELECT MIN(n) FROM t_oldest"); n < 150 {
			t.Fatalf("a district has only %d new orders", n)
		}
		newOrders := srv.int(t, "SELECT COUNT(*) FROM new_order")
		deliveries := srv.int(t, "SELECT SUM(c_delivery_cnt) FROM customer")
		balance := cents("SELECT SUM(c_balance) FROM customer")
		const n = 100
		w, rec := oneWorker(t, only(KindDelivery), conn, 0, 4)
		events(t, w, rec, n)
		// The n oldest new orders of districts 1-9 were delivered.
		delivered := "FROM orders o JOIN t_oldest f ON o.o_w_id = f.w AND o.o_d_id = f.d AND o.o_id >= f.first AND o.o_id < f.first + " + strconv.Itoa(n)
		for _, c := range []struct {
			what      string
			got, want int64
		}{
			{"new_order rows removed", newOrders - srv.int(t, "SELECT COUNT(*) FROM new_order"), 9 * n},
			{"delivered orders still in new_order", srv.int(t, "SELECT COUNT(*) "+delivered+" JOIN new_order ON no_w_id = o.o_w_id AND no_d_id = o.o_d_id AND no_o_id = o.o_id"), 0},
			{"new_order rows of district 10", srv.int(t, "SELECT COUNT(*) FROM new_order WHERE no_d_id = 10"), 0},
			{"delivered orders without a carrier", srv.int(t, "SELECT COUNT(*) "+delivered+" WHERE o.o_carrier_id IS NULL OR o.o_carrier_id NOT BETWEEN 1 AND 10"), 0},
			{"orders delivered", srv.int(t, "SELECT COUNT(*) "+delivered), 9 * n},
			{"undelivered orders with a carrier", srv.int(t, "SELECT COUNT(*) FROM orders o JOIN new_order ON no_w_id = o.o_w_id AND no_d_id = o.o_d_id AND no_o_id = o.o_id WHERE o.o_carrier_id IS NOT NULL"), 0},
			{"delivered lines without a delivery date", srv.int(t, "SELECT COUNT(*) FROM order_line l JOIN t_oldest f ON l.ol_w_id = f.w AND l.ol_d_id = f.d AND l.ol_o_id >= f.first AND l.ol_o_id < f.first + "+strconv.Itoa(n)+" WHERE l.ol_delivery_d IS NULL"), 0},
			{"c_delivery_cnt raised", srv.int(t, "SELECT SUM(c_delivery_cnt) FROM customer") - deliveries, 9 * n},
			{"c_balance raised by the delivered lines' amounts", cents("SELECT SUM(c_balance) FROM customer") - balance,
				cents("SELECT SUM(ol_amount) FROM order_line l JOIN t_oldest f ON l.ol_w_id = f.w AND l.ol_d_id = f.d AND l.ol_o_id >= f.first AND l.ol_o_id < f.first + " + strconv.Itoa(n))},
		} {
			if c.got != c.want {
				t.Errorf("%s: %d, want %d", c.what, c.got, c.want)
			}
		}
		if u := rec.count(dlUpdateCustomer); u != 9*n {
			t.Errorf("%d customer updates for %d deliveries of 9 districts", u, n)
		}
	})

	t.Run("mix", func(t *testing.T) {
		wl, err := NewWorkload(WorkloadOptions{Warehouses: 1, Constants: NewConstants(1)})
		if err != nil {
			t.Fatal(err)
		}
		checkShares(t, runMix(t, wl, cfg, bench.PSAuto, 4, 5000, 0, 1), 5000)
	})

	// Statements sent as text: every value comes back as text.
	t.Run("mix_as_text", func(t *testing.T) {
		wl, err := NewWorkload(WorkloadOptions{Warehouses: 1, Constants: NewConstants(2)})
		if err != nil {
			t.Fatal(err)
		}
		res := runMix(t, wl, cfg, bench.PSDisable, 2, 1000, 0, 2)
		if res.Counts.Events != 1000 || res.Kinds[KindDelivery].Events == 0 {
			t.Errorf("%d transactions, %d deliveries", res.Counts.Events, res.Kinds[KindDelivery].Events)
		}
	})
}

// checkShares checks that the result's transactions by kind (the
// engine's per-kind counts) are within a point of the default weights.
func checkShares(t *testing.T, res *bench.Result, events int64) {
	t.Helper()
	if len(res.Kinds) != int(numKinds) {
		t.Fatalf("%d kinds in the result", len(res.Kinds))
	}
	var total int64
	counts := make([]string, len(res.Kinds))
	for i, k := range res.Kinds {
		total += k.Events
		counts[i] = fmt.Sprintf("%s %d", k.Name, k.Events)
		if k.Name != Kind(i).String() {
			t.Errorf("kind %d is %s", i, k.Name)
		}
	}
	if total != events || res.Counts.Events != events {
		t.Errorf("%d transactions by kind, %d in all, want %d", total, res.Counts.Events, events)
	}
	for i, k := range res.Kinds {
		share := 100 * float64(k.Events) / float64(total)
		if want := float64(DefaultWeights[i]); math.Abs(share-want) > 1 {
			t.Errorf("%s: %.2f%% of the transactions, want %.0f%% ± 1", k.Name, share, want)
		}
	}
	t.Logf("%s in %s; errors retried %v", strings.Join(counts, ", "), res.Elapsed.Round(time.Millisecond), res.ErrorCodes)
}

func at(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "(end)"
}

// transactionShapes splits each connection's statements into
// transactions (START TRANSACTION to COMMIT or ROLLBACK) and counts each
// transaction's shape: its statements normalized, a statement repeated in
// a row counted once, IN lists of any length alike.
func transactionShapes(log []loggedStmt) (shapes map[string]int, statements map[string]bool) {
	shapes, statements = map[string]int{}, map[string]bool{}
	open := map[int64][]string{}
	for _, l := range log {
		switch l.command {
		case "Query", "Execute", "Prepare":
		default:
			continue
		}
		n := normalizeSQL(l.text)
		statements[l.command+" "+n] = true
		if l.command == "Prepare" {
			continue
		}
		n = sqlTuplesRe.ReplaceAllString(n, "(...)")
		n = regexp.MustCompile(`IN \((N|\?)(,(N|\?))+\)`).ReplaceAllString(n, "IN (...)")
		cur := open[l.thread]
		switch {
		case n == "START TRANSACTION":
			cur = []string{n}
		case cur == nil:
			continue
		case cur[len(cur)-1] != n:
			cur = append(cur, n)
		}
		open[l.thread] = cur
		if n == "COMMIT" || n == "ROLLBACK" {
			shapes[strings.Join(cur, "\n  ")]++
			open[l.thread] = nil
		}
	}
	return shapes, statements
}

// TestTxnGoTPCCompat compares what the workers send with what go-tpc
// sends (MariaDB's general log: every statement shape, and every
// transaction's sequence of them), then runs a few thousand transactions
// and has go-tpc and Check check the data: both pass (go-tpc's default
// conditions).
func TestTxnGoTPCCompat(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping in -short mode: go-tpc's run and check against a private MariaDB")
	}
	srv := startGoTPCServer(t)
	cfg := srv.m.Config()
	goLog := srv.captureLog(t, func() { srv.goTPCRun(t, "run", "--warehouses", "1", "-T", "2", "--time", "4s") })
	wl, err := NewWorkload(WorkloadOptions{Warehouses: 1, Constants: NewConstants(2)})
	if err != nil {
		t.Fatal(err)
	}
	ourLog := srv.captureLog(t, func() { runMix(t, wl, cfg, bench.PSAuto, 2, 2000, 0, 2) })
	goShapes, goStmts := transactionShapes(goLog)
	ourShapes, ourStmts := transactionShapes(ourLog)
	for s := range ourStmts {
		if !goStmts[s] {
			t.Errorf("go-tpc never sent: %s", s)
		}
	}
	for s := range goStmts {
		if !ourStmts[s] {
			t.Errorf("the workers never sent: %s", s)
		}
	}
	for s, n := range ourShapes {
		if goShapes[s] == 0 {
			t.Errorf("a transaction go-tpc never ran (%d times):\n  %s", n, s)
		}
	}
	for s, n := range goShapes {
		if n >= 3 && ourShapes[s] == 0 {
			t.Errorf("a transaction of go-tpc's the workers never ran (go-tpc %d times):\n  %s", n, s)
		}
	}
	t.Logf("%d statement shapes, %d transaction shapes (go-tpc: %d, %d)", len(ourStmts), len(ourShapes), len(goStmts), len(goShapes))

	checkShares(t, runMix(t, wl, cfg, bench.PSAuto, 4, 3000, 0, 3), 3000)
	// Both checks of the data go-tpc loaded and both tools ran on must
	// pass: go-tpc's (the suite's one run of its default set, seconds with
	// gotpctest.IndexForCheck) and Check's. go-tpc stops at its first failing condition,
	// so the two agree as "both pass", not condition by condition; what is
	// checked beyond that is that go-tpc ran every condition Check ran (it
	// names each as it starts it).
	gotpctest.IndexForCheck(t, srv.m, srv.m.Config().DBName)
	out, _ := srv.goTPCRun(t, "check", "--warehouses", "1")
	if strings.Contains(out, "failed") || !strings.Contains(out, "at condition 3.3.2.10") {
		t.Errorf("go-tpc tpcc check:\n%s", out)
	}
	q, err := db.Open(context.Background(), srv.m.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	ours, err := Check(context.Background(), q, GoTPCLayout, 1, false)
	if err != nil || !Passed(ours) {
		t.Errorf("Check after both tools' runs: %v\n%s", err, strings.Join(CheckLines(ours), "\n"))
	}
	for _, c := range ours {
		if !strings.Contains(out, "at condition "+c.Number+"\n") {
			t.Errorf("go-tpc's default check has no condition %s, Check's has:\n%s", c.Number, out)
		}
	}
}

// TestTxnWait checks the keying and think times: think times average
// their mean (cut at ten times it), and a wait ends with the context.
func TestTxnWait(t *testing.T) {
	wl, err := NewWorkload(WorkloadOptions{Warehouses: 1, Wait: true})
	if err != nil {
		t.Fatal(err)
	}
	wk, _ := wl.NewWorker(0, 5)
	w := wk.(*txnWorker)
	for k := range numKinds {
		var sum time.Duration
		const n = 20000
		for range n {
			d := w.thinkTime(k)
			if d < 0 || d > time.Duration(10*meanThink[k]*float64(time.Second)) {
				t.Fatalf("%s: think time %s", k, d)
			}
			sum += d
		}
		if mean := (sum / n).Seconds(); math.Abs(mean-meanThink[k]) > 0.03*meanThink[k] {
			t.Errorf("%s: mean think time %.2fs, want %.0fs", k, mean, meanThink[k])
		}
	}
	if err := w.Prepare(context.Background(), plainRowSession{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := w.Event(ctx, plainRowSession{}); !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > time.Second {
		t.Errorf("a keying time of at least 2 s ended after %s with %v", time.Since(start), err)
	}
}

// plainRowSession prepares statements that return no rows.
type plainRowSession struct{ plainSession }

func (plainRowSession) Prepare(context.Context, string) (bench.Stmt, error) {
	return plainRowStmt{}, nil
}

type plainRowStmt struct{ plainStmt }

func (plainRowStmt) QueryRows(context.Context, func([]driver.Value) error, ...any) (int64, error) {
	return 0, nil
}
