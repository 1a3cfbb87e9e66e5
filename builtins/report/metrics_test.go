package report

import (
	"strings"
	"testing"

	_ "github.com/starbench/starbench/builtins/tpcc" // declares tpmC, as in the binary
	"github.com/starbench/starbench/runner/results"
)

// metricTpmC is TPC-C's metric as its family declares it.
const metricTpmC Metric = "tpmc"

// A family's metric is known to reports by its declaration alone: its
// name (any case), unit, direction and whether a merged step's figure is
// its loads' sum; no report code names it.
func TestFamilyMetricsComeFromTheirDeclarations(t *testing.T) {
	results.DeclareMetric(results.MetricSpec{Name: "widgetsMade", HigherIsBetter: true, Additive: true, Unit: "/h"})
	results.DeclareMetric(results.MetricSpec{Name: "stalls", Additive: false})
	results.DeclareMetric(results.MetricSpec{Name: "aborts", Additive: true})
	m, err := ParseMetric("WIDGETSMADE")
	if err != nil || m != "widgetsmade" || !m.HigherIsBetter() || m.Unit() != "/h" || !m.summedOverLoads() || metricHeader(m) != "widgetsMade" {
		t.Errorf("widgetsMade: %q %v, higher %v, unit %q, summed %v, header %q", m, err, m.HigherIsBetter(), m.Unit(), m.summedOverLoads(), metricHeader(m))
	}
	stalls, _ := ParseMetric("stalls")
	if stalls.HigherIsBetter() || stalls.summedOverLoads() || stalls.Unit() != "" {
		t.Errorf("stalls: higher %v, summed %v, unit %q", stalls.HigherIsBetter(), stalls.summedOverLoads(), stalls.Unit())
	}
	// A count that adds up but is better lower, and a share that is better
	// higher but does not add up (TPC-C's efficiency, as tpcc declares it).
	aborts, _ := ParseMetric("aborts")
	efficiency, _ := ParseMetric("efficiency")
	if aborts.HigherIsBetter() || !aborts.summedOverLoads() || !efficiency.HigherIsBetter() || efficiency.summedOverLoads() || efficiency.Unit() != "%" {
		t.Errorf("aborts: higher %v, summed %v; efficiency: higher %v, summed %v, unit %q", aborts.HigherIsBetter(), aborts.summedOverLoads(),
			efficiency.HigherIsBetter(), efficiency.summedOverLoads(), efficiency.Unit())
	}
	if tpmc, err := ParseMetric("tpmC"); err != nil || tpmc != metricTpmC || tpmc.Unit() != "/min" || !tpmc.HigherIsBetter() {
		t.Errorf("tpmC: %q %v", tpmc, err)
	}
	if _, err := ParseMetric("nope"); err == nil || !strings.Contains(err.Error(), "tps, qps, min, avg, p95, p99, max") || !strings.Contains(err.Error(), "widgetsmade") {
		t.Errorf("an unknown metric: %v", err)
	}

	b := &Benchmark{Summary: results.Summary{TPS: 10, Metrics: map[string]float64{"widgetsMade": 120}}}
	if v, ok := b.Figure(m); v != 120 || !ok {
		t.Errorf("figure: %v %v", v, ok)
	}
	if _, ok := b.Figure(stalls); ok {
		t.Error("a step without the family's metric has it")
	}
	if v, ok := b.Figure(MetricTPS); v != 10 || !ok {
		t.Errorf("tps: %v %v", v, ok)
	}
}
