// Package chstar is the Starlark adapter of builtins/ch: the predeclared
// `ch` module (prepare, run, part and cleanup, each a step, as the family
// contract gives them) and `starbench ch`, go-tpc's command line.
package chstar

import (
	"go.starlark.net/starlark"

	"github.com/starbench/starbench/builtins/ch"
	"github.com/starbench/starbench/builtins/family/familystar"
	"github.com/starbench/starbench/builtins/tpcc/tpccstar"
)

// adapter makes the module of the CH-benCHmark family.
var adapter = &familystar.Adapter{
	Family:  ch.Family{},
	Convert: map[string]func(starlark.Value) (any, error){"ignore_errors": tpccstar.IgnoredErrors},
}

// Module is the predeclared `ch` module.
var Module = adapter.Module()

// Doc documents the module for `starbench doc`.
var Doc = adapter.Doc()
