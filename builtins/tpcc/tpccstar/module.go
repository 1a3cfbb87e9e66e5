// Package tpccstar is the Starlark adapter of builtins/tpcc: the
// predeclared `tpcc` module (prepare, run, check, cleanup, each a step)
// and `starbench tpcc`, go-tpc's command line.
package tpccstar

import (
	"encoding/json"
	"fmt"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/builtins/db/dbstar"
	"github.com/starbench/starbench/builtins/family/familystar"
	"github.com/starbench/starbench/builtins/tpcc"
	"github.com/starbench/starbench/runner"
)

// adapter makes the module of the TPC-C family (builtins/tpcc.Family):
// prepare, run, part and cleanup as every family has them, and check.
var adapter = &familystar.Adapter{
	Family:  tpcc.Family{},
	Convert: map[string]func(starlark.Value) (any, error){"ignore_errors": IgnoredErrors},
	Extras:  starlark.StringDict{"check": starlark.NewBuiltin("tpcc.check", check)},
	ExtraDocs: []runner.FuncDoc{
		{Name: "tpcc.check", Signature: "tpcc.check(conn, warehouses=10, all=False, require=True, layout=\"go-tpc\")",
			Doc: "Checks the consistency conditions 3.3.2.1-12 (go-tpc's default set; all adds 3.3.2.11, which holds only " +
				"before a run), each as a few set-based queries per warehouse. Returns a struct: passed, conditions (number, " +
				"description, passed, offending, examples). With require=True a failed condition fails the step, naming it. In a dry " +
				"run passed is unknown: testing it (if, not, bool()) stops the dry run at that line, as the real run may take the other branch."},
	},
}

// Module is the predeclared `tpcc` module.
var Module = adapter.Module()

// Doc documents the module for `starbench doc`.
var Doc = adapter.Doc()

// layoutOf reads a layout= argument.
func layoutOf(b *starlark.Builtin, name string) (tpcc.Layout, error) {
	l, err := tpcc.ParseLayout(name)
	if err != nil {
		return l, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return l, nil
}

// IgnoredErrors reads ignore_errors: None (the defaults), "all", or a list
// of MySQL error codes.
func IgnoredErrors(v starlark.Value) (any, error) {
	switch v := v.(type) {
	case starlark.NoneType:
		return tpcc.IgnoredErrors{}, nil
	case starlark.String:
		if v == "all" {
			return tpcc.IgnoredErrors{All: true}, nil
		}
		return nil, fmt.Errorf(`want "all" or a list of error codes, not %q`, string(v))
	case *starlark.List:
		codes, err := familystar.Codes(v)
		return tpcc.IgnoredErrors{Codes: codes}, err
	}
	return nil, fmt.Errorf(`want "all" or a list of error codes, not %s`, v.Type())
}

func check(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var conn *dbstar.Conn
	warehouses, all, require := 10, false, true
	var layoutName string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "conn", &conn, "warehouses?", &warehouses, "all?", &all, "require?", &require,
		"layout?", &layoutName); err != nil {
		return nil, err
	}
	layout, err := layoutOf(b, layoutName)
	if err != nil {
		return nil, err
	}
	flags := []string{fmt.Sprintf("--warehouses %d", warehouses)}
	if all {
		flags = append(flags, "--check-all")
	}
	info := runner.StepInfo{Builtin: "tpcc.check", Handle: conn.ID(), Text: tpcc.PeerCommandLine(layout, conn.Session().Database, "check", flags...),
		Args: map[string]any{"warehouses": warehouses, "all": all, "require": require, "layout": layout.String()}}
	h := runner.HostOf(thread)
	return h.Step(info, runner.Action{
		Run: func(s *runner.Step) (runner.Outcome, error) {
			cfgs, settings := conn.Endpoints()
			if len(cfgs) == 0 {
				return runner.Outcome{}, fmt.Errorf("%s: connection %s is closed", b.Name(), conn.ID())
			}
			q, err := db.OpenSession(s.Context(), cfgs[0], db.Session{Database: cfgs[0].DBName, Settings: settings})
			if err != nil {
				return runner.Outcome{}, fmt.Errorf("%s: %w", b.Name(), err)
			}
			defer q.Close()
			conds, err := tpcc.Check(s.Context(), q, layout, warehouses, all)
			if err != nil {
				return runner.Outcome{}, fmt.Errorf("%s: %w", b.Name(), err)
			}
			out := h.Out().Writer()
			for _, line := range tpcc.CheckLines(conds) {
				fmt.Fprintln(out, line)
			}
			if require && !tpcc.Passed(conds) {
				return runner.Outcome{}, fmt.Errorf("%s: %s", b.Name(), failedList(conds))
			}
			return runner.Outcome{Value: checkValue(conds), Record: conds}, nil
		},
		Placeholder: func(s *runner.Step) starlark.Value {
			return checkPlaceholder(s.Unknown("passed", "give tpcc.check require = True to fail the run when a condition fails"))
		},
		Replay: func(_ *runner.Step, raw json.RawMessage) (starlark.Value, error) {
			var conds []tpcc.Condition
			err := json.Unmarshal(raw, &conds)
			return checkValue(conds), err
		},
	})
}

// failedList names the conditions that failed.
func failedList(conds []tpcc.Condition) string {
	var failed []string
	for _, c := range conds {
		if !c.Pass {
			failed = append(failed, fmt.Sprintf("%s (%s: %d %s)", c.Number, c.Description, c.Offending, c.Unit))
		}
	}
	return "consistency conditions failed: " + strings.Join(failed, "; ")
}

func checkValue(conds []tpcc.Condition) starlark.Value {
	var list []starlark.Value
	for _, c := range conds {
		list = append(list, starlarkstruct.FromStringDict(starlark.String("tpcc_condition"), starlark.StringDict{
			"number": starlark.String(c.Number), "description": starlark.String(c.Description), "passed": starlark.Bool(c.Pass),
			"offending": starlark.MakeInt(c.Offending), "examples": runner.StringList(c.Examples),
		}))
	}
	return starlarkstruct.FromStringDict(starlark.String("tpcc_check"), starlark.StringDict{
		"passed": starlark.Bool(tpcc.Passed(conds)), "conditions": starlark.NewList(list),
	})
}

// checkPlaceholder is a dry run's tpcc.check result: no conditions, and
// passed unknown (testing it for truth stops the dry run).
func checkPlaceholder(passed starlark.Value) starlark.Value {
	return starlarkstruct.FromStringDict(starlark.String("tpcc_check"), starlark.StringDict{
		"passed": passed, "conditions": starlark.NewList(nil),
	})
}
