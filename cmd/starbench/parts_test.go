package main

import (
	"bytes"
	"encoding/csv"
	"path/filepath"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/starbench/starbench/runner"
	"github.com/starbench/starbench/runner/results"
)

// writeLoadFolder writes a 10-second oltp_point_select step folder (as
// 'starbench sysbench ... run --out' does) whose events all took latMS.
func writeLoadFolder(t *testing.T, dir string, threads int, tps, latMS float64) {
	t.Helper()
	events := int64(tps * 10)
	h := hdr.New(1, 3600e6, 3)
	if err := h.RecordValues(int64(latMS*1000), events); err != nil {
		t.Fatal(err)
	}
	sum := &results.Summary{Workload: results.Meta{Name: "oltp_point_select", Version: "test"},
		Started: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC), Threads: threads, Seconds: 10, Stopped: "time",
		Status: results.StatusCompleted, Events: events, Queries: events, Reads: events, TPS: tps, QPS: tps,
		Latency: results.LatencySummary{MinMS: latMS, AvgMS: latMS, MaxMS: latMS, SumMS: latMS * float64(events),
			Percentiles: map[string]float64{"50": latMS, "95": latMS, "99": latMS}},
		IntervalSeconds: 10, PlannedSeconds: 10}
	if err := results.WriteStep(dir, results.Step{Summary: sum, Intervals: []results.Interval{{Time: 10, Threads: threads, Events: events, TPS: tps, QPS: tps}},
		Latency: []results.LatencyInterval{{Start: 0, End: 10 * time.Second, Histogram: h}}}); err != nil {
		t.Fatal(err)
	}
}

// mergedFolder merges two loads (2 threads at tps1, 4 at tps2) with
// 'starbench merge' and returns the merged folder.
func mergedFolder(t *testing.T, tps1, tps2 float64) string {
	dir := t.TempDir()
	writeLoadFolder(t, filepath.Join(dir, "seg1"), 2, tps1, 5)
	writeLoadFolder(t, filepath.Join(dir, "seg2"), 4, tps2, 10)
	out := filepath.Join(dir, "merged")
	expect(t, starbench(t, nil, "merge", filepath.Join(dir, "seg1"), filepath.Join(dir, "seg2"), "-o", out), 0, "merged 2 parts: 6 threads")
	return out
}

// report --parts and compare --parts show a merged folder's parts after
// its row; without --parts the merged row is the only one.
func TestReportAndCompareParts(t *testing.T) {
	base, candidate := mergedFolder(t, 100, 300), mergedFolder(t, 90, 330)

	r := starbench(t, nil, "report", base)
	expect(t, r, 0, "\noltp_point_select\nthreads     tps")
	if _, table, _ := strings.Cut(r.stdout, "\noltp_point_select\n"); strings.Contains(table, "part") || strings.Contains(table, "seg1") {
		t.Errorf("report without --parts shows them:\n%s", r.stdout)
	}
	r = starbench(t, nil, "report", base, "--parts")
	expect(t, r, 0, "part    threads     tps     qps")
	var rows []string
	for _, line := range strings.Split(r.stdout, "\n") {
		if f := strings.Fields(line); len(f) > 3 && (f[0] == "6" || f[0] == "1" || f[0] == "2") {
			rows = append(rows, strings.Join(f[:5], " "))
		}
	}
	if want := "6 400.00 400.00 8.75 10.00|1 seg1 2 100.00 100.00|2 seg2 4 300.00 300.00"; strings.Join(rows, "|") != want {
		t.Errorf("report --parts rows %q, want %q:\n%s", strings.Join(rows, "|"), want, r.stdout)
	}

	r = starbench(t, nil, "report", base, "--parts", "--format", "csv")
	recs, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if err != nil || len(recs) != 4 || recs[0][2] != "part" || recs[1][2] != "" || recs[2][2] != "1 seg1" || recs[2][4] != "2" || recs[3][2] != "2 seg2" {
		t.Errorf("csv --parts: %v %v", recs, err)
	}
	r = starbench(t, nil, "report", base, "--format", "json")
	expect(t, r, 0, `"parts": [`, `"name": "seg1"`, `"name": "seg2"`, `"threads": 4`)

	r = starbench(t, nil, "compare", base, candidate, "--format", "markdown")
	expect(t, r, 0, "| oltp_point_select | 6 |  | 400.00 | 420.00 | +5.00% |")
	if strings.Contains(r.stdout, "seg1") {
		t.Errorf("compare without --parts shows them:\n%s", r.stdout)
	}
	r = starbench(t, nil, "compare", base, candidate, "--format", "markdown", "--parts", "--fail-if", "tps<-5%")
	expect(t, r, 0, "| workload | threads | tags | part | merged | merged#2 | vs merged |",
		"| oltp_point_select | 6 |  |  | 400.00 | 420.00 | +5.00% |",
		"| oltp_point_select | 2 |  | 1 seg1 | 100.00 | 90.00 | -10.00% |",
		"| oltp_point_select | 4 |  | 2 seg2 | 300.00 | 330.00 | +10.00% |")
}

// The live view of a step of several loads shows each part's tps.
func TestProgressShowsParts(t *testing.T) {
	var buf bytes.Buffer
	p := &ttyProgress{w: &buf, width: 200, total: 2, redact: func(s string) string { return s }}
	p.StepStarted(1, "1", "bench.together", "")
	p.Benchmark(runner.BenchmarkStatus{Workload: "oltp_point_select", Threads: 6, ElapsedS: 3, TPS: 400,
		Parts: []runner.BenchmarkStatus{{Workload: "oltp_point_select", Threads: 2, TPS: 100.4}, {Workload: "oltp_point_select", Threads: 4, TPS: 299.6}}})
	if line := buf.String()[strings.LastIndex(buf.String(), "\r\x1b[K")+4:]; !strings.HasSuffix(line, "| err 0 | parts 100/300") {
		t.Errorf("status line %q", line)
	}
	p.StepEnded("1", "ok")
	if !strings.Contains(buf.String(), "step 1 ok: oltp_point_select at 6 threads: 400.00 tps, p99 0.00 ms, 0 errors [█] | parts 100/300\n") {
		t.Errorf("summary line:\n%q", buf.String())
	}
	buf.Reset()
	p.StepStarted(2, "2", "sysbench.run", "")
	p.Benchmark(runner.BenchmarkStatus{Workload: "oltp_read_only", Threads: 1, TPS: 50})
	if strings.Contains(buf.String(), "parts") || !strings.HasSuffix(buf.String(), "| err 0") {
		t.Errorf("one load's status line: %q", buf.String())
	}
}
