package report

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// KneeRule says where a closed-loop thread sweep stops paying: at the
// first level whose next one (more threads) adds less than TPSGain
// percent of tps while its Latency grows by more than LatencyGrowth
// percent. The seed reports read it off their tables by eye.
type KneeRule struct {
	TPSGain       float64 // percent
	Latency       Metric
	LatencyGrowth float64 // percent
}

// DefaultKneeRule is the rule reports and comparisons use unless told:
// the next level adds less than 5% of tps while p95 grows by more than
// 20%.
var DefaultKneeRule = KneeRule{TPSGain: 5, Latency: MetricP95, LatencyGrowth: 20}

func (r KneeRule) String() string {
	return fmt.Sprintf("tps<%s%%,%s>%s%%", fmtPct(r.TPSGain), r.Latency, fmtPct(r.LatencyGrowth))
}

func fmtPct(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

var kneePartRe = regexp.MustCompile(`^\s*([a-z0-9]+)\s*([<>])\s*\+?(\d+(?:\.\d+)?)\s*%\s*$`)

// ParseKneeRule reads "tps<5%,p95>20%" (the parts in either order; the
// latency one of min, avg, p95, p99, max).
func ParseKneeRule(s string) (KneeRule, error) {
	bad := func(why string) (KneeRule, error) {
		return KneeRule{}, fmt.Errorf("knee rule %q: %s; want e.g. 'tps<5%%,p95>20%%' (the next level adds less than 5%% of tps while p95 grows more than 20%%)", s, why)
	}
	parts := strings.Split(s, ",")
	if len(parts) != 2 {
		return bad("two conditions, comma-separated")
	}
	var r KneeRule
	var gotTPS, gotLatency bool
	for _, p := range parts {
		m := kneePartRe.FindStringSubmatch(p)
		if m == nil {
			return bad(fmt.Sprintf("%q is not METRIC<PERCENT%% or METRIC>PERCENT%%", strings.TrimSpace(p)))
		}
		pct, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			return bad(fmt.Sprintf("%s is out of range", m[3]))
		}
		switch metric := Metric(m[1]); {
		case metric == MetricTPS && m[2] == "<":
			r.TPSGain, gotTPS = pct, true
		case metric == MetricTPS:
			return bad("tps's condition is tps<PERCENT% (the gain that is too little)")
		case metric == MetricMin || metric == MetricAvg || metric == MetricP95 || metric == MetricP99 || metric == MetricMax:
			if m[2] != ">" {
				return bad(fmt.Sprintf("the latency's condition is %s>PERCENT%% (the growth that is too much)", metric))
			}
			r.Latency, r.LatencyGrowth, gotLatency = metric, pct, true
		default:
			return bad(fmt.Sprintf("%s is not tps or a latency (min, avg, p95, p99, max)", m[1]))
		}
	}
	if !gotTPS || !gotLatency {
		return bad("one condition on tps and one on a latency")
	}
	return r, nil
}

// Knee is the knee of one sweep: a workload's steps of one tag
// combination at several thread levels.
type Knee struct {
	Workload  string `json:"workload"`
	Tags      string `json:"tags,omitempty"`
	Contender string `json:"contender,omitempty"` // in a comparison
	Levels    []int  `json:"levels"`              // the sweep's thread levels, ascending
	// Threads is the knee: the level after which the next (Next) gained
	// TPSChange percent of tps while the latency grew LatencyChange
	// percent; 0 when no level meets the rule (it still paid at the
	// highest).
	Threads       int     `json:"threads,omitempty"`
	Next          int     `json:"next,omitempty"`
	TPSChange     float64 `json:"tps_change_pct,omitempty"`
	LatencyChange float64 `json:"latency_change_pct,omitempty"`
	// Unclaimed says why a level that meets the rule is not claimed as
	// the knee: too few levels or repeats to tell a knee from noise.
	Unclaimed string `json:"unclaimed,omitempty"`
}

// Evidence a knee needs: KneeMinLevels levels in the sweep and
// KneeMinRepeats runs of each of the two levels it compares, whose
// latency's 95% intervals do not overlap. With less, one noisy run is a
// "knee".
const (
	KneeMinLevels  = 3
	KneeMinRepeats = 2
)

// Describe says where the sweep's knee is, by rule.
func (k Knee) Describe(rule KneeRule) string {
	name := k.Workload
	if k.Tags != "" {
		name += " " + k.Tags
	}
	if k.Contender != "" {
		name = k.Contender + ": " + name
	}
	if k.Unclaimed != "" {
		return fmt.Sprintf("%s: no knee claimed: %s (a knee needs %d levels or more, %d runs or more of each level it compares, and a latency growth beyond their spread)",
			name, k.Unclaimed, KneeMinLevels, KneeMinRepeats)
	}
	if k.Threads == 0 {
		return fmt.Sprintf("%s: no knee up to %s (each level added %s%% of tps or more, or its %s grew %s%% or less)",
			name, threadsText(k.Levels[len(k.Levels)-1]), fmtPct(rule.TPSGain), rule.Latency, fmtPct(rule.LatencyGrowth))
	}
	return fmt.Sprintf("%s: knee at %s (to %d: tps %+.1f%%, %s %+.1f%%)", name, threadsText(k.Threads), k.Next, k.TPSChange, rule.Latency, k.LatencyChange)
}

func threadsText(n int) string {
	if n == 1 {
		return "1 thread"
	}
	return fmt.Sprintf("%d threads", n)
}

// Knees finds the knee of every closed-loop sweep among the benchmarks
// (steps under a rate are not sweeps of threads), repeats averaged,
// apart from the exclude tags (a comparison's contender tag). A sweep
// needs two levels or more.
func Knees(benchmarks []*Benchmark, rule KneeRule, exclude ...string) []Knee {
	type sweepKey struct{ workload, tags string }
	sweeps := map[sweepKey][]*Group{}
	var order []sweepKey
	for _, g := range Groups(benchmarks, exclude...) {
		if openLoop(g) || !g.Known(MetricTPS) || !g.Known(rule.Latency) {
			continue
		}
		k := sweepKey{g.Key.Workload, g.Key.Tags}
		if _, seen := sweeps[k]; !seen {
			order = append(order, k)
		}
		sweeps[k] = append(sweeps[k], g)
	}
	var out []Knee
	for _, k := range order {
		gs := sweeps[k]
		if len(gs) < 2 {
			continue
		}
		sort.Slice(gs, func(i, j int) bool { return gs[i].Key.Threads < gs[j].Key.Threads })
		knee := Knee{Workload: k.workload, Tags: k.tags}
		for _, g := range gs {
			knee.Levels = append(knee.Levels, g.Key.Threads)
		}
		for i := 0; i+1 < len(gs); i++ {
			tps, next := gs[i].Stats(MetricTPS).Mean, gs[i+1].Stats(MetricTPS).Mean
			lat, nextLat := gs[i].Stats(rule.Latency).Mean, gs[i+1].Stats(rule.Latency).Mean
			if tps <= 0 || lat <= 0 {
				continue
			}
			tpsChange, latChange := (next-tps)/tps*100, (nextLat-lat)/lat*100
			if tpsChange < rule.TPSGain && latChange > rule.LatencyGrowth {
				runs, nextRuns := gs[i].Stats(MetricTPS).N, gs[i+1].Stats(MetricTPS).N
				turn := fmt.Sprintf("%s to %d meets the rule", threadsText(gs[i].Key.Threads), gs[i+1].Key.Threads)
				if len(gs) < KneeMinLevels || runs < KneeMinRepeats || nextRuns < KneeMinRepeats {
					knee.Unclaimed = fmt.Sprintf("%s, from %d levels and %d and %d runs of the two", turn, len(gs), runs, nextRuns)
					break
				}
				if from, to := gs[i].Stats(rule.Latency), gs[i+1].Stats(rule.Latency); to.CILow <= from.CIHigh {
					knee.Unclaimed = fmt.Sprintf("%s, but its %s growth is within the runs' spread (95%% intervals %.2f-%.2f and %.2f-%.2f ms overlap)",
						turn, rule.Latency, from.CILow, from.CIHigh, to.CILow, to.CIHigh)
					break
				}
				knee.Threads, knee.Next, knee.TPSChange, knee.LatencyChange = gs[i].Key.Threads, gs[i+1].Key.Threads, tpsChange, latChange
				break
			}
		}
		out = append(out, knee)
	}
	return out
}

// openLoop tells a group of steps run under a rate.
func openLoop(g *Group) bool {
	for _, b := range g.Benchmarks {
		if b.Summary.Rate > 0 {
			return true
		}
	}
	return false
}

// AnyKnee tells whether a sweep has a knee, claimed or not (the others
// still paid at their highest level).
func AnyKnee(knees []Knee) bool {
	for _, k := range knees {
		if k.Threads > 0 || k.Unclaimed != "" {
			return true
		}
	}
	return false
}

// WriteKnees writes the knees, a line each (the sweeps without one too),
// under a heading that says the rule; nothing when no sweep has a knee.
func WriteKnees(w interface{ Write([]byte) (int, error) }, knees []Knee, rule KneeRule, markdown bool) {
	if !AnyKnee(knees) {
		return
	}
	head := fmt.Sprintf("Knees (%s: the level after which the next adds less than %s%% of tps while %s grows more than %s%%):",
		rule, fmtPct(rule.TPSGain), rule.Latency, fmtPct(rule.LatencyGrowth))
	if markdown {
		fmt.Fprintf(w, "\n%s\n\n", head)
		for _, k := range knees {
			fmt.Fprintf(w, "- %s\n", k.Describe(rule))
		}
		return
	}
	fmt.Fprintf(w, "\n%s\n", head)
	for _, k := range knees {
		fmt.Fprintf(w, "  %s\n", k.Describe(rule))
	}
}
