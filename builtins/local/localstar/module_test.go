package localstar_test

import (
	"testing"

	"go.starlark.net/starlark"

	"github.com/starbench/starbench/builtins/local/localstar"
	"github.com/starbench/starbench/builtins/yamlstar"
	"github.com/starbench/starbench/internal/testutil/plantest"
)

func TestSnippets(t *testing.T) {
	plantest.RunSnippets(t, "../../../testdata/local/*.star", starlark.StringDict{"local": localstar.Module})
	plantest.RunSnippets(t, "../../../testdata/yaml/*.star", starlark.StringDict{"yaml": yamlstar.Module})
}
