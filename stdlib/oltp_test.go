package stdlib_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/starbench/starbench/builtins"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
	"github.com/starbench/starbench/runner"
	"github.com/starbench/starbench/stdlib"
)

var (
	literalRe = regexp.MustCompile(`'(?:[^'\\]|\\.)*'`)
	numeralRe = regexp.MustCompile(`\b\d+\b`)
)

// shape is a logged statement with its values replaced by ?.
func shape(l sandboxtest.Logged) string {
	return l.Command + " " + numeralRe.ReplaceAllString(literalRe.ReplaceAllString(l.Text, "?"), "?")
}

// oltp.star's restatement of oltp_read_write sends the built-in
// workload's statements in the built-in's numbers (MariaDB's general log,
// counted by shape), and a seed repeats its statement stream value for
// value.
func TestOLTPReadWriteRestatedAsAMix(t *testing.T) {
	srv := sandboxtest.StartLogging(t)
	dir := t.TempDir()
	runs := 0
	run := func(body string) {
		t.Helper()
		path := filepath.Join(dir, "plan.star")
		plan := "load(\"@stdlib//oltp.star\", \"oltp_read_write\")\n\ndef main(p):\n    conn = db.connect()\n    " + body + "\n"
		if err := os.WriteFile(path, []byte(plan), 0o644); err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		_, err := runner.Evaluate(context.Background(), runner.Options{PlanFile: path, Predeclared: builtins.Predeclared(), Stdlib: stdlib.FS,
			Targets: map[string]string{runner.DefaultTarget: srv.DSN()}, Secrets: []string{srv.Password()},
			OutDir: filepath.Join(dir, fmt.Sprintf("out%d", runs)), Stdout: &out, Stderr: &out})
		runs++
		if err != nil {
			t.Fatalf("%s: %v\n%s", body, err, out.String())
		}
	}
	run(`sysbench.prepare(conn, tables = 1, table_size = 1000)`)
	const events = 50
	builtin := srv.Capture(t, func() {
		run(fmt.Sprintf(`sysbench.run(conn, "oltp_read_write", threads = 1, time = 0, events = %d, table_size = 1000)`, events))
	})
	mixRun := func(seed int) []sandboxtest.Logged {
		return srv.Capture(t, func() {
			run(fmt.Sprintf(`mix.run(conn, oltp_read_write(table_size = 1000), threads = 1, time = 0, events = %d, seed = %d)`, events, seed))
		})
	}
	first, again, other := mixRun(5), mixRun(5), mixRun(6)
	// The escape hatch: the same statements sent from an event function.
	event := srv.Capture(t, func() {
		run(fmt.Sprintf(`mix.run(conn, oltp_read_write(table_size = 1000, event = True), threads = 1, time = 0, events = %d, seed = 5)`, events))
	})

	counts := func(log []sandboxtest.Logged) map[string]int {
		m := map[string]int{}
		for _, l := range log {
			if l.Command == "Execute" {
				m[shape(l)]++
			}
		}
		return m
	}
	want, got := counts(builtin), counts(first)
	if len(want) != 11 || want["Execute BEGIN"] != events || want["Execute SELECT c FROM sbtest1 WHERE id=?"] != 10*events {
		t.Fatalf("the built-in's statements are not oltp_read_write's: %v", want)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("statements by shape:\nmix      %v\nbuilt-in %v", got, want)
	}
	if got := counts(event); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("statements by shape:\nevent    %v\nbuilt-in %v", got, want)
	}
	executes := func(log []sandboxtest.Logged) []string {
		var out []string
		for _, l := range log {
			if l.Command == "Execute" {
				out = append(out, l.Text)
			}
		}
		return out
	}
	if a, b := executes(first), executes(again); !slices.Equal(a, b) || len(a) != 20*events {
		t.Errorf("seed 5 twice: %d and %d statements, equal: %v", len(a), len(b), slices.Equal(a, b))
	}
	// The values that depend on each other as in sysbench: range ends 99
	// apart, the INSERT of the id just deleted.
	between := regexp.MustCompile(`BETWEEN (\d+) AND (\d+)`)
	deleted := ""
	for _, q := range append(executes(first), executes(event)...) {
		if m := between.FindStringSubmatch(q); m != nil {
			var lo, hi int
			fmt.Sscan(m[1], &lo)
			fmt.Sscan(m[2], &hi)
			if hi-lo != 99 {
				t.Errorf("%s: a range of %d rows", q, hi-lo+1)
			}
		}
		if id, ok := strings.CutPrefix(q, "DELETE FROM sbtest1 WHERE id="); ok {
			deleted = id
		} else if strings.HasPrefix(q, "INSERT") && !strings.Contains(q, "VALUES ("+deleted+",") {
			t.Errorf("%s after deleting id %s", q, deleted)
		}
	}
	if slices.Equal(executes(first), executes(other)) {
		t.Error("seeds 5 and 6 sent the same statements")
	}
}
