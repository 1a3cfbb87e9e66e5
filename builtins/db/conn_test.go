package db_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/internal/embedded"
	"github.com/starbench/starbench/internal/sqltext"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
)

func TestMain(m *testing.M) { sandboxtest.Main(m) }

// openTargets returns connections to a private MariaDB and to the embedded
// server, each in a fresh database named after the test.
func openTargets(t *testing.T) map[string]*db.Conn {
	t.Helper()
	ctx := context.Background()
	conns := map[string]*db.Conn{}

	maria := sandboxtest.Shared(t)
	admin, err := db.Open(ctx, maria.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	name := "t_" + t.Name()
	if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+sqltext.QuoteIdent(name)); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+sqltext.QuoteIdent(name)); err != nil {
		t.Fatal(err)
	}
	cfg := maria.Config()
	cfg.DBName = name
	c, err := db.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	conns["mariadb"] = c

	srv, err := embedded.Start("sbtest")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	ecfg, _ := db.ParseDSN("root@tcp(" + srv.Addr() + ")/sbtest")
	e, err := db.Open(ctx, ecfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	conns["embedded"] = e
	return conns
}

func TestExecQueryAndValueTypes(t *testing.T) {
	ctx := context.Background()
	for target, c := range openTargets(t) {
		t.Run(target, func(t *testing.T) {
			mustExec(t, c, `CREATE TABLE v (id INT PRIMARY KEY AUTO_INCREMENT, big BIGINT UNSIGNED, f DOUBLE,
				d DECIMAL(10,2), s VARCHAR(20), b VARBINARY(8), n INT NULL)`)
			res, err := c.Exec(ctx, "INSERT INTO v (big, f, d, s, b, n) VALUES (?, ?, ?, ?, ?, ?), (18446744073709551615, 0, 0, '', '', 1)",
				int64(1)<<40, 2.5, "12.34", "héllo", []byte{0, 1, 2}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.RowsAffected != 2 || res.LastInsertID != 1 {
				t.Errorf("exec result %+v", res)
			}
			for _, args := range [][]any{nil, {int64(0)}} { // text and binary protocol
				q := "SELECT id, big, f, d, s, b, n, SUM(id) OVER () AS total FROM v ORDER BY id"
				if args != nil {
					q = "SELECT id, big, f, d, s, b, n, SUM(id) OVER () AS total FROM v WHERE id > ? ORDER BY id"
				}
				rs, err := c.Query(ctx, q, args...)
				if err != nil {
					t.Fatal(err)
				}
				if len(rs.Rows) != 2 || len(rs.Columns) != 8 || rs.Columns[4] != "s" {
					t.Fatalf("result shape: %+v", rs)
				}
				row := rs.Rows[0]
				want := []any{int64(1), int64(1) << 40, 2.5, 12.34, "héllo", []byte{0, 1, 2}, nil, int64(3)}
				for i, w := range want {
					if !equalValue(row[i], w) {
						t.Errorf("args=%v column %s (%s): got %#v, want %#v", args, rs.Columns[i], rs.Types[i], row[i], w)
					}
				}
				if got := rs.Rows[1][1]; got != uint64(18446744073709551615) {
					t.Errorf("max unsigned bigint: %#v", got)
				}
			}
		})
	}
}

func equalValue(a, b any) bool {
	ab, aok := a.([]byte)
	bb, bok := b.([]byte)
	if aok || bok {
		return aok && bok && string(ab) == string(bb)
	}
	return a == b
}

func TestSQLErrorCarriesCode(t *testing.T) {
	ctx := context.Background()
	for target, c := range openTargets(t) {
		t.Run(target, func(t *testing.T) {
			_, err := c.Query(ctx, "SELECT * FROM no_such_table")
			code, ok := db.ErrorCode(err)
			if !ok || code != 1146 {
				t.Fatalf("want error 1146, got %v", err)
			}
			var se *db.SQLError
			if !errors.As(err, &se) || se.Statement != "SELECT * FROM no_such_table" {
				t.Errorf("statement not attached: %v", err)
			}
		})
	}
}

func TestSessionStateStaysOnTheConnection(t *testing.T) {
	c := openTargets(t)["mariadb"]
	ctx := context.Background()
	mustExec(t, c, "SET SESSION sql_mode = 'ANSI_QUOTES'")
	for i := 0; i < 5; i++ {
		rs, err := c.Query(ctx, "SELECT @@SESSION.sql_mode")
		if err != nil {
			t.Fatal(err)
		}
		if rs.Rows[0][0] != "ANSI_QUOTES" {
			t.Fatalf("session state lost: %v", rs.Rows[0][0])
		}
	}
}

func TestAnalyzeVariablesVersion(t *testing.T) {
	ctx := context.Background()
	for target, c := range openTargets(t) {
		t.Run(target, func(t *testing.T) {
			mustExec(t, c, "CREATE TABLE a1 (id INT PRIMARY KEY)")
			mustExec(t, c, "INSERT INTO a1 VALUES (1), (2)") // the embedded server's ANALYZE fails on empty tables
			schema, err := c.CurrentDatabase(ctx)
			wantSchema := map[string]string{"mariadb": "t_TestAnalyzeVariablesVersion", "embedded": "sbtest"}[target]
			if err != nil || schema != wantSchema {
				t.Fatalf("current database %q %v, want %q", schema, err, wantSchema)
			}
			res, err := c.AnalyzeTable(ctx, schema, "a1")
			if err != nil {
				t.Fatalf("analyze: %v", err)
			}
			// One row for the table: MariaDB names it schema.table, the
			// embedded server (go-mysql-server) the bare table.
			table := schema + ".a1"
			if target == "embedded" {
				table = "a1"
			}
			if want := []db.AnalyzeResult{{Table: table, MsgType: "status", MsgText: "OK"}}; !reflect.DeepEqual(res, want) {
				t.Errorf("analyze: %+v, want %+v", res, want)
			}
			if target == "mariadb" {
				res, err := c.AnalyzeTable(ctx, schema, "missing_table")
				if err == nil || !strings.Contains(err.Error(), "ANALYZE TABLE "+schema+".missing_table: ") || !strings.Contains(err.Error(), "doesn't exist") {
					t.Errorf("ANALYZE of a missing table: %v (%+v), want an error saying it does not exist", err, res)
				}
			}

			// The version is the server's, as SHOW VARIABLES and @@version
			// also give it.
			v, err := c.Version(ctx)
			if err != nil {
				t.Fatalf("version: %v", err)
			}
			shape := `^8\.0\.\d+$` // go-mysql-server says it is MySQL 8.0
			if target == "mariadb" {
				shape = `^1\d\.\d+\.\d+-MariaDB`
			}
			if !regexp.MustCompile(shape).MatchString(v) || v != scalar(t, c, "SELECT @@version") {
				t.Errorf("version %q, want %s and @@version %q", v, shape, scalar(t, c, "SELECT @@version"))
			}

			vars, err := c.Variables(ctx, "max_connections")
			if err != nil {
				t.Fatalf("variables: %v", err)
			}
			maxConn := scalar(t, c, "SELECT @@GLOBAL.max_connections")
			if n, err := strconv.Atoi(vars["max_connections"]); len(vars) != 1 || err != nil || n < 1 || vars["max_connections"] != maxConn {
				t.Errorf("variables max_connections: %v, want {max_connections: %s}", vars, maxConn)
			}
			vars, err = c.Variables(ctx, "version%")
			if err != nil {
				t.Fatalf("variables: %v", err)
			}
			if vars["version"] != v || vars["version_comment"] == "" {
				t.Errorf("variables version%%: %v, want version %q and a version_comment", vars, v)
			}
			for name := range vars {
				if !strings.HasPrefix(name, "version") {
					t.Errorf("variables version%%: %q does not match", name)
				}
			}
			all, err := c.Variables(ctx, "")
			if err != nil {
				t.Fatalf("variables: %v", err)
			}
			if len(all) < 100 || all["max_connections"] != maxConn || all["version"] != v || len(all) <= len(vars) {
				t.Errorf("all variables: %d, max_connections %q, version %q", len(all), all["max_connections"], all["version"])
			}
		})
	}
}

// scalar returns the text of a one-value query's result.
func scalar(t *testing.T, c *db.Conn, q string) string {
	t.Helper()
	rs, err := c.Query(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	if len(rs.Rows) != 1 || len(rs.Rows[0]) != 1 {
		t.Fatalf("%s: %v", q, rs.Rows)
	}
	if b, ok := rs.Rows[0][0].([]byte); ok {
		return string(b)
	}
	return fmt.Sprint(rs.Rows[0][0])
}

func mustExec(t *testing.T, c *db.Conn, q string) {
	t.Helper()
	if _, err := c.Exec(context.Background(), q); err != nil {
		t.Fatal(err)
	}
}

// The embedded server runs REGEXP on Go's regexp (internal/embedded/icuregex
// replaces go-mysql-server's ICU module); simple patterns must answer as
// they do on a real server.
func TestRegexpFunctions(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		expr string
		want string
		only string // a target, when MariaDB lacks MySQL 8's form
	}{
		{"'héllo world' REGEXP 'w.r'", "1", ""},
		{"'héllo world' REGEXP '^w'", "0", ""},
		{"REGEXP_INSTR('héllo world', 'o')", "5", ""},
		{"REGEXP_INSTR('héllo world', 'x')", "0", ""},
		{"REGEXP_SUBSTR('héllo world', 'w[a-z]+')", "world", ""},
		{"REGEXP_REPLACE('a1b22c333', '[0-9]+', '#')", "a#b#c#", ""},
		{"REGEXP_REPLACE('héllo', 'l', 'L')", "héLLo", ""},
		{"REGEXP_INSTR('dog cat dog', 'dog', 1, 2)", "9", "embedded"},
		{"REGEXP_INSTR('dog cat dog', 'dog', 1, 1, 1)", "4", "embedded"},
		{"REGEXP_SUBSTR('abc def ghi', '[a-z]+', 1, 3)", "ghi", "embedded"},
		{"REGEXP_REPLACE('abc def ghi', '[a-z]+', 'X', 1, 3)", "abc def X", "embedded"},
		{"REGEXP_REPLACE('abc def ghi', '[a-z]+', 'X', 5)", "abc X X", "embedded"},
		{"REGEXP_LIKE('CamelCase', 'camel', 'i')", "1", "embedded"},
		{"REGEXP_LIKE('CamelCase', 'camel', 'c')", "0", "embedded"},
	}
	for target, c := range openTargets(t) {
		t.Run(target, func(t *testing.T) {
			for _, tc := range cases {
				if tc.only != "" && tc.only != target {
					continue
				}
				rs, err := c.Query(ctx, "SELECT "+tc.expr)
				if err != nil {
					t.Errorf("%s: %v", tc.expr, err)
					continue
				}
				got := fmt.Sprint(rs.Rows[0][0])
				if b, ok := rs.Rows[0][0].([]byte); ok {
					got = string(b)
				}
				if got != tc.want {
					t.Errorf("%s = %s, want %s", tc.expr, got, tc.want)
				}
			}
		})
	}
}
