// Package builtins lists every predeclared Starlark module of starbench in
// one table. Each module's Go core lives in its own package (builtins/db,
// ...) without Starlark; its adapter (builtins/db/dbstar, ...) is what this
// table registers.
package builtins

import (
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/starbench/starbench/builtins/db/dbstar"
	"github.com/starbench/starbench/builtins/local/localstar"
	"github.com/starbench/starbench/builtins/report/reportstar"
	"github.com/starbench/starbench/builtins/ssh/sshstar"
	"github.com/starbench/starbench/builtins/sysbench/sysbenchstar"
	"github.com/starbench/starbench/builtins/yamlstar"
	"github.com/starbench/starbench/runner"
)

// Entry is one predeclared module.
type Entry struct {
	Module *starlarkstruct.Module
	Doc    runner.ModuleDoc
}

// Modules is every predeclared module, in the order `starbench doc` lists them.
var Modules = []Entry{
	{Module: dbstar.Module, Doc: dbstar.Doc},
	{Module: sysbenchstar.Module, Doc: sysbenchstar.Doc},
	{Module: reportstar.Module, Doc: reportstar.Doc},
	{Module: sshstar.Module, Doc: sshstar.Doc},
	{Module: localstar.Module, Doc: localstar.Doc},
	{Module: yamlstar.Module, Doc: yamlstar.Doc},
}

// Predeclared returns the modules as plan globals.
func Predeclared() starlark.StringDict {
	d := starlark.StringDict{}
	for _, e := range Modules {
		d[e.Module.Name] = e.Module
	}
	return d
}
