package benchstar

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"go.starlark.net/starlark"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/db/dbstar"
	"github.com/starbench/starbench/runner"
	"github.com/starbench/starbench/runner/results"
)

// Load is a workload family's load described but not run (what
// sysbench.part and tpcc.part return): a part of bench.together, which
// may set its duration and report interval before it runs.
type Load struct {
	Family string // the module: "sysbench"
	Name   string // the part's folder label: "oltp_point_select-t150"
	Handle string // the connection handle it runs on
	Target string // where it runs (the handle's DSN, password masked), for step lists
	// Time is the planned duration (0: bounded by events) and Interval
	// the report interval.
	Time, Interval time.Duration
	// SetTime and SetInterval change them (together's time= and
	// report_interval=); an error says why the family cannot.
	SetTime, SetInterval func(time.Duration) error
	// SetThreads and SetRate change the load's threads and its rate
	// (events per second, open loop; a family whose rate is whole rounds
	// it), for the probes of bench.capacity; an error says why the family
	// cannot.
	SetThreads func(int) error
	SetRate    func(float64) error
	WholeRate  bool // the family's rate is whole events per second (sysbench's)
	// Text is the equivalent command line, Args the journal's summary of
	// the arguments, both as they are when called (after any Set).
	Text func() string
	Args func() map[string]any
	// Step makes the load's benchmark step; seed is the part's seed, used
	// unless the plan gave the load its own.
	Step func(seed int64) (bench.Step, error)
}

// LoadValue is a Load as a plan holds it.
type LoadValue struct{ Load *Load }

var _ starlark.HasAttrs = (*LoadValue)(nil)

func (v *LoadValue) String() string {
	return fmt.Sprintf("<%s part %s on %s>", v.Load.Family, v.Load.Name, v.Load.Handle)
}
func (v *LoadValue) Type() string          { return "part" }
func (v *LoadValue) Freeze()               {}
func (v *LoadValue) Truth() starlark.Bool  { return true }
func (v *LoadValue) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable: part") }

// Attr gives the load's family, name and command line.
func (v *LoadValue) Attr(name string) (starlark.Value, error) {
	switch name {
	case "family":
		return starlark.String(v.Load.Family), nil
	case "name":
		return starlark.String(v.Load.Name), nil
	case "command":
		return starlark.String(v.Load.Text()), nil
	}
	return nil, nil
}

// AttrNames lists the attributes.
func (v *LoadValue) AttrNames() []string { return []string{"command", "family", "name"} }

// NewLoad returns l as a plan value.
func NewLoad(l *Load) starlark.Value { return &LoadValue{Load: l} }

// partSeed is the seed of part k (0-based) of a together step whose seed
// is stepSeed, for parts the plan gave no seed of their own: each part
// its own stream, the same step seed the same streams.
func partSeed(stepSeed int64, k int) int64 {
	return int64(bench.WorkerSeed(stepSeed, 1<<20+k) >> 11) // below 2^53, as run seeds are
}

// RunBuiltin is a family's run builtin (sysbench.run, tpcc.run, ...):
// the plan step that runs l at once into steps/<id>-<l.Name>/ and returns
// value of its summary and folder. In a dry run the value is
// value(placeholder(), "", true); a resumed run reads the recorded
// summary back. l.Step is given the step's seed.
func RunBuiltin(thread *starlark.Thread, b *starlark.Builtin, l *Load, placeholder func() *results.Summary,
	value func(s *results.Summary, dir string, placeholder bool) starlark.Value) (starlark.Value, error) {
	h := runner.HostOf(thread)
	info := runner.StepInfo{Builtin: b.Name(), Args: l.Args(), Text: l.Text(), Handle: l.Handle}
	return h.Step(info, runner.Action{
		Run: func(s *runner.Step) (runner.Outcome, error) {
			step, err := l.Step(s.Seed())
			if err != nil {
				return runner.Outcome{}, fmt.Errorf("%s: %w", b.Name(), err)
			}
			step.Hooks = append(step.Hooks, HooksFor(h, l.Interval)...)
			rec, err := Run(h, s, b.Name(), l.Name, step)
			if err != nil {
				return runner.Outcome{}, PlanInput(thread, err)
			}
			return runner.Outcome{Value: value(rec.Summary, rec.Dir, false), Record: rec}, nil
		},
		Placeholder: func(*runner.Step) starlark.Value { return value(placeholder(), "", true) },
		Replay: func(_ *runner.Step, raw json.RawMessage) (starlark.Value, error) {
			rec, err := ReadRecord(b.Name(), raw)
			if err != nil {
				return nil, err
			}
			return value(rec.Summary, rec.Dir, false), nil
		},
	})
}

// Connector opens sessions on a connection handle's endpoints,
// round-robin when there are several (each session owns its connection),
// in the handle's current database and with its session settings.
func Connector(c *dbstar.Conn, ps bench.PSMode) (*bench.RoundRobin, error) {
	cfgs, settings := c.Endpoints()
	if len(cfgs) == 0 {
		return nil, fmt.Errorf("connection %s is closed", c.ID())
	}
	r := &bench.RoundRobin{}
	for _, cfg := range cfgs {
		r.Connectors = append(r.Connectors, &bench.SQLConnector{Config: cfg, PS: ps, Init: settings})
	}
	return r, nil
}

// PlanInput is a step's error as the plan's, at the call's position (exit
// 2), when it says that what the plan asked for cannot run
// (bench.ErrBadInput); other errors are returned as they are.
func PlanInput(thread *starlark.Thread, err error) error {
	if errors.Is(err, bench.ErrBadInput) && !errors.Is(err, context.Canceled) {
		return runner.BadPlanInput(thread, "%s", err.Error())
	}
	return err
}
