// Package tpchstar is the Starlark adapter of builtins/tpch: the
// predeclared `tpch` module (prepare, run, part and cleanup, each a step,
// as the family contract gives them).
package tpchstar

import (
	"github.com/starbench/starbench/builtins/family/familystar"
	"github.com/starbench/starbench/builtins/tpch"
)

// adapter makes the module of the TPC-H family.
var adapter = &familystar.Adapter{Family: tpch.Family{}}

// Module is the predeclared `tpch` module.
var Module = adapter.Module()

// Doc documents the module for `starbench doc`.
var Doc = adapter.Doc()
