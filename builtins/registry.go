// Package builtins lists every predeclared Starlark module of starbench in
// one table, and with it the workload families. Each module's Go core
// lives in its own package (builtins/db, ...) without Starlark; its adapter
// (builtins/db/dbstar, ...) is what this table registers. A workload
// family's adapter also gives its command line (`starbench sysbench ...`).
//
// Adding a family (TPC-C, say) takes a core package (builtins/tpcc: the
// workload, its options, prepare/check/cleanup, the rows for bulkload), an
// adapter package (builtins/tpcc/tpccstar: Module, Doc and Command) and one
// line here. The family's plan module is then predeclared and documented
// (`starbench doc`), its subcommand exists, its steps run through
// bench.RunStep into results folders that reports and compare read.
package builtins

import (
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/starbench/starbench/builtins/bench/benchstar"
	"github.com/starbench/starbench/builtins/ch"
	"github.com/starbench/starbench/builtins/ch/chstar"
	"github.com/starbench/starbench/builtins/cli"
	"github.com/starbench/starbench/builtins/db/dbstar"
	"github.com/starbench/starbench/builtins/family"
	"github.com/starbench/starbench/builtins/local/localstar"
	"github.com/starbench/starbench/builtins/mix"
	"github.com/starbench/starbench/builtins/mix/mixstar"
	"github.com/starbench/starbench/builtins/report/reportstar"
	"github.com/starbench/starbench/builtins/ssh/sshstar"
	"github.com/starbench/starbench/builtins/sysbench"
	"github.com/starbench/starbench/builtins/sysbench/sysbenchstar"
	"github.com/starbench/starbench/builtins/telemetry/telemetrystar"
	"github.com/starbench/starbench/builtins/tpcc"
	"github.com/starbench/starbench/builtins/tpcc/tpccstar"
	"github.com/starbench/starbench/builtins/tpch"
	"github.com/starbench/starbench/builtins/tpch/tpchstar"
	"github.com/starbench/starbench/builtins/yamlstar"
	"github.com/starbench/starbench/runner"
)

// Entry is one predeclared module; a workload family's also has its
// command line.
type Entry struct {
	Module  *starlarkstruct.Module
	Doc     runner.ModuleDoc
	Command *cli.Command // `starbench NAME ...`, for workload families
	// Peers are further commands of the family, each shaped like a peer
	// tool's command line (`starbench ycsb ...` runs the mix family).
	Peers  []*cli.Command
	Family family.Family // the family's Go value, for agents on client hosts
}

// Modules is every predeclared module, in the order `starbench doc` lists them.
var Modules = []Entry{
	{Module: dbstar.Module, Doc: dbstar.Doc},
	{Module: sysbenchstar.Module, Doc: sysbenchstar.Doc, Command: sysbenchstar.Command, Family: sysbench.Family{}},
	{Module: tpccstar.Module, Doc: tpccstar.Doc, Command: tpccstar.Command, Family: tpcc.Family{}},
	{Module: mixstar.Module, Doc: mixstar.Doc, Command: mixstar.Command, Peers: []*cli.Command{mixstar.YCSBCommand}, Family: mix.Family{}},
	{Module: tpchstar.Module, Doc: tpchstar.Doc, Command: tpchstar.Command, Family: tpch.Family{}},
	{Module: chstar.Module, Doc: chstar.Doc, Command: chstar.Command, Family: ch.Family{}},
	{Module: benchstar.Module, Doc: benchstar.Doc},
	{Module: reportstar.Module, Doc: reportstar.Doc},
	{Module: sshstar.Module, Doc: sshstar.Doc},
	{Module: telemetrystar.Module, Doc: telemetrystar.Doc},
	{Module: localstar.Module, Doc: localstar.Doc},
	{Module: yamlstar.Module, Doc: yamlstar.Doc},
}

// Families are the workload families: the modules with a command line.
func Families() []Entry {
	var out []Entry
	for _, e := range Modules {
		if e.Command != nil {
			out = append(out, e)
		}
	}
	return out
}

// FamilyNamed is the workload family of a name (an agent is sent its
// family's name with the run).
func FamilyNamed(name string) (family.Family, bool) {
	for _, e := range Modules {
		if e.Family != nil && e.Family.Name() == name {
			return e.Family, true
		}
	}
	return nil, false
}

// Predeclared returns the modules as plan globals.
func Predeclared() starlark.StringDict {
	d := starlark.StringDict{}
	for _, e := range Modules {
		d[e.Module.Name] = e.Module
	}
	return d
}
