package chstar_test

import (
	"testing"

	"go.starlark.net/starlark"

	"github.com/starbench/starbench/builtins/ch/chstar"
	"github.com/starbench/starbench/builtins/db/dbstar"
	"github.com/starbench/starbench/builtins/tpcc/tpccstar"
	"github.com/starbench/starbench/internal/testutil/plantest"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
)

func TestMain(m *testing.M) { sandboxtest.Main(m) }

var modules = starlark.StringDict{"db": dbstar.Module, "tpcc": tpccstar.Module, "ch": chstar.Module}

func TestSnippets(t *testing.T) {
	plantest.RunSnippets(t, "../../../testdata/ch/*.star", modules)
}
