package sandbox_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/starbench/starbench/internal/sandbox"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
)

func TestSandboxLifecycle(t *testing.T) {
	sandboxtest.Require(t)
	m, err := sandbox.StartMariaDB(context.Background(), sandbox.MariaDBOptions{MaxConnections: 321, Database: "lifecycle"})
	if err != nil {
		t.Fatal(err)
	}
	dir := m.Dir
	defer m.Stop()
	if !strings.Contains(m.Version, "MariaDB") || m.Port == 0 {
		t.Errorf("version %q port %d", m.Version, m.Port)
	}
	db, err := sql.Open("mysql", m.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var maxConn int
	var current string
	if err := db.QueryRow("SELECT @@max_connections, DATABASE()").Scan(&maxConn, &current); err != nil {
		t.Fatal(err)
	}
	if maxConn != 321 || current != "lifecycle" {
		t.Errorf("max_connections %d, database %q", maxConn, current)
	}
	var bind string
	db.QueryRow("SELECT @@bind_address").Scan(&bind)
	if bind != "127.0.0.1" {
		t.Errorf("bind_address %q: the sandbox must listen on loopback only", bind)
	}

	wrong := m.Config()
	wrong.Passwd = "not-the-password"
	bad, _ := sql.Open("mysql", wrong.FormatDSN())
	defer bad.Close()
	err = bad.Ping()
	if me, ok := err.(*mysql.MySQLError); !ok || me.Number != 1045 {
		t.Errorf("a wrong password must be refused with 1045, got %v", err)
	}

	pid := m.PID()
	if comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); err != nil || !strings.HasPrefix(string(comm), "mariadbd") && !strings.HasPrefix(string(comm), "mysqld") {
		t.Errorf("PID %d is not the server: %q %v", pid, comm, err)
	}

	if err := m.Stop(); err != nil {
		t.Fatal(err)
	}
	if m.PID() != 0 {
		t.Errorf("PID %d after Stop, want 0", m.PID())
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s remains after Stop", dir)
	}
	if err := db.Ping(); err == nil {
		t.Errorf("server still answers after Stop")
	}
	if err := m.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
}
