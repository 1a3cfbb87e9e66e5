package sandboxtest

import (
	"context"
	"fmt"
	"testing"

	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/internal/sandbox"
)

// LoggingServer is a private MariaDB that logs statements to the
// mysql.general_log table on demand, for tests that compare what two
// clients send.
type LoggingServer struct {
	*sandbox.MariaDB
	Admin *db.Conn
}

// Logged is one statement from the general log.
type Logged struct {
	Command string // Query, Prepare, Execute
	Text    string
}

// StartLogging starts a fresh MariaDB whose general log goes to a table
// (off until Capture turns it on).
func StartLogging(t *testing.T) *LoggingServer {
	t.Helper()
	m := Fresh(t, sandbox.MariaDBOptions{ExtraArgs: []string{"--general-log=0", "--log-output=TABLE"}})
	admin, err := db.Open(context.Background(), m.Config())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	return &LoggingServer{MariaDB: m, Admin: admin}
}

// AdminConn is the connection Exec uses, whose statements Capture leaves
// out.
func (s *LoggingServer) AdminConn() *db.Conn { return s.Admin }

// Exec runs an administrative statement.
func (s *LoggingServer) Exec(t *testing.T, q string) {
	t.Helper()
	if _, err := s.Admin.Exec(context.Background(), q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// Capture runs fn with the general log on and returns the Query, Prepare
// and Execute statements other connections sent, in order.
func (s *LoggingServer) Capture(t *testing.T, fn func()) []Logged {
	t.Helper()
	s.Exec(t, "SET GLOBAL general_log = 0")
	s.Exec(t, "TRUNCATE mysql.general_log")
	s.Exec(t, "SET GLOBAL general_log = 1")
	fn()
	s.Exec(t, "SET GLOBAL general_log = 0")
	rs, err := s.Admin.Query(context.Background(), "SELECT command_type, CONVERT(argument USING utf8mb4), thread_id = CONNECTION_ID() FROM mysql.general_log")
	if err != nil {
		t.Fatal(err)
	}
	var out []Logged
	for _, row := range rs.Rows {
		if fmt.Sprint(row[2]) == "1" {
			continue
		}
		cmd := fmt.Sprint(row[0])
		if cmd == "Query" || cmd == "Prepare" || cmd == "Execute" {
			out = append(out, Logged{cmd, fmt.Sprint(row[1])})
		}
	}
	return out
}
