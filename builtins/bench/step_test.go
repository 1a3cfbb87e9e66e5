package bench_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/internal/testutil/benchtest"
	"github.com/starbench/starbench/runner/results"
)

// recordingHook notes when it was started and stopped.
type recordingHook struct {
	name string
	log  *[]string
	fail bool
}

func (h recordingHook) Start(_ context.Context, dir string) error {
	*h.log = append(*h.log, "start "+h.name+" "+filepath.Base(dir))
	if h.fail {
		return fmt.Errorf("%s cannot start", h.name)
	}
	return nil
}

func (h recordingHook) Stop(context.Context) error {
	*h.log = append(*h.log, "stop "+h.name)
	return nil
}

// RunStep writes the step folder with what the step records, tees the
// family's text into output.txt (redacted), reports progress, and runs the
// hooks around the engine in order.
func TestRunStepWritesTheFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "steps", "3-query-t2")
	var live strings.Builder
	var progress []bench.Progress
	var log []string
	conn := connector(t)
	step := bench.Step{
		Run: func(ctx context.Context, r bench.StepRun) (*bench.Result, error) {
			w, sinks := r.Output, r.Sinks
			log = append(log, "run")
			fmt.Fprintln(w, "header with the secret hunter2")
			return bench.Run(ctx, &benchtest.QueryWorkload{Query: "SELECT 1", Read: true}, conn,
				bench.Options{Threads: 2, Time: 1200 * time.Millisecond, Interval: 500 * time.Millisecond, Seed: 9}, sinks...)
		},
		Workload: "query", Threads: 2, Total: 1.2, Percentile: 95, Seed: 9,
		Tags: map[string]string{"version": "a"}, Options: map[string]any{"threads": 2}, Target: "root:***@tcp(x)/db",
		Output:   &live,
		Progress: func(p bench.Progress) { progress = append(progress, p) },
		Hooks:    []bench.Hook{recordingHook{name: "a", log: &log}, recordingHook{name: "b", log: &log}},
		Redact:   func(s string) string { return strings.ReplaceAll(s, "hunter2", "***") },
	}
	sum, res, err := bench.RunStep(context.Background(), dir, step)
	if err != nil || res == nil {
		t.Fatal(err)
	}
	if got := strings.Join(log, ", "); got != "start a 3-query-t2, start b 3-query-t2, run, stop b, stop a" {
		t.Errorf("hooks and run in the order %s", got)
	}
	read, err := results.ReadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	if read.Tags["version"] != "a" || read.Seed != 9 || read.Target != "root:***@tcp(x)/db" || read.Status != results.StatusCompleted ||
		read.Events != sum.Events || read.Events == 0 || read.Percentile != 95 || read.Options["threads"] != float64(2) {
		t.Errorf("summary: %+v", read)
	}
	if ivs, _ := results.ReadIntervals(dir); len(ivs) < 2 {
		t.Errorf("intervals.csv has %d rows", len(ivs))
	}
	out, _ := os.ReadFile(filepath.Join(dir, results.OutputFile))
	if string(out) != "header with the secret ***\n" || live.String() != "header with the secret hunter2\n" {
		t.Errorf("output.txt %q, live %q", out, live.String())
	}
	last := progress[len(progress)-1]
	if len(progress) < 3 || !last.Final || last.TPS != sum.TPS || last.Workload != "query" || last.Threads != 2 || last.TotalS != 1.2 || progress[0].Final {
		t.Errorf("progress: %+v", progress)
	}
}

// A step whose run fails keeps what it measured, marked failed with the
// (redacted) error; a hook that cannot start stops the step before the run,
// and the hooks started are stopped.
func TestRunStepKeepsAFailedRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "failed")
	boom := errors.New("server gone, password hunter2")
	step := bench.Step{
		Run: func(ctx context.Context, r bench.StepRun) (*bench.Result, error) {
			res, err := bench.Run(ctx, &benchtest.QueryWorkload{Query: "SELECT 1", Read: true}, connector(t), bench.Options{Threads: 1, Events: 20, Seed: 1}, r.Sinks...)
			if err != nil {
				t.Fatal(err)
			}
			return res, boom
		},
		Workload: "query", Threads: 1,
		Redact: func(s string) string { return strings.ReplaceAll(s, "hunter2", "***") },
	}
	sum, _, err := bench.RunStep(context.Background(), dir, step)
	if !errors.Is(err, boom) || sum == nil || sum.Status != results.StatusFailed || sum.Error != "server gone, password ***" || sum.Events != 20 {
		t.Fatalf("RunStep: %v, summary %+v", err, sum)
	}
	if read, err := results.ReadSummary(dir); err != nil || read.Status != results.StatusFailed {
		t.Errorf("written summary: %+v %v", read, err)
	}

	var log []string
	ran := false
	step.Run = func(context.Context, bench.StepRun) (*bench.Result, error) { ran = true; return nil, nil }
	step.Hooks = []bench.Hook{recordingHook{name: "a", log: &log}, recordingHook{name: "b", log: &log, fail: true}}
	sum, res, err := bench.RunStep(context.Background(), filepath.Join(t.TempDir(), "hook"), step)
	if ran || sum != nil || res != nil || err == nil || err.Error() != "b cannot start" {
		t.Errorf("a hook failing to start: ran %v, %v %v %v", ran, sum, res, err)
	}
	if got := strings.Join(log, ", "); got != "start a hook, start b hook, stop a" {
		t.Errorf("hooks: %s", got)
	}
}
