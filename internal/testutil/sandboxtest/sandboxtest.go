// Package sandboxtest gives tests private MariaDB and TiDB servers from
// package sandbox. When a server's binaries are missing, tests fail under
// CI=true and are skipped elsewhere with a message saying what to install.
package sandboxtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/starbench/starbench/internal/sandbox"
)

var shared struct {
	once sync.Once
	db   *sandbox.MariaDB
	err  error
}

// InCI reports whether the tests run in CI, where a missing real server is
// a failure, not a skip.
func InCI() bool {
	v := os.Getenv("CI")
	return v != "" && v != "0" && v != "false"
}

// Require stops the test when the MariaDB binaries are missing: it fails
// in CI and skips elsewhere.
func Require(t testing.TB) {
	t.Helper()
	if _, err := sandbox.FindMariaDB(); err != nil {
		missing(t, "MariaDB", err)
	}
}

// missing fails the test in CI and skips it elsewhere, naming the server
// that is not installed.
func missing(t testing.TB, server string, err error) {
	t.Helper()
	if InCI() {
		t.Fatalf("CI=true and a real %s is needed: %v", server, err)
	}
	t.Skipf("skipping: %v", err)
}

// Shared returns a MariaDB started once for the whole test binary. Tests
// that use it must create their own schema objects (or databases) so that
// they do not disturb each other. Call Main from TestMain to stop it.
func Shared(t testing.TB) *sandbox.MariaDB {
	t.Helper()
	Require(t)
	shared.once.Do(func() {
		shared.db, shared.err = sandbox.StartMariaDB(context.Background(), sandbox.MariaDBOptions{})
	})
	if shared.err != nil {
		t.Fatalf("start shared MariaDB: %v", shared.err)
	}
	return shared.db
}

// Fresh starts a dedicated MariaDB for one test and stops it at cleanup.
func Fresh(t testing.TB, opts sandbox.MariaDBOptions) *sandbox.MariaDB {
	t.Helper()
	Require(t)
	m, err := sandbox.StartMariaDB(context.Background(), opts)
	if err != nil {
		if errors.Is(err, sandbox.ErrNotInstalled) {
			missing(t, "MariaDB", err)
		}
		t.Fatalf("start MariaDB: %v", err)
	}
	t.Cleanup(func() {
		if err := m.Stop(); err != nil {
			t.Errorf("stop MariaDB: %v", err)
		}
	})
	return m
}

// Main runs the tests and then stops the shared servers. Use it as
// func TestMain(m *testing.M) { sandboxtest.Main(m) }.
func Main(m *testing.M) {
	code := m.Run()
	if shared.db != nil {
		if err := shared.db.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "stop shared MariaDB: %v\n", err)
		}
	}
	if sharedTiDB.srv != nil {
		if err := sharedTiDB.srv.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "stop shared TiDB: %v\n", err)
		}
	}
	os.Exit(code)
}
