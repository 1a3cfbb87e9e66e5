// Package scripts_test checks the shell scripts the Makefile and CI run.
package scripts_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fuzz.sh tells the Go fuzz coordinator's deadline race (a bare "context
// deadline exceeded", no failing input) from a finding: once is retried,
// twice in a row fails, and a finding fails at once. A `go` on PATH
// stands in for the toolchain, answering each call with the next line of
// its script.
func TestFuzzScriptCountsOutcomes(t *testing.T) {
	const race = "--- FAIL: FuzzReadJournal\n    context deadline exceeded\nFAIL"
	for _, c := range []struct {
		name    string
		answers []string // what each `go test -fuzz` call prints; "" passes
		code    int
		calls   int
		want    string
	}{
		{"passes", []string{""}, 0, 1, "1 targets in"},
		{"race once", []string{race, ""}, 0, 2, "once more"},
		{"race twice", []string{race, race}, 1, 2, "twice in a row: counted as a failure"},
		{"finding", []string{"--- FAIL: FuzzReadJournal\n    Failing input written to testdata/fuzz/FuzzReadJournal/abc\n    context deadline exceeded"}, 1, 1, "FAILED:"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for i, a := range c.answers {
				os.WriteFile(filepath.Join(dir, "answer"+string(rune('0'+i))), []byte(a), 0o644)
			}
			fake := `#!/bin/sh
n=$(cat "$FAKE_DIR/calls" 2>/dev/null || echo 0)
echo $((n + 1)) > "$FAKE_DIR/calls"
out=$(cat "$FAKE_DIR/answer$n" 2>/dev/null)
[ -z "$out" ] && exit 0
printf '%s\n' "$out"
exit 1
`
			if err := os.WriteFile(filepath.Join(dir, "go"), []byte(fake), 0o755); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("bash", "fuzz.sh")
			cmd.Env = append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"), "FAKE_DIR="+dir, "FUZZ_TARGETS=Journal")
			out, err := cmd.CombinedOutput()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			calls, _ := os.ReadFile(filepath.Join(dir, "calls"))
			if code != c.code || strings.TrimSpace(string(calls)) != string(rune('0'+c.calls)) || !strings.Contains(string(out), c.want) {
				t.Errorf("exit %d after %s calls, want %d after %d, saying %q:\n%s", code, strings.TrimSpace(string(calls)), c.code, c.calls, c.want, out)
			}
		})
	}
}
