package tpchstar_test

import (
	"testing"

	"go.starlark.net/starlark"

	"github.com/starbench/starbench/builtins/db/dbstar"
	"github.com/starbench/starbench/builtins/tpch/tpchstar"
	"github.com/starbench/starbench/internal/testutil/plantest"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
)

func TestMain(m *testing.M) { sandboxtest.Main(m) }

var modules = starlark.StringDict{"db": dbstar.Module, "tpch": tpchstar.Module}

func TestSnippets(t *testing.T) {
	plantest.RunSnippets(t, "../../../testdata/tpch/*.star", modules)
}
