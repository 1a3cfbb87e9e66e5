package bench

import (
	"fmt"
	"strconv"
	"strings"
)

// Segment is the i-th of n slices of a load, for orchestrators that run
// one starbench per machine (`--segment i/n`). Threads, events and rate
// split the way k6's execution segments split them among equal segments:
// unit j of a count (thread j, event j) belongs to segment j mod n + 1, so
// the first segments take one more when the count does not divide, and a
// segment's threads keep their thread ids (and so their seeds and
// statement streams) of the whole load. The zero Segment is the whole load.
type Segment struct {
	Index, Count int // 1-based Index of Count
}

// ParseSegment reads "i/n" (1 <= i <= n).
func ParseSegment(s string) (Segment, error) {
	is, ns, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(is))
	n, err2 := strconv.Atoi(strings.TrimSpace(ns))
	switch {
	case !ok || err1 != nil || err2 != nil:
		return Segment{}, fmt.Errorf("segment %q: want i/n, e.g. 2/3 for the second of three slices", s)
	case n < 1:
		return Segment{}, fmt.Errorf("segment %q: n must be at least 1", s)
	case i < 1 || i > n:
		return Segment{}, fmt.Errorf("segment %q: i must be between 1 and %d", s, n)
	}
	return Segment{Index: i, Count: n}, nil
}

// Whole reports whether the segment is the whole load.
func (g Segment) Whole() bool { return g.Count <= 1 }

func (g Segment) String() string {
	if g.Whole() {
		return ""
	}
	return fmt.Sprintf("%d/%d", g.Index, g.Count)
}

// Share is the segment's share of a count of units: those j in [0, total)
// with j mod n = i-1.
func (g Segment) Share(total int64) int64 {
	if g.Whole() {
		return total
	}
	first := int64(g.Index - 1)
	if total <= first {
		return 0
	}
	return (total-first-1)/int64(g.Count) + 1
}

// Threads is the segment's share of a load of threads.
func (g Segment) Threads(total int) int { return int(g.Share(int64(total))) }

// ThreadIDs are the ids, in the whole load of threads, of the segment's
// threads (nil for the whole load).
func (g Segment) ThreadIDs(threads int) []int {
	if g.Whole() {
		return nil
	}
	var ids []int
	for id := g.Index - 1; id < threads; id += g.Count {
		ids = append(ids, id)
	}
	return ids
}

// Rate is the segment's share of a rate (events per second).
func (g Segment) Rate(rate float64) float64 {
	if g.Whole() {
		return rate
	}
	return rate / float64(g.Count)
}

// Apply makes the engine options of the segment from the whole load's:
// its threads (with their ids), events and rate. A segment left without a
// thread is an error.
func (g Segment) Apply(o Options) (Options, error) {
	if g.Whole() {
		return o, nil
	}
	ids := g.ThreadIDs(o.Threads)
	if len(ids) == 0 {
		return o, fmt.Errorf("segment %s of %d threads has no thread: run at most %d segments", g, o.Threads, o.Threads)
	}
	if o.Events > 0 && g.Share(o.Events) == 0 {
		return o, fmt.Errorf("segment %s of %d events has no event", g, o.Events)
	}
	o.Threads, o.ThreadIDs = len(ids), ids
	o.Events = g.Share(o.Events)
	if o.Rate > 0 && len(o.Stages) > 0 {
		o.Stages = o.Stages.Scaled(g.Rate(1)) // its share of the rates; threads follow the whole load's profile by id
	}
	o.Rate = g.Rate(o.Rate)
	return o, nil
}
