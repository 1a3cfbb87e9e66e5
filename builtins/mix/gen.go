package mix

import (
	"fmt"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/starbench/starbench/builtins/sysbench"
)

// Gen is a declared value generator: what a statement's placeholder or a
// loaded column takes. It is a description, validated when made; each
// worker (and each load slice) draws from instances of its own, seeded
// from the run seed, so a seed repeats the values. Sequences and unique
// ids count per Gen: a sequence used by two statements advances for both.
type Gen struct {
	kind     genKind
	lo, hi   int64
	flo, fhi float64
	param    float64 // zipfian theta, pareto h, special pct
	res      float64 // special res
	iter     int     // gaussian and special iterations
	step     int64   // sequence step
	global   bool    // sequence shared by the workers (else one per worker)
	minLen   int     // string; key's zero padding
	maxLen   int
	hashed   bool // key
	pattern  string
	choices  []any
	cum      []int64 // cumulative choice weights
	column   string  // ref
	value    any     // constant
	of       *Gen    // latest's sequence, same's generator
	zipf     *zipfConstants
	desc     string
}

type genKind int

const (
	genConst genKind = iota
	genUniform
	genUniformFloat
	genGaussian
	genSpecial
	genPareto
	genZipfian
	genScrambled
	genLatest
	genSequence
	genUnique
	genString
	genPattern
	genChoice
	genTimestamp
	genNow
	genRef
	genSame
	genKey
)

// String describes the generator as declared: "uniform(1, 100)".
func (g *Gen) String() string { return g.desc }

// Column is the column a ref takes its value from ("" for other kinds).
func (g *Gen) Column() string { return g.column }

// IsGenerator says whether the generator draws values (false for a
// constant).
func (g *Gen) IsGenerator() bool { return g.kind != genConst }

// Constant is a constant's value (nil for generators).
func (g *Gen) Constant() any { return g.value }

// IsRef says whether the generator is a ref to an earlier result.
func (g *Gen) IsRef() bool { return g.kind == genRef }

func checkRange(name string, lo, hi int64) error {
	if lo > hi {
		return fmt.Errorf("%s: lo %d is greater than hi %d", name, lo, hi)
	}
	return nil
}

// Const is a fixed value: an int64, float64, string, bool, time.Time or
// nil (NULL).
func Const(v any) (*Gen, error) {
	switch v.(type) {
	case nil, int64, float64, string, bool, time.Time:
	default:
		return nil, fmt.Errorf("a constant is a number, string, bool or None, not %T", v)
	}
	return &Gen{kind: genConst, value: v, desc: fmt.Sprint(v)}, nil
}

// Uniform draws integers uniformly from [lo, hi].
func Uniform(lo, hi int64) (*Gen, error) {
	if err := checkRange("uniform", lo, hi); err != nil {
		return nil, err
	}
	return &Gen{kind: genUniform, lo: lo, hi: hi, desc: fmt.Sprintf("uniform(%d, %d)", lo, hi)}, nil
}

// UniformFloat draws floats uniformly from [lo, hi).
func UniformFloat(lo, hi float64) (*Gen, error) {
	if !(lo <= hi) || math.IsInf(hi-lo, 0) {
		return nil, fmt.Errorf("uniform: lo %v must not be greater than hi %v", lo, hi)
	}
	return &Gen{kind: genUniformFloat, flo: lo, fhi: hi, desc: fmt.Sprintf("uniform(%v, %v)", lo, hi)}, nil
}

// Gaussian draws from [lo, hi] as sysbench's gaussian does: the mean of
// iter uniform draws (sysbench's --rand-spec-iter, 12).
func Gaussian(lo, hi int64, iter int) (*Gen, error) {
	if err := checkRange("gaussian", lo, hi); err != nil {
		return nil, err
	}
	if iter < 1 {
		return nil, fmt.Errorf("gaussian: iter must be at least 1, got %d", iter)
	}
	return &Gen{kind: genGaussian, lo: lo, hi: hi, iter: iter, desc: fmt.Sprintf("gaussian(%d, %d)", lo, hi)}, nil
}

// Special draws from [lo, hi] as sysbench 1.0.20's default distribution:
// res percent of the draws fall in the middle pct percent of the range
// (--rand-spec-pct 1, --rand-spec-res 75), the rest around it.
func Special(lo, hi int64, pct, res float64) (*Gen, error) {
	if err := checkRange("special", lo, hi); err != nil {
		return nil, err
	}
	if pct < 0 || pct > 100 || res < 0 || res >= 100 {
		return nil, fmt.Errorf("special: want 0 <= pct <= 100 and 0 <= res < 100, got pct %v, res %v", pct, res)
	}
	return &Gen{kind: genSpecial, lo: lo, hi: hi, param: pct, res: res, iter: 12, desc: fmt.Sprintf("special(%d, %d)", lo, hi)}, nil
}

// Pareto draws from [lo, hi] as sysbench's pareto does: with h = 0.2,
// 80% of the draws fall in the first 20% of the range.
func Pareto(lo, hi int64, h float64) (*Gen, error) {
	if err := checkRange("pareto", lo, hi); err != nil {
		return nil, err
	}
	if h <= 0 || h >= 1 {
		return nil, fmt.Errorf("pareto: h must be between 0 and 1, got %v", h)
	}
	return &Gen{kind: genPareto, lo: lo, hi: hi, param: h, desc: fmt.Sprintf("pareto(%d, %d)", lo, hi)}, nil
}

// Zipfian draws from [lo, hi] as YCSB's ZipfianGenerator does (Gray et
// al.'s method, theta 0.99 in YCSB): lo is the most frequent value, lo+1
// the next. Scrambled spreads the popular values over the range as YCSB's
// ScrambledZipfianGenerator does: a zipfian over ten billion items with
// YCSB's precomputed zeta, hashed with 64-bit FNV-1a into the range.
func Zipfian(lo, hi int64, theta float64, scrambled bool) (*Gen, error) {
	if err := checkRange("zipfian", lo, hi); err != nil {
		return nil, err
	}
	if theta <= 0 || theta >= 1 {
		return nil, fmt.Errorf("zipfian: theta must be between 0 and 1, got %v", theta)
	}
	if scrambled {
		if theta != ycsbZipfianConstant {
			return nil, fmt.Errorf("zipfian: scrambled takes YCSB's theta %v only (its zeta is precomputed for it)", ycsbZipfianConstant)
		}
		return &Gen{kind: genScrambled, lo: lo, hi: hi, param: theta, zipf: scrambledConstants(),
			desc: fmt.Sprintf("zipfian(%d, %d, scrambled = True)", lo, hi)}, nil
	}
	return &Gen{kind: genZipfian, lo: lo, hi: hi, param: theta, zipf: &zipfConstants{items: hi - lo + 1, theta: theta},
		desc: fmt.Sprintf("zipfian(%d, %d)", lo, hi)}, nil
}

// Latest draws recent values of a sequence, as YCSB's SkewedLatestGenerator
// does: the sequence's last value minus a zipfian draw over the values
// from lo up to it, so the newest rows are the most read. lo is where the
// table's keys start: a sequence that numbers inserts usually starts after
// the loaded rows, and before its first insert its last value is the one
// before its start.
func Latest(seq *Gen, lo int64, theta float64) (*Gen, error) {
	if seq == nil || seq.kind != genSequence {
		return nil, fmt.Errorf("latest: takes a sequence (the one that numbers the inserted rows)")
	}
	if theta <= 0 || theta >= 1 {
		return nil, fmt.Errorf("latest: theta must be between 0 and 1, got %v", theta)
	}
	return &Gen{kind: genLatest, of: seq, lo: lo, param: theta, desc: fmt.Sprintf("latest(%s, lo = %d)", seq.desc, lo)}, nil
}

// Sequence counts start, start+step, ...: one count shared by every worker
// (global), or one per worker. When loading, row r (from 0) of a table is
// start + r*step.
func Sequence(start, step int64, global bool) (*Gen, error) {
	if step == 0 {
		return nil, fmt.Errorf("sequence: step must not be 0")
	}
	scope := "per_worker = True"
	if global {
		scope = "per_worker = False"
	}
	return &Gen{kind: genSequence, lo: start, step: step, global: global, desc: fmt.Sprintf("sequence(%d, %d, %s)", start, step, scope)}, nil
}

// UniqueID gives ids no other worker of the run gives, without a shared
// counter: worker w of n gives start+w, start+w+n, start+w+2n, ...
func UniqueID(start int64) (*Gen, error) {
	return &Gen{kind: genUnique, lo: start, desc: fmt.Sprintf("unique_id(%d)", start)}, nil
}

// String draws random letters and digits, between minLen and maxLen of
// them.
func String(minLen, maxLen int) (*Gen, error) {
	if minLen < 0 || minLen > maxLen || maxLen > 1<<20 {
		return nil, fmt.Errorf("string: want 0 <= min <= max <= 1048576, got %d, %d", minLen, maxLen)
	}
	return &Gen{kind: genString, minLen: minLen, maxLen: maxLen, desc: fmt.Sprintf("string(%d, %d)", minLen, maxLen)}, nil
}

// Pattern fills a template as sysbench's sb_rand_str does: '#' becomes a
// digit, '@' a lowercase letter, anything else stays ("###-###" for
// sysbench's c and pad columns).
func Pattern(template string) (*Gen, error) {
	if len(template) > 1<<20 {
		return nil, fmt.Errorf("pattern: longer than 1048576 characters")
	}
	return &Gen{kind: genPattern, pattern: template, desc: "pattern(" + strconv.Quote(template) + ")"}, nil
}

// Choice picks one of values, each with its weight (all 1 when weights is
// empty).
func Choice(values []any, weights []int64) (*Gen, error) {
	if len(values) == 0 {
		return nil, fmt.Errorf("choice: no values to choose from")
	}
	if len(weights) != 0 && len(weights) != len(values) {
		return nil, fmt.Errorf("choice: %d values but %d weights", len(values), len(weights))
	}
	g := &Gen{kind: genChoice, desc: fmt.Sprintf("choice(%d values)", len(values))}
	var total int64
	for i, v := range values {
		if _, err := Const(v); err != nil {
			return nil, fmt.Errorf("choice: value %d: %w", i+1, err)
		}
		w := int64(1)
		if len(weights) > 0 {
			w = weights[i]
		}
		if w <= 0 {
			return nil, fmt.Errorf("choice: the weight of value %d is %d; weights must be positive", i+1, w)
		}
		total += w
		g.choices = append(g.choices, v)
		g.cum = append(g.cum, total)
	}
	return g, nil
}

// Timestamp draws times uniformly, to the second, from [lo, hi].
func Timestamp(lo, hi time.Time) (*Gen, error) {
	if lo.After(hi) {
		return nil, fmt.Errorf("timestamp: %s is after %s", lo.Format(time.DateTime), hi.Format(time.DateTime))
	}
	return &Gen{kind: genTimestamp, lo: lo.Unix(), hi: hi.Unix(),
		desc: fmt.Sprintf("timestamp(%q, %q)", lo.Format(time.DateTime), hi.Format(time.DateTime))}, nil
}

// Now is the client's clock when the statement is sent (not repeatable).
func Now() *Gen { return &Gen{kind: genNow, desc: "now()"} }

// Ref is a value of an earlier statement's result in the same
// transaction: column of its first row (NULL when it returned none).
func Ref(column string) (*Gen, error) {
	if column == "" {
		return nil, fmt.Errorf("ref: needs a column name")
	}
	return &Gen{kind: genRef, column: column, desc: "ref(" + strconv.Quote(column) + ")"}, nil
}

// Same is the value of generator of as it was last drawn in the same
// transaction (by an earlier argument of the statement or an earlier
// statement), plus plus when it is an integer: sysbench's range ends
// (id and id+99) and its DELETE and INSERT of one id.
func Same(of *Gen, plus int64) (*Gen, error) {
	if of == nil || of.kind == genConst || of.kind == genRef || of.kind == genSame {
		return nil, fmt.Errorf("same: takes a generator a statement draws (not a constant, a ref or a same)")
	}
	desc := "same(" + of.desc + ")"
	if plus != 0 {
		desc = fmt.Sprintf("same(%s, plus = %d)", of.desc, plus)
	}
	return &Gen{kind: genSame, of: of, lo: plus, desc: desc}, nil
}

// Key names a row by a number another generator draws, as YCSB does:
// prefix and the number's decimal digits, zero-padded to pad digits, the
// number hashed first (go-ycsb's FNV-1a, its default "hashed" insert
// order) unless hashed is false. of must draw integers.
func Key(of *Gen, prefix string, hashed bool, pad int) (*Gen, error) {
	if of == nil || !of.drawsIntegers() {
		return nil, fmt.Errorf("key: takes a generator of integers (sequence, uniform, zipfian, latest, ...), not %v", of)
	}
	if pad < 1 || pad > 64 {
		return nil, fmt.Errorf("key: pad must be between 1 and 64, got %d", pad)
	}
	return &Gen{kind: genKey, of: of, pattern: prefix, hashed: hashed, minLen: pad,
		desc: fmt.Sprintf("key(%s, prefix = %q, hashed = %v, pad = %d)", of.desc, prefix, hashed, pad)}, nil
}

// drawsIntegers says whether the generator's values are all int64.
func (g *Gen) drawsIntegers() bool {
	switch g.kind {
	case genUniform, genGaussian, genSpecial, genPareto, genZipfian, genScrambled, genLatest, genSequence, genUnique:
		return true
	}
	return false
}

// drawer draws the values of one generator instance.
type drawer interface {
	draw() any
}

// instanceEnv is what a worker's (or a load slice's) generator instances
// share: their seeds, the worker's place, its counters, the row being
// loaded and the transaction's ref slots.
type instanceEnv struct {
	seed     uint64
	next     uint64 // instances made so far: each draws its own stream
	worker   int
	threads  int
	loading  bool
	row      *int64 // the row being loaded (from 0)
	counters map[*Gen]*counter
	shared   *sharedCounters
	slots    []any // ref values of the current transaction
}

// counter is a sequence's count, per worker or shared.
type counter struct {
	n      atomic.Int64 // the last value given
	shared bool
}

func (c *counter) add(step int64) int64 {
	if c.shared {
		return c.n.Add(step)
	}
	v := c.n.Load() + step
	c.n.Store(v)
	return v
}

// sharedCounters are the global sequences of one run.
type sharedCounters struct {
	mu sync.Mutex
	m  map[*Gen]*counter
}

func (s *sharedCounters) get(g *Gen) *counter {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.m[g]
	if !ok {
		c = &counter{shared: true}
		c.n.Store(g.lo - g.step)
		s.m[g] = c
	}
	return c
}

func (e *instanceEnv) counterOf(g *Gen) *counter {
	if g.global && !e.loading {
		return e.shared.get(g)
	}
	c, ok := e.counters[g]
	if !ok {
		c = &counter{}
		c.n.Store(g.lo - g.step)
		e.counters[g] = c
	}
	return c
}

// rand makes the random stream of the next instance.
func (e *instanceEnv) rand(o sysbench.Options) *sysbench.Rand {
	e.next++
	seed := e.seed ^ (e.next * 0x9e3779b97f4a7c15)
	if o.RandSpecIter == 0 {
		o.RandSpecIter = 12
	}
	o.RandType = "uniform"
	return sysbench.NewRand(seed, &o)
}

// instance makes g's drawer for env.
func (g *Gen) instance(e *instanceEnv) drawer {
	switch g.kind {
	case genConst:
		return constDrawer{g.value}
	case genUniform:
		return &intDrawer{r: e.rand(sysbench.Options{}), lo: g.lo, hi: g.hi, f: (*sysbench.Rand).Uniform}
	case genUniformFloat:
		return &floatDrawer{r: e.rand(sysbench.Options{}), lo: g.flo, span: g.fhi - g.flo}
	case genGaussian:
		return &intDrawer{r: e.rand(sysbench.Options{RandSpecIter: g.iter}), lo: g.lo, hi: g.hi, f: (*sysbench.Rand).Gaussian}
	case genSpecial:
		return &intDrawer{r: e.rand(sysbench.Options{RandSpecPct: g.param, RandSpecRes: g.res}), lo: g.lo, hi: g.hi, f: (*sysbench.Rand).Special}
	case genPareto:
		return &intDrawer{r: e.rand(sysbench.Options{RandParetoH: g.param}), lo: g.lo, hi: g.hi, f: (*sysbench.Rand).Pareto}
	case genZipfian:
		return &zipfDrawer{r: e.rand(sysbench.Options{}), lo: g.lo, z: g.zipf.get()}
	case genScrambled:
		return &scrambledDrawer{r: e.rand(sysbench.Options{}), lo: g.lo, items: uint64(g.hi - g.lo + 1), z: g.zipf.get()}
	case genLatest:
		return &latestDrawer{r: e.rand(sysbench.Options{}), lo: g.lo, step: g.of.step, c: e.counterOf(g.of), theta: g.param}
	case genSequence:
		if e.loading {
			return &rowSequence{g: g, row: e.row}
		}
		return &sequenceDrawer{c: e.counterOf(g), step: g.step}
	case genUnique:
		if e.loading {
			return &rowSequence{g: &Gen{lo: g.lo, step: 1}, row: e.row}
		}
		return &uniqueDrawer{next: g.lo + int64(e.worker) - int64(e.threads), stride: int64(max(e.threads, 1))}
	case genString:
		return &stringDrawer{r: e.rand(sysbench.Options{}), min: int64(g.minLen), max: int64(g.maxLen)}
	case genPattern:
		return &patternDrawer{r: e.rand(sysbench.Options{}), template: g.pattern}
	case genChoice:
		return &choiceDrawer{r: e.rand(sysbench.Options{}), g: g}
	case genTimestamp:
		return &timeDrawer{r: e.rand(sysbench.Options{}), lo: g.lo, hi: g.hi}
	case genNow:
		return nowDrawer{}
	case genKey:
		return &keyDrawer{of: g.of.instance(e), prefix: g.pattern, hashed: g.hashed, pad: g.minLen}
	}
	return constDrawer{}
}

type constDrawer struct{ v any }

func (d constDrawer) draw() any { return d.v }

type intDrawer struct {
	r      *sysbench.Rand
	lo, hi int64
	f      func(*sysbench.Rand, int64, int64) int64
}

func (d *intDrawer) draw() any { return d.f(d.r, d.lo, d.hi) }

type floatDrawer struct {
	r        *sysbench.Rand
	lo, span float64
}

func (d *floatDrawer) draw() any { return d.lo + d.r.Float64()*d.span }

type sequenceDrawer struct {
	c    *counter
	step int64
}

func (d *sequenceDrawer) draw() any { return d.c.add(d.step) }

// rowSequence is a sequence while loading: row r's value is start+r*step,
// whichever slice loads it.
type rowSequence struct {
	g   *Gen
	row *int64
}

func (d *rowSequence) draw() any { return d.g.lo + *d.row*d.g.step }

type uniqueDrawer struct{ next, stride int64 }

func (d *uniqueDrawer) draw() any {
	d.next += d.stride
	return d.next
}

const alphanumeric = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

type stringDrawer struct {
	r        *sysbench.Rand
	min, max int64
	buf      []byte
}

// draw returns the drawer's buffer: valid until its next draw, which is
// after the statement that takes it was sent.
func (d *stringDrawer) draw() any {
	n := d.r.Uniform(d.min, d.max)
	b := d.buf[:0]
	for range n {
		b = append(b, alphanumeric[d.r.Uint64()%uint64(len(alphanumeric))])
	}
	d.buf = b
	return b
}

type patternDrawer struct {
	r        *sysbench.Rand
	template string
	buf      []byte
}

func (d *patternDrawer) draw() any {
	d.buf = d.r.AppendString(d.buf[:0], d.template)
	return d.buf
}

type choiceDrawer struct {
	r *sysbench.Rand
	g *Gen
}

func (d *choiceDrawer) draw() any { return d.g.choices[pickWeighted(d.r, d.g.cum)] }

// pickWeighted draws an index by cumulative weights.
func pickWeighted(r *sysbench.Rand, cum []int64) int {
	x := r.Uniform(1, cum[len(cum)-1])
	lo, hi := 0, len(cum)-1
	for lo < hi {
		mid := (lo + hi) / 2
		if cum[mid] >= x {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

type timeDrawer struct {
	r      *sysbench.Rand
	lo, hi int64
}

func (d *timeDrawer) draw() any { return time.Unix(d.r.Uniform(d.lo, d.hi), 0).UTC() }

type nowDrawer struct{}

func (nowDrawer) draw() any { return time.Now().UTC().Truncate(time.Microsecond) }

// keyDrawer formats another drawer's integers as key names; its value is
// its buffer, valid until its next draw.
type keyDrawer struct {
	of     drawer
	prefix string
	hashed bool
	pad    int
	buf    []byte
}

func (d *keyDrawer) draw() any {
	n := d.of.draw().(int64)
	if d.hashed {
		n = fnv64(n)
	}
	b := append(d.buf[:0], d.prefix...)
	var digits [20]byte
	num := strconv.AppendInt(digits[:0], n, 10)
	for i := len(num); i < d.pad; i++ {
		b = append(b, '0')
	}
	d.buf = append(b, num...)
	return d.buf
}

type refDrawer struct {
	slots []any
	slot  int
}

func (d *refDrawer) draw() any { return d.slots[d.slot] }

// sameDrawer is an earlier argument's value, kept in a slot, plus an
// offset for integers.
type sameDrawer struct {
	slots []any
	slot  int
	plus  int64
}

func (d *sameDrawer) draw() any {
	if n, ok := d.slots[d.slot].(int64); ok && d.plus != 0 {
		return n + d.plus
	}
	return d.slots[d.slot]
}
