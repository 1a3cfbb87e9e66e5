package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/starbench/starbench/internal/testutil/goycsbtest"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
	"github.com/starbench/starbench/runner/results"
)

// `starbench ycsb` takes go-ycsb's own command lines: the same load and run
// lines, given to go-ycsb v1.0.3 and to starbench on one MariaDB (each into
// a database of its own), make the same table with the same records, and
// runs of the same prepared statements in the workload file's proportions
// (workloadb: 95% reads, uniform keys, as go-ycsb's file says) with the
// -p values on top (fieldcount, readallfields=false, writeallfields=true).
// A second load refuses the table that exists, naming it, until
// -p dropdata=true; the password given as a property shows nowhere in the
// results.
func TestYCSBCommandAgainstGoYCSB(t *testing.T) {
	bin := goycsbtest.Binary(t)
	srv := sandboxtest.StartLogging(t)
	srv.Exec(t, "CREATE DATABASE theirs")
	srv.Exec(t, "CREATE DATABASE ours")
	workloadB := goycsbtest.Workload(t, "workloadb")
	host, port, _ := net.SplitHostPort(srv.Config().Addr)
	dir := t.TempDir()
	const records, ops = 300, 600
	line := func(command, database string, props ...string) []string {
		args := []string{command, "mysql", "-P", workloadB, "-p", fmt.Sprintf("recordcount=%d", records),
			"-p", "fieldcount=4", "-p", "fieldlength=20",
			"-p", "mysql.host=" + host, "-p", "mysql.port=" + port, "-p", "mysql.user=root",
			"-p", "mysql.password=" + srv.Password(), "-p", "mysql.db=" + database, "--threads", "2"}
		for _, p := range props {
			args = append(args, "-p", p)
		}
		return args
	}
	goYCSB := func(args []string) {
		t.Helper()
		if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
			t.Fatalf("go-ycsb %s: %v\n%s", strings.Join(args[:2], " "), err, out)
		}
	}
	ours := func(out string, args []string) cliResult {
		t.Helper()
		return starbench(t, []string{"STARBENCH_TARGET="}, append(append([]string{"ycsb"}, args...), "--out", filepath.Join(dir, out))...)
	}

	goYCSB(line("load", "theirs"))
	r := ours("load", line("load", "ours"))
	expect(t, r, 0, "Creating table 'ours.usertable'", "requestdistribution=uniform", "mysql.password=***")
	one := func(q string) string {
		t.Helper()
		rs, err := srv.Admin.Query(context.Background(), q)
		if err != nil || len(rs.Rows) != 1 {
			t.Fatalf("%s: %v", q, err)
		}
		return fmt.Sprint(rs.Rows[0]...)
	}
	if got := one("SELECT COUNT(*), SUM(CHAR_LENGTH(o.FIELD3) = 20 AND CHAR_LENGTH(t.FIELD3) = 20) FROM ours.usertable o JOIN theirs.usertable t USING (YCSB_KEY)"); got != fmt.Sprintf("%d %d", records, records) {
		t.Errorf("records both tools loaded under the same key, with fields of fieldlength: %s, want %d and %d", got, records, records)
	}
	columns := func(schema string) string {
		return one("SELECT GROUP_CONCAT(CONCAT(COLUMN_NAME, ' ', COLUMN_TYPE, ' ', COLUMN_KEY) ORDER BY ORDINAL_POSITION) FROM information_schema.COLUMNS " +
			"WHERE TABLE_SCHEMA = '" + schema + "' AND TABLE_NAME = 'usertable'")
	}
	if o, th := columns("ours"), columns("theirs"); o != th {
		t.Errorf("the tables differ:\nstarbench %s\ngo-ycsb   %s", o, th)
	}

	expect(t, ours("again", line("load", "ours")), 1, "ycsb load: ours.usertable exists: load with -p dropdata=true")
	expect(t, ours("dropped", line("load", "ours", "dropdata=true")), 0, "Dropping table 'ours.usertable'")

	runProps := []string{fmt.Sprintf("operationcount=%d", ops), "readallfields=false", "writeallfields=true"}
	theirs := srv.Capture(t, func() { goYCSB(line("run", "theirs", runProps...)) })
	var run cliResult
	mine := srv.Capture(t, func() { run = ours("run", line("run", "ours", runProps...)) })
	expect(t, run, 0, "starbench mix ycsb_b", "results: ")

	type stream struct {
		prepared []string
		executed map[string]int
	}
	read := func(log []sandboxtest.Logged) stream {
		s := stream{executed: map[string]int{}}
		for _, l := range log {
			if !strings.Contains(l.Text, "usertable") {
				continue
			}
			switch l.Command {
			case "Prepare":
				if !slices.Contains(s.prepared, l.Text) {
					s.prepared = append(s.prepared, l.Text)
				}
			case "Execute":
				s.executed[strings.Fields(l.Text)[0]]++
			}
		}
		slices.Sort(s.prepared)
		return s
	}
	th, my := read(theirs), read(mine)
	if strings.Join(my.prepared, "\n") != strings.Join(th.prepared, "\n") {
		t.Errorf("prepared statements:\nstarbench %q\ngo-ycsb   %q", my.prepared, th.prepared)
	}
	if len(th.prepared) != 5 { // four one-field reads and the all-field update
		t.Errorf("go-ycsb prepared %d statements, want 5: %q", len(th.prepared), th.prepared)
	}
	sd := math.Sqrt(ops * 0.95 * 0.05)
	for tool, s := range map[string]stream{"starbench": my, "go-ycsb": th} {
		if s.executed["SELECT"]+s.executed["UPDATE"] != ops || math.Abs(float64(s.executed["SELECT"])-0.95*ops) > 4*sd {
			t.Errorf("%s executed %v: want %d operations, 95%% of them reads ± %.0f", tool, s.executed, ops, 4*sd)
		}
	}

	summaries, _ := filepath.Glob(filepath.Join(dir, "run", "steps", "*-ycsb_b-t2", results.SummaryFile))
	if len(summaries) != 1 {
		t.Fatalf("the run's step folders: %v, want one ycsb_b-t2", summaries)
	}
	data, err := os.ReadFile(summaries[0])
	if err != nil {
		t.Fatal(err)
	}
	var sum results.Summary
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Events != ops {
		t.Errorf("the run's summary counts %d operations, want operationcount's %d", sum.Events, ops)
	}
	filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			if b, _ := os.ReadFile(path); strings.Contains(string(b), srv.Password()) {
				t.Errorf("%s holds the password", path)
			}
		}
		return nil
	})
}

// A go-ycsb command line starbench cannot honour is one message and exit 2,
// before any server is reached.
func TestYCSBCommandRefuses(t *testing.T) {
	ycsb := func(args ...string) cliResult {
		return starbench(t, []string{"STARBENCH_TARGET="}, append([]string{"ycsb"}, args...)...)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "redis", "-p", "recordcount=10"}, `database "redis": starbench speaks the MySQL protocol`},
		{[]string{"shell", "mysql"}, `unknown command "shell"`},
		{[]string{"run", "mysql", "-p", "operationcount=10"}, "recordcount is not set"},
		{[]string{"run", "mysql", "-p", "recordcount=10"}, "operationcount=0: a run needs at least one operation per thread"},
		{[]string{"load", "mysql", "-p", "recordcount=ten"}, `property recordcount="ten": not a whole number`},
		{[]string{"load", "mysql", "-p", "recordcount=10", "-p", "requestdistribution=hotspot"}, "requestdistribution=hotspot: starbench takes uniform, zipfian or latest"},
		{[]string{"load", "mysql", "-p", "recordcount=10", "-p", "batch.size=100"}, "batch.size=100 is not taken"},
		{[]string{"load", "mysql", "-p", "recordcount=10", "--target", "500"}, "target (operations a second) paces a run here, not a load"},
		{[]string{"load", "mysql", "-p", "recordcount=10", "-p", "mysql.password"}, "-p mysql.password: want name=value"},
		{[]string{"load", "mysql", "-p", "recordcount=10", "-p", "mysql.port=3307", "--target", "sandbox:mariadb"}, "either with --target or with mysql.* properties, not both"},
		{[]string{"load", "mysql", "-P", "/nonexistent/workloadz"}, "-P: "},
	} {
		expect(t, ycsb(c.args...), 2, c.want)
	}
	r := ycsb("run", "mysql", "-p", "recordcount=10", "-p", "operationcount=20", "-p", "silence=false", "-p", "recordcuont=5", "--dry-run")
	expect(t, r, 0, "not used here: silence", "ignored as go-ycsb ignores them: recordcuont")
}
