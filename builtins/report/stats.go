package report

import "math"

// Stats describes repeated measurements of one thing.
type Stats struct {
	N      int     `json:"n"`
	Mean   float64 `json:"mean"`
	Stddev float64 `json:"stddev"` // sample standard deviation
	CV     float64 `json:"cv"`     // stddev / mean
	CILow  float64 `json:"ci95_low"`
	CIHigh float64 `json:"ci95_high"`
}

// StatsOf computes mean, sample standard deviation, coefficient of
// variation and a 95% confidence interval of the mean (Student's t).
func StatsOf(values []float64) Stats {
	s := Stats{N: len(values)}
	if s.N == 0 {
		return s
	}
	for _, v := range values {
		s.Mean += v
	}
	s.Mean /= float64(s.N)
	if s.N > 1 {
		for _, v := range values {
			s.Stddev += (v - s.Mean) * (v - s.Mean)
		}
		s.Stddev = math.Sqrt(s.Stddev / float64(s.N-1))
		half := tCritical(float64(s.N-1)) * s.Stddev / math.Sqrt(float64(s.N))
		// Symmetric to the last bit: CIHigh - Mean == Mean - CILow.
		s.CIHigh = s.Mean + half
		s.CILow = s.Mean - (s.CIHigh - s.Mean)
	} else {
		s.CILow, s.CIHigh = s.Mean, s.Mean
	}
	if s.Mean != 0 {
		s.CV = s.Stddev / math.Abs(s.Mean)
	}
	return s
}

// tCritical is the two-sided 95% critical value of Student's t for df
// degrees of freedom, exact for fractional df too (Welch's test gives
// them): the 0.975 quantile.
func tCritical(df float64) float64 {
	return TQuantile(0.975, df)
}

// TQuantile returns the p-quantile of Student's t distribution with df
// degrees of freedom: the t with P(T <= t) = p. df may be fractional and
// +Inf (the standard normal); p outside (0, 1) or df <= 0 give NaN. A
// two-sided 95% interval uses TQuantile(0.975, df). The result is good to
// about 1e-11 relative (1e-13 below 1000 degrees of freedom).
//
// Method: for t > 0 the upper tail of t is
//
//	P(T > t) = I_x(df/2, 1/2) / 2,  x = df / (df + t²),
//
// with I the regularized incomplete beta function (Abramowitz & Stegun
// 26.5.27), which betaRegularized evaluates by its continued fraction. The tail falls as t grows, so the quantile is found by
// bracketing and bisection on it. Above 1e4 degrees of freedom, where the
// continued fraction needs many terms and the log-gamma differences in
// its prefactor start to lose digits, the expansion of t in powers of
// 1/df around the normal quantile (A&S 26.7.5, four terms) is used
// instead; what it leaves out is below 1e-15 relative there for
// 1e-12 < p < 1 - 1e-12.
func TQuantile(p, df float64) float64 {
	switch {
	case !(p > 0 && p < 1) || !(df > 0):
		return math.NaN()
	case p == 0.5:
		return 0
	case p < 0.5:
		return -TQuantile(1-p, df)
	}
	tail := 1 - p // in (0, 0.5)
	if df > 1e4 {
		z := math.Sqrt2 * math.Erfcinv(2*tail) // the normal quantile
		if math.IsInf(df, 1) {
			return z
		}
		z2 := z * z
		g1 := z * (z2 + 1) / 4
		g2 := z * ((5*z2+16)*z2 + 3) / 96
		g3 := z * (((3*z2+19)*z2+17)*z2 - 15) / 384
		g4 := z * ((((79*z2+776)*z2+1482)*z2-1920)*z2 - 945) / 92160
		return z + (g1+(g2+(g3+g4/df)/df)/df)/df
	}
	upper := func(t float64) float64 { // P(T > t) for t >= 0
		d := df + t*t
		return betaRegularized(df/2, 0.5, df/d, t*t/d) / 2
	}
	lo, hi := 0.0, 2.0
	for upper(hi) > tail {
		lo, hi = hi, 2*hi
	}
	for range 200 {
		mid := lo + (hi-lo)/2
		if mid <= lo || mid >= hi {
			break // adjacent floats
		}
		if upper(mid) > tail {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo + (hi-lo)/2
}

// betaRegularized returns the regularized incomplete beta function
// I_x(a, b) for a, b > 0 and 0 <= x <= 1, given y = 1 - x as well (the
// caller can often compute it without the rounding of 1 - x). It
// evaluates the continued fraction (A&S 26.5.8)
//
//	I_x(a, b) = x^a y^b / (a B(a, b)) · 1/(1+ d1/(1+ d2/(1+ ...)))
//	d(2m+1) = -(a+m)(a+b+m) x / ((a+2m)(a+2m+1))
//	d(2m)   = m(b-m) x / ((a+2m-1)(a+2m))
//
// by the modified Lentz method. The fraction converges quickly for
// x < (a+1)/(a+b+2); above that it computes 1 - I_y(b, a) instead.
func betaRegularized(a, b, x, y float64) float64 {
	switch {
	case x <= 0:
		return 0
	case y <= 0:
		return 1
	case x > (a+1)/(a+b+2):
		return 1 - betaRegularized(b, a, y, x)
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	front := math.Exp(a*math.Log(x)+b*math.Log(y)+lab-la-lb) / a
	// Modified Lentz: f = 0 + 1/(1 + d1/(1 + d2/(1 + ...))), every
	// partial denominator 1, the first numerator 1 and then d1, d2, ...
	const tiny, eps = 1e-300, 1e-16
	f, c, d := tiny, tiny, 0.0
	for j := 0; j < 100000; j++ {
		num := 1.0
		if j > 0 {
			m := float64(j / 2)
			if j%2 == 1 {
				num = -(a + m) * (a + b + m) * x / ((a + 2*m) * (a + 2*m + 1))
			} else {
				num = m * (b - m) * x / ((a + 2*m - 1) * (a + 2*m))
			}
		}
		d = 1 + num*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + num/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		delta := c * d
		f *= delta
		if math.Abs(delta-1) < eps {
			break
		}
	}
	return front * f
}

// Significant reports whether two sets of repeats differ beyond noise:
// Welch's t-test at 95%. With fewer than two samples on a side there is
// no noise estimate and it reports true (values are compared directly).
func Significant(a, b Stats) bool {
	if a.N < 2 || b.N < 2 {
		return true
	}
	va, vb := a.Stddev*a.Stddev/float64(a.N), b.Stddev*b.Stddev/float64(b.N)
	se := math.Sqrt(va + vb)
	if se == 0 {
		return a.Mean != b.Mean
	}
	df := (va + vb) * (va + vb) / (va*va/float64(a.N-1) + vb*vb/float64(b.N-1))
	return math.Abs(a.Mean-b.Mean)/se > tCritical(df)
}
