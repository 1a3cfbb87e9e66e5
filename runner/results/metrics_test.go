package results

import "testing"

// The tests' summaries carry TPC-C's metrics, declared here as package
// tpcc declares them: tpmC sums over the parts of a merge, efficiency (a
// share per warehouse) is left out.
func init() {
	DeclareMetric(MetricSpec{Name: "tpmC", HigherIsBetter: true, Additive: true})
	DeclareMetric(MetricSpec{Name: "efficiency", HigherIsBetter: true})
}

func TestMetricDeclarations(t *testing.T) {
	if !mergesBySum("tpmC") || mergesBySum("efficiency") {
		t.Errorf("declared: tpmC by sum %v, efficiency by sum %v", mergesBySum("tpmC"), mergesBySum("efficiency"))
	}
	// A metric no family of this build declares (a folder from another
	// build) is summed, as merges did before declarations.
	if !mergesBySum("queries_per_hour") {
		t.Errorf("an undeclared metric is not summed")
	}
	DeclareMetric(MetricSpec{Name: "queries_per_hour", HigherIsBetter: true})
	if mergesBySum("queries_per_hour") {
		t.Errorf("declared not additive, still summed")
	}
	names := []string{}
	for _, s := range DeclaredMetrics() {
		names = append(names, s.Name)
	}
	if len(names) < 3 || names[0] > names[1] {
		t.Errorf("declared metrics %v", names)
	}
}
