package telemetry

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"

	"github.com/starbench/starbench/internal/testutil/exportertest"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
)

func TestMain(m *testing.M) { sandboxtest.Main(m) }

// readTwice reads a source, waits, reads again and returns the point.
func readTwice(t *testing.T, src Source, between func()) map[string]float64 {
	v, _ := readTwiceTotals(t, src, between)
	return v
}

// readTwiceTotals is readTwice with each counter's growth between the two
// readings.
func readTwiceTotals(t *testing.T, src Source, between func()) (map[string]float64, map[string]float64) {
	t.Helper()
	var r rater
	if d, ok := src.(Deriver); ok {
		r.derive = d.Derive
	}
	for i := 0; i < 2; i++ {
		reading, err := src.Read(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if v, ok := r.next(reading); ok {
			return v, r.totals
		}
		between()
	}
	return nil, nil
}

// node_exporter's CPU seconds by mode, rated: together they are the
// host's CPUs (every CPU spends each second in some mode).
func TestPrometheusNodeExporter(t *testing.T) {
	e := exportertest.NodeExporter(t)
	src, err := NewPrometheus("node", e.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	v := readTwice(t, src, func() { time.Sleep(2 * time.Second) })
	all := 0.0
	modes := 0
	for name, x := range v {
		if strings.HasPrefix(name, "node_cpu_seconds_total{mode=") && strings.HasSuffix(name, "}/s") {
			all += x
			modes++
		}
	}
	if modes < 4 || math.Abs(all-float64(runtime.NumCPU())) > 0.2*float64(runtime.NumCPU()) {
		t.Errorf("the CPU modes' seconds a second add up to %.2f over %d modes, want about %d CPUs: %v", all, modes, runtime.NumCPU(), v)
	}
	if v["process_resident_memory_bytes"] <= 0 || v["node_memory_MemAvailable_bytes"] <= 0 {
		t.Errorf("gauges: %v", v)
	}
	if _, ok := v["node_disk_written_bytes_total/s"]; !ok {
		t.Errorf("no disk rate: %v", v)
	}
}

// mysqld_exporter's select counter grows by the selects a client sent
// between two readings (and the few of the exporter's own).
func TestPrometheusMySQLdExporter(t *testing.T) {
	m := sandboxtest.Shared(t)
	e := exportertest.MySQLdExporter(t, m.Config().FormatDSN())
	src, err := NewPrometheus("mysqld", e.URL, []string{`mysql_global_status_commands_total{command="select"}`, "mysql_up"})
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("mysql", m.Config().FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const selects = 500
	var r rater
	first, err := src.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r.next(first)
	for i := 0; i < selects; i++ {
		var one int
		if err := db.QueryRow("SELECT 1").Scan(&one); err != nil {
			t.Fatal(err)
		}
	}
	second, err := src.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	v, _ := r.next(second)
	got := r.totals[`mysql_global_status_commands_total`]
	if got < selects || got > selects+50 {
		t.Errorf("the server counted %v selects, the client sent %d: %v", got, selects, v)
	}
	if v["mysql_up"] != 1 {
		t.Errorf("mysql_up %v", v["mysql_up"])
	}
}

// The status source's Com_select grows by the client's selects; its
// gauges stay gauges.
func TestStatusCountsTheClientsSelects(t *testing.T) {
	m := sandboxtest.Shared(t)
	connector, err := mysql.NewConnector(m.Config())
	if err != nil {
		t.Fatal(err)
	}
	src := NewStatus("status", "test", sql.OpenDB(connector), nil)
	defer src.Close()
	db, err := sql.Open("mysql", m.Config().FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const selects = 300
	v, totals := readTwiceTotals(t, src, func() {
		for i := 0; i < selects; i++ {
			var one int
			if err := db.QueryRow("SELECT 1").Scan(&one); err != nil {
				t.Fatal(err)
			}
		}
	})
	got, ok := v["Com_select/s"]
	if !ok || v["Threads_connected"] < 2 {
		t.Fatalf("point %v", v)
	}
	if _, rated := v["Threads_connected/s"]; rated {
		t.Errorf("a gauge was rated: %v", v)
	}
	// The server's count grows by the client's selects (and the few the
	// driver and the shared server's other clients may add), the rate is
	// that count over the interval.
	if n := totals["Com_select"]; n < selects || n > selects+50 || got <= 0 {
		t.Errorf("Com_select grew by %v (%v/s) while the client sent %d selects", n, got, selects)
	}
}

// tikvLike is an exposition of TiKV's size and shape (its /metrics is
// megabytes: thousands of histogram series by thread, command and store),
// written by the Prometheus client library's own encoder.
func tikvLike(t testing.TB) []byte {
	reg := prometheus.NewRegistry()
	hist := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "tikv_grpc_msg_duration_seconds", Help: "gRPC message duration.",
		Buckets: prometheus.ExponentialBuckets(0.0005, 2, 20)}, []string{"type"})
	other := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "tikv_storage_engine_async_request_duration_seconds",
		Help: "Storage request duration.", Buckets: prometheus.ExponentialBuckets(0.0005, 2, 20)}, []string{"type", "store", "thread"})
	cpu := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tikv_thread_cpu_seconds_total", Help: "Thread CPU."}, []string{"name", "tid"})
	gauge := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "tikv_engine_size_bytes", Help: "Engine size."}, []string{"db", "cf", "level"})
	reg.MustRegister(hist, other, cpu, gauge)
	for i := 0; i < 40; i++ {
		hist.WithLabelValues(fmt.Sprintf("kv_cmd_%d", i)).Observe(0.001 * float64(i+1))
	}
	for i := 0; i < 1700; i++ {
		other.WithLabelValues(fmt.Sprintf("snapshot_%d", i%30), fmt.Sprintf("%d", i%5), fmt.Sprintf("t%d", i)).Observe(0.002)
	}
	for i := 0; i < 300; i++ {
		cpu.WithLabelValues(fmt.Sprintf("grpc-server-%d", i%64), fmt.Sprintf("%d", 10000+i)).Add(float64(i))
	}
	for i := 0; i < 600; i++ {
		gauge.WithLabelValues("kv", fmt.Sprintf("cf%d", i%4), fmt.Sprintf("%d", i)).Set(float64(i))
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	enc := expfmt.NewEncoder(&buf, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range families {
		if err := enc.Encode(mf); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// The default metrics of a TiKV-sized exposition: only their families are
// parsed, and their sums are right.
func TestPrometheusLargeExposition(t *testing.T) {
	body := tikvLike(t)
	if len(body) < 2<<20 {
		t.Fatalf("the exposition is %d bytes, want megabytes", len(body))
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(body) }))
	defer srv.Close()
	src, err := NewPrometheus("tikv", srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := src.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := r.Counters["tikv_thread_cpu_seconds_total"], float64(299*300/2); got != want {
		t.Errorf("CPU seconds of every thread %v, want %v", got, want)
	}
	h := r.Histograms["tikv_grpc_msg_duration_seconds"]
	if h.Counts[len(h.Counts)-1] != 40 || len(h.Bounds) != 20 {
		t.Errorf("gRPC histogram %+v", h)
	}
	if _, parsed := r.Gauges["tikv_engine_size_bytes"]; parsed {
		t.Error("a metric that was not asked for was kept")
	}
}

// BenchmarkPrometheusLargeExposition is the sampler's cost on a
// TiKV-sized exposition: CPU ms a reading, against a budget of 1% of a
// CPU at one reading a second (10 ms).
func BenchmarkPrometheusLargeExposition(b *testing.B) {
	body := tikvLike(b)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(body) }))
	defer srv.Close()
	src, err := NewPrometheus("tikv", srv.URL, nil)
	if err != nil {
		b.Fatal(err)
	}
	var before, after syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := src.Read(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	cpu := time.Duration(after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano())
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/read")
	b.ReportMetric(float64(len(body))/1e6, "MB")
}
