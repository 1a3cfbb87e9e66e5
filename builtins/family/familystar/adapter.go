// Package familystar is the generic Starlark adapter of workload
// families (builtins/family): from a family's Go value it makes the
// family's plan module, whose run, part, prepare and cleanup are steps
// like every family's (a results folder per run that reports and compare
// read, dry-run listing, resume, segments, bench.together parts), and its
// documentation. A family adds members of its own (mix.define, tpcc.check)
// as extras.
package familystar

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/starbench/starbench/builtins/agent"
	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/bench/benchstar"
	"github.com/starbench/starbench/builtins/cli"
	"github.com/starbench/starbench/builtins/db/dbstar"
	"github.com/starbench/starbench/builtins/family"
	"github.com/starbench/starbench/builtins/ssh"
	"github.com/starbench/starbench/runner"
	"github.com/starbench/starbench/runner/results"
)

// Adapter is a family as a plan module.
type Adapter struct {
	Family family.Family
	// Convert turns a plan's value of a family.Value option into the
	// family's Go value (a mix from mix.define into its *mix.Mix), by
	// option name.
	Convert map[string]func(starlark.Value) (any, error)
	// Extras are the family's own members, documented by ExtraDocs, which
	// come before the steps' in the documentation.
	Extras    starlark.StringDict
	ExtraDocs []runner.FuncDoc
}

// Module is the family's plan module: its extras, and prepare and
// cleanup where the family has them, run and part.
func (a *Adapter) Module() *starlarkstruct.Module {
	name := a.Family.Name()
	members := starlark.StringDict{}
	for k, v := range a.Extras {
		members[k] = v
	}
	if _, ok := a.Family.(family.Preparer); ok {
		members["prepare"] = starlark.NewBuiltin(name+".prepare", a.prepare)
	}
	members["run"] = starlark.NewBuiltin(name+".run", a.run)
	members["part"] = starlark.NewBuiltin(name+".part", a.part)
	if _, ok := a.Family.(family.Cleaner); ok {
		members["cleanup"] = starlark.NewBuiltin(name+".cleanup", a.cleanup)
	}
	return &starlarkstruct.Module{Name: name, Members: members}
}

// Doc documents the module: the family's summary, its extras, then its
// steps with signatures made from their options.
func (a *Adapter) Doc() runner.ModuleDoc {
	f := a.Family
	name := f.Name()
	d := runner.ModuleDoc{Name: name, Summary: f.Summary(), Funcs: append([]runner.FuncDoc(nil), a.ExtraDocs...)}
	sig := func(command string, opts []family.Option) string {
		if s, ok := f.(family.Signer); ok {
			if text := s.Signature(command); text != "" {
				return text
			}
		}
		return signature(name+"."+command, opts, command == "part")
	}
	if p, ok := f.(family.Preparer); ok {
		d.Funcs = append(d.Funcs, runner.FuncDoc{Name: name + ".prepare", Signature: sig("prepare", p.PrepareOptions()), Doc: p.PrepareDoc()})
	}
	d.Funcs = append(d.Funcs,
		runner.FuncDoc{Name: name + ".run", Signature: sig("run", f.RunOptions()), Doc: f.RunDoc()},
		runner.FuncDoc{Name: name + ".part", Signature: sig("part", f.RunOptions()),
			Doc: fmt.Sprintf("Describes the run %s.run would make, without running it: a part for bench.together, which runs several "+
				"at once as one step. Takes %s.run's arguments; the part's .command is its command line. client=HOST (an ssh.host) runs "+
				"the part in a starbench agent on that client host (the coordinator uploads its own binary there first when the host "+
				"lacks it); cpus=\"0-3\" or numa_node=N run it under taskset or numactl, on the client host or on this one. "+
				"stages=[(DURATION, THREADS), ...] makes the load change within the step, k6's way: each stage goes linearly from "+
				"the previous stage's target (the first's from 0) to its own over its duration, a hold when they are equal; the "+
				"run lasts the stages, with their highest threads (worker i runs while the stage's threads are above i); "+
				"rate_stages=[(DURATION, EVENTS_PER_S), ...] does so with the arrival rate of an open-loop run (Poisson arrivals "+
				"following the profile). phases=[{\"time\": DURATION, \"threads\" or \"rate\": N, \"weights\": W}, ...] runs "+
				"BenchBase's phases in the step: each holds its load from its start (a phase without one takes the run's) and draws "+
				"the run's kinds of event by its weights (a dict by kind, e.g. {\"payment\": 100}, or a list in the kinds' order; "+
				"none: the family's own; TPC-C's add up to 100; sysbench's runs have no kinds: their phases set time and load). "+
				"Each interval records its stage (phase) and the load offered (intervals.csv: stage, target); the result's stages "+
				"lists the figures by stage (stage, offered, seconds, events, errors, tps, qps, latency, kinds: events by kind), and "+
				"the report tabulates them and charts tps and latency against the load offered. Profiles and phases go to agents too. %s.run takes them too.", name, name, name)})
	if c, ok := f.(family.Cleaner); ok {
		d.Funcs = append(d.Funcs, runner.FuncDoc{Name: name + ".cleanup", Signature: sig("cleanup", c.CleanupOptions()), Doc: c.CleanupDoc()})
	}
	return d
}

// signature is a call's signature: conn, the positional options, then
// the others with their defaults (the first two and **run_options for a
// part).
func signature(call string, opts []family.Option, part bool) string {
	parts := []string{"conn"}
	shown := 0
	for _, o := range opts {
		if o.Kind == family.Rest {
			continue
		}
		if o.Positional && o.Default == nil {
			parts = append(parts, o.Name)
			continue
		}
		if part && shown == 2 {
			parts = append(parts, "**run_options")
			break
		}
		parts = append(parts, o.Name+"="+defaultText(o))
		shown++
	}
	if _, ok := family.ByKind(opts, family.Rest); ok && !part {
		parts = append(parts, "**"+restName(opts))
	}
	return call + "(" + strings.Join(parts, ", ") + ")"
}

func defaultText(o family.Option) string {
	switch d := o.Default.(type) {
	case string:
		return fmt.Sprintf("%q", d)
	case bool:
		if d {
			return "True"
		}
		return "False"
	case time.Duration:
		switch {
		case d == 0:
			return "0"
		case d%time.Second == 0:
			return fmt.Sprintf("\"%ds\"", d/time.Second)
		}
		return fmt.Sprintf("%q", d.String())
	case []uint16:
		var parts []string
		for _, n := range d {
			parts = append(parts, fmt.Sprint(n))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case []int64:
		var parts []string
		for _, n := range d {
			parts = append(parts, fmt.Sprint(n))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]string:
		return "{}"
	case nil:
		return "None"
	}
	return fmt.Sprint(o.Default)
}

// call is a parsed call of a step builtin.
type call struct {
	conn *dbstar.Conn
	v    family.Values
}

// Call reads a call of a builtin the family adds (an extra such as
// sysbench.prewarm) as its steps' calls are read: the connection, then
// opts' values, converted, defaulted and checked.
func (a *Adapter) Call(b *starlark.Builtin, command string, args starlark.Tuple, kwargs []starlark.Tuple, opts []family.Option) (*dbstar.Conn, family.Values, error) {
	c, err := a.parse(b, command, args, kwargs, opts)
	if err != nil {
		return nil, nil, err
	}
	return c.conn, c.v, nil
}

// parse reads a call: the connection, the positional options by position
// or keyword, the others by keyword, each converted to its option's kind
// (keywords no option names to the Rest option, when there is one),
// defaults for the rest, and checks them.
func (a *Adapter) parse(b *starlark.Builtin, command string, args starlark.Tuple, kwargs []starlark.Tuple, opts []family.Option) (*call, error) {
	c := &call{}
	given := make([]starlark.Value, len(opts))
	var rest []family.Keyword
	if _, open := family.ByKind(opts, family.Rest); open {
		var err error
		if rest, err = a.unpackOpen(b, args, kwargs, opts, &c.conn, given); err != nil {
			return nil, err
		}
	} else {
		pairs := []any{"conn", &c.conn}
		for i, o := range opts {
			name := o.Name
			if !o.Positional || o.Default != nil {
				name += "?"
			}
			pairs = append(pairs, name, &given[i])
		}
		if err := starlark.UnpackArgs(b.Name(), args, kwargs, pairs...); err != nil {
			return nil, err
		}
	}
	c.v = family.Defaults(opts)
	for i, o := range opts {
		if o.Kind == family.Rest {
			c.v[o.Name] = rest
			continue
		}
		if given[i] == nil {
			continue
		}
		x, err := a.convert(o, given[i])
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", b.Name(), o.Name, err)
		}
		c.v[o.Name] = x
	}
	if err := family.Check(opts, c.v); err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	if val, ok := a.Family.(family.Validator); ok {
		if err := val.Validate(command, c.v); err != nil {
			return nil, fmt.Errorf("%s: %w", b.Name(), err)
		}
	}
	return c, nil
}

// unpackOpen reads a call whose keywords are an open set: conn and the
// positional options by position, the declared options by keyword, and
// every other keyword, in order, for the Rest option.
func (a *Adapter) unpackOpen(b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple, opts []family.Option, conn **dbstar.Conn,
	given []starlark.Value) ([]family.Keyword, error) {
	var positional []int
	index := map[string]int{}
	for i, o := range opts {
		if o.Kind == family.Rest {
			continue
		}
		index[o.Name] = i
		if o.Positional {
			positional = append(positional, i)
		}
	}
	if len(args) > 1+len(positional) {
		return nil, fmt.Errorf("%s: got %d positional arguments, want at most %d (options are keywords)", b.Name(), len(args), 1+len(positional))
	}
	var connVal starlark.Value
	if len(args) > 0 {
		connVal = args[0]
	}
	for k, v := range args[1:] {
		given[positional[k]] = v
	}
	var rest []family.Keyword
	seen := map[string]bool{}
	for _, kv := range kwargs {
		name := string(kv[0].(starlark.String))
		if seen[name] || (name == "conn" && connVal != nil) {
			return nil, fmt.Errorf("%s: got multiple values for %s", b.Name(), name)
		}
		seen[name] = true
		if name == "conn" {
			connVal = kv[1]
			continue
		}
		if i, ok := index[name]; ok {
			if given[i] != nil {
				return nil, fmt.Errorf("%s: got multiple values for %s", b.Name(), name)
			}
			given[i] = kv[1]
			continue
		}
		v, err := keywordValue(kv[1])
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", b.Name(), name, err)
		}
		rest = append(rest, family.Keyword{Name: name, Value: v})
	}
	c, ok := connVal.(*dbstar.Conn)
	if !ok {
		got := "nothing"
		if connVal != nil {
			got = connVal.Type()
		}
		return nil, fmt.Errorf("%s: the first argument must be a connection from db.connect(), got %s", b.Name(), got)
	}
	*conn = c
	for _, i := range positional {
		if given[i] == nil && opts[i].Default == nil {
			return nil, fmt.Errorf("%s: missing argument for %s", b.Name(), opts[i].Name)
		}
	}
	return rest, nil
}

// keywordValue is a Rest keyword's value: a bool, number or string as it
// is, a list or tuple as a list of them.
func keywordValue(v starlark.Value) (any, error) {
	switch v := v.(type) {
	case starlark.Bool:
		return bool(v), nil
	case starlark.Int:
		n, ok := v.Int64()
		if !ok {
			return nil, fmt.Errorf("%s is out of range", v)
		}
		return n, nil
	case starlark.Float:
		return float64(v), nil
	case starlark.String:
		return string(v), nil
	case *starlark.List, starlark.Tuple:
		var out []any
		iter := starlark.Iterate(v)
		defer iter.Done()
		var e starlark.Value
		for iter.Next(&e) {
			switch e.(type) {
			case starlark.Int, starlark.String:
				x, _ := keywordValue(e)
				out = append(out, x)
			default:
				return nil, fmt.Errorf("a list holds numbers or strings, not %s", e.Type())
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("want a number, bool or string, not %s", v.Type())
}

func restName(opts []family.Option) string {
	o, _ := family.ByKind(opts, family.Rest)
	return o.Name
}

// convert is a plan value as an option's kind.
func (a *Adapter) convert(o family.Option, v starlark.Value) (any, error) {
	switch o.Kind {
	case family.Int:
		var n int64
		err := starlark.AsInt(v, &n)
		return n, err
	case family.Float:
		f, ok := starlark.AsFloat(v)
		if !ok {
			return nil, fmt.Errorf("want a number, not %s", v.Type())
		}
		return f, nil
	case family.String:
		s, ok := starlark.AsString(v)
		if !ok {
			return nil, fmt.Errorf("want a string, not %s", v.Type())
		}
		return s, nil
	case family.Bool:
		b, ok := v.(starlark.Bool)
		if !ok {
			return nil, fmt.Errorf("want True or False, not %s", v.Type())
		}
		return bool(b), nil
	case family.Duration:
		return runner.DurationOf(v)
	case family.Codes:
		return Codes(v)
	case family.Ints:
		l, ok := v.(*starlark.List)
		if !ok {
			return nil, fmt.Errorf("want a list of integers, not %s", v.Type())
		}
		ints := make([]int64, l.Len())
		for i := range l.Len() {
			if err := starlark.AsInt(l.Index(i), &ints[i]); err != nil {
				return nil, err
			}
		}
		return ints, nil
	case family.Tags:
		d, ok := v.(*starlark.Dict)
		if !ok {
			return nil, fmt.Errorf("want a dict, not %s", v.Type())
		}
		return benchstar.Tags(d)
	case family.Value:
		conv, ok := a.Convert[o.Name]
		if !ok {
			return nil, fmt.Errorf("the %s module cannot convert %s", a.Family.Name(), v.Type())
		}
		return conv(v)
	}
	return nil, fmt.Errorf("unknown kind of option")
}

// Codes reads a list of MySQL error codes.
func Codes(v starlark.Value) ([]uint16, error) {
	l, ok := v.(*starlark.List)
	if !ok {
		return nil, fmt.Errorf("want a list of MySQL error codes, not %s", v.Type())
	}
	codes := []uint16{}
	for i := range l.Len() {
		var n int
		if err := starlark.AsInt(l.Index(i), &n); err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("%s is not a MySQL error code", l.Index(i))
		}
		codes = append(codes, uint16(n))
	}
	return codes, nil
}

// segmentOf checks a run's segment option: one slice of the load's
// threads and events, with the seed the other segments share (the step's
// when the segment is the run's: fromRun).
func segmentOf(opts []family.Option, v family.Values, threads int, fromRun bool) (bench.Segment, error) {
	so, ok := family.ByRole(opts, family.Segment)
	if !ok {
		return bench.Segment{}, nil
	}
	seg, err := v.Segment(so.Name)
	if err != nil || seg.Whole() {
		return seg, err
	}
	role := func(r family.Role) int64 {
		if o, ok := family.ByRole(opts, r); ok {
			return v.Int(o.Name)
		}
		return 0
	}
	events := role(family.Events)
	switch {
	case role(family.Seed) == 0 && !fromRun:
		seed, _ := family.ByRole(opts, family.Seed)
		return seg, fmt.Errorf("segment %s needs %s = N, the same for every segment, so that the segments together are one reproducible load", seg, seed.Name)
	case seg.Threads(threads) == 0:
		return seg, fmt.Errorf("segment %s of %d threads has no thread: run at most %d segments", seg, threads, threads)
	case events > 0 && seg.Share(events) == 0:
		return seg, fmt.Errorf("segment %s of %d events has no event", seg, events)
	}
	return seg, nil
}

// runLoad is a call of run or part as a load: the configured run, made
// again when bench.together sets its time or report interval.
func (a *Adapter) runLoad(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (*benchstar.Load, *call, family.Run, error) {
	f := a.Family
	opts := f.RunOptions()
	where, kwargs, err := placementOf(thread, b, kwargs)
	if err != nil {
		return nil, nil, nil, err
	}
	profile, phases, kwargs, err := profileOf(thread, b, kwargs)
	if err != nil {
		return nil, nil, nil, err
	}
	c, err := a.parse(b, "run", args, kwargs, opts)
	if err != nil {
		return nil, nil, nil, err
	}
	if len(phases) > 0 {
		if profile, err = phaseProfile(opts, c.v, phases); err != nil {
			return nil, nil, nil, runner.BadPlanInput(thread, "%s: phases: %v", b.Name(), err)
		}
	}
	if len(profile.Stages) > 0 {
		profileValues(opts, c.v, profile)
	}
	// A run that is one segment of the plan's loads (run --segment) runs
	// that slice of every load that does not name its own; its seed is
	// the step's, the same in every segment of a run with one --seed.
	fromRun := false
	if runSeg := runner.HostOf(thread).Run().Segment(); runSeg != "" {
		so, ok := family.ByRole(opts, family.Segment)
		if !ok {
			return nil, nil, nil, runner.BadPlanInput(thread, "%s: this run is segment %s of every load, and a %s run has no segments", b.Name(), runSeg, f.Name())
		}
		if c.v.String(so.Name) == "" {
			c.v[so.Name], fromRun = runSeg, true
		}
	}
	r, err := f.Run(c.v)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	if len(phases) > 0 {
		if err := phaseWeights(f, r, phases, profile); err != nil {
			return nil, nil, nil, runner.BadPlanInput(thread, "%s: phases: %v", b.Name(), err)
		}
	}
	seg, err := segmentOf(opts, c.v, r.Planned().Threads, fromRun)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	byRole := func(role family.Role) (string, bool) {
		o, ok := family.ByRole(opts, role)
		return o.Name, ok
	}
	timeOpt, hasTime := byRole(family.Time)
	intervalOpt, hasInterval := byRole(family.Interval)
	database := c.conn.Session().Database
	plan := r.Planned()
	name := r.Label()
	if !fromRun { // a run's segments keep its steps' names, for merge
		name += cli.SegmentSuffix(seg)
	}
	l := &benchstar.Load{Family: f.Name(), Name: name, Handle: c.conn.ID(), Target: c.conn.Display(),
		Time: plan.Time, Interval: max(plan.Interval, time.Second)} // the engine's default interval: one second
	l.Text = func() string { return f.CommandLine("run", c.v, database) + profileText(profile) }
	l.Args = func() map[string]any {
		m := a.journalArgs("run", opts, c.v)
		if len(profile.Stages) > 0 {
			m[family.ProfileKeyword(profile)] = family.ProfileRecord(profile)
		}
		return m
	}
	if len(profile.Stages) > 0 {
		l.Time = profile.Stages.Total()
	}
	reset := func(opt string, ok bool, x any) error {
		if !ok {
			return fmt.Errorf("a %s run has no such option", f.Name())
		}
		v := maps(c.v)
		v[opt] = x
		if err := family.Check(opts, v); err != nil {
			return err
		}
		again, err := f.Run(v)
		if err != nil {
			return err
		}
		c.v, r = v, again
		return nil
	}
	positive := func(opt string, ok bool, d time.Duration) error {
		if d <= 0 {
			return fmt.Errorf("must be positive, got %v", d)
		}
		return reset(opt, ok, d)
	}
	fixedProfile := func() error {
		if len(profile.Stages) > 0 {
			return fmt.Errorf("its load profile (%s=) sets its load", family.ProfileKeyword(profile))
		}
		return nil
	}
	l.SetTime = func(d time.Duration) error {
		if len(profile.Stages) > 0 {
			if d == profile.Stages.Total() {
				return nil
			}
			return fmt.Errorf("its load profile lasts %v", profile.Stages.Total())
		}
		if err := positive(timeOpt, hasTime, d); err != nil {
			return err
		}
		l.Time = d
		return nil
	}
	l.SetInterval = func(d time.Duration) error {
		if err := positive(intervalOpt, hasInterval, d); err != nil {
			return err
		}
		l.Interval = d
		return nil
	}
	l.SetThreads = func(n int) error {
		if err := fixedProfile(); err != nil {
			return err
		}
		o, ok := family.ByRole(opts, family.Threads)
		if err := reset(o.Name, ok, int64(n)); err != nil {
			return err
		}
		l.Name = r.Label()
		if !fromRun {
			l.Name += cli.SegmentSuffix(seg)
		}
		return nil
	}
	if o, ok := family.ByRole(opts, family.Rate); ok {
		l.WholeRate = o.Kind == family.Int
	}
	l.SetRate = func(rate float64) error {
		if err := fixedProfile(); err != nil {
			return err
		}
		o, ok := family.ByRole(opts, family.Rate)
		var x any = rate
		if o.Kind == family.Int {
			x = int64(math.Round(rate))
		}
		return reset(o.Name, ok, x)
	}
	l.Step = func(seed int64) (bench.Step, error) {
		conn, err := a.connector(c)
		if err != nil {
			return bench.Step{}, err
		}
		step, err := family.NewStep(f, r, c.v, conn, seed, c.conn.Display())
		if err == nil && len(profile.Stages) > 0 {
			step = family.WithProfile(step, profile, seg)
		}
		if err != nil {
			return step, err
		}
		if where != nil {
			if step, err = a.onAgent(where, c, step, seed, profile); err != nil {
				return step, err
			}
		}
		step.Hooks = append(step.Hooks, benchstar.SettingsHook(c.conn, runner.HostOf(thread).Run()))
		return step, nil
	}
	if where != nil {
		if _, err := family.EncodeValues(f, opts, c.v); err != nil {
			return nil, nil, nil, runner.BadPlanInput(thread, "%s: this run cannot go to an agent: %v", b.Name(), err)
		}
		text, args := l.Text, l.Args
		l.Text = func() string { return text() + "  # on " + where.Where() }
		l.Args = func() map[string]any {
			m := args()
			if where.Connect != nil {
				m["client"] = where.Address
			}
			if where.Placement.CPUs != "" {
				m["cpus"] = where.Placement.CPUs
			}
			if where.Placement.HasNode {
				m["numa_node"] = where.Placement.NUMANode
			}
			return m
		}
	}
	return l, c, r, nil
}

// clientHost is a plan's ssh.host as a client host agents run on.
type clientHost interface {
	Address() string
	Connect(ctx context.Context) (*ssh.Client, error)
}

// placementOf takes a run's client=, cpus= and numa_node= out of its
// keywords (they are not the family's options): where an agent runs the
// load, nil when the load runs in this process.
func placementOf(thread *starlark.Thread, b *starlark.Builtin, kwargs []starlark.Tuple) (*agent.Part, []starlark.Tuple, error) {
	var rest []starlark.Tuple
	var part agent.Part
	found := false
	for _, kv := range kwargs {
		name, _ := starlark.AsString(kv[0])
		if kv[1] == starlark.None && (name == "client" || name == "cpus" || name == "numa_node") {
			continue // not given: this process runs the load
		}
		switch name {
		case "client":
			h, ok := kv[1].(clientHost)
			if !ok {
				return nil, nil, runner.BadPlanInput(thread, "%s: client must be a host from ssh.host(...), got %s", b.Name(), kv[1].Type())
			}
			part.Connect, part.Address = h.Connect, h.Address()
		case "cpus":
			cpus, ok := starlark.AsString(kv[1])
			if !ok {
				return nil, nil, runner.BadPlanInput(thread, "%s: cpus must be a CPU list such as \"0-3\", got %s", b.Name(), kv[1].Type())
			}
			part.Placement.CPUs = cpus
		case "numa_node":
			if err := starlark.AsInt(kv[1], &part.Placement.NUMANode); err != nil {
				return nil, nil, runner.BadPlanInput(thread, "%s: numa_node must be a node number, got %s", b.Name(), kv[1].Type())
			}
			part.Placement.HasNode = true
		default:
			rest = append(rest, kv)
			continue
		}
		found = true
	}
	if !found {
		return nil, rest, nil
	}
	if err := part.Placement.Check(); err != nil {
		return nil, nil, runner.BadPlanInput(thread, "%s: %v", b.Name(), err)
	}
	part.Binaries = agent.DefaultBinaries()
	return &part, rest, nil
}

// onAgent makes step run by an agent where says: the request carries the
// call's values as they are now (after bench.together set its time), the
// connection's endpoints and session settings, the seed and the load
// profile (stages=, rate_stages=, phases=).
func (a *Adapter) onAgent(where *agent.Part, c *call, step bench.Step, seed int64, profile bench.LoadProfile) (bench.Step, error) {
	values, err := family.EncodeValues(a.Family, a.Family.RunOptions(), c.v)
	if err != nil {
		return step, err
	}
	cfgs, settings := c.conn.Endpoints()
	if len(cfgs) == 0 {
		return step, fmt.Errorf("connection %s is closed", c.conn.ID())
	}
	endpoints, err := agent.Endpoints(cfgs, settings)
	if err != nil {
		return step, err
	}
	part := *where
	part.Request = agent.RunRequest{Family: a.Family.Name(), Values: values, Seed: seed, Endpoints: endpoints, Target: c.conn.Display()}
	if len(profile.Stages) > 0 {
		part.Request.Profile = &profile
	}
	step.Run, step.Remote = nil, part.Run
	return step, nil
}

// connector opens sessions on the call's connection, its statements as
// the family says (family.Sessioner) or prepared where the server takes
// them.
func (a *Adapter) connector(c *call) (bench.Connector, error) {
	return benchstar.Connector(c.conn, family.PSMode(a.Family, c.v))
}

func maps(v family.Values) family.Values {
	out := family.Values{}
	for k, x := range v {
		out[k] = x
	}
	return out
}

// journalArgs are a step's arguments as the journal keeps them: the
// family's (family.Journaler), else every option's value, a family value
// as the workload it is (name, version).
func (a *Adapter) journalArgs(command string, opts []family.Option, v family.Values) map[string]any {
	if j, ok := a.Family.(family.Journaler); ok {
		return j.JournalArgs(command, v)
	}
	meta := a.Family.Meta(v)
	out := map[string]any{"workload": meta.Name, "version": meta.Version}
	for _, o := range opts {
		switch x := v[o.Name].(type) {
		case time.Duration:
			out[o.Name] = x.Seconds()
		case nil:
		default:
			if o.Kind != family.Value {
				out[o.Name] = x
			}
		}
	}
	return out
}

func (a *Adapter) run(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	l, c, r, err := a.runLoad(thread, b, args, kwargs)
	if err != nil {
		return nil, err
	}
	opts := a.Family.RunOptions()
	threads := r.Planned().Threads
	var tags map[string]string
	if o, ok := family.ByRole(opts, family.TagsRole); ok {
		tags = c.v.Tags(o.Name)
	}
	return benchstar.RunBuiltin(thread, b, l, func() *results.Summary {
		// A dry run's kinds are the run's, with zero counts: a plan may read them.
		s := &results.Summary{Workload: a.Family.Meta(c.v), Threads: threads, Tags: tags, Latency: results.LatencySummary{Percentiles: map[string]float64{}}}
		for _, k := range r.Kinds() {
			s.Kinds = append(s.Kinds, results.KindSummary{Name: k, Latency: results.LatencySummary{Percentiles: map[string]float64{}}})
		}
		return s
	}, a.resultValue)
}

func (a *Adapter) part(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	l, _, _, err := a.runLoad(thread, b, args, kwargs)
	if err != nil {
		return nil, err
	}
	return benchstar.NewLoad(l), nil
}

// resultValue is what a run returns: every run builtin's fields, late
// and dropped (under a rate), the family's metrics by name, and the
// family's own fields.
func (a *Adapter) resultValue(s *results.Summary, dir string, placeholder bool) starlark.Value {
	fields := benchstar.SummaryFields(s, dir, placeholder)
	fields["late"], fields["dropped"] = starlark.MakeInt64(s.Late), starlark.MakeInt64(s.Dropped)
	metrics := starlark.NewDict(len(s.Metrics))
	for _, k := range sortedKeys(s.Metrics) {
		_ = metrics.SetKey(starlark.String(k), starlark.Float(s.Metrics[k]))
	}
	fields["metrics"] = metrics
	if fl, ok := a.Family.(family.Fielder); ok {
		for k, v := range fl.Fields(s) {
			fields[k] = starlarkOf(v)
		}
	}
	return starlarkstruct.FromStringDict(starlark.String(a.Family.Name()+"_result"), fields)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// starlarkOf is a Go value (a family's field, a flag's value) as a plan
// reads it.
func starlarkOf(v any) starlark.Value {
	switch v := v.(type) {
	case nil:
		return starlark.None
	case bool:
		return starlark.Bool(v)
	case int:
		return starlark.MakeInt(v)
	case int64:
		return starlark.MakeInt64(v)
	case float64:
		return starlark.Float(v)
	case string:
		return starlark.String(v)
	case time.Duration:
		return starlark.String(v.String())
	case results.LatencySummary:
		return benchstar.LatencyValue(v)
	case family.Record:
		d := starlark.StringDict{}
		for k, x := range v {
			d[k] = starlarkOf(x)
		}
		return starlarkstruct.FromStringDict(starlark.String("record"), d)
	case map[string]any:
		d := starlark.NewDict(len(v))
		for _, k := range sortedKeys(v) {
			_ = d.SetKey(starlark.String(k), starlarkOf(v[k]))
		}
		return d
	case []any:
		l := make([]starlark.Value, len(v))
		for i, x := range v {
			l[i] = starlarkOf(x)
		}
		return starlark.NewList(l)
	case []string:
		return runner.StringList(v)
	case []int64:
		l := make([]starlark.Value, len(v))
		for i, n := range v {
			l[i] = starlark.MakeInt64(n)
		}
		return starlark.NewList(l)
	case map[string]string:
		d := starlark.NewDict(len(v))
		for _, k := range sortedKeys(v) {
			_ = d.SetKey(starlark.String(k), starlark.String(v[k]))
		}
		return d
	}
	return starlark.String(fmt.Sprint(v))
}

// cleanupRecord is what the journal keeps of a cleanup.
type cleanupRecord struct {
	Schema  string   `json:"schema,omitempty"`
	Dropped []string `json:"dropped"`
}

func (a *Adapter) prepare(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	p := a.Family.(family.Preparer)
	opts := p.PrepareOptions()
	c, err := a.parse(b, "prepare", args, kwargs, opts)
	if err != nil {
		return nil, err
	}
	name := a.Family.Name()
	seedOpt, _ := family.ByRole(opts, family.Seed)
	info := runner.StepInfo{Builtin: b.Name(), Handle: c.conn.ID(), Text: a.Family.CommandLine("prepare", c.v, c.conn.Session().Database),
		Args: a.journalArgs("prepare", opts, c.v)}
	h := runner.HostOf(thread)
	value := func(r *family.Prepared, placeholder bool) starlark.Value {
		rows := starlark.NewDict(len(r.Rows))
		for _, t := range sortedKeys(r.Rows) {
			_ = rows.SetKey(starlark.String(t), starlark.MakeInt64(r.Rows[t]))
		}
		fields := starlark.StringDict{
			"schema": starlark.String(r.Schema), "tables": runner.StringList(r.Tables), "reused": runner.StringList(r.Reused),
			"rows": rows, "total_rows": starlark.MakeInt64(r.TotalRows), "seconds": starlark.Float(r.Seconds),
			"rows_per_s": starlark.Float(r.RowsPerS), "placeholder": starlark.Bool(placeholder),
		}
		for k, x := range r.Fields {
			fields[k] = starlarkOf(x)
		}
		return starlarkstruct.FromStringDict(starlark.String(name+"_prepare"), fields)
	}
	return h.Step(info, runner.Action{
		Run: func(s *runner.Step) (runner.Outcome, error) {
			conn, err := a.connector(c)
			if err != nil {
				return runner.Outcome{}, fmt.Errorf("%s: %w", b.Name(), err)
			}
			res, err := p.Prepare(s.Context(), conn, c.v, benchstar.Seed(s, c.v.Int(seedOpt.Name)), h.Out().Writer())
			if err != nil {
				return runner.Outcome{}, fmt.Errorf("%s: %w", b.Name(), err)
			}
			var record any = res
			if res.Record != nil {
				record = res.Record
			}
			return runner.Outcome{Value: value(res, false), Record: record}, nil
		},
		Placeholder: func(*runner.Step) starlark.Value {
			return value(&family.Prepared{Tables: p.Tables(c.v)}, true)
		},
		Replay: func(_ *runner.Step, raw json.RawMessage) (starlark.Value, error) {
			if r, ok := a.Family.(family.PreparedReplayer); ok {
				res, err := r.ReplayPrepared(raw)
				if err != nil {
					return nil, err
				}
				return value(res, false), nil
			}
			var res family.Prepared
			err := json.Unmarshal(raw, &res)
			return value(&res, false), err
		},
	})
}

func (a *Adapter) cleanup(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	cl := a.Family.(family.Cleaner)
	opts := cl.CleanupOptions()
	c, err := a.parse(b, "cleanup", args, kwargs, opts)
	if err != nil {
		return nil, err
	}
	info := runner.StepInfo{Builtin: b.Name(), Handle: c.conn.ID(), Text: a.Family.CommandLine("cleanup", c.v, c.conn.Session().Database),
		Args: a.journalArgs("cleanup", opts, c.v)}
	h := runner.HostOf(thread)
	return h.Step(info, runner.Action{
		Run: func(s *runner.Step) (runner.Outcome, error) {
			conn, err := a.connector(c)
			if err != nil {
				return runner.Outcome{}, fmt.Errorf("%s: %w", b.Name(), err)
			}
			dropped, err := cl.Cleanup(s.Context(), conn, c.v, h.Out().Writer())
			if err != nil {
				return runner.Outcome{}, fmt.Errorf("%s: %w", b.Name(), err)
			}
			return runner.Outcome{Value: runner.StringList(dropped), Record: cleanupRecord{Schema: bench.SchemaOf(conn), Dropped: dropped}}, nil
		},
		Placeholder: func(*runner.Step) starlark.Value { return runner.StringList(nil) },
		Replay: func(_ *runner.Step, raw json.RawMessage) (starlark.Value, error) {
			var rec cleanupRecord
			if err := json.Unmarshal(raw, &rec); err != nil {
				// Journals of adapters before this one kept the names alone.
				if json.Unmarshal(raw, &rec.Dropped) != nil {
					return nil, err
				}
			}
			return runner.StringList(rec.Dropped), nil
		},
	})
}
