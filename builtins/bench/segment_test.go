package bench_test

import (
	"slices"
	"testing"

	"github.com/starbench/starbench/builtins/bench"
)

// Segments split threads as k6's execution segments split VUs among
// equal segments: unit j to segment j mod n + 1, the first ones taking
// the remainder; together the segments hold every thread id once.
func TestSegmentsSplitLikeK6(t *testing.T) {
	var ids []int
	var shares []int
	for i := 1; i <= 3; i++ {
		g, err := bench.ParseSegment(string(rune('0'+i)) + "/3")
		if err != nil {
			t.Fatal(err)
		}
		shares = append(shares, g.Threads(10))
		ids = append(ids, g.ThreadIDs(10)...)
		o, err := g.Apply(bench.Options{Threads: 10, Events: 100, Rate: 90})
		if err != nil || o.Threads != g.Threads(10) || o.Rate != 30 || !slices.Equal(o.ThreadIDs, g.ThreadIDs(10)) {
			t.Errorf("segment %s applied: %+v %v", g, o, err)
		}
	}
	if !slices.Equal(shares, []int{4, 3, 3}) {
		t.Errorf("10 threads in thirds: %v, want 4 3 3", shares)
	}
	slices.Sort(ids)
	if !slices.Equal(ids, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}) {
		t.Errorf("thread ids of the three segments: %v", ids)
	}
	g, _ := bench.ParseSegment("2/3")
	if !slices.Equal(g.ThreadIDs(10), []int{1, 4, 7}) || g.Share(100) != 33 {
		t.Errorf("segment 2/3: ids %v, events %d", g.ThreadIDs(10), g.Share(100))
	}
	if _, err := (bench.Segment{Index: 3, Count: 3}).Apply(bench.Options{Threads: 2}); err == nil {
		t.Error("segment 3/3 of 2 threads: want an error, it has no thread")
	}
}

func TestParseSegmentRefusesNonsense(t *testing.T) {
	for _, s := range []string{"3/2", "0/4", "1/0", "2", "a/b", "1/-1", ""} {
		if g, err := bench.ParseSegment(s); err == nil {
			t.Errorf("ParseSegment(%q) = %v, want an error", s, g)
		}
	}
	if g, err := bench.ParseSegment("1/1"); err != nil || !g.Whole() {
		t.Errorf("1/1: %v %v, want the whole load", g, err)
	}
}
