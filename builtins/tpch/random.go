package tpch

import "math"

// The random streams of TPC-H's data generator (dbgen): 48 Park-Miller
// generators (multiplier 16807, modulus 2^31-1), each with its own seed,
// the table whose rows draw from it, and how many draws a row makes of it
// at most. After each row a table's streams skip to that boundary, so that
// row n's values do not depend on how many draws row n-1 made, and a row
// can be reached without generating those before it.
const (
	streams    = 48
	multiplier = 16807
	modulus    = 2147483647
	maxLong    = math.MaxInt32
)

// stream is one random stream.
type stream struct {
	table    Table
	seed     int64
	usage    int64 // draws in the current row
	boundary int64 // draws a row makes at most
}

// The tables, as dbgen numbers them (the streams' owners).
type Table int

// dbgen's tables; OrderLine and PartPsupp generate two tables at once.
const (
	NoTable Table = iota - 1
	Part
	PartSupp
	Supplier
	Customer
	Orders
	LineItem
	OrderLine
	PartPsupp
	Nation
	Region
)

// streamTable is each stream's owner, initial seed and boundary.
var streamTable = [streams]stream{
	{Part, 1, 0, 1}, {Part, 46831694, 0, 1}, {Part, 1841581359, 0, 1}, {Part, 1193163244, 0, 1},
	{Part, 727633698, 0, 1}, {NoTable, 933588178, 0, 1}, {Part, 804159733, 0, 2},
	{PartSupp, 1671059989, 0, suppPerPart}, {PartSupp, 1051288424, 0, suppPerPart}, {PartSupp, 1961692154, 0, suppPerPart * 2},
	{Orders, 1227283347, 0, 1}, {Orders, 1171034773, 0, 1}, {Orders, 276090261, 0, 2}, {Orders, 1066728069, 0, 1},
	{LineItem, 209208115, 0, lineMax}, {LineItem, 554590007, 0, lineMax}, {LineItem, 721958466, 0, lineMax},
	{LineItem, 1371272478, 0, lineMax}, {LineItem, 675466456, 0, lineMax}, {LineItem, 1808217256, 0, lineMax},
	{LineItem, 2095021727, 0, lineMax}, {LineItem, 1769349045, 0, lineMax}, {LineItem, 904914315, 0, lineMax},
	{LineItem, 373135028, 0, lineMax}, {LineItem, 717419739, 0, lineMax}, {LineItem, 1095462486, 0, lineMax * 2},
	{Customer, 881155353, 0, 9}, {Customer, 1489529863, 0, 1}, {Customer, 1521138112, 0, 3}, {Customer, 298370230, 0, 1},
	{Customer, 1140279430, 0, 1}, {Customer, 1335826707, 0, 2},
	{Supplier, 706178559, 0, 9}, {Supplier, 110356601, 0, 1}, {Supplier, 884434366, 0, 3}, {Supplier, 962338209, 0, 1},
	{Supplier, 1341315363, 0, 2},
	{Part, 709314158, 0, 92}, {Orders, 591449447, 0, 1}, {LineItem, 431918286, 0, 1}, {Orders, 851767375, 0, 1},
	{Nation, 606179079, 0, 2}, {Region, 1500869201, 0, 2}, {Orders, 1434868289, 0, 1},
	{Supplier, 263032577, 0, 1}, {Supplier, 753643799, 0, 1}, {Supplier, 202794285, 0, 1}, {Supplier, 715851524, 0, 1},
}

// childOf is the table generated with each (its draws skip with it).
func childOf(t Table) Table {
	switch t {
	case Part:
		return PartSupp
	case Orders:
		return LineItem
	}
	return NoTable
}

// random is a uniform draw in [lo, hi] from stream s, as dbgen's
// UnifInt makes it: the seed's next value scaled to the range in floating
// point. dbgen computes the range of (0, 2^31-1) in 32 bits, where it
// wraps to -2^31; the draws of that range (aRand's) depend on it.
func (g *Generator) random(lo, hi int64, s int) int64 {
	st := &g.streams[s]
	st.usage++
	span := float64(hi - lo + 1)
	if hi == maxLong && lo == 0 {
		span = float64(int32(hi) - int32(lo) + 1)
	}
	st.seed = st.seed * multiplier % modulus
	return lo + int64(float64(st.seed)/float64(modulus)*span)
}

// skip advances a seed by n draws (n ≤ 0: none), by squaring.
func skip(seed *int64, n int64) {
	mult, z := int64(multiplier), *seed
	for n > 0 {
		if n%2 != 0 {
			z = mult * z % modulus
		}
		n /= 2
		mult = mult * mult % modulus
	}
	*seed = z
}

// rowStart begins a row: no stream drawn yet.
func (g *Generator) rowStart() {
	for i := 0; i < streams-1; i++ {
		g.streams[i].usage = 0
	}
}

// rowStop ends a row of t: its streams (and its child table's) skip to
// their boundaries.
func (g *Generator) rowStop(t Table) {
	switch t {
	case OrderLine:
		t = Orders
	case PartPsupp:
		t = Part
	}
	child := childOf(t)
	for i := 0; i < streams-1; i++ {
		if st := &g.streams[i]; st.table == t || st.table == child {
			skip(&st.seed, st.boundary-st.usage)
		}
	}
}

// alphaNum are the characters of random strings.
const alphaNum = "0123456789abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ,"

// randomString is a string of random length in [lo, hi] from stream s,
// its characters six bits at a time of a draw per five (dbgen's a_rnd).
func (g *Generator) randomString(lo, hi int, s int) string {
	n := g.random(int64(lo), int64(hi), s)
	buf := make([]byte, n)
	var bits int64
	for i := range buf {
		if i%5 == 0 {
			bits = g.random(0, maxLong, s)
		}
		buf[i] = alphaNum[bits&0o77]
		bits >>= 6
	}
	return string(buf)
}

// variableString is a random string of average length avg (from 40% to
// 160% of it).
func (g *Generator) variableString(avg int, s int) string {
	return g.randomString(int(float64(avg)*0.4), int(float64(avg)*1.6), s)
}
