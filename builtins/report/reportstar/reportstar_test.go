package reportstar_test

import (
	"testing"

	"go.starlark.net/starlark"

	"github.com/starbench/starbench/builtins/db/dbstar"
	"github.com/starbench/starbench/builtins/plantest"
	"github.com/starbench/starbench/builtins/report/reportstar"
	"github.com/starbench/starbench/builtins/sandbox/sandboxtest"
	"github.com/starbench/starbench/builtins/sysbench/sysbenchstar"
)

func TestMain(m *testing.M) { sandboxtest.Main(m) }

// The report snippets make their benchmark steps with db and sysbench,
// then report on them.
func TestSnippets(t *testing.T) {
	plantest.RunSnippets(t, "../../../testdata/report/*.star", starlark.StringDict{
		"db": dbstar.Module, "sysbench": sysbenchstar.Module, "report": reportstar.Module,
	})
}
