package results_test

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/starbench/starbench/runner/results"
)

// synthPart writes a step folder of a part that recorded values (µs) in
// intervals of one second from start, with a kind's histogram and a
// service histogram beside each interval, and returns the values.
func synthPart(t testing.TB, dir, workload string, start time.Time, threads int, seed uint64, intervals int) []int64 {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	var all []int64
	var rows []results.Interval
	var lat []results.LatencyInterval
	var sumUS, minUS, maxUS int64 = 0, 1 << 62, 0
	for i := range intervals {
		h, k, svc := hdr.New(1, 3600e6, 3), hdr.New(1, 3600e6, 3), hdr.New(1, 3600e6, 3)
		n := 50 + rng.IntN(50)
		for range n {
			v := int64(100 + rng.IntN(20000)*(1+int(seed%3)))
			h.RecordValue(v)
			k.RecordValue(v)
			svc.RecordValue(v / 2)
			all = append(all, v)
			sumUS += v
			minUS, maxUS = min(minUS, v), max(maxUS, v)
		}
		from, to := time.Duration(i)*time.Second, time.Duration(i+1)*time.Second
		lat = append(lat, results.LatencyInterval{Start: from, End: to, Histogram: h},
			results.LatencyInterval{Start: from, End: to, Tag: results.KindTag("new_order"), Histogram: k},
			results.LatencyInterval{Start: from, End: to, Tag: results.ServiceTag, Histogram: svc})
		rows = append(rows, results.Interval{Time: to.Seconds(), Threads: threads, Events: int64(n), TPS: float64(n), QPS: float64(2 * n)})
	}
	events := int64(len(all))
	ms := func(us int64) float64 { return float64(us) / 1000 }
	sum := &results.Summary{Workload: results.Meta{Name: workload, Version: "v1"}, Started: start, Threads: threads,
		Seconds: float64(intervals), Stopped: "time", Status: results.StatusCompleted, Events: events, Queries: 2 * events,
		Reads: 2 * events, ErrorsByCode: map[string]int64{"1213": int64(seed)}, Errors: int64(seed),
		TPS: float64(events) / float64(intervals), QPS: float64(2*events) / float64(intervals),
		Latency:         results.LatencySummary{MinMS: ms(minUS), MaxMS: ms(maxUS), SumMS: ms(sumUS), AvgMS: ms(sumUS) / float64(events)},
		IntervalSeconds: 1, PlannedSeconds: float64(intervals), Rate: 100, ServiceLatency: &results.LatencySummary{},
		Kinds: []results.KindSummary{{Name: "new_order", Events: events,
			Latency: results.LatencySummary{MinMS: ms(minUS), MaxMS: ms(maxUS), SumMS: ms(sumUS)}}},
		Metrics:  map[string]float64{"tpmC": 10, "efficiency": 50},
		Fairness: results.Fairness{EventsAvg: float64(events) / float64(threads)},
		Tags:     map[string]string{"version": "v1", "server": workload + string(rune('a'+seed))},
	}
	if err := results.WriteStep(dir, results.Step{Summary: sum, Intervals: rows, Latency: lat}); err != nil {
		t.Fatal(err)
	}
	return all
}

// Merged counts are the parts' sums, and the merged percentiles are those
// of one histogram fed every value every part recorded.
func TestMergeIsExact(t *testing.T) {
	root := t.TempDir()
	start := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	var parts []results.MergePart
	var values []int64
	var events int64
	for i, skew := range []time.Duration{0, 7 * time.Millisecond, 3 * time.Millisecond} {
		dir := filepath.Join(root, string(rune('a'+i)))
		vals := synthPart(t, dir, "oltp_point_select", start.Add(skew), 2+i, uint64(i+1), 5)
		values = append(values, vals...)
		events += int64(len(vals))
		parts = append(parts, results.MergePart{Name: string(rune('a' + i)), Dir: dir})
	}
	out := filepath.Join(root, "merged")
	s, err := results.Merge(out, parts, results.MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	intervals, err := results.ReadIntervals(out)
	if err != nil {
		t.Fatal(err)
	}
	if s.Events != events || s.Queries != 2*events || s.Threads != 2+3+4 || s.ErrorsByCode["1213"] != 1+2+3 || s.Errors != 6 {
		t.Errorf("merged counts: events %d (want %d), queries %d, threads %d, errors %v", s.Events, events, s.Queries, s.Threads, s.ErrorsByCode)
	}
	one := hdr.New(1, 3600e6, 3)
	var minUS, maxUS, sumUS int64 = 1 << 62, 0, 0
	for _, v := range values {
		one.RecordValue(v)
		minUS, maxUS, sumUS = min(minUS, v), max(maxUS, v), sumUS+v
	}
	for _, p := range results.SummaryPercentiles {
		want := float64(one.ValueAtPercentile(p)) / 1000
		want = min(max(want, float64(minUS)/1000), float64(maxUS)/1000)
		if got := s.Latency.Percentiles[results.PercentileKey(p)]; got != want {
			t.Errorf("p%v: merged %v, one histogram of every value %v", p, got, want)
		}
		if got := s.Kinds[0].Latency.Percentiles[results.PercentileKey(p)]; got != want {
			t.Errorf("new_order p%v: merged %v, want %v", p, got, want)
		}
	}
	if s.Latency.MinMS != float64(minUS)/1000 || s.Latency.MaxMS != float64(maxUS)/1000 || s.Latency.SumMS != float64(sumUS)/1000 {
		t.Errorf("merged extremes %+v, want min %d max %d sum %d µs", s.Latency, minUS, maxUS, sumUS)
	}
	if s.Metrics["tpmC"] != 30 || s.Metrics["efficiency"] != 0 || s.Rate != 300 || s.ServiceLatency == nil || s.ServiceLatency.Percentiles["50"] == 0 {
		t.Errorf("merged metrics %v, rate %v, service %+v", s.Metrics, s.Rate, s.ServiceLatency)
	}
	if s.Tags["version"] != "v1" || s.Tags["server"] != "" || len(s.Parts) != 3 || s.Parts[2].Dir != filepath.Join("parts", "3-c") {
		t.Errorf("merged tags %v, parts %+v", s.Tags, s.Parts)
	}
	// Intervals: five on the common clock, each the sum of the parts'.
	if len(intervals) != 5 {
		t.Fatalf("%d merged intervals, want 5: %+v", len(intervals), intervals)
	}
	var rowEvents int64
	for _, r := range intervals {
		rowEvents += r.Events
		if r.Threads != 9 {
			t.Errorf("merged interval %+v: threads", r)
		}
	}
	if rowEvents != events {
		t.Errorf("merged intervals hold %d events, want %d", rowEvents, events)
	}
	// Finished and read back, the merged folder merges again to itself.
	if err := results.FinishStep(out, s, nil); err != nil {
		t.Fatal(err)
	}
	again, err := results.Merge(filepath.Join(root, "again"), []results.MergePart{{Name: "m", Dir: out}}, results.MergeOptions{})
	if err != nil || again.Events != events || again.Latency.Percentiles["99"] != s.Latency.Percentiles["99"] {
		t.Errorf("merge of the merged folder: %v, %+v", err, again)
	}
}

// Parts that cannot make one honest result are refused as ErrCannotMerge.
func TestMergeRefusesUnlikeParts(t *testing.T) {
	root := t.TempDir()
	start := time.Now()
	a, b, c := filepath.Join(root, "a"), filepath.Join(root, "b"), filepath.Join(root, "c")
	synthPart(t, a, "oltp_point_select", start, 1, 1, 3)
	synthPart(t, b, "tpcc", start, 1, 2, 3)
	synthPart(t, c, "oltp_point_select", start, 1, 3, 4) // planned for 4 s
	out := filepath.Join(root, "out")
	for name, parts := range map[string][]string{"workloads": {a, b}, "durations": {a, c}} {
		mp := []results.MergePart{{Name: "1", Dir: parts[0]}, {Name: "2", Dir: parts[1]}}
		if _, err := results.Merge(out, mp, results.MergeOptions{}); !errors.Is(err, results.ErrCannotMerge) {
			t.Errorf("%s: want ErrCannotMerge, got %v", name, err)
		}
		if err := results.CheckMerge(mp, results.MergeOptions{}); !errors.Is(err, results.ErrCannotMerge) {
			t.Errorf("%s: CheckMerge: want ErrCannotMerge, got %v", name, err)
		}
		if entries, _ := os.ReadDir(out); len(entries) > 0 {
			t.Errorf("%s: a refused merge left %d files", name, len(entries))
		}
	}
	if _, err := results.Merge(out, []results.MergePart{{Name: "1", Dir: a}, {Name: "2", Dir: b}}, results.MergeOptions{Force: true}); err != nil {
		t.Errorf("forced merge of two workloads: %v", err)
	}
	if _, err := results.Merge(out, []results.MergePart{{Name: "1", Dir: filepath.Join(root, "none")}}, results.MergeOptions{}); !errors.Is(err, results.ErrNotResults) {
		t.Errorf("a missing folder: want ErrNotResults, got %v", err)
	}
}

// BenchmarkMerge merges three parts of 300 one-second intervals, each
// with a kind's and a service histogram beside it (a 5-minute TPC-C
// step under a rate, three times).
func BenchmarkMerge(b *testing.B) {
	root := b.TempDir()
	var parts []results.MergePart
	for i := range 3 {
		dir := filepath.Join(root, string(rune('a'+i)))
		synthPart(b, dir, "tpcc", time.Now(), 8, uint64(i+1), 300)
		parts = append(parts, results.MergePart{Name: string(rune('a' + i)), Dir: dir})
	}
	out := filepath.Join(root, "merged")
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := results.Merge(out, parts, results.MergeOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// Every intervals.csv row finds its interval in latency.hlog, whatever the
// sub-millisecond parts of the step's start and the intervals' ends (the
// row's time is rounded, the log's times truncated and read back through
// floating-point seconds).
func TestMergeKeepsEveryIntervalRow(t *testing.T) {
	root := t.TempDir()
	for i := range 40 {
		start := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC).Add(time.Duration(i*25013) * time.Microsecond)
		var rows []results.Interval
		var lat []results.LatencyInterval
		var events int64
		for k := range 3 {
			from := time.Duration(k)*time.Second + time.Duration(k*977+i*13)*time.Microsecond
			to := time.Duration(k+1)*time.Second + time.Duration((k+1)*977+i*13)*time.Microsecond
			h := hdr.New(1, 3600e6, 3)
			h.RecordValue(1000)
			lat = append(lat, results.LatencyInterval{Start: from, End: to, Histogram: h})
			rows = append(rows, results.Interval{Time: to.Seconds(), Threads: 1, Events: 1, TPS: 1})
			events++
		}
		sum := &results.Summary{Workload: results.Meta{Name: "w"}, Started: start, Threads: 1, Events: events, Status: results.StatusCompleted,
			Latency: results.LatencySummary{MinMS: 1, MaxMS: 1, SumMS: 3}, IntervalSeconds: 1}
		dir := filepath.Join(root, string(rune('a'+i)))
		if err := results.WriteStep(dir, results.Step{Summary: sum, Intervals: rows, Latency: lat}); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "merged")
		if _, err := results.Merge(out, []results.MergePart{{Name: "p", Dir: dir}}, results.MergeOptions{}); err != nil {
			t.Fatal(err)
		}
		merged, err := results.ReadIntervals(out)
		if err != nil {
			t.Fatal(err)
		}
		if len(merged) != 3 {
			t.Errorf("start +%v: %d merged rows of 3: %+v", start.Sub(start.Truncate(time.Second)), len(merged), merged)
		}
	}
}
