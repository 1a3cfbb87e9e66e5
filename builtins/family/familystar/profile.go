package familystar

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.starlark.net/starlark"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/family"
	"github.com/starbench/starbench/runner"
)

// phase is one of a run's phases= as given: its time, its load (threads
// or rate, none: the run's) and its weights (None: the family's own).
type phase struct {
	time          time.Duration
	threads, rate float64 // 0: not given
	weights       starlark.Value
}

// profileOf takes a run's stages= (of threads), rate_stages= (of events
// per second) or phases= out of its keywords: lists of (duration, target)
// pairs, or of phase dicts (their loads and weights are resolved by
// phaseProfile and phaseWeights).
func profileOf(thread *starlark.Thread, b *starlark.Builtin, kwargs []starlark.Tuple) (bench.LoadProfile, []phase, []starlark.Tuple, error) {
	var rest []starlark.Tuple
	var lp bench.LoadProfile
	var phases []phase
	for _, kv := range kwargs {
		name, _ := starlark.AsString(kv[0])
		if (name != "stages" && name != "rate_stages" && name != "phases") || kv[1] == starlark.None {
			rest = append(rest, kv)
			continue
		}
		if len(lp.Stages) > 0 || len(phases) > 0 {
			return lp, nil, nil, runner.BadPlanInput(thread, "%s: give one of stages= (threads), rate_stages= (events per second) and phases=", b.Name())
		}
		if name == "phases" {
			var err error
			if phases, err = phasesOf(kv[1]); err != nil {
				return lp, nil, nil, runner.BadPlanInput(thread, "%s: phases: %v", b.Name(), err)
			}
			continue
		}
		lp.Rate = name == "rate_stages"
		list, ok := kv[1].(starlark.Indexable)
		if !ok {
			return lp, nil, nil, runner.BadPlanInput(thread, "%s: %s must be a list of (duration, target) pairs, e.g. [(\"30s\", 100), (\"2m\", 100)], got %s",
				b.Name(), name, kv[1].Type())
		}
		for i := 0; i < list.Len(); i++ {
			pair, ok := list.Index(i).(starlark.Tuple)
			if !ok || len(pair) != 2 {
				return lp, nil, nil, runner.BadPlanInput(thread, "%s: %s[%d] must be a (duration, target) pair, got %s", b.Name(), name, i, list.Index(i).String())
			}
			d, err := runner.DurationOf(pair[0])
			if err != nil {
				return lp, nil, nil, runner.BadPlanInput(thread, "%s: %s[%d]: %v", b.Name(), name, i, err)
			}
			target, ok := starlark.AsFloat(pair[1])
			if !ok {
				return lp, nil, nil, runner.BadPlanInput(thread, "%s: %s[%d]: the target must be a number, got %s", b.Name(), name, i, pair[1].Type())
			}
			lp.Stages = append(lp.Stages, bench.Stage{Duration: d, Target: target})
		}
		if err := lp.Stages.Check(); err != nil {
			return lp, nil, nil, runner.BadPlanInput(thread, "%s: %s", b.Name(), strings.Replace(err.Error(), "stages:", name+":", 1))
		}
	}
	return lp, phases, rest, nil
}

// phasesOf reads phases=: a list of dicts, each with time (a duration)
// and, optionally, threads or rate (a number) and weights.
func phasesOf(v starlark.Value) ([]phase, error) {
	list, ok := v.(starlark.Indexable)
	if !ok || list.Len() == 0 {
		return nil, fmt.Errorf("want a list of phases such as [{\"time\": \"1m\", \"threads\": 16}, {\"time\": \"1m\", \"threads\": 16, \"weights\": {...}}], got %s", v.String())
	}
	var phases []phase
	for i := 0; i < list.Len(); i++ {
		d, ok := list.Index(i).(*starlark.Dict)
		if !ok {
			return nil, fmt.Errorf("phase %d must be a dict (time, threads or rate, weights), got %s", i+1, list.Index(i).Type())
		}
		var p phase
		for _, kv := range d.Items() {
			key, _ := starlark.AsString(kv[0])
			switch key {
			case "time":
				t, err := runner.DurationOf(kv[1])
				if err != nil || t <= 0 {
					return nil, fmt.Errorf("phase %d: time must be a duration above zero (\"1m\"), got %s", i+1, kv[1].String())
				}
				p.time = t
			case "threads", "rate":
				x, ok := starlark.AsFloat(kv[1])
				if !ok || !(x > 0) || math.IsInf(x, 0) || (key == "threads" && x != math.Trunc(x)) {
					return nil, fmt.Errorf("phase %d: %s must be a number above zero, got %s", i+1, key, kv[1].String())
				}
				if key == "threads" {
					p.threads = x
				} else {
					p.rate = x
				}
			case "weights":
				p.weights = kv[1]
			default:
				return nil, fmt.Errorf("phase %d: no key %s: a phase has time, threads or rate, and weights", i+1, kv[0].String())
			}
		}
		switch {
		case p.time == 0:
			return nil, fmt.Errorf("phase %d has no time: give it one (\"time\": \"1m\")", i+1)
		case p.threads > 0 && p.rate > 0:
			return nil, fmt.Errorf("phase %d gives threads and rate: a phase is closed-loop (threads) or open-loop (rate)", i+1)
		}
		phases = append(phases, p)
	}
	return phases, nil
}

// phaseProfile is the load profile of a run's phases: a stage each that
// holds its load from its start, of threads or, when the phases give
// rates (or the run has one and they give none), of events per second;
// a phase without a load takes the run's. Their weights come after
// (phaseWeights).
func phaseProfile(opts []family.Option, v family.Values, phases []phase) (bench.LoadProfile, error) {
	own := func(role family.Role) float64 {
		o, ok := family.ByRole(opts, role)
		if !ok {
			return 0
		}
		switch x := v[o.Name].(type) {
		case int64:
			return float64(x)
		case float64:
			return x
		}
		return 0
	}
	lp := bench.LoadProfile{Phases: true}
	for _, p := range phases {
		lp.Rate = lp.Rate || p.rate > 0
	}
	if !lp.Rate {
		for _, p := range phases {
			if p.threads > 0 {
				break
			}
			lp.Rate = own(family.Rate) > 0 // no phase gives a load: the run's
		}
	}
	for i, p := range phases {
		target := p.threads
		switch {
		case lp.Rate && p.threads > 0:
			return lp, fmt.Errorf("phase %d gives threads, others a rate: the phases of one run are all closed-loop (threads) or all open-loop (rate)", i+1)
		case lp.Rate:
			target = p.rate
			if target == 0 {
				target = own(family.Rate)
			}
		case target == 0:
			target = max(1, own(family.Threads))
		}
		if target == 0 {
			return lp, fmt.Errorf("phase %d gives no rate and the run has none: give it one (\"rate\": 500)", i+1)
		}
		lp.Stages = append(lp.Stages, bench.Stage{Duration: p.time, Target: target, Jump: true})
	}
	return lp, nil
}

// phaseWeights sets each phase's weights, given by kind name (a dict) or
// in the run's kinds' order (a list), checked by the family where it has
// rules of its own (TPC-C's add up to 100).
func phaseWeights(f family.Family, r family.Run, phases []phase, lp bench.LoadProfile) error {
	kinds := r.Kinds()
	for i, p := range phases {
		if p.weights == nil || p.weights == starlark.None {
			continue
		}
		if len(kinds) == 0 {
			return fmt.Errorf("phase %d: a %s run has no kinds of event to weigh: its phases set their time and load", i+1, f.Name())
		}
		w := make([]int64, len(kinds))
		switch x := p.weights.(type) {
		case *starlark.Dict:
			for _, kv := range x.Items() {
				name, _ := starlark.AsString(kv[0])
				k := slices.Index(kinds, name)
				if k < 0 {
					return fmt.Errorf("phase %d: weights: no kind of event %s: the run's are %s", i+1, kv[0].String(), strings.Join(kinds, ", "))
				}
				if err := starlark.AsInt(kv[1], &w[k]); err != nil {
					return fmt.Errorf("phase %d: weights: %s must be a whole number, got %s", i+1, name, kv[1].String())
				}
			}
		case starlark.Indexable:
			if x.Len() != len(kinds) {
				return fmt.Errorf("phase %d: weights: %d numbers, the run has %d kinds of event (%s)", i+1, x.Len(), len(kinds), strings.Join(kinds, ", "))
			}
			for k := range w {
				if err := starlark.AsInt(x.Index(k), &w[k]); err != nil {
					return fmt.Errorf("phase %d: weights: %s must be a whole number, got %s", i+1, kinds[k], x.Index(k).String())
				}
			}
		default:
			return fmt.Errorf("phase %d: weights must be a dict by kind of event (%s) or a list in that order, got %s", i+1, strings.Join(kinds, ", "), p.weights.Type())
		}
		if c, ok := f.(family.WeightsChecker); ok {
			if err := c.CheckWeights(w); err != nil {
				return fmt.Errorf("phase %d: weights: %v", i+1, err)
			}
		}
		lp.Stages[i].Weights = w
	}
	if err := lp.Stages.Check(); err != nil {
		return errors.New(strings.Replace(err.Error(), "stages: stage", "phase", 1))
	}
	return nil
}

// profileValues sets a run's threads (to the profile's highest, of
// threads) and time (to the profile's length, where the family takes it)
// to what its profile makes them, so that its name, banner and progress
// say so.
func profileValues(opts []family.Option, v family.Values, lp bench.LoadProfile) {
	if o, ok := family.ByRole(opts, family.Threads); ok && !lp.Rate {
		v[o.Name] = int64(max(1, math.Ceil(lp.Stages.Max()-1e-9)))
	}
	if o, ok := family.ByRole(opts, family.Time); ok && o.Kind == family.Duration {
		was, had := v[o.Name]
		v[o.Name] = lp.Stages.Total()
		if family.Check(opts, v) != nil { // a length the option does not take (sysbench's whole seconds)
			if had {
				v[o.Name] = was
			} else {
				delete(v, o.Name)
			}
		}
	}
}

// profileText is a profile as a step list shows it after the command line.
func profileText(lp bench.LoadProfile) string {
	if len(lp.Stages) == 0 {
		return ""
	}
	var parts []string
	for _, s := range lp.Stages {
		part := fmt.Sprintf("%v→%s", s.Duration, strconv.FormatFloat(s.Target, 'f', -1, 64))
		if lp.Phases {
			part = fmt.Sprintf("%v at %s", s.Duration, strconv.FormatFloat(s.Target, 'f', -1, 64))
		}
		if s.Weights != nil {
			part += fmt.Sprintf(" weights %v", s.Weights)
		}
		parts = append(parts, part)
	}
	unit := "threads"
	if lp.Rate {
		unit = "events/s"
	}
	if lp.Phases {
		return fmt.Sprintf("  # phases (%s): %s", unit, strings.Join(parts, "; "))
	}
	return fmt.Sprintf("  # %s: %s", unit, strings.Join(parts, ", "))
}
