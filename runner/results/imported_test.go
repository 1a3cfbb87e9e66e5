package results_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/starbench/starbench/runner/results"
)

// An imported step is written without latency.hlog (and without
// intervals.csv when it has no rows), reads back with the figures its
// source gave known and the others not, and is refused by merge.
func TestImportedStep(t *testing.T) {
	dir := t.TempDir()
	sum := &results.Summary{Workload: results.Meta{Name: "oltp_insert"}, Threads: 8, QPS: 100, Status: results.StatusCompleted,
		Imported: &results.Imported{Source: "pub.csv", Line: 3, Format: "csv", Given: []string{"threads", "qps"}, Derived: []string{"tps"}}}
	if err := results.WriteImportedStep(dir, results.Step{Summary: sum}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{results.LatencyFile, results.IntervalsFile, results.OutputFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("an imported step without rows or output has %s", f)
		}
	}
	back, err := results.ReadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	for fig, want := range map[string]bool{"qps": true, "tps": true, "threads": true, "p95_ms": false, "errors": false} {
		if back.Known(fig) != want {
			t.Errorf("Known(%s) = %v", fig, !want)
		}
	}
	if run := (&results.Summary{}); !run.Known("p95_ms") {
		t.Errorf("a run's step does not know its p95")
	}
	err = results.CheckMerge([]results.MergePart{{Name: "pub", Dir: dir}}, results.MergeOptions{})
	if !errors.Is(err, results.ErrCannotMerge) || !strings.Contains(err.Error(), "was imported from pub.csv (starbench import): published figures have no latency histograms to merge") {
		t.Errorf("merge: %v", err)
	}
	if err := results.WriteImportedStep(t.TempDir(), results.Step{Summary: &results.Summary{Workload: results.Meta{Name: "w"}, Threads: 1}}); err == nil {
		t.Errorf("a step that does not say where it came from was written")
	}
	rows := filepath.Join(t.TempDir(), "rows")
	if err := results.WriteImportedStep(rows, results.Step{Summary: sum, Intervals: []results.Interval{{Time: 1, TPS: 5}}}); err != nil {
		t.Fatal(err)
	}
	if ivs, err := results.ReadIntervals(rows); err != nil || len(ivs) != 1 || ivs[0].TPS != 5 {
		t.Errorf("intervals %v, %v", ivs, err)
	}
}
