package results_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/starbench/starbench/runner/results"
)

// What WriteStep writes, the readers read back: the summary whole, the
// intervals to the precision of the file (ms and rates to 3 decimals).
func TestStepRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), results.StepsDir, "7-oltp_read_write-t4")
	sum := &results.Summary{
		Workload: results.Meta{Name: "oltp_read_write", Version: "sysbench-1.0.20/gen1"}, Tags: map[string]string{"version": "a"},
		Options: map[string]any{"tables": float64(4)}, Seed: 42, Started: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC),
		Threads: 4, Seconds: 10, Stopped: "time", Status: results.StatusCompleted, Events: 1000, Queries: 20000, Reads: 14000,
		Writes: 4000, Others: 2000, ErrorsByCode: map[string]int64{"1213": 3}, TPS: 100, QPS: 2000,
		Latency:  results.LatencySummary{MinMS: 1, AvgMS: 40, MaxMS: 90, SumMS: 40000, Percentiles: map[string]float64{"95": 70.5}},
		Fairness: results.Fairness{EventsAvg: 250, EventsStddev: 3},
	}
	ivs := []results.Interval{
		{Time: 1, Threads: 4, Events: 101, TPS: 101, QPS: 2020, ReadsPerS: 1414, WritesPerS: 404, OthersPerS: 202, ErrorsPerS: 0.5,
			ReconnectsPerS: 0.25, P50: 38.123, P95: 70.5, P99: 85.25, Max: 90},
		{Time: 2, Threads: 4, Events: 99, TPS: 99, QPS: 1980},
	}
	h := hdr.New(1, 3600e6, 3)
	h.RecordValue(40000)
	err := results.WriteStep(dir, results.Step{Summary: sum, Intervals: ivs, Output: []byte("SQL statistics:\n"),
		Latency: []results.LatencyInterval{{Start: 0, End: time.Second, Histogram: h}}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := results.ReadSummary(dir)
	if err != nil || !reflect.DeepEqual(got, sum) {
		t.Errorf("summary read back: %+v %v\nwrote %+v", got, err, sum)
	}
	rows, err := results.ReadIntervals(dir)
	if err != nil || !reflect.DeepEqual(rows, ivs) {
		t.Errorf("intervals read back: %+v %v\nwrote %+v", rows, err, ivs)
	}
	hlog, _ := os.ReadFile(filepath.Join(dir, results.LatencyFile))
	if !strings.Contains(string(hlog), "[starbench oltp_read_write latencies in microseconds]") || strings.Count(string(hlog), "HIST") != 1 {
		t.Errorf("latency.hlog:\n%s", hlog)
	}
	if out, _ := os.ReadFile(filepath.Join(dir, results.OutputFile)); string(out) != "SQL statistics:\n" {
		t.Errorf("output.txt: %q", out)
	}
	run := filepath.Dir(filepath.Dir(dir))
	if steps := results.StepDirs(run); len(steps) != 1 || steps[0] != dir || results.StepID(steps[0]) != "7" {
		t.Errorf("StepDirs(%s) = %v", run, steps)
	}
	os.WriteFile(filepath.Join(dir, results.SummaryFile), []byte(`{"workload": {"na`), 0o644)
	if _, err := results.ReadSummary(dir); !errors.Is(err, results.ErrNotResults) || !strings.Contains(err.Error(), "does not parse (truncated?)") {
		t.Errorf("truncated summary: %v", err)
	}
}

func TestManifestRoundTripAndFolders(t *testing.T) {
	root := t.TempDir()
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	first, err := results.Create("", root, "quickstart", now)
	if err != nil || filepath.Base(first) != "20261201T120000Z-quickstart" {
		t.Fatalf("Create: %s %v", first, err)
	}
	second, err := results.Create("", root, "quickstart", now)
	if err != nil || filepath.Base(second) != "20261201T120000Z-quickstart-2" {
		t.Fatalf("Create in the same second: %s %v", second, err)
	}
	m := &results.Manifest{Tool: results.ToolInfo{Name: results.ToolName, Version: "dev"}, Plan: "quickstart.star",
		Sources: []*results.SourceFile{{Name: "quickstart.star", Stored: "sources/quickstart.star", SHA256: "ab", Bytes: 2}},
		Params:  map[string]any{"threads": []any{float64(1), float64(2)}}, Seed: results.DrawSeed(), Host: results.ReadHostInfo(),
		Targets: map[string]any{"default": map[string]any{"kind": "dsn", "dsn": "root:pw@tcp(h:1)/db", "server_version": "10.11", "port": float64(1)}},
		Started: now, Status: results.StatusRunning, CommandLine: []string{"starbench", "--target", "root:pw@tcp(h:1)/db"}}
	if err := results.WriteManifest(first, m, func(s string) string { return strings.ReplaceAll(s, ":pw@", ":***@") }); err != nil {
		t.Fatal(err)
	}
	got, err := results.ReadManifest(first)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Target("default"), results.Target{Kind: "dsn", DSN: "root:***@tcp(h:1)/db", ServerVersion: "10.11"}) || got.CommandLine[2] != "root:***@tcp(h:1)/db" {
		t.Errorf("redacted manifest read back: %+v %v", got.Target("default"), got.CommandLine)
	}
	got.Targets, got.CommandLine, m.Targets, m.CommandLine = nil, nil, nil, nil
	if !reflect.DeepEqual(got, m) {
		t.Errorf("manifest read back: %+v\nwrote %+v", got, m)
	}
	if m.Seed < 0 || m.Seed >= 1<<53 {
		t.Errorf("seed %d is not below 2^53", m.Seed)
	}
	if _, err := results.Create(first, "", "", now); !errors.Is(err, results.ErrNotEmpty) {
		t.Errorf("Create over a folder with a manifest: %v", err)
	}
	if _, err := results.ReadManifest(second); !errors.Is(err, results.ErrNotResults) || !strings.Contains(err.Error(), "has no manifest.json") {
		t.Errorf("folder without a manifest: %v", err)
	}
}
