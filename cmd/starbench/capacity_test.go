package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/starbench/starbench/internal/sandbox"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
	"github.com/starbench/starbench/runner/results"
)

// probeRuns are the capacity probes a journal started and replayed, by
// step id, with their loads.
func probeRuns(t *testing.T, dir string) (started, replayed []string, rates map[string]float64) {
	t.Helper()
	recs, err := results.ReadJournal(filepath.Join(dir, results.JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	rates = map[string]float64{}
	for _, r := range recs {
		if r.Builtin != "bench.capacity.probe" {
			continue
		}
		switch r.Event {
		case "start":
			started = append(started, r.ID)
			rate, _ := r.Args["rate"].(float64)
			rates[r.ID] = rate
		case "replayed":
			replayed = append(replayed, r.ID)
		}
	}
	return started, replayed, rates
}

// A search killed after three probes resumes with those three replayed
// (not run again, their folders untouched) and goes on to its answer;
// the report shows it.
func TestCapacitySearchResumes(t *testing.T) {
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{})
	out := outDir(t)
	cmd := startUntil(t, "capacity probe 3:", "run", "testdata/plans/capacity.star", "--out", out, "--target", m.DSN())
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	before, _, rates := probeRuns(t, out)
	if len(before) < 3 {
		t.Fatalf("probes started before the kill: %v", before)
	}
	done := before[:3]
	summary := filepath.Join(out, "steps", "3-capacity", "probes", "3-rate-800", "summary.json")
	stat, err := os.Stat(summary)
	if err != nil || rates[done[0]] != 200 || rates[done[1]] != 400 || rates[done[2]] != 800 {
		t.Fatalf("the ramp before the kill: %v %v (%v)", done, rates, err)
	}

	r := starbench(t, nil, "run", "--resume", out, "--target", m.DSN())
	expect(t, r, 0, "capacity probe 1 (replayed): 200 events/s", "capacity probe 3 (replayed): 800 events/s", "capacity of slow (20 threads): ")
	if strings.Contains(r.stdout, "capacity probe 4 (replayed)") {
		t.Errorf("a probe that had not completed was replayed:\n%s", r.stdout)
	}
	after, replayed, _ := probeRuns(t, out)
	if strings.Join(replayed, ",") != strings.Join(done, ",") {
		t.Errorf("replayed probes %v, want the three completed %v", replayed, done)
	}
	for _, id := range after[len(before):] {
		for _, d := range done {
			if id == d {
				t.Errorf("completed probe %s ran again", id)
			}
		}
	}
	if again, err := os.Stat(summary); err != nil || !again.ModTime().Equal(stat.ModTime()) {
		t.Errorf("probe 3's folder was written again (%v)", err)
	}
	c, err := results.ReadCapacity(filepath.Join(out, "steps", "3-capacity"))
	if err != nil {
		t.Fatal(err)
	}
	if !c.Found || c.Answer < 900 || c.Answer > 1100 || !c.Probes[2].Replayed || c.Probes[3].Replayed {
		data, _ := json.MarshalIndent(c, "", "  ")
		t.Errorf("capacity after resume (want about 1000/s):\n%s", data)
	}

	rep := starbench(t, nil, "report", out)
	expect(t, rep, 0, "capacity of slow (20 threads): ", "probe  events/s", "breaks: p99")
	html := starbench(t, nil, "report", out, "--format", "html")
	expect(t, html, 0, `data-kind="capacity"`, "latency against load", "p99 SLO 150 ms")
}

// A capacity search is refused in a run that is one segment of every
// load: its probes' verdicts need the whole load's latency.
func TestCapacitySearchIsNotASegment(t *testing.T) {
	r := starbench(t, nil, "run", "testdata/plans/capacity.star", "--segment", "1/2", "--seed", "7", "--out", outDir(t))
	expect(t, r, 2, "capacity.star:10:", "this run is segment 1/2 of every load, and a capacity search decides each probe on the whole load's latency")
}
