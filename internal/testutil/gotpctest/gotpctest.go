// Package gotpctest finds go-tpc v1.0.7, the TPC-C peer the tests compare
// starbench with, and runs it against a sandbox server.
package gotpctest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/starbench/starbench/internal/sandbox"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
)

// Install is how go-tpc is installed (scripts/test-deps.sh does it).
const Install = "GOFLAGS= go install github.com/pingcap/go-tpc/cmd/go-tpc@v1.0.7"

// Binary returns go-tpc's path: on PATH, in $GOBIN, or in each
// $(go env GOPATH)/bin. Without it the test skips, saying how to install
// it, or fails when CI=true.
func Binary(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("go-tpc"); err == nil {
		return p
	}
	var dirs []string
	if d := os.Getenv("GOBIN"); d != "" {
		dirs = append(dirs, d)
	}
	gopath := os.Getenv("GOPATH")
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		gopath = strings.TrimSpace(string(out))
	}
	for _, d := range filepath.SplitList(gopath) {
		dirs = append(dirs, filepath.Join(d, "bin"))
	}
	for _, d := range dirs {
		p := filepath.Join(d, "go-tpc")
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	if sandboxtest.InCI() {
		t.Fatalf("CI=true and go-tpc, the reference for TPC-C, is needed: install it with %s", Install)
	}
	t.Skipf("skipping: go-tpc is not installed; install it with %s (make test does)", Install)
	return ""
}

// Run runs `go-tpc tpcc CMD ARGS...` against the server's database db and
// returns its output; a non-zero exit fails the test. (go-tpc's check
// exits 0 with failed conditions: callers read its output.)
func Run(t testing.TB, bin string, m *sandbox.MariaDB, db, cmd string, args ...string) string {
	t.Helper()
	full := append([]string{"tpcc", cmd, "-H", "127.0.0.1", "-P", strconv.Itoa(m.Port), "-U", "root", "-p", m.Password(), "-D", db}, args...)
	out, err := exec.Command(bin, full...).CombinedOutput()
	if err != nil {
		t.Fatalf("go-tpc tpcc %s %s: %v\n%s", cmd, strings.Join(args, " "), err, out)
	}
	return string(out)
}
