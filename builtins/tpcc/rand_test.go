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
