package benchstar

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/runner"
	"github.com/starbench/starbench/runner/results"
)

// capacitySearch is a bench.capacity call, checked.
type capacitySearch struct {
	load     *Load
	slo      bench.SLO
	search   bench.Search
	over     string // "rate" or "threads"
	stepTime time.Duration
	name     string
	tags     map[string]string
	// workload and threads name the load in the result: its first
	// probe's (until then, the part's name).
	workload string
	threads  int
}

// probeRecord is what the journal keeps of a probe, and a resumed search
// takes up.
type probeRecord struct {
	Probe   results.CapacityProbe `json:"probe"`
	Summary *results.Summary      `json:"summary"`
}

func capacity(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var partV starlark.Value
	var sloV *starlark.Dict
	var rateV, threadsV, intervalV starlark.Value = starlark.None, starlark.None, starlark.None
	var stepTimeV starlark.Value = starlark.String("60s")
	var precisionV starlark.Value = starlark.String("5%")
	var tagsV *starlark.Dict
	c := capacitySearch{name: "capacity"}
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "part", &partV, "slo", &sloV, "rate?", &rateV, "threads?", &threadsV,
		"step_time?", &stepTimeV, "precision?", &precisionV, "report_interval?", &intervalV, "name?", &c.name, "tags?", &tagsV); err != nil {
		return nil, err
	}
	bad := func(format string, args ...any) error {
		return runner.BadPlanInput(thread, "%s: "+format, append([]any{b.Name()}, args...)...)
	}
	if seg := runner.HostOf(thread).Run().Segment(); seg != "" {
		return nil, bad("this run is segment %s of every load, and a capacity search decides each probe on the whole load's latency: "+
			"run the search in one process (its part may run on a client host with client=)", seg)
	}
	lv, ok := partV.(*LoadValue)
	if !ok {
		return nil, bad("part must be a load from sysbench.part(...), tpcc.part(...) or mix.part(...), got %s", partV.Type())
	}
	c.load = lv.Load
	var err error
	if c.slo, err = sloOf(sloV); err != nil {
		return nil, bad("%v", err)
	}
	if c.search.Precision, err = shareOf(precisionV); err != nil {
		return nil, bad("precision: %v", err)
	}
	switch {
	case (rateV == starlark.None) == (threadsV == starlark.None):
		return nil, bad("give rate=(lo, hi) to search events per second (open loop) or threads=(lo, hi) to search threads (closed loop), one of them")
	case rateV != starlark.None:
		c.over, c.search.Integer = "rate", c.load.WholeRate
		c.search.Lo, c.search.Hi, err = rangeOf(rateV)
	default:
		c.over, c.search.Integer = "threads", true
		c.search.Lo, c.search.Hi, err = rangeOf(threadsV)
	}
	if err == nil {
		err = c.search.Check()
	}
	if err != nil {
		if c.over == "rate" && c.search.Integer && strings.Contains(err.Error(), "whole") {
			err = fmt.Errorf("a %s rate is whole events per second: give whole numbers", c.load.Family)
		}
		return nil, bad("%s: %v", c.over, err)
	}
	if c.stepTime, err = runner.DurationOf(stepTimeV); err != nil || c.stepTime <= 0 {
		return nil, bad("step_time must be a duration above zero (\"60s\"), got %s", stepTimeV.String())
	}
	if c.tags, err = Tags(tagsV); err != nil {
		return nil, bad("%v", err)
	}
	if err := c.load.SetTime(c.stepTime); err != nil {
		return nil, bad("step_time: part %s: %v", c.load.Name, err)
	}
	if err := setAll(thread, b, []*Load{c.load}, "report_interval", intervalV, func(l *Load, d time.Duration) error { return l.SetInterval(d) }); err != nil {
		return nil, err
	}
	if err := c.set(c.search.Lo); err != nil {
		return nil, bad("%s: part %s: %v", c.over, c.load.Name, err)
	}
	info := runner.StepInfo{Builtin: b.Name(), Handle: c.load.Handle, Text: c.text(), Args: c.args()}
	h := runner.HostOf(thread)
	return h.Step(info, runner.Action{
		Run: func(s *runner.Step) (runner.Outcome, error) {
			capRes, err := c.run(h, s)
			if err != nil {
				return runner.Outcome{}, PlanInput(thread, err)
			}
			return runner.Outcome{Value: capacityValue(capRes, false), Record: capRes}, nil
		},
		Placeholder: func(*runner.Step) starlark.Value {
			return capacityValue(c.result(nil), true)
		},
		Replay: func(_ *runner.Step, raw json.RawMessage) (starlark.Value, error) {
			var capRes results.Capacity
			if err := json.Unmarshal(raw, &capRes); err != nil {
				return nil, fmt.Errorf("recorded result of %s does not parse: %v", b.Name(), err)
			}
			return capacityValue(&capRes, false), nil
		},
	})
}

// set makes the load probe load.
func (c *capacitySearch) set(load float64) error {
	if c.over == "threads" {
		return c.load.SetThreads(int(load))
	}
	return c.load.SetRate(load)
}

func (c *capacitySearch) unit() string {
	if c.over == "threads" {
		return "threads"
	}
	return "events/s"
}

func (c *capacitySearch) text() string {
	return fmt.Sprintf("capacity search: the highest %s in [%s, %s] with %s, probes of %v, precision %s%%\n  %s",
		c.unit(), results.FormatLoad(c.search.Lo), results.FormatLoad(c.search.Hi), c.slo, c.stepTime, results.FormatLoad(c.search.Precision*100), c.load.Text())
}

func (c *capacitySearch) args() map[string]any {
	part := c.load.Args()
	part["family"], part["handle"] = c.load.Family, c.load.Handle
	return map[string]any{"part": part, "slo": c.slo.Record(), c.over: []float64{c.search.Lo, c.search.Hi},
		"step_time": c.stepTime.Seconds(), "precision": c.search.Precision, "name": c.name, "tags": c.tags}
}

// result is the search's capacity.json after probes.
func (c *capacitySearch) result(probes []results.CapacityProbe) *results.Capacity {
	workload := c.workload
	if workload == "" {
		workload = c.load.Name
	}
	out := &results.Capacity{Name: c.name, Family: c.load.Family, Workload: workload, Target: c.load.Target, Tags: c.tags, Over: c.over,
		SLO: c.slo.Record(), SLOText: c.slo.String(), Lo: c.search.Lo, Hi: c.search.Hi, Precision: c.search.Precision,
		StepSeconds: c.stepTime.Seconds(), Probes: probes}
	if c.over == "rate" {
		out.Threads = c.threads
	}
	var probed []bench.Probed
	for _, p := range probes {
		probed = append(probed, bench.Probed{Load: p.Load, Holds: p.Holds})
	}
	answer, bound := c.search.Answer(probed)
	out.Answer, out.Bound, out.Found = answer, string(bound), bound == bench.Within && len(probes) > 0
	for _, p := range probes {
		if p.Load == answer && p.Holds {
			out.AnswerTPS = p.TPS
		}
	}
	return out
}

// run runs the search's probes, each a child step with a folder of its
// own under the search's; a resumed run takes up those that completed.
func (c *capacitySearch) run(h runner.Host, s *runner.Step) (*results.Capacity, error) {
	dir, err := s.OutputDir(c.name)
	if err != nil {
		return nil, err
	}
	out := h.Out().Writer()
	fmt.Fprintf(out, "capacity search: the highest %s in [%s, %s] with %s (probes of %v, precision %s%%)\n",
		c.unit(), results.FormatLoad(c.search.Lo), results.FormatLoad(c.search.Hi), c.slo, c.stepTime, results.FormatLoad(c.search.Precision*100))
	var probes []results.CapacityProbe
	var probed []bench.Probed
	limit := c.search.MaxProbes() + 2 // the search ends before; noise cannot make it loop
	for k := 1; k <= limit; k++ {
		load, done := c.search.Next(probed)
		if done {
			break
		}
		if err := c.set(load); err != nil {
			return nil, fmt.Errorf("%s: probe %d at %s %s: %w", "bench.capacity", k, results.FormatLoad(load), c.unit(), err)
		}
		label := fmt.Sprintf("%d-%s", k, results.SafeName(c.over+"-"+results.FormatLoad(load)))
		if c.over == "threads" {
			label = fmt.Sprintf("%d-%s", k, results.SafeName(c.load.Name))
		}
		args := c.load.Args()
		args["probe"], args[c.over] = k, load
		child := s.Child(runner.StepInfo{Builtin: "bench.capacity.probe", Handle: c.load.Handle, Text: c.load.Text(), Args: args})
		var rec probeRecord
		replayed, err := child.ExecuteOrReplay(func(cs *runner.Step) (any, error) {
			rec, err = c.probe(h, cs, k, load, filepath.Join(dir, results.ProbesDir, label))
			return rec, err
		}, func(raw json.RawMessage) error {
			if err := json.Unmarshal(raw, &rec); err != nil || rec.Summary == nil {
				return fmt.Errorf("the recorded probe does not parse: %v", err)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		rec.Probe.Replayed = replayed
		if k == 1 { // the workload's name without the threads of a probe's
			c.workload, c.threads = rec.Summary.Workload.Name, rec.Summary.Threads
		}
		probes = append(probes, rec.Probe)
		probed = append(probed, bench.Probed{Load: rec.Probe.Load, Holds: rec.Probe.Holds})
		fmt.Fprintf(out, "capacity probe %d%s: %s %s: tps %.2f, %s: %s\n", k, map[bool]string{true: " (replayed)"}[replayed],
			results.FormatLoad(load), c.unit(), rec.Probe.TPS, c.measured(rec.Probe), verdict(rec.Probe))
	}
	res := c.result(probes)
	res.Dir = h.Run().Relative(dir)
	if err := results.WriteCapacity(dir, res); err != nil {
		return nil, err
	}
	fmt.Fprintln(out, res.Describe())
	return res, nil
}

// probe runs one probe at load into dir.
func (c *capacitySearch) probe(h runner.Host, s *runner.Step, k int, load float64, dir string) (probeRecord, error) {
	if err := os.RemoveAll(dir); err != nil { // a probe a crash cut short: its partial files
		return probeRecord{}, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return probeRecord{}, err
	}
	step, err := c.load.Step(s.Seed())
	if err != nil {
		return probeRecord{}, fmt.Errorf("bench.capacity: probe %d: %w", k, err)
	}
	step.Hooks = append(step.Hooks, HooksFor(h, c.load.Interval)...)
	step.Tags = mergedTags(step.Tags, c.tags, map[string]string{"capacity_probe": strconv.Itoa(k)})
	rec, err := RunIn(s.Context(), h, dir, "bench.capacity", step)
	if err != nil {
		return probeRecord{}, fmt.Errorf("probe %d at %s %s: %w", k, results.FormatLoad(load), c.unit(), err)
	}
	if rec.Summary.Status == results.StatusFailed {
		return probeRecord{}, fmt.Errorf("bench.capacity: probe %d at %s %s failed: %s (its results: %s)", k, results.FormatLoad(load), c.unit(), rec.Summary.Error, rec.Dir)
	}
	holds, broken := c.slo.Check(rec.Summary)
	lat := map[string]float64{"avg": rec.Summary.Latency.AvgMS, "max": rec.Summary.Latency.MaxMS}
	for key, v := range rec.Summary.Latency.Percentiles {
		lat["p"+key] = v
	}
	rel, _ := filepath.Rel(filepath.Dir(filepath.Dir(dir)), dir)
	return probeRecord{Summary: rec.Summary, Probe: results.CapacityProbe{Probe: k, Load: load, Dir: filepath.ToSlash(rel), TPS: rec.Summary.TPS,
		Latency: lat, ErrorsPct: bench.ErrorsPct(rec.Summary), Holds: holds, Broken: broken}}, nil
}

// measured says a probe's figures the SLO bounds.
func (c *capacitySearch) measured(p results.CapacityProbe) string {
	var parts []string
	for _, b := range c.slo.Latency {
		parts = append(parts, fmt.Sprintf("%s %.2f ms", b.Key, p.Latency[b.Key]))
	}
	if c.slo.ErrorsPct >= 0 {
		parts = append(parts, fmt.Sprintf("errors %.3g%%", p.ErrorsPct))
	}
	return strings.Join(parts, ", ")
}

func verdict(p results.CapacityProbe) string {
	if p.Holds {
		return "holds"
	}
	return "breaks the SLO (" + strings.Join(p.Broken, "; ") + ")"
}

func mergedTags(all ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range all {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// sloOf reads slo=: bounds by name, each a string (or a number: a
// fraction for errors).
func sloOf(d *starlark.Dict) (bench.SLO, error) {
	bounds := map[string]string{}
	if d != nil {
		for _, kv := range d.Items() {
			k, ok := starlark.AsString(kv[0])
			if !ok {
				return bench.SLO{}, fmt.Errorf("slo: bound names are strings (\"p99\"), got %s", kv[0].Type())
			}
			if v, ok := starlark.AsString(kv[1]); ok {
				bounds[k] = v
			} else if f, ok := starlark.AsFloat(kv[1]); ok && k == "errors" {
				bounds[k] = strconv.FormatFloat(f, 'g', -1, 64)
			} else {
				return bench.SLO{}, fmt.Errorf("slo: %s must be a string such as \"50ms\" or \"0.1%%\", got %s", k, kv[1].Type())
			}
		}
	}
	return bench.ParseSLO(bounds)
}

// shareOf reads a share: "5%" or a fraction.
func shareOf(v starlark.Value) (float64, error) {
	if s, ok := starlark.AsString(v); ok {
		return bench.ParseShare(s)
	}
	if f, ok := starlark.AsFloat(v); ok {
		return bench.ParseShare(strconv.FormatFloat(f, 'g', -1, 64))
	}
	return 0, fmt.Errorf("want \"5%%\" or a fraction, got %s", v.Type())
}

// rangeOf reads a (lo, hi) pair of numbers.
func rangeOf(v starlark.Value) (float64, float64, error) {
	pair, ok := v.(starlark.Indexable)
	if !ok || pair.Len() != 2 {
		return 0, 0, fmt.Errorf("want a (lo, hi) pair of numbers, got %s", v.String())
	}
	lo, ok1 := starlark.AsFloat(pair.Index(0))
	hi, ok2 := starlark.AsFloat(pair.Index(1))
	if !ok1 || !ok2 {
		return 0, 0, fmt.Errorf("want a (lo, hi) pair of numbers, got %s", v.String())
	}
	return lo, hi, nil
}

// capacityValue is a search as a plan sees it.
func capacityValue(c *results.Capacity, placeholder bool) starlark.Value {
	var probes []starlark.Value
	for _, p := range c.Probes {
		lat := starlark.StringDict{}
		for k, v := range p.Latency {
			lat[strings.ReplaceAll(k, ".", "")] = starlark.Float(v)
		}
		var broken []starlark.Value
		for _, s := range p.Broken {
			broken = append(broken, starlark.String(s))
		}
		fields := starlark.StringDict{
			"probe": starlark.MakeInt(p.Probe), "level": starlark.Float(p.Load), "tps": starlark.Float(p.TPS),
			"latency": starlarkstruct.FromStringDict(starlark.String("latency"), lat), "errors_pct": starlark.Float(p.ErrorsPct),
			"holds": starlark.Bool(p.Holds), "broken": starlark.NewList(broken), "dir": starlark.String(p.Dir), "replayed": starlark.Bool(p.Replayed),
		}
		fields[c.Over] = fields["level"]
		probes = append(probes, starlarkstruct.FromStringDict(starlark.String("capacity_probe"), fields))
	}
	var answer starlark.Value = starlark.Float(c.Answer)
	if c.Bound == string(bench.BelowRange) || placeholder {
		answer = starlark.None
	}
	text := c.Describe()
	if placeholder {
		text = "capacity of " + c.Workload + ": a dry run has no answer"
	}
	fields := starlark.StringDict{
		"found": starlark.Bool(c.Found), "bound": starlark.String(c.Bound), "over": starlark.String(c.Over), "unit": starlark.String(c.Unit()),
		"answer": answer, "tps": starlark.Float(c.AnswerTPS), "slo": starlark.String(c.SLOText), "probes": starlark.NewList(probes),
		"workload": starlark.String(c.Workload), "dir": starlark.String(c.Dir), "placeholder": starlark.Bool(placeholder), "text": starlark.String(text),
	}
	fields[c.Over] = answer
	return starlarkstruct.FromStringDict(starlark.String("capacity"), fields)
}
