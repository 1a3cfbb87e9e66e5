package importer_test

import (
	"bytes"
	"database/sql"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	_ "github.com/go-sql-driver/mysql"

	"github.com/starbench/starbench/internal/importer"
	"github.com/starbench/starbench/internal/sandbox"
	"github.com/starbench/starbench/internal/testutil/gotpctest"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
	"github.com/starbench/starbench/runner/results"
)

func TestMain(m *testing.M) { sandboxtest.Main(m) }

// requireSysbench stops a test that needs Debian's sysbench when it is
// missing: a failure in CI, a skip elsewhere.
func requireSysbench(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("sysbench")
	if err != nil {
		if sandboxtest.InCI() {
			t.Fatalf("CI=true and Debian's sysbench is needed: %v", err)
		}
		t.Skip("skipping: sysbench is not installed (sudo apt-get install -y sysbench)")
	}
	return path
}

// sysbenchArgs are the connection options for the server's database.
func sysbenchArgs(m *sandbox.MariaDB) []string {
	cfg := m.Config()
	host, port, _ := strings.Cut(cfg.Addr, ":")
	return []string{"--mysql-host=" + host, "--mysql-port=" + port, "--mysql-user=root", "--mysql-password=" + cfg.Passwd, "--mysql-db=" + m.Database}
}

func runSysbench(t *testing.T, bin string, args ...string) string {
	t.Helper()
	var out bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("sysbench %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return out.String()
}

// realSysbench is two runs of Debian's sysbench 1.0.20 on a private
// MariaDB, each behind the prompt line that started it, as a report pastes
// them: oltp_point_select with 2 threads (95th percentile) and
// oltp_read_write with 3 (99th), 3 s each, an interval line a second
// (1.0.20 prints none for the last second).
type realSysbench struct {
	text       string   // the whole paste
	runs       []string // each run's output
	workloads  []string
	threads    []int
	percentile []int
}

var sysbenchOnce struct {
	sync.Once
	r   *realSysbench
	err string
}

func sysbenchOutput(t *testing.T) *realSysbench {
	t.Helper()
	bin := requireSysbench(t)
	m := sandboxtest.Shared(t)
	sysbenchOnce.Do(func() {
		conn := sysbenchArgs(m)
		common := append([]string{"--tables=1", "--table-size=100"}, conn...)
		runSysbench(t, bin, append([]string{"oltp_read_write"}, append(common, "prepare")...)...)
		r := &realSysbench{workloads: []string{"oltp_point_select", "oltp_read_write"}, threads: []int{2, 3}, percentile: []int{95, 99}}
		var paste strings.Builder
		paste.WriteString("bench@client:~$ ssh db1 uptime\n 10:01:02 up 3 days,  1 user,  load average: 0.00, 0.01, 0.05\n")
		for i, wl := range r.workloads {
			args := append([]string{wl}, common...)
			args = append(args, "--threads="+strconv.Itoa(r.threads[i]), "--time=3", "--report-interval=1",
				"--percentile="+strconv.Itoa(r.percentile[i]), "run")
			out := runSysbench(t, bin, args...)
			r.runs = append(r.runs, out)
			paste.WriteString("bench@client:~$ sysbench " + strings.Join(args, " ") + "\n")
			paste.WriteString(out)
		}
		r.text = paste.String()
		sysbenchOnce.r = r
	})
	if sysbenchOnce.r == nil {
		t.Fatal("the sysbench runs failed (see the first test that ran them)")
	}
	return sysbenchOnce.r
}

// grab returns the submatches of the first line of text matching re (a
// test's own reading of the printed figures, line by line).
func grab(t *testing.T, text, re string) []string {
	t.Helper()
	m := regexp.MustCompile(`(?m)` + re).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("the output has no line matching %s:\n%s", re, text)
	}
	return m[1:]
}

func f64(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func i64(t *testing.T, s string) int64 {
	t.Helper()
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// checkSysbenchStep checks every figure of an imported step against the
// run's printed text.
func checkSysbenchStep(t *testing.T, s importer.Step, out, workload string, threads, percentile int) {
	t.Helper()
	sum := s.Summary
	if sum.Workload.Name != workload || sum.Workload.Version != "sysbench-1.0.20" || sum.Threads != threads {
		t.Errorf("workload %+v, threads %d; want %s sysbench-1.0.20, %d", sum.Workload, sum.Threads, workload, threads)
	}
	for _, c := range []struct {
		name      string
		got, want int64
	}{
		{"read", sum.Reads, i64(t, grab(t, out, `^\s+read:\s+(\d+)$`)[0])},
		{"write", sum.Writes, i64(t, grab(t, out, `^\s+write:\s+(\d+)$`)[0])},
		{"other", sum.Others, i64(t, grab(t, out, `^\s+other:\s+(\d+)$`)[0])},
		{"total", sum.Queries, i64(t, grab(t, out, `^\s+total:\s+(\d+)$`)[0])},
		{"transactions", sum.Events, i64(t, grab(t, out, `^\s+transactions:\s+(\d+) `)[0])},
		{"ignored errors", sum.Errors, i64(t, grab(t, out, `^\s+ignored errors:\s+(\d+) `)[0])},
		{"reconnects", sum.Reconnects, i64(t, grab(t, out, `^\s+reconnects:\s+(\d+) `)[0])},
	} {
		if c.got != c.want || c.want == 0 && c.name == "transactions" {
			t.Errorf("%s: imported %d, printed %d", c.name, c.got, c.want)
		}
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"tps", sum.TPS, f64(t, grab(t, out, `^\s+transactions:\s+\d+\s+\(([0-9.]+) per sec\.\)`)[0])},
		{"qps", sum.QPS, f64(t, grab(t, out, `^\s+queries:\s+\d+\s+\(([0-9.]+) per sec\.\)`)[0])},
		{"total time", sum.Seconds, f64(t, grab(t, out, `^\s+total time:\s+([0-9.]+)s$`)[0])},
		{"min", sum.Latency.MinMS, f64(t, grab(t, out, `^\s+min:\s+([0-9.]+)$`)[0])},
		{"avg", sum.Latency.AvgMS, f64(t, grab(t, out, `^\s+avg:\s+([0-9.]+)$`)[0])},
		{"max", sum.Latency.MaxMS, f64(t, grab(t, out, `^\s+max:\s+([0-9.]+)$`)[0])},
		{"sum", sum.Latency.SumMS, f64(t, grab(t, out, `^\s+sum:\s+([0-9.]+)$`)[0])},
		{"percentile", sum.Latency.Percentiles[strconv.Itoa(percentile)], f64(t, grab(t, out, `^\s+`+strconv.Itoa(percentile)+`th percentile:\s+([0-9.]+)$`)[0])},
		{"events avg", sum.Fairness.EventsAvg, f64(t, grab(t, out, `events \(avg/stddev\):\s+([0-9.]+)/`)[0])},
		{"events stddev", sum.Fairness.EventsStddev, f64(t, grab(t, out, `events \(avg/stddev\):\s+[0-9.]+/([0-9.]+)$`)[0])},
		{"time avg", sum.Fairness.SecondsAvg, f64(t, grab(t, out, `execution time \(avg/stddev\):\s+([0-9.]+)/`)[0])},
		{"time stddev", sum.Fairness.SecondsStd, f64(t, grab(t, out, `execution time \(avg/stddev\):\s+[0-9.]+/([0-9.]+)$`)[0])},
	} {
		if c.got != c.want {
			t.Errorf("%s: imported %v, printed %v", c.name, c.got, c.want)
		}
	}
	if sum.Percentile != float64(percentile) || sum.IntervalSeconds != 1 {
		t.Errorf("percentile %v, interval %v; want %d, 1", sum.Percentile, sum.IntervalSeconds, percentile)
	}
	// Every interval line, in order.
	lines := regexp.MustCompile(`(?m)^\[ (\d+)s \] thds: (\d+) tps: ([0-9.]+) qps: ([0-9.]+) \(r/w/o: ([0-9.]+)/([0-9.]+)/([0-9.]+)\) lat \(ms,\d+%\): ([0-9.]+) err/s: ([0-9.]+) reconn/s: ([0-9.]+)$`).FindAllStringSubmatch(out, -1)
	if len(lines) < 1 || len(s.Intervals) != len(lines) {
		t.Fatalf("%d intervals imported, %d printed", len(s.Intervals), len(lines))
	}
	for i, l := range lines {
		iv := s.Intervals[i]
		lat := iv.P95
		if percentile == 99 {
			lat = iv.P99
		}
		got := []float64{iv.Time, float64(iv.Threads), iv.TPS, iv.QPS, iv.ReadsPerS, iv.WritesPerS, iv.OthersPerS, lat, iv.ErrorsPerS, iv.ReconnectsPerS}
		for j, g := range got {
			if w := f64(t, l[j+1]); g != w {
				t.Errorf("interval %d field %d: imported %v, printed %v (%s)", i+1, j+1, g, w, l[0])
			}
		}
	}
	imp := sum.Imported
	for _, fig := range []string{"threads", "seconds", "events", "tps", "queries", "qps", "reads", "writes", "others", "errors", "reconnects",
		"min_ms", "avg_ms", "max_ms", "sum_ms", results.FigurePercentile(float64(percentile)), "fairness"} {
		if !sum.Known(fig) {
			t.Errorf("%s is not among the figures given: %v", fig, imp.Given)
		}
	}
	if sum.Known("p50_ms") || sum.Known("tpmC") || imp.Format != "sysbench-1.0" || imp.Note != "" {
		t.Errorf("imported %+v", imp)
	}
}

// Debian's sysbench 1.0.20, run for real: two runs pasted into one file
// with their prompt lines are two steps, each with every figure the text
// prints (the final report, the interval lines), the workload from its
// command line and the threads from its header.
func TestImportRealSysbench(t *testing.T) {
	r := sysbenchOutput(t)
	t.Logf("the paste:\n%s", r.text)
	steps, format, err := importer.Parse(importer.Source{Name: "paste.txt", Data: []byte(r.text)}, importer.Options{Tags: map[string]string{"source": "published"}})
	if err != nil {
		t.Fatal(err)
	}
	if format != importer.FormatSysbench || len(steps) != 2 {
		t.Fatalf("format %s, %d steps; want sysbench, 2", format, len(steps))
	}
	for i, s := range steps {
		checkSysbenchStep(t, s, r.runs[i], r.workloads[i], r.threads[i], r.percentile[i])
		if s.Summary.Tags["source"] != "published" || len(s.Summary.Tags) != 1 {
			t.Errorf("tags %v", s.Summary.Tags)
		}
		if !strings.Contains(string(s.Output), strings.TrimSpace(r.runs[i])) || !strings.HasPrefix(string(s.Output), "bench@client:~$ sysbench "+r.workloads[i]) {
			t.Errorf("step %d's output is not its prompt line and run:\n%s", i+1, s.Output)
		}
	}
	if l := steps[1].Summary.Imported.Line; !strings.HasPrefix(strings.Split(r.text, "\n")[l-1], "bench@client:~$ sysbench oltp_read_write") {
		t.Errorf("the second step begins at line %d, not at its prompt line", l)
	}
}

// The ways reports paste sysbench's output, cut from the real run's:
// Windows line endings, no header (the threads from --threads), interval
// lines only (the figures are the intervals', and the folder says so),
// the final report only.
func TestImportPastedSysbenchVariants(t *testing.T) {
	r := sysbenchOutput(t)
	out := r.runs[0]
	parse := func(text string, opts importer.Options) ([]importer.Step, error) {
		steps, _, err := importer.Parse(importer.Source{Name: "paste.txt", Data: []byte(text)}, opts)
		return steps, err
	}
	t.Run("crlf", func(t *testing.T) {
		steps, err := parse(strings.ReplaceAll(out, "\n", "\r\n"), importer.Options{Workload: "oltp_point_select"})
		if err != nil || len(steps) != 1 {
			t.Fatalf("%d steps, %v", len(steps), err)
		}
		checkSysbenchStep(t, steps[0], out, "oltp_point_select", 2, 95)
	})
	report := out[strings.Index(out, "SQL statistics:"):]
	t.Run("final report only", func(t *testing.T) {
		_, err := parse(report, importer.Options{Workload: "oltp_point_select"})
		if err == nil || !strings.Contains(err.Error(), "paste.txt:1: the file does not say how many threads ran") || !strings.Contains(err.Error(), "--threads N") {
			t.Errorf("no threads: %v", err)
		}
		steps, err := parse(report, importer.Options{Workload: "oltp_point_select", Threads: 2})
		if err != nil || len(steps) != 1 {
			t.Fatalf("%d steps, %v", len(steps), err)
		}
		s := steps[0].Summary
		want := i64(t, grab(t, out, `^\s+transactions:\s+(\d+) `)[0])
		if s.Threads != 2 || s.Events != want || len(steps[0].Intervals) != 0 || s.Known("threads") {
			t.Errorf("threads %d, events %d (want %d), %d intervals, given %v", s.Threads, s.Events, want, len(steps[0].Intervals), s.Imported.Given)
		}
		if _, err := parse(report, importer.Options{Workload: "oltp_point_select", Tags: map[string]string{"threads": "2"}}); err != nil {
			t.Errorf("--tags threads=2: %v", err)
		}
	})
	t.Run("intervals only", func(t *testing.T) {
		var ivs []string
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "[ ") {
				ivs = append(ivs, l)
			}
		}
		steps, err := parse(strings.Join(ivs, "\n")+"\n", importer.Options{Workload: "oltp_point_select"})
		if err != nil || len(steps) != 1 {
			t.Fatalf("%d steps, %v", len(steps), err)
		}
		s := steps[0].Summary
		var tps, qps float64
		for _, l := range ivs {
			tps += f64(t, grab(t, l, `tps: ([0-9.]+)`)[0])
			qps += f64(t, grab(t, l, `qps: ([0-9.]+)`)[0])
		}
		n := float64(len(ivs)) // one-second intervals: the mean over time is the plain mean
		if s.Threads != 2 || !near(s.TPS, tps/n) || !near(s.QPS, qps/n) || s.Seconds != n || len(steps[0].Intervals) != len(ivs) {
			t.Errorf("threads %d, tps %v (want %v), qps %v (want %v), seconds %v, %d intervals", s.Threads, s.TPS, tps/n, s.QPS, qps/n, s.Seconds, len(steps[0].Intervals))
		}
		if s.Known("p95_ms") || s.Known("avg_ms") || !s.Known("tps") || !strings.Contains(s.Imported.Note, "no final report: tps, qps and the rates are the means") {
			t.Errorf("imported %+v", s.Imported)
		}
	})
	t.Run("truncated", func(t *testing.T) {
		cut := out[:strings.Index(out, "max:")]
		_, err := parse(cut, importer.Options{Workload: "oltp_point_select"})
		want := `is truncated: it lacks "max:", "percentile:", "sum:" in "Latency (ms):"`
		if err == nil || !strings.Contains(err.Error(), want) || !regexp.MustCompile(`^paste.txt:\d+: sysbench's final report \(lines \d+-\d+\)`).MatchString(err.Error()) {
			t.Errorf("truncated report: %v", err)
		}
	})
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// go-tpc v1.0.7, run for real on one warehouse: its [Summary] lines are
// the step's kinds, figure by figure, its tpmC line the metrics, its
// [Current] lines the intervals, and the threads come from its command
// line.
func TestImportRealGoTPC(t *testing.T) {
	bin := gotpctest.Binary(t)
	m := sandboxtest.Shared(t)
	admin, err := sql.Open("mysql", m.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.Exec("CREATE DATABASE IF NOT EXISTS gotpc_import"); err != nil {
		t.Fatal(err)
	}
	gotpctest.Run(t, bin, m, "gotpc_import", "prepare", "--warehouses", "1", "-T", "2", "--no-check")
	args := []string{"--warehouses", "1", "-T", "2", "--time", "3s", "--interval", "1s"}
	out := gotpctest.Run(t, bin, m, "gotpc_import", "run", args...)
	paste := "$ go-tpc tpcc run " + strings.Join(args, " ") + "\n" + out
	t.Logf("go-tpc:\n%s", paste)
	steps, format, err := importer.Parse(importer.Source{Name: "gotpc.log", Data: []byte(paste)}, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if format != importer.FormatGoTPC || len(steps) != 1 {
		t.Fatalf("format %s, %d steps", format, len(steps))
	}
	s := steps[0].Summary
	if s.Workload.Name != "tpcc" || s.Threads != 2 || s.Imported.Format != "go-tpc" || s.Options["warehouses"] != 1 {
		t.Errorf("workload %s, threads %d, options %v, %+v", s.Workload.Name, s.Threads, s.Options, s.Imported)
	}
	// go-tpc v1.0.7 prints a KIND_ERR line with the same figures as the
	// kind's own (starbench's TPC-C output: Takes, Count and TPM only).
	errLines := map[string]int64{}
	for _, l := range regexp.MustCompile(`(?m)^\[Summary\] ([A-Z_]+)_ERR\s+- Takes\(s\): [0-9.]+, Count: (\d+),`).FindAllStringSubmatch(out, -1) {
		errLines[strings.ToLower(l[1])] = i64(t, l[2])
	}
	for _, k := range s.Kinds {
		if k.Errors != errLines[k.Name] {
			t.Errorf("%s: %d errors imported, %d printed", k.Name, k.Errors, errLines[k.Name])
		}
	}
	var summary [][]string
	for _, l := range regexp.MustCompile(`(?m)^\[Summary\] (\w+)\s+- Takes\(s\): ([0-9.]+), Count: (\d+), TPM: ([0-9.]+), Sum\(ms\): ([0-9.]+), Avg\(ms\): ([0-9.]+), 50th\(ms\): ([0-9.]+), 90th\(ms\): ([0-9.]+), 95th\(ms\): ([0-9.]+), 99th\(ms\): ([0-9.]+), 99.9th\(ms\): ([0-9.]+), Max\(ms\): ([0-9.]+)$`).FindAllStringSubmatch(out, -1) {
		if !strings.HasSuffix(l[1], "_ERR") {
			summary = append(summary, l)
		}
	}
	if len(summary) < 3 || len(s.Kinds) != len(summary) {
		t.Fatalf("%d kinds imported, %d [Summary] lines printed", len(s.Kinds), len(summary))
	}
	var events int64
	var sum, maxMS, takes float64
	for _, l := range summary {
		var k *results.KindSummary
		for i := range s.Kinds {
			if strings.EqualFold(s.Kinds[i].Name, l[1]) {
				k = &s.Kinds[i]
			}
		}
		if k == nil {
			t.Errorf("no kind %s among %+v", l[1], s.Kinds)
			continue
		}
		p := k.Latency.Percentiles
		got := []float64{float64(k.Events), k.PerMinute, k.Latency.SumMS, k.Latency.AvgMS, p["50"], p["90"], p["95"], p["99"], p["99.9"], k.Latency.MaxMS}
		for j, g := range got {
			if w := f64(t, l[j+3]); g != w {
				t.Errorf("%s field %d: imported %v, printed %v", l[1], j+3, g, w)
			}
		}
		events += int64(f64(t, l[3]))
		sum += f64(t, l[5])
		maxMS = max(maxMS, f64(t, l[12]))
		takes = max(takes, f64(t, l[2]))
	}
	if s.Kinds[0].Name != "new_order" {
		t.Errorf("kinds not in TPC-C's order: %+v", s.Kinds)
	}
	tpmc := grab(t, out, `^tpmC: ([0-9.]+), efficiency: ([0-9.]+)%$`)
	if s.Metrics["tpmC"] != f64(t, tpmc[0]) || s.Metrics["efficiency"] != f64(t, tpmc[1]) {
		t.Errorf("metrics %v, printed %v", s.Metrics, tpmc)
	}
	if s.Events != events || s.Seconds != takes || !near(s.Latency.SumMS, sum) || s.Latency.MaxMS != maxMS || !near(s.TPS, float64(events)/takes) {
		t.Errorf("events %d (%d), seconds %v (%v), sum %v (%v), max %v (%v), tps %v", s.Events, events, s.Seconds, takes, s.Latency.SumMS, sum, s.Latency.MaxMS, maxMS, s.TPS)
	}
	if !s.Known("tpmC") || !s.Known("kinds") || s.Known("p95_ms") || s.Known("min_ms") || !s.Known("tps") {
		t.Errorf("imported %+v", s.Imported)
	}
	// The intervals: a [Current] block each, its events the block's counts.
	blocks := 0
	var firstBlock int64
	seen := map[string]bool{}
	for _, l := range regexp.MustCompile(`(?m)^\[Current\] (\w+)\s+- Takes\(s\): [0-9.]+, Count: (\d+),`).FindAllStringSubmatch(out, -1) {
		if seen[l[1]] || blocks == 0 {
			blocks++
			seen = map[string]bool{}
		}
		seen[l[1]] = true
		if blocks == 1 && !strings.HasSuffix(l[1], "_ERR") {
			firstBlock += i64(t, l[2])
		}
	}
	if blocks < 2 || len(steps[0].Intervals) != blocks || steps[0].Intervals[0].Events != firstBlock {
		t.Errorf("%d intervals imported (first %d events), %d [Current] blocks printed (first %d)", len(steps[0].Intervals), steps[0].Intervals[0].Events, blocks, firstBlock)
	}
	// Without its command line go-tpc's output does not say its threads.
	_, _, err = importer.Parse(importer.Source{Name: "gotpc.log", Data: []byte(out)}, importer.Options{})
	if err == nil || !strings.Contains(err.Error(), "go-tpc does not print it") {
		t.Errorf("no command line: %v", err)
	}
	if steps, _, err := importer.Parse(importer.Source{Name: "gotpc.log", Data: []byte(out)}, importer.Options{Threads: 2}); err != nil || steps[0].Summary.Threads != 2 {
		t.Errorf("--threads 2: %v", err)
	}
}

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
