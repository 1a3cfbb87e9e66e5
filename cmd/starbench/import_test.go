package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/starbench/starbench/internal/sandbox"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
	"github.com/starbench/starbench/runner/results"
)

// importFixtures are internal/importer's fixtures, from the repository
// root (where the tests run the binary).
const importFixtures = "internal/importer/testdata/"

// An imported CSV of published figures is a results folder like a run's:
// a manifest marked imported with the file copied and its sha256, a step
// folder per row with its summary (no latency.hlog), which report and
// compare read, showing the figures the CSV does not give as "-"; merge
// and rerun refuse it with exit 2.
func TestImportCSVIntoAResultsFolder(t *testing.T) {
	out := outDir(t)
	src := importFixtures + "published.csv"
	r := starbench(t, nil, "import", src, "--tags", "source=published", "-o", out)
	expect(t, r, 0, "results: "+out+" (imported 4 steps from 1 file)",
		"1  oltp_point_select t300 Version=v6.1.0,setup=3x3,source=published  from "+src+":4 (csv): threads qps errors avg_ms p95_ms")

	var m results.Manifest
	readJSON(t, filepath.Join(out, "manifest.json"), &m)
	data, err := os.ReadFile(filepath.Join("../..", src))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	if m.Tool.Name != "starbench" || m.Tool.Version == "" || !m.Imported || m.Status != "completed" || m.Format != results.FormatVersion ||
		len(m.Sources) != 1 || m.Sources[0].Name != src || m.Sources[0].Stored != "sources/published.csv" ||
		m.Sources[0].SHA256 != hex.EncodeToString(sum[:]) || !strings.Contains(strings.Join(m.CommandLine, " "), "import "+src) || m.Steps != 4 {
		t.Errorf("manifest %+v", m)
	}
	if copied, _ := os.ReadFile(filepath.Join(out, "sources", "published.csv")); !bytes.Equal(copied, data) {
		t.Errorf("sources/published.csv is not the file")
	}
	steps, _ := filepath.Glob(filepath.Join(out, "steps", "*"))
	var names []string
	for _, s := range steps {
		names = append(names, filepath.Base(s))
		for _, f := range []string{"latency.hlog", "intervals.csv", "output.txt"} {
			if _, err := os.Stat(filepath.Join(s, f)); err == nil {
				t.Errorf("%s has a %s", s, f)
			}
		}
	}
	if strings.Join(names, " ") != "1-oltp_point_select-t300 2-oltp_point_select-t300 3-oltp_read_write-t300 4-oltp_read_write-t300" {
		t.Errorf("step folders %v", names)
	}
	var s results.Summary
	readJSON(t, filepath.Join(out, "steps", "3-oltp_read_write-t300", "summary.json"), &s)
	if s.Status != "completed" || s.TPS != 2312.66 || s.Imported == nil || s.Imported.Source != src || s.Imported.Line != 6 || s.Known("errors") {
		t.Errorf("summary %+v", s)
	}

	r = starbench(t, nil, "report", out)
	expect(t, r, 0, "oltp_point_select", "oltp_read_write")
	// tps, qps, avg, p95, p99, min, max, errors: what the row gives, "-" for the rest.
	if !regexp.MustCompile(`(?m)^v6\.1\.0\s+3x3\s+published\s+300\s+-\s+271540\.61\s+1\.10\s+1\.55\s+-\s+-\s+-\s+0$`).MatchString(r.stdout) ||
		!regexp.MustCompile(`(?m)^v6\.5\.0\s+3x3\s+published\s+300\s+2444\.80\s+48896\.00\s+122\.71\s+155\.80\s+-\s+-\s+-\s+-$`).MatchString(r.stdout) {
		t.Errorf("report rows:\n%s", r.stdout)
	}
	expect(t, starbench(t, nil, "report", out, "--format", "markdown"), 0,
		"> imported from "+src+" (csv, 4 steps): a report's figures or a peer tool's output, not a starbench run",
		"> "+src+": source: TiDB v6.1.0 vs v6.5.0, sysbench, 3 TiDB + 3 TiKV")
	r = starbench(t, nil, "report", out, "--format", "csv")
	recs, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if err != nil || len(recs) != 5 {
		t.Fatalf("csv: %v\n%s", err, r.stdout)
	}
	col := map[string]int{}
	for i, c := range recs[0] {
		col[c] = i
	}
	if row := recs[1]; row[col["tps"]] != "" || row[col["qps"]] != "271540.61" || row[col["lat_p99_ms"]] != "" || row[col["errors"]] != "0" {
		t.Errorf("csv row %v", row)
	}

	r = starbench(t, nil, "compare", out, "--by", "Version", "--baseline", "v6.1.0")
	expect(t, r, 0, "tps by Version, baseline v6.1.0", "-: a figure an imported folder's source does not give (unknown, not compared)")
	if !regexp.MustCompile(`(?m)^oltp_read_write\s+300\s+setup=3x3,source=published\s+2312\.66\s+2444\.80\s+\+5\.71%$`).MatchString(r.stdout) ||
		!regexp.MustCompile(`(?m)^oltp_point_select\s+300\s+setup=3x3,source=published\s+-\s+-\s+-$`).MatchString(r.stdout) {
		t.Errorf("compare:\n%s", r.stdout)
	}
	// An unknown figure is not gated on.
	expect(t, starbench(t, nil, "compare", out, "--by", "Version", "--metric", "p99", "--fail-if", "p99>+1%"), 0)

	expect(t, starbench(t, nil, "merge", out, "-o", outDir(t)), 2, "starbench: merge: "+out+" was made by 'starbench import': published figures have no latency histograms to merge")
	expect(t, starbench(t, nil, "merge", filepath.Join(out, "steps", "1-oltp_point_select-t300"), "-o", outDir(t)), 2,
		"no latency histograms to merge")
	expect(t, starbench(t, nil, "rerun", out), 2, "was made by 'starbench import' from published figures or a peer tool's output: it has no plan to run again")
	expect(t, starbench(t, nil, "run", "--resume", out), 2, "has no plan to run again")
	expect(t, starbench(t, nil, "import", src, "-o", out), 2, "starbench: import: -o "+out+" exists and is not empty")
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// Bad input exits 2 with one message naming the file and the line, and
// leaves nothing: no folder, or an empty --out folder still empty.
func TestImportBadInputExits2AndWritesNothing(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sb11, err := os.ReadFile(filepath.Join("../..", importFixtures, "sysbench-1.1.txt"))
	if err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good.csv")
	os.WriteFile(good, []byte("workload,threads,tps\noltp_insert,8,100\n"), 0o644)
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"unknown format", []string{write("notes.txt", "It went well.\n")}, "notes.txt: unknown format: not sysbench, go-tpc or BenchmarkSQL output, nor a CSV"},
		{"truncated report", []string{write("sb.txt", string(sb11[:bytes.Index(sb11, []byte("         max:"))]))},
			`sb.txt:19: sysbench's final report (lines 19-37) is truncated: it lacks "max:", "percentile:", "sum:" in "Latency (ms):"`},
		{"csv without a figure", []string{write("tags.csv", "version,workload,threads\nv1,w,2\n")}, "tags.csv:1: the CSV has no figure column"},
		{"not a number", []string{good, write("bad.csv", "version,workload,threads,tps\nv1,w,2,1.5\nv2,w,2,n/a\n")}, `bad.csv:3: column tps: "n/a" is not a number`},
		{"missing file", []string{good, filepath.Join(dir, "nope.txt")}, "nope.txt: no such file"},
		{"bad format flag", []string{good, "--format", "xml"}, `--format: unknown format "xml" (want auto, sysbench, go-tpc, benchmarksql, csv)`},
		{"bad tags", []string{good, "--tags", "published"}, `--tags "published": want k=v`},
		{"no threads", []string{write("rep.txt", string(sb11[bytes.Index(sb11, []byte("SQL statistics:")):])), "--workload", "oltp_read_only"},
			"rep.txt:1: the file does not say how many threads ran"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := outDir(t)
			r := starbench(t, nil, append(append([]string{"import"}, c.args...), "-o", out)...)
			expect(t, r, 2, "starbench: import: ", c.want)
			if strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || r.stdout != "" {
				t.Errorf("want one line on stderr and nothing on stdout:\n%s\n%s", r.stdout, r.stderr)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s was made", out)
			}
			empty := t.TempDir()
			expect(t, starbench(t, nil, append(append([]string{"import"}, c.args...), "-o", empty)...), 2, c.want)
			if entries, _ := os.ReadDir(empty); len(entries) != 0 {
				t.Errorf("the empty --out folder has %d entries", len(entries))
			}
		})
	}
	expect(t, starbench(t, nil, "import"), 2, "import needs at least one file")
	r := starbench(t, nil, "import", "--help")
	expect(t, r, 0, "Examples:", "starbench import published.csv --tags source=published -o results/published", "--by source --baseline published")
}

// A rerun beside what was published: Debian's sysbench runs on a private
// MariaDB and its output, pasted with its prompt line, is imported as the
// published figures; starbench runs the same workload with the tag
// source=rerun; compare --by source sets the two side by side and report
// shows both.
func TestImportBesideARealRun(t *testing.T) {
	bin := sysbenchBinary(t)
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{})
	cfg := m.Config()
	host, port, _ := strings.Cut(cfg.Addr, ":")
	conn := []string{"--mysql-host=" + host, "--mysql-port=" + port, "--mysql-user=root", "--mysql-password=" + cfg.Passwd, "--mysql-db=sbtest"}
	sysbench := func(args ...string) string {
		var buf bytes.Buffer
		cmd := exec.Command(bin, append(args, conn...)...)
		cmd.Stdout, cmd.Stderr = &buf, &buf
		if err := cmd.Run(); err != nil {
			t.Fatalf("sysbench %v: %v\n%s", args, err, buf.String())
		}
		return buf.String()
	}
	sysbench("oltp_point_select", "--tables=1", "--table-size=100", "prepare")
	runArgs := []string{"oltp_point_select", "--tables=1", "--table-size=100", "--threads=2", "--time=2", "--report-interval=1", "run"}
	paste := "[bench@client ~]$ sysbench " + strings.Join(runArgs, " ") + "\n" + sysbench(runArgs...)
	dir := t.TempDir()
	file := filepath.Join(dir, "published-sysbench.txt")
	os.WriteFile(file, []byte(paste), 0o644)
	published := filepath.Join(dir, "published")
	expect(t, starbench(t, nil, "import", file, "--tags", "source=published", "-o", published), 0,
		"1  oltp_point_select t2 source=published  from "+file+":1 (sysbench-1.0): threads seconds events tps queries qps")
	if _, err := os.Stat(filepath.Join(published, "steps", "1-oltp_point_select-t2", "intervals.csv")); err != nil {
		t.Errorf("no intervals.csv: %v", err)
	}

	plan := filepath.Join(dir, "rerun.star")
	os.WriteFile(plan, []byte(`def main(p):
    conn = db.connect()
    sysbench.prepare(conn, table_size = 100, if_exists = "reuse")
    sysbench.run(conn, "oltp_point_select", threads = 2, time = 2, table_size = 100, tags = {"source": "rerun"})
`), 0o644)
	rerun := filepath.Join(dir, "rerun")
	expect(t, starbench(t, nil, "run", plan, "--target", m.DSN(), "--out", rerun, "--quiet"), 0, "(completed)")

	r := starbench(t, nil, "compare", published, rerun, "--by", "source", "--baseline", "published")
	expect(t, r, 0, "tps by source, baseline published", "vs published")
	if !regexp.MustCompile(`(?m)^oltp_point_select\s+2\s+\d+\.\d\d\s+\d+\.\d\d\s+[+-]\d+\.\d\d%$`).MatchString(r.stdout) {
		t.Errorf("compare:\n%s", r.stdout)
	}
	r = starbench(t, nil, "compare", published, rerun, "--by", "source", "--baseline", "published", "--metric", "p95")
	expect(t, r, 0, "p95 by source")
	if strings.Contains(r.stdout, " - ") {
		t.Errorf("a p95 is unknown:\n%s", r.stdout)
	}
	r = starbench(t, nil, "report", published, rerun)
	if !regexp.MustCompile(`(?m)^published\s+2\s+\d+\.\d\d\s+\d+\.\d\d\s+\d+\.\d\d`).MatchString(r.stdout) || !regexp.MustCompile(`(?m)^rerun\s+2\s+\d+\.\d\d`).MatchString(r.stdout) {
		t.Errorf("report:\n%s", r.stdout)
	}
	t.Logf("compare and report:\n%s", r.stdout)
}
