package tpcc

import (
	"strings"
	"testing"
)

func TestRand(t *testing.T) {
	c := NewConstants(42)
	if c != NewConstants(42) || c == NewConstants(43) {
		t.Errorf("constants are not a function of the seed: %+v", c)
	}
	a, b := NewRand(42, 1, c), NewRand(42, 1, c)
	for i := 0; i < 1000; i++ {
		if x, y := a.CustomerID(), b.CustomerID(); x != y || x < 1 || x > 3000 {
			t.Fatalf("CustomerID: %d and %d", x, y)
		}
		if x := a.ItemID(); x < 1 || x > 100000 {
			t.Fatalf("ItemID %d", x)
		}
		b.ItemID()
		if x := a.LastNameNumber(); x < 0 || x > 999 {
			t.Fatalf("LastNameNumber %d", x)
		}
		b.LastNameNumber()
	}
	if LastName(371) != "PRICALLYOUGHT" || LastName(0) != "BARBARBAR" || LastName(999) != "EINGEINGEING" {
		t.Errorf("last names: %s %s %s", LastName(371), LastName(0), LastName(999))
	}
	original := 0
	for i := 0; i < 10000; i++ {
		d := string(a.AppendData(nil, 26, 50))
		if len(d) < 26 || len(d) > 50 {
			t.Fatalf("data length %d", len(d))
		}
		if strings.Contains(d, "ORIGINAL") {
			original++
		}
	}
	if original < 900 || original > 1100 {
		t.Errorf("%d of 10000 data fields hold ORIGINAL, want about 10%%", original)
	}
	if z := string(a.AppendZip(nil)); len(z) != 9 || !strings.HasSuffix(z, "11111") {
		t.Errorf("zip %q", z)
	}
}

// Clause 2.1.6.1: for every load C_LAST and many seeds, the run's differs
// by 65..119 but 96 and 112, stays in 0..255, and keeps C_ID and
// C_OL_I_ID; a seed repeats it, and the seeds reach every allowed delta.
func TestRunConstantsKeepClause2161(t *testing.T) {
	deltas := map[int]bool{}
	for load := 0; load < 256; load++ {
		for seed := uint64(0); seed < 1000; seed++ {
			l := Constants{CLast: load, CID: 7, OLIID: 9}
			r := RunConstants(l, seed)
			if !ValidCLastDelta(load, r.CLast) || r.CID != 7 || r.OLIID != 9 {
				t.Fatalf("load %d seed %d: run %+v", load, seed, r)
			}
			if r != RunConstants(l, seed) {
				t.Fatalf("load %d seed %d: two draws differ", load, seed)
			}
			deltas[max(r.CLast-load, load-r.CLast)] = true
		}
	}
	if len(deltas) != 53 || deltas[96] || deltas[112] {
		t.Errorf("%d deltas drawn, want the 53 allowed: %v", len(deltas), deltas)
	}
	for _, c := range [][2]int{{0, 0}, {100, 196}, {100, 212}, {100, 164}, {100, 220}, {10, 300}} {
		if ValidCLastDelta(c[0], c[1]) {
			t.Errorf("load %d run %d taken as valid", c[0], c[1])
		}
	}
}
