package sandboxtest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/internal/sandbox"
)

// Capturer runs a function and returns the statements other connections
// sent meanwhile, from a server's general log: a LoggingServer (MariaDB)
// or a TiDBLoggingServer.
type Capturer interface {
	Capture(t *testing.T, fn func()) []Logged
}

// Logging is a private server whose statements a test can capture, with
// an administrative connection of its own: a LoggingServer or a
// TiDBLoggingServer.
type Logging interface {
	Capturer
	sandbox.Server
	Exec(t *testing.T, q string)
	AdminConn() *db.Conn
}

var (
	_ Logging = (*LoggingServer)(nil)
	_ Logging = (*TiDBLoggingServer)(nil)
)

// AdminConn is the connection Exec uses, whose statements Capture leaves
// out.
func (s *TiDBLoggingServer) AdminConn() *db.Conn { return s.Admin }

// TiDBLoggingServer is a private tidb-server whose general log (a file:
// TiDB logs statements as lines of its log format, not into a table) is
// read on demand, for tests that compare what two clients send to TiDB.
type TiDBLoggingServer struct {
	*sandbox.TiDB
	Admin *db.Conn
	id    string // the admin connection's id, whose statements are left out
}

// StartTiDBLogging starts a fresh tidb-server for the test.
func StartTiDBLogging(t *testing.T, opts sandbox.TiDBOptions) *TiDBLoggingServer {
	t.Helper()
	srv := FreshTiDB(t, opts)
	admin, err := db.Open(context.Background(), srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	rs, err := admin.Query(context.Background(), "SELECT CONNECTION_ID()")
	if err != nil {
		t.Fatal(err)
	}
	return &TiDBLoggingServer{TiDB: srv, Admin: admin, id: fmt.Sprint(rs.Rows[0][0])}
}

// Exec runs an administrative statement.
func (s *TiDBLoggingServer) Exec(t *testing.T, q string) {
	t.Helper()
	if _, err := s.Admin.Exec(context.Background(), q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// Capture runs fn with tidb_general_log on and returns the statements
// other connections ran, in order: a prepared statement's execution is
// an Execute of its text with its arguments in place of its ? marks, as
// MariaDB logs it (TiDB logs the arguments after the text), anything else
// a Query. TiDB does not log COM_STMT_PREPARE: a connection's first
// execution of a prepared text comes after a Prepare of that text, where
// MariaDB logs the Prepare itself (so a statement prepared and never
// executed is missing here). The database a client
// names at connect time (COM_INIT_DB), which TiDB logs as "use `db`", is
// left out, as the MariaDB capture leaves out its Init DB.
func (s *TiDBLoggingServer) Capture(t *testing.T, fn func()) []Logged {
	t.Helper()
	st, err := os.Stat(s.GeneralLog())
	var from int64
	if err == nil {
		from = st.Size()
	}
	s.Exec(t, "SET GLOBAL tidb_general_log = 1")
	fn()
	s.Exec(t, "SET GLOBAL tidb_general_log = 0")
	data, err := os.ReadFile(s.GeneralLog())
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(data)) < from {
		from = 0
	}
	return parseTiDBGeneralLog(data[from:], s.id)
}

// parseTiDBGeneralLog reads TiDB's GENERAL_LOG lines (pkg/session's
// logGeneralQuery: [conn=N] ... [sql=TEXT], TEXT quoted when it holds
// spaces or quotes, a prepared statement's arguments after it as
// " [arguments: ...]"), leaving out connection skip's.
func parseTiDBGeneralLog(data []byte, skip string) []Logged {
	var out []Logged
	prepared := map[[2]string]bool{} // connection, text
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.Contains(line, "[GENERAL_LOG]") {
			continue
		}
		if field(line, "conn") == skip {
			continue
		}
		text := field(line, "sql")
		if initDBRe.MatchString(text) {
			continue
		}
		cmd := "Query"
		if i := strings.Index(text, " [arguments: "); i >= 0 {
			if key := [2]string{field(line, "conn"), text[:i]}; !prepared[key] {
				prepared[key] = true
				out = append(out, Logged{Command: "Prepare", Text: text[:i]})
			}
			text, cmd = bindArguments(text[:i], text[i+len(" [arguments: "):]), "Execute"
		}
		out = append(out, Logged{Command: cmd, Text: text})
	}
	return out
}

// field is the value of [name=VALUE] in a line of TiDB's log, unquoted.
func field(line, name string) string {
	i := strings.Index(line, "["+name+"=")
	if i < 0 {
		return ""
	}
	rest := line[i+len(name)+2:]
	if strings.HasPrefix(rest, `"`) {
		if q, err := strconv.QuotedPrefix(rest); err == nil {
			if v, err := strconv.Unquote(q); err == nil {
				return v
			}
		}
	}
	if j := strings.Index(rest, "]"); j >= 0 {
		return rest[:j]
	}
	return rest
}

// initDBRe is how TiDB logs COM_INIT_DB.
var initDBRe = regexp.MustCompile("^use `[^`]*`$")

// bindArguments puts the arguments TiDB logs after a prepared statement
// (one value, or a tuple "(1, \"a\")", then "]") into its ? marks, strings
// in single quotes. Marks without an argument stay.
func bindArguments(query, args string) string {
	args = strings.TrimSpace(args)
	if i := strings.Index(args, "] [arguments: "); i >= 0 {
		args = args[:i] // logged twice: the first is enough
	}
	args = strings.TrimSuffix(args, "]")
	if strings.HasPrefix(args, "(") && strings.HasSuffix(args, ")") {
		args = args[1 : len(args)-1]
	}
	var values []string
	for rest := strings.TrimSpace(args); rest != ""; rest = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(rest), ",")) {
		if strings.HasPrefix(rest, `"`) {
			q, err := strconv.QuotedPrefix(rest)
			if err != nil {
				break
			}
			v, _ := strconv.Unquote(q)
			values = append(values, "'"+strings.ReplaceAll(v, "'", "''")+"'")
			rest = rest[len(q):]
			continue
		}
		end := strings.Index(rest, ",")
		if end < 0 {
			end = len(rest)
		}
		values = append(values, strings.TrimSpace(rest[:end]))
		rest = rest[end:]
	}
	var b strings.Builder
	for _, r := range query {
		if r == '?' && len(values) > 0 {
			b.WriteString(values[0])
			values = values[1:]
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
