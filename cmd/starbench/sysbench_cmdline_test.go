package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/internal/sandbox"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
	"github.com/starbench/starbench/runner/results"
)

// --verbosity below 3 as Debian's sysbench 1.0.20 takes it: prepare and
// cleanup print the scripts' lines only (no banner, no "Initializing
// worker threads..."), a run prints nothing (its results folder keeps its
// output); starbench's lines are sysbench's, in any order (threads
// interleave), but for the schema its destructive lines name.
func TestSysbenchVerbosityAsSysbench(t *testing.T) {
	bin := sysbenchBinary(t)
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{})
	cfg := m.Config()
	host, port, _ := strings.Cut(cfg.Addr, ":")
	args := []string{"--mysql-host=" + host, "--mysql-port=" + port, "--mysql-user=root", "--mysql-password=" + cfg.Passwd,
		"--mysql-db=sbtest", "--tables=2", "--table-size=100", "--threads=2", "--verbosity=1"}
	theirs := func(cmd ...string) []string {
		var out, errOut bytes.Buffer
		c := exec.Command(bin, append(append([]string{"oltp_read_write"}, args...), cmd...)...)
		c.Stdout, c.Stderr = &out, &errOut
		if err := c.Run(); err != nil {
			t.Fatalf("sysbench %v: %v\n%s%s", cmd, err, out.String(), errOut.String())
		}
		// sysbench's threads print a line and its newline in two writes,
		// so two lines can run together ("...'sbtest1'...Creating table
		// 'sbtest2'..."): they are cut apart again.
		return sortedOutput(linesRunTogether.ReplaceAllString(out.String(), "$1\n$2"))
	}
	ours := func(cmd ...string) []string {
		r := starbench(t, nil, append(append([]string{"sysbench", "oltp_read_write"}, args...), cmd...)...)
		if r.code != 0 {
			t.Fatalf("starbench sysbench %v: exit %d\n%s%s", cmd, r.code, r.stdout, r.stderr)
		}
		return sortedOutput(strings.ReplaceAll(r.stdout, "'sbtest.sbtest", "'sbtest"))
	}
	want := theirs("prepare")
	theirs("cleanup")
	if got := ours("prepare"); !slices.Equal(got, want) || len(want) == 0 {
		t.Errorf("prepare --verbosity=1:\nstarbench %q\nsysbench  %q", got, want)
	}
	got := ours("cleanup")
	theirs("prepare")
	if want := theirs("cleanup"); !slices.Equal(got, want) || len(want) == 0 {
		t.Errorf("cleanup --verbosity=1:\nstarbench %q\nsysbench  %q", got, want)
	}
	ours("prepare") // for the runs
	out := filepath.Join(t.TempDir(), "run")
	if got, want := ours("--time=1", "--out", out, "run"), theirs("--time=1", "run"); len(got) != 0 || len(want) != 0 {
		t.Errorf("run --verbosity=1 printed\nstarbench %q\nsysbench  %q", got, want)
	}
	expect(t, starbench(t, nil, "report", out), 0, "oltp_read_write")
	expect(t, starbench(t, nil, append(append([]string{"sysbench", "oltp_read_write"}, args...), "--verbosity=7", "run")...), 2,
		"invalid value for --verbosity: 7 (0 to 5)")
}

// linesRunTogether finds a script's line that starts right after another.
var linesRunTogether = regexp.MustCompile(`([^\n])(Creating |Inserting |Dropping )`)

// sortedOutput is a command's non-empty lines, sorted.
func sortedOutput(s string) []string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	slices.Sort(lines)
	return lines
}

// Where sysbench 1.0.20 connects: --mysql-socket, given, whatever the host
// (the port unused); else the host "localhost" (its default) is the Unix
// socket libmysqlclient makes of it ($MYSQL_UNIX_PORT, or Debian's
// /run/mysqld/mysqld.sock) and any other host TCP. Each command line does
// the same with Debian's sysbench.
func TestSysbenchLocalhostIsTheSocket(t *testing.T) {
	bin := sysbenchBinary(t)
	// A user that may come both ways (the sandbox's root has its password
	// over TCP only).
	m, _ := serverWith(t, "CREATE USER sb@'localhost' IDENTIFIED BY 'sbpw'", "GRANT ALL ON *.* TO sb@'localhost'",
		"CREATE USER sb@'127.0.0.1' IDENTIFIED BY 'sbpw'", "GRANT ALL ON *.* TO sb@'127.0.0.1'")
	_, port, _ := strings.Cut(m.Config().Addr, ":")
	user := []string{"--mysql-user=sb", "--mysql-password=sbpw", "--mysql-db=sbtest", "--tables=1", "--table-size=10"}
	both := func(env []string, args ...string) {
		t.Helper()
		c := exec.Command(bin, append(append([]string{"oltp_point_select"}, user...), args...)...)
		c.Env = append(c.Environ(), env...)
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("sysbench %v %v: %v\n%s", env, args, err, out)
		}
		r := starbench(t, env, append(append([]string{"sysbench", "oltp_point_select"}, user...), args...)...)
		if r.code != 0 {
			t.Errorf("starbench sysbench %v %v: exit %d\n%s%s", env, args, r.code, r.stdout, r.stderr)
		}
	}
	c := exec.Command(bin, append(append([]string{"oltp_point_select"}, user...), "--mysql-socket="+m.Socket(), "prepare")...)
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("sysbench prepare: %v\n%s", err, out)
	}
	both(nil, "--mysql-host=localhost", "--mysql-socket="+m.Socket(), "--mysql-port=1", "--time=1", "run")
	both(nil, "--mysql-host=127.0.0.1", "--mysql-socket="+m.Socket(), "--mysql-port=1", "--time=1", "run")
	both([]string{"MYSQL_UNIX_PORT=" + m.Socket()}, "--mysql-port=1", "--time=1", "run")
	both(nil, "--mysql-host=127.0.0.1", "--mysql-port="+port, "--time=1", "run")
	// localhost without --mysql-socket is $MYSQL_UNIX_PORT, not the port
	// given (which would connect).
	none := filepath.Join(t.TempDir(), "none.sock")
	r := starbench(t, []string{"MYSQL_UNIX_PORT=" + none}, append(append([]string{"sysbench", "oltp_point_select"}, user...), "--mysql-port="+port, "--time=1", "run")...)
	if r.code == 0 || !strings.Contains(r.stderr, none) {
		t.Errorf("localhost with MYSQL_UNIX_PORT=%s: exit %d, want a failed connection to that socket\n%s", none, r.code, r.stderr)
	}
}

// --mysql-dry-run sends nothing, as sysbench's: a cleanup pasted with it
// leaves the tables, a run on a port where nothing listens completes
// (measuring the client alone) and its folder says it was a dry run; bare
// or =on, and given bare before the command it does not swallow it.
func TestSysbenchDryRunSendsNothing(t *testing.T) {
	bin := sysbenchBinary(t)
	m, c := serverWith(t)
	cfg := m.Config()
	host, port, _ := strings.Cut(cfg.Addr, ":")
	args := []string{"oltp_read_write", "--mysql-host=" + host, "--mysql-port=" + port, "--mysql-user=root", "--mysql-password=" + cfg.Passwd,
		"--mysql-db=sbtest", "--tables=2", "--table-size=10"}
	expect(t, starbench(t, nil, append([]string{"sysbench"}, append(args, "prepare")...)...), 0, "Creating table 'sbtest2'")
	for _, tool := range []string{"sysbench", "starbench"} {
		line := append(append([]string{}, args...), "--mysql-dry-run", "cleanup")
		if tool == "sysbench" {
			if out, err := exec.Command(bin, line...).CombinedOutput(); err != nil {
				t.Fatalf("sysbench --mysql-dry-run cleanup: %v\n%s", err, out)
			}
		} else {
			expect(t, starbench(t, nil, append([]string{"sysbench"}, line...)...), 0, "nothing is sent to a server", "Dropping table 'sbtest1'...")
		}
		rs, err := c.Query(t.Context(), "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'sbtest'")
		if err != nil || fmt.Sprint(rs.Rows[0][0]) != "2" {
			t.Errorf("after %s's dry-run cleanup: %v tables (%v), want the 2 still there", tool, rs, err)
		}
	}
	// Nothing listens on port 1 of 127.0.0.2: both runs complete.
	noServer := []string{"oltp_read_write", "--mysql-host=127.0.0.2", "--mysql-port=1", "--tables=2", "--table-size=10", "--time=1", "--mysql-dry-run=on", "run"}
	if out, err := exec.Command(bin, noServer...).CombinedOutput(); err != nil {
		t.Fatalf("sysbench dry run without a server: %v\n%s", err, out)
	}
	out := filepath.Join(t.TempDir(), "dry")
	expect(t, starbench(t, nil, append([]string{"sysbench", "--out", out}, noServer...)...), 0, "transactions:", "results: "+out+" (completed)")
	manifest, _ := os.ReadFile(filepath.Join(out, "manifest.json"))
	if !bytes.Contains(manifest, []byte(`"dry_run": true`)) {
		t.Errorf("the manifest does not say it was a dry run:\n%s", manifest)
	}
}

// sysbenchBinary is Debian's sysbench: a test that needs it fails in CI
// without it and skips elsewhere, saying what to install.
func sysbenchBinary(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("sysbench")
	if err != nil {
		if sandboxtest.InCI() {
			t.Fatalf("CI=true and Debian's sysbench is needed: %v", err)
		}
		t.Skip("skipping: sysbench is not installed (sudo apt-get install -y sysbench)")
	}
	return bin
}

// --config-file as sysbench 1.0.20 reads it, both tools in a dry run (no
// server): its general and database options take effect where the option
// stands (after it on the command line wins, before it loses), a script's
// options (tables, table-size) do not, and a line whose name has a space
// is no option.
func TestSysbenchConfigFileAsSysbench(t *testing.T) {
	bin := sysbenchBinary(t)
	cfg := filepath.Join(t.TempDir(), "sysbench.cfg")
	text := "# options\nthreads=3\ntables=3\ntable-size=7\ntime=1\nrand-type = pareto\nmysql-host=127.0.0.2\nmysql-port=1\n"
	if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	shown := func(out string) []string {
		var keep []string
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "Number of threads:") || strings.HasPrefix(l, "Creating table") || strings.HasPrefix(l, "Inserting") {
				keep = append(keep, l)
			}
		}
		slices.Sort(keep)
		return keep
	}
	for _, line := range [][]string{
		{"oltp_read_write", "--config-file=" + cfg, "--mysql-dry-run", "prepare"},
		{"oltp_read_write", "--config-file=" + cfg, "--mysql-dry-run", "run"},
		{"oltp_read_write", "--config-file=" + cfg, "--threads=5", "--mysql-dry-run", "run"},
		{"--threads=5", "--config-file=" + cfg, "oltp_read_write", "--mysql-dry-run", "run"},
	} {
		out, err := exec.Command(bin, line...).CombinedOutput()
		if err != nil {
			t.Fatalf("sysbench %v: %v\n%s", line, err, out)
		}
		r := starbench(t, nil, append([]string{"sysbench", "--out", filepath.Join(t.TempDir(), "r")}, line...)...)
		if r.code != 0 {
			t.Fatalf("starbench sysbench %v: exit %d\n%s", line, r.code, r.stderr)
		}
		if got, want := shown(r.stdout), shown(string(out)); !slices.Equal(got, want) || len(want) == 0 {
			t.Errorf("%v:\nstarbench %q\nsysbench  %q", line, got, want)
		}
		if !strings.Contains(r.stderr, "tables is a script's option: sysbench 1.0.20 does not pass it on from a config file") ||
			!strings.Contains(r.stderr, `"rand-type " is not an option`) {
			t.Errorf("%v: the config file's ignored lines are not said:\n%s", line, r.stderr)
		}
	}
	expect(t, starbench(t, nil, "sysbench", "oltp_read_write", "--config-file=/nonexistent.cfg", "run"), 2, "--config-file: open /nonexistent.cfg")
}

// --report-checkpoints and --validate as Debian's sysbench prints them: the
// same lines in the same order, numbers aside (interval lines left out,
// as their place among the reports is a race in both); the checkpoint
// reports and the final one each count the time since the previous, and
// together they are the whole run the results folder keeps.
func TestSysbenchCheckpointsAsSysbench(t *testing.T) {
	bin := sysbenchBinary(t)
	m := sandboxtest.Shared(t)
	cfg := m.Config()
	host, port, _ := strings.Cut(cfg.Addr, ":")
	dbName := "sbtest_checkpoints"
	admin := m.Config()
	admin.DBName = ""
	conn, err := db.Open(context.Background(), admin)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Exec(context.Background(), "CREATE DATABASE IF NOT EXISTS "+dbName); err != nil {
		t.Fatal(err)
	}
	args := []string{"oltp_point_select", "--mysql-host=" + host, "--mysql-port=" + port, "--mysql-user=root", "--mysql-password=" + cfg.Passwd,
		"--mysql-db=" + dbName, "--tables=1", "--table-size=100", "--threads=2", "--rand-seed=1"}
	expect(t, starbench(t, nil, append(append([]string{"sysbench"}, args...), "--if-exists=drop", "prepare")...), 0)
	runArgs := append(args, "--time=3", "--report-interval=2", "--report-checkpoints=2,1", "--validate", "run")
	c := exec.Command(bin, runArgs...)
	theirs, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("sysbench run: %v\n%s", err, theirs)
	}
	out := outDir(t)
	r := starbench(t, nil, append([]string{"sysbench", "--out", out}, runArgs...)...)
	expect(t, r, 0, "[ 1s ] Checkpoint report:", "[ 2s ] Checkpoint report:", "Report checkpoint(s) at 1, 2 seconds", "Validation checks: on.")
	shape := func(s string) []string {
		var lines []string
		for i, l := range strings.Split(s, "\n") {
			if i == 0 || strings.Contains(l, "thds:") || strings.HasPrefix(l, "results: ") {
				continue // the version line; interval lines
			}
			// Numbers aside, and so the padding that depends on their widths
			// (sysbench's %-6u): each run of blanks counts as one.
			lines = append(lines, strings.Join(strings.Fields(digits.ReplaceAllString(l, "N")), " "))
		}
		return lines
	}
	if got, want := shape(r.stdout), shape(string(theirs)); !slices.Equal(got, want) {
		t.Errorf("output differs from sysbench's, numbers aside:\nstarbench:\n%s\nsysbench:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var events int64
	for _, m := range eventsLine.FindAllStringSubmatch(r.stdout, -1) {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		events += n
	}
	sum, err := results.ReadSummary(out)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(eventsLine.FindAllString(r.stdout, -1)); n != 3 || events != sum.Events || sum.Events == 0 {
		t.Errorf("%d reports with %d events in all; the results folder has %d", n, events, sum.Events)
	}
	expect(t, starbench(t, nil, append([]string{"sysbench"}, append(args, "--report-checkpoints=1,x", "run")...)...), 2,
		`invalid value for --report-checkpoints: "x"`)
}

var (
	digits     = regexp.MustCompile(`\d+(\.\d+)?`)
	eventsLine = regexp.MustCompile(`total number of events: +(\d+)`)
)
