package main

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/internal/sandbox"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
	"github.com/starbench/starbench/runner/results"
)

// copyDir copies a results folder.
func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// journalLines splits a journal into its lines, each with its newline.
func journalLines(t *testing.T, path string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.SplitAfter(data, []byte("\n"))
}

// A journal damaged in its middle is bad input: --resume refuses it with
// exit 2 and one line naming the file and the line, no Go stack trace. A
// journal cut mid-line at its end (a crash during a write) resumes: the
// cut-off step runs again, the completed ones are not redone, and the
// journal stays readable.
func TestResumeWithADamagedOrCutJournal(t *testing.T) {
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{})
	out := outDir(t)
	expect(t, starbench(t, nil, "run", "testdata/plans/resume_fail.star", "--out", out, "--target", m.DSN()), 1, "Table 'sbtest.needed' doesn't exist")
	inserts := globalStatus(t, m, "Com_insert")

	damaged := filepath.Join(t.TempDir(), "damaged")
	copyDir(t, out, damaged)
	journal := filepath.Join(damaged, results.JournalFile)
	lines := journalLines(t, journal)
	lines[2] = []byte("{\"event\":\"end\",\"id\":\"1\",\x00\xff garbage\n")
	if err := os.WriteFile(journal, bytes.Join(lines, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	r := starbench(t, nil, "run", "--resume", damaged, "--target", m.DSN())
	expect(t, r, 2, journal+":3: the journal is damaged: the line is not a journal record")
	if msg := strings.TrimSpace(r.stderr); strings.Count(msg, "\n") != 0 || !strings.HasPrefix(msg, "starbench: ") {
		t.Errorf("want one line of error, got:\n%s", r.stderr)
	}

	// Cut in the middle of step 4's start record: steps 1-3 completed.
	cut := filepath.Join(t.TempDir(), "cut")
	copyDir(t, out, cut)
	journal = filepath.Join(cut, results.JournalFile)
	lines = journalLines(t, journal)
	var kept []byte
	for _, line := range lines {
		if bytes.HasPrefix(line, []byte(`{"event":"start","id":"4",`)) {
			kept = append(kept, line[:len(line)/2]...)
			break
		}
		kept = append(kept, line...)
	}
	if err := os.WriteFile(journal, kept, 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := db.Open(context.Background(), m.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Exec(context.Background(), "CREATE TABLE needed (id INT)"); err != nil {
		t.Fatal(err)
	}
	expect(t, starbench(t, nil, "run", "--resume", cut, "--target", m.DSN()), 0, "resuming "+cut+": 3 steps completed", "needed has 0 rows", "(completed)")
	if got := globalStatus(t, m, "Com_insert"); got != inserts {
		t.Errorf("completed INSERT steps ran again: Com_insert %d -> %d", inserts, got)
	}
	if _, err := results.ReadJournal(journal); err != nil {
		t.Errorf("the journal after resuming from a cut one: %v", err)
	}
}
