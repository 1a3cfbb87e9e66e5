package sysbench

import (
	"math"
	"math/bits"
)

// Rand is one worker's random numbers, with sysbench's distributions. The
// generator is xoroshiro128+ (as in sysbench), seeded from the worker's
// seed, so the same seed gives the same stream on every run.
type Rand struct {
	s0, s1 uint64
	dist   func(r *Rand, a, b int64) int64

	iter       int
	iterMult   float64
	pctMult    float64
	pct2Mult   float64
	resMult    float64
	paretoPow  float64
	zipf       *zipfian
	uniqueBase uint32 // first index of this worker's unique sequence
	uniqueStep uint32 // distance between its indexes
	uniqueNext uint32
}

// NewRand seeds a generator for one worker with the options' distribution.
func NewRand(seed uint64, o *Options) *Rand {
	r := &Rand{}
	r.s0 = splitmix(&seed)
	r.s1 = splitmix(&seed)
	if r.s0 == 0 && r.s1 == 0 {
		r.s1 = 1
	}
	r.iter = o.RandSpecIter
	if r.iter < 1 {
		r.iter = 12
	}
	r.iterMult = 1 / float64(r.iter)
	r.pctMult = o.RandSpecPct / 100
	r.pct2Mult = o.RandSpecPct / 200
	r.resMult = 100 / (100 - o.RandSpecRes)
	if o.RandParetoH > 0 && o.RandParetoH < 1 {
		r.paretoPow = math.Log(o.RandParetoH) / math.Log(1-o.RandParetoH)
	}
	switch o.RandType {
	case "uniform":
		r.dist = (*Rand).Uniform
	case "gaussian":
		r.dist = (*Rand).Gaussian
	case "pareto":
		r.dist = (*Rand).Pareto
	case "zipfian":
		r.zipf = newZipfian(o.RandZipfianExp)
		r.dist = (*Rand).Zipfian
	default:
		r.dist = (*Rand).Special
	}
	r.uniqueStep = 1
	return r
}

func splitmix(x *uint64) uint64 {
	*x += 0x9e3779b97f4a7c15
	z := *x
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Uint64 is the next xoroshiro128+ output.
func (r *Rand) Uint64() uint64 {
	s0, s1 := r.s0, r.s1
	result := s0 + s1
	s1 ^= s0
	r.s0 = bits.RotateLeft64(s0, 55) ^ s1 ^ (s1 << 14)
	r.s1 = bits.RotateLeft64(s1, 36)
	return result
}

// Float64 is uniform in [0, 1) with 52 bits of resolution.
func (r *Rand) Float64() float64 {
	return math.Float64frombits(0x3FF<<52|r.Uint64()>>12) - 1
}

// Default draws from the configured distribution (--rand-type).
func (r *Rand) Default(a, b int64) int64 { return r.dist(r, a, b) }

// Uniform draws uniformly from [a, b].
func (r *Rand) Uniform(a, b int64) int64 {
	if b <= a {
		return a
	}
	return a + int64(r.Float64()*float64(b-a+1))
}

// Gaussian approximates a normal distribution over [a, b] by the mean of
// rand_spec_iter uniform draws (Irwin-Hall).
func (r *Rand) Gaussian(a, b int64) int64 {
	if b <= a {
		return a
	}
	t := float64(b - a + 1)
	sum := 0.0
	for i := 0; i < r.iter; i++ {
		sum += r.Float64() * t
	}
	return a + int64(sum*r.iterMult)
}

// Special is sysbench 1.0.20's default: rand_spec_res percent of draws fall
// on a narrow window (rand_spec_pct percent wide) in the middle of the
// range, the rest follow a gaussian bump.
func (r *Rand) Special(a, b int64) int64 {
	if b <= a {
		return a
	}
	t := float64(b - a)
	rnd := r.Float64()
	if rnd*t*r.resMult < t {
		sum := 0.0
		for i := 0; i < r.iter; i++ {
			sum += r.Float64()
		}
		return a + int64(t*sum*r.iterMult)
	}
	d := t * r.pctMult
	return a + int64(rnd*(d+1)+t/2-t*r.pct2Mult)
}

// Pareto skews draws toward a: with h = 0.2, 80% fall in the first 20%.
func (r *Rand) Pareto(a, b int64) int64 {
	if b <= a {
		return a
	}
	// With h near 1 the power is so small that the draw rounds to 1.0:
	// keep it in range.
	return min(b, a+int64(float64(b-a+1)*math.Pow(r.Float64(), r.paretoPow)))
}

// Zipfian draws k in [1, n] with P(k) proportional to k^-exp, shifted to a.
func (r *Rand) Zipfian(a, b int64) int64 {
	if b <= a {
		return a
	}
	return a + r.zipf.sample(r, float64(b-a+1)) - 1
}

// String fills a template: '#' becomes a digit, '@' a lowercase letter,
// other characters stay.
func (r *Rand) String(template string) string {
	return string(r.AppendString(make([]byte, 0, len(template)), template))
}

// AppendString appends String(template) to dst. It draws exactly what
// Uniform would (the same stream for a seed), with the generator's state
// kept in registers: prepare fills 180 characters a row.
func (r *Rand) AppendString(dst []byte, template string) []byte {
	s0, s1 := r.s0, r.s1
	for i := 0; i < len(template); i++ {
		c := template[i]
		if c != '#' && c != '@' {
			dst = append(dst, c)
			continue
		}
		x := s0 + s1 // Uint64, inlined
		s1 ^= s0
		s0 = bits.RotateLeft64(s0, 55) ^ s1 ^ (s1 << 14)
		s1 = bits.RotateLeft64(s1, 36)
		f := math.Float64frombits(0x3FF<<52|x>>12) - 1
		if c == '#' {
			dst = append(dst, '0'+byte(int64(f*10)))
		} else {
			dst = append(dst, 'a'+byte(int64(f*26)))
		}
	}
	r.s0, r.s1 = s0, s1
	return dst
}

// permute is the quadratic-residue permutation of uint32 (prime 2^32-5)
// behind sysbench's unique numbers.
func permute(x uint32) uint32 {
	const p = 4294967291
	if x >= p {
		return x
	}
	res := uint32(uint64(x) * uint64(x) % p)
	if x <= p/2 {
		return res
	}
	return p - res
}

// uniqueOffset scrambles the unique sequence; it is the same for every
// worker so that the sequence stays one bijection of uint32.
var uniqueOffset = permute(permute(0x1c0ffee) + 0x46790905)

// Unique returns a value that does not repeat for 2^32 calls: a bijection
// of uint32 applied to this worker's indexes.
func (r *Rand) Unique() uint32 {
	i := r.uniqueBase + r.uniqueNext*r.uniqueStep
	r.uniqueNext++
	return permute((permute(i) + uniqueOffset) ^ 0x5bf03635)
}

// SetUniqueStripe makes worker id of n use indexes id, id+n, id+2n, ...,
// so unique values of different workers never collide and each worker's
// stream stays deterministic.
func (r *Rand) SetUniqueStripe(id, n int) {
	r.uniqueBase = uint32(id)
	r.uniqueStep = uint32(n)
}

// zipfian is rejection-inversion sampling (Hörmann and Derflinger).
type zipfian struct {
	e, s, hX1 float64
}

func newZipfian(e float64) *zipfian {
	z := &zipfian{e: e}
	z.s = 2 - z.hInv(z.bigH(2.5)-z.h(2))
	z.hX1 = z.bigH(1.5) - 1
	return z
}

func helper1(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Log1p(x) / x
	}
	return 1 - x*(0.5-x*(1.0/3-0.25*x))
}

func helper2(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Expm1(x) / x
	}
	return 1 + x*0.5*(1+x/3*(1+0.25*x))
}

func (z *zipfian) bigH(x float64) float64 {
	lx := math.Log(x)
	return helper2((1-z.e)*lx) * lx
}

func (z *zipfian) h(x float64) float64 { return math.Exp(-z.e * math.Log(x)) }

func (z *zipfian) hInv(y float64) float64 {
	t := y * (1 - z.e)
	if t < -1 {
		t = -1
	}
	return math.Exp(helper1(t) * y)
}

func (z *zipfian) sample(r *Rand, n float64) int64 {
	hN := z.bigH(n + 0.5)
	for {
		u := hN + r.Float64()*(z.hX1-hN)
		x := z.hInv(u)
		k := math.Floor(x + 0.5)
		if k < 1 {
			k = 1
		} else if k > n {
			k = n
		}
		if k-x <= z.s || u >= z.bigH(k+0.5)-z.h(k) {
			return int64(k)
		}
	}
}
