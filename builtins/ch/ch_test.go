package ch

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/builtins/db/snapshot"
	"github.com/starbench/starbench/builtins/tpcc"
	"github.com/starbench/starbench/internal/sandbox"
	"github.com/starbench/starbench/internal/testutil/gotpctest"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
)

func TestMain(m *testing.M) { sandboxtest.Main(m) }

// chServer is a private server (MariaDB, or TiDB) logging statements on
// demand, with two databases of one warehouse: gotpc, loaded by go-tpc
// (tpcc prepare, then ch prepare), and sb, loaded by the test with
// starbench's.
type chServer struct {
	sandboxtest.Logging
	bin   string
	admin *sql.DB
	tidb  bool
}

func startCHServer(t *testing.T) *chServer {
	t.Helper()
	return newCHServer(t, sandboxtest.StartLogging(t), false)
}

func newCHServer(t *testing.T, logging sandboxtest.Logging, tidb bool) *chServer {
	t.Helper()
	bin := gotpctest.Binary(t)
	srv := &chServer{Logging: logging, bin: bin, tidb: tidb}
	srv.Exec(t, "CREATE DATABASE gotpc")
	srv.Exec(t, "CREATE DATABASE sb")
	admin, err := sql.Open("mysql", srv.Config().FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	srv.admin = admin
	srv.goTPC(t, "tpcc", "prepare", "--warehouses", "1", "-T", "2", "--no-check")
	srv.goTPC(t, "ch", "prepare")
	return srv
}

// goTPC runs go-tpc WORKLOAD COMMAND on database gotpc.
func (srv *chServer) goTPC(t *testing.T, workload, command string, args ...string) string {
	t.Helper()
	cfg := srv.Config()
	host, port, _ := strings.Cut(cfg.Addr, ":")
	all := append([]string{workload, command, "-H", host, "-P", port, "-U", cfg.User, "-p", cfg.Passwd, "-D", "gotpc"}, args...)
	var b bytes.Buffer
	cmd := exec.Command(srv.bin, all...)
	cmd.Stdout, cmd.Stderr = &b, &b
	if err := cmd.Run(); err != nil {
		t.Fatalf("go-tpc %s %s: %v\n%s", workload, command, err, b.String())
	}
	return b.String()
}

// connector opens sessions on database db.
func (srv *chServer) connector(db string) bench.Connector {
	cfg := srv.Config()
	cfg.DBName = db
	return bench.NewSQLConnector(cfg, bench.PSAuto)
}

func (srv *chServer) value(t *testing.T, query string) string {
	t.Helper()
	var v sql.NullString
	if err := srv.admin.QueryRow(query).Scan(&v); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return v.String
}

// checksum is CHECKSUM TABLE's figure for db.table; on TiDB, which has no
// CHECKSUM TABLE, the rows' digest starbench's snapshots compare.
func (srv *chServer) checksum(t *testing.T, table string) string {
	t.Helper()
	if srv.tidb {
		conn, err := db.Open(context.Background(), srv.Config())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		schema, name, _ := strings.Cut(table, ".")
		sum, err := snapshot.Checksum(context.Background(), conn, "tidb", schema, name)
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	var name string
	var sum sql.NullInt64
	if err := srv.admin.QueryRow("CHECKSUM TABLE "+table).Scan(&name, &sum); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(sum.Int64)
}

// logged runs fn and returns the texts, spaces folded, of the statements
// other connections sent that keep matches.
func (srv *chServer) logged(t *testing.T, keep *regexp.Regexp, fn func()) []string {
	t.Helper()
	var out []string
	for _, l := range srv.Capture(t, fn) {
		if s := strings.Join(strings.Fields(l.Text), " "); keep.MatchString(s) {
			out = append(out, s)
		}
	}
	return out
}

// CH's tables and view as starbench prepares them equal go-tpc's
// (CHECKSUM TABLE of nation, region and supplier; the view's definition
// as the server keeps it); the queries starbench sends are go-tpc's
// texts, so that on the same data both get the same answers (the answers
// themselves are not compared: go-tpc prints none); one step holds the
// transactions and the queries.
func TestCHAgreesWithGoTPC(t *testing.T) {
	checkCHAgreesWithGoTPC(t, startCHServer(t))
}

// The same on a real TiDB: the tables' rows (their digest: TiDB has no
// CHECKSUM TABLE), the view's definition, the statements and one step of
// both loads.
func TestCHAgreesWithGoTPCOnTiDB(t *testing.T) {
	checkCHAgreesWithGoTPC(t, newCHServer(t, sandboxtest.StartTiDBLogging(t, sandbox.TiDBOptions{}), true))
}

func checkCHAgreesWithGoTPC(t *testing.T, srv *chServer) {
	ctx := context.Background()
	sb := srv.connector("sb")
	var out bytes.Buffer
	if _, err := Prepare(ctx, sb, PrepareOptions{}, &out); err == nil || !strings.Contains(err.Error(), "TPC-C's tables") {
		t.Fatalf("prepare without TPC-C's tables: %v", err)
	}
	if _, err := tpcc.Prepare(ctx, sb, tpcc.LoadOptions{Warehouses: 1, Threads: 2, Seed: 1}, &out); err != nil {
		t.Fatal(err)
	}
	res, err := Prepare(ctx, sb, PrepareOptions{}, &out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if res.Rows["nation"] != 25 || res.Rows["region"] != 5 || res.Rows["supplier"] != 10_000 || !strings.Contains(strings.Join(res.Tables, ","), View) {
		t.Errorf("prepared %+v", res)
	}
	for _, table := range Tables {
		if a, b := srv.checksum(t, "gotpc."+table), srv.checksum(t, "sb."+table); a != b || a == "0" || strings.HasSuffix(a, "md5sum64:0") {
			t.Errorf("%s: checksum %s (go-tpc's) and %s (starbench's)", table, a, b)
		}
	}
	viewOf := func(schema string) string {
		def := srv.value(t, "SELECT VIEW_DEFINITION FROM information_schema.VIEWS WHERE TABLE_SCHEMA = '"+schema+"' AND TABLE_NAME = '"+View+"'")
		return strings.NewReplacer("`"+schema+"`.", "", schema+".", "").Replace(def)
	}
	if a, b := viewOf("gotpc"), viewOf("sb"); a != b || !strings.Contains(a, "revenue") {
		t.Errorf("the view %s:\ngo-tpc's    %s\nstarbench's %s", View, a, b)
	}
	if _, err := Prepare(ctx, sb, PrepareOptions{}, &out); err == nil || !strings.Contains(err.Error(), "sb.revenue1") {
		t.Errorf("prepare again: %v", err)
	}

	// The same queries on go-tpc's data, one round each, from both tools.
	const queries = "q1,q4,q6,q12,q14,q15,q22"
	chQuery := regexp.MustCompile(`(?i)^\s*select.*\b(ol_number|o_ol_cnt|revenue1|ol_amount|promo_revenue|numcust|c_state)\b`)
	var goRows []string
	goLog := srv.logged(t, chQuery, func() {
		out := srv.goTPC(t, "ch", "run", "-T", "0", "-t", "1", "--queries", queries, "--count", "7", "--warehouses", "1")
		goRows = regexp.MustCompile(`\[Summary\] Q\d+`).FindAllString(out, -1)
	})
	ps := srv.connector("gotpc")
	qs := strings.Split(queries, ",")
	var sum *bench.Result
	sbLog := srv.logged(t, chQuery, func() {
		step, err := Step(ps, RunOptions{Warehouses: 1, TPThreads: 0, APThreads: 1, Queries: qs, Count: 7, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		s, r, err := bench.RunStep(ctx, t.TempDir(), step)
		if err != nil {
			t.Fatal(err)
		}
		_, sum = s, r
	})
	if len(goRows) != len(qs) {
		t.Errorf("go-tpc ran %v", goRows)
	}
	if !equalSets(goLog, sbLog) || len(sbLog) != len(qs) {
		t.Errorf("statements: go-tpc sent\n%s\nstarbench\n%s", strings.Join(goLog, "\n"), strings.Join(sbLog, "\n"))
	}
	if sum == nil || sum.Counts.Events != 7 {
		t.Errorf("run: %+v", sum)
	}
	// Both loads as one step.
	step, err := Step(sb, RunOptions{Warehouses: 1, TPThreads: 2, APThreads: 1, Queries: []string{"q6", "q14"}, Time: 3 * time.Second,
		Interval: time.Second, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	s, _, err := bench.RunStep(ctx, t.TempDir(), step)
	if err != nil {
		t.Fatal(err)
	}
	byKind := map[string]int64{}
	total := int64(0)
	for _, k := range s.Kinds {
		byKind[k.Name] = k.Events
		total += k.Events
	}
	if byKind["new_order"] == 0 || byKind["payment"] == 0 || byKind["q6"] == 0 || total != s.Events || s.Metrics["tpmC"] <= 0 ||
		s.Metrics[MetricQPH] <= 0 || s.Workload.Name != "ch" {
		t.Errorf("one step: kinds %v (events %d), metrics %v, workload %+v", byKind, s.Events, s.Metrics, s.Workload)
	}
	if want := float64(byKind["new_order"]) / s.Seconds * 60; s.Metrics["tpmC"] != want {
		t.Errorf("tpmC %.1f, new orders a minute %.1f", s.Metrics["tpmC"], want)
	}
	if want := float64(byKind["q6"]+byKind["q14"]) / s.Seconds * 3600; s.Metrics[MetricQPH] != want {
		t.Errorf("QphH %.1f, queries an hour %.1f", s.Metrics[MetricQPH], want)
	}

	dropped, err := Cleanup(ctx, sb, &out)
	if err != nil || strings.Join(dropped, ",") != "revenue1,supplier,region,nation" {
		t.Errorf("cleanup: %v, %v", dropped, err)
	}
	if n := srv.value(t, "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'sb'"); n != "10" {
		t.Errorf("after cleanup sb holds %s tables, want TPC-C's 9 and starbench_tpcc_load", n)
	}
}

func equalSets(a, b []string) bool {
	count := map[string]int{}
	for _, s := range a {
		count[s]++
	}
	for _, s := range b {
		count[s]--
	}
	for _, n := range count {
		if n != 0 {
			return false
		}
	}
	return true
}
