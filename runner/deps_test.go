package runner_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The runner knows nothing of the modules: nothing under builtins/ is
// among its dependencies (modules reach it, not the other way round).
func TestRunnerImportsNoBuiltins(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasPrefix(pkg, "github.com/starbench/starbench/builtins") {
			t.Errorf("runner depends on %s", pkg)
		}
	}
	if !strings.Contains(string(out), "github.com/starbench/starbench/runner/results") {
		t.Errorf("go list -deps shows no runner/results (is the check looking at the right package?):\n%s", out)
	}
}
