package sandboxtest

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/starbench/starbench/internal/sandbox"
)

var sharedTiDB struct {
	once sync.Once
	srv  *sandbox.TiDB
	err  error
}

// RequireTiDB stops the test when no tidb-server is found: it fails in CI
// and skips elsewhere, saying how to get one (make deps builds it).
func RequireTiDB(t testing.TB) {
	t.Helper()
	if _, err := sandbox.FindTiDB(); err != nil {
		missing(t, "TiDB", err)
	}
}

// SharedTiDB returns a private tidb-server started once for the whole test
// binary (Main stops it). Tests that use it create their own databases.
func SharedTiDB(t testing.TB) *sandbox.TiDB {
	t.Helper()
	RequireTiDB(t)
	sharedTiDB.once.Do(func() {
		sharedTiDB.srv, sharedTiDB.err = sandbox.StartTiDB(context.Background(), sandbox.TiDBOptions{})
	})
	if sharedTiDB.err != nil {
		t.Fatalf("start shared TiDB: %v", sharedTiDB.err)
	}
	return sharedTiDB.srv
}

// FreshTiDB starts a dedicated tidb-server for one test and stops it at
// cleanup.
func FreshTiDB(t testing.TB, opts sandbox.TiDBOptions) *sandbox.TiDB {
	t.Helper()
	RequireTiDB(t)
	srv, err := sandbox.StartTiDB(context.Background(), opts)
	if err != nil {
		if errors.Is(err, sandbox.ErrTiDBNotFound) {
			missing(t, "TiDB", err)
		}
		t.Fatalf("start TiDB: %v", err)
	}
	t.Cleanup(func() {
		if err := srv.Stop(); err != nil {
			t.Errorf("stop TiDB: %v", err)
		}
	})
	return srv
}
