package db

import (
	"errors"
	"fmt"
	"strings"

	"github.com/go-sql-driver/mysql"
)

// SQLError is a statement the server rejected, with its MySQL error code.
type SQLError struct {
	Code      uint16
	SQLState  string
	Message   string
	Statement string
	Err       error
}

func (e *SQLError) Error() string {
	return fmt.Sprintf("mysql error %d (%s): %s [statement: %s]", e.Code, e.SQLState, e.Message, abbreviate(e.Statement, 200))
}

func (e *SQLError) Unwrap() error { return e.Err }

// statementError attaches the statement to a server error and leaves other
// errors (network, cancellation) wrapped with the statement text.
func statementError(err error, statement string) error {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return &SQLError{Code: me.Number, SQLState: string(me.SQLState[:]), Message: me.Message, Statement: statement, Err: err}
	}
	return fmt.Errorf("%w [statement: %s]", err, abbreviate(statement, 200))
}

// ErrorCode returns the MySQL error code of err, if it carries one.
func ErrorCode(err error) (uint16, bool) {
	var se *SQLError
	if errors.As(err, &se) {
		return se.Code, true
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return me.Number, true
	}
	return 0, false
}

func abbreviate(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
