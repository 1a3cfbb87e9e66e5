package results

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"slices"
	"sync"
	"testing"
	"time"
)

// longPart writes a step folder of a TPC-C-like part of n one-second
// intervals as synthPart (merge_test.go) makes them, 50–99 latencies an
// interval, each interval's untagged histogram followed by its kinds'
// (the latencies shared out among them; one kind: all of them in it) and
// its service times'. It writes through the merge's own stream writer, in
// the layout WriteStep gives (TestMergeStreamsWhatTheOldMergeWrote checks
// the two agree), since WriteStep would hold 184 KB a histogram for all
// of a six-hour part's intervals at once.
func longPart(b *testing.B, dir, workload string, start time.Time, seed uint64, n int, kinds []string) {
	b.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	out, err := createStepStream(dir, workload, start)
	if err != nil {
		b.Fatal(err)
	}
	defer out.abort()
	g, err := newHistGeom(1, 3600e6, 3)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	all, svc := &sparseHist{}, &sparseHist{}
	kh := make([]*sparseHist, len(kinds))
	for k := range kh {
		kh[k] = &sparseHist{}
	}
	var vals, svcVals []int64
	kvals := make([][]int64, len(kinds))
	var events, sumUS int64
	minUS, maxUS := int64(1<<62), int64(0)
	for i := range n {
		vals, svcVals = vals[:0], svcVals[:0]
		for k := range kvals {
			kvals[k] = kvals[k][:0]
		}
		count := 50 + rng.IntN(50)
		for range count {
			v := int64(100 + rng.IntN(20000)*(1+int(seed%3)))
			vals, svcVals = append(vals, v), append(svcVals, v/2)
			k := rng.IntN(len(kinds))
			kvals[k] = append(kvals[k], v)
			sumUS += v
			minUS, maxUS = min(minUS, v), max(maxUS, v)
		}
		events += int64(count)
		from, to := time.Duration(i)*time.Second, time.Duration(i+1)*time.Second
		sparseOf(g, vals, all)
		if err := out.interval("", from, to, all); err != nil {
			b.Fatal(err)
		}
		for k, name := range kinds {
			sparseOf(g, kvals[k], kh[k])
			if err := out.interval(KindTag(name), from, to, kh[k]); err != nil {
				b.Fatal(err)
			}
		}
		sparseOf(g, svcVals, svc)
		if err := out.interval(ServiceTag, from, to, svc); err != nil {
			b.Fatal(err)
		}
		if err := out.row(Interval{Time: to.Seconds(), Threads: 8, Events: int64(count), TPS: float64(count), QPS: float64(2 * count)}); err != nil {
			b.Fatal(err)
		}
	}
	if err := out.commit(); err != nil {
		b.Fatal(err)
	}
	ms := func(us int64) float64 { return float64(us) / 1000 }
	lat := LatencySummary{MinMS: ms(minUS), MaxMS: ms(maxUS), SumMS: ms(sumUS), AvgMS: ms(sumUS) / float64(events)}
	sum := &Summary{Workload: Meta{Name: workload, Version: "v1"}, Started: start, Threads: 8, Seconds: float64(n),
		Stopped: "time", Status: StatusCompleted, Events: events, Queries: 2 * events, TPS: float64(events) / float64(n),
		Latency: lat, IntervalSeconds: 1, PlannedSeconds: float64(n), Rate: 100, ServiceLatency: &LatencySummary{},
		Metrics: map[string]float64{"tpmC": 10, "efficiency": 50}}
	for _, name := range kinds {
		sum.Kinds = append(sum.Kinds, KindSummary{Name: name, Events: events / int64(len(kinds)), Latency: lat})
	}
	if err := WriteJSON(filepath.Join(dir, SummaryFile), sum); err != nil {
		b.Fatal(err)
	}
}

// sparseOf sets h to the histogram of vals in geometry g.
func sparseOf(g *histGeom, vals []int64, h *sparseHist) {
	h.reset(g, 1)
	idx := make([]int32, 0, len(vals))
	for _, v := range vals {
		idx = append(idx, int32(g.indexOf(v)))
	}
	slices.Sort(idx)
	for _, i := range idx {
		if n := len(h.idx); n > 0 && h.idx[n-1] == i {
			h.cnt[n-1]++
		} else {
			h.idx, h.cnt = append(h.idx, i), append(h.cnt, 1)
		}
		h.total++
	}
}

// peakHeap samples the heap (runtime/metrics, without stopping the
// world) every millisecond until stopped, and returns the largest heap of
// live objects a garbage collection found and the largest heap of objects
// (live and not yet collected) seen.
func peakHeap() (stop func() (live, objects uint64)) {
	var live, objects uint64
	samples := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/heap/objects:bytes"}}
	var mu sync.Mutex
	read := func() {
		metrics.Read(samples)
		mu.Lock()
		live, objects = max(live, samples[0].Value.Uint64()), max(objects, samples[1].Value.Uint64())
		mu.Unlock()
	}
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				read()
			}
		}
	}()
	return func() (uint64, uint64) {
		close(done)
		<-finished
		read()
		return live, objects
	}
}

// BenchmarkMergeLong merges three parts of one hour and of six hours at
// one-second intervals (21,600 intervals each), TPC-C-like: a kind's
// histogram and a service-time histogram beside each interval, as the
// tests build them, and with TPC-C's five kinds. Beside the time and the
// bytes allocated it reports the heap sampled during the merges:
// peak-live-MB, the most a garbage collection found live, and
// peak-heap-MB, the most held (live and garbage not yet collected), both
// flat in the number of intervals when the merge streams.
//
//	go test ./runner/results -run X -bench MergeLong -benchtime 1x
func BenchmarkMergeLong(b *testing.B) {
	tpcc := []string{"new_order", "payment", "order_status", "delivery", "stock_level"}
	for _, c := range []struct {
		name  string
		n     int
		kinds []string
	}{
		{"1h", 3600, tpcc[:1]},
		{"6h", 21600, tpcc[:1]},
		{"6h-5kinds", 21600, tpcc},
	} {
		b.Run(c.name, func(b *testing.B) {
			root := b.TempDir()
			start := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
			var parts []MergePart
			for i := range 3 {
				dir := filepath.Join(root, fmt.Sprintf("p%d", i+1))
				longPart(b, dir, "tpcc", start.Add(time.Duration(i*7)*time.Millisecond), uint64(i+1), c.n, c.kinds)
				parts = append(parts, MergePart{Name: fmt.Sprintf("p%d", i+1), Dir: dir})
			}
			out := filepath.Join(root, "merged")
			runtime.GC()
			stop := peakHeap()
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				sum, err := Merge(out, parts, MergeOptions{})
				if err != nil {
					b.Fatal(err)
				}
				if sum.Events == 0 {
					b.Fatal("no events merged")
				}
			}
			b.StopTimer()
			live, objects := stop()
			b.ReportMetric(float64(live)/1e6, "peak-live-MB")
			b.ReportMetric(float64(objects)/1e6, "peak-heap-MB")
		})
	}
}
