// Package telemetrystar is the predeclared `telemetry` module: a plan's
// watch of servers and hosts (telemetry.watch), which makes every
// benchmark step after it record what they were doing (package
// telemetry's Recorder, as a step hook) into the step's folder.
package telemetrystar

import (
	"database/sql"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/go-sql-driver/mysql"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/starbench/starbench/builtins/agent"
	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/bench/benchstar"
	"github.com/starbench/starbench/builtins/db/dbstar"
	"github.com/starbench/starbench/builtins/ssh/sshstar"
	"github.com/starbench/starbench/builtins/telemetry"
	"github.com/starbench/starbench/runner"
	"github.com/starbench/starbench/runner/results"
)

// Module is the predeclared `telemetry` module.
var Module = &starlarkstruct.Module{
	Name: "telemetry",
	Members: starlark.StringDict{
		"watch":   starlark.NewBuiltin("telemetry.watch", watch),
		"unwatch": starlark.NewBuiltin("telemetry.unwatch", unwatch),
	},
}

// Doc documents the module for `starbench doc`.
var Doc = runner.ModuleDoc{
	Name:    "telemetry",
	Summary: "What the servers and hosts were doing during each benchmark step: status variables, Prometheus endpoints, host CPU, memory, disk and network.",
	Funcs: []runner.FuncDoc{
		{Name: "telemetry.watch",
			Signature: "telemetry.watch(status=None, endpoints=None, hosts=None, status_vars=None, metrics=None, processes=None, interval=None)",
			Doc: "Every benchmark step after this call (a run, a together step) samples these sources from its start to its end, " +
				"every `interval` (default: the step's report interval, else 1s), into `telemetry/NAME.jsonl` in the step's folder " +
				"(one JSON object a line: `time` and `values`, or `error`), with each series' average and highest values in the " +
				"step's summary (`telemetry`) and the sources in the manifest. Counters become rates per second (`NAME/s`), " +
				"histograms quantiles of each interval (`NAME:p50`, `NAME:p99`) and their rate (`NAME:count/s`). " +
				"`status`: a db connection or a list of them: `SHOW GLOBAL STATUS` on each of its servers, one query a sample on a " +
				"connection of its own; `status_vars` names the variables (default: Questions, Com_select/insert/update/delete/" +
				"commit/rollback, Innodb_rows_* (MySQL), Rows_read/sent (MariaDB), Handler_read_key/read_next/read_rnd_next/write/" +
				"update/delete, Innodb_data_read/written, Innodb_buffer_pool_reads/read_requests, Threads_running, " +
				"Threads_connected on MySQL and MariaDB; ddl_schema_version on TiDB, whose rates are on its Prometheus endpoint). " +
				"`endpoints`: Prometheus text endpoints, each a URL or a dict {\"url\", \"name\", \"metrics\"}; `metrics` picks the " +
				"metrics (`name`, `name{label=\"v\"}`, `name by (label)`; the others' series are summed; default: the process's " +
				"CPU and memory and the main figures of TiDB, TiKV, PD, node_exporter and mysqld_exporter). " +
				"`hosts`: ssh.host values (read by a starbench agent on the host, started at the first step and kept for the " +
				"run, its clock offset applied) or \"local\" for this host: CPU busy %, memory, disk and network bytes per second; " +
				"`processes` adds the CPU seconds per second and resident memory of the processes of these command names " +
				"(\"mariadbd\", \"tidb-server\"). A source that fails marks its series (`error` lines, the summary's `failed`) and " +
				"never fails the step. Calls add sources; returns the series' names (in a dry run, which opens nothing, an " +
				"empty list)."},
		{Name: "telemetry.unwatch", Signature: "telemetry.unwatch()",
			Doc: "Stops the watch: the steps after it record no telemetry."},
	},
}

// watchState is a run's watch: its sources, by name, and the interval
// asked for (0: each step's report interval).
type watchState struct {
	mu       sync.Mutex
	sources  []telemetry.Source
	names    map[string]bool
	interval time.Duration
	closers  []func()
	redact   func(string) string // the run's: masks its passwords in failures recorded
}

type stateKey struct{}

func stateOf(h runner.Host) *watchState {
	return h.State(stateKey{}, func() any {
		st := &watchState{names: map[string]bool{}}
		h.OnFinish(st.close)
		return st
	}).(*watchState)
}

// close ends what the sources hold open (connections, agents).
func (st *watchState) close() {
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, c := range st.closers {
		c()
	}
	st.closers = nil
}

// hooks is the step hook maker of the watch.
func (st *watchState) hooks(interval time.Duration) []bench.Hook {
	st.mu.Lock()
	defer st.mu.Unlock()
	if len(st.sources) == 0 {
		return nil
	}
	if st.interval > 0 {
		interval = st.interval
	}
	return []bench.Hook{&telemetry.Recorder{Sources: append([]telemetry.Source(nil), st.sources...), Interval: interval, Redact: st.redact}}
}

// add adds a source under a name of its own (NAME-2, ... when taken).
func (st *watchState) unique(name string) string {
	base, n := name, 1
	for st.names[name] {
		n++
		name = fmt.Sprintf("%s-%d", base, n)
	}
	st.names[name] = true
	return name
}

// request is a watch call's arguments, checked.
type request struct {
	conns      []*dbstar.Conn
	statusVars []string
	endpoints  []endpoint
	metrics    []string
	hosts      []*sshstar.Host
	local      bool
	processes  []string
	interval   time.Duration
}

type endpoint struct {
	url, name string
	metrics   []string
}

func watch(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var status, endpoints, hosts, statusVars, metrics, processes, interval starlark.Value = starlark.None, starlark.None,
		starlark.None, starlark.None, starlark.None, starlark.None, starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "status?", &status, "endpoints?", &endpoints, "hosts?", &hosts,
		"status_vars?", &statusVars, "metrics?", &metrics, "processes?", &processes, "interval?", &interval); err != nil {
		return nil, runner.BadPlanInput(thread, "%v", err)
	}
	req, err := parse(status, endpoints, hosts, statusVars, metrics, processes, interval)
	if err != nil {
		return nil, runner.BadPlanInput(thread, "%s: %v", b.Name(), err)
	}
	if len(req.conns) == 0 && len(req.endpoints) == 0 && len(req.hosts) == 0 && !req.local {
		return nil, runner.BadPlanInput(thread, "%s: nothing to watch: give status=, endpoints= or hosts=", b.Name())
	}
	h := runner.HostOf(thread)
	st := stateOf(h)
	var names []starlark.Value
	if h.Run().DryRun() {
		return starlark.NewList(names), nil // nothing is opened in a dry run
	}
	sources, closers, err := build(st, req)
	if err != nil {
		return nil, runner.BadPlanInput(thread, "%s: %v", b.Name(), err)
	}
	var record []results.TelemetrySource
	for _, s := range sources {
		names = append(names, starlark.String(s.Name()))
		record = append(record, results.TelemetrySource{Name: s.Name(), Kind: s.Kind(), Source: s.Source()})
	}
	st.mu.Lock()
	st.sources = append(st.sources, sources...)
	st.closers = append(st.closers, closers...)
	st.redact = h.Run().Redact
	if req.interval > 0 {
		st.interval = req.interval
	}
	st.mu.Unlock()
	benchstar.SetStepHooks(h, "telemetry", st.hooks)
	if err := h.Run().RecordTelemetry(record); err != nil {
		return nil, err
	}
	return starlark.NewList(names), nil
}

func unwatch(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, runner.BadPlanInput(thread, "%v", err)
	}
	h := runner.HostOf(thread)
	st := stateOf(h)
	st.mu.Lock()
	st.sources, st.interval = nil, 0
	st.mu.Unlock()
	benchstar.SetStepHooks(h, "telemetry", nil)
	return starlark.None, nil
}

// parse checks a watch call's arguments.
func parse(status, endpoints, hosts, statusVars, metrics, processes, interval starlark.Value) (request, error) {
	var req request
	var err error
	switch v := status.(type) {
	case starlark.NoneType:
	case *dbstar.Conn:
		req.conns = []*dbstar.Conn{v}
	case *starlark.List, starlark.Tuple:
		for _, x := range iterate(v) {
			c, ok := x.(*dbstar.Conn)
			if !ok {
				return req, fmt.Errorf("status: want db connections, got a %s", x.Type())
			}
			req.conns = append(req.conns, c)
		}
	default:
		return req, fmt.Errorf("status: want a db connection or a list of them, got %s", status.Type())
	}
	if req.statusVars, err = stringsArg(statusVars, "status_vars"); err != nil {
		return req, err
	}
	if req.metrics, err = stringsArg(metrics, "metrics"); err != nil {
		return req, err
	}
	for _, m := range req.metrics {
		if _, err := telemetry.ParseSelector(m); err != nil {
			return req, fmt.Errorf("metrics: %v", err)
		}
	}
	if req.processes, err = stringsArg(processes, "processes"); err != nil {
		return req, err
	}
	if endpoints != starlark.None {
		list := iterate(endpoints)
		if list == nil {
			return req, fmt.Errorf("endpoints: want a list of URLs or dicts, got %s", endpoints.Type())
		}
		for _, x := range list {
			e, err := parseEndpoint(x)
			if err != nil {
				return req, err
			}
			req.endpoints = append(req.endpoints, e)
		}
	}
	if hosts != starlark.None {
		list := iterate(hosts)
		if list == nil {
			return req, fmt.Errorf("hosts: want a list of ssh.host values or \"local\", got %s", hosts.Type())
		}
		for _, x := range list {
			switch v := x.(type) {
			case *sshstar.Host:
				req.hosts = append(req.hosts, v)
			case starlark.String:
				if v != "local" {
					return req, fmt.Errorf("hosts: %q is not a host: give an ssh.host, or \"local\" for this host", string(v))
				}
				req.local = true
			default:
				return req, fmt.Errorf("hosts: want ssh.host values or \"local\", got a %s", x.Type())
			}
		}
	}
	if interval != starlark.None {
		if req.interval, err = runner.DurationOf(interval); err != nil {
			return req, fmt.Errorf("interval: %v", err)
		}
		if req.interval < 100*time.Millisecond {
			return req, fmt.Errorf("interval: %v is too short: sample at most ten times a second", req.interval)
		}
	}
	return req, nil
}

// parseEndpoint reads an endpoint: a URL, or a dict of url, name and
// metrics.
func parseEndpoint(x starlark.Value) (endpoint, error) {
	var e endpoint
	switch v := x.(type) {
	case starlark.String:
		e.url = string(v)
	case *starlark.Dict:
		for _, kv := range v.Items() {
			key, _ := starlark.AsString(kv[0])
			switch key {
			case "url", "name":
				s, ok := starlark.AsString(kv[1])
				if !ok {
					return e, fmt.Errorf("endpoints: %s must be a string, got %s", key, kv[1].Type())
				}
				if key == "url" {
					e.url = s
				} else {
					e.name = s
				}
			case "metrics":
				ms, err := stringsArg(kv[1], "endpoints: metrics")
				if err != nil {
					return e, err
				}
				for _, m := range ms {
					if _, err := telemetry.ParseSelector(m); err != nil {
						return e, fmt.Errorf("endpoints: metrics: %v", err)
					}
				}
				e.metrics = ms
			default:
				return e, fmt.Errorf("endpoints: unknown key %s (want url, name, metrics)", kv[0])
			}
		}
	default:
		return e, fmt.Errorf("endpoints: want URLs or dicts, got a %s", x.Type())
	}
	u, err := url.Parse(e.url)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return e, fmt.Errorf("endpoints: %q is not an http:// or https:// URL", e.url)
	}
	if u.User != nil {
		return e, fmt.Errorf("endpoints: %s: credentials in an endpoint's URL would be recorded; give an endpoint that needs none", u.Host)
	}
	return e, nil
}

// build makes the sources of a request, named apart from those watched
// already, and what closes them.
func build(st *watchState, req request) ([]telemetry.Source, []func(), error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	var sources []telemetry.Source
	var closers []func()
	for _, c := range req.conns {
		cfgs, _ := c.Endpoints()
		if len(cfgs) == 0 {
			return nil, nil, fmt.Errorf("status: connection %s is closed", c.ID())
		}
		for _, cfg := range cfgs {
			cfg = cfg.Clone()
			cfg.DBName = "" // the status is the server's, whatever the schema
			connector, err := mysql.NewConnector(cfg)
			if err != nil {
				return nil, nil, fmt.Errorf("status: %s: %v", cfg.Addr, err)
			}
			s := telemetry.NewStatus(st.unique("status-"+results.SafeName(cfg.Addr)), "SHOW GLOBAL STATUS on "+cfg.Addr,
				sql.OpenDB(connector), req.statusVars)
			sources = append(sources, s)
			closers = append(closers, func() { _ = s.Close() })
		}
	}
	metrics := req.metrics
	for _, e := range req.endpoints {
		name := e.name
		if name == "" {
			u, _ := url.Parse(e.url)
			name = "prom-" + u.Host
		}
		m := metrics
		if e.metrics != nil {
			m = e.metrics
		}
		p, err := telemetry.NewPrometheus(st.unique(results.SafeName(name)), e.url, m)
		if err != nil {
			return nil, nil, err
		}
		sources = append(sources, p)
	}
	if req.local {
		sources = append(sources, telemetry.NewHost(st.unique("host-local"), req.processes))
	}
	for _, host := range req.hosts {
		addr := host.Address()
		if _, after, ok := strings.Cut(addr, "@"); ok {
			addr = after // the user is not the host's name
		}
		s := agent.NewHostSource(st.unique("host-"+results.SafeName(addr)), addr, host.Connect, req.processes)
		sources = append(sources, s)
		closers = append(closers, func() { _ = s.Close() })
	}
	return sources, closers, nil
}

// iterate lists a list's or tuple's elements (nil for anything else).
func iterate(v starlark.Value) []starlark.Value {
	it, ok := v.(starlark.Indexable)
	if !ok {
		return nil
	}
	if _, isString := v.(starlark.String); isString {
		return nil
	}
	out := make([]starlark.Value, it.Len())
	for i := range out {
		out[i] = it.Index(i)
	}
	return out
}

// stringsArg reads an argument of strings (one string, a list or a
// tuple; None: nil), its name in the error.
func stringsArg(v starlark.Value, what string) ([]string, error) {
	out, err := runner.StringsOf(v)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", what, err)
	}
	return out, nil
}
