package main

import (
	"io"
	"strings"
	"testing"
	"time"
)

// The command line refuses what would give an unbalanced or empty
// comparison; the ratios are round by round, starbench over go-tpc.
func TestFlagsAndRatios(t *testing.T) {
	for _, args := range [][]string{{"-rounds", "3"}, {"-rounds", "0"}, {"-sf", "0"}, {"-passes", "0"}, {"-queries", ""}, {"extra"}} {
		if _, err := parseFlags(args, io.Discard); err == nil {
			t.Errorf("%v: accepted", args)
		}
	}
	o, err := parseFlags(nil, io.Discard)
	if err != nil || o.rounds != 6 || o.sf != 1 || !strings.Contains(o.queries, "q16") {
		t.Fatalf("defaults %+v, %v", o, err)
	}
	gt := []measure{{wall: 100 * time.Second, count: 10}, {wall: 120 * time.Second, count: 10}}
	sb := []measure{{wall: 40 * time.Second, count: 10}, {wall: 30 * time.Second, count: 10}}
	r := ratio(gt, sb, func(m measure) float64 { return m.wall.Seconds() })
	if r.Lo != 0.25 || r.Hi != 0.4 || r.Median != 0.325 || !r.HasCI || r.Value != 70.0/220 {
		t.Errorf("ratio %+v", r)
	}
	if m := median(sb, func(m measure) float64 { return m.wall.Seconds() }); m != 35 {
		t.Errorf("median %v", m)
	}
}
