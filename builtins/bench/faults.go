package bench

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/go-sql-driver/mysql"

	"github.com/starbench/starbench/builtins/db"
)

// StatementError is a failed statement of a workload: the error with the
// statement that caused it.
type StatementError struct {
	Query string
	Err   error
}

func (e *StatementError) Error() string {
	q := strings.Join(strings.Fields(e.Query), " ")
	if len(q) > 200 {
		q = q[:200] + "…"
	}
	return fmt.Sprintf("%v [statement: %s]", e.Err, q)
}

func (e *StatementError) Unwrap() error { return e.Err }

// Kind is the statement's first word: SELECT, UPDATE, INSERT, DELETE,
// BEGIN, COMMIT, ...
func (e *StatementError) Kind() string { return StatementKind(e.Query) }

// StatementKind is the first word of a statement, upper case.
func StatementKind(query string) string {
	f := strings.Fields(query)
	if len(f) == 0 {
		return "?"
	}
	return strings.ToUpper(f[0])
}

func wrapStatement(err error, query string) error {
	if err == nil {
		return nil
	}
	return &StatementError{Query: query, Err: err}
}

// MySQL error codes of lost connections (client and server side).
var lostCodes = map[uint16]bool{
	1053: true, // server shutdown in progress
	1927: true, // connection was killed
	2006: true, // server has gone away
	2013: true, // lost connection during query
	4031: true, // disconnected by the server for inactivity
}

// LostCode is the code errors of lost connections are counted under
// (MySQL's CR_SERVER_LOST), whatever the driver reported.
const LostCode = "2013"

// IsConnectionLost reports whether err means the connection is gone and
// must be opened again.
func IsConnectionLost(err error) bool {
	if err == nil {
		return false
	}
	if code, ok := db.ErrorCode(err); ok {
		return lostCodes[code]
	}
	var opErr *net.OpError
	return errors.Is(err, driver.ErrBadConn) || errors.Is(err, mysql.ErrInvalidConn) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.As(err, &opErr)
}

// errorCode is how an error is counted in ErrorCodes.
func errorCode(err error) string {
	if IsConnectionLost(err) {
		return LostCode
	}
	if code, ok := db.ErrorCode(err); ok {
		return fmt.Sprint(code)
	}
	return "other"
}

// errorKind is the kind of the statement that failed, "" when unknown.
func errorKind(err error) string {
	var se *StatementError
	if errors.As(err, &se) {
		return se.Kind()
	}
	return ""
}
