package sysbench_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/builtins/sysbench"
	"github.com/starbench/starbench/internal/mysqlconn"
	"github.com/starbench/starbench/internal/sandbox"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
)

// faultRun prepares a table on a fresh server and runs a workload in the
// background; the returned channel yields the result.
type runOutcome struct {
	res *bench.Result
	err error
	out string
}

func startRun(t *testing.T, m *sandbox.MariaDB, script string, o sysbench.Options) <-chan runOutcome {
	t.Helper()
	ctx := context.Background()
	s, _ := sysbench.LookupScript(script)
	conn := bench.NewSQLConnector(m.Config(), bench.PSAuto)
	var prep bytes.Buffer
	if _, err := sysbench.Prepare(ctx, conn, s, &o, 1, sysbench.PrepareMode{IfExists: sysbench.IfExistsDrop}, &prep); err != nil {
		t.Fatal(err)
	}
	wl, err := sysbench.NewWorkload(script, o)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan runOutcome, 1)
	go func() {
		var out bytes.Buffer
		p := &sysbench.Printer{W: &out, Opts: &wl.Options}
		res, err := sysbench.Run(ctx, conn, wl, sysbench.RunOptions{Seed: 1, Printer: p})
		done <- runOutcome{res, err, out.String()}
	}()
	return done
}

// The server is killed (SIGKILL) and restarted during a 20 s run at 8
// threads (blocking sockets) and at more than mysqlconn.BlockingIO allows
// (the netpoller): the run finishes, every thread reconnects, the lost
// statements are counted by code, and the intervals show the outage.
func TestServerKilledAndRestartedDuringARun(t *testing.T) {
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{})
	many := 8
	for mysqlconn.BlockingIO(many) {
		many++
	}
	for _, threads := range []int{8, many} {
		t.Run(fmt.Sprintf("threads=%d,blocking=%v", threads, mysqlconn.BlockingIO(threads)), func(t *testing.T) {
			killAndRestart(t, m, threads)
		})
	}
}

func killAndRestart(t *testing.T, m *sandbox.MariaDB, threads int) {
	o := sysbench.Defaults(sysbench.Profile1020)
	o.Threads, o.Time, o.ReportInterval, o.TableSize = threads, 20, 1, 1000
	done := startRun(t, m, "oltp_read_only", o)
	time.Sleep(5 * time.Second)
	killedAt := time.Now()
	if err := m.Kill(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second)
	restartAt := time.Now() // the server cannot answer before this
	if err := m.Restart(context.Background()); err != nil {
		t.Fatal(err)
	}
	backAt := time.Now()
	r := <-done
	if r.err != nil {
		t.Fatalf("the run failed: %v\n%s", r.err, r.out)
	}
	c := r.res.Counts
	if c.Reconnects < int64(threads) || r.res.ErrorCodes[bench.LostCode] < int64(threads) || c.Events == 0 {
		t.Fatalf("reconnects %d, errors by code %v, events %d", c.Reconnects, r.res.ErrorCodes, c.Events)
	}
	// The intervals on the run's clock, placed on the wall clock (the run
	// starts once its connections are made, a moment after startRun).
	var before, during, after int64
	outage := 0 // intervals inside the outage
	for _, iv := range r.res.Intervals {
		start, end := r.res.StartTime.Add(iv.Start), r.res.StartTime.Add(iv.End)
		switch {
		case !end.After(killedAt):
			before += iv.Counts.Events
		case start.After(killedAt.Add(time.Second)) && !end.After(restartAt):
			during += iv.Counts.Events
			outage++
		case start.After(backAt.Add(3 * time.Second)):
			after += iv.Counts.Events
		}
	}
	if before == 0 || outage == 0 || during != 0 || after == 0 {
		t.Errorf("events before %d, during the outage %d (%d intervals), after %d", before, during, outage, after)
	}
	if !strings.Contains(r.out, "reconn/s: ") || !regexpMatch(`reconn/s: [1-9]`, r.out) {
		t.Errorf("no interval line shows the reconnects:\n%s", r.out)
	}
	dir := t.TempDir()
	sum := bench.Summarize(r.res, o.Percentile)
	if err := bench.WriteResults(dir, r.res, sum, nil); err != nil {
		t.Fatal(err)
	}
	t.Logf("server killed at 5 s, back at 8 s: %d events, %d reconnects, errors by code %v, by statement %v",
		c.Events, c.Reconnects, r.res.ErrorCodes, r.res.ErrorKinds)
}

// A table dropped mid-run stops the run with a clear error naming the
// statement and the table.
func TestTableDroppedMidRun(t *testing.T) {
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{})
	o := sysbench.Defaults(sysbench.Profile1020)
	o.Threads, o.Time, o.TableSize = 4, 20, 1000
	done := startRun(t, m, "oltp_point_select", o)
	time.Sleep(time.Second)
	admin, err := db.Open(context.Background(), m.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.Exec(context.Background(), "DROP TABLE sbtest1"); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err == nil {
		t.Fatal("the run went on without its table")
	}
	for _, want := range []string{"1146", "sbtest1", "[statement: SELECT c FROM sbtest1 WHERE id=?]"} {
		if !strings.Contains(r.err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, r.err)
		}
	}
	if r.res == nil || r.res.Counts.Events == 0 {
		t.Errorf("no partial result")
	}
	t.Logf("table dropped after 1 s: %v", r.err)
}

// A server that never comes back ends the run after the bounded retry,
// with a partial result.
func TestServerNeverComesBack(t *testing.T) {
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{})
	o := sysbench.Defaults(sysbench.Profile1020)
	o.Threads, o.Time, o.TableSize, o.ReconnectTimeout = 4, 60, 1000, 3
	start := time.Now()
	done := startRun(t, m, "oltp_point_select", o)
	time.Sleep(time.Second)
	m.Kill()
	r := <-done
	took := time.Since(start)
	if r.err == nil || !strings.Contains(r.err.Error(), "could not reconnect within 3s") {
		t.Fatalf("want a reconnect timeout, got %v", r.err)
	}
	if took > 15*time.Second {
		t.Errorf("the run took %s to give up", took)
	}
	if r.res == nil || r.res.Counts.Events == 0 || r.res.ErrorCodes[bench.LostCode] == 0 {
		t.Errorf("partial result: %+v", r.res)
	}
	t.Logf("server gone at 1 s: the run gave up after %s: %v", took.Round(100*time.Millisecond), r.err)
}

// Open loop: events are scheduled at the rate; latency counts from the
// scheduled start, so a saturated server shows it, while service time does
// not; a full backlog drops events without aborting the run.
func TestOpenLoopRate(t *testing.T) {
	m := sandboxtest.Shared(t)
	o := sysbench.Defaults(sysbench.Profile1020)
	o.Threads, o.Time, o.TableSize, o.Rate, o.ReportInterval = 4, 3, 1000, 300, 1
	r := <-startRun(t, m, "oltp_point_select", o)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if n := r.res.Counts.Events; n < 700 || n > 1100 {
		t.Errorf("%d events at 300/s for 3 s", n)
	}
	sum := bench.Summarize(r.res, 95)
	if sum.ServiceLatency == nil || sum.Rate != 300 || r.res.Dropped != 0 {
		t.Errorf("summary: rate %v service %v dropped %d", sum.Rate, sum.ServiceLatency, r.res.Dropped)
	}
	for _, want := range []string{"Target transaction rate: 300/sec", "] queue length: ", "Service time (ms", "    target rate:"} {
		if !strings.Contains(r.out, want) {
			t.Errorf("output lacks %q:\n%s", want, r.out)
		}
	}

	// Saturated: far more than one thread can serve.
	o.Threads, o.Rate, o.Time = 1, 20000, 3
	r = <-startRun(t, m, "oltp_read_only", o)
	if r.err != nil {
		t.Fatal(r.err)
	}
	s := bench.Summarize(r.res, 99)
	if r.res.Dropped == 0 || r.res.Late == 0 {
		t.Errorf("saturated: dropped %d late %d", r.res.Dropped, r.res.Late)
	}
	if resp, svc := s.Latency.Percentiles["99"], s.ServiceLatency.Percentiles["99"]; resp < 10*svc {
		t.Errorf("p99 response %.2f ms should dwarf p99 service %.2f ms under saturation", resp, svc)
	}
	t.Logf("saturated at 20000/s: %d events, %d late, %d dropped, p99 response %.1f ms vs service %.2f ms",
		r.res.Counts.Events, r.res.Late, r.res.Dropped, s.Latency.Percentiles["99"], s.ServiceLatency.Percentiles["99"])
}

// Warmup load is excluded from every result.
func TestWarmupIsNotCounted(t *testing.T) {
	m := sandboxtest.Shared(t)
	o := sysbench.Defaults(sysbench.ProfileMaster)
	o.Threads, o.Time, o.TableSize, o.WarmupTime, o.ReportInterval = 2, 2, 1000, 2, 1
	start := time.Now()
	r := <-startRun(t, m, "oltp_point_select", o)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if took := time.Since(start); took < 4*time.Second {
		t.Errorf("warmup + time took only %s", took)
	}
	if e := r.res.Elapsed; e < 2*time.Second || e > 3*time.Second {
		t.Errorf("measured time %s, want about 2 s (the warmup is not counted)", e)
	}
	var sum int64
	for _, iv := range r.res.Intervals {
		sum += iv.Counts.Events
	}
	if sum != r.res.Counts.Events || r.res.Latency.TotalCount() != r.res.Counts.Events {
		t.Errorf("events %d, intervals %d, histogram %d", r.res.Counts.Events, sum, r.res.Latency.TotalCount())
	}
	for _, want := range []string{"Warmup time: 2s", "Warming up for 2 seconds...", "[ 1s ] thds: 2", "[ 2s ] thds: 2"} {
		if !strings.Contains(r.out, want) {
			t.Errorf("output lacks %q:\n%s", want, r.out)
		}
	}
}

// procStatus is where rssKB reads this process's resident set size.
const procStatus = "/proc/self/status"

// rssKB returns this process's resident set size (VmRSS) in kB. Without
// /proc (not Linux) the test is skipped, or fails under CI=true like the
// other tests needing something from the host; anything else that keeps
// it from reading a positive size fails the test, so the memory check
// cannot pass on zeros.
func rssKB(t *testing.T) int64 {
	t.Helper()
	data, err := os.ReadFile(procStatus)
	if errors.Is(err, fs.ErrNotExist) {
		if sandboxtest.InCI() {
			t.Fatalf("CI=true and %s is needed for the memory check: %v", procStatus, err)
		}
		t.Skipf("skipping: the memory check reads VmRSS from %s (Linux): %v", procStatus, err)
	}
	if err != nil {
		t.Fatalf("read RSS: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		value, ok := strings.CutPrefix(line, "VmRSS:")
		if !ok {
			continue
		}
		f := strings.Fields(value)
		if len(f) != 2 || f[1] != "kB" {
			t.Fatalf("%s: unexpected VmRSS line %q", procStatus, line)
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || n <= 0 {
			t.Fatalf("%s: VmRSS %q is not a positive size (%v)", procStatus, f[0], err)
		}
		return n
	}
	t.Fatalf("%s has no VmRSS line:\n%s", procStatus, data)
	return 0
}

// 1200 threads for 60 s: memory stays flat.
func TestRun1200ThreadsForAMinuteMemoryFlat(t *testing.T) {
	start := rssKB(t) // before the server and the run: fails or skips at once
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{MaxConnections: 1500})
	o := sysbench.Defaults(sysbench.Profile1020)
	o.Threads, o.Time, o.TableSize, o.ReportInterval = 1200, 60, 1000, 10
	done := startRun(t, m, "oltp_point_select", o)
	time.Sleep(10 * time.Second)
	early := rssKB(t)
	r := <-done
	late := rssKB(t)
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.out)
	}
	if r.res.Counts.Events == 0 || len(r.res.PerThread) != 1200 {
		t.Fatalf("events %d threads %d", r.res.Counts.Events, len(r.res.PerThread))
	}
	if late > early+early/4 {
		t.Errorf("RSS grew from %d kB at 10 s to %d kB at 60 s", early, late)
	}
	t.Logf("1200 threads for 60 s: %d events (%.0f tps); RSS %d kB before, %d kB at 10 s, %d kB at the end",
		r.res.Counts.Events, float64(r.res.Counts.Events)/r.res.Elapsed.Seconds(), start, early, late)
}
