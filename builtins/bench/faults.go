package bench

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
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

// joinThreadErrors joins the threads' errors (errs[i] is thread i's),
// one line per distinct message naming the threads that had it: a server
// limit that 1200 threads run into is one line, not 1200. Errors that
// differ only in the statement that met them are one line too, without
// the statements.
func joinThreadErrors(errs []error) error {
	type group struct {
		err     error // the first, with its statement
		full    string
		threads []int
		same    bool // every thread's message is err's
	}
	var keys []string
	groups := map[string]*group{}
	for i, err := range errs {
		if err == nil {
			continue
		}
		full, key := err.Error(), err.Error()
		var se *StatementError
		if errors.As(err, &se) {
			key = strings.Replace(full, se.Error(), se.Err.Error(), 1)
		}
		g := groups[key]
		if g == nil {
			g = &group{err: err, full: full, same: true}
			groups[key], keys = g, append(keys, key)
		}
		g.threads = append(g.threads, i)
		g.same = g.same && full == g.full
	}
	joined := make([]error, len(keys))
	for i, key := range keys {
		g := groups[key]
		if g.same {
			joined[i] = fmt.Errorf("%s: %w", threadList(g.threads), g.err)
		} else {
			msg := fmt.Sprintf("%s: %s (in several statements)", threadList(g.threads), key)
			joined[i] = &threadsError{msg: msg, err: g.err}
		}
	}
	return errors.Join(joined...)
}

// threadsError is a grouped message that still unwraps to the first
// thread's error (its code, whether the connection was lost).
type threadsError struct {
	msg string
	err error
}

func (e *threadsError) Error() string { return e.msg }
func (e *threadsError) Unwrap() error { return e.err }

// threadList names ascending thread numbers compactly: "thread 3",
// "threads 0-1199", "threads 1, 4-6"; past a few ranges it counts the rest.
func threadList(ids []int) string {
	if len(ids) == 1 {
		return fmt.Sprintf("thread %d", ids[0])
	}
	const shown = 6
	var ranges []string
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		if len(ranges) == shown {
			return fmt.Sprintf("threads %s and %d more", strings.Join(ranges, ", "), len(ids)-i)
		}
		if j == i {
			ranges = append(ranges, strconv.Itoa(ids[i]))
		} else {
			ranges = append(ranges, fmt.Sprintf("%d-%d", ids[i], ids[j]))
		}
		i = j + 1
	}
	return "threads " + strings.Join(ranges, ", ")
}
