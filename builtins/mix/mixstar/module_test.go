package mixstar_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"github.com/starbench/starbench/builtins/bench/benchstar"
	"github.com/starbench/starbench/builtins/db/dbstar"
	"github.com/starbench/starbench/builtins/mix/mixstar"
	"github.com/starbench/starbench/internal/testutil/plantest"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
	"github.com/starbench/starbench/runner"
)

func TestMain(m *testing.M) { sandboxtest.Main(m) }

var modules = starlark.StringDict{"db": dbstar.Module, "mix": mixstar.Module, "bench": benchstar.Module}

func TestSnippets(t *testing.T) {
	plantest.RunSnippets(t, "../../../testdata/mix/*.star", modules)
}

// A dry run gives mix.run's result with the mix's transactions, so a plan
// that reads one of them by name checks.
func TestDryRunKnowsTheTransactions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plan.star")
	src := `m = mix.define("m", tables = {"t": "id INT PRIMARY KEY"},
    transactions = {"get": mix.txn([mix.stmt("SELECT id FROM t WHERE id = ?", mix.uniform(1, 9))])})

def main(p):
    r = mix.run(db.connect(), m, threads = 2)
    print("get", r.transactions["get"].count, r.placeholder)
`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	r := plantest.Evaluate(t, path, "", modules, runner.Options{DryRun: true})
	if r.Err != nil || !strings.Contains(r.Stdout, "get 0 True") {
		t.Fatalf("dry run: %v; printed %q", r.Err, r.Stdout)
	}
	if len(r.Res.Steps) != 2 || r.Res.Steps[1].Builtin != "mix.run" || !strings.HasPrefix(r.Res.Steps[1].Text, "mix run m (mix-gen1/") {
		t.Errorf("steps %+v", r.Res.Steps)
	}
}
