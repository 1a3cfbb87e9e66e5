// Package sshstar is the Starlark adapter of builtins/ssh: the predeclared
// `ssh` module, its host handles and host groups. Every call that talks to
// a host is a step; output lines go to the run's log as they arrive.
package sshstar

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/hashicorp/go-multierror"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/starbench/starbench/builtins/cmdstar"
	"github.com/starbench/starbench/builtins/ssh"
	"github.com/starbench/starbench/runner"
)

// Module is the predeclared `ssh` module.
var Module = &starlarkstruct.Module{
	Name: "ssh",
	Members: starlark.StringDict{
		"host":       starlark.NewBuiltin("ssh.host", hostBuiltin),
		"group":      starlark.NewBuiltin("ssh.group", groupBuiltin),
		"quote":      starlark.NewBuiltin("ssh.quote", quote),
		"quote_args": starlark.NewBuiltin("ssh.quote_args", quoteArgs),
	},
}

// Doc documents the module for `starbench doc`.
var Doc = runner.ModuleDoc{
	Name: "ssh",
	Summary: "Hosts reached over SSH: commands, files, groups of hosts. Host keys are verified against known_hosts; " +
		"each call is a step whose output lines go to output.log as they arrive.",
	Funcs: []runner.FuncDoc{
		{Name: "ssh.host", Signature: "ssh.host(address, key_file=None, agent=False, password_env=None, known_hosts=None, insecure_ignore_host_key=False, jump=None)",
			Doc: "Connects to \"user@host:port\" and returns a host handle. Authentication: key_file, the SSH agent, or a password " +
				"read from the environment variable named by password_env (never from the plan). known_hosts defaults to " +
				"~/.ssh/known_hosts; a host whose key is unknown or different is refused unless insecure_ignore_host_key=True, " +
				"which prints a warning. jump is a host (or address) to connect through, like ssh -J."},
		{Name: "host.run", Signature: "host.run(cmd, timeout=None, env={}, check=True)",
			Doc: "Runs cmd in the login shell. Returns a struct (exit_code, stdout, stderr, ok). check=True makes a non-zero exit " +
				"an error showing the command, the code and the end of stderr. timeout kills the remote command. A dropped " +
				"connection fails the step with a clear message."},
		{Name: "host.write_file", Signature: "host.write_file(path, content, mode=0o644)",
			Doc: "Writes content to a remote file atomically, verified by sha256. Retried once on a dropped connection."},
		{Name: "host.read_file", Signature: "host.read_file(path)", Doc: "Returns a remote file's content. Retried once on a dropped connection."},
		{Name: "host.upload", Signature: "host.upload(local_path, remote_path)",
			Doc: "Copies a local file to the host, streaming, verified by sha256. Retried once on a dropped connection."},
		{Name: "host.download", Signature: "host.download(remote_path, local_path)",
			Doc: "Copies a remote file to the client machine, verified by sha256. Retried once on a dropped connection."},
		{Name: "host.close", Signature: "host.close()", Doc: "Closes the connection (hosts still open when the plan ends are closed then)."},
		{Name: "ssh.group", Signature: "ssh.group(hosts)",
			Doc: "A group of hosts whose run(cmd, timeout=None, env={}, check=True) runs on all of them in parallel (one child " +
				"step per host) and returns the results in the hosts' order; failures on several hosts are reported together."},
		{Name: "group.run", Signature: "group.run(cmd, timeout=None, env={}, check=True)", Doc: "See ssh.group."},
		{Name: "ssh.quote", Signature: "ssh.quote(s)", Doc: "Quotes s for a POSIX shell."},
		{Name: "ssh.quote_args", Signature: "ssh.quote_args(args)", Doc: "Quotes each of a list of arguments and joins them with spaces."},
	},
}

// runState closes the run's hosts at its end.
type runState struct {
	mu    sync.Mutex
	hosts []*Host
	next  int
}

type stateKey struct{}

func stateOf(thread *starlark.Thread) *runState {
	h := runner.HostOf(thread)
	return h.State(stateKey{}, func() any {
		st := &runState{}
		h.OnFinish(func() {
			st.mu.Lock()
			defer st.mu.Unlock()
			for _, h := range st.hosts {
				h.closeNow()
			}
		})
		return st
	}).(*runState)
}

// Host is a host handle. Its client connects on ssh.host, or lazily on
// first use in a resumed run, and again after a dropped connection.
type Host struct {
	id      string
	address string
	spec    ssh.Spec
	mu      sync.Mutex
	client  *ssh.Client
	closed  bool
}

var _ starlark.HasAttrs = (*Host)(nil)

func (h *Host) String() string        { return fmt.Sprintf("<ssh host %s %s>", h.id, h.address) }
func (h *Host) Type() string          { return "ssh.host" }
func (h *Host) Freeze()               {}
func (h *Host) Truth() starlark.Bool  { return true }
func (h *Host) Hash() (uint32, error) { return starlark.String(h.id).Hash() }

var hostMethods = map[string]func(*Host, *starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error){
	"run":        (*Host).run,
	"write_file": (*Host).writeFile,
	"read_file":  (*Host).readFile,
	"upload":     (*Host).upload,
	"download":   (*Host).download,
	"close":      (*Host).close,
}

func (h *Host) Attr(name string) (starlark.Value, error) {
	switch name {
	case "address":
		return starlark.String(h.address), nil
	case "id":
		return starlark.String(h.id), nil
	}
	if m, ok := hostMethods[name]; ok {
		return starlark.NewBuiltin("host."+name, func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			return m(h, thread, b, args, kwargs)
		}), nil
	}
	return nil, nil
}

func (h *Host) AttrNames() []string {
	names := []string{"address", "id"}
	for n := range hostMethods {
		names = append(names, n)
	}
	return names
}

// Address is the host's address as the plan gave it.
func (h *Host) Address() string { return h.address }

// Connect returns the host's connection, dialing when it has none (an
// agent a part runs on starts over it).
func (h *Host) Connect(ctx context.Context) (*ssh.Client, error) { return h.connected(ctx) }

// connected returns the client, dialing when there is none.
func (h *Host) connected(ctx context.Context) (*ssh.Client, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, fmt.Errorf("host %s (%s) is closed", h.id, h.address)
	}
	if h.client != nil && h.client.Alive() {
		return h.client, nil
	}
	if h.client != nil { // dropped since it was last used: dial again
		_ = h.client.Close()
		h.client = nil
	}
	c, err := ssh.Dial(ctx, h.spec)
	if err != nil {
		return nil, err
	}
	h.client = c
	return c, nil
}

// dropClient forgets a client whose connection was lost.
func (h *Host) dropClient(c *ssh.Client) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.client == c {
		_ = c.Close()
		h.client = nil
	}
}

func (h *Host) closeNow() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	if h.client != nil {
		_ = h.client.Close()
		h.client = nil
	}
}

// do runs op on a connected client. An idempotent op is retried once on a
// fresh connection when the connection was lost.
func (h *Host) do(ctx context.Context, idempotent bool, op func(*ssh.Client) error) error {
	for attempt := 0; ; attempt++ {
		c, err := h.connected(ctx)
		if err != nil {
			return err
		}
		err = op(c)
		if errors.Is(err, ssh.ErrConnectionLost) {
			h.dropClient(c)
			if idempotent && attempt == 0 && ctx.Err() == nil {
				continue
			}
			return fmt.Errorf("%w (host %s, %s); the step failed, the next call reconnects", err, h.id, h.address)
		}
		return err
	}
}

func hostBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var address, keyFile, passwordEnv, knownHosts string
	var agent, insecure bool
	var jump starlark.Value = starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "address", &address, "key_file?", &keyFile, "agent?", &agent,
		"password_env?", &passwordEnv, "known_hosts?", &knownHosts, "insecure_ignore_host_key?", &insecure, "jump?", &jump); err != nil {
		return nil, err
	}
	user, host, port, err := ssh.ParseAddress(address)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	spec := ssh.Spec{User: user, Host: host, Port: port, KeyFile: keyFile, Agent: agent, PasswordEnv: passwordEnv,
		KnownHosts: knownHosts, InsecureIgnoreHostKey: insecure}
	switch j := jump.(type) {
	case starlark.NoneType:
	case *Host:
		js := j.spec
		spec.Jump = &js
	case starlark.String:
		ju, jh, jp, err := ssh.ParseAddress(string(j))
		if err != nil {
			return nil, fmt.Errorf("%s: jump: %w", b.Name(), err)
		}
		spec.Jump = &ssh.Spec{User: ju, Host: jh, Port: jp}
	default:
		return nil, fmt.Errorf("%s: jump must be a host or an address, not %s", b.Name(), jump.Type())
	}
	if passwordEnv != "" {
		if pw := os.Getenv(passwordEnv); pw != "" {
			runner.HostOf(thread).Run().AddSecret(pw)
		}
	}
	if insecure {
		runner.HostOf(thread).Out().Warn("host key checking is off for %s (insecure_ignore_host_key=True): the connection could be intercepted", address)
	}
	st := stateOf(thread)
	st.mu.Lock()
	st.next++
	h := &Host{id: fmt.Sprintf("host%d", st.next), address: fmt.Sprintf("%s@%s:%d", user, host, port), spec: spec}
	st.hosts = append(st.hosts, h)
	st.mu.Unlock()
	recorded := map[string]any{"address": h.address, "key_file": keyFile, "agent": agent, "password_env": passwordEnv,
		"known_hosts": knownHosts, "insecure_ignore_host_key": insecure}
	if spec.Jump != nil {
		recorded["jump"] = fmt.Sprintf("%s@%s:%d", spec.Jump.User, spec.Jump.Host, spec.Jump.Port)
	}
	info := runner.StepInfo{Builtin: "ssh.host", Text: "connect " + h.address, Args: recorded}
	return runner.HostOf(thread).Step(info, runner.Action{
		Run: func(s *runner.Step) (runner.Outcome, error) {
			if _, err := h.connected(s.Context()); err != nil {
				return runner.Outcome{}, fmt.Errorf("%s: %w", b.Name(), err)
			}
			return runner.Outcome{Value: h, Record: map[string]any{"address": h.address},
				Handle: &runner.HandleSpec{Kind: "ssh", ID: h.id, Spec: recorded}}, nil
		},
		Placeholder: func(*runner.Step) starlark.Value { return h },
		Replay:      func(*runner.Step, json.RawMessage) (starlark.Value, error) { return h, nil }, // connects on first use
	})
}

type runArgs struct {
	cmd     string
	timeout runner.Duration
	env     map[string]string
	check   bool
}

func unpackRun(b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (*runArgs, error) {
	r := &runArgs{check: true}
	var timeoutVal, envVal starlark.Value = starlark.None, starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "cmd", &r.cmd, "timeout?", &timeoutVal, "env?", &envVal, "check?", &r.check); err != nil {
		return nil, err
	}
	if timeoutVal != starlark.None {
		if err := r.timeout.Unpack(timeoutVal); err != nil {
			return nil, fmt.Errorf("%s: timeout: %w", b.Name(), err)
		}
	}
	env, err := cmdstar.Env(b.Name(), envVal)
	if err != nil {
		return nil, err
	}
	r.env = env
	return r, nil
}

func (r *runArgs) record() map[string]any {
	return map[string]any{"env": r.env, "timeout": r.timeout.String(), "check": r.check}
}

// runOn runs a command on h within step s.
func (h *Host) runOn(s *runner.Step, name string, r *runArgs) (cmdstar.Result, error) {
	var res *ssh.Result
	err := h.do(s.Context(), false, func(c *ssh.Client) error {
		var err error
		res, err = c.Run(s.Context(), r.cmd, ssh.RunOptions{
			Timeout: r.timeout.Duration, Env: r.env,
			OnStdout: func(line string) { s.Logf("%s: %s", h.address, line) },
			OnStderr: func(line string) { s.Logf("%s: stderr: %s", h.address, line) },
		})
		return err
	})
	if err != nil {
		return cmdstar.Result{}, fmt.Errorf("%s: %s: %w", name, h.address, err)
	}
	out := cmdstar.Result{ExitCode: res.ExitCode, Stdout: res.Stdout, Stderr: res.Stderr}
	if r.check {
		if err := cmdstar.Check(name, h.address, r.cmd, out); err != nil {
			return out, err
		}
	}
	return out, nil
}

func replayResult(_ *runner.Step, raw json.RawMessage) (starlark.Value, error) {
	var r cmdstar.Result
	err := json.Unmarshal(raw, &r)
	return r.Value(), err
}

func (h *Host) run(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	r, err := unpackRun(b, args, kwargs)
	if err != nil {
		return nil, err
	}
	info := runner.StepInfo{Builtin: "ssh.run", Text: r.cmd, Handle: h.id, Args: r.record()}
	return runner.HostOf(thread).Step(info, runner.Action{
		Run: func(s *runner.Step) (runner.Outcome, error) {
			out, err := h.runOn(s, b.Name(), r)
			if err != nil {
				return runner.Outcome{}, err
			}
			return runner.Outcome{Value: out.Value(), Record: out}, nil
		},
		Placeholder: func(*runner.Step) starlark.Value { return cmdstar.Result{}.Value() },
		Replay:      replayResult,
	})
}

func (h *Host) writeFile(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var path, content string
	mode := 0o644
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "path", &path, "content", &content, "mode?", &mode); err != nil {
		return nil, err
	}
	info := runner.StepInfo{Builtin: "ssh.write_file", Handle: h.id, Text: fmt.Sprintf("write %s:%s (%d bytes)", h.address, path, len(content)),
		Args: map[string]any{"path": path, "content": content, "mode": mode}, Detail: content}
	return h.fileStep(thread, b, info, func(ctx context.Context, c *ssh.Client) (starlark.Value, any, error) {
		return starlark.None, nil, c.WriteFile(ctx, path, []byte(content), os.FileMode(mode))
	})
}

func (h *Host) readFile(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var path string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "path", &path); err != nil {
		return nil, err
	}
	info := runner.StepInfo{Builtin: "ssh.read_file", Handle: h.id, Text: "read " + h.address + ":" + path, Args: map[string]any{"path": path}}
	return h.fileStep(thread, b, info, func(ctx context.Context, c *ssh.Client) (starlark.Value, any, error) {
		data, err := c.ReadFile(ctx, path)
		return starlark.String(data), string(data), err
	})
}

func (h *Host) upload(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var local, remote string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "local_path", &local, "remote_path", &remote); err != nil {
		return nil, err
	}
	info := runner.StepInfo{Builtin: "ssh.upload", Handle: h.id, Text: fmt.Sprintf("upload %s to %s:%s", local, h.address, remote),
		Args: map[string]any{"local": local, "remote": remote}}
	return h.fileStep(thread, b, info, func(ctx context.Context, c *ssh.Client) (starlark.Value, any, error) {
		return starlark.None, nil, c.Upload(ctx, local, remote)
	})
}

func (h *Host) download(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var remote, local string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "remote_path", &remote, "local_path", &local); err != nil {
		return nil, err
	}
	info := runner.StepInfo{Builtin: "ssh.download", Handle: h.id, Text: fmt.Sprintf("download %s:%s to %s", h.address, remote, local),
		Args: map[string]any{"local": local, "remote": remote}}
	return h.fileStep(thread, b, info, func(ctx context.Context, c *ssh.Client) (starlark.Value, any, error) {
		return starlark.None, nil, c.Download(ctx, remote, local)
	})
}

// fileStep runs an idempotent file operation as a step (retried once on
// a lost connection).
func (h *Host) fileStep(thread *starlark.Thread, b *starlark.Builtin, info runner.StepInfo,
	op func(context.Context, *ssh.Client) (starlark.Value, any, error)) (starlark.Value, error) {
	return runner.HostOf(thread).Step(info, runner.Action{
		Run: func(s *runner.Step) (runner.Outcome, error) {
			var v starlark.Value
			var rec any
			err := h.do(s.Context(), true, func(c *ssh.Client) error {
				var err error
				v, rec, err = op(s.Context(), c)
				return err
			})
			if err != nil {
				return runner.Outcome{}, fmt.Errorf("%s: %s: %w", b.Name(), h.address, err)
			}
			return runner.Outcome{Value: v, Record: rec}, nil
		},
		Placeholder: func(*runner.Step) starlark.Value {
			if info.Builtin == "ssh.read_file" {
				return starlark.String("")
			}
			return starlark.None
		},
		Replay: func(_ *runner.Step, raw json.RawMessage) (starlark.Value, error) {
			if info.Builtin != "ssh.read_file" {
				return starlark.None, nil
			}
			var s string
			err := json.Unmarshal(raw, &s)
			return starlark.String(s), err
		},
	})
}

func (h *Host) close(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	return runner.HostOf(thread).Step(runner.StepInfo{Builtin: "ssh.close", Handle: h.id, Text: "close " + h.address}, runner.Action{
		Run:    func(*runner.Step) (runner.Outcome, error) { h.closeNow(); return runner.Outcome{}, nil },
		Replay: func(*runner.Step, json.RawMessage) (starlark.Value, error) { h.closeNow(); return starlark.None, nil },
	})
}

// Group runs commands on several hosts in parallel.
type Group struct{ hosts []*Host }

func (g *Group) String() string        { return fmt.Sprintf("<ssh group of %d hosts>", len(g.hosts)) }
func (g *Group) Type() string          { return "ssh.group" }
func (g *Group) Freeze()               {}
func (g *Group) Truth() starlark.Bool  { return len(g.hosts) > 0 }
func (g *Group) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable: ssh.group") }
func (g *Group) AttrNames() []string   { return []string{"hosts", "run"} }
func (g *Group) Attr(name string) (starlark.Value, error) {
	switch name {
	case "hosts":
		vals := make([]starlark.Value, len(g.hosts))
		for i, h := range g.hosts {
			vals[i] = h
		}
		return starlark.NewList(vals), nil
	case "run":
		return starlark.NewBuiltin("group.run", g.run), nil
	}
	return nil, nil
}

func groupBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var list starlark.Iterable
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "hosts", &list); err != nil {
		return nil, err
	}
	g := &Group{}
	iter := list.Iterate()
	defer iter.Done()
	var v starlark.Value
	for iter.Next(&v) {
		h, ok := v.(*Host)
		if !ok {
			return nil, fmt.Errorf("%s: want hosts from ssh.host(), got %s", b.Name(), v.Type())
		}
		g.hosts = append(g.hosts, h)
	}
	if len(g.hosts) == 0 {
		return nil, fmt.Errorf("%s: no hosts", b.Name())
	}
	return g, nil
}

func (g *Group) run(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	r, err := unpackRun(b, args, kwargs)
	if err != nil {
		return nil, err
	}
	var addrs []string
	for _, h := range g.hosts {
		addrs = append(addrs, h.address)
	}
	rec := r.record()
	rec["hosts"] = addrs
	info := runner.StepInfo{Builtin: "ssh.group_run", Text: r.cmd, Args: rec}
	return runner.HostOf(thread).Step(info, runner.Action{
		Run: func(s *runner.Step) (runner.Outcome, error) {
			children := make([]*runner.Step, len(g.hosts))
			for i, h := range g.hosts {
				children[i] = s.Child(runner.StepInfo{Builtin: "ssh.run", Text: r.cmd, Handle: h.id, Args: r.record()})
			}
			results := make([]cmdstar.Result, len(g.hosts))
			errs := make([]error, len(g.hosts))
			var wg sync.WaitGroup
			for i, h := range g.hosts {
				wg.Add(1)
				go func(i int, h *Host) {
					defer wg.Done()
					errs[i] = children[i].Execute(func(cs *runner.Step) (any, error) {
						out, err := h.runOn(cs, b.Name(), r)
						results[i] = out
						return out, err
					})
				}(i, h)
			}
			wg.Wait()
			var merr *multierror.Error
			for _, e := range errs {
				if e != nil {
					merr = multierror.Append(merr, e)
				}
			}
			if err := merr.ErrorOrNil(); err != nil {
				return runner.Outcome{}, err
			}
			return runner.Outcome{Value: resultsValue(results), Record: results}, nil
		},
		Placeholder: func(*runner.Step) starlark.Value { return resultsValue(make([]cmdstar.Result, len(g.hosts))) },
		Replay: func(_ *runner.Step, raw json.RawMessage) (starlark.Value, error) {
			var results []cmdstar.Result
			err := json.Unmarshal(raw, &results)
			return resultsValue(results), err
		},
	})
}

func resultsValue(results []cmdstar.Result) starlark.Value {
	vals := make([]starlark.Value, len(results))
	for i, r := range results {
		vals[i] = r.Value()
	}
	return starlark.NewList(vals)
}

func quote(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var s string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "s", &s); err != nil {
		return nil, err
	}
	return starlark.String(ssh.Quote(s)), nil
}

func quoteArgs(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var list *starlark.List
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "args", &list); err != nil {
		return nil, err
	}
	var ss []string
	for i := 0; i < list.Len(); i++ {
		s, ok := starlark.AsString(list.Index(i))
		if !ok {
			s = list.Index(i).String()
		}
		ss = append(ss, s)
	}
	return starlark.String(ssh.QuoteArgs(ss...)), nil
}
