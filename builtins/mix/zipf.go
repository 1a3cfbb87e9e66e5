package mix

import (
	"math"
	"sync"

	"github.com/starbench/starbench/builtins/sysbench"
)

// YCSB's constants for its zipfian generators (site.ycsb.generator in
// YCSB's core: ZipfianGenerator.ZIPFIAN_CONSTANT, and
// ScrambledZipfianGenerator's item count and zeta for it).
const (
	ycsbZipfianConstant = 0.99
	ycsbScrambledItems  = 10_000_000_000
	ycsbScrambledZetan  = 26.46902820178302
)

// zipfConstants are a zipfian's precomputed figures for a fixed number of
// items, computed once (zeta is a sum over the items) when a run first
// needs them, not when a plan declares the generator.
type zipfConstants struct {
	items int64
	theta float64
	once  sync.Once
	z     zipfian
}

func (c *zipfConstants) get() *zipfian {
	c.once.Do(func() {
		if c.z.items == 0 {
			c.z = newZipfian(c.items, c.theta, zeta(0, c.items, c.theta, 0))
		}
	})
	return &c.z
}

func scrambledConstants() *zipfConstants {
	c := &zipfConstants{items: ycsbScrambledItems, theta: ycsbZipfianConstant}
	c.z = newZipfian(ycsbScrambledItems, ycsbZipfianConstant, ycsbScrambledZetan)
	return c
}

// zipfian draws from [0, items) by Gray et al.'s method ("Quickly
// generating billion-record synthetic databases", 1994), as YCSB's
// ZipfianGenerator does.
type zipfian struct {
	items                    int64
	theta, alpha, zetan, eta float64
	halfPowTheta, zeta2theta float64
}

func newZipfian(items int64, theta, zetan float64) zipfian {
	z := zipfian{items: items, theta: theta, alpha: 1 / (1 - theta), zetan: zetan,
		halfPowTheta: 1 + math.Pow(0.5, theta), zeta2theta: zeta(0, 2, theta, 0)}
	z.eta = (1 - math.Pow(2/float64(items), 1-theta)) / (1 - z.zeta2theta/zetan)
	return z
}

// next maps a uniform u in [0, 1) to a draw.
func (z *zipfian) next(u float64) int64 {
	uz := u * z.zetan
	if uz < 1 {
		return 0
	}
	if uz < z.halfPowTheta {
		return 1
	}
	return min(z.items-1, int64(float64(z.items)*math.Pow(z.eta*u-z.eta+1, z.alpha)))
}

// zetaExactTerms bounds the terms summed one by one; beyond them the sum
// goes on by the Euler-Maclaurin formula, whose error there is below
// 1e-15 of the sum.
const zetaExactTerms = 1 << 20

// zeta is sum(1/i^theta) for i in (from, to], added to initial (the sum
// up to from), as YCSB extends it when the item count grows.
func zeta(from, to int64, theta, initial float64) float64 {
	sum := initial
	i := from + 1
	for ; i <= to && i <= from+zetaExactTerms; i++ {
		sum += 1 / math.Pow(float64(i), theta)
	}
	if i <= to { // the rest, (i-1, to], as an integral with corrections
		a, b := float64(i-1), float64(to)
		f := func(x float64) float64 { return math.Pow(x, -theta) }
		sum += (math.Pow(b, 1-theta)-math.Pow(a, 1-theta))/(1-theta) + (f(b)-f(a))/2 +
			theta/12*(math.Pow(a, -theta-1)-math.Pow(b, -theta-1))
	}
	return sum
}

type zipfDrawer struct {
	r  *sysbench.Rand
	lo int64
	z  *zipfian
}

func (d *zipfDrawer) draw() any { return d.lo + d.z.next(d.r.Float64()) }

// fnv64 is 64-bit FNV-1a over the eight bytes of v, high byte first,
// made non-negative: go-ycsb's util.Hash64, which its key names and its
// scrambled zipfian use (YCSB's Java fnvhash64 takes the bytes low byte
// first; go-ycsb, the TiDB community's YCSB, is the peer here).
func fnv64(v int64) int64 {
	h := uint64(0xCBF29CE484222325)
	for shift := 56; shift >= 0; shift -= 8 {
		h ^= uint64(v>>shift) & 0xff
		h *= 1099511628211
	}
	s := int64(h)
	if s < 0 && s != math.MinInt64 {
		s = -s
	}
	return s
}

type scrambledDrawer struct {
	r     *sysbench.Rand
	lo    int64
	items uint64
	z     *zipfian
}

func (d *scrambledDrawer) draw() any {
	v := fnv64(d.z.next(d.r.Float64()))
	return d.lo + int64(uint64(v)%d.items)
}

// latestDrawer draws as YCSB's SkewedLatestGenerator: the sequence's last
// value minus a zipfian draw over the values it has given, its zeta
// extended as the sequence grows.
type latestDrawer struct {
	r     *sysbench.Rand
	lo    int64
	step  int64
	c     *counter
	theta float64
	z     zipfian
	zeta  float64
}

func (d *latestDrawer) draw() any {
	last := d.c.n.Load()
	items := (last-d.lo)/d.step + 1
	if items < 1 {
		return d.lo
	}
	if items != d.z.items {
		if items > d.z.items {
			d.zeta = zeta(d.z.items, items, d.theta, d.zeta)
		} else {
			d.zeta = zeta(0, items, d.theta, 0)
		}
		d.z = newZipfian(items, d.theta, d.zeta)
	}
	return last - d.z.next(d.r.Float64())*d.step
}
