package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/starbench/starbench/runner/results"
)

const damagePlan = "def main(p):\n    n = rprobe.act(\"a\", 1) + rprobe.act(\"b\", 2) + rprobe.act(\"c\", 3)\n    print(\"done\", n)\n"

// rprobe.act(name, value) is a step that returns value and, on resume,
// replays it from the journal; ranSteps lists the names it really ran.
var (
	ranSteps []string
	rprobe   = &starlarkstruct.Module{Name: "rprobe", Members: starlark.StringDict{
		"act": starlark.NewBuiltin("rprobe.act", func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var name string
			var value int
			if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "value", &value); err != nil {
				return nil, err
			}
			return HostOf(thread).Step(StepInfo{Builtin: "rprobe.act", Text: "act " + name, Args: map[string]any{"name": name, "value": value}}, Action{
				Run: func(s *Step) (Outcome, error) {
					ranSteps = append(ranSteps, name)
					return Outcome{Value: starlark.MakeInt(value), Record: value}, nil
				},
				Replay: func(s *Step, record json.RawMessage) (starlark.Value, error) {
					var n int
					err := json.Unmarshal(record, &n)
					return starlark.MakeInt(n), err
				},
			})
		}),
	}}
)

// finishedRun runs damagePlan and returns its results folder and journal.
func finishedRun(t *testing.T) (string, []byte) {
	t.Helper()
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.star")
	if err := os.WriteFile(plan, []byte(damagePlan), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	ranSteps = nil
	res, err := Evaluate(context.Background(), Options{PlanFile: plan, OutDir: filepath.Join(dir, "out"),
		Predeclared: starlark.StringDict{"rprobe": rprobe}, Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	data, err := os.ReadFile(filepath.Join(res.Dir, results.JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	return res.Dir, data
}

// lineStart is the offset of line n (1-based) of data.
func lineStart(t *testing.T, data []byte, n int) int {
	t.Helper()
	off := 0
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(data[off:], '\n')
		if j < 0 {
			t.Fatalf("the journal has fewer than %d lines", n)
		}
		off += j + 1
	}
	return off
}

// A line damaged in the middle of the journal (not a crash: an edit, a bad
// disk, a bad copy) is refused as bad input: a *UsageError (exit 2) whose
// one-line message names the file and the line.
func TestResumeRefusesADamagedJournal(t *testing.T) {
	dir, data := finishedRun(t)
	path := filepath.Join(dir, results.JournalFile)
	for name, damage := range map[string]func([]byte) []byte{
		"garbage line": func(d []byte) []byte {
			s := lineStart(t, d, 3)
			return append(append(append([]byte{}, d[:s]...), "\x00\xff{\"event\": garb\n"...), d[s:]...)
		},
		"line cut short inside": func(d []byte) []byte {
			s, e := lineStart(t, d, 3), lineStart(t, d, 4)
			return append(append([]byte{}, d[:s+(e-s)/2]...), append([]byte{'\n'}, d[e:]...)...)
		},
		"record without event": func(d []byte) []byte {
			s, e := lineStart(t, d, 3), lineStart(t, d, 4)
			return append(append(append([]byte{}, d[:s]...), "{}\n"...), d[e:]...)
		},
	} {
		if err := os.WriteFile(path, damage(data), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadRecorded(dir)
		var usage *UsageError
		if !errors.As(err, &usage) {
			t.Fatalf("%s: want a UsageError, got %v", name, err)
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, path+":3: the journal is damaged: ") || strings.Contains(msg, "\n") {
			t.Errorf("%s: want one line naming %s:3 and saying the journal is damaged, got %q", name, path, msg)
		}
	}
}

// A journal cut in the middle of its last line — what a crash during a
// write leaves — is accepted: the cut-off record is dropped, the step it
// belonged to runs again, and the records the resumed run appends start
// on a fresh line, so the journal stays readable.
func TestResumeAcceptsAJournalCutMidLine(t *testing.T) {
	dir, data := finishedRun(t)
	path := filepath.Join(dir, results.JournalFile)
	recs, err := results.ReadJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	endC := -1 // the line of step 3's end record
	for i, r := range recs {
		if r.Event == "end" && r.ID == "3" {
			endC = i + 1
		}
	}
	if endC < 0 {
		t.Fatalf("no end record for step 3: %+v", recs)
	}
	s, e := lineStart(t, data, endC), lineStart(t, data, endC+1)
	if err := os.WriteFile(path, data[:s+(e-s)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	rec, err := LoadRecorded(dir)
	if err != nil {
		t.Fatalf("a journal cut mid-line must be accepted: %v", err)
	}
	if rec.Completed() != 2 {
		t.Errorf("completed steps: %d, want 2", rec.Completed())
	}
	var stdout bytes.Buffer
	ranSteps = nil
	res, err := Evaluate(context.Background(), Options{Resume: rec, Predeclared: starlark.StringDict{"rprobe": rprobe}, Stdout: &stdout, Stderr: &stdout})
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, stdout.String())
	}
	if res.Status != results.StatusCompleted || !strings.Contains(stdout.String(), "done 6") || strings.Join(ranSteps, ",") != "c" {
		t.Errorf("resume: status %s, steps run again %v (want only c), output %q", res.Status, ranSteps, stdout.String())
	}
	after, err := results.ReadJournal(path)
	if err != nil {
		t.Fatalf("the journal after the resume: %v", err)
	}
	replayed, ranAgain := 0, false
	for _, r := range after {
		if r.Event == "replayed" {
			replayed++
		}
		if r.Event == "end" && r.ID == "3" && r.Outcome == "ok" {
			ranAgain = true
		}
	}
	if replayed != 2 || !ranAgain {
		t.Errorf("after the resume: %d steps replayed (want 2), step 3 ran again: %v", replayed, ranAgain)
	}
	if m := readManifest(t, dir); len(m.Resumes) != 1 || m.Resumes[0].FromStep != "3" {
		t.Errorf("manifest resumes: %+v", m.Resumes)
	}
}
