package main

import (
	"context"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/bench/benchstar"
	"github.com/starbench/starbench/builtins/k8s"
	"github.com/starbench/starbench/runner"
	"github.com/starbench/starbench/runner/livemetrics"
)

// segmentHelp is what every family command's --help says about running
// one load from several machines.
const segmentHelp = `

Running one load from several machines (or as a Kubernetes Indexed Job, see 'starbench k8s job'):
  --segment i/n        run the i-th of n slices of the load (with the family's seed, the same everywhere)
  --segment job/n      the same, i being the pod's JOB_COMPLETION_INDEX + 1 (a Kubernetes Indexed Job);
                       --out DIR is then the folder the segments share: this one writes DIR/seg-i
  --start-at TIME      connect and prepare, then start the load at TIME (RFC 3339, e.g. 2026-12-03T15:00:00Z);
                       a segment ready only after TIME fails rather than run late
  --start-barrier HOST:PORT
                       connect and prepare, then meet the other segments there (segment 1 serves it on PORT)
                       and start together, a second after the last arrived
  --start-timeout D    how long a barrier waits for every segment (default 10m)

Live metrics:
  --metrics-addr HOST:PORT
                       serve the command's live numbers at http://HOST:PORT/metrics in Prometheus' format
                       (tps, latency percentiles, events, queries and errors by code), as go-tpc's flag does
'starbench merge DIR` + `...' merges the segments' folders exactly; it refuses folders that did not run at the same time.`

// segmentArgs takes the start options (--start-at, --start-barrier,
// --start-timeout) out of a family command line, resolves --segment
// job/N from the pod's completion index (and --out with it), and returns
// the command line the family parses with the context its step starts
// from.
func segmentArgs(ctx context.Context, family string, args []string) (context.Context, []string, func(), error) {
	var out []string
	var startAt, barrier, timeout, segment, metrics string
	// set replaces the value of an option kept in out, in the form it
	// was given (--name=value or --name value).
	type kept struct {
		at     int
		joined bool
	}
	set := func(k kept, name, value string) {
		if k.joined {
			out[k.at] = name + "=" + value
		} else {
			out[k.at] = value
		}
	}
	segAt, outAt := kept{at: -1}, kept{at: -1}
	var outDir string
	for i := 0; i < len(args); i++ {
		name, value, hasValue := strings.Cut(args[i], "=")
		take := func() (string, error) {
			if hasValue {
				return value, nil
			}
			if i+1 >= len(args) {
				return "", usagef("%s needs a value", name)
			}
			i++
			return args[i], nil
		}
		var err error
		switch name {
		case "--start-at":
			startAt, err = take()
		case "--start-barrier":
			barrier, err = take()
		case "--start-timeout":
			timeout, err = take()
		case "--metrics-addr":
			metrics, err = take()
		case "--segment", "--out":
			out = append(out, args[i])
			if !hasValue && i+1 < len(args) {
				out = append(out, args[i+1])
			}
			k := kept{at: len(out) - 1, joined: hasValue}
			v, terr := take()
			err = terr
			if name == "--segment" {
				segment, segAt = v, k
			} else {
				outDir, outAt = v, k
			}
		default:
			out = append(out, args[i])
		}
		if err != nil {
			return ctx, nil, nil, err
		}
	}
	resolved, isJob, err := k8s.JobSegment(segment, os.Getenv)
	if err != nil {
		return ctx, nil, nil, usagef("%v", err)
	}
	if isJob {
		set(segAt, "--segment", resolved)
		if outAt.at >= 0 {
			set(outAt, "--out", k8s.SegmentFolder(outDir, resolved))
		}
	}
	if (startAt != "" || barrier != "") && !slices.Contains(out, "run") {
		return ctx, nil, nil, usagef("--start-at and --start-barrier start a run's load: give them with run")
	}
	ctx, done, err := startOptions(ctx, resolved, startAt, barrier, timeout)
	if err != nil || metrics == "" {
		return ctx, out, done, err
	}
	srv, err := livemetrics.Listen(metrics, family)
	if err != nil {
		done()
		return ctx, nil, nil, usagef("--metrics-addr: %v", err)
	}
	command := family
	for _, a := range out {
		if !strings.HasPrefix(a, "-") {
			command = family + " " + a // the last word: run, prepare, ...
		}
	}
	srv.StepStarted(1, "1", command, "")
	ctx = bench.WithProgress(ctx, func(p bench.Progress) { metricsObserver{srv}.Benchmark(benchstar.Status(p)) })
	stopStart := done
	return ctx, out, func() { stopStart(); _ = srv.Close() }, nil
}

// startOptions makes the context a segment's steps start from: at a time
// (--start-at) or at a barrier the segments meet at (--start-barrier), and
// what to call once the run is over (it stops serving the barrier).
func startOptions(ctx context.Context, segment, startAt, barrier, timeout string) (context.Context, func(), error) {
	done := func() {}
	var seg bench.Segment
	if segment != "" {
		var err error
		if seg, err = bench.ParseSegment(segment); err != nil {
			return ctx, done, usagef("--%v", err)
		}
	}
	switch {
	case startAt != "" && barrier != "":
		return ctx, done, usagef("give --start-at or --start-barrier, not both")
	case startAt != "":
		at, err := time.Parse(time.RFC3339Nano, startAt)
		if err != nil {
			return ctx, done, usagef("--start-at %q: want a time such as 2026-12-03T15:00:00Z (RFC 3339)", startAt)
		}
		return bench.WithStart(ctx, k8s.StartAt{At: at}), done, nil
	case barrier != "":
		if seg.Whole() {
			return ctx, done, usagef("--start-barrier %s needs --segment i/n (or job/n): it is where the n segments of a load meet", barrier)
		}
		b := &k8s.Barrier{Addr: barrier, Segment: seg}
		if timeout != "" {
			d, err := time.ParseDuration(timeout)
			if err != nil || d <= 0 {
				return ctx, done, usagef("--start-timeout %q: want a duration such as 10m", timeout)
			}
			b.Timeout = d
		}
		return bench.WithStart(ctx, b), b.Close, nil
	case timeout != "":
		return ctx, done, usagef("--start-timeout goes with --start-barrier")
	}
	return ctx, done, nil
}

// segmentOptions sets a plan run's segment (--segment, job/n resolved,
// --out with it) and its start barrier.
func (f *runFlags) segmentOptions(ctx context.Context, opts *runner.Options) (context.Context, func(), error) {
	if f.segment == "" {
		if f.barrier != "" || f.timeout != "" {
			return ctx, func() {}, usagef("--start-barrier and --start-timeout go with --segment")
		}
		return ctx, func() {}, nil
	}
	resolved, isJob, err := k8s.JobSegment(f.segment, os.Getenv)
	if err != nil {
		return ctx, func() {}, usagef("%v", err)
	}
	if _, err := bench.ParseSegment(resolved); err != nil {
		return ctx, func() {}, usagef("--%v", err)
	}
	if f.resume != "" {
		return ctx, func() {}, usagef("--segment starts a run: a resumed run keeps its own")
	}
	if opts.Seed == nil && !f.dryRun {
		return ctx, func() {}, usagef("--segment %s needs --seed N, the same for every segment, so that the segments together are one reproducible load", f.segment)
	}
	if isJob && opts.OutDir != "" {
		opts.OutDir = k8s.SegmentFolder(opts.OutDir, resolved)
	}
	opts.Segment = resolved
	return startOptions(ctx, resolved, "", f.barrier, f.timeout)
}
