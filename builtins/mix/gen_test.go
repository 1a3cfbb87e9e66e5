package mix

import (
	"math"
	"testing"
)

// draws returns n draws of g from a worker instance seeded with seed.
func draws(t *testing.T, g *Gen, seed uint64, n int) []int64 {
	t.Helper()
	env := &instanceEnv{seed: seed, threads: 1, counters: map[*Gen]*counter{}, shared: &sharedCounters{m: map[*Gen]*counter{}}}
	d := g.instance(env)
	out := make([]int64, n)
	for i := range out {
		out[i] = d.draw().(int64)
	}
	return out
}

// chiSquare is Pearson's statistic of counts against expected
// probabilities, and its degrees of freedom.
func chiSquare(counts []int64, p []float64) (float64, int) {
	var n int64
	for _, c := range counts {
		n += c
	}
	x := 0.0
	for i, c := range counts {
		e := float64(n) * p[i]
		x += (float64(c) - e) * (float64(c) - e) / e
	}
	return x, len(counts) - 1
}

// chiSquareBound is a bound the statistic stays under with probability
// about 0.999 (Wilson-Hilferty).
func chiSquareBound(df int) float64 {
	k := float64(df)
	z := 3.09
	return k * math.Pow(1-2/(9*k)+z*math.Sqrt(2/(9*k)), 3)
}

// grayProbabilities are the probabilities of Gray et al.'s method (YCSB's
// ZipfianGenerator) over items values, from its inverse: value 0 below
// u = 1/zeta, 1 below (1 + 0.5^theta)/zeta, and v >= 2 where
// items * (eta*u - eta + 1)^(1/(1-theta)) < v + 1.
func grayProbabilities(items int, theta float64) []float64 {
	zetan := zeta(0, int64(items), theta, 0)
	eta := (1 - math.Pow(2/float64(items), 1-theta)) / (1 - zeta(0, 2, theta, 0)/zetan)
	cdf := func(v int) float64 {
		switch {
		case v < 0:
			return 0
		case v == 0:
			return 1 / zetan
		case v == 1:
			return (1 + math.Pow(0.5, theta)) / zetan
		}
		u := (math.Pow(float64(v+1)/float64(items), 1-theta) - 1 + eta) / eta
		return math.Min(1, math.Max(u, (1+math.Pow(0.5, theta))/zetan))
	}
	p := make([]float64, items)
	for v := range p {
		p[v] = cdf(v) - cdf(v-1)
	}
	p[items-1] += 1 - cdf(items-1) // draws past the end are the last value
	return p
}

// A zipfian draws as YCSB's does: a chi-square over 100,000 draws matches
// the probabilities of Gray et al.'s method, and tells them apart from a
// theta off by 0.05. Its first value has exactly a true zipfian's share,
// 1/zeta(items).
func TestZipfianMatchesItsDistribution(t *testing.T) {
	const n, items = 100_000, 50
	for _, theta := range []float64{0.99, 0.5} {
		g, err := Zipfian(1, items, theta, false)
		if err != nil {
			t.Fatal(err)
		}
		counts := make([]int64, items)
		for _, v := range draws(t, g, 42, n) {
			counts[v-1]++
		}
		x, df := chiSquare(counts, grayProbabilities(items, theta))
		if x > chiSquareBound(df) {
			t.Errorf("theta %v: chi-square %.1f over %d degrees of freedom (bound %.1f); counts %v", theta, x, df, chiSquareBound(df), counts[:10])
		}
		if off, _ := chiSquare(counts, grayProbabilities(items, theta-0.05)); off < chiSquareBound(df) {
			t.Errorf("theta %v: the test cannot tell theta %v apart (chi-square %.1f)", theta, theta-0.05, off)
		}
		p0 := 1 / zeta(0, items, theta, 0)
		if sd := math.Sqrt(n * p0 * (1 - p0)); math.Abs(float64(counts[0])-n*p0) > 3*sd {
			t.Errorf("theta %v: lo drawn %d times, want %.0f ± %.0f", theta, counts[0], n*p0, 3*sd)
		}
	}
}

// The scrambled zipfian keeps the zipfian's skew but moves its popular
// values off lo, all within the range.
func TestScrambledZipfianSpreadsPopularValues(t *testing.T) {
	g, err := Zipfian(1, 1000, ycsbZipfianConstant, true)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[int64]int{}
	for _, v := range draws(t, g, 7, 100_000) {
		if v < 1 || v > 1000 {
			t.Fatalf("draw %d out of [1, 1000]", v)
		}
		counts[v]++
	}
	top, topN := int64(0), 0
	for v, c := range counts {
		if c > topN {
			top, topN = v, c
		}
	}
	// The zipfian's first value has 1/zeta of the draws (zeta for 1e10 items, 26.47).
	if want := 100_000 / ycsbScrambledZetan; float64(topN) < want*0.9 || top == 1 {
		t.Errorf("most frequent value %d with %d draws: want about %.0f, not at lo", top, topN, want)
	}
	if len(counts) < 500 {
		t.Errorf("only %d distinct values of 1000", len(counts))
	}
}

// zeta beyond the terms it sums one by one continues by Euler-Maclaurin:
// the two agree where both can be computed.
func TestZetaContinuation(t *testing.T) {
	exact := 0.0
	const n = 3 * zetaExactTerms
	for i := 1; i <= n; i++ {
		exact += math.Pow(float64(i), -0.99)
	}
	if got := zeta(0, n, 0.99, 0); math.Abs(got-exact) > 1e-9*exact {
		t.Errorf("zeta(%d) = %.12f, summed %.12f", n, got, exact)
	}
	if got := zeta(10, n, 0.99, zeta(0, 10, 0.99, 0)); math.Abs(got-exact) > 1e-9*exact {
		t.Errorf("zeta extended from 10: %.12f, summed %.12f", got, exact)
	}
}

// A seed repeats a generator's values; another seed gives others.
func TestGeneratorsRepeatForASeed(t *testing.T) {
	gs := []func() (*Gen, error){
		func() (*Gen, error) { return Uniform(1, 1_000_000) },
		func() (*Gen, error) { return Gaussian(1, 1_000_000, 12) },
		func() (*Gen, error) { return Special(1, 1_000_000, 1, 75) },
		func() (*Gen, error) { return Pareto(1, 1_000_000, 0.2) },
		func() (*Gen, error) { return Zipfian(1, 1_000_000, 0.99, true) },
	}
	for _, mk := range gs {
		g, err := mk()
		if err != nil {
			t.Fatal(err)
		}
		a, b, c := draws(t, g, 5, 100), draws(t, g, 5, 100), draws(t, g, 6, 100)
		same, differ := true, false
		for i := range a {
			same = same && a[i] == b[i]
			differ = differ || a[i] != c[i]
		}
		if !same || !differ {
			t.Errorf("%v: the same seed repeats: %v; another differs: %v", g, same, differ)
		}
	}
}
