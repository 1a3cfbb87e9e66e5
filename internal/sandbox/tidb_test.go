package sandbox_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/starbench/starbench/internal/sandbox"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
)

func TestTiDBSandboxLifecycle(t *testing.T) {
	sandboxtest.RequireTiDB(t)
	srv, err := sandbox.StartTiDB(context.Background(), sandbox.TiDBOptions{Database: "lifecycle"})
	if err != nil {
		t.Fatal(err)
	}
	dir := srv.Dir
	defer srv.Stop()
	if !strings.Contains(srv.Version, "TiDB") || srv.Port == 0 || srv.StatusPort == 0 {
		t.Errorf("version %q port %d status port %d", srv.Version, srv.Port, srv.StatusPort)
	}
	db, err := sql.Open("mysql", srv.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var current, tidbVersion string
	if err := db.QueryRow("SELECT DATABASE(), tidb_version()").Scan(&current, &tidbVersion); err != nil {
		t.Fatal(err)
	}
	if current != "lifecycle" || !strings.Contains(tidbVersion, "Release Version: v") || !strings.Contains(tidbVersion, "Store: unistore") {
		t.Errorf("database %q, tidb_version() %q", current, tidbVersion)
	}

	// Loopback only: nothing answers on another address of the host.
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range addrs {
			ip, _, _ := net.ParseCIDR(a.String())
			if ip == nil || ip.IsLoopback() {
				continue
			}
			for _, port := range []int{srv.Port, srv.StatusPort} {
				if c, err := net.DialTimeout("tcp", net.JoinHostPort(ip.String(), strconv.Itoa(port)), time.Second); err == nil {
					c.Close()
					t.Errorf("the sandbox answers on %s:%d: it must listen on loopback only", ip, port)
				}
			}
		}
	}

	// The status port answers with TiDB's /status.
	resp, err := http.Get(srv.StatusURL() + "/status")
	if err != nil {
		t.Fatal(err)
	}
	var status struct{ Version string }
	err = json.NewDecoder(resp.Body).Decode(&status)
	resp.Body.Close()
	if err != nil || !strings.Contains(status.Version, "TiDB") {
		t.Errorf("/status: %+v %v", status, err)
	}

	wrong := srv.Config()
	wrong.Passwd = "not-the-password"
	bad, _ := sql.Open("mysql", wrong.FormatDSN())
	defer bad.Close()
	err = bad.Ping()
	if me, ok := err.(*mysql.MySQLError); !ok || me.Number != 1045 {
		t.Errorf("a wrong password must be refused with 1045, got %v", err)
	}
	// Everything it writes stays in its folder: no socket, temp dir or
	// slow log elsewhere.
	for _, name := range []string{"tidb.sock", "tidb.log", "store", "tmp"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s not in the sandbox folder: %v", name, err)
		}
	}
	if _, err := os.Stat(fmt.Sprintf("/tmp/tidb-%d.sock", srv.Port)); err == nil {
		t.Errorf("the sandbox made TiDB's default socket /tmp/tidb-%d.sock", srv.Port)
	}

	pid := srv.PID()
	if comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); err != nil || !strings.HasPrefix(string(comm), "tidb-server") {
		t.Errorf("PID %d is not the server: %q %v", pid, comm, err)
	}
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	if srv.PID() != 0 {
		t.Errorf("PID %d after Stop, want 0", srv.PID())
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s remains after Stop", dir)
	}
	if err := db.Ping(); err == nil {
		t.Errorf("server still answers after Stop")
	}
	if err := srv.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
}

// Without a tidb-server the message says where it looked and how to get
// one; a binary named by the variable that is not there is named.
func TestFindTiDBSaysHowToGetOne(t *testing.T) {
	empty := t.TempDir()
	t.Setenv("PATH", empty)
	t.Setenv("GOBIN", "")
	t.Setenv("GOPATH", empty)
	t.Setenv("HOME", empty)
	t.Setenv(sandbox.TiDBServerEnv, "")
	_, err := sandbox.FindTiDB()
	if err == nil || !strings.Contains(err.Error(), "tiup install tidb") || !strings.Contains(err.Error(), "scripts/build-tidb.sh") || !strings.Contains(err.Error(), sandbox.TiDBServerEnv) {
		t.Errorf("FindTiDB without one: %v", err)
	}
	t.Setenv(sandbox.TiDBServerEnv, filepath.Join(empty, "nope"))
	if _, err := sandbox.FindTiDB(); err == nil || !strings.Contains(err.Error(), filepath.Join(empty, "nope")) {
		t.Errorf("FindTiDB with a missing $%s: %v", sandbox.TiDBServerEnv, err)
	}
	t.Setenv(sandbox.TiDBServerEnv, "")

	// tiup's components: the highest version wins (v8.10.0 over v8.9.1).
	for _, v := range []string{"v7.5.0", "v8.10.0", "v8.9.1"} {
		d := filepath.Join(empty, ".tiup", "components", "tidb", v)
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, "tidb-server"), []byte("#!/bin/sh\n"), 0o755)
	}
	got, err := sandbox.FindTiDB()
	if want := filepath.Join(empty, ".tiup", "components", "tidb", "v8.10.0", "tidb-server"); err != nil || got != want {
		t.Errorf("FindTiDB with tiup's: %q %v, want %q", got, err, want)
	}
	// A tidb-server in GOPATH's bin comes before tiup's.
	os.MkdirAll(filepath.Join(empty, "bin"), 0o755)
	os.WriteFile(filepath.Join(empty, "bin", "tidb-server"), []byte("#!/bin/sh\n"), 0o755)
	if got, err := sandbox.FindTiDB(); err != nil || got != filepath.Join(empty, "bin", "tidb-server") {
		t.Errorf("FindTiDB with one in $GOPATH/bin: %q %v", got, err)
	}
}
