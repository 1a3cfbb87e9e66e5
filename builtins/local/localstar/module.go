// Package localstar is the Starlark adapter of builtins/local: the
// predeclared `local` module, for commands and files on the client machine.
package localstar

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/starbench/starbench/builtins/cmdstar"
	"github.com/starbench/starbench/builtins/local"
	"github.com/starbench/starbench/internal/atomicfile"
	"github.com/starbench/starbench/runner"
)

// Module is the predeclared `local` module.
var Module = &starlarkstruct.Module{
	Name: "local",
	Members: starlark.StringDict{
		"run":        starlark.NewBuiltin("local.run", run),
		"write_file": starlark.NewBuiltin("local.write_file", writeFile),
		"read_file":  starlark.NewBuiltin("local.read_file", readFile),
	},
}

// Doc documents the module for `starbench doc`.
var Doc = runner.ModuleDoc{
	Name:    "local",
	Summary: "Commands and files on the client machine, the one starbench runs on. Each call is a step.",
	Funcs: []runner.FuncDoc{
		{Name: "local.run", Signature: "local.run(cmd, timeout=None, env={}, dir=None, check=True)",
			Doc: "Runs cmd with sh -c; its output lines go to output.log as they arrive. Returns a struct (exit_code, stdout, " +
				"stderr, ok). With check=True a non-zero exit fails the plan, showing the command, the code and the end of stderr. " +
				"timeout (a duration) kills the command and everything it started."},
		{Name: "local.write_file", Signature: "local.write_file(path, content, mode=0o644)",
			Doc: "Writes content to path atomically (temp file + rename), e.g. a HAProxy config."},
		{Name: "local.read_file", Signature: "local.read_file(path)", Doc: "Returns the content of a file as a string."},
	},
}

func run(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var cmd, dir string
	var timeout runner.Duration
	var envVal starlark.Value = starlark.None
	var timeoutVal starlark.Value = starlark.None
	check := true
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "cmd", &cmd, "timeout?", &timeoutVal, "env?", &envVal, "dir?", &dir, "check?", &check); err != nil {
		return nil, err
	}
	if timeoutVal != starlark.None {
		if err := timeout.Unpack(timeoutVal); err != nil {
			return nil, fmt.Errorf("%s: timeout: %w", b.Name(), err)
		}
	}
	env, err := cmdstar.Env(b.Name(), envVal)
	if err != nil {
		return nil, err
	}
	info := runner.StepInfo{Builtin: "local.run", Text: cmd,
		Args: map[string]any{"env": env, "dir": dir, "timeout": timeout.String(), "check": check}}
	return runner.HostOf(thread).Step(info, runner.Action{
		Run: func(s *runner.Step) (runner.Outcome, error) {
			res, err := local.Run(s.Context(), cmd, local.Options{
				Timeout: timeout.Duration, Env: env, Dir: dir,
				OnStdout: func(line string) { s.Logf("%s", line) },
				OnStderr: func(line string) { s.Logf("stderr: %s", line) },
			})
			if err != nil {
				return runner.Outcome{}, fmt.Errorf("%s: %w", b.Name(), err)
			}
			r := cmdstar.Result{ExitCode: res.ExitCode, Stdout: res.Stdout, Stderr: res.Stderr}
			if check {
				if err := cmdstar.Check(b.Name(), "local", cmd, r); err != nil {
					return runner.Outcome{}, err
				}
			}
			return runner.Outcome{Value: r.Value(), Record: r}, nil
		},
		Placeholder: func(*runner.Step) starlark.Value { return cmdstar.Result{}.Value() },
		Replay: func(_ *runner.Step, raw json.RawMessage) (starlark.Value, error) {
			var r cmdstar.Result
			err := json.Unmarshal(raw, &r)
			return r.Value(), err
		},
	})
}

func writeFile(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var path, content string
	mode := 0o644
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "path", &path, "content", &content, "mode?", &mode); err != nil {
		return nil, err
	}
	info := runner.StepInfo{Builtin: "local.write_file", Text: fmt.Sprintf("write %s (%d bytes)", path, len(content)),
		Args: map[string]any{"path": path, "content": content, "mode": mode}, Detail: content}
	return runner.HostOf(thread).Step(info, runner.Action{
		Run: func(*runner.Step) (runner.Outcome, error) {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return runner.Outcome{}, fmt.Errorf("%s: %w", b.Name(), err)
			}
			if err := atomicfile.WriteFile(path, []byte(content)); err != nil {
				return runner.Outcome{}, fmt.Errorf("%s: %w", b.Name(), err)
			}
			if err := os.Chmod(path, os.FileMode(mode)); err != nil {
				return runner.Outcome{}, fmt.Errorf("%s: %w", b.Name(), err)
			}
			return runner.Outcome{}, nil
		},
		Replay: func(*runner.Step, json.RawMessage) (starlark.Value, error) { return starlark.None, nil },
	})
}

func readFile(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var path string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "path", &path); err != nil {
		return nil, err
	}
	info := runner.StepInfo{Builtin: "local.read_file", Text: "read " + path, Args: map[string]any{"path": path}}
	return runner.HostOf(thread).Step(info, runner.Action{
		Run: func(*runner.Step) (runner.Outcome, error) {
			data, err := os.ReadFile(path)
			if err != nil {
				return runner.Outcome{}, fmt.Errorf("%s: %w", b.Name(), err)
			}
			return runner.Outcome{Value: starlark.String(data), Record: string(data)}, nil
		},
		Placeholder: func(*runner.Step) starlark.Value { return starlark.String("") },
		Replay: func(_ *runner.Step, raw json.RawMessage) (starlark.Value, error) {
			var s string
			err := json.Unmarshal(raw, &s)
			return starlark.String(s), err
		},
	})
}
