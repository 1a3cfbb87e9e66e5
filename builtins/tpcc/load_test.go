package tpcc_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"hash"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/bulkload"
	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/builtins/tpcc"
	"github.com/starbench/starbench/internal/sandbox"
	"github.com/starbench/starbench/internal/testutil/gotpctest"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
)

// A table's rows are its slices' rows, in order, in either form; they are
// the same every time.
func TestGeneratorSlicesCutTables(t *testing.T) {
	g := tpcc.NewGenerator(3, time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC))
	// rows hashes a table's rows, one a line, and counts the lines.
	rows := func(h hash.Hash, tab bulkload.Table, text bool) (lines int) {
		var b []byte
		for i := int64(0); i < tab.Rows; i++ {
			b = tab.Row(b[:0], text)
			if !text {
				b = append(b, '\n')
			}
			lines += bytes.Count(b, []byte("\n"))
			h.Write(b)
		}
		return lines
	}
	for _, name := range tpcc.Tables {
		whole, err := g.Table(name, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, text := range []bool{true, false} {
			a, _ := g.Slices(name, 2, 1, 4)
			b, _ := g.Slices(name, 2, 5, tpcc.Slices)
			again, _ := g.Table(name, 2)
			w, cut, second := sha256.New(), sha256.New(), sha256.New()
			if n := rows(w, whole, text); int64(n) != whole.Rows {
				t.Errorf("%s: %d rows made, %d announced", name, n, whole.Rows)
			}
			rows(cut, a, text)
			rows(cut, b, text)
			if !bytes.Equal(w.Sum(nil), cut.Sum(nil)) {
				t.Errorf("%s (text %v): slices 1-4 and 5-10 are not the table", name, text)
			}
			if rows(second, again, text); !bytes.Equal(w.Sum(nil), second.Sum(nil)) {
				t.Errorf("%s (text %v): a second generator made other rows", name, text)
			}
			whole, _ = g.Table(name, 2)
		}
		if !strings.HasPrefix(whole.Insert, "INSERT INTO "+name+" (") || !strings.HasPrefix(whole.Columns, "(") {
			t.Errorf("%s: %q, %q", name, whole.Insert, whole.Columns)
		}
	}
	if _, err := g.Slices(tpcc.Stock, 0, 1, 10); err == nil {
		t.Error("warehouse 0 was accepted")
	}
	if _, err := g.Slices(tpcc.Stock, 1, 3, 11); err == nil {
		t.Error("slice 11 was accepted")
	}
	if _, err := g.Table("stocks", 1); err == nil || !strings.Contains(err.Error(), `no TPC-C table "stocks"`) {
		t.Errorf("an unknown table: %v", err)
	}
}

// BenchmarkGenerateWarehouse is the client's share of a warehouse's load:
// generating its rows (and item's) as LOAD DATA lines.
func BenchmarkGenerateWarehouse(b *testing.B) {
	g := tpcc.NewGenerator(1, time.Unix(0, 0))
	buf := make([]byte, 0, 1<<10)
	for i := 0; i < b.N; i++ {
		for _, name := range tpcc.Tables {
			tab, err := g.Table(name, 1)
			if err != nil {
				b.Fatal(err)
			}
			for r := int64(0); r < tab.Rows; r++ {
				buf = tab.Row(buf[:0], true)
			}
		}
	}
}

// sqlHelper queries a server for tests.
type sqlHelper struct {
	t     *testing.T
	ctx   context.Context
	admin *db.Conn
}

func newSQLHelper(t *testing.T, m sandbox.Server) *sqlHelper {
	ctx := context.Background()
	admin, err := db.Open(ctx, m.Config())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	return &sqlHelper{t, ctx, admin}
}

// rows returns the result's rows, each value as text ("NULL" for NULL).
func (h *sqlHelper) rows(q string) [][]string {
	h.t.Helper()
	rs, err := h.admin.Query(h.ctx, q)
	if err != nil {
		h.t.Fatalf("%s: %v", q, err)
	}
	out := make([][]string, len(rs.Rows))
	for i, r := range rs.Rows {
		for _, v := range r {
			switch x := v.(type) {
			case nil:
				v = "NULL"
			case []byte:
				v = string(x)
			}
			out[i] = append(out[i], fmt.Sprint(v))
		}
	}
	return out
}

func (h *sqlHelper) value(q string) string {
	h.t.Helper()
	rs := h.rows(q)
	if len(rs) != 1 || len(rs[0]) != 1 {
		h.t.Fatalf("%s: %v, want one value", q, rs)
	}
	return rs[0][0]
}

func (h *sqlHelper) exec(q string) {
	h.t.Helper()
	if _, err := h.admin.Exec(h.ctx, q); err != nil {
		h.t.Fatalf("%s: %v", q, err)
	}
}

// checksums are CHECKSUM TABLE's of the nine tables of a database.
func (h *sqlHelper) checksums(schema string) map[string]string {
	names := make([]string, len(tpcc.Tables))
	for i, t := range tpcc.Tables {
		names[i] = schema + "." + t
	}
	sums := map[string]string{}
	for _, r := range h.rows("CHECKSUM TABLE " + strings.Join(names, ", ")) {
		sums[strings.TrimPrefix(r[0], schema+".")] = r[1]
	}
	return sums
}

// rowCounts are COUNT(*) of the nine tables of a database.
func (h *sqlHelper) rowCounts(schema string) map[string]int64 {
	counts := map[string]int64{}
	for _, t := range tpcc.Tables {
		n, _ := strconv.ParseInt(h.value("SELECT COUNT(*) FROM "+schema+"."+t), 10, 64)
		counts[t] = n
	}
	return counts
}

// Loading a warehouse twice with a seed gives the same tables whatever the
// method and the threads; another seed gives other tables (but new_order,
// which nothing random fills). The rows are the ones clause 4.3.3.1
// prescribes. Existing tables are refused, dropped or reused; cleanup
// drops them all.
func TestPrepareIsAFunctionOfTheSeed(t *testing.T) {
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{})
	h := newSQLHelper(t, m)
	ctx := context.Background()
	conn := bench.NewSQLConnector(m.Config(), bench.PSAuto)
	loadTime := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	prepare := func(o tpcc.LoadOptions) (*tpcc.LoadResult, string, error) {
		t.Helper()
		o.Warehouses, o.LoadTime = 1, loadTime
		var out bytes.Buffer
		res, err := tpcc.Prepare(ctx, conn, o, &out)
		return res, out.String(), err
	}
	loads := func() string { return h.rows("SHOW GLOBAL STATUS LIKE 'Com_load'")[0][1] }

	before := loads()
	res, out, err := prepare(tpcc.LoadOptions{Seed: 7, Threads: 1, Method: bulkload.Insert})
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if loads() != before {
		t.Error("method insert sent LOAD DATA")
	}
	want := map[string]int64{
		tpcc.Item: 100_000, tpcc.Warehouse: 1, tpcc.District: 10, tpcc.Customer: 30_000, tpcc.History: 30_000,
		tpcc.Orders: 30_000, tpcc.NewOrder: 9_000, tpcc.Stock: 100_000,
		tpcc.OrderLine: res.Rows[tpcc.OrderLine], // Σ o_ol_cnt, checked below
	}
	if fmt.Sprint(res.Rows) != fmt.Sprint(want) || fmt.Sprint(h.rowCounts("sbtest")) != fmt.Sprint(want) {
		t.Errorf("rows loaded %v, in the tables %v, want %v", res.Rows, h.rowCounts("sbtest"), want)
	}
	if n := h.value("SELECT SUM(o_ol_cnt) FROM orders"); n != fmt.Sprint(want[tpcc.OrderLine]) {
		t.Errorf("%d order lines, Σ o_ol_cnt = %s", want[tpcc.OrderLine], n)
	}
	if res.Schema != "sbtest" || len(res.Tables) != 9 || res.LoadTime != "2024-01-02 03:04:05" || res.TotalRows < 500_000 || res.RowsPerS <= 0 {
		t.Errorf("result: %+v", res)
	}
	for _, line := range []string{"Creating table 'sbtest.order_line'...\n", "Loading item: items 1-50000...\n",
		"Loading warehouse 1: orders, new_order, order_line of districts 6-10...\n",
		"Loading warehouse 1: warehouse, district, customer, history of districts 1-5...\n",
		"Loading warehouse 1: district, customer, history of districts 6-10...\n",
		"Loading warehouse 1: stock of items 50001-100000...\n"} {
		if !strings.Contains(out, line) {
			t.Errorf("output lacks %q:\n%s", line, out)
		}
	}
	checkSpecRows(t, h, loadTime)
	first := h.checksums("sbtest")

	// The same seed, by LOAD DATA, on three threads.
	_, out, err = prepare(tpcc.LoadOptions{Seed: 7, Threads: 3, Method: bulkload.LoadData, IfExists: tpcc.IfExistsDrop})
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if loads() == before {
		t.Error("method load-data sent no LOAD DATA")
	}
	if !strings.Contains(out, "Dropping table 'sbtest.stock' (if_exists=drop)...\n") {
		t.Errorf("output of if_exists=drop:\n%s", out)
	}
	if again := h.checksums("sbtest"); fmt.Sprint(again) != fmt.Sprint(first) {
		t.Errorf("seed 7 by INSERT on 1 thread %v, by LOAD DATA on 3 threads %v", first, again)
	}

	// Existing tables: refused, naming them; reused as they are.
	_, _, err = prepare(tpcc.LoadOptions{Seed: 7})
	if err == nil || !strings.HasPrefix(err.Error(), "tables already exist: sbtest.item, sbtest.warehouse, sbtest.district, sbtest.customer, sbtest.history, sbtest.new_order, sbtest.orders, sbtest.order_line, sbtest.stock (") {
		t.Errorf("prepare over existing tables: %v", err)
	}
	h.exec("DROP TABLE history")
	res, _, err = prepare(tpcc.LoadOptions{Seed: 7, IfExists: tpcc.IfExistsReuse, Threads: 2})
	if err != nil || len(res.Reused) != 8 || fmt.Sprint(res.Tables) != "[history]" || fmt.Sprint(res.Rows) != "map[history:30000]" {
		t.Errorf("reuse: %+v, %v", res, err)
	}
	if again := h.checksums("sbtest"); fmt.Sprint(again) != fmt.Sprint(first) {
		t.Errorf("after reuse %v, want %v", again, first)
	}

	// Another seed.
	if _, out, err = prepare(tpcc.LoadOptions{Seed: 8, Threads: 2, IfExists: tpcc.IfExistsDrop}); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	other := h.checksums("sbtest")
	for _, tab := range tpcc.Tables {
		if same := other[tab] == first[tab]; same != (tab == tpcc.NewOrder) {
			t.Errorf("%s: checksum %s with seed 7, %s with seed 8", tab, first[tab], other[tab])
		}
	}

	var cleanup bytes.Buffer
	dropped, err := tpcc.Cleanup(ctx, conn, tpcc.GoTPCLayout, &cleanup)
	if err != nil || len(dropped) != 10 || dropped[9] != tpcc.LoadRecord || !strings.HasPrefix(cleanup.String(), "Dropping table 'sbtest.new_order'...\nDropping table 'sbtest.order_line'...\n") {
		t.Errorf("cleanup: %v, %v\n%s", dropped, err, cleanup.String())
	}
	if n := h.value("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'sbtest'"); n != "0" {
		t.Errorf("%s tables left after cleanup", n)
	}

	for _, o := range []tpcc.LoadOptions{{Warehouses: 0}, {Warehouses: 1, Parts: 2}, {Warehouses: 1, IfExists: "keep"}, {Warehouses: 1, Method: "copy"}} {
		if _, err := tpcc.Prepare(ctx, conn, o, &bytes.Buffer{}); err == nil {
			t.Errorf("%+v was accepted", o)
		}
	}
}

// checkSpecRows checks one warehouse's rows against clause 4.3.3.1: each
// query counts the rows that break a rule.
func checkSpecRows(t *testing.T, h *sqlHelper, loadTime time.Time) {
	t.Helper()
	now := "'" + loadTime.Format(time.DateTime) + "'"
	broken := map[string]string{
		"item": `SELECT COUNT(*) FROM item WHERE i_im_id NOT BETWEEN 1 AND 10000 OR CHAR_LENGTH(i_name) NOT BETWEEN 14 AND 24
			OR i_price NOT BETWEEN 1 AND 100 OR CHAR_LENGTH(i_data) NOT BETWEEN 26 AND 50`,
		"warehouse": `SELECT COUNT(*) FROM warehouse WHERE w_ytd <> 300000 OR w_tax NOT BETWEEN 0 AND 0.2 OR w_zip NOT LIKE '____11111'
			OR CHAR_LENGTH(w_name) NOT BETWEEN 6 AND 10 OR CHAR_LENGTH(w_state) <> 2 OR CHAR_LENGTH(w_city) NOT BETWEEN 10 AND 20`,
		"district": `SELECT COUNT(*) FROM district WHERE d_ytd <> 30000 OR d_next_o_id <> 3001 OR d_tax NOT BETWEEN 0 AND 0.2
			OR d_id NOT BETWEEN 1 AND 10 OR d_w_id <> 1`,
		"customer": `SELECT COUNT(*) FROM customer WHERE c_credit_lim <> 50000 OR c_discount NOT BETWEEN 0 AND 0.5 OR c_balance <> -10
			OR c_ytd_payment <> 10 OR c_payment_cnt <> 1 OR c_delivery_cnt <> 0 OR CHAR_LENGTH(c_data) NOT BETWEEN 300 AND 500
			OR c_credit NOT IN ('GC', 'BC') OR c_middle <> 'OE' OR c_since <> ` + now + ` OR CHAR_LENGTH(c_first) NOT BETWEEN 8 AND 16
			OR c_phone NOT REGEXP '^[0-9]{16}$'`,
		"history": `SELECT COUNT(*) FROM history WHERE h_amount <> 10 OR h_date <> ` + now + ` OR h_c_d_id <> h_d_id OR h_c_w_id <> h_w_id
			OR CHAR_LENGTH(h_data) NOT BETWEEN 12 AND 24`,
		"orders": `SELECT COUNT(*) FROM orders WHERE (o_carrier_id IS NULL) <> (o_id > 2100) OR o_carrier_id NOT BETWEEN 1 AND 10
			OR o_ol_cnt NOT BETWEEN 5 AND 15 OR o_all_local <> 1 OR o_entry_d <> ` + now,
		"orders' customers": `SELECT COUNT(*) FROM (SELECT o_d_id FROM orders GROUP BY o_d_id
			HAVING COUNT(DISTINCT o_c_id) <> 3000 OR MIN(o_c_id) <> 1 OR MAX(o_c_id) <> 3000) d`,
		"new_order": `SELECT COUNT(*) FROM (SELECT no_d_id FROM new_order GROUP BY no_d_id
			HAVING COUNT(*) <> 900 OR MIN(no_o_id) <> 2101 OR MAX(no_o_id) <> 3000) d`,
		"order_line": `SELECT COUNT(*) FROM order_line WHERE (ol_delivery_d IS NULL) <> (ol_o_id > 2100)
			OR ol_delivery_d <> ` + now + ` OR (ol_o_id <= 2100 AND ol_amount <> 0) OR (ol_o_id > 2100 AND ol_amount NOT BETWEEN 0.01 AND 9999.99)
			OR ol_i_id NOT BETWEEN 1 AND 100000 OR ol_supply_w_id <> 1 OR ol_quantity <> 5 OR CHAR_LENGTH(ol_dist_info) <> 24`,
		"order lines per order": `SELECT COUNT(*) FROM orders JOIN (SELECT ol_d_id, ol_o_id, COUNT(*) n, MAX(ol_number) top FROM order_line
			GROUP BY ol_d_id, ol_o_id) l ON l.ol_d_id = o_d_id AND l.ol_o_id = o_id WHERE n <> o_ol_cnt OR top <> o_ol_cnt`,
		"stock": `SELECT COUNT(*) FROM stock WHERE s_quantity NOT BETWEEN 10 AND 100 OR s_ytd <> 0 OR s_order_cnt <> 0 OR s_remote_cnt <> 0
			OR CHAR_LENGTH(s_data) NOT BETWEEN 26 AND 50 OR CHAR_LENGTH(s_dist_01) <> 24 OR CHAR_LENGTH(s_dist_10) <> 24`,
	}
	for what, q := range broken {
		if n := h.value(q); n != "0" {
			t.Errorf("%s: %s rows break the rules", what, n)
		}
	}
	// About 10% each (binomial: ±5 standard deviations).
	for q, n := range map[string]float64{
		"SELECT SUM(i_data LIKE '%ORIGINAL%') FROM item":  100_000,
		"SELECT SUM(s_data LIKE '%ORIGINAL%') FROM stock": 100_000,
		"SELECT SUM(c_credit = 'BC') FROM customer":       30_000,
	} {
		got, _ := strconv.ParseFloat(h.value(q), 64)
		if sd := 5 * math.Sqrt(n*0.09); got < n/10-sd || got > n/10+sd {
			t.Errorf("%s: %v of %v", q, got, n)
		}
	}
	// Uniform values average the middle of their range.
	for q, mid := range map[string]float64{
		"SELECT AVG(c_discount) FROM customer": 0.25, "SELECT AVG(i_price) FROM item": 50.5,
		"SELECT AVG(s_quantity) FROM stock": 55, "SELECT AVG(o_ol_cnt) FROM orders": 10,
		"SELECT AVG(ol_amount) FROM order_line WHERE ol_o_id > 2100": 5000,
	} {
		if got, _ := strconv.ParseFloat(h.value(q), 64); math.Abs(got-mid) > mid/50 {
			t.Errorf("%s: %v, want about %v", q, got, mid)
		}
	}
	// The first 1,000 customers of a district are named by their number.
	for _, r := range h.rows("SELECT c_id, c_last FROM customer WHERE c_w_id = 1 AND c_d_id = 4 AND c_id <= 1000 ORDER BY c_id") {
		if id, _ := strconv.Atoi(r[0]); r[1] != tpcc.LastName(id-1) {
			t.Fatalf("customer %s is %s, want %s", r[0], r[1], tpcc.LastName(id-1))
		}
	}
	// The others by NURand(255, 0, 999): not every name, and not evenly.
	if n, _ := strconv.Atoi(h.value("SELECT COUNT(DISTINCT c_last) FROM customer WHERE c_id > 1000")); n < 500 || n == 1000 {
		t.Errorf("%d last names among the NURand ones", n)
	}
}

// starbench's load and go-tpc's have the same tables (SHOW CREATE TABLE)
// and rows (counts; order_line's is random in both), and go-tpc's checks
// of the initial database (all twelve conditions of clause 3.3.2) pass on
// starbench's (with gotpctest.IndexForCheck, seconds; left out by -short).
func TestLoadAgreesWithGoTPC(t *testing.T) {
	bin := gotpctest.Binary(t)
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{})
	h := newSQLHelper(t, m)
	conn := bench.NewSQLConnector(m.Config(), bench.PSAuto)
	var out bytes.Buffer
	if _, err := tpcc.Prepare(context.Background(), conn, tpcc.LoadOptions{Warehouses: 1, Threads: 2, Seed: 1}, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}

	t.Run("shape", func(t *testing.T) {
		h.t = t
		h.exec("CREATE DATABASE gotpc")
		gotpctest.Run(t, bin, m, "gotpc", "prepare", "--warehouses", "1", "-T", "2", "--no-check")
		space := regexp.MustCompile(`\s+`)
		for _, tab := range tpcc.Tables {
			ours := space.ReplaceAllString(h.rows("SHOW CREATE TABLE sbtest." + tab)[0][1], " ")
			theirs := space.ReplaceAllString(h.rows("SHOW CREATE TABLE gotpc." + tab)[0][1], " ")
			if ours != theirs {
				t.Errorf("%s:\nstarbench %s\ngo-tpc    %s", tab, ours, theirs)
			}
		}
		// go-tpc's tables keep no C_LAST of their load: the run says it is
		// not known. A record of starbench's older load beside them (as
		// after go-tpc's cleanup and prepare on starbench's tables) is
		// not taken for theirs.
		gotpcConn := bench.NewSQLConnector(schemaConfig(m, "gotpc"), bench.PSAuto)
		beginSays(t, gotpcConn, "the load's is not known (go-tpc's tables do not keep it: they were not loaded by starbench's prepare, which records it in gotpc.starbench_tpcc_load)")
		h.exec("CREATE TABLE gotpc.starbench_tpcc_load AS SELECT * FROM sbtest.starbench_tpcc_load")
		beginSays(t, gotpcConn, "the load's is not known (gotpc.starbench_tpcc_load is of an earlier load: the customers were loaded again since")
		// starbench's own load is known by its record: the seed's C_LAST.
		beginSays(t, conn, fmt.Sprintf("C_LAST: the load's %d (from sbtest.starbench_tpcc_load), the run's ", tpcc.NewConstants(1).CLast))

		ours, theirs := h.rowCounts("sbtest"), h.rowCounts("gotpc")
		for _, tab := range tpcc.Tables {
			a, b := float64(ours[tab]), float64(theirs[tab])
			if tab == tpcc.OrderLine { // Σ of 30,000 draws of 5..15: 300,000 ± 548 (1 sd)
				if a < 295_000 || a > 305_000 || b < 295_000 || b > 305_000 {
					t.Errorf("order_line: %v rows by starbench, %v by go-tpc", a, b)
				}
			} else if a != b {
				t.Errorf("%s: %v rows by starbench, %v by go-tpc", tab, a, b)
			}
		}
	})

	t.Run("check", func(t *testing.T) {
		if testing.Short() {
			t.Skip("skipping go-tpc's check of the loaded warehouse in -short mode")
		}
		h.t = t
		if got := h.value("SELECT COUNT(*) FROM sbtest.starbench_tpcc_load"); got != "6" {
			t.Fatalf("starbench's load record holds %s rows, want 6: go-tpc's check would not be shown to pass beside it", got)
		}
		gotpctest.IndexForCheck(t, m, "sbtest")
		got := gotpctest.Run(t, bin, m, "sbtest", "check", "--check-all", "--warehouses", "1")
		// go-tpc reports a failed check in its output, with status 0.
		if strings.Contains(got, "failed") {
			t.Fatalf("go-tpc check failed:\n%s", got)
		}
		for _, c := range []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12"} {
			if !strings.Contains(got, "begin to check warehouse 1 at condition 3.3.2."+c+"\n") {
				t.Errorf("go-tpc did not check condition 3.3.2.%s:\n%s", c, got)
			}
		}
	})
}

// schemaConfig is the server's connection configuration in another
// database.
func schemaConfig(m sandbox.Server, schema string) *mysql.Config {
	cfg := m.Config().Clone()
	cfg.DBName = schema
	return cfg
}

// beginSays readies a one-warehouse run on conn and wants its C_LAST line
// to hold want.
func beginSays(t *testing.T, conn bench.Connector, want string) {
	t.Helper()
	wl, err := tpcc.NewWorkload(tpcc.WorkloadOptions{Warehouses: 1, Constants: tpcc.NewConstants(99)})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	options := map[string]any{}
	if err := wl.Begin(context.Background(), conn, 5, &out, options); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), want) {
		t.Errorf("the run begins with\n%s\nwant %q", out.String(), want)
	}
	if _, kept := options["c_last_load"]; kept == strings.Contains(want, "is not known") {
		t.Errorf("options %v: c_last_load is kept only where it is known", options)
	}
}

// The embedded go-mysql-server keys the rows one INSERT adds by their
// primary key's values written one after another (ol_w_id, ol_d_id,
// ol_o_id, ol_number), so order 3's line 11 and order 31's line 1 are one
// key to it. The load cuts order_line's statements where the order numbers
// grow a digit: no statement holds two rows that read alike, though the
// rows of a district do.
func TestOrderLineStatementsKeyOneWay(t *testing.T) {
	g := tpcc.NewGenerator(5, time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC))
	tab, err := g.Slices(tpcc.OrderLine, 3, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	if tab.NewStatement == nil {
		t.Fatal("order_line's table does not cut its statements")
	}
	statement := map[string]bool{}
	district := map[string]bool{}
	statements, alike := 1, 0
	for i := int64(0); i < tab.Rows; i++ {
		if i > 0 && tab.NewStatement() {
			statements++
			statement = map[string]bool{}
		}
		f := strings.Split(string(tab.Row(nil, true)), "\t")
		oID, dID, wID, number := f[0], f[1], f[2], f[3]
		key := wID + dID + oID + number
		if statement[key] {
			t.Fatalf("statement %d holds two rows keyed %q (order %s line %s)", statements, key, oID, number)
		}
		if district[dID+"/"+key] {
			alike++
		}
		statement[key], district[dID+"/"+key] = true, true
	}
	// Each district is cut before its orders 10, 100 and 1000; the next
	// district goes on in its last statement (its keys begin otherwise).
	if statements != 7 {
		t.Errorf("%d statements, want 7 (three cuts a district)", statements)
	}
	if alike == 0 {
		t.Error("no two rows of a district read alike: the test shows nothing")
	}
}
