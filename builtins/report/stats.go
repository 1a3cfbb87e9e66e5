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
		s.CILow, s.CIHigh = s.Mean-half, s.Mean+half
	} else {
		s.CILow, s.CIHigh = s.Mean, s.Mean
	}
	if s.Mean != 0 {
		s.CV = s.Stddev / math.Abs(s.Mean)
	}
	return s
}

// tTable holds two-sided 95% critical values of Student's t by degrees
// of freedom 1..30.
var tTable = []float64{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042}

// tCritical is the two-sided 95% critical value for df degrees of
// freedom (fractional df, as Welch's test gives, round down: safer).
func tCritical(df float64) float64 {
	switch {
	case df < 1:
		return tTable[0]
	case df <= 30:
		return tTable[int(df)-1]
	case df <= 40:
		return 2.021
	case df <= 60:
		return 2.000
	case df <= 120:
		return 1.980
	}
	return 1.960
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
