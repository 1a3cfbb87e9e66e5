package main

import (
	"math"
	"testing"
)

func TestMeanInterval(t *testing.T) {
	// 1..5: mean 3, sample sd sqrt(2.5), t(4) = 2.776.
	mean, half, ok := meanInterval([]float64{1, 2, 3, 4, 5})
	if !ok || mean != 3 || math.Abs(half-2.776*math.Sqrt(2.5)/math.Sqrt(5)) > 1e-9 {
		t.Errorf("meanInterval(1..5) = %v ± %v (%v), want 3 ± 1.963", mean, half, ok)
	}
	if _, half, ok := meanInterval([]float64{0.9, 0.9, 0.9}); !ok || half != 0 {
		t.Errorf("equal values: half-width %v (%v), want 0", half, ok)
	}
	if _, _, ok := meanInterval([]float64{1.1}); ok {
		t.Error("one value gave an interval")
	}
}

func TestStudentT95NeverNarrow(t *testing.T) {
	// Exact quantiles the table does not list: the value used must not be
	// smaller (a narrower interval would call noise a difference).
	exact := map[int]float64{11: 2.201, 13: 2.160, 18: 2.101, 23: 2.069, 29: 2.045, 40: 2.021, 120: 1.980}
	for df, want := range exact {
		if got := studentT95(df); got < want {
			t.Errorf("studentT95(%d) = %v, below the exact %v", df, got, want)
		}
	}
	if got := studentT95(5); got != 2.571 {
		t.Errorf("studentT95(5) = %v, want 2.571", got)
	}
	for df := 2; df < 200; df++ {
		if studentT95(df) > studentT95(df-1) {
			t.Fatalf("studentT95 rises from df %d to %d", df-1, df)
		}
	}
}
