package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/runner/results"
)

// loggedSessions are the statements each session but admin's sent while
// fn ran, from the server's general log: one text per session (its
// statements in order), sorted.
func loggedSessions(t *testing.T, admin *db.Conn, fn func()) []string {
	t.Helper()
	ctx := context.Background()
	for _, q := range []string{"SET GLOBAL general_log = 0", "SET GLOBAL log_output = 'TABLE'", "TRUNCATE mysql.general_log", "SET GLOBAL general_log = 1"} {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	fn()
	if _, err := admin.Exec(ctx, "SET GLOBAL general_log = 0"); err != nil {
		t.Fatal(err)
	}
	rs, err := admin.Query(ctx, "SELECT thread_id, CONVERT(argument USING utf8mb4) FROM mysql.general_log WHERE command_type IN ('Query', 'Execute') AND thread_id <> CONNECTION_ID() ORDER BY event_time")
	if err != nil {
		t.Fatal(err)
	}
	bySession := map[string][]string{}
	for _, row := range rs.Rows {
		id := fmt.Sprint(row[0])
		bySession[id] = append(bySession[id], fmt.Sprint(row[1]))
	}
	var out []string
	for _, stmts := range bySession {
		out = append(out, strings.Join(stmts, "\n"))
	}
	slices.Sort(out)
	return out
}

// Three segments of one load, run at once by three processes, issue the
// same statements when run again with the same seed; `starbench merge`
// makes one result of them whose counts are the segments' sums and whose
// percentiles are those of every segment's latencies in one histogram.
func TestSegmentsThenMerge(t *testing.T) {
	m, admin := serverWith(t)
	conn := []string{"--mysql-host=127.0.0.1", "--mysql-port=" + strconv.Itoa(m.Port), "--mysql-user=root",
		"--mysql-password=" + m.Password(), "--mysql-db=" + m.Database}
	expect(t, starbench(t, nil, append([]string{"sysbench", "oltp_read_only", "--table-size=300"}, append(conn, "prepare")...)...), 0)
	segments := func(round string) []string {
		dirs := make([]string, 3)
		var wg sync.WaitGroup
		for i := range dirs {
			dirs[i] = filepath.Join(t.TempDir(), fmt.Sprintf("%s-seg%d", round, i+1))
			args := append([]string{"sysbench", "oltp_read_only", "--table-size=300", "--threads=3", "--events=60", "--rand-seed=42",
				"--report-interval=1", fmt.Sprintf("--segment=%d/3", i+1)}, conn...)
			wg.Add(1)
			go func() {
				defer wg.Done()
				expect(t, starbench(t, nil, append(args, "run", "--out", dirs[i])...), 0, "segment "+strconv.Itoa(i+1)+"/3 of 3 threads")
			}()
		}
		wg.Wait()
		return dirs
	}
	var first, second []string
	firstRun := loggedSessions(t, admin, func() { first = segments("a") })
	secondRun := loggedSessions(t, admin, func() { second = segments("b") })
	if !slices.Equal(firstRun, secondRun) {
		t.Errorf("the segments run twice with one seed issued different statements:\n%d sessions, %d sessions", len(firstRun), len(secondRun))
	}
	// Each segment's thread is its own thread of the whole load: three
	// sessions with 20 transactions each, no two alike.
	var load []string
	for _, s := range firstRun {
		if strings.Count(s, "BEGIN") == 20 {
			load = append(load, s)
		}
	}
	if len(load) != 3 || load[0] == load[1] || load[1] == load[2] || load[0] == load[2] {
		t.Errorf("%d sessions of 20 transactions (want 3, each different) among %d", len(load), len(firstRun))
	}
	for i, d := range first {
		s, err := results.ReadSummary(d)
		if err != nil || s.Events != 20 || s.Threads != 1 || s.Segment != fmt.Sprintf("%d/3", i+1) {
			t.Errorf("segment %d: %+v %v", i+1, s, err)
		}
	}

	out := filepath.Join(t.TempDir(), "merged")
	expect(t, starbench(t, nil, append([]string{"merge", "-o", out}, first...)...), 0, "merged 3 parts: 3 threads, 60 events")
	merged, err := results.ReadSummary(out)
	if err != nil {
		t.Fatal(err)
	}
	one := hdr.New(1, int64(time.Hour/time.Microsecond), 3)
	var queries int64
	for k, d := range first {
		s, _ := results.ReadSummary(d)
		queries += s.Queries
		f, err := os.Open(filepath.Join(d, results.LatencyFile))
		if err != nil {
			t.Fatal(err)
		}
		r := hdr.NewHistogramLogReader(f)
		for h, err := r.NextIntervalHistogram(); h != nil && err == nil; h, err = r.NextIntervalHistogram() {
			one.Merge(h)
		}
		f.Close()
		if _, err := os.Stat(filepath.Join(out, merged.Parts[k].Dir, results.SummaryFile)); err != nil {
			t.Errorf("the merged folder lacks part %d: %v", k+1, err)
		}
	}
	if merged.Events != 60 || merged.Queries != queries || merged.Threads != 3 || merged.Seed != 42 || merged.Segment != "3 of 3" {
		t.Errorf("merged: events %d queries %d (parts %d) threads %d seed %d segment %q", merged.Events, merged.Queries, queries, merged.Threads, merged.Seed, merged.Segment)
	}
	for _, p := range results.SummaryPercentiles {
		want := min(max(float64(one.ValueAtPercentile(p))/1000, merged.Latency.MinMS), merged.Latency.MaxMS)
		if got := merged.Latency.Percentiles[results.PercentileKey(p)]; got != want {
			t.Errorf("merged p%v %v, one histogram of the segments' latencies %v", p, got, want)
		}
	}
	expect(t, starbench(t, nil, "report", out, "--parts"), 0, "1 a-seg1", "3 a-seg3")

	// Bad input: exit 2 with one line saying what is wrong.
	run := append([]string{"sysbench", "oltp_read_only", "--table-size=300", "--threads=3", "--time=1"}, conn...)
	expect(t, starbench(t, nil, append(run, "--rand-seed=1", "--segment=3/2", "run")...), 2, "i must be between 1 and 2")
	expect(t, starbench(t, nil, append(run, "--rand-seed=1", "--segment=0/4", "run")...), 2, "i must be between 1 and 4")
	expect(t, starbench(t, nil, append(run, "--rand-seed=1", "--segment=4/4", "run")...), 2, "leaves this segment without a thread")
	expect(t, starbench(t, nil, append(run, "--segment=1/3", "run")...), 2, "needs --rand-seed=N")
	expect(t, starbench(t, nil, "tpcc", "--segment", "0/4", "--seed", "1", "--time", "1s", "run"), 2, "i must be between 1 and 4")
	expect(t, starbench(t, nil, "merge", "-o", filepath.Join(t.TempDir(), "x"), first[0], second[0]), 2, "are both segment 1/3")
	// Two workloads run at once merge only with --force; loads run one
	// after the other do not merge at all.
	point, readOnly := filepath.Join(t.TempDir(), "point"), filepath.Join(t.TempDir(), "ro")
	var wg sync.WaitGroup
	for _, w := range [][2]string{{"oltp_point_select", point}, {"oltp_read_only", readOnly}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			expect(t, starbench(t, nil, append([]string{"sysbench", w[0], "--table-size=300", "--threads=1", "--time=2", "--report-interval=1", "run", "--out", w[1]}, conn...)...), 0)
		}()
	}
	wg.Wait()
	expect(t, starbench(t, nil, "merge", "-o", filepath.Join(t.TempDir(), "y"), readOnly, point), 2, "merging different workloads", "--force")
	expect(t, starbench(t, nil, "merge", "--force", "-o", filepath.Join(t.TempDir(), "z"), readOnly, point), 0, "merged 2 parts")
	later := filepath.Join(t.TempDir(), "later")
	expect(t, starbench(t, nil, append([]string{"sysbench", "oltp_point_select", "--table-size=300", "--threads=1", "--time=2", "--report-interval=1", "run", "--out", later}, conn...)...), 0)
	expect(t, starbench(t, nil, "merge", "--force", "-o", filepath.Join(t.TempDir(), "w"), readOnly, later), 2,
		"the parts did not run at the same time", "start the segments together (--start-barrier or --start-at)")
	expect(t, starbench(t, nil, "merge", "-o", out, first[0]), 2, "exists and is not empty")
	if strings.Contains(fmt.Sprint(first), m.Password()) {
		t.Error("a password in a folder name")
	}
}

// A resumed run replays a completed together step (its merged result and
// parts) instead of running its loads again.
func TestResumeReplaysATogetherStep(t *testing.T) {
	m, admin := serverWith(t)
	plan := filepath.Join(t.TempDir(), "plan.star")
	os.WriteFile(plan, []byte(`
def main(p):
    conn = db.connect()
    sysbench.prepare(conn, table_size = 200, if_exists = "drop")
    r = bench.together([sysbench.part(conn, "oltp_point_select", threads = 1, table_size = 200) for i in range(2)], time = "1s")
    print("together events %d in %s, parts %s" % (r.events, r.dir, [p.dir for p in r.parts]))
    print("needed has %d rows" % len(conn.query("SELECT * FROM needed")))
`), 0o644)
	out := outDir(t)
	first := starbench(t, nil, "run", plan, "--out", out, "--target", m.DSN())
	expect(t, first, 1, "needed' doesn't exist")
	line := func(r cliResult) string {
		for _, l := range strings.Split(r.stdout, "\n") {
			if strings.HasPrefix(l, "together events ") {
				return l
			}
		}
		return ""
	}
	if line(first) == "" || !strings.Contains(line(first), "parts/2-oltp_point_select-t1") {
		t.Fatalf("first run's line: %q", line(first))
	}
	selects := globalStatus(t, m, "Com_stmt_execute")
	if _, err := admin.Exec(context.Background(), "CREATE TABLE "+m.Database+".needed (id INT)"); err != nil {
		t.Fatal(err)
	}
	second := starbench(t, nil, "run", "--resume", out, "--target", m.DSN())
	expect(t, second, 0, "needed has 0 rows", "(completed)")
	if line(second) != line(first) {
		t.Errorf("the resumed run's together result %q, the first run's %q", line(second), line(first))
	}
	if got := globalStatus(t, m, "Com_stmt_execute"); got-selects > 10 {
		t.Errorf("the together step ran again on resume: %d statements executed", got-selects)
	}
}
