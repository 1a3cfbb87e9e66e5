package main

import "testing"

func TestMedianInterval(t *testing.T) {
	for _, c := range []struct {
		xs          []float64
		med, lo, hi float64
	}{
		{[]float64{6, 1, 5, 2, 4, 3}, 3.5, 1, 6},              // n=6: min–max (96.9%)
		{[]float64{10, 1, 9, 2, 8, 3, 7, 4, 6, 5}, 5.5, 2, 9}, // n=10: 2nd–9th (97.9%)
		{[]float64{3, 1, 2}, 2, 1, 3},                         // too few: the range
	} {
		med, lo, hi := medianInterval(c.xs)
		if med != c.med || lo != c.lo || hi != c.hi {
			t.Errorf("%v: %v [%v, %v], want %v [%v, %v]", c.xs, med, lo, hi, c.med, c.lo, c.hi)
		}
	}
}
