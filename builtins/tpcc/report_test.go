package tpcc

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/runner/results"
)

// The output reads as go-tpc's: [Summary] lines by name, with the _ERR
// twin where some failed, then tpmC and efficiency, and tpmTotal.
func TestPrinterLayout(t *testing.T) {
	kind := func(name string, events, errors int64, lats ...int64) bench.KindResult {
		h := bench.NewHistogram()
		var sum time.Duration
		for _, us := range lats {
			h.RecordValue(us)
			sum += time.Duration(us) * time.Microsecond
		}
		return bench.KindResult{Name: name, KindCounts: bench.KindCounts{Events: events, Errors: errors}, Latency: h,
			MinLatency: time.Duration(lats[0]) * time.Microsecond, MaxLatency: time.Duration(lats[len(lats)-1]) * time.Microsecond, SumLatency: sum}
	}
	res := &bench.Result{Elapsed: 10 * time.Second, Kinds: []bench.KindResult{
		kind("new_order", 4, 1, 1000, 2000, 3000, 4000),
		kind("payment", 2, 0, 500, 1500),
	}}
	var b bytes.Buffer
	(&Printer{W: &b, Warehouses: 1}).Report(res)
	want := []string{
		"[Summary] NEW_ORDER - Takes(s): 10.0, Count: 4, TPM: 24.0, Sum(ms): 10.0, Avg(ms): 2.5, 50th(ms): 2.0, 90th(ms): 4.0, 95th(ms): 4.0, 99th(ms): 4.0, 99.9th(ms): 4.0, Max(ms): 4.0",
		"[Summary] NEW_ORDER_ERR - Takes(s): 10.0, Count: 1, TPM: 6.0",
		"[Summary] PAYMENT - Takes(s): 10.0, Count: 2, TPM: 12.0, Sum(ms): 2.0, Avg(ms): 1.0, 50th(ms): 0.5, 90th(ms): 1.5, 95th(ms): 1.5, 99th(ms): 1.5, 99.9th(ms): 1.5, Max(ms): 1.5",
		"tpmC: 24.0, efficiency: 186.6%",
		"tpmTotal: 36.0",
	}
	if got := strings.TrimSpace(b.String()); got != strings.Join(want, "\n") {
		t.Errorf("output:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	var sum results.Summary
	FiguresOf(res, 1).Annotate(&sum)
	if sum.Metrics["tpmC"] != 24 || sum.Metrics["tpmTotal"] != 36 || sum.Metrics["efficiency"] < 186.6 || sum.Metrics["efficiency"] > 186.7 {
		t.Errorf("metrics %v", sum.Metrics)
	}
}
