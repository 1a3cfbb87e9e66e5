package sysbench_test

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/builtins/sysbench"
	"github.com/starbench/starbench/internal/sandbox"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
)

// compatServer is a private server logging every statement (a MariaDB
// into mysql.general_log, a TiDB into its general log file), shared by the
// compatibility tests.
type compatServer struct {
	sandboxtest.Capturer
	cfg   *mysql.Config
	Admin *db.Conn
}

// logged is one statement from the general log.
type logged = sandboxtest.Logged

func startCompatServer(t *testing.T) *compatServer {
	srv := sandboxtest.StartLogging(t)
	return &compatServer{srv, srv.Config(), srv.Admin}
}

func startTiDBCompatServer(t *testing.T) *compatServer {
	srv := sandboxtest.StartTiDBLogging(t, sandbox.TiDBOptions{})
	return &compatServer{srv, srv.Config(), srv.Admin}
}

func (c *compatServer) Config() *mysql.Config { return c.cfg.Clone() }

func (c *compatServer) capture(t *testing.T, fn func()) []logged { t.Helper(); return c.Capture(t, fn) }

func (c *compatServer) sysbenchArgs() []string {
	cfg := c.Config()
	host, port, _ := strings.Cut(cfg.Addr, ":")
	return []string{"--mysql-host=" + host, "--mysql-port=" + port, "--mysql-user=root", "--mysql-password=" + cfg.Passwd, "--mysql-db=sbtest"}
}

func runSysbench(t *testing.T, bin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("sysbench %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return out.String()
}

var (
	numberRe = regexp.MustCompile(`\b\d+\b`)
	quotedRe = regexp.MustCompile(`'[^']*'`)
	spaceRe  = regexp.MustCompile(`\s+`)
	tuplesRe = regexp.MustCompile(`(\(N,N\),)+\(N,N\)`)
)

// normalize replaces values (numbers, strings, table numbers) and spacing
// so that statements of the same shape compare equal.
func normalize(q string) string {
	q = quotedRe.ReplaceAllString(q, "S")
	q = regexp.MustCompile(`sbtest\d+`).ReplaceAllString(q, "sbtestN")
	q = numberRe.ReplaceAllString(q, "N")
	q = spaceRe.ReplaceAllString(strings.TrimSpace(q), " ")
	q = strings.ReplaceAll(q, "( ", "(")
	return tuplesRe.ReplaceAllString(q, "(N,N)")
}

// events splits a statement stream into events: at BEGIN for workloads
// with transactions, else one statement per event.
func events(stmts []logged, trx bool) [][]string {
	var evs [][]string
	var cur []string
	for _, s := range stmts {
		if s.Command == "Prepare" {
			continue
		}
		n := s.Command + " " + normalize(s.Text)
		if !trx {
			evs = append(evs, []string{n})
			continue
		}
		if strings.HasSuffix(n, " BEGIN") && len(cur) > 0 {
			evs = append(evs, cur)
			cur = nil
		}
		cur = append(cur, n)
	}
	if len(cur) > 0 {
		evs = append(evs, cur)
	}
	return evs
}

// shapes is the multiset of statements of each event, as sorted text; the
// set of distinct shapes must match between sysbench and starbench.
func shapes(evs [][]string) map[string]int {
	out := map[string]int{}
	for _, ev := range evs {
		s := append([]string(nil), ev...)
		sort.Strings(s)
		out[strings.Join(s, "\n")]++
	}
	return out
}

func prepared(stmts []logged) map[string]int {
	out := map[string]int{}
	for _, s := range stmts {
		if s.Command == "Prepare" {
			out[normalize(s.Text)]++
		}
	}
	return out
}

type compatCase struct {
	script string
	tables int
	trx    bool
	extra  []string // sysbench options, also given to starbench
}

var compatCases = []compatCase{
	{script: "oltp_point_select", tables: 2},
	{script: "oltp_read_only", tables: 2, trx: true},
	{script: "oltp_read_write", tables: 2, trx: true},
	{script: "oltp_write_only", tables: 2, trx: true},
	{script: "oltp_update_index", tables: 2},
	{script: "oltp_update_non_index", tables: 2},
	{script: "oltp_delete", tables: 2},
	{script: "oltp_insert", tables: 2},
	{script: "select_random_points", tables: 1},
	{script: "select_random_ranges", tables: 1},
	{script: "bulk_insert", tables: 1},
	{script: "oltp_read_write", tables: 2, extra: []string{"--skip_trx=on"}},
	{script: "oltp_read_only", tables: 2, trx: true, extra: []string{"--range_selects=off", "--point_selects=3"}},
	{script: "oltp_point_select", tables: 2, extra: []string{"--db-ps-mode=disable"}},
	{script: "oltp_read_write", tables: 3, trx: true, extra: []string{"--db-ps-mode=disable", "--delete_inserts=2", "--rand-type=uniform"}},
}

// The same options and a fixed number of events give the same statements
// per event as real sysbench, with values normalised, for every workload.
func TestStatementStreamsMatchSysbench(t *testing.T) {
	bin := requireSysbench(t)
	checkStreams(t, bin, startCompatServer(t), compatCases)
}

// checkStreams runs each case with sysbench and with starbench on srv and
// compares what they sent and what they reported.
func checkStreams(t *testing.T, bin string, srv *compatServer, cases []compatCase) {
	ctx := context.Background()
	const nEvents = 20
	for _, c := range cases {
		name := c.script + strings.Join(c.extra, "")
		t.Run(name, func(t *testing.T) {
			common := append([]string{c.script, fmt.Sprintf("--tables=%d", c.tables), "--table-size=200", "--threads=1"}, c.extra...)
			common = append(common, srv.sysbenchArgs()...)
			runSysbench(t, bin, append(common, "cleanup")...)
			runSysbench(t, bin, append(common, "prepare")...)
			runArgs := append(append([]string(nil), common...), fmt.Sprintf("--events=%d", nEvents), "--time=0", "--rand-seed=7", "run")
			var sysOut string
			theirs := srv.capture(t, func() { sysOut = runSysbench(t, bin, runArgs...) })

			// Fresh tables again, so both tools start from the same state.
			runSysbench(t, bin, append(common, "cleanup")...)
			runSysbench(t, bin, append(common, "prepare")...)
			cl, err := sysbench.ParseCommandLine(runArgs)
			if err != nil {
				t.Fatal(err)
			}
			wl, err := sysbench.NewWorkload(cl.Script, cl.Options)
			if err != nil {
				t.Fatal(err)
			}
			conn := bench.NewSQLConnector(srv.Config(), bench.PSMode(cl.Options.PSMode))
			var ourOut bytes.Buffer
			ours := srv.capture(t, func() {
				p := &sysbench.Printer{W: &ourOut, Opts: &wl.Options}
				p.Banner()
				res, err := sysbench.Run(ctx, conn, wl, sysbench.RunOptions{Seed: 7, Printer: p})
				if err != nil {
					t.Fatal(err)
				}
				if res.Counts.Events != nEvents {
					t.Errorf("events: %d, want %d", res.Counts.Events, nEvents)
				}
			})
			runSysbench(t, bin, append(common, "cleanup")...)

			// (TiDB does not log COM_STMT_PREPARE: both maps are empty there.)
			if got, want := prepared(ours), prepared(theirs); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("prepared statements differ:\nstarbench %v\nsysbench  %v", got, want)
			}
			trx := c.trx
			gotEv, wantEv := events(ours, trx), events(theirs, trx)
			if c.script == "bulk_insert" {
				gotEv, wantEv = [][]string{flatten(gotEv)}, [][]string{flatten(wantEv)}
			} else if len(gotEv) != len(wantEv) || (c.trx || len(c.extra) == 0) && len(gotEv) != nEvents {
				t.Errorf("event count: starbench %d, sysbench %d, want %d", len(gotEv), len(wantEv), nEvents)
			}
			got, want := shapes(gotEv), shapes(wantEv)
			if len(got) != len(want) || fmt.Sprint(keys(got)) != fmt.Sprint(keys(want)) {
				t.Errorf("statements per event differ:\nstarbench:\n%s\nsysbench:\n%s", describe(got), describe(want))
			}
			compareReports(t, ourOut.String(), sysOut)
			compareCounts(t, ourOut.String(), sysOut, missedDeletes(t, ours), missedDeletes(t, theirs))
		})
	}
}

func flatten(evs [][]string) []string {
	var out []string
	for _, ev := range evs {
		out = append(out, ev...)
	}
	return out
}

func keys(m map[string]int) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func describe(m map[string]int) string {
	var b strings.Builder
	for _, k := range keys(m) {
		fmt.Fprintf(&b, "  %d x {%s}\n", m[k], strings.ReplaceAll(k, "\n", " | "))
	}
	return b.String()
}

// reportPatterns are the regular expressions a tool parsing sysbench's
// final report would use; both outputs must match each, in order.
var reportPatterns = []string{
	`(?m)^sysbench \d+\.\d+\.\d+`,
	`(?m)^Running the test with following options:$`,
	`(?m)^Number of threads: (\d+)$`,
	`(?m)^Initializing random number generator from (seed \(\d+\)\.|current time)$`,
	`(?m)^Threads started!$`,
	`(?m)^SQL statistics:$`,
	`(?m)^    queries performed:$`,
	`(?m)^        read:                            (\d+)$`,
	`(?m)^        write:                           (\d+)$`,
	`(?m)^        other:                           (\d+)$`,
	`(?m)^        total:                           (\d+)$`,
	`(?m)^    transactions:                        (\d+) +\((\d+\.\d\d) per sec\.\)$`,
	`(?m)^    queries:                             (\d+) +\((\d+\.\d\d) per sec\.\)$`,
	`(?m)^    ignored errors:                      (\d+) +\((\d+\.\d\d) per sec\.\)$`,
	`(?m)^    reconnects:                          (\d+) +\((\d+\.\d\d) per sec\.\)$`,
	`(?m)^General statistics:$`,
	`(?m)^    total time:                          (\d+\.\d{4})s$`,
	`(?m)^    total number of events:              (\d+)$`,
	`(?m)^Latency \(ms\):$`,
	`(?m)^         min: +(\d+\.\d\d)$`,
	`(?m)^         avg: +(\d+\.\d\d)$`,
	`(?m)^         max: +(\d+\.\d\d)$`,
	`(?m)^         95th percentile: +(\d+\.\d\d)$`,
	`(?m)^         sum: +(\d+\.\d\d)$`,
	`(?m)^Threads fairness:$`,
	`(?m)^    events \(avg/stddev\):           (\d+\.\d{4})/(\d+\.\d\d)$`,
	`(?m)^    execution time \(avg/stddev\):   (\d+\.\d{4})/(\d+\.\d\d)$`,
}

func compareReports(t *testing.T, ours, theirs string) {
	t.Helper()
	for name, out := range map[string]string{"starbench": ours, "sysbench": theirs} {
		pos := 0
		for _, p := range reportPatterns {
			loc := regexp.MustCompile(p).FindStringIndex(out[pos:])
			if loc == nil {
				t.Errorf("%s output does not match %s after offset %d:\n%s", name, p, pos, out)
				break
			}
			pos += loc[1]
		}
	}
}

// compareCounts checks that both reports count the same statements the
// same way. sysbench (and starbench after it) counts a SELECT as read, a
// statement that changed rows as write and anything else (BEGIN, COMMIT,
// a DML statement that changed no row) as other. For a fixed number of
// events with one thread the statement mix is deterministic, so read and
// total must be equal. Only the ids are random (the tools' generators are
// seeded differently), and the one statement of these workloads that can
// change no row because of its id is a DELETE of a row an earlier DELETE
// of the same run removed (oltp_delete draws ids with repeats; in
// oltp_read_write the INSERT after the DELETE puts the row back). Such a
// DELETE moves one statement from write to other, so write plus the
// tool's missed DELETEs, and other minus them, must agree exactly.
func compareCounts(t *testing.T, ours, theirs string, oursMissed, theirsMissed int) {
	t.Helper()
	o, okO := queryCounts(t, "starbench", ours)
	s, okS := queryCounts(t, "sysbench", theirs)
	if !okO || !okS {
		return
	}
	for name, c := range map[string]map[string]int{"starbench": o, "sysbench": s} {
		if c["read"]+c["write"]+c["other"] != c["total"] {
			t.Errorf("%s: read %d + write %d + other %d != total %d", name, c["read"], c["write"], c["other"], c["total"])
		}
	}
	for _, label := range []string{"read", "total"} {
		if o[label] != s[label] {
			t.Errorf("%s queries: starbench %d, sysbench %d", label, o[label], s[label])
		}
	}
	if o["write"]+oursMissed != s["write"]+theirsMissed || o["other"]-oursMissed != s["other"]-theirsMissed {
		t.Errorf("write/other queries: starbench %d/%d with %d DELETEs of an already deleted row, sysbench %d/%d with %d",
			o["write"], o["other"], oursMissed, s["write"], s["other"], theirsMissed)
	}
}

// queryCounts reads the read/write/other/total lines of a report; a
// missing line is a failure.
func queryCounts(t *testing.T, name, out string) (map[string]int, bool) {
	t.Helper()
	counts := map[string]int{}
	ok := true
	for _, label := range []string{"read", "write", "other", "total"} {
		m := regexp.MustCompile(`(?m)^        ` + label + `: +(\d+)$`).FindStringSubmatch(out)
		if m == nil {
			t.Errorf("%s report has no %q queries line:\n%s", name, label, out)
			ok = false
			continue
		}
		counts[label] = atoi(m[1])
	}
	return counts, ok
}

var (
	deleteRe = regexp.MustCompile(`(?i)^\s*DELETE\s+FROM\s+(\w+)\s+WHERE\s+id\s*=\s*(\d+)\s*$`)
	insertRe = regexp.MustCompile(`(?i)^\s*INSERT\s+INTO\s+(\w+)\s*\(\s*id\s*,[^)]*\)\s*VALUES\s*\(\s*(\d+)\s*,`)
)

// missedDeletes counts the DELETEs of a statement stream that find no row
// because an earlier DELETE removed it and no INSERT put it back (the
// tables start full, ids 1..table-size). A DELETE of another shape is a
// failure: its effect cannot be told.
func missedDeletes(t *testing.T, stmts []logged) int {
	t.Helper()
	gone := map[string]bool{}
	missed := 0
	for _, s := range stmts {
		if s.Command == "Prepare" {
			continue
		}
		if m := deleteRe.FindStringSubmatch(s.Text); m != nil {
			key := m[1] + "/" + m[2]
			if gone[key] {
				missed++
			}
			gone[key] = true
		} else if strings.HasPrefix(strings.ToUpper(strings.TrimSpace(s.Text)), "DELETE") {
			t.Errorf("DELETE of an unexpected shape: %s", s.Text)
		} else if m := insertRe.FindStringSubmatch(s.Text); m != nil {
			delete(gone, m[1]+"/"+m[2])
		}
	}
	return missed
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// tableShape is what prepare leaves: the DDL (AUTO_INCREMENT counter
// normalised), the indexes, the row count and the value formats.
func tableShape(t *testing.T, srv *compatServer, table string, size int64) string {
	t.Helper()
	ctx := context.Background()
	rs, err := srv.Admin.Query(ctx, "SHOW CREATE TABLE "+table)
	if err != nil {
		t.Fatal(err)
	}
	ddl := fmt.Sprint(rs.Rows[0][1]) // with AUTO_INCREMENT=: the insert workloads' ids go on from it
	idx, err := srv.Admin.Query(ctx, "SELECT index_name, column_name, non_unique FROM information_schema.statistics WHERE table_schema = 'sbtest' AND table_name = ? ORDER BY index_name, seq_in_index", table)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := srv.Admin.Query(ctx, "SELECT id, k, c, pad FROM "+table+" ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(rows.Rows)) != size {
		t.Errorf("%s has %d rows, want %d", table, len(rows.Rows), size)
	}
	cRe := regexp.MustCompile(`^\d{11}(-\d{11}){9}$`)
	padRe := regexp.MustCompile(`^\d{11}(-\d{11}){4}$`)
	for i, r := range rows.Rows {
		id, k := r[0].(int64), r[1].(int64)
		if id != int64(i+1) || k < 1 || k > size || !cRe.MatchString(fmt.Sprint(r[2])) || !padRe.MatchString(fmt.Sprint(r[3])) {
			t.Fatalf("%s row %d has an unexpected shape: %v", table, i+1, r)
		}
	}
	return ddl + "\n" + fmt.Sprint(idx.Rows)
}

func TestPrepareMatchesSysbench(t *testing.T) {
	bin := requireSysbench(t)
	checkPrepare(t, bin, startCompatServer(t), [][]string{nil, {"--auto_inc=off", "--create_secondary=off"}, {"--secondary=on", "--mysql_storage_engine=MyISAM"}})
}

// checkPrepare prepares tables with sysbench and with starbench on srv,
// with each list of extra options, and compares the tables.
func checkPrepare(t *testing.T, bin string, srv *compatServer, extras [][]string) {
	ctx := context.Background()
	for _, extra := range extras {
		t.Run(strings.Join(extra, ""), func(t *testing.T) {
			common := append([]string{"oltp_read_write", "--tables=3", "--table-size=300", "--threads=2"}, extra...)
			common = append(common, srv.sysbenchArgs()...)
			runSysbench(t, bin, append(common, "cleanup")...)
			sysOut := runSysbench(t, bin, append(common, "prepare")...)
			want := tableShape(t, srv, "sbtest2", 300)
			runSysbench(t, bin, append(common, "cleanup")...)

			cl, err := sysbench.ParseCommandLine(append(common, "prepare"))
			if err != nil {
				t.Fatal(err)
			}
			script, _ := sysbench.LookupScript(cl.Script)
			conn := bench.NewSQLConnector(srv.Config(), bench.PSAuto)
			var out bytes.Buffer
			res, err := sysbench.Prepare(ctx, conn, script, &cl.Options, 1, sysbench.PrepareMode{}, &out)
			if err != nil {
				t.Fatal(err)
			}
			if res.Rows != 900 || len(res.Tables) != 3 {
				t.Errorf("prepare result %+v", res)
			}
			got := tableShape(t, srv, "sbtest2", 300)
			if got != want {
				t.Errorf("table after prepare differs:\nstarbench:\n%s\nsysbench:\n%s", got, want)
			}
			// The same progress messages, in any order (threads interleave;
			// sysbench writes a message and its newline apart, so two
			// threads' messages can share a line in its output).
			if a, b := sortedLines(out.String()), progressMessages(sysOut); fmt.Sprint(a) != fmt.Sprint(b) {
				t.Errorf("prepare output:\nstarbench %q\nsysbench  %q", out.String(), sysOut)
			}
			// Tables that exist are an error naming them, as in sysbench.
			_, err = sysbench.Prepare(ctx, conn, script, &cl.Options, 1, sysbench.PrepareMode{}, &out)
			db := srv.Config().DBName
			if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("tables already exist: %[1]s.sbtest1, %[1]s.sbtest2, %[1]s.sbtest3", db)) {
				t.Errorf("prepare over existing tables: %v", err)
			}
			if res, err := sysbench.Prepare(ctx, conn, script, &cl.Options, 1, sysbench.PrepareMode{IfExists: sysbench.IfExistsReuse}, &out); err != nil || len(res.Reused) != 3 {
				t.Errorf("reuse: %+v %v", res, err)
			}
			out.Reset()
			if res, err := sysbench.Prepare(ctx, conn, script, &cl.Options, 1, sysbench.PrepareMode{IfExists: sysbench.IfExistsDrop}, &out); err != nil || res.Rows != 900 || res.Schema != db {
				t.Errorf("drop: %+v %v", res, err)
			}
			if !strings.Contains(out.String(), "Dropping table '"+db+".sbtest3' (if_exists=drop)...") {
				t.Errorf("prepare with drop does not name what it drops:\n%s", out.String())
			}
			runSysbench(t, bin, append(common, "cleanup")...)
		})
	}
}

var progressRe = regexp.MustCompile(`Initializing worker threads\.\.\.|Creating table '\w+'\.\.\.|Inserting \d+ records into '\w+'|Creating (a secondary index on|secondary indexes on) '\w+'\.\.\.`)

// progressMessages returns sysbench's prepare progress messages, sorted.
func progressMessages(s string) []string {
	messages := progressRe.FindAllString(s, -1)
	sort.Strings(messages)
	return messages
}

func sortedLines(s string) []string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if l != "" && !strings.HasPrefix(l, "sysbench ") {
			lines = append(lines, l)
		}
	}
	sort.Strings(lines)
	return lines
}

// A run at 1200 threads against a MariaDB with enough connections
// finishes and reports correctly.
func TestRunAt1200Threads(t *testing.T) {
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{MaxConnections: 1500})
	ctx := context.Background()
	o := sysbench.Defaults(sysbench.Profile1020)
	o.TableSize, o.Threads, o.Time, o.ReportInterval = 1000, 1200, 5, 1
	script, _ := sysbench.LookupScript("oltp_point_select")
	conn := bench.NewSQLConnector(m.Config(), bench.PSAuto)
	var out bytes.Buffer
	if _, err := sysbench.Prepare(ctx, conn, script, &o, 1, sysbench.PrepareMode{}, &out); err != nil {
		t.Fatal(err)
	}
	wl, err := sysbench.NewWorkload("oltp_point_select", o)
	if err != nil {
		t.Fatal(err)
	}
	p := &sysbench.Printer{W: &out, Opts: &wl.Options}
	res, err := sysbench.Run(ctx, conn, wl, sysbench.RunOptions{Seed: 1, Printer: p})
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if len(res.PerThread) != 1200 || res.Counts.Events == 0 || res.Counts.Errors != 0 {
		t.Fatalf("threads %d events %d errors %d", len(res.PerThread), res.Counts.Events, res.Counts.Errors)
	}
	idle := 0
	for _, th := range res.PerThread {
		if th.Events == 0 {
			idle++
		}
	}
	if idle > 0 {
		t.Errorf("%d of 1200 threads ran no event", idle)
	}
	text := out.String()
	if n := strings.Count(text, "] thds: 1200 tps: "); n < 4 {
		t.Errorf("%d interval lines with 1200 threads:\n%s", n, text)
	}
	want := fmt.Sprintf("    transactions:                        %-6d", res.Counts.Events)
	if !strings.Contains(text, want) || !strings.Contains(text, "    events (avg/stddev):") {
		t.Errorf("report:\n%s", text)
	}
	t.Logf("1200 threads: %d events in %.1fs (%.0f tps)", res.Counts.Events, res.Elapsed.Seconds(), float64(res.Counts.Events)/res.Elapsed.Seconds())
}
