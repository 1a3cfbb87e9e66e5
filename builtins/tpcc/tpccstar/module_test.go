package tpccstar_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"github.com/starbench/starbench/builtins/db/dbstar"
	"github.com/starbench/starbench/builtins/tpcc/tpccstar"
	"github.com/starbench/starbench/internal/testutil/plantest"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
	"github.com/starbench/starbench/runner"
)

func TestMain(m *testing.M) { sandboxtest.Main(m) }

var modules = starlark.StringDict{"db": dbstar.Module, "tpcc": tpccstar.Module}

func TestSnippets(t *testing.T) {
	plantest.RunSnippets(t, "../../../testdata/tpcc/*.star", modules)
}

// A dry run does not guess whether the conditions will hold: a plan that
// branches on tpcc.check(...).passed stops with the line of the test,
// before either branch's steps.
func TestCheckPlaceholderIsNotGuessed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plan.star")
	src := `def main(p):
    conn = db.connect()
    r = tpcc.check(conn, warehouses = 1)
    print("check", r.passed, r.conditions)
    if r.passed:
        tpcc.cleanup(conn)
    else:
        tpcc.prepare(conn, warehouses = 1)
`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	r := plantest.Evaluate(t, path, "", modules, runner.Options{DryRun: true})
	var planErr *runner.PlanError
	if !errors.As(r.Err, &planErr) || !strings.HasPrefix(r.Err.Error(), path+":5:") ||
		!strings.Contains(r.Err.Error(), "tpcc.check(...).passed is known only in a real run") {
		t.Fatalf("want a plan error at %s:5 about tpcc.check's passed, got %v", path, r.Err)
	}
	var builtins []string
	for _, s := range r.Res.Steps {
		builtins = append(builtins, s.Builtin)
	}
	if strings.Join(builtins, " ") != "db.connect tpcc.check" {
		t.Errorf("steps %v: the dry run took a branch", builtins)
	}
	if !strings.Contains(r.Stdout, "check <tpcc.check(...).passed: known only in a real run> []") {
		t.Errorf("printed: %q", r.Stdout)
	}
}
