package reportstar_test

import (
	"testing"

	"go.starlark.net/starlark"

	"github.com/starbench/starbench/builtins/db/dbstar"
	"github.com/starbench/starbench/builtins/report/reportstar"
	"github.com/starbench/starbench/builtins/sysbench/sysbenchstar"
	"github.com/starbench/starbench/internal/testutil/plantest"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
)

func TestMain(m *testing.M) { sandboxtest.Main(m) }

// The report snippets make their benchmark steps with db and sysbench,
// then report on them.
func TestSnippets(t *testing.T) {
	plantest.RunSnippets(t, "../../../testdata/report/*.star", starlark.StringDict{
		"db": dbstar.Module, "sysbench": sysbenchstar.Module, "report": reportstar.Module,
	})
}
