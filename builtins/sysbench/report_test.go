package sysbench_test

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/sysbench"
	"github.com/starbench/starbench/runner/results"
)

// result makes a result with known numbers.
func result(events int64, lat []time.Duration) *bench.Result {
	r := &bench.Result{Meta: results.Meta{Name: "oltp_read_write"}, Threads: 2, Elapsed: 2 * time.Second,
		Counts:     bench.Counts{Events: events, Reads: 14 * events, Writes: 4 * events, Others: 2 * events, Errors: 1},
		ErrorCodes: map[string]int64{"1213": 1}, Latency: bench.NewHistogram()}
	for _, d := range lat {
		_ = r.Latency.RecordValue(int64(d / time.Microsecond))
		r.SumLatency += d
		if r.MinLatency == 0 || d < r.MinLatency {
			r.MinLatency = d
		}
		if d > r.MaxLatency {
			r.MaxLatency = d
		}
	}
	r.PerThread = []bench.ThreadStats{{Events: events / 2, Busy: r.SumLatency / 2}, {Events: events - events/2, Busy: r.SumLatency / 2}}
	return r
}

func TestReportLayouts(t *testing.T) {
	lat := []time.Duration{2 * time.Millisecond, 3 * time.Millisecond, 5 * time.Millisecond, 40 * time.Millisecond}
	r := result(4, lat)
	var out bytes.Buffer
	o := sysbench.Defaults(sysbench.Profile1020)
	(&sysbench.Printer{W: &out, Opts: &o}).Report(r)
	want := `SQL statistics:
    queries performed:
        read:                            56
        write:                           16
        other:                           8
        total:                           80
    transactions:                        4      (2.00 per sec.)
    queries:                             80     (40.00 per sec.)
    ignored errors:                      1      (0.50 per sec.)
    reconnects:                          0      (0.00 per sec.)

General statistics:
    total time:                          2.0000s
    total number of events:              4

Latency (ms):
         min:                                    2.00
         avg:                                   12.50
         max:                                   40.00
         95th percentile:                       40.00
         sum:                                   50.00

Threads fairness:
    events (avg/stddev):           2.0000/0.00
    execution time (avg/stddev):   0.0250/0.00

`
	if out.String() != want {
		t.Errorf("1.0.20 report:\n%s\nwant:\n%s", out.String(), want)
	}

	out.Reset()
	m := sysbench.Defaults(sysbench.ProfileMaster)
	m.Percentile = 0
	(&sysbench.Printer{W: &out, Opts: &m}).Report(r)
	for _, line := range []string{
		"Throughput:\n    events/s (eps):                      2.0000\n    time elapsed:                        2.0000s\n    total number of events:              4\n",
		"         percentile stats:               disabled\n",
	} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("master report lacks %q:\n%s", line, out.String())
		}
	}
	if strings.Contains(out.String(), "General statistics") {
		t.Errorf("master prints Throughput, not General statistics")
	}

	out.Reset()
	o.Histogram, o.Percentile = true, 99
	(&sysbench.Printer{W: &out, Opts: &o}).Report(r)
	hist := regexp.MustCompile(`(?m)^ +(\d+\.\d{3}) \|(\**) *(\d+)$`).FindAllStringSubmatch(out.String(), -1)
	if len(hist) != 4 || hist[3][2] != strings.Repeat("*", 40) || !strings.HasPrefix(out.String(), "Latency histogram (values are in milliseconds)\n") ||
		!strings.Contains(out.String(), "         99th percentile:") {
		t.Errorf("histogram:\n%s", out.String())
	}
}

func TestIntervalLine(t *testing.T) {
	h := bench.NewHistogram()
	for i := int64(1); i <= 100; i++ {
		_ = h.RecordValue(i * 100)
	}
	iv := &bench.Interval{Start: 9 * time.Second, End: 10 * time.Second, Threads: 16,
		Counts: bench.Counts{Events: 1234, Reads: 17276, Writes: 4936, Others: 2468, Errors: 3}, Latency: h}
	var out bytes.Buffer
	o := sysbench.Defaults(sysbench.Profile1020)
	(&sysbench.Printer{W: &out, Opts: &o}).Interval(iv)
	want := "[ 10s ] thds: 16 tps: 1234.00 qps: 24680.00 (r/w/o: 17276.00/4936.00/2468.00) lat (ms,95%): 9.50 err/s: 3.00 reconn/s: 0.00\n"
	if out.String() != want {
		t.Errorf("got  %q\nwant %q", out.String(), want)
	}
}
