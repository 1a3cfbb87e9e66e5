package family

import (
	"math"

	"github.com/starbench/starbench/builtins/bench"
)

// ProfileKeyword is the keyword a profile was given by.
func ProfileKeyword(lp bench.LoadProfile) string {
	if lp.Phases {
		return "phases"
	}
	if lp.Rate {
		return "rate_stages"
	}
	return "stages"
}

// ProfileRecord is a profile as the journal and the summary keep it:
// [seconds, target] pairs; phases as dicts of time (seconds), threads or
// rate, and weights (in the run's kinds' order) where given.
func ProfileRecord(lp bench.LoadProfile) any {
	if lp.Phases {
		var out []map[string]any
		for _, s := range lp.Stages {
			p := map[string]any{"time": s.Duration.Seconds(), loadKey(lp): s.Target}
			if s.Weights != nil {
				p["weights"] = s.Weights
			}
			out = append(out, p)
		}
		return out
	}
	var out [][2]float64
	for _, s := range lp.Stages {
		out = append(out, [2]float64{s.Duration.Seconds(), s.Target})
	}
	return out
}

// loadKey names what a profile's targets are: threads or rate.
func loadKey(lp bench.LoadProfile) string {
	if lp.Rate {
		return "rate"
	}
	return "threads"
}

// WithProfile makes a family's step follow a load profile: its run, and
// what progress and the summary say of it (threads, duration, the
// profile among its options).
func WithProfile(step bench.Step, lp bench.LoadProfile, seg bench.Segment) bench.Step {
	step.Profile = lp
	step.Total = lp.Stages.Total().Seconds()
	step.OpenLoop = lp.Rate
	if !lp.Rate {
		step.Threads = seg.Threads(max(1, int(math.Ceil(lp.Stages.Max()-1e-9))))
	}
	opts := map[string]any{}
	for k, v := range step.Options {
		opts[k] = v
	}
	opts[ProfileKeyword(lp)] = ProfileRecord(lp)
	step.Options = opts
	return step
}
