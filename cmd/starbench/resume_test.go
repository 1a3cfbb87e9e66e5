package main

import (
	"bufio"
	"context"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/internal/sandbox"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
	"github.com/starbench/starbench/runner/results"
)

// startUntil starts a run and waits for a line of its output.
func startUntil(t *testing.T, line string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = "../.."
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if strings.Contains(sc.Text(), line) {
			go func() {
				for sc.Scan() {
				}
			}()
			return cmd
		}
	}
	cmd.Wait()
	t.Fatalf("the run ended before printing %q", line)
	return nil
}

func globalStatus(t *testing.T, m *sandbox.MariaDB, name string) int64 {
	t.Helper()
	c, err := db.Open(context.Background(), m.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	vars, err := c.Query(context.Background(), "SHOW GLOBAL STATUS LIKE '"+name+"'")
	if err != nil || len(vars.Rows) != 1 {
		t.Fatalf("status %s: %v", name, err)
	}
	n, _ := vars.Rows[0][1].(int64)
	if s, ok := vars.Rows[0][1].(string); ok {
		n = atoi64(s)
	}
	return n
}

func atoi64(s string) int64 {
	var n int64
	for _, c := range s {
		n = n*10 + int64(c-'0')
	}
	return n
}

func readManifest(t *testing.T, dir string) results.Manifest {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, results.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	var m results.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// benchmarkSteps lists the benchmark step folders with their summary status.
func benchmarkSteps(t *testing.T, dir string) map[string]string {
	out := map[string]string{}
	paths, _ := filepath.Glob(filepath.Join(dir, "steps", "*", "summary.json"))
	for _, p := range paths {
		var s struct{ Status string }
		data, _ := os.ReadFile(p)
		json.Unmarshal(data, &s)
		out[filepath.Base(filepath.Dir(p))] = s.Status
	}
	return out
}

func testResumeAfterStop(t *testing.T, sig syscall.Signal, wantExit int) {
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{})
	out := outDir(t)
	cmd := startUntil(t, "benchmark 2 starting", "run", "testdata/plans/resume.star", "--out", out, "--target", m.DSN())
	time.Sleep(1500 * time.Millisecond) // well inside the second benchmark
	cmd.Process.Signal(sig)
	err := cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	if code != wantExit {
		t.Fatalf("stopped run exit %d (%v), want %d", code, err, wantExit)
	}
	if _, err := results.ReadJournal(filepath.Join(out, results.JournalFile)); err != nil {
		t.Fatalf("journal after %v: %v", sig, err)
	}
	before := benchmarkSteps(t, out)
	if before["4-oltp_point_select-t2"] != "completed" || before["6-oltp_point_select-t2"] != "" {
		t.Fatalf("steps before resume: %v", before)
	}
	if sig == syscall.SIGINT && before["5-oltp_read_only-t2"] != "interrupted" {
		t.Errorf("the interrupted step's partial summary: %v", before)
	}
	inserts := globalStatus(t, m, "Com_insert")

	r := starbench(t, nil, "run", "--resume", out, "--target", m.DSN())
	expect(t, r, 0, "resuming "+out, "benchmark 2 starting", "all benchmarks done", "(completed)")
	if strings.Contains(r.stdout, "Creating table") {
		t.Errorf("resume ran prepare again:\n%s", r.stdout)
	}
	if got := globalStatus(t, m, "Com_insert"); got != inserts {
		t.Errorf("prepare's INSERTs were issued again: Com_insert %d -> %d", inserts, got)
	}
	after := benchmarkSteps(t, out)
	for _, step := range []string{"4-oltp_point_select-t2", "5-oltp_read_only-t2", "6-oltp_point_select-t2"} {
		if after[step] != "completed" {
			t.Errorf("step %s: %q after resume (all: %v)", step, after[step], after)
		}
	}
	man := readManifest(t, out)
	if man.Status != results.StatusCompleted || len(man.Resumes) != 1 || man.Resumes[0].FromStep != "5" || man.Resumes[0].Replayed != 4 {
		t.Errorf("manifest: status %s resumes %+v", man.Status, man.Resumes)
	}
	recs, _ := results.ReadJournal(filepath.Join(out, results.JournalFile))
	replayed := 0
	for _, rec := range recs {
		if rec.Event == "replayed" {
			replayed++
		}
	}
	if replayed != 4 {
		t.Errorf("journal has %d replayed records, want 4 (connect, prepare, analyze, first benchmark)", replayed)
	}
	if _, err := os.Stat(filepath.Join(out, "report.html")); err != nil {
		t.Errorf("no report after resume: %v", err)
	}
}

func TestResumeAfterSIGKILL(t *testing.T) { testResumeAfterStop(t, syscall.SIGKILL, -1) }
func TestResumeAfterSIGINT(t *testing.T)  { testResumeAfterStop(t, syscall.SIGINT, 130) }

func TestResumeAfterAFailedStepAndDivergence(t *testing.T) {
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{})
	out := outDir(t)
	expect(t, starbench(t, nil, "run", "testdata/plans/resume_fail.star", "--out", out, "--target", m.DSN()), 1, "Table 'sbtest.needed' doesn't exist")
	inserts := globalStatus(t, m, "Com_insert")

	// Another -p, or an edit of a completed step, is refused; so is a
	// resume without the run's target (it would connect to the embedded
	// server) or with another one. None of them changes the folder.
	before := folderFiles(t, out)
	expect(t, starbench(t, nil, "run", "--resume", out, "--target", m.DSN(), "-p", "rows=4"), 2, `was run with -p`)
	edited := filepath.Join(t.TempDir(), "edited.star")
	src, _ := os.ReadFile("../../testdata/plans/resume_fail.star")
	os.WriteFile(edited, []byte(strings.Replace(string(src), "resume_rows (id INT PRIMARY KEY)", "resume_rows (id BIGINT PRIMARY KEY)", 1)), 0o644)
	expect(t, starbench(t, nil, "run", "--resume", out, "--plan", edited, "--target", m.DSN()), 2,
		"the plan diverges from the journal at step 2", `db.exec "CREATE TABLE IF NOT EXISTS resume_rows (id INT PRIMARY KEY)"`,
		"resume: "+out+" is unchanged")
	shown := strings.Replace(db.Redacted(m.Config()), ":***@", ":PASSWORD@", 1)
	expect(t, starbench(t, nil, "run", "--resume", out), 2, `resume: `+out+` used target "default" (dsn, `,
		"give it again with --target '"+shown+"'", "Passwords are not recorded", "MYSQL_PWD")
	other := m.Config()
	other.Params = map[string]string{"sql_mode": "'ANSI'"}
	expect(t, starbench(t, nil, "run", "--resume", out, "--target", other.FormatDSN()), 2,
		"the plan diverges from the journal at step 1", "give the run's target again with --target")
	if after := folderFiles(t, out); !maps.Equal(before, after) {
		for k := range after {
			if before[k] != after[k] {
				t.Errorf("a refused resume changed %s", k)
			}
		}
	}
	// rerun refuses too, before it makes a folder.
	again := filepath.Join(t.TempDir(), "again")
	expect(t, starbench(t, nil, "rerun", out, "--out", again), 2, `rerun: `+out+` used target "default"`, "give it again with --target")
	if _, err := os.Stat(again); !os.IsNotExist(err) {
		t.Errorf("a refused rerun left %s: %v", again, err)
	}

	// Fixed: the failed step runs, the completed ones are not redone.
	c, err := db.Open(context.Background(), m.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Exec(context.Background(), "CREATE TABLE needed (id INT)")
	expect(t, starbench(t, nil, "run", "--resume", out, "--target", m.DSN()), 0, "needed has 0 rows", "(completed)")
	if got := globalStatus(t, m, "Com_insert"); got != inserts {
		t.Errorf("completed INSERT steps ran again: Com_insert %d -> %d", inserts, got)
	}

	// An edit after the last completed step is accepted with --plan, and
	// recorded in the manifest.
	c.Exec(context.Background(), "DROP TABLE needed")
	c.Exec(context.Background(), "DROP TABLE resume_rows")
	out2 := outDir(t)
	expect(t, starbench(t, nil, "run", "testdata/plans/resume_fail.star", "--out", out2, "--target", m.DSN(), "-p", "rows=2"), 1, "needed")
	fixed := filepath.Join(t.TempDir(), "fixed.star")
	os.WriteFile(fixed, []byte(strings.Replace(string(src), "FROM needed", "FROM resume_rows", 1)), 0o644)
	expect(t, starbench(t, nil, "run", "--resume", out2, "--plan", fixed, "--target", m.DSN()), 0, "needed has 2 rows", "(completed)")
	man := readManifest(t, out2)
	if len(man.Resumes) != 1 || man.Resumes[0].EditedPlan != fixed || man.Resumes[0].PlanCopy == "" || man.Resumes[0].FromStep != "4" {
		t.Errorf("manifest resumes: %+v", man.Resumes)
	}
	if _, err := os.Stat(filepath.Join(out2, man.Resumes[0].PlanCopy)); err != nil {
		t.Errorf("copy of the edited plan: %v", err)
	}
}

// A completed folder is never changed by resume: it says so and exits 0.
// A run on the embedded server that stopped cannot be resumed.
func TestResumeRefusesEmbeddedRuns(t *testing.T) {
	done := outDir(t)
	expect(t, starbench(t, nil, "run", "plans/quickstart.star", "--out", done, "-p", "threads=1", "-p", "time=1s"), 0)
	before := folderFiles(t, done)
	expect(t, starbench(t, nil, "run", "--resume", done), 0, done+" is complete (", "nothing in it was changed", "'starbench rerun "+done+"'")
	expect(t, starbench(t, nil, "run", "--resume", done, "--target", "embedded"), 0, "is complete")
	if after := folderFiles(t, done); !maps.Equal(before, after) {
		t.Errorf("resume changed a completed folder")
	}
	out := outDir(t)
	expect(t, starbench(t, nil, "run", "testdata/plans/resume_fail.star", "--out", out), 1, "needed")
	expect(t, starbench(t, nil, "run", "--resume", out), 2, "cannot be resumed", "default (embedded)", "starbench rerun "+out)
	expect(t, starbench(t, nil, "run", "--resume", t.TempDir()), 2, "not a starbench results folder", "has no manifest.json")
	expect(t, starbench(t, nil, "run", "--resume", out, "plans/quickstart.star"), 2, "give an edited plan with --plan")
}

// rerun repeats the plan, params and seed into a new folder; the server
// receives the same statements, byte for byte.
func TestRerunRepeatsStatementsExactly(t *testing.T) {
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{ExtraArgs: []string{"--general-log=0", "--log-output=TABLE"}})
	admin, err := db.Open(context.Background(), m.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	capture := func(args ...string) []string {
		ctx := context.Background()
		for _, q := range []string{"SET GLOBAL general_log = 0", "TRUNCATE mysql.general_log", "SET GLOBAL general_log = 1"} {
			if _, err := admin.Exec(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		expect(t, starbench(t, nil, args...), 0, "(completed)")
		admin.Exec(ctx, "SET GLOBAL general_log = 0")
		rs, err := admin.Query(ctx, "SELECT command_type, CONVERT(argument USING utf8mb4) FROM mysql.general_log WHERE thread_id <> CONNECTION_ID() AND command_type IN ('Query', 'Execute', 'Prepare')")
		if err != nil {
			t.Fatal(err)
		}
		var stmts []string
		for _, row := range rs.Rows {
			stmts = append(stmts, row[0].(string)+" "+row[1].(string))
		}
		return stmts
	}
	first, second := outDir(t), outDir(t)
	a := capture("run", "testdata/plans/resume.star", "--out", first, "--target", m.DSN(), "-p", "table_size=300", "-p", "threads=1", "-p", "events=40", "-p", "time=60s")
	b := capture("rerun", first, "--out", second, "--target", m.DSN())
	if len(a) < 100 {
		t.Fatalf("only %d statements captured", len(a))
	}
	if len(a) != len(b) {
		t.Errorf("the first run sent %d statements, the rerun %d", len(a), len(b))
	}
	for i := 0; i < min(len(a), len(b)); i++ {
		if a[i] != b[i] {
			t.Fatalf("statement %d differs:\n first: %.200s\nrerun: %.200s", i, a[i], b[i])
		}
	}
	ma, mb := readManifest(t, first), readManifest(t, second)
	if mb.RerunOf == nil || mb.RerunOf.Dir != first || mb.Seed != ma.Seed || len(ma.Sources) != len(mb.Sources) {
		t.Fatalf("rerun manifest: %+v", mb.RerunOf)
	}
	for i := range ma.Sources {
		if ma.Sources[i].SHA256 != mb.Sources[i].SHA256 {
			t.Errorf("source %s differs", ma.Sources[i].Name)
		}
	}
	if strings.Join(ma.Overrides, ",") != strings.Join(mb.Overrides, ",") {
		t.Errorf("params differ: %v vs %v", ma.Overrides, mb.Overrides)
	}
	expect(t, starbench(t, nil, "compare", first, second), 0, "oltp_read_only")
}

// A server that never comes back: the CLI run ends after the bounded
// retry and leaves a summary marked failed, with what it measured.
func TestSysbenchRunWhenTheServerDies(t *testing.T) {
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{})
	host, port, _ := strings.Cut(m.Config().Addr, ":")
	conn := []string{"--mysql-host=" + host, "--mysql-port=" + port, "--mysql-user=root", "--mysql-password=" + m.Password()}
	expect(t, starbench(t, nil, append(append([]string{"sysbench"}, conn...), "oltp_point_select", "--table-size=1000", "prepare")...), 0)
	out := outDir(t)
	cmd := startUntil(t, "Threads started!", append(append([]string{"sysbench"}, conn...), "oltp_point_select", "--table-size=1000",
		"--threads=4", "--time=60", "--reconnect-timeout=2", "--out", out, "run")...)
	time.Sleep(time.Second)
	m.Kill()
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v", err)
	}
	var sum struct {
		Status, Error string
		Events        int64
		ErrorsByCode  map[string]int64 `json:"errors_by_code"`
	}
	data, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Status != "failed" || !strings.Contains(sum.Error, "could not reconnect within 2s") || sum.Events == 0 || sum.ErrorsByCode["2013"] == 0 {
		t.Errorf("summary: %+v", sum)
	}
}

// folderFiles maps each file of a results folder to its content.
func folderFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		files[path] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// A resume runs again the completed steps that set or read server state
// instead of replaying them: a global set behind the plan's back (or lost
// in a restart) is set again, a variable read is read anew, and a value
// that differs from the run's record is said. The resumed benchmark is
// tagged with what the server has now.
func TestResumeReappliesServerState(t *testing.T) {
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{})
	out := outDir(t)
	cmd := startUntil(t, "benchmark starting", "run", "testdata/plans/resume_state.star", "--out", out, "--target", m.DSN())
	time.Sleep(1500 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	if man := readManifest(t, out); man.Status != results.StatusInterrupted {
		t.Fatalf("status %s, want interrupted", man.Status)
	}
	c, err := db.Open(context.Background(), m.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	global := func(name string) string {
		vars, err := c.Variables(context.Background(), name)
		if err != nil {
			t.Fatal(err)
		}
		return vars[name]
	}
	packet := global("max_allowed_packet")
	for _, sql := range []string{"SET GLOBAL max_connections = 151", "SET GLOBAL max_allowed_packet = 33554432"} {
		if _, err := c.Exec(context.Background(), sql); err != nil {
			t.Fatal(err)
		}
	}

	r := starbench(t, nil, "run", "--resume", out, "--target", m.DSN())
	expect(t, r, 0, "max_connections is 321, max_allowed_packet is 33554432", "benchmark done", "(completed)",
		"ran again and found the server's state changed since the run recorded it: max_allowed_packet recorded \""+packet+"\", now \"33554432\"")
	if strings.Contains(r.stderr, "max_connections recorded") {
		t.Errorf("the global the plan sets again was reported changed:\n%s", r.stderr)
	}
	if got := global("max_connections"); got != "321" {
		t.Errorf("max_connections %s after resume: the plan's SET GLOBAL was replayed, not applied", got)
	}
	man := readManifest(t, out)
	if len(man.Resumes) != 1 || man.Resumes[0].RanAgain != 3 || man.Resumes[0].Replayed != 2 {
		t.Errorf("resumes %+v: want 3 state steps run again, connect and prepare replayed", man.Resumes)
	}
	paths, _ := filepath.Glob(filepath.Join(out, results.StepsDir, "*oltp_point_select*", results.SummaryFile))
	for _, p := range paths {
		sum, err := results.ReadSummary(filepath.Dir(p))
		if err == nil && sum.Status == results.StatusCompleted &&
			(sum.Tags["max_connections"] != "321" || sum.Tags["max_allowed_packet"] != "33554432") {
			t.Errorf("the resumed benchmark is tagged %v, not with what the server has", sum.Tags)
		}
		// Its summary records the globals it started with where they are
		// not the manifest's: the plan's, and the one changed behind its
		// back, read from the server.
		if err == nil && sum.Status == results.StatusCompleted {
			if sum.Settings == nil || sum.Settings.Globals["max_connections"].Now != "321" ||
				sum.Settings.Globals["max_allowed_packet"] != (results.SettingChange{Was: packet, Now: "33554432"}) {
				t.Errorf("the resumed benchmark's settings: %+v", sum.Settings)
			}
		}
	}
}

// rerun's help says what it takes of the recorded run, and lists no
// dry-run flag.
func TestRerunHelpSaysWhatItReuses(t *testing.T) {
	r := starbench(t, nil, "rerun", "--help")
	expect(t, r, 0, "the recorded run's seed is used", "the recorded run's -p values are used")
	if strings.Contains(r.stdout, "drawn at random") || strings.Contains(r.stdout, "--verbose") {
		t.Errorf("rerun --help:\n%s", r.stdout)
	}
}
