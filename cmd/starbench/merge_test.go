package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/starbench/starbench/runner/results"
)

// writeStepFolder writes a step folder of n one-second intervals of one
// latency each.
func writeStepFolder(t *testing.T, dir string, n int) {
	t.Helper()
	var rows []results.Interval
	var lat []results.LatencyInterval
	for i := range n {
		h := hdr.New(1, 3600e6, 3)
		h.RecordValue(int64(1000 + i))
		from, to := time.Duration(i)*time.Second, time.Duration(i+1)*time.Second
		lat = append(lat, results.LatencyInterval{Start: from, End: to, Histogram: h})
		rows = append(rows, results.Interval{Time: to.Seconds(), Threads: 1, Events: 1, TPS: 1})
	}
	sum := &results.Summary{Workload: results.Meta{Name: "oltp_point_select", Version: "v1"}, Started: time.Now(), Threads: 1,
		Events: int64(n), Status: results.StatusCompleted, IntervalSeconds: 1, PlannedSeconds: float64(n),
		Latency: results.LatencySummary{MinMS: 1, MaxMS: 1 + float64(n)/1000, SumMS: float64(n)}}
	if err := results.WriteStep(dir, results.Step{Summary: sum, Intervals: rows, Latency: lat}); err != nil {
		t.Fatal(err)
	}
}

// A part whose latency.hlog turns out damaged halfway through, after the
// merged folder was made, is refused with exit 2, and the merge leaves no
// folder it made (an empty -o folder given is kept, empty).
func TestMergeRefusesADamagedPartAndLeavesNothing(t *testing.T) {
	root := t.TempDir()
	good, bad := filepath.Join(root, "good"), filepath.Join(root, "bad")
	writeStepFolder(t, good, 10)
	writeStepFolder(t, bad, 10)
	log := filepath.Join(bad, results.LatencyFile)
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(data, []byte("\n"))
	lines[len(lines)-3] = append(lines[len(lines)-3][:len(lines[len(lines)-3])-8], "!!!!!!!!"...) // the 9th interval's histogram
	if err := os.WriteFile(log, bytes.Join(lines, []byte("\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(root, "merged")
	expect(t, starbench(t, nil, "merge", "-o", out, good, bad), 2, "merge: ", results.LatencyFile)
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the refused merge left %s (%v)", out, err)
	}
	empty := filepath.Join(root, "empty")
	os.Mkdir(empty, 0o755)
	expect(t, starbench(t, nil, "merge", "-o", empty, good, bad), 2, results.LatencyFile)
	if entries, err := os.ReadDir(empty); err != nil || len(entries) > 0 {
		t.Errorf("the -o folder given: %v, %v", entries, err)
	}
	expect(t, starbench(t, nil, "merge", "-o", out, good, good), 0, "merged 2 parts: 2 threads, 20 events")
	if _, err := os.Stat(filepath.Join(out, results.PartDir(2, "good"), results.LatencyFile)); err != nil {
		t.Errorf("the merged folder lacks its second part's latencies: %v", err)
	}
}
