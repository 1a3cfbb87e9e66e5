package results

import (
	"sort"
	"sync"
)

// MetricSpec is a family's declaration of one of its own metrics (a key
// of Summary.Metrics): what merges and reports make of it. A family
// declares its metrics once, when its package is initialised.
type MetricSpec struct {
	Name string
	// HigherIsBetter says which way is better (tpmC: up).
	HigherIsBetter bool
	// Additive metrics of a merged step are the sum of the parts' (a rate
	// of one kind of transaction, such as tpmC); the others are left out
	// of it (TPC-C's efficiency, a share per warehouse).
	Additive bool
	// Unit labels the metric's values in reports ("/min" for tpmC, "%"):
	// empty for a count.
	Unit string
	// Help says what the metric is, for --help and the docs.
	Help string
	// Headline marks the figure the family's reports lead with (TPC-C's
	// tpmC, TPC-H's power): the HTML report puts it before tps.
	Headline bool
	// PerMinuteOf names the kind of event the metric counts a minute
	// (tpmC: new_order): the HTML report charts it over time from that
	// kind's histograms in latency.hlog, with the kind's latency.
	PerMinuteOf string
	// Derive, when set, computes the metric of a merged step again from
	// the merged summary and its parts' (TPC-H's geometric mean of the
	// queries' mean latencies, from the merged kinds), where it would be
	// neither summed nor left out; false leaves it out.
	Derive func(merged *Summary, parts []*Summary) (float64, bool)
}

var metricSpecs = struct {
	sync.RWMutex
	m map[string]MetricSpec
}{m: map[string]MetricSpec{}}

// DeclareMetric declares a family's metric; a later declaration of the
// same name replaces the earlier one.
func DeclareMetric(s MetricSpec) {
	metricSpecs.Lock()
	defer metricSpecs.Unlock()
	metricSpecs.m[s.Name] = s
}

// LookupMetric is the declaration of a metric, if a family made one.
func LookupMetric(name string) (MetricSpec, bool) {
	metricSpecs.RLock()
	defer metricSpecs.RUnlock()
	s, ok := metricSpecs.m[name]
	return s, ok
}

// DeclaredMetrics are every declared metric, by name.
func DeclaredMetrics() []MetricSpec {
	metricSpecs.RLock()
	defer metricSpecs.RUnlock()
	out := make([]MetricSpec, 0, len(metricSpecs.m))
	for _, s := range metricSpecs.m {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// mergesBySum reports whether Merge sums a metric over the parts: a
// declared one when it is additive; one no family in this build declares
// (a folder from a family it does not have) as before declarations, by
// sum.
func mergesBySum(name string) bool {
	s, ok := LookupMetric(name)
	return !ok || (s.Additive && s.Derive == nil)
}

// deriveMetrics sets the merged step's derived metrics (MetricSpec.Derive)
// that some part has.
func deriveMetrics(merged *Summary, parts []*Summary) {
	for _, p := range parts {
		for name := range p.Metrics {
			spec, ok := LookupMetric(name)
			if !ok || spec.Derive == nil {
				continue
			}
			if v, ok := spec.Derive(merged, parts); ok {
				if merged.Metrics == nil {
					merged.Metrics = map[string]float64{}
				}
				merged.Metrics[name] = v
			}
		}
	}
}
