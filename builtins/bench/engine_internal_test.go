package bench

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/starbench/starbench/builtins/db"
)

func TestThreadList(t *testing.T) {
	for _, c := range []struct {
		ids  []int
		want string
	}{
		{[]int{3}, "thread 3"},
		{[]int{0, 1, 2}, "threads 0-2"},
		{[]int{1, 4, 5, 6, 9}, "threads 1, 4-6, 9"},
		{[]int{0, 2, 4, 6, 8, 10, 12, 13, 14}, "threads 0, 2, 4, 6, 8, 10 and 3 more"},
	} {
		if got := threadList(c.ids); got != c.want {
			t.Errorf("threadList(%v) = %q, want %q", c.ids, got, c.want)
		}
	}
}

func TestJoinThreadErrors(t *testing.T) {
	limit := &mysql.MySQLError{Number: 1461, Message: "too many statements"}
	errs := []error{
		fmt.Errorf("prepare statements: %w", &StatementError{Query: "BEGIN", Err: limit}),
		nil,
		fmt.Errorf("prepare statements: %w", &StatementError{Query: "COMMIT", Err: limit}),
		fmt.Errorf("connect: %w", io.EOF),
		fmt.Errorf("connect: %w", io.EOF),
	}
	err := joinThreadErrors(errs)
	want := "threads 0, 2: prepare statements: Error 1461: too many statements (in several statements)\n" +
		"threads 3-4: connect: EOF"
	if err == nil || err.Error() != want {
		t.Fatalf("got\n%v\nwant\n%s", err, want)
	}
	if code, ok := db.ErrorCode(err); !ok || code != 1461 {
		t.Errorf("the grouped error lost its code: %d %v", code, ok)
	}
	if !errors.Is(err, io.EOF) {
		t.Error("the grouped error lost the lost connection")
	}
	if joinThreadErrors(make([]error, 3)) != nil {
		t.Error("no errors joined to an error")
	}
}
