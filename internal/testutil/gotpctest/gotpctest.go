// Package gotpctest finds go-tpc v1.0.7, the TPC-C peer the tests compare
// starbench with, and runs it against a sandbox server.
package gotpctest

import (
	"database/sql"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/go-sql-driver/mysql"

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
func Run(t testing.TB, bin string, m sandbox.Server, db, cmd string, args ...string) string {
	t.Helper()
	host, port, _ := net.SplitHostPort(m.Config().Addr)
	full := append([]string{"tpcc", cmd, "-H", host, "-P", port, "-U", "root", "-p", m.Password(), "-D", db}, args...)
	out, err := exec.Command(bin, full...).CombinedOutput()
	if err != nil {
		t.Fatalf("go-tpc tpcc %s %s: %v\n%s", cmd, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// CheckIndex is the index IndexForCheck adds to history.
const CheckIndex = "starbench_test_h_customer"

// IndexForCheck readies database db for go-tpc's check. Its condition
// 3.3.2.10 sums each customer's history by (h_c_w_id, h_c_d_id, h_c_id),
// and go-tpc's schema indexes history only by h_c_w_id: on MariaDB that
// is a scan of the warehouse's history for each of its 30,000 customers,
// two to three minutes for one warehouse, most of the suite's go-tpc
// time. An index on the three columns changes the server's plan, not
// go-tpc's queries or their answers: the check takes seconds and says
// the same. Call it just before `go-tpc tpcc check` (a run after it would
// maintain the index too).
func IndexForCheck(t testing.TB, m sandbox.Server, db string) {
	t.Helper()
	cfg := m.Config()
	cfg.DBName = db
	conn, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	q := "ALTER TABLE history ADD INDEX IF NOT EXISTS " + CheckIndex + " (h_c_w_id, h_c_d_id, h_c_id)"
	if _, err := conn.Exec(q); err != nil {
		t.Fatalf("%s.%s: %v", db, q, err)
	}
}
