package results

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// partSpec describes a step folder for the merge to read, with the
// irregularities step folders have: skewed starts, sub-millisecond
// interval ends, a partial last interval, empty intervals, rows missing,
// duplicated or out of order, several histogram geometries.
type partSpec struct {
	workload   string
	start      time.Time
	intervals  int
	length     time.Duration // of an interval (1 s by default)
	reportS    float64       // the summary's IntervalSeconds (0: none)
	plannedS   float64
	kinds      []string
	service    bool
	geom       [3]int64 // {lowest, highest, digits}; {1, 3600e6, 3} by default
	seed       uint64
	jitter     bool          // interval ends off the millisecond
	partial    time.Duration // a last interval this long
	emptyEvery int           // every n-th interval has no events
	dropRow    int           // every n-th row is missing
	shuffle    bool          // rows out of time order
	dupRow     bool          // a row's time twice
	leadingTag bool          // a kind's histogram before the first untagged one
	noLog      bool          // no events, no latency.hlog
}

// writePart writes the spec's step folder as WriteStep writes one.
func writePart(t testing.TB, dir string, p partSpec) {
	t.Helper()
	rng := rand.New(rand.NewPCG(p.seed, 3))
	if p.length == 0 {
		p.length = time.Second
	}
	if p.geom == [3]int64{} {
		p.geom = [3]int64{1, 3600e6, 3}
	}
	newH := func() *hdr.Histogram { return hdr.New(p.geom[0], p.geom[1], int(p.geom[2])) }
	var rows []Interval
	var lat []LatencyInterval
	var events, sumUS int64
	minUS, maxUS := int64(1<<62), int64(0)
	n := p.intervals
	if p.partial > 0 {
		n++
	}
	for i := range n {
		from, to := time.Duration(i)*p.length, time.Duration(i+1)*p.length
		if p.jitter {
			from += time.Duration(i*977+int(p.seed)*131) * time.Microsecond
			to += time.Duration((i+1)*977+int(p.seed)*131) * time.Microsecond
		}
		if i == p.intervals {
			to = from + p.partial
		}
		h, svc := newH(), newH()
		kh := make([]*hdr.Histogram, len(p.kinds))
		for k := range kh {
			kh[k] = newH()
		}
		count := 20 + rng.IntN(60)
		if p.emptyEvery > 0 && i%p.emptyEvery == p.emptyEvery-1 {
			count = 0
		}
		for range count {
			v := 50 + int64(rng.ExpFloat64()*float64(2000*(1+p.seed%3)))
			if rng.IntN(50) == 0 {
				v *= 500
			}
			_ = h.RecordValue(v)
			if len(kh) > 0 {
				_ = kh[rng.IntN(len(kh))].RecordValue(v)
			}
			_ = svc.RecordValue(v / 2)
			events++
			sumUS += v
			minUS, maxUS = min(minUS, v), max(maxUS, v)
		}
		if i == 0 && p.leadingTag && len(p.kinds) > 0 {
			lat = append(lat, LatencyInterval{Start: from, End: to, Tag: KindTag(p.kinds[0]), Histogram: kh[0]})
		}
		lat = append(lat, LatencyInterval{Start: from, End: to, Histogram: h})
		for k, name := range p.kinds {
			lat = append(lat, LatencyInterval{Start: from, End: to, Tag: KindTag(name), Histogram: kh[k]})
		}
		if p.service {
			lat = append(lat, LatencyInterval{Start: from, End: to, Tag: ServiceTag, Histogram: svc})
		}
		if p.dropRow > 0 && i%p.dropRow == p.dropRow-1 {
			continue
		}
		secs := (to - from).Seconds()
		rows = append(rows, Interval{Time: to.Seconds(), Threads: 2 + int(p.seed%3), Events: int64(count),
			TPS: float64(count) / secs, QPS: 3 * float64(count) / secs, ReadsPerS: 2 * float64(count) / secs, ErrorsPerS: 0.1})
	}
	if p.dupRow && len(rows) > 3 {
		rows = slices.Insert(rows, 3, rows[2])
		rows[3].Events++
	}
	if p.shuffle {
		rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	}
	if p.noLog {
		lat, events = nil, 0
	}
	ms := func(us int64) float64 { return float64(us) / 1000 }
	sum := &Summary{Workload: Meta{Name: p.workload, Version: "v1"}, Started: p.start, Threads: 2 + int(p.seed%3),
		Seconds: float64(p.intervals), Stopped: "time", Status: StatusCompleted, Events: events, Queries: 3 * events,
		ErrorsByCode: map[string]int64{"1213": int64(p.seed)}, TPS: float64(events) / float64(max(p.intervals, 1)),
		IntervalSeconds: p.reportS, PlannedSeconds: p.plannedS, Percentile: 95,
		Tags: map[string]string{"run": "x"}}
	if events > 0 {
		sum.Latency = LatencySummary{MinMS: ms(minUS), MaxMS: ms(maxUS), SumMS: ms(sumUS)}
	}
	for _, k := range p.kinds {
		sum.Kinds = append(sum.Kinds, KindSummary{Name: k, Events: events / int64(len(p.kinds)),
			Latency: LatencySummary{MinMS: ms(minUS), MaxMS: ms(maxUS), SumMS: ms(sumUS) / float64(len(p.kinds))}})
	}
	if p.service {
		sum.ServiceLatency = &LatencySummary{}
	}
	if err := WriteStep(dir, Step{Summary: sum, Intervals: rows, Latency: lat}); err != nil {
		t.Fatal(err)
	}
	if p.noLog {
		os.Remove(filepath.Join(dir, LatencyFile))
	}
}

// sameMerge merges the parts the old way and the streaming way and
// reports every file that differs.
func sameMerge(t *testing.T, root string, parts []MergePart, opts MergeOptions) string {
	t.Helper()
	want, got := filepath.Join(root, "want"), filepath.Join(root, "got")
	os.RemoveAll(want)
	os.RemoveAll(got)
	werr := oracleWrite(want, parts, opts)
	sum, gerr := Merge(got, parts, opts)
	if gerr == nil {
		gerr = FinishStep(got, sum, nil)
	}
	if (werr == nil) != (gerr == nil) || !errors.Is(gerr, errors.Unwrap(werr)) {
		t.Fatalf("errors differ: old %v, streaming %v", werr, gerr)
	}
	if werr != nil {
		return got
	}
	for _, name := range []string{IntervalsFile, LatencyFile, SummaryFile} {
		a, err := os.ReadFile(filepath.Join(want, name))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(got, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs from the in-memory merge's:\n%s", name, firstDiff(a, b))
		}
	}
	return got
}

func firstDiff(a, b []byte) string {
	al, bl := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := range max(len(al), len(bl)) {
		var x, y []byte
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if !bytes.Equal(x, y) {
			return fmt.Sprintf("line %d:\n  old: %.200s\n  new: %.200s", i+1, x, y)
		}
	}
	return "(same lines)"
}

// The streaming merge writes the same intervals.csv, latency.hlog and
// summary as the in-memory merge did, byte for byte, whatever the parts'
// irregularities.
func TestMergeStreamsWhatTheOldMergeWrote(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	kinds := []string{"new_order", "payment", "order_status", "delivery", "stock_level"}
	cases := map[string][]partSpec{
		"three TPC-C parts, skewed": {
			{workload: "tpcc", start: t0, intervals: 40, reportS: 1, plannedS: 40, kinds: kinds, service: true, seed: 1},
			{workload: "tpcc", start: t0.Add(7 * time.Millisecond), intervals: 40, reportS: 1, plannedS: 40, kinds: kinds, service: true, seed: 2},
			{workload: "tpcc", start: t0.Add(480 * time.Millisecond), intervals: 40, reportS: 1, plannedS: 40, kinds: kinds, service: true, seed: 3},
		},
		"partial last intervals, jitter, empty intervals": {
			{workload: "w", start: t0.Add(1234 * time.Microsecond), intervals: 30, reportS: 1, plannedS: 30, jitter: true, partial: 400 * time.Millisecond, emptyEvery: 7, seed: 4},
			{workload: "w", start: t0.Add(501 * time.Millisecond), intervals: 30, reportS: 1, plannedS: 30, jitter: true, partial: 50 * time.Millisecond, seed: 5},
		},
		"rows missing, twice, out of order": {
			{workload: "w", start: t0, intervals: 25, reportS: 1, plannedS: 25, dropRow: 4, dupRow: true, kinds: kinds[:2], seed: 6},
			{workload: "w", start: t0.Add(3 * time.Millisecond), intervals: 25, reportS: 1, plannedS: 25, shuffle: true, dupRow: true, kinds: kinds[1:3], seed: 7},
		},
		"geometries differ": {
			{workload: "w", start: t0, intervals: 20, reportS: 1, plannedS: 20, geom: [3]int64{1, 60e6, 2}, kinds: kinds[:1], seed: 8},
			{workload: "w", start: t0, intervals: 20, reportS: 1, plannedS: 20, kinds: kinds[:1], seed: 9},
			{workload: "w", start: t0, intervals: 20, reportS: 1, plannedS: 20, geom: [3]int64{1000, 3600e9, 3}, kinds: kinds[:1], seed: 10},
		},
		"no report interval, 10 s intervals": {
			{workload: "w", start: t0, intervals: 12, length: 10 * time.Second, service: true, seed: 11},
			{workload: "w", start: t0.Add(4 * time.Second), intervals: 12, length: 10 * time.Second, service: true, seed: 12},
		},
		"a kind's histogram first, a part without events": {
			{workload: "w", start: t0, intervals: 10, reportS: 1, kinds: kinds, leadingTag: true, seed: 13},
			{workload: "w", start: t0.Add(time.Second), intervals: 10, reportS: 1, noLog: true, seed: 14},
		},
	}
	for name, specs := range cases {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			var parts []MergePart
			for i, p := range specs {
				dir := filepath.Join(root, string(rune('a'+i)))
				writePart(t, dir, p)
				parts = append(parts, MergePart{Name: string(rune('a' + i)), Dir: dir})
			}
			merged := sameMerge(t, root, parts, MergeOptions{})
			// A merged folder merges again, alone and with a part.
			again := filepath.Join(root, "again")
			sameMerge(t, again, []MergePart{{Name: "m", Dir: merged}}, MergeOptions{})
			sameMerge(t, again, []MergePart{{Name: "m", Dir: merged}, parts[0]}, MergeOptions{Force: true})
		})
	}
}

// Parts that stop at different times leave a merged folder whose rows go
// back in time (a merged interval's end is its latest part's); merged
// again, it still merges as the in-memory merge did.
func TestMergeOfAMergeWithRowsBackInTime(t *testing.T) {
	root := t.TempDir()
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	writePart(t, a, partSpec{workload: "w", start: t0, intervals: 10, reportS: 1, partial: 200 * time.Millisecond, seed: 1})
	writePart(t, b, partSpec{workload: "w", start: t0.Add(400 * time.Millisecond), intervals: 10, reportS: 1, seed: 2})
	merged := sameMerge(t, root, []MergePart{{Name: "a", Dir: a}, {Name: "b", Dir: b}}, MergeOptions{})
	rows, err := ReadIntervals(merged)
	if err != nil {
		t.Fatal(err)
	}
	if slices.IsSortedFunc(rows, func(x, y Interval) int { return int(msOf(x) - msOf(y)) }) {
		t.Fatalf("the merged rows are in time order: the case is not tested")
	}
	sameMerge(t, filepath.Join(root, "again"), []MergePart{{Name: "m", Dir: merged}}, MergeOptions{})
}

// A part's latency.hlog whose intervals go back in time is refused (the
// in-memory merge sorted them; a stream cannot), and nothing is left.
func TestMergeRefusesAnHlogBackInTime(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "a")
	h := hdr.New(1, 3600e6, 3)
	h.RecordValue(100)
	lat := []LatencyInterval{{Start: 2 * time.Second, End: 3 * time.Second, Histogram: h}, {Start: 0, End: time.Second, Histogram: h}}
	sum := &Summary{Workload: Meta{Name: "w"}, Started: time.Now(), Threads: 1, Events: 2, IntervalSeconds: 1}
	if err := WriteStep(dir, Step{Summary: sum, Latency: lat}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(root, "out")
	if _, err := Merge(out, []MergePart{{Name: "a", Dir: dir}}, MergeOptions{}); !errors.Is(err, ErrNotResults) {
		t.Errorf("want ErrNotResults, got %v", err)
	}
	if entries, _ := os.ReadDir(out); len(entries) > 0 {
		t.Errorf("a refused merge left %v", entries)
	}
}
