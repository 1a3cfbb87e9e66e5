package bench

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/starbench/starbench/runner/results"
)

// SLO is what a capacity search holds a probe to: bounds on latency
// percentiles (from each event's intended start under a rate) and on the
// share of events that failed.
type SLO struct {
	Latency []LatencyBound
	// ErrorsPct is the highest share of errors, in percent of the events
	// tried (events + errors); negative: no bound.
	ErrorsPct float64
}

// LatencyBound is one latency bound of an SLO: Key is its name as given
// ("p99", "p99.9", "max", "avg").
type LatencyBound struct {
	Key   string
	Limit time.Duration
}

// SLOMetrics are the names an SLO may bound.
var SLOMetrics = []string{"p50", "p90", "p95", "p99", "p99.9", "p99.99", "max", "avg", "errors"}

// ParseSLO reads an SLO from its bounds by name: latencies as durations
// ("50ms"), errors as a share ("0.1%" or a fraction such as 0.001).
func ParseSLO(bounds map[string]string) (SLO, error) {
	slo := SLO{ErrorsPct: -1}
	if len(bounds) == 0 {
		return slo, fmt.Errorf("slo: no bound given: give e.g. {\"p99\": \"50ms\", \"errors\": \"0.1%%\"} (bounds on %s)", strings.Join(SLOMetrics, ", "))
	}
	keys := make([]string, 0, len(bounds))
	for k := range bounds {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := strings.TrimSpace(bounds[k])
		switch {
		case k == "errors":
			pct, err := ParseShare(v)
			if err != nil {
				return slo, fmt.Errorf("slo: errors: %v", err)
			}
			slo.ErrorsPct = pct * 100
		case sloLatency(k):
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return slo, fmt.Errorf("slo: %s: %q is not a latency above zero (\"50ms\", \"1.5s\")", k, v)
			}
			slo.Latency = append(slo.Latency, LatencyBound{Key: k, Limit: d})
		default:
			return slo, fmt.Errorf("slo: no metric %q: an SLO bounds %s", k, strings.Join(SLOMetrics, ", "))
		}
	}
	return slo, nil
}

func sloLatency(k string) bool {
	for _, m := range SLOMetrics {
		if m == k && m != "errors" {
			return true
		}
	}
	return false
}

// ParseShare reads a share: "5%" or a fraction ("0.05"), between 0 and 1.
func ParseShare(s string) (float64, error) {
	s = strings.TrimSpace(s)
	pct := strings.HasSuffix(s, "%")
	f, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(s, "%")), 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a share (\"5%%\" or 0.05)", s)
	}
	if pct {
		f /= 100
	}
	if f < 0 || f > 1 || math.IsNaN(f) {
		return 0, fmt.Errorf("%q is not a share between 0 and 100%%", s)
	}
	return f, nil
}

// String says the SLO as a plan gives it: "p99 ≤ 50ms, errors ≤ 0.1%".
func (s SLO) String() string {
	var parts []string
	for _, b := range s.Latency {
		parts = append(parts, fmt.Sprintf("%s ≤ %v", b.Key, b.Limit))
	}
	if s.ErrorsPct >= 0 {
		parts = append(parts, fmt.Sprintf("errors ≤ %s%%", strconv.FormatFloat(s.ErrorsPct, 'g', -1, 64)))
	}
	return strings.Join(parts, ", ")
}

// Record is the SLO as results keep it: each bound by name, latencies in
// ms, errors in percent.
func (s SLO) Record() map[string]float64 {
	m := map[string]float64{}
	for _, b := range s.Latency {
		m[b.Key+"_ms"] = float64(b.Limit) / float64(time.Millisecond)
	}
	if s.ErrorsPct >= 0 {
		m["errors_pct"] = s.ErrorsPct
	}
	return m
}

// LatencyMS is the latency a bound names in a step's summary (ms).
func (b LatencyBound) LatencyMS(sum *results.Summary) float64 {
	switch b.Key {
	case "max":
		return sum.Latency.MaxMS
	case "avg":
		return sum.Latency.AvgMS
	}
	return sum.Latency.Percentiles[strings.TrimPrefix(b.Key, "p")]
}

// ErrorsPct is the share of a step's events that failed, in percent of
// those tried.
func ErrorsPct(sum *results.Summary) float64 {
	if tried := sum.Events + sum.Errors; tried > 0 {
		return float64(sum.Errors) / float64(tried) * 100
	}
	return 0
}

// Check says whether a probe's summary holds the SLO, and each bound it
// broke. A probe that ran no event, or whose schedule overflowed (events
// dropped: the server fell behind the rate), breaks it whatever its
// latency says.
func (s SLO) Check(sum *results.Summary) (bool, []string) {
	var broken []string
	if sum.Events == 0 {
		broken = append(broken, "no event completed")
	}
	if sum.Dropped > 0 {
		broken = append(broken, fmt.Sprintf("%d events dropped: the backlog of the rate overflowed", sum.Dropped))
	}
	for _, b := range s.Latency {
		limit := float64(b.Limit) / float64(time.Millisecond)
		if got := b.LatencyMS(sum); got > limit {
			broken = append(broken, fmt.Sprintf("%s %s ms > %s ms", b.Key, fmtMS(got), fmtMS(limit)))
		}
	}
	if s.ErrorsPct >= 0 {
		if got := ErrorsPct(sum); got > s.ErrorsPct {
			broken = append(broken, fmt.Sprintf("errors %s%% > %s%%", strconv.FormatFloat(got, 'g', 3, 64), strconv.FormatFloat(s.ErrorsPct, 'g', -1, 64)))
		}
	}
	return len(broken) == 0, broken
}

func fmtMS(ms float64) string { return strconv.FormatFloat(ms, 'f', 2, 64) }

// Search is a capacity search's bounds: the highest load in [Lo, Hi]
// whose probe holds the SLO, to within Precision (a fraction of the
// answer). Loads are events per second, or threads (Integer).
type Search struct {
	Lo, Hi    float64
	Precision float64
	Integer   bool
}

// bracketFactor is how much each probe of the ramp raises the load until
// one breaks the SLO.
const bracketFactor = 2

// Check says what is wrong with a search's bounds.
func (s Search) Check() error {
	switch {
	case !(s.Lo > 0) || math.IsInf(s.Hi, 0):
		return fmt.Errorf("the range's low end must be above zero, got %v", s.Lo)
	case s.Lo >= s.Hi:
		return fmt.Errorf("the range (%v, %v) is empty: its low end must be below its high end", s.Lo, s.Hi)
	case !(s.Precision > 0) || s.Precision >= 1:
		return fmt.Errorf("precision must be above 0%% and below 100%%, got %v", s.Precision)
	case s.Integer && (s.Lo != math.Trunc(s.Lo) || s.Hi != math.Trunc(s.Hi)):
		return fmt.Errorf("threads (%v, %v) must be whole numbers", s.Lo, s.Hi)
	}
	return nil
}

// Probed is one probe's load and whether it held the SLO.
type Probed struct {
	Load  float64
	Holds bool
}

// Bound says where a search's answer lies.
type Bound string

// The bounds of an answer.
const (
	// Within: a load that holds the SLO and a higher one that breaks it
	// are within the precision of each other; the answer is the first.
	Within Bound = "within"
	// BelowRange: the range's lowest load breaks the SLO.
	BelowRange Bound = "below"
	// AboveRange: the range's highest load holds it.
	AboveRange Bound = "above"
)

// state is what the probes so far say: the highest load that held below
// the lowest that broke (0: none), and that lowest (0: none).
func (s Search) state(probes []Probed) (held, broke float64) {
	for _, p := range probes {
		if !p.Holds && (broke == 0 || p.Load < broke) {
			broke = p.Load
		}
	}
	for _, p := range probes {
		if p.Holds && p.Load > held && (broke == 0 || p.Load < broke) {
			held = p.Load
		}
	}
	return held, broke
}

// Next is the load to probe after probes, or done with the answer: the
// lowest load first, then a ramp doubling the load until a probe breaks
// the SLO (at most the range's highest), then bisection (geometric, as
// the precision is relative) between the highest that held and the
// lowest that broke until they are within the precision.
func (s Search) Next(probes []Probed) (next float64, done bool) {
	if len(probes) == 0 {
		return s.Lo, false
	}
	held, broke := s.state(probes)
	switch {
	case held == 0 && broke != 0:
		return 0, true // the lowest load breaks it (BelowRange)
	case broke == 0 && held >= s.Hi:
		return 0, true // AboveRange
	case broke == 0:
		return s.round(math.Min(held*bracketFactor, s.Hi)), false
	case broke-held <= s.Precision*held || (s.Integer && broke-held <= 1):
		return 0, true
	}
	mid := s.round(math.Sqrt(held * broke))
	if s.Integer && (mid <= held || mid >= broke) {
		mid = math.Floor((held + broke) / 2)
	}
	return mid, false
}

func (s Search) round(x float64) float64 {
	if s.Integer {
		return math.Round(x)
	}
	return x
}

// Answer is where the probes put the capacity: the highest load that
// held below the lowest that broke, and which bound it is. Outside the
// range, the load is the range's end that was probed (0 below it).
func (s Search) Answer(probes []Probed) (float64, Bound) {
	held, broke := s.state(probes)
	switch {
	case held == 0:
		return 0, BelowRange
	case broke == 0:
		return held, AboveRange
	}
	return held, Within
}

// MaxProbes is the most probes a search of the range makes: the ramp's
// doublings from the low end to the high end, and the bisections of a
// doubling down to the precision.
func (s Search) MaxProbes() int {
	ramp := int(math.Ceil(math.Log2(s.Hi/s.Lo))) + 1
	bisect := int(math.Ceil(math.Log2(math.Log(bracketFactor) / math.Log1p(s.Precision))))
	return ramp + max(bisect, 0)
}
