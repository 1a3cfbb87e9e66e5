package mysqlconn_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/internal/mysqlconn"
	"github.com/starbench/starbench/internal/testutil/benchtest"
)

// These run the engine (bench.Run), whose workers get their sockets and Ps
// from ForWorkers.

// A worker blocked in read(2) on a blocking socket (few threads) or parked
// in the netpoller (many) is woken when the run is cancelled.
func TestCancelInterruptsABlockedQuery(t *testing.T) {
	many := 4*runtime.NumCPU() + 1
	for _, threads := range []int{1, many} {
		if mysqlconn.BlockingIO(threads) != (threads == 1) {
			t.Fatalf("BlockingIO(%d) = %v", threads, mysqlconn.BlockingIO(threads))
		}
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(2*time.Second, cancel) // after the connections are made
		start := time.Now()
		res, err := bench.Run(ctx, &benchtest.QueryWorkload{Query: "SELECT SLEEP(30)", Read: true}, connector(t),
			bench.Options{Threads: threads, Time: time.Minute})
		took := time.Since(start)
		if err != nil {
			t.Fatal(err)
		}
		if res.Stopped != "interrupted" || took > 6*time.Second || res.Counts.Events != 0 {
			t.Errorf("threads %d: stopped %q after %v with %d events", threads, res.Stopped, took, res.Counts.Events)
		}
	}
}

// Workers waiting for slow answers hold every P, their reads hidden from
// the runtime; a garbage collection and the other goroutines must still
// get through promptly (the runtime's signal interrupts the reads).
func TestWaitingWorkersLeaveTheRuntimeResponsive(t *testing.T) {
	threads := runtime.GOMAXPROCS(0) + 2
	if !mysqlconn.BlockingIO(threads) {
		t.Fatalf("BlockingIO(%d) = false", threads)
	}
	conn := connector(t) // may start the shared server
	// Collect what earlier tests left first: the GC timed below is to
	// show how waiting workers delay one, not how much garbage there was
	// (after a test that dropped 48 MB of buffers it took 250-300 ms).
	runtime.GC()
	done, started := make(chan error, 1), make(chan struct{})
	go func() {
		_, err := bench.Run(context.Background(), &benchtest.QueryWorkload{Query: "SELECT SLEEP(2)", Read: true}, conn,
			bench.Options{Threads: threads, Events: int64(threads), Started: func() { close(started) }})
		done <- err
	}()
	select {
	case <-started:
	case err := <-done:
		t.Fatalf("the run ended before it started: %v", err)
	}
	time.Sleep(300 * time.Millisecond) // every worker in SLEEP(2)
	if procs := runtime.GOMAXPROCS(0); procs != threads {
		t.Errorf("GOMAXPROCS during the run = %d, want %d (one P a worker)", procs, threads)
	}
	start := time.Now()
	runtime.GC()
	gc := time.Since(start)
	var worst time.Duration
	for range 10 {
		start := time.Now()
		time.Sleep(20 * time.Millisecond)
		worst = max(worst, time.Since(start)-20*time.Millisecond)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if gc > 300*time.Millisecond || worst > 200*time.Millisecond {
		t.Errorf("while workers waited: a GC took %v, a 20 ms sleep overran by up to %v", gc, worst)
	}
}

// With a server in this process the workers must leave it Ps to answer
// with: they wait through the runtime and GOMAXPROCS stays as it was.
func TestInProcessServerKeepsItsPs(t *testing.T) {
	r, err := benchtest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	before := runtime.GOMAXPROCS(0)
	threads := before + 2
	during := 0
	res, err := bench.Run(context.Background(), &benchtest.QueryWorkload{Query: "SELECT 1", Read: true}, bench.NewSQLConnector(r.Config(), bench.PSAuto),
		bench.Options{Threads: threads, Events: 1000, Started: func() { during = runtime.GOMAXPROCS(0) }})
	if err != nil {
		t.Fatal(err)
	}
	if during != before || res.Counts.Events != 1000 {
		t.Errorf("GOMAXPROCS %d during the run (before %d), %d events", during, before, res.Counts.Events)
	}
}

// Workers whose events wait long on the server (Options.LongWaits) wait
// through the runtime: no P is reserved for them, so GOMAXPROCS stays as
// it was, and no preemption signal cuts their reads short every 10 ms.
func TestLongWaitsBlockThroughTheRuntime(t *testing.T) {
	conn := connector(t)
	before := runtime.GOMAXPROCS(0)
	threads := before + 2
	during := 0
	res, err := bench.Run(context.Background(), &benchtest.QueryWorkload{Query: "SELECT SLEEP(0.2)", Read: true}, conn,
		bench.Options{Threads: threads, Events: int64(threads), LongWaits: true, Started: func() { during = runtime.GOMAXPROCS(0) }})
	if err != nil {
		t.Fatal(err)
	}
	if during != before || res.Counts.Events != int64(threads) {
		t.Errorf("GOMAXPROCS %d during the run (before %d), %d events", during, before, res.Counts.Events)
	}
}
