package runner

import (
	"go.starlark.net/lib/json"
	"go.starlark.net/lib/math"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// languageBuiltins are the globals every plan and module has besides the
// Starlark universe and the builtin modules.
func languageBuiltins() starlark.StringDict {
	return starlark.StringDict{
		"param":  starlark.NewBuiltin("param", paramBuiltin),
		"struct": starlark.NewBuiltin("struct", starlarkstruct.Make),
		"save":   starlark.NewBuiltin("save", saveBuiltin),
		"json":   json.Module,
		"math":   math.Module,
	}
}
