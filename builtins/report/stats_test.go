package report

import (
	"math"
	"testing"
)

// Two-sided 95% critical values of Student's t (the 0.975 quantile), as
// printed in standard tables, to 3 decimals.
var tTable95 = map[float64]float64{
	1: 12.706, 2: 4.303, 5: 2.571, 10: 2.228, 29: 2.045, 30: 2.042, 31: 2.040,
	40: 2.021, 45: 2.014, 60: 2.000, 61: 2.000, 100: 1.984, 119: 1.980, 120: 1.980,
	121: 1.980, 1000: 1.962,
}

func TestTCriticalExact(t *testing.T) {
	for df, want := range tTable95 {
		if got := tCritical(df); math.Abs(got-want) > 0.0005 {
			t.Errorf("tCritical(%v) = %.4f, want %.3f", df, got, want)
		}
	}
}

func TestTQuantile(t *testing.T) {
	// Closed forms: df 1 is the Cauchy distribution, df 2 has
	// t = (2p-1) * sqrt(2 / (4p(1-p))).
	for _, p := range []float64{0.6, 0.9, 0.975, 0.995, 0.9995} {
		if got, want := TQuantile(p, 1), math.Tan(math.Pi*(p-0.5)); math.Abs(got-want) > 1e-9*want {
			t.Errorf("TQuantile(%v, 1) = %v, want %v", p, got, want)
		}
		if got, want := TQuantile(p, 2), (2*p-1)*math.Sqrt(2/(4*p*(1-p))); math.Abs(got-want) > 1e-9*want {
			t.Errorf("TQuantile(%v, 2) = %v, want %v", p, got, want)
		}
	}
	// More digits than tables print, on both sides of the switch to the
	// expansion at 1e4: computed with mpmath at 40 digits for p as the
	// float64 it is here (far in the tail 0.9999999's rounding moves t by
	// 2e-11).
	for _, c := range []struct{ p, df, want float64 }{
		{0.975, 2.5, 3.5746548420036832},
		{0.6, 7.5, 0.26250189880429465},
		{0.975, 10, 2.2281388519862742},
		{0.975, 45, 2.0141033888808463},
		{0.975, 120, 1.9799304050824405},
		{0.975, 1000, 1.9623390808264081},
		{0.995, 20, 2.8453397097861081},
		{0.9995, 3, 12.923978636687964},
		{0.975, 1e4, 1.9602012398906263},
		{0.975, 20000, 1.9600826051581352},
		{0.9995, 20000, 3.2910132833642873},
		{0.9999999, 10001, 5.2029832735745330},
		{0.975, 1e6, 1.9599663568141070},
		{0.975, 2e6, 1.9599651706763750},
		{0.999, 1e6, 3.0902404563165196},
		{0.975, 1e9, 1.9599639869123255},
	} {
		if got := TQuantile(c.p, c.df); math.Abs(got-c.want) > 1e-11*c.want {
			t.Errorf("TQuantile(%v, %v) = %.12f, want %.12f", c.p, c.df, got, c.want)
		}
	}
	// Symmetric, the median is 0, and large df approach the normal.
	if got := TQuantile(0.025, 7); math.Abs(got+TQuantile(0.975, 7)) > 1e-12 {
		t.Errorf("TQuantile(0.025, 7) = %v, not the mirror of the 0.975 quantile", got)
	}
	if got := TQuantile(0.5, 3); got != 0 {
		t.Errorf("median %v", got)
	}
	for _, df := range []float64{1e5, 1e6, 1e9, math.Inf(1)} {
		if got := TQuantile(0.975, df); math.Abs(got-1.959963984540054) > 3e-5 {
			t.Errorf("TQuantile(0.975, %v) = %v, want about the normal 1.95996", df, got)
		}
	}
	// Fractional df, as Welch's test gives: in order between the integers.
	prev := math.Inf(1)
	for df := 1.0; df <= 200; df += 0.25 {
		got := tCritical(df)
		if !(got < prev) {
			t.Fatalf("tCritical(%v) = %v, not below tCritical(%v) = %v", df, got, df-0.25, prev)
		}
		prev = got
	}
	if got := TQuantile(0.975, 0); !math.IsNaN(got) {
		t.Errorf("df 0 gave %v, want NaN", got)
	}
	if got := TQuantile(1.2, 5); !math.IsNaN(got) {
		t.Errorf("p 1.2 gave %v, want NaN", got)
	}
}

func TestStatsOfUsesExactT(t *testing.T) {
	// 46 samples: 45 degrees of freedom, t = 2.014 (the old table said 2.000).
	vals := make([]float64, 46)
	for i := range vals {
		vals[i] = float64(i % 2)
	}
	s := StatsOf(vals)
	want := 2.0141033888808457 * s.Stddev / math.Sqrt(46)
	if got := s.CIHigh - s.Mean; math.Abs(got-want) > 1e-9 {
		t.Errorf("half-width %v, want %v", got, want)
	}
}
