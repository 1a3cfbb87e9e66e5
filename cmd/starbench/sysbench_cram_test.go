package main

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/internal/sandbox"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
)

// The command lines of sysbench 1.0.20's own tests of its OLTP scripts
// (tests/t/script_oltp_*_mysql.t and the include they share), run by
// Debian's sysbench and by starbench on the same server, one after the
// other: prepare with one thread (tables in order), prewarm, a run of
// exactly 100 events (oltp_read_write's on one thread, the last of two
// --threads), cleanup; also MyISAM, --create-secondary=off, and
// --auto-inc=off at --verbosity=1. Every line printed is the same, but for what starbench
// differs in on purpose (the banner, the schema in destructive lines) and
// the figures that vary from run to run (times, rates, latencies; with
// oltp_delete, how its 100 statements split between write and other);
// each table's SHOW CREATE TABLE is the same after either prepare.
func TestSysbenchCramScriptsAsSysbench(t *testing.T) {
	bin := sysbenchBinary(t)
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{})
	cfg := m.Config()
	host, port, _ := strings.Cut(cfg.Addr, ":")
	conn, err := db.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	login := []string{"--db-driver=mysql", "--mysql-host=" + host, "--mysql-port=" + port, "--mysql-user=root", "--mysql-password=" + cfg.Passwd, "--mysql-db=sbtest", "--rand-seed=1"}
	for _, c := range []struct {
		script string
		opts   []string
		run    string // the run's --threads (last on its line), "" for no run
	}{
		{"oltp_delete", []string{"--tables=8", "--table-size=1000"}, "2"},
		{"oltp_insert", []string{"--tables=8", "--table-size=1000"}, "2"},
		{"oltp_point_select", []string{"--tables=8", "--table-size=1000"}, "2"},
		// One thread: two could delete the same row, which sysbench then
		// counts as "other" (no row affected), at random.
		{"oltp_read_write", []string{"--tables=8", "--table-size=1000", "--threads=2"}, "1"},
		{"oltp_read_write", []string{"--mysql-storage-engine=myisam", "--tables=8", "--table-size=1000", "--threads=2"}, "1"},
		{"oltp_read_write", []string{"--create-secondary=off", "--tables=1"}, ""},
		{"oltp_insert", []string{"--auto-inc=off", "--verbosity=1", "--tables=1"}, "2"},
	} {
		name := c.script + " " + strings.Join(c.opts, " ")
		commands := [][]string{{"--threads=1", "prepare"}, {"--threads=1", "prewarm"}, {"--events=100", "--time=0", "--threads=" + c.run, "run"}, {"cleanup"}}
		if c.run == "" {
			commands = [][]string{{"prepare"}, {"cleanup"}}
		}
		type outcome struct {
			printed [][]string // by command
			tables  []string   // SHOW CREATE TABLE after prepare
		}
		sequence := func(tool string) outcome {
			var o outcome
			for i, cmd := range commands {
				args := append(append(append([]string{c.script}, login...), c.opts...), cmd...)
				var out []byte
				var err error
				if tool == "sysbench" {
					out, err = exec.Command(bin, args...).CombinedOutput()
				} else {
					if cmd[len(cmd)-1] == "run" {
						args = append(args, "--out", outDir(t))
					}
					r := starbench(t, nil, append([]string{"sysbench"}, args...)...)
					out = []byte(r.stdout)
					if r.code != 0 {
						err = fmt.Errorf("exit %d: %s", r.code, r.stderr)
					}
				}
				if err != nil {
					t.Fatalf("%s: %s %v: %v\n%s", name, tool, cmd, err, out)
				}
				o.printed = append(o.printed, cramLines(string(out), c.script == "oltp_delete"))
				if i == 0 {
					o.tables = showCreateTables(t, conn)
				}
			}
			return o
		}
		theirs := sequence("sysbench")
		ours := sequence("starbench")
		for i, cmd := range commands {
			if !slices.Equal(ours.printed[i], theirs.printed[i]) {
				t.Errorf("%s %v: printed\n%s\nsysbench printed\n%s", name, cmd, strings.Join(ours.printed[i], "\n"), strings.Join(theirs.printed[i], "\n"))
			}
		}
		if !slices.Equal(ours.tables, theirs.tables) || len(theirs.tables) == 0 {
			t.Errorf("%s: tables after prepare\n%s\nafter sysbench's\n%s", name, strings.Join(ours.tables, "\n"), strings.Join(theirs.tables, "\n"))
		}
	}
}

// cramLines is a command's output as the comparison sees it: the banner
// left out, destructive lines without their schema, the figures that vary
// from run to run as N (exact counts of queries and events kept; with
// splitWrites, the write and other counts too, which vary for
// oltp_delete).
func cramLines(out string, splitWrites bool) []string {
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if strings.HasPrefix(l, "sysbench 1.0.20 (") {
			continue
		}
		l = strings.ReplaceAll(l, "'sbtest.sbtest", "'sbtest")
		l = decimal.ReplaceAllString(l, " N") // right-aligned: the width varies
		if splitWrites && (strings.HasPrefix(l, "        write:") || strings.HasPrefix(l, "        other:")) {
			l = digits.ReplaceAllString(l, "N")
		}
		lines = append(lines, l)
	}
	return lines
}

var decimal = regexp.MustCompile(` *\d+\.\d+`)

// showCreateTables is every table's SHOW CREATE TABLE in the current
// database, in name order.
func showCreateTables(t *testing.T, conn *db.Conn) []string {
	t.Helper()
	ctx := context.Background()
	rs, err := conn.Query(ctx, "SHOW TABLES")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, row := range rs.Rows {
		name := fmt.Sprint(row[0])
		def, err := conn.Query(ctx, "SHOW CREATE TABLE `"+name+"`")
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprint(def.Rows[0][1]))
	}
	slices.Sort(out)
	return out
}

// sysbench 1.0.20's tests that need no server (opt_report_checkpoints.t,
// opt_report_interval.t, opt_histogram.t, script_oltp_help.t,
// opt_version.t, cmd_*.t), their command lines run by both tools where
// sysbench runs them without one (--mysql-dry-run): the reports'
// headings in the same order, an interval line of sysbench's shape, the
// histogram where sysbench prints it, a script's options with sysbench's
// flags and defaults, the version's first two words, and a command
// without a script refused before any connection.
func TestSysbenchCramWithoutServer(t *testing.T) {
	bin := sysbenchBinary(t)
	dry := []string{"/usr/share/sysbench/oltp_read_write.lua", "--db-driver=mysql", "--mysql-dry-run", "--time=3", "--events=0"}
	both := func(filter *regexp.Regexp, args ...string) (ours, theirs []string) {
		t.Helper()
		out, err := exec.Command(bin, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("sysbench %v: %v\n%s", args, err, out)
		}
		r := starbench(t, nil, append([]string{"sysbench", "--out", outDir(t)}, args...)...)
		if r.code != 0 {
			t.Fatalf("starbench sysbench %v: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
		}
		pick := func(s string) []string {
			var lines []string
			for _, l := range strings.Split(s, "\n") {
				if filter.MatchString(l) {
					lines = append(lines, l)
				}
			}
			return lines
		}
		return pick(r.stdout), pick(string(out))
	}

	ours, theirs := both(regexp.MustCompile(`Checkpoint report|SQL statistics`), append(dry, "--report-checkpoints=1,2", "run")...)
	want := []string{"[ 1s ] Checkpoint report:", "SQL statistics:", "[ 2s ] Checkpoint report:", "SQL statistics:", "SQL statistics:"}
	if !slices.Equal(ours, want) || !slices.Equal(theirs, want) {
		t.Errorf("checkpoints: starbench %q, sysbench %q, want %q", ours, theirs, want)
	}

	ours, theirs = both(regexp.MustCompile(`^\[ 2s \]`), append(dry, "--report-interval=1", "run")...)
	shape := regexp.MustCompile(`^\[ 2s \] thds: 1 tps: [0-9.]+ qps: [0-9.]+ \(r/w/o: [0-9.]+/[0-9.]+/[0-9.]+\) lat \(ms,95%\): [0-9]+\.[0-9]+ err/s: 0\.00 reconn/s: 0\.00$`)
	if len(ours) != 1 || !shape.MatchString(ours[0]) || len(theirs) != 1 || !shape.MatchString(theirs[0]) {
		t.Errorf("interval lines: starbench %q, sysbench %q", ours, theirs)
	}

	// The histogram comes after "Threads started!", before the report.
	hist := []string{"oltp_point_select", "--mysql-dry-run", "--histogram", "--events=2", "--threads=2", "--time=0", "run"}
	ours, theirs = both(regexp.MustCompile(`^(Threads started!|Latency histogram|       value  -+ distribution -+ count|SQL statistics:|    total number of events:)`), hist...)
	if !slices.Equal(ours, theirs) || len(theirs) != 5 {
		t.Errorf("histogram: starbench %q, sysbench %q", ours, theirs)
	}
	r := starbench(t, nil, append([]string{"sysbench", "--out", outDir(t)}, hist...)...)
	buckets, stars := int64(0), 0
	for _, m := range regexp.MustCompile(`(?m)^ *[0-9]+\.[0-9]{3} \|(\**) +([0-9]+)$`).FindAllStringSubmatch(r.stdout, -1) {
		n, _ := strconv.ParseInt(m[2], 10, 64)
		buckets += n
		stars = max(stars, len(m[1]))
	}
	if buckets != 2 || stars != 40 {
		t.Errorf("histogram buckets hold %d events, the largest bar %d stars (want 2 and 40)\n%s", buckets, stars, r.stdout)
	}

	// A script's options: sysbench's heading, flags and defaults, and the
	// blank line that ends them (the descriptions are starbench's words).
	help := func(out string) (heading string, flags map[string]string, blankEnd bool) {
		lines := strings.Split(out, "\n")
		flags = map[string]string{}
		for _, l := range lines {
			if strings.HasSuffix(l, " options:") {
				heading = l
			}
			if f := strings.Fields(l); len(f) > 1 && strings.HasPrefix(f[0], "--") {
				flags[f[0]] = f[len(f)-1]
			}
		}
		return heading, flags, strings.HasSuffix(out, "\n\n")
	}
	out, err := exec.Command(bin, "/usr/share/sysbench/oltp_read_write.lua", "help").Output()
	if err != nil {
		t.Fatal(err)
	}
	r = starbench(t, nil, "sysbench", "/usr/share/sysbench/oltp_read_write.lua", "help")
	oh, of, oblank := help(r.stdout)
	th, tf, tblank := help(string(out))
	if oh != "oltp_read_write.lua options:" || oh != th || !oblank || !tblank {
		t.Errorf("help: heading %q (sysbench %q), ends with a blank line: %v (sysbench %v)", oh, th, oblank, tblank)
	}
	delete(tf, "--pgsql_variant=STRING") // taken and left: PostgreSQL only
	for flag, def := range tf {
		if of[flag] != def {
			t.Errorf("help: %s %s, sysbench %s", flag, of[flag], def)
		}
	}
	if len(tf) < 17 {
		t.Errorf("sysbench's help lists %d options: %v", len(tf), tf)
	}

	r = starbench(t, nil, "sysbench", "--version")
	out, _ = exec.Command(bin, "--version").Output()
	if f, g := strings.Fields(r.stdout), strings.Fields(string(out)); r.code != 0 || len(f) < 2 || len(g) < 2 || !slices.Equal(f[:2], g[:2]) || strings.Count(r.stdout, "\n") != 1 {
		t.Errorf("--version: %q, sysbench %q", r.stdout, out)
	}

	// sysbench exits 1 here; a bad command line is exit 2 for starbench.
	for _, cmd := range []string{"cleanup", "help", "prepare", "run"} {
		expect(t, starbench(t, []string{"STARBENCH_TARGET="}, "sysbench", "--mysql-host=127.0.0.1", "--mysql-port=1", cmd), 2, fmt.Sprintf("no workload given before %q", cmd))
	}
}
