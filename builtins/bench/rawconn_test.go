package bench_test

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/starbench/starbench/builtins/bench"
)

// A worker blocked in read(2) on a blocking socket (few threads) or parked
// in the netpoller (many) is woken when the run is cancelled.
func TestCancelInterruptsABlockedQuery(t *testing.T) {
	for _, threads := range []int{1, 64} {
		if bench.BlockingIO(threads) != (threads == 1) {
			t.Fatalf("BlockingIO(%d) = %v", threads, bench.BlockingIO(threads))
		}
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(2*time.Second, cancel) // after the connections are made
		start := time.Now()
		res, err := bench.Run(ctx, &queryWorkload{query: "SELECT SLEEP(30)", isRead: true}, connector(t),
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

// The driver's read timeout reaches a blocking socket as SO_RCVTIMEO.
func TestReadTimeoutOnABlockingSocket(t *testing.T) {
	cfg := connector(t).Config.Clone()
	cfg.ReadTimeout = 300 * time.Millisecond
	conn := bench.NewSQLConnector(cfg, bench.PSAuto)
	s, err := conn.Connect(context.Background()) // no hint: a blocking socket
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Query(context.Background(), "SELECT 1"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = s.Query(context.Background(), "SELECT SLEEP(10)")
	if took := time.Since(start); err == nil || took > 3*time.Second || took < 250*time.Millisecond {
		t.Fatalf("SLEEP(10) with a 300 ms read timeout: %v after %v", err, took)
	}
	if !bench.IsConnectionLost(err) && !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("timeout error not recognised as a lost connection: %v", err)
	}
}
