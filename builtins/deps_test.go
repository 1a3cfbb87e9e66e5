package builtins_test

import (
	"os/exec"
	"strings"
	"testing"
)

// starlarkSide are the packages that may depend on go.starlark.net: the
// runner, the registry (this package), the command, the plan modules
// (packages named *star), the command layer the families' command lines
// share (builtins/cli, which uses the runner's results folders) and the
// plan-test helper. Everything else is a core: the engine, the families,
// the transport, results, reports. They never import Starlark, so they
// can be used and tested without it.
var starlarkSide = []string{"runner", "builtins", "cmd/", "builtins/cli", "internal/testutil/plantest"}

func TestCoresImportNoStarlark(t *testing.T) {
	const module = "github.com/starbench/starbench/"
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Deps " "}}`, "../...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	cores := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, deps, _ := strings.Cut(line, " ")
		rel := strings.TrimPrefix(pkg, module)
		if strings.HasSuffix(rel, "star") || allowed(rel) {
			continue
		}
		cores++
		for _, d := range strings.Fields(deps) {
			if strings.HasPrefix(d, "go.starlark.net") {
				t.Errorf("%s depends on %s: a core must not import Starlark (or, if it is a plan module, its name ends in star)", rel, d)
				break
			}
		}
	}
	if cores < 20 {
		t.Errorf("only %d core packages seen: is go list looking at the whole module?\n%s", cores, out)
	}
}

func allowed(rel string) bool {
	for _, a := range starlarkSide {
		if rel == a || strings.HasSuffix(a, "/") && strings.HasPrefix(rel, a) {
			return true
		}
	}
	return false
}
