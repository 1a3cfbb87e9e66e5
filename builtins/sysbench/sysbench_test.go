package sysbench_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"math"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/sysbench"
	"github.com/starbench/starbench/internal/testutil/benchtest"
)

func TestParseCommandLineAsPrintedInReports(t *testing.T) {
	// Seed 004's command line: a legacy script path, legacy options, the
	// command at the end.
	line := "--db-driver=mysql /usr/share/sysbench/tests/include/oltp_legacy/insert.lua --mysql-host=10.100.1.2 --mysql-port=4000 " +
		"--mysql-user=u_sysbench --mysql-db=sbtest_incr --mysql-password=secret --oltp-test-mode=complex --oltp-tables-count=8 " +
		"--oltp-table-size=10000 --threads=50 --time=600 --report-interval=5 prepare"
	cl, err := sysbench.ParseCommandLine(strings.Fields(line))
	if err != nil {
		t.Fatal(err)
	}
	o := cl.Options
	if cl.Command != "prepare" || o.Tables != 8 || o.TableSize != 10000 || o.Threads != 50 || o.Time != 600 || o.ReportInterval != 5 {
		t.Errorf("parsed %+v", cl)
	}
	s, err := sysbench.LookupScript(cl.Script)
	if err != nil || s.Name != "oltp_legacy/insert" {
		t.Errorf("script %v %v", s, err)
	}
	if cl.MySQL.DB != "sbtest_incr" || cl.MySQL.Password != "secret" || cl.MySQL.Configs()[0].Addr != "10.100.1.2:4000" {
		t.Errorf("mysql options %+v", cl.MySQL)
	}
	// Options before the script, between script and command, after the
	// command; "--name value" as well as "--name=value"; dashes or underscores.
	cl, err = sysbench.ParseCommandLine(strings.Fields("--threads 4 oltp_read_only --table_size=50 --range-selects=off run --skip-trx --rand-type uniform"))
	if err != nil {
		t.Fatal(err)
	}
	o = cl.Options
	if cl.Script != "oltp_read_only" || cl.Command != "run" || o.Threads != 4 || o.TableSize != 50 || o.RangeSelects || !o.SkipTrx || o.RandType != "uniform" {
		t.Errorf("parsed %+v", o)
	}
	if cl.Options.RandType != "uniform" || sysbench.Defaults(sysbench.ProfileMaster).RandType != "uniform" || sysbench.Defaults(sysbench.Profile1020).RandType != "special" {
		t.Errorf("profile defaults")
	}
	// oltp_common stands for the OLTP tables in prepare and cleanup.
	if s, err := sysbench.LookupScript("/usr/share/sysbench/oltp_common.lua"); err != nil || s.Name != "oltp_read_write" {
		t.Errorf("oltp_common: %v %v", s, err)
	}
}

// The connection and report options sysbench takes: bare switches do not
// take the next word; TLS modes and compression reach every endpoint's
// driver configuration; checkpoints are sorted, as sysbench sorts them.
func TestCommandLineConnectionAndReportOptions(t *testing.T) {
	cl, err := sysbench.ParseCommandLine(strings.Fields("oltp_read_write --mysql-compression --mysql-ssl=verify_identity --validate run --mysql-host=db1,127.0.0.1 --mysql-port=4000 --report-checkpoints=60,10,30"))
	if err != nil {
		t.Fatal(err)
	}
	if cl.Command != "run" || !cl.Validate || fmt.Sprint(cl.Checkpoints) != "[10 30 60]" {
		t.Errorf("parsed %+v", cl)
	}
	cfgs := cl.MySQL.Configs()
	if len(cfgs) != 2 {
		t.Fatalf("%d configs", len(cfgs))
	}
	for i, host := range []string{"db1", "127.0.0.1"} {
		c := cfgs[i]
		if c.TLS == nil || c.TLS.InsecureSkipVerify || c.TLS.ServerName != host || c.AllowFallbackToPlaintext {
			t.Errorf("%s: TLS %+v", host, c.TLS)
		}
		if !strings.Contains(c.FormatDSN(), "compress=true") {
			t.Errorf("%s: not compressed: %s", host, c.FormatDSN())
		}
	}
	for mode, check := range map[string]func(c *mysql.Config) bool{
		"off":       func(c *mysql.Config) bool { return c.TLS == nil },
		"DISABLED":  func(c *mysql.Config) bool { return c.TLS == nil },
		"preferred": func(c *mysql.Config) bool { return c.TLS.InsecureSkipVerify && c.AllowFallbackToPlaintext },
		"REQUIRED": func(c *mysql.Config) bool {
			return c.TLS.InsecureSkipVerify && c.TLS.VerifyConnection == nil && !c.AllowFallbackToPlaintext
		},
		"VERIFY_CA": func(c *mysql.Config) bool { return c.TLS.InsecureSkipVerify && c.TLS.VerifyConnection != nil },
	} {
		cl, err := sysbench.ParseCommandLine([]string{"oltp_read_write", "run", "--mysql-host=127.0.0.1", "--mysql-ssl=" + mode})
		if err != nil {
			t.Errorf("%s: %v", mode, err)
			continue
		}
		if c := cl.MySQL.Configs()[0]; !check(c) || strings.Contains(c.FormatDSN(), "compress") {
			t.Errorf("--mysql-ssl=%s: %+v", mode, c)
		}
	}
	// A bare --mysql-ssl is on; a dry run reads no certificate files.
	cl, err = sysbench.ParseCommandLine(strings.Fields("oltp_read_write --mysql-ssl --mysql-dry-run cleanup"))
	if err != nil || cl.Command != "cleanup" || cl.MySQL.SSL != "on" || !cl.DryRun {
		t.Errorf("bare switches: %+v %v", cl, err)
	}
	// A cipher keeps the connection at TLS 1.2 with the suite named.
	cl, err = sysbench.ParseCommandLine(strings.Fields("oltp_read_write run --mysql-host=127.0.0.1 --mysql-ssl=REQUIRED --mysql-ssl-cipher=ECDHE-RSA-AES128-GCM-SHA256"))
	if err != nil {
		t.Fatal(err)
	}
	if c := cl.MySQL.Configs()[0].TLS; c.MaxVersion != tls.VersionTLS12 || len(c.CipherSuites) != 1 || c.CipherSuites[0] != tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 {
		t.Errorf("cipher: %+v", c)
	}
	// TLS files without --mysql-ssl are said to be left, as sysbench leaves them.
	cl, err = sysbench.ParseCommandLine(strings.Fields("oltp_read_write run --mysql-ssl-cipher=AES128-SHA"))
	if err != nil || len(cl.Unused) != 1 || !strings.Contains(cl.Unused[0], "without --mysql-ssl nothing is encrypted") || cl.MySQL.Configs()[0].TLS != nil {
		t.Errorf("cipher without ssl: %+v %v", cl.Unused, err)
	}
}

// sysbench 1.0.20's defaults as its help states them (help_drv_mysql.t,
// opt_help.t), and its deprecated general options: read after the rest,
// winning over the new name when above their floor (--num-threads above
// 1, the others above 0) with a warning, left at or below it.
func TestCommandLineDefaultsAndDeprecatedNames(t *testing.T) {
	cl, err := sysbench.ParseCommandLine(strings.Fields("oltp_read_write run --mysql-host=127.0.0.1"))
	if err != nil {
		t.Fatal(err)
	}
	c := cl.MySQL.Configs()[0]
	o := cl.Options
	if c.User != "sbtest" || c.DBName != "sbtest" || c.Addr != "127.0.0.1:3306" || c.Passwd != "" || c.TLS != nil || strings.Contains(c.FormatDSN(), "compress") || cl.DryRun {
		t.Errorf("connection defaults: %s", c.FormatDSN())
	}
	if o.Threads != 1 || o.Events != 0 || o.Time != 10 || o.Rate != 0 || o.ReportInterval != 0 || o.Percentile != 95 || o.Histogram ||
		o.RandType != "special" || o.RandSeed != 0 || o.PSMode != "auto" || o.IgnoreErrors != "1213,1020,1205" || cl.Verbosity != 3 {
		t.Errorf("general defaults: %+v verbosity %d", o, cl.Verbosity)
	}
	for line, want := range map[string]string{
		"--num-threads=8 --threads=4 --max-requests=10 --events=5 --max-time=0 --time=20 --tx-rate=100": "8 10 20 100",
		"--threads=4 --num-threads=1 --events=5 --max-requests=0":                                       "4 5 10 0",
	} {
		cl, err := sysbench.ParseCommandLine(append([]string{"oltp_read_write", "run"}, strings.Fields(line)...))
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		o := cl.Options
		if got := fmt.Sprint(o.Threads, o.Events, o.Time, o.Rate); got != want {
			t.Errorf("%s: threads events time rate %s, want %s", line, got, want)
		}
		for _, w := range cl.Warnings {
			if !strings.HasSuffix(w, "is deprecated, use --threads instead") && !strings.HasSuffix(w, "use --events instead") && !strings.HasSuffix(w, "use --rate instead") {
				t.Errorf("%s: warning %q", line, w)
			}
		}
		if wantWarnings := map[string]int{"8 10 20 100": 3, "4 5 10 0": 0}[want]; len(cl.Warnings) != wantWarnings {
			t.Errorf("%s: warnings %q", line, cl.Warnings)
		}
	}
}

func TestCommandLineErrors(t *testing.T) {
	for line, want := range map[string]string{
		"oltp_read_write run --threads=0":             "invalid value for --threads: 0",
		"oltp_read_write run --rand-type=foo":         "invalid random numbers distribution: foo",
		"oltp_read_write run --rand-type=zipfian":     "only in the master profile",
		"oltp_read_write run --tables=-1":             "invalid value for --tables: -1",
		"oltp_read_write run --foo=1":                 "invalid option: --foo=1",
		"oltp_read_write run --threads=many":          `invalid value for --threads: "many" is not an integer`,
		"oltp_read_write run --skip_trx=maybe":        `invalid value for --skip-trx: "maybe" (want on or off)`,
		"oltp_read_write":                             "command is required",
		"run":                                         "no workload given",
		"oltp_read_write frobnicate":                  `unknown command "frobnicate"`,
		"oltp_read_write run --db-ps-mode=sometimes":  "invalid value for --db-ps-mode",
		"oltp_read_write run --mysql-ignore-errors=x": "invalid value for --mysql-ignore-errors",
		"oltp_read_write run --percentile=101":        "invalid value for --percentile",
		"oltp_read_write run --db-driver=pgsql":       "MySQL protocol only",
		"oltp_read_write run extra":                   "unexpected arguments",
		"oltp_read_write run --threads":               "needs a value",
		// A bare switch does not take the next word (here the command).
		"oltp_read_write cleanup --mysql-dry-run=maybe":                                                 `invalid value for --mysql-dry-run: "maybe" (want on or off)`,
		"oltp_read_write cleanup --mysql-compression=maybe":                                             `invalid value for --mysql-compression: "maybe"`,
		"oltp_read_write run --config-file=/nonexistent.cfg":                                            "--config-file: open /nonexistent.cfg",
		"oltp_read_write run --validate=maybe":                                                          `invalid value for --validate: "maybe"`,
		"oltp_read_write run --report-checkpoints=10,x":                                                 `invalid value for --report-checkpoints: "x"`,
		"oltp_read_write run --report-checkpoints=-1":                                                   `invalid value for --report-checkpoints: "-1"`,
		"oltp_read_write run --mysql-ssl=sometimes":                                                     `invalid value for --mysql-ssl: "sometimes"`,
		"oltp_read_write run --mysql-ssl=REQUIRED --mysql-ssl-cipher=HIGH":                              `cipher "HIGH" is not one starbench can use`,
		"oltp_read_write run --mysql-ssl=VERIFY_CA --mysql-ssl-ca=/nonexist":                            "--mysql-ssl=VERIFY_CA: CA file: open /nonexist",
		"oltp_read_write run --mysql-ssl=REQUIRED --mysql-ssl-cert=/nonexist":                           "needs both its certificate and its key file",
		"oltp_read_write run --mysql-ssl=VERIFY_CA --mysql-ssl-ca=/dev/zero":                            "CA file: /dev/zero is over 4 MiB: not a PEM file",
		"oltp_read_write run --mysql-ssl=REQUIRED --mysql-ssl-cert=/nonexist --mysql-ssl-key=/nonexist": "client certificate: open /nonexist",
		// 1.0.20's "on" takes its files from the current directory, which
		// here (the package's folder) has none of them.
		"oltp_read_write run --mysql-ssl=on": "and this one has no cacert.pem, client-cert.pem, client-key.pem (sysbench fails the same way, error 2026)",
	} {
		_, err := sysbench.ParseCommandLine(strings.Fields(line))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", line, err, want)
		}
	}
	// Options that cannot change a result are taken and listed, a bare
	// switch among them not taking the next word.
	cl, err := sysbench.ParseCommandLine(strings.Fields("oltp_read_write --debug run --thread-stack-size 64K --mysql-debug=on --pgsql-variant=redshift"))
	if err != nil || cl.Command != "run" || strings.Join(cl.Unused, " ") != "--debug --thread-stack-size --mysql-debug=on --pgsql-variant=redshift" {
		t.Errorf("no-effect options: %+v %v", cl, err)
	}
	if _, err := sysbench.ParseCommandLine(strings.Fields("oltp_read_write run --rand-type=zipfian --profile=master")); err != nil {
		t.Errorf("zipfian in master: %v", err)
	}
	// sysbench's select_random_* assert --tables=1 in prepare and cleanup
	// only: their run takes any --tables (and uses sbtest1).
	twoTables := sysbench.Defaults("1.0.20")
	twoTables.Tables = 2
	if _, err := sysbench.NewWorkload("select_random_points", twoTables); err != nil {
		t.Errorf("select_random_points run with --tables=2: %v", err)
	}
	script, _ := sysbench.LookupScript("select_random_ranges")
	want := "select_random_ranges: this benchmark does not support --tables > 1 (got 2)"
	if _, err := sysbench.Prepare(context.Background(), nil, script, &twoTables, 1, sysbench.PrepareMode{}, io.Discard); err == nil || err.Error() != want {
		t.Errorf("prepare with --tables=2: %v, want %q", err, want)
	}
	if _, err := sysbench.Cleanup(context.Background(), nil, script, &twoTables, io.Discard); err == nil || err.Error() != want {
		t.Errorf("cleanup with --tables=2: %v, want %q", err, want)
	}
	if _, err := sysbench.LookupScript("oltp_nothing"); err == nil || !strings.Contains(err.Error(), "known: bulk_insert") {
		t.Errorf("unknown script: %v", err)
	}
}

// draw samples a distribution of [1, n].
func draw(t *testing.T, randType string, n int64, samples int) []int64 {
	o := sysbench.Defaults(sysbench.ProfileMaster)
	o.RandType = randType
	r := sysbench.NewRand(42, &o)
	out := make([]int64, samples)
	for i := range out {
		v := r.Default(1, n)
		if v < 1 || v > n {
			t.Fatalf("%s drew %d outside [1, %d]", randType, v, n)
		}
		out[i] = v
	}
	return out
}

func fraction(vals []int64, in func(int64) bool) float64 {
	n := 0
	for _, v := range vals {
		if in(v) {
			n++
		}
	}
	return float64(n) / float64(len(vals))
}

func TestDistributions(t *testing.T) {
	const n, samples = 10000, 200000
	// special (1.0.20's default): 75% of draws on a narrow window in the middle.
	sp := draw(t, "special", n, samples)
	if f := fraction(sp, func(v int64) bool { return v >= 4975 && v <= 5051 }); math.Abs(f-0.75) > 0.02 {
		t.Errorf("special: %.3f of draws in the hot window, want about 0.75", f)
	}
	// uniform: each tenth of the range gets a tenth of the draws.
	un := draw(t, "uniform", n, samples)
	for d := int64(0); d < 10; d++ {
		if f := fraction(un, func(v int64) bool { return v > d*1000 && v <= (d+1)*1000 }); math.Abs(f-0.1) > 0.01 {
			t.Errorf("uniform: decile %d has %.3f", d, f)
		}
	}
	// gaussian: mean in the middle, standard deviation about n/12.
	ga := draw(t, "gaussian", n, samples)
	var sum, sq float64
	for _, v := range ga {
		sum += float64(v)
	}
	mean := sum / samples
	for _, v := range ga {
		sq += (float64(v) - mean) * (float64(v) - mean)
	}
	if sd := math.Sqrt(sq / samples); math.Abs(mean-5000) > 50 || math.Abs(sd-n/12.0) > 50 {
		t.Errorf("gaussian: mean %.0f sd %.0f", mean, sd)
	}
	// pareto with h=0.2: about 80% of draws in the first 20%.
	pa := draw(t, "pareto", n, samples)
	if f := fraction(pa, func(v int64) bool { return v <= 2000 }); math.Abs(f-0.8) > 0.02 {
		t.Errorf("pareto: %.3f in the first 20%%", f)
	}
	// zipfian with exponent 0.8: P(1)/P(2) = 2^0.8.
	zi := draw(t, "zipfian", n, samples)
	p1, p2 := fraction(zi, func(v int64) bool { return v == 1 }), fraction(zi, func(v int64) bool { return v == 2 })
	if ratio := p1 / p2; math.Abs(ratio-math.Pow(2, 0.8)) > 0.15 {
		t.Errorf("zipfian: P(1)/P(2) = %.2f, want %.2f", ratio, math.Pow(2, 0.8))
	}
}

func TestRandStringAndUnique(t *testing.T) {
	o := sysbench.Defaults(sysbench.Profile1020)
	r := sysbench.NewRand(1, &o)
	s := r.String("##-@@@-x")
	if len(s) != 8 || s[2] != '-' || s[6:] != "-x" || s[0] < '0' || s[0] > '9' || s[3] < 'a' || s[3] > 'z' {
		t.Errorf("String = %q", s)
	}
	// Unique values of several workers never collide.
	seen := map[uint32]bool{}
	for w := 0; w < 4; w++ {
		r := sysbench.NewRand(uint64(w), &o)
		r.SetUniqueStripe(w, 4)
		for i := 0; i < 50000; i++ {
			v := r.Unique()
			if seen[v] {
				t.Fatalf("worker %d repeated unique value %d", w, v)
			}
			seen[v] = true
		}
	}
}

// recorder is a Session that writes down every statement and its
// arguments instead of sending them, to compare generated streams.
type recorder struct {
	mu    sync.Mutex
	lines []string
}

func (r *recorder) add(kind, q string, args []any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, fmt.Sprintf("%s %s %v", kind, q, args))
}

func (r *recorder) Prepare(_ context.Context, q string) (bench.Stmt, error) {
	r.add("prepare", q, nil)
	return &recordedStmt{r: r, q: q}, nil
}
func (r *recorder) Exec(_ context.Context, q string) (int64, error) {
	r.add("exec", q, nil)
	return 1, nil
}
func (r *recorder) Query(_ context.Context, q string) (int64, error) {
	r.add("query", q, nil)
	return 1, nil
}
func (r *recorder) Close() error { return nil }

type recordedStmt struct {
	r *recorder
	q string
}

func (s *recordedStmt) Exec(_ context.Context, args ...any) (int64, error) {
	s.r.add("exec", s.q, args)
	return 1, nil
}
func (s *recordedStmt) Query(_ context.Context, args ...any) error {
	s.r.add("query", s.q, args)
	return nil
}
func (s *recordedStmt) Close() error { return nil }

// stream runs n events of one worker of a workload against a recorder.
func stream(t *testing.T, script string, o sysbench.Options, worker int, seed int64, n int) string {
	wl, err := sysbench.NewWorkload(script, o)
	if err != nil {
		t.Fatal(err)
	}
	w, err := wl.NewWorker(worker, bench.WorkerSeed(seed, worker))
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	ctx := context.Background()
	if err := w.Prepare(ctx, rec); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if err := w.Event(ctx, rec); err != nil {
			t.Fatal(err)
		}
	}
	if f, ok := w.(bench.Finisher); ok {
		_ = f.Finish(ctx, rec)
	}
	return strings.Join(rec.lines, "\n")
}

// With the same seed each worker issues a byte-identical statement stream;
// another seed or another worker gives another stream.
func TestStatementStreamIsDeterministic(t *testing.T) {
	o := sysbench.Defaults(sysbench.Profile1020)
	o.Tables, o.TableSize, o.Threads, o.AutoInc = 4, 100000, 8, false
	for _, s := range sysbench.Scripts() {
		oo := o
		if s.Prepare == sysbench.PrepareOLTPSingle {
			oo.Tables = 1
		}
		t.Run(strings.ReplaceAll(s.Name, "/", "_"), func(t *testing.T) {
			a := stream(t, s.Name, oo, 3, 99, 50)
			b := stream(t, s.Name, oo, 3, 99, 50)
			if a != b {
				t.Fatalf("two runs with seed 99 differ")
			}
			if len(a) == 0 {
				t.Fatalf("no statements")
			}
			if s.Name == "bulk_insert" || s.Name == "oltp_legacy/bulk_insert" {
				return // its stream is (n,n) rows: the same for any seed
			}
			if stream(t, s.Name, oo, 3, 100, 50) == a {
				t.Errorf("seed 100 gives the same stream as seed 99")
			}
			if stream(t, s.Name, oo, 4, 99, 50) == a {
				t.Errorf("worker 4 gives the same stream as worker 3")
			}
		})
	}
}

// The AUTO_RANDOM variant of the sysbench table for TiDB (seed 004's
// "primary key random" scenario), as TiDB documents the column.
func TestAutoRandomDDL(t *testing.T) {
	o := sysbench.Defaults(sysbench.Profile1020)
	o.AutoRandom = true
	ddl := sysbench.CreateTableSQL(&o, 3)
	want := "CREATE TABLE sbtest3(\n  id BIGINT NOT NULL AUTO_RANDOM,\n  k INTEGER DEFAULT '0' NOT NULL,\n  c CHAR(120) DEFAULT '' NOT NULL,\n  pad CHAR(60) DEFAULT '' NOT NULL,\n  PRIMARY KEY (id)\n) /*! ENGINE = innodb */ "
	if ddl != want {
		t.Errorf("DDL:\n%s\nwant:\n%s", ddl, want)
	}
	if h := sysbench.InsertHeader(&o, 3); h != "INSERT INTO sbtest3(k, c, pad) VALUES" {
		t.Errorf("rows must leave id to AUTO_RANDOM: %s", h)
	}
	cl, err := sysbench.ParseCommandLine(strings.Fields("oltp_legacy/insert.lua --auto-random=on --oltp-tables-count=8 prepare"))
	if err != nil || !cl.Options.AutoRandom {
		t.Errorf("--auto-random: %v", err)
	}
}

// As in sysbench, "Threads started!" comes once every thread has connected
// (a run that cannot connect never prints it), so CPU counted from that
// line is the load's alone.
func TestThreadsStartedFollowsTheConnections(t *testing.T) {
	r, err := benchtest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := closed.Addr().String()
	closed.Close()
	for _, addr := range []string{r.Addr(), refused} {
		cfg := r.Config()
		cfg.Addr = addr
		o := sysbench.Defaults(sysbench.Profile1020)
		o.Threads, o.Time, o.Events, o.TableSize, o.Tables = 2, 0, 10, 1000, 1
		wl, err := sysbench.NewWorkload("oltp_point_select", o)
		if err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		p := &sysbench.Printer{W: &out, Opts: &wl.Options}
		_, err = sysbench.Run(context.Background(), bench.NewSQLConnector(cfg, bench.PSAuto), wl, sysbench.RunOptions{Seed: 1, Printer: p})
		started := strings.Index(out.String(), "Threads started!")
		initializing := strings.Index(out.String(), "Initializing worker threads...")
		switch {
		case addr == refused && (err == nil || started >= 0):
			t.Errorf("refused connection: err %v, output:\n%s", err, out.String())
		case addr != refused && (err != nil || initializing < 0 || started < initializing):
			t.Errorf("run: err %v, output:\n%s", err, out.String())
		}
	}
}

// Plan keywords arrive typed and are set without a detour through text.
func TestSetValue(t *testing.T) {
	o := sysbench.Defaults(sysbench.Profile1020)
	for _, c := range []struct {
		name string
		v    any
		want string // the option's value afterwards, or the error's text
	}{
		{"threads", int64(16), "16"},
		{"threads", float64(8), "8"},
		{"threads", 2.5, "invalid value for --threads: 2.5 is not an integer"},
		{"threads", true, "invalid value for --threads: true is not a number"},
		{"threads", "32", "32"},
		{"table_size", int64(1) << 40, "1099511627776"},
		{"rand_pareto_h", int64(1), "1"},
		{"rand_pareto_h", 0.25, "0.25"},
		{"rand_pareto_h", math.NaN(), "invalid value for --rand-pareto-h: NaN is not a number"},
		{"skip_trx", true, "on"},
		{"skip_trx", int64(1), "invalid value for --skip-trx: 1 (want on or off, True or False)"},
		{"rand_type", "uniform", "uniform"},
		{"mysql_ignore_errors", "1213,1020", "1213,1020"},
		{"no_such_option", int64(1), "invalid option: --no-such-option"},
	} {
		err := o.SetValue(c.name, c.v)
		got := ""
		if err != nil {
			got = err.Error()
		} else if opt, _ := sysbench.LookupOption(c.name); opt != nil {
			got = opt.Value(&o)
		}
		if got != c.want {
			t.Errorf("SetValue(%s, %v): %q, want %q", c.name, c.v, got, c.want)
		}
	}
}
