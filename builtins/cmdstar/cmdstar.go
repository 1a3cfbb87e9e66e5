// Package cmdstar holds what the Starlark modules that run commands (local,
// ssh) share: the result value of a command, the error of a failed one
// under check=True, and argument helpers.
package cmdstar

import (
	"fmt"
	"sort"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// Result is a finished command as modules record it.
type Result struct {
	ExitCode int    `json:"exit_code"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
}

// Value is the plan's view of a result: .exit_code, .stdout, .stderr, .ok.
func (r Result) Value() starlark.Value {
	return starlarkstruct.FromStringDict(starlark.String("command_result"), starlark.StringDict{
		"exit_code": starlark.MakeInt(r.ExitCode),
		"stdout":    starlark.String(r.Stdout),
		"stderr":    starlark.String(r.Stderr),
		"ok":        starlark.Bool(r.ExitCode == 0),
	})
}

// Check is the error of a command that exited non-zero under check=True:
// it shows the command, the code and the end of stderr.
func Check(name, where, cmd string, r Result) error {
	if r.ExitCode == 0 {
		return nil
	}
	tail := Tail(r.Stderr, 15)
	if tail == "" {
		tail = Tail(r.Stdout, 15)
	}
	msg := fmt.Sprintf("%s: %s: command exited with code %d: %s", name, where, r.ExitCode, Abbrev(cmd, 300))
	if tail != "" {
		msg += "\n" + tail
	}
	return fmt.Errorf("%s", msg)
}

// Tail returns the last n lines of text.
func Tail(text string, n int) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// Abbrev shortens a command for messages.
func Abbrev(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Env reads an env= dict of strings.
func Env(name string, v starlark.Value) (map[string]string, error) {
	if v == nil || v == starlark.None {
		return nil, nil
	}
	d, ok := v.(*starlark.Dict)
	if !ok {
		return nil, fmt.Errorf("%s: env must be a dict of strings, not %s", name, v.Type())
	}
	env := map[string]string{}
	for _, kv := range d.Items() {
		k, ok1 := starlark.AsString(kv[0])
		val, ok2 := starlark.AsString(kv[1])
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("%s: env keys and values must be strings", name)
		}
		env[k] = val
	}
	return env, nil
}

// EnvKeys lists env names for step records (values may be secrets and
// are hashed by the runner like any argument).
func EnvKeys(env map[string]string) []string {
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
