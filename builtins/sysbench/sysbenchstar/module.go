// Package sysbenchstar is the Starlark adapter of builtins/sysbench: the
// predeclared `sysbench` module, made by the generic family adapter from
// sysbench.Family (prepare, run, part, cleanup), with prewarm and
// table_names as its extras, and `starbench sysbench`, sysbench's command
// line.
package sysbenchstar

import (
	"encoding/json"
	"fmt"

	"go.starlark.net/starlark"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/bench/benchstar"
	"github.com/starbench/starbench/builtins/family/familystar"
	"github.com/starbench/starbench/builtins/sysbench"
	"github.com/starbench/starbench/runner"
)

// adapter makes the module of the sysbench family.
var adapter = &familystar.Adapter{
	Family: sysbench.Family{},
	Extras: starlark.StringDict{
		"prewarm":     starlark.NewBuiltin("sysbench.prewarm", prewarm),
		"table_names": starlark.NewBuiltin("sysbench.table_names", tableNames),
	},
	ExtraDocs: []runner.FuncDoc{
		{Name: "sysbench.prewarm", Signature: "sysbench.prewarm(conn, tables=1, table_size=10000, threads=1, workload=\"oltp_read_write\", **options)",
			Doc: "ANALYZE TABLE and full reads of each table to load it into the server's caches (sysbench's prewarm; warmup in master)."},
		{Name: "sysbench.table_names", Signature: "sysbench.table_names(n)",
			Doc: "Returns [\"sbtest1\", ..., \"sbtestN\"], e.g. for conn.analyze(sysbench.table_names(16))."},
	},
}

// calls reads the extras' calls as the steps' are read.
var calls = &familystar.Adapter{Family: sysbench.Family{}}

// Module is the predeclared `sysbench` module.
var Module = adapter.Module()

// Doc documents the module for `starbench doc`.
var Doc = adapter.Doc()

func prewarm(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	f := sysbench.Family{}
	conn, v, err := calls.Call(b, "prewarm", args, kwargs, f.PrewarmOptions())
	if err != nil {
		return nil, err
	}
	c, script, err := sysbench.PrewarmScript(v)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	h := runner.HostOf(thread)
	info := runner.StepInfo{Builtin: b.Name(), Args: f.JournalArgs("prewarm", v), Text: f.CommandLine("prewarm", v, conn.Session().Database), Handle: conn.ID()}
	return h.Step(info, runner.Action{
		Run: func(s *runner.Step) (runner.Outcome, error) {
			sc, err := benchstar.Connector(conn, bench.PSMode(c.Options.PSMode))
			if err == nil {
				err = sysbench.Prewarm(s.Context(), sc, script, &c.Options, h.Out().Writer())
			}
			if err != nil {
				return runner.Outcome{}, fmt.Errorf("%s: %w", b.Name(), err)
			}
			return runner.Outcome{}, nil
		},
		Replay: func(*runner.Step, json.RawMessage) (starlark.Value, error) { return starlark.None, nil },
	})
}

func tableNames(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var n int
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "n", &n); err != nil {
		return nil, err
	}
	if n < 1 {
		return nil, fmt.Errorf("%s: n must be at least 1, got %d", b.Name(), n)
	}
	return runner.StringList(sysbench.TableNames(n)), nil
}
