package benchcmp

import (
	"fmt"
	"slices"
)

// Ratio is a figure's ratio starbench / peer with the range, median and
// 95% confidence interval of the rounds' pair ratios.
type Ratio struct {
	Value      float64 // of the figures over all rounds (means' ratio)
	Lo, Hi     float64 // the pairs' range
	Median     float64 // the pairs' median
	Mean, Half float64 // the pairs' mean and its 95% CI's half-width
	HasCI      bool
}

// NewRatio is value with the spread of the rounds' pair ratios.
func NewRatio(value float64, pairs []float64) Ratio {
	r := Ratio{Value: value, Lo: slices.Min(pairs), Hi: slices.Max(pairs)}
	sorted := slices.Sorted(slices.Values(pairs))
	if n := len(sorted); n%2 == 1 {
		r.Median = sorted[n/2]
	} else {
		r.Median = (sorted[n/2-1] + sorted[n/2]) / 2
	}
	r.Mean, r.Half, r.HasCI = MeanInterval(pairs)
	return r
}

// Pairs is the pairs' range, "lo-hi".
func (r Ratio) Pairs() string { return fmt.Sprintf("%.2f-%.2f", r.Lo, r.Hi) }

// CI is the 95% confidence interval of the pairs' mean, "lo-hi" ("-"
// with one pair).
func (r Ratio) CI() string {
	if !r.HasCI {
		return "-"
	}
	return fmt.Sprintf("%.2f-%.2f", r.Mean-r.Half, r.Mean+r.Half)
}

// Spread is the pairs' range and the CI, for a line of text.
func (r Ratio) Spread() string { return "pairs " + r.Pairs() + ", 95% CI " + r.CI() }
