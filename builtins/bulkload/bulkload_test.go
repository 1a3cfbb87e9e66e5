package bulkload_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/bulkload"
	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/internal/sandbox"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
)

func TestMain(m *testing.M) { sandboxtest.Main(m) }

// items is a table another family could load: ids, awkward strings and
// NULLs, generated from a counter (a stand-in for a seeded generator).
func items(name string, rows int64, start int64) bulkload.Table {
	next := start
	value := func(i int64) string { return fmt.Sprintf("it'em\t%d\\ \"q\"\nline", i) }
	return bulkload.Table{
		Name: name, Columns: "(id, name, note)", Insert: "INSERT INTO " + name + "(id, name, note) VALUES", Rows: rows,
		Row: func(b []byte, text bool) []byte {
			i := next
			next++
			if text {
				b = strconv.AppendInt(b, i, 10)
				b = append(b, '\t')
				b = bulkload.AppendText(b, value(i))
				if i%3 == 0 {
					return append(b, "\t\\N\n"...)
				}
				return append(b, "\tnote\n"...)
			}
			b = append(b, '(')
			b = strconv.AppendInt(b, i, 10)
			b = append(b, ", "...)
			b = bulkload.AppendSQLString(b, value(i))
			if i%3 == 0 {
				return append(b, ", NULL)"...)
			}
			return append(b, ", 'note')"...)
		},
	}
}

// LOAD DATA and INSERT load the same rows, strings and NULLs as generated;
// a server that refuses LOAD DATA gets INSERTs from Auto (the fallback is
// told once) and an error from LoadData; an error after rows went in is
// not a refusal.
func TestMethodsLoadTheSameRows(t *testing.T) {
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{})
	ctx := context.Background()
	admin, err := db.Open(ctx, m.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	exec := func(q string) {
		t.Helper()
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	content := func(table string) string {
		t.Helper()
		rs, err := admin.Query(ctx, "SELECT COUNT(*), SUM(note IS NULL), MD5(GROUP_CONCAT(id, name, IFNULL(note, '-') ORDER BY id SEPARATOR '|')) FROM "+table)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(rs.Rows[0])
	}
	conn := bench.NewSQLConnector(m.Config(), bench.PSAuto)
	s, err := conn.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const rows = 450_000 // more than one LOAD DATA statement's 200,000
	got := map[string]string{}
	for _, method := range []string{bulkload.Insert, bulkload.LoadData, bulkload.Auto} {
		table := "items_" + strings.ReplaceAll(method, "-", "_")
		exec("CREATE TABLE " + table + " (id INT PRIMARY KEY, name VARCHAR(64), note VARCHAR(8))")
		l := &bulkload.Loader{Method: method, Fallback: func(error) { t.Errorf("%s fell back to INSERT", method) }}
		if err := l.Load(ctx, s, items(table, rows, 1)); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		got[method] = content(table)
	}
	if got[bulkload.Insert] != got[bulkload.LoadData] || got[bulkload.LoadData] != got[bulkload.Auto] || !strings.HasPrefix(got[bulkload.Insert], "[450000 150000 ") {
		t.Errorf("contents by method: %v", got)
	}
	var one string
	rs, _ := admin.Query(ctx, "SELECT name FROM items_load_data WHERE id = 7")
	if one = fmt.Sprint(rs.Rows[0][0]); one != "it'em\t7\\ \"q\"\nline" {
		t.Errorf("row 7's name: %q", one)
	}

	// Rows that collide with rows already there: the server read some, so
	// it is an error naming the table, not a refusal.
	// LOAD DATA LOCAL only warns of them: the count of rows taken tells.
	l := &bulkload.Loader{Fallback: func(error) { t.Error("a duplicate key was taken for a refusal") }}
	err = l.Load(ctx, s, items("items_auto", 10, rows-4))
	if err == nil || err.Error() != "load items_auto: the server took 5 of rows 1-10 (LOAD DATA LOCAL skips duplicate keys and values that do not fit)" {
		t.Errorf("loading duplicates: %v", err)
	}

	exec("SET GLOBAL local_infile = 0")
	exec("CREATE TABLE items_refused (id INT PRIMARY KEY, name VARCHAR(64), note VARCHAR(8))")
	var reasons []error
	l = &bulkload.Loader{Fallback: func(err error) { reasons = append(reasons, err) }}
	for _, from := range []int64{1, 1001} {
		if err := l.Load(ctx, s, items("items_refused", 1000, from)); err != nil {
			t.Fatal(err)
		}
	}
	// MariaDB 10.11 refuses with 4166 (1148 before it, 3948 on MySQL 8).
	if _, isServer := db.ErrorCode(errors.Join(reasons...)); len(reasons) != 1 || !isServer {
		t.Errorf("fallback told %v, want once with the server's refusal", reasons)
	}
	if c := content("items_refused"); !strings.HasPrefix(c, "[2000 666 ") {
		t.Errorf("after the fallback: %s", c)
	}
	strict := &bulkload.Loader{Method: bulkload.LoadData}
	if err := strict.Load(ctx, s, items("items_refused", 5, 5000)); err == nil {
		t.Error("load-data on a server that refuses it succeeded")
	}
	if err := bulkload.CheckMethod("fast"); err == nil || !strings.Contains(err.Error(), "auto, insert or load-data") {
		t.Errorf("CheckMethod(fast): %v", err)
	}
}
