package main

import (
	"context"
	"testing"

	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/internal/sandbox"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
)

// A resumed run reopens a handle in the database and with the session
// settings its recorded statements left, and the workloads it starts from
// the handle follow: they prepare in resume_other, not in the DSN's sbtest
// (whose sbtest1 belongs to someone else).
func TestResumeKeepsTheHandleSession(t *testing.T) {
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{})
	ctx := context.Background()
	admin, err := db.Open(ctx, m.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	for _, q := range []string{"CREATE TABLE sbtest.sbtest1 (id INT PRIMARY KEY)", "INSERT INTO sbtest.sbtest1 VALUES (42)",
		"CREATE DATABASE resume_other", "CREATE TABLE resume_other.sbtest1 (stale INT)"} {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	out := outDir(t)
	expect(t, starbench(t, nil, "run", "testdata/plans/resume_session.star", "--out", out, "--target", m.DSN()), 1,
		"Table 'resume_other.gate' doesn't exist")
	if _, err := admin.Exec(ctx, "CREATE TABLE resume_other.gate (id INT)"); err != nil {
		t.Fatal(err)
	}
	expect(t, starbench(t, nil, "run", "--resume", out, "--target", m.DSN()), 0,
		"Dropping table 'resume_other.sbtest1'", "resume_other.sbtest1: 60 rows, 0 off the increment", "(completed)")
	rs, err := admin.Query(ctx, "SELECT id FROM sbtest.sbtest1")
	if err != nil || len(rs.Rows) != 1 || rs.Rows[0][0] != int64(42) {
		t.Errorf("sbtest.sbtest1 after the resumed run: %v %v", rs, err)
	}
}
