package sysbench_test

import (
	"bytes"
	"context"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/sysbench"
	"github.com/starbench/starbench/internal/testutil/benchtest"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
)

// benchmarkWorkload runs b.N events of a workload against the in-process
// responder: the engine's own ceiling and its allocations per event (the
// responder reuses its buffers, so allocations are the client's).
func benchmarkWorkload(b *testing.B, script string, threads int, configure func(*sysbench.Options)) {
	r, err := benchtest.Start()
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	conn := bench.NewSQLConnector(r.Config(), bench.PSAuto)
	o := sysbench.Defaults(sysbench.Profile1020)
	o.Threads, o.Time, o.Events, o.TableSize, o.Tables = threads, 0, int64(b.N), 10000, 4
	if configure != nil {
		configure(&o)
	}
	wl, err := sysbench.NewWorkload(script, o)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	start, cpu0 := time.Now(), processCPU(b)
	var mem0, mem1 runtime.MemStats
	runtime.ReadMemStats(&mem0)
	res, err := sysbench.Run(context.Background(), conn, wl, sysbench.RunOptions{Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	runtime.ReadMemStats(&mem1)
	if res.Counts.Events != int64(b.N) {
		b.Fatalf("%d events, want %d", res.Counts.Events, b.N)
	}
	queries := float64(res.Counts.Queries())
	b.ReportMetric(queries/time.Since(start).Seconds(), "queries/s")
	// Per core: client and responder together, so a ceiling for the
	// client alone.
	b.ReportMetric(queries/(processCPU(b)-cpu0).Seconds(), "queries/cpu-s")
	b.ReportMetric(float64(mem1.Mallocs-mem0.Mallocs)/queries, "allocs/query")
}

// processCPU is the process's user + system CPU time so far.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func BenchmarkPointSelect1Thread(b *testing.B) { benchmarkWorkload(b, "oltp_point_select", 1, nil) }
func BenchmarkPointSelect4Threads(b *testing.B) {
	benchmarkWorkload(b, "oltp_point_select", 4, nil)
}
func BenchmarkReadWrite1Thread(b *testing.B) { benchmarkWorkload(b, "oltp_read_write", 1, nil) }

// The statement generation alone: one oltp_read_write event's values
// (ids, c and pad strings) without I/O.
func BenchmarkRandString(b *testing.B) {
	o := sysbench.Defaults(sysbench.Profile1020)
	r := sysbench.NewRand(1, &o)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = r.String(sysbench.CTemplate)
	}
}

// Against a private MariaDB: the real round trip, for profiling the client
// (go test -bench MariaDB -cpuprofile cpu.out).
func BenchmarkPointSelectMariaDB(b *testing.B) {
	m := sandboxtest.Shared(b)
	ctx := context.Background()
	conn := bench.NewSQLConnector(m.Config(), bench.PSAuto)
	o := sysbench.Defaults(sysbench.Profile1020)
	o.Threads, o.Time, o.TableSize, o.Tables = 1, 0, 10000, 1
	s, _ := sysbench.LookupScript("oltp_point_select")
	var out bytes.Buffer
	if _, err := sysbench.Prepare(ctx, conn, s, &o, 1, sysbench.PrepareMode{IfExists: sysbench.IfExistsReuse}, &out); err != nil {
		b.Fatal(err)
	}
	o.Events = int64(b.N)
	wl, _ := sysbench.NewWorkload("oltp_point_select", o)
	b.ReportAllocs()
	b.ResetTimer()
	if _, err := sysbench.Run(ctx, conn, wl, sysbench.RunOptions{Seed: 1}); err != nil {
		b.Fatal(err)
	}
}
