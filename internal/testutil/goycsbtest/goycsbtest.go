// Package goycsbtest finds go-ycsb v1.0.3, the YCSB peer the tests compare
// starbench's YCSB workloads with, and its workload files.
package goycsbtest

import (
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/starbench/starbench/internal/sandbox"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
)

// Module is the peer's module and version.
const Module = "github.com/pingcap/go-ycsb@v1.0.3"

// Install says how go-ycsb gets here: scripts/test-deps.sh builds it
// from the module's source (its go.mod's replace directives keep `go
// install module@version` from doing so).
const Install = "bash scripts/test-deps.sh (builds " + Module + " into $(go env GOPATH)/bin)"

// Binary returns go-ycsb's path: on PATH or in each $(go env GOPATH)/bin.
// Without it the test skips, saying how to install it, or fails when
// CI=true.
func Binary(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("go-ycsb"); err == nil {
		return p
	}
	gopath := os.Getenv("GOPATH")
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		gopath = strings.TrimSpace(string(out))
	}
	for _, d := range filepath.SplitList(gopath) {
		p := filepath.Join(d, "bin", "go-ycsb")
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	if sandboxtest.InCI() {
		t.Fatalf("CI=true and go-ycsb, the reference for YCSB, is needed: %s", Install)
	}
	t.Skipf("skipping: go-ycsb is not installed; %s", Install)
	return ""
}

// Workload returns the path of one of go-ycsb's workload files
// (workloads/workloada, ...), from the module cache.
func Workload(t testing.TB, name string) string {
	t.Helper()
	cmd := exec.Command("go", "mod", "download", "-json", Module)
	cmd.Env = append(os.Environ(), "GOFLAGS=")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go mod download %s: %v", Module, err)
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		t.Fatalf("go mod download %s: %v (%s)", Module, err, out)
	}
	return filepath.Join(mod.Dir, "workloads", name)
}

// Run runs `go-ycsb COMMAND mysql -P WORKLOAD` against the server's
// database db with the given properties (name=value) and returns its
// output; a non-zero exit fails the test.
func Run(t testing.TB, bin string, m sandbox.Server, db, command, workload string, props ...string) string {
	t.Helper()
	host, port, _ := net.SplitHostPort(m.Config().Addr)
	args := []string{command, "mysql", "-P", workload, "-p", "mysql.host=" + host, "-p", "mysql.port=" + port,
		"-p", "mysql.user=root", "-p", "mysql.password=" + m.Password(), "-p", "mysql.db=" + db}
	for _, p := range props {
		args = append(args, "-p", p)
	}
	out, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("go-ycsb %s: %v\n%s", strings.Join(args[:4], " "), err, out)
	}
	return string(out)
}
