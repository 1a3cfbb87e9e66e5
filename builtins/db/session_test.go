package db_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
)

func TestSessionNote(t *testing.T) {
	var s db.Session
	for _, q := range []string{
		"USE sectest",
		"SELECT 1",
		"SET SESSION sql_mode = 'ANSI_QUOTES'",
		"SET GLOBAL max_connections = 1000",
		"SET @@GLOBAL.max_connections = 1000",
		"SET TRANSACTION ISOLATION LEVEL READ COMMITTED",
		"SET PASSWORD = PASSWORD('x')",
		"set names utf8mb4",
		"SET @a := 1",
		"SET tidb_distsql_scan_concurrency = 30",
		"SET SESSION sql_mode = 'ANSI_QUOTES'", // again: moves to the end, not twice
		"  use `odd``name` ; ",
	} {
		s.Note(q)
	}
	want := db.Session{Database: "odd`name", Settings: []string{
		"set names utf8mb4", "SET @a := 1", "SET tidb_distsql_scan_concurrency = 30", "SET SESSION sql_mode = 'ANSI_QUOTES'",
	}}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("session %+v, want %+v", s, want)
	}
	for _, q := range []string{"USE", "USER()", "USE a b", "SELECT 'USE x'"} {
		if _, ok := db.UseTarget(q); ok {
			t.Errorf("%q taken for a USE", q)
		}
	}
}

// Pool connections (ANALYZE children, snapshot copies) start in the
// session's current database with its settings, also those opened after a
// change, and a handle opened from a recorded state starts in it.
func TestPoolFollowsTheSession(t *testing.T) {
	ctx := context.Background()
	maria := sandboxtest.Shared(t)
	c, err := db.Open(ctx, maria.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, q := range []string{"DROP DATABASE IF EXISTS pool_other", "CREATE DATABASE pool_other"} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	defer c.Exec(ctx, "DROP DATABASE pool_other")
	poolState := func() []any {
		t.Helper()
		rs, err := c.PoolQuery(ctx, "SELECT DATABASE(), @@SESSION.sql_mode, @@SESSION.auto_increment_increment")
		if err != nil {
			t.Fatal(err)
		}
		return rs.Rows[0]
	}
	before := poolState() // an idle pool connection now exists in the old state
	if before[0] != maria.Config().DBName {
		t.Fatalf("pool starts in %v, want %s", before[0], maria.Config().DBName)
	}
	for _, q := range []string{"USE pool_other", "SET SESSION sql_mode = 'ANSI_QUOTES'"} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Query(ctx, "SET @@auto_increment_increment = 7"); err != nil {
		t.Fatal(err)
	}
	want := []any{"pool_other", "ANSI_QUOTES", int64(7)}
	if got := poolState(); !reflect.DeepEqual(got, want) {
		t.Errorf("pool connection after USE and SET: %v, want %v", got, want)
	}
	if got, want := c.Session(), (db.Session{Database: "pool_other", Settings: []string{
		"SET SESSION sql_mode = 'ANSI_QUOTES'", "SET @@auto_increment_increment = 7"}}); !reflect.DeepEqual(got, want) {
		t.Errorf("Session() = %+v, want %+v", got, want)
	}

	reopened, err := db.OpenSession(ctx, maria.Config(), c.Session())
	if err != nil {
		t.Fatal(err)
	}
	defer reopened.Close()
	rs, err := reopened.Query(ctx, "SELECT DATABASE(), @@SESSION.sql_mode, @@SESSION.auto_increment_increment")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rs.Rows[0], want) {
		t.Errorf("reopened session: %v, want %v", rs.Rows[0], want)
	}
	// A setting the server refuses fails the open, naming it.
	if _, err := db.OpenSession(ctx, maria.Config(), db.Session{Settings: []string{"SET SESSION no_such_variable = 1"}}); err == nil {
		t.Error("a refused session setting opened anyway")
	}
}
