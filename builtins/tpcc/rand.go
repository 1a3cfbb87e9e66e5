package tpcc

import (
	"math/rand/v2"
)

// Rand draws TPC-C's random values (clause 4.3.2 of the specification),
// deterministically from a seed: the loader seeds one per warehouse and
// table, the workload one per worker, so a seed repeats the same data and
// the same transactions.
type Rand struct {
	r *rand.Rand
	C Constants
}

// Constants are the run-time constants C of NURand (clause 2.1.6), one set
// per run, drawn from the seed.
type Constants struct {
	CLast, CID, OLIID int
}

// NewConstants draws the load's C constants for a seed (the run's come
// from them: RunConstants).
func NewConstants(seed uint64) Constants {
	r := rand.New(rand.NewPCG(seed, 0x7470_6363)) // "tpcc"
	return Constants{CLast: r.IntN(256), CID: r.IntN(1024), OLIID: r.IntN(8192)}
}

// RunConstants are the run's C constants for a database loaded with load:
// C_LAST differs from the load's by 65..119 but 96 and 112 (clause
// 2.1.6.1, which BenchmarkSQL keeps too), drawn from seed; C_ID and
// C_OL_I_ID, which the clause leaves free, stay the load's.
func RunConstants(load Constants, seed uint64) Constants {
	r := rand.New(rand.NewPCG(seed, 0x7275_6e43)) // "runC"
	var deltas []int
	for d := 65; d <= 119; d++ {
		if ValidCLastDelta(0, d) {
			deltas = append(deltas, d)
		}
	}
	d := deltas[r.IntN(len(deltas))]
	if r.IntN(2) == 0 {
		d = -d
	}
	c := load.CLast + d
	if c < 0 || c > 255 {
		c = load.CLast - d // one side always fits: 255 - 119 > 119 - 65
	}
	return Constants{CLast: c, CID: load.CID, OLIID: load.OLIID}
}

// ValidCLastDelta says whether a run's C_LAST may follow a load's (clause
// 2.1.6.1).
func ValidCLastDelta(load, run int) bool {
	d := run - load
	if d < 0 {
		d = -d
	}
	return d >= 65 && d <= 119 && d != 96 && d != 112 && run >= 0 && run <= 255
}

// NewRand makes a generator for one stream of a seed (a warehouse and
// table of the load, a worker of the run).
func NewRand(seed, stream uint64, c Constants) *Rand {
	return &Rand{r: rand.New(rand.NewPCG(seed, stream)), C: c}
}

// Int is uniform in [min, max].
func (r *Rand) Int(min, max int) int {
	if max <= min {
		return min
	}
	return min + r.r.IntN(max-min+1)
}

// NURand is the non-uniform random of clause 2.1.6:
// (((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x.
func (r *Rand) NURand(a, x, y, c int) int {
	return ((r.Int(0, a)|r.Int(x, y))+c)%(y-x+1) + x
}

// CustomerID is a customer id for a transaction: NURand(1023, 1, 3000).
func (r *Rand) CustomerID() int { return r.NURand(1023, 1, 3000, r.C.CID) }

// ItemID is an item id for a transaction: NURand(8191, 1, 100000).
func (r *Rand) ItemID() int { return r.NURand(8191, 1, 100000, r.C.OLIID) }

// LastNameNumber is the number whose syllables make a customer's last
// name in a transaction: NURand(255, 0, 999).
func (r *Rand) LastNameNumber() int { return r.NURand(255, 0, 999, r.C.CLast) }

// lastNameSyllables are clause 4.3.2.3's ten syllables.
var lastNameSyllables = [10]string{"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"}

// AppendLastName appends the last name made of n's three digits'
// syllables (n in [0, 999]).
func AppendLastName(b []byte, n int) []byte {
	b = append(b, lastNameSyllables[n/100]...)
	b = append(b, lastNameSyllables[n/10%10]...)
	return append(b, lastNameSyllables[n%10]...)
}

// LastName is AppendLastName as a string.
func LastName(n int) string { return string(AppendLastName(nil, n)) }

const (
	alphanumeric = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	digits       = "0123456789"
	letters      = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
)

// AppendAString appends a random a-string of min..max characters
// (clause 4.3.2.2; alphanumeric, as go-tpc and BenchmarkSQL draw them).
func (r *Rand) AppendAString(b []byte, min, max int) []byte {
	return r.appendFrom(b, alphanumeric, r.Int(min, max))
}

// AppendNString appends a random n-string (digits) of min..max characters.
func (r *Rand) AppendNString(b []byte, min, max int) []byte {
	return r.appendFrom(b, digits, r.Int(min, max))
}

// AppendState appends two random letters.
func (r *Rand) AppendState(b []byte) []byte { return r.appendFrom(b, letters, 2) }

// AppendZip appends a zip code: four random digits and "11111" (4.3.2.7).
func (r *Rand) AppendZip(b []byte) []byte {
	return append(r.appendFrom(b, digits, 4), "11111"...)
}

// AppendData appends a data field of min..max characters, 10% of which
// hold "ORIGINAL" at a random position (4.3.3.1: i_data and s_data).
func (r *Rand) AppendData(b []byte, min, max int) []byte {
	start := len(b)
	n := r.Int(min, max)
	b = r.appendFrom(b, alphanumeric, n)
	if r.Int(1, 10) == 1 {
		at := start + r.Int(0, n-8)
		copy(b[at:], "ORIGINAL")
	}
	return b
}

// Tax is a tax rate in [0.0000, 0.2000].
func (r *Rand) Tax() float64 { return float64(r.Int(0, 2000)) / 10000 }

func (r *Rand) appendFrom(b []byte, set string, n int) []byte {
	for i := 0; i < n; i++ {
		b = append(b, set[r.r.IntN(len(set))])
	}
	return b
}
