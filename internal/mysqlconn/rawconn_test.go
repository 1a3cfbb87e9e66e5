package mysqlconn_test

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/internal/mysqlconn"
)

// The driver's read timeout reaches a blocking socket as SO_RCVTIMEO.
func TestReadTimeoutOnABlockingSocket(t *testing.T) {
	cfg := connector(t).Config.Clone()
	cfg.ReadTimeout = 300 * time.Millisecond
	s, err := mysqlconn.Open(context.Background(), cfg, mysqlconn.Options{}) // no hint: a blocking socket
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
