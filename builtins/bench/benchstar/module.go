package benchstar

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/runner"
	"github.com/starbench/starbench/runner/results"
)

// Module is the predeclared `bench` module: steps made of the loads of
// several workload families.
var Module = &starlarkstruct.Module{
	Name: "bench",
	Members: starlark.StringDict{
		"together": starlark.NewBuiltin("bench.together", together),
		"capacity": starlark.NewBuiltin("bench.capacity", capacity),
	},
}

// Doc documents the module for `starbench doc`.
var Doc = runner.ModuleDoc{
	Name:    "bench",
	Summary: "Steps made of several loads at once (one sysbench per TiDB server, a TPC-C beside a sysbench), merged exactly.",
	Funcs: []runner.FuncDoc{
		{Name: "bench.together", Signature: "bench.together(parts, time=None, report_interval=None, on_part_failure=\"fail\", tags={}, name=\"together\", seed=0)",
			Doc: "Runs the loads in parts (from sysbench.part(...) and tpcc.part(...)) at once as one step. Every part connects and prepares, " +
				"then all start on one barrier (their first intervals begin within milliseconds) and, running for the same time, stop together. " +
				"time= and report_interval= set every part's (durations); otherwise the parts must agree on both, or the call fails with exit 2. " +
				"Each part writes its own step folder steps/<id>-NAME/parts/<k>-<part>/; the step's own summary.json, intervals.csv and " +
				"latency.hlog are their exact merge: counts and errors summed, latency percentiles from one histogram of every part's latencies, " +
				"rates summed, intervals on one clock (TPC-C's efficiency, per warehouse, stays in the parts). The parts' output is printed " +
				"with a [k part] prefix; the live view shows the whole and each part's tps. A part that fails stops the others (what they measured " +
				"is kept) and fails the step naming the part; on_part_failure=\"continue\" lets the others run on and keeps the step. " +
				"Parts without a seed of their own get one each from the step's seed. Parts with client= run in agents on those hosts: " +
				"each agent's clock offset is measured (and printed), every part starts at one planned time, the agents stream their " +
				"progress and interval histograms, and their step folders merge exactly like the others'; an agent whose host or SSH " +
				"session dies fails its part naming the host (its streamed intervals are kept), and no agent outlives the step. " +
				"Returns a struct like sysbench.run's (the merged figures) " +
				"with parts: a list of structs (name, dir, workload, target, client, status, error)."},
		{Name: "bench.capacity", Signature: "bench.capacity(part, slo, rate=None, threads=None, step_time=\"60s\", precision=\"5%\", report_interval=None, name=\"capacity\", tags={})",
			Doc: "Finds the highest load of part (from sysbench.part, tpcc.part or mix.part) that holds slo, as one step. " +
				"rate=(lo, hi) searches events per second, open loop: latency counts from each event's scheduled start, so a server that falls " +
				"behind cannot hide its queue (the part's threads serve the rate: give enough); threads=(lo, hi) searches threads, closed loop. " +
				"slo bounds p50, p90, p95, p99, p99.9, p99.99, max or avg latency (\"50ms\") and errors (\"0.1%\" of the events tried); " +
				"a probe that dropped events (its backlog overflowed) or completed none breaks it too. Each probe runs the part for step_time at one load: " +
				"first lo, then double until a probe breaks the SLO (at most hi), then bisect (geometrically) between the highest load that held and " +
				"the lowest that broke until they are within precision of each other: at most log2(hi/lo)+1 probes to bracket and " +
				"log2(ln 2/ln(1+precision)) to bisect. Each probe is a child step with its own folder steps/<id>-NAME/probes/<k>-<load>/ " +
				"(summary, intervals, histograms, telemetry) and a line of output; the search writes steps/<id>-NAME/capacity.json, which " +
				"report shows (the answer, the probes and a chart of latency against load with the SLO's line). A resumed run takes up the " +
				"probes the search completed and goes on from there. A search that cannot bracket the answer within (lo, hi) is a result, not " +
				"an error: found is False and bound says \"below\" (lo breaks the SLO) or \"above\" (hi holds it). A probe that fails (the server " +
				"went away) fails the step; its probes so far are kept. Returns a struct: found, bound, answer (the highest load that held; " +
				"None below the range), rate or threads (the same), unit, tps (the answer's probe), slo, workload, dir, text (the answer in a line) " +
				"and probes: a list of structs (probe, level (its load; also as rate or threads), tps, latency (p50 ... p9999, avg, max in ms), errors_pct, holds, broken, dir, replayed). " +
				"The search sets the part's time, and its rate or threads, as each probe needs."},
	},
}

func together(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var partsV starlark.Value
	var timeV, intervalV starlark.Value = starlark.None, starlark.None
	onFailure, name := bench.OnPartFailureFail, "together"
	var tagsV *starlark.Dict
	var seed int64
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "parts", &partsV, "time?", &timeV, "report_interval?", &intervalV,
		"on_part_failure?", &onFailure, "tags?", &tagsV, "name?", &name, "seed?", &seed); err != nil {
		return nil, err
	}
	loads, err := loadsOf(thread, b, partsV)
	if err != nil {
		return nil, err
	}
	if onFailure != bench.OnPartFailureFail && onFailure != bench.OnPartFailureContinue {
		return nil, runner.BadPlanInput(thread, "%s: on_part_failure must be \"fail\" or \"continue\", got %q", b.Name(), onFailure)
	}
	tags, err := Tags(tagsV)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	if err := setAll(thread, b, loads, "time", timeV, func(l *Load, d time.Duration) error { return l.SetTime(d) }); err != nil {
		return nil, err
	}
	if err := setAll(thread, b, loads, "report_interval", intervalV, func(l *Load, d time.Duration) error { return l.SetInterval(d) }); err != nil {
		return nil, err
	}
	if err := agree(thread, b, loads); err != nil {
		return nil, err
	}
	text := fmt.Sprintf("%d loads at once for %v, reporting every %v, on_part_failure=%s", len(loads), loads[0].Time, loads[0].Interval, onFailure)
	var partArgs []map[string]any
	for k, l := range loads {
		text += fmt.Sprintf("\n  [%d %s] on %s: %s", k+1, l.Name, l.Target, l.Text())
		a := l.Args()
		a["family"], a["handle"] = l.Family, l.Handle
		partArgs = append(partArgs, a)
	}
	info := runner.StepInfo{Builtin: "bench.together", Text: text, Args: map[string]any{
		"parts": partArgs, "time": loads[0].Time.Seconds(), "report_interval": loads[0].Interval.Seconds(),
		"on_part_failure": onFailure, "tags": tags, "name": name, "seed": seed,
	}}
	h := runner.HostOf(thread)
	return h.Step(info, runner.Action{
		Run: func(s *runner.Step) (runner.Outcome, error) {
			rec, err := runTogether(h, s, b.Name(), name, loads, bench.Together{OnPartFailure: onFailure, Seed: Seed(s, seed), Tags: tags})
			if err != nil {
				return runner.Outcome{}, PlanInput(thread, err)
			}
			return runner.Outcome{Value: SummaryValue(rec.Summary, rec.Dir, false), Record: rec}, nil
		},
		Placeholder: func(*runner.Step) starlark.Value {
			sum := &results.Summary{Tags: tags, Latency: results.LatencySummary{Percentiles: map[string]float64{}}}
			for k, l := range loads {
				sum.Parts = append(sum.Parts, results.Part{Name: l.Name, Dir: results.PartDir(k+1, l.Name), Workload: l.Family})
			}
			return SummaryValue(sum, "", true)
		},
		Replay: func(_ *runner.Step, raw json.RawMessage) (starlark.Value, error) {
			rec, err := ReadRecord(b.Name(), raw)
			if err != nil {
				return nil, err
			}
			return SummaryValue(rec.Summary, rec.Dir, false), nil
		},
	})
}

// loadsOf reads together's parts: a non-empty list of loads.
func loadsOf(thread *starlark.Thread, b *starlark.Builtin, v starlark.Value) ([]*Load, error) {
	it, ok := v.(starlark.Iterable)
	if !ok {
		return nil, runner.BadPlanInput(thread, "%s: parts must be a list of parts (sysbench.part(...), tpcc.part(...)), got %s", b.Name(), v.Type())
	}
	var loads []*Load
	iter := it.Iterate()
	defer iter.Done()
	var x starlark.Value
	for iter.Next(&x) {
		l, ok := x.(*LoadValue)
		if !ok {
			return nil, runner.BadPlanInput(thread, "%s: part %d is a %s, not a part: make parts with sysbench.part(...) or tpcc.part(...) (sysbench.run runs at once)",
				b.Name(), len(loads)+1, x.Type())
		}
		loads = append(loads, l.Load)
	}
	if len(loads) == 0 {
		return nil, runner.BadPlanInput(thread, "%s: parts is empty", b.Name())
	}
	return loads, nil
}

// setAll sets a duration (time= or report_interval=) on every load, when given.
func setAll(thread *starlark.Thread, b *starlark.Builtin, loads []*Load, what string, v starlark.Value, set func(*Load, time.Duration) error) error {
	if v == starlark.None {
		return nil
	}
	d, err := runner.DurationOf(v)
	if err != nil {
		return runner.BadPlanInput(thread, "%s: %s: %v", b.Name(), what, err)
	}
	for k, l := range loads {
		if err := set(l, d); err != nil {
			return runner.BadPlanInput(thread, "%s: part %d (%s): %s: %v", b.Name(), k+1, l.Name, what, err)
		}
	}
	return nil
}

// agree checks that the loads run for one time and report on one interval:
// otherwise they would not stop together, nor merge interval by interval.
func agree(thread *starlark.Thread, b *starlark.Builtin, loads []*Load) error {
	list := func(f func(*Load) time.Duration) string {
		var parts []string
		for k, l := range loads {
			parts = append(parts, fmt.Sprintf("part %d (%s) %v", k+1, l.Name, f(l)))
		}
		return strings.Join(parts, ", ")
	}
	for k, l := range loads {
		if l.Time <= 0 {
			return runner.BadPlanInput(thread, "%s: part %d (%s) is bounded by events, not time: parts run for one time (give time=)", b.Name(), k+1, l.Name)
		}
	}
	for _, l := range loads[1:] {
		if l.Time != loads[0].Time {
			return runner.BadPlanInput(thread, "%s: the parts' durations differ (%s): give them one, e.g. time=%q", b.Name(),
				list(func(l *Load) time.Duration { return l.Time }), loads[0].Time.String())
		}
		if l.Interval != loads[0].Interval {
			return runner.BadPlanInput(thread, "%s: the parts' report intervals differ (%s): give them one, e.g. report_interval=%q", b.Name(),
				list(func(l *Load) time.Duration { return l.Interval }), loads[0].Interval.String())
		}
	}
	return nil
}

// runTogether runs the loads as plan step s into steps/<id>-NAME, their
// text on the run's output and their progress on its live view.
func runTogether(h runner.Host, s *runner.Step, builtin, name string, loads []*Load, t bench.Together) (Record, error) {
	for k, l := range loads {
		step, err := l.Step(partSeed(t.Seed, k))
		if err != nil {
			return Record{}, fmt.Errorf("%s: part %d (%s): %w", builtin, k+1, l.Name, err)
		}
		t.Parts = append(t.Parts, bench.Part{Name: l.Name, Step: step})
	}
	dir, err := s.OutputDir(name)
	if err != nil {
		return Record{}, err
	}
	t.Output, t.Redact = h.Out().Writer(), h.Run().Redact
	t.Progress = func(p bench.Progress) { h.Out().Benchmark(Status(p)) }
	t.Hooks = HooksFor(h, loads[0].Interval)
	ctx := s.Context()
	sum, err := bench.RunTogether(ctx, dir, t)
	rel := h.Run().Relative(dir)
	if ctx.Err() != nil {
		return Record{}, fmt.Errorf("%s: interrupted; partial results in %s: %w", builtin, rel, context.Canceled)
	}
	if err != nil {
		return Record{}, fmt.Errorf("%s: %w", builtin, err)
	}
	return Record{Dir: rel, Summary: sum}, nil
}

// SummaryValue is a merged step's summary as a plan sees it: what
// SummaryFields gives, its status and its parts.
func SummaryValue(s *results.Summary, dir string, placeholder bool) starlark.Value {
	var parts []starlark.Value
	for _, p := range s.Parts {
		parts = append(parts, starlarkstruct.FromStringDict(starlark.String("part"), starlark.StringDict{
			"name": starlark.String(p.Name), "dir": starlark.String(p.Dir), "workload": starlark.String(p.Workload),
			"target": starlark.String(p.Target), "client": starlark.String(p.Client), "status": starlark.String(p.Status), "error": starlark.String(p.Error),
		}))
	}
	fields := SummaryFields(s, dir, placeholder)
	fields["status"], fields["parts"] = starlark.String(s.Status), starlark.NewList(parts)
	return starlarkstruct.FromStringDict(starlark.String("bench_result"), fields)
}

// SummaryFields are the figures of a benchmark step every run builtin
// returns to the plan: workload, threads, tags, tps, qps, events, queries,
// reads, writes, others, errors (and by code and by kind), reconnects,
// seconds, latency (LatencyValue), dir and placeholder.
func SummaryFields(s *results.Summary, dir string, placeholder bool) starlark.StringDict {
	dict := func(m map[string]int64) *starlark.Dict {
		d := starlark.NewDict(len(m))
		for k, n := range m {
			_ = d.SetKey(starlark.String(k), starlark.MakeInt64(n))
		}
		return d
	}
	tags := starlark.NewDict(len(s.Tags))
	for k, v := range s.Tags {
		_ = tags.SetKey(starlark.String(k), starlark.String(v))
	}
	return starlark.StringDict{
		"workload":       starlark.String(s.Workload.Name),
		"threads":        starlark.MakeInt(s.Threads),
		"tags":           tags,
		"tps":            starlark.Float(s.TPS),
		"qps":            starlark.Float(s.QPS),
		"events":         starlark.MakeInt64(s.Events),
		"queries":        starlark.MakeInt64(s.Queries),
		"reads":          starlark.MakeInt64(s.Reads),
		"writes":         starlark.MakeInt64(s.Writes),
		"others":         starlark.MakeInt64(s.Others),
		"errors":         starlark.MakeInt64(s.Errors),
		"errors_by_code": dict(s.ErrorsByCode),
		"errors_by_kind": dict(s.ErrorsByKind),
		"reconnects":     starlark.MakeInt64(s.Reconnects),
		"seconds":        starlark.Float(s.Seconds),
		"latency":        LatencyValue(s.Latency),
		"dir":            starlark.String(dir),
		"placeholder":    starlark.Bool(placeholder),
		"telemetry":      TelemetryValue(s.Telemetry),
		"stages":         StagesValue(s.Stages),
	}
}

// StagesValue is a staged step's figures by stage as a plan sees them: a
// list of structs (stage, offered, seconds, events, errors, tps, qps,
// latency, kinds: events by kind).
func StagesValue(stages []results.StageSummary) *starlark.List {
	var out []starlark.Value
	for _, st := range stages {
		kinds := starlark.NewDict(len(st.Kinds))
		for k, n := range st.Kinds {
			_ = kinds.SetKey(starlark.String(k), starlark.MakeInt64(n))
		}
		out = append(out, starlarkstruct.FromStringDict(starlark.String("stage"), starlark.StringDict{
			"stage": starlark.MakeInt(st.Stage), "offered": starlark.Float(st.Offered), "seconds": starlark.Float(st.Seconds),
			"events": starlark.MakeInt64(st.Events), "errors": starlark.MakeInt64(st.Errors), "tps": starlark.Float(st.TPS),
			"qps": starlark.Float(st.QPS), "latency": LatencyValue(st.Latency), "kinds": kinds,
		}))
	}
	return starlark.NewList(out)
}

// TelemetryValue is a step's telemetry as a plan sees it: a dict of the
// series by name, each with kind, source, file, points, failed, error,
// the avg and max dicts of its values and the totals of its counters.
func TelemetryValue(series []results.TelemetrySeries) *starlark.Dict {
	floats := func(m map[string]float64) *starlark.Dict {
		d := starlark.NewDict(len(m))
		for k, v := range m {
			_ = d.SetKey(starlark.String(k), starlark.Float(v))
		}
		return d
	}
	out := starlark.NewDict(len(series))
	for _, ts := range series {
		_ = out.SetKey(starlark.String(ts.Name), starlarkstruct.FromStringDict(starlark.String("telemetry_series"), starlark.StringDict{
			"kind": starlark.String(ts.Kind), "source": starlark.String(ts.Source), "file": starlark.String(ts.File),
			"points": starlark.MakeInt(ts.Points), "failed": starlark.MakeInt(ts.Failed), "error": starlark.String(ts.Error),
			"avg": floats(ts.Avg), "max": floats(ts.Max), "totals": floats(ts.Totals),
		}))
	}
	return out
}

// LatencyValue is a latency summary as a plan sees it: min, avg, max, sum
// and p50 ... p9999 (ms), and percentiles by key.
func LatencyValue(l results.LatencySummary) starlark.Value {
	pcts := starlark.NewDict(len(l.Percentiles))
	lat := starlark.StringDict{
		"min": starlark.Float(l.MinMS), "avg": starlark.Float(l.AvgMS), "max": starlark.Float(l.MaxMS), "sum": starlark.Float(l.SumMS),
	}
	for _, p := range results.SummaryPercentiles {
		lat["p"+strings.ReplaceAll(results.PercentileKey(p), ".", "")] = starlark.Float(0)
	}
	for k, v := range l.Percentiles {
		_ = pcts.SetKey(starlark.String(k), starlark.Float(v))
		lat["p"+strings.ReplaceAll(k, ".", "")] = starlark.Float(v)
	}
	lat["percentiles"] = pcts
	return starlarkstruct.FromStringDict(starlark.String("latency"), lat)
}
