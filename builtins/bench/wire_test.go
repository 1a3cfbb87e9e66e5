package bench_test

import (
	"bytes"
	"context"
	"database/sql"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/bench/benchtest"
	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/builtins/sandbox/sandboxtest"
)

// adminDB is a database/sql handle on the shared server, to set tables up
// and read back what prepared statements wrote.
func adminDB(t *testing.T) *sql.DB {
	t.Helper()
	d, err := sql.Open("mysql", sandboxtest.Shared(t).DSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func mustExec(t *testing.T, d *sql.DB, statements ...string) {
	t.Helper()
	for _, q := range statements {
		if _, err := d.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

func session(t *testing.T, cfg *mysql.Config) bench.Session {
	t.Helper()
	s, err := bench.NewSQLConnector(cfg, bench.PSAuto).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func prepare(t *testing.T, s bench.Session, query string) bench.Stmt {
	t.Helper()
	st, err := s.Prepare(context.Background(), query)
	if err != nil {
		t.Fatalf("prepare %s: %v", query, err)
	}
	return st
}

// inStep checks that a session still answers both its prepared statements
// and the driver's text ones: a result read short or long would leave the
// next answer misread.
func inStep(t *testing.T, s bench.Session) {
	t.Helper()
	ctx := context.Background()
	st := prepare(t, s, "SELECT ? + 1")
	defer st.Close()
	if err := st.Query(ctx, int64(41)); err != nil {
		t.Fatalf("prepared statement after: %v", err)
	}
	if n, err := s.Query(ctx, "SELECT 1 UNION ALL SELECT 2"); err != nil || n != 2 {
		t.Fatalf("text query after: %d rows, %v", n, err)
	}
}

// Every value type a workload may bind reaches the server as the value it
// is, also when the types change from one execution to the next (the
// types are sent only when they do).
func TestPreparedStatementValues(t *testing.T) {
	d := adminDB(t)
	mustExec(t, d, "DROP TABLE IF EXISTS wire_values",
		`CREATE TABLE wire_values (id INT PRIMARY KEY, i BIGINT NULL, u BIGINT UNSIGNED NULL, f DOUBLE NULL,
			b BOOL NULL, s VARCHAR(400) NULL, bin VARBINARY(400) NULL, n INT NULL, dt DATETIME(6) NULL)`)
	s := session(t, sandboxtest.Shared(t).Config())
	ctx := context.Background()
	ins := prepare(t, s, "INSERT INTO wire_values VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
	long := strings.Repeat("é'\\\x00x", 60) // 300 bytes: a two-byte length
	when := time.Date(2026, 11, 30, 12, 34, 56, 789012000, time.UTC)
	rows := [][]any{
		{1, int64(-1 << 62), uint64(math.MaxUint64), 1.5, true, long, []byte{0, 1, 0xff}, nil, when},
		{2, nil, uint64(7), -2.25e-3, false, "", []byte{}, int32(5), nil},
		{3, int64(3), nil, nil, nil, nil, nil, "42", time.Time{}.Add(time.Hour)},
	}
	for _, r := range rows {
		if n, err := ins.Exec(ctx, r...); err != nil || n != 1 {
			t.Fatalf("insert %v: %d rows, %v", r[0], n, err)
		}
	}
	type row struct {
		i          sql.NullInt64
		u          sql.NullString
		f          sql.NullFloat64
		b          sql.NullBool
		s, bin, dt sql.NullString
		n          sql.NullInt64
	}
	got := map[int]row{}
	res, err := d.Query("SELECT id, i, u, f, b, s, bin, n, dt FROM wire_values")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	for res.Next() {
		var id int
		var r row
		if err := res.Scan(&id, &r.i, &r.u, &r.f, &r.b, &r.s, &r.bin, &r.n, &r.dt); err != nil {
			t.Fatal(err)
		}
		got[id] = r
	}
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	want := map[int]row{
		1: {i: sql.NullInt64{Int64: -1 << 62, Valid: true}, u: sql.NullString{String: "18446744073709551615", Valid: true},
			f: sql.NullFloat64{Float64: 1.5, Valid: true}, b: sql.NullBool{Bool: true, Valid: true},
			s: sql.NullString{String: long, Valid: true}, bin: sql.NullString{String: "\x00\x01\xff", Valid: true},
			dt: sql.NullString{String: "2026-11-30 12:34:56.789012", Valid: true}},
		2: {u: sql.NullString{String: "7", Valid: true}, f: sql.NullFloat64{Float64: -2.25e-3, Valid: true},
			b: sql.NullBool{Valid: true}, s: sql.NullString{Valid: true}, bin: sql.NullString{Valid: true},
			n: sql.NullInt64{Int64: 5, Valid: true}},
		3: {i: sql.NullInt64{Int64: 3, Valid: true}, n: sql.NullInt64{Int64: 42, Valid: true},
			dt: sql.NullString{String: "0001-01-01 01:00:00.000000", Valid: true}},
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("row %d:\n got %+v\nwant %+v", id, got[id], w)
		}
	}
	upd := prepare(t, s, "UPDATE wire_values SET n = ? WHERE id <= ?")
	if n, err := upd.Exec(ctx, 9, 2); err != nil || n != 2 {
		t.Errorf("update of two rows: %d affected, %v", n, err)
	}
	if _, err := ins.Exec(ctx, 4); err == nil || !strings.Contains(err.Error(), "placeholders") {
		t.Errorf("one argument for nine placeholders: %v", err)
	}
	inStep(t, s)
}

// Server errors come back as the driver's errors with their codes, and the
// session stays usable after them and after results of every shape: many
// rows, rows longer than the read buffer, several result sets.
func TestPreparedStatementResultsAndErrors(t *testing.T) {
	d := adminDB(t)
	mustExec(t, d, "DROP TABLE IF EXISTS wire_errors", "CREATE TABLE wire_errors (id INT PRIMARY KEY)",
		"DROP PROCEDURE IF EXISTS wire_two_results",
		"CREATE PROCEDURE wire_two_results() BEGIN SELECT 1; SELECT 2, REPEAT('y', 70000); END")
	s := session(t, sandboxtest.Shared(t).Config())
	ctx := context.Background()

	if _, err := s.Prepare(ctx, "SELEKT 1"); !hasCode(err, 1064) {
		t.Errorf("prepare of a syntax error: %v, want error 1064", err)
	}
	inStep(t, s)
	ins := prepare(t, s, "INSERT INTO wire_errors VALUES (?)")
	if _, err := ins.Exec(ctx, 1); err != nil {
		t.Fatal(err)
	}
	_, err := ins.Exec(ctx, 1)
	if !hasCode(err, 1062) || bench.IsConnectionLost(err) {
		t.Errorf("duplicate key: %v, want error 1062 on a live connection", err)
	}
	inStep(t, s)
	// An error after some rows: a value out of range on row 4000.
	over := prepare(t, s, "SELECT seq * (CASE WHEN seq < 4000 THEN 1 ELSE 9223372036854775807 END) FROM seq_1_to_5000")
	if err := over.Query(ctx); !hasCode(err, 1690) {
		t.Errorf("error after rows: %v, want error 1690", err)
	}
	inStep(t, s)
	for _, q := range []string{
		"SELECT seq, REPEAT('x', 100) FROM seq_1_to_20000", // 2.5 MB in small rows
		"SELECT REPEAT('x', 100000)",                       // a row longer than the buffer
		"CALL wire_two_results()",                          // two result sets and the call's status
	} {
		if err := prepare(t, s, q).Query(ctx); err != nil {
			t.Errorf("%s: %v", q, err)
		}
		inStep(t, s)
	}
}

func hasCode(err error, code uint16) bool {
	got, ok := db.ErrorCode(err)
	return ok && got == code
}

// Payloads of 16 MiB and more travel in several packets, both ways.
func TestPreparedStatementLargePackets(t *testing.T) {
	d := adminDB(t)
	var before int64
	if err := d.QueryRow("SELECT @@GLOBAL.max_allowed_packet").Scan(&before); err != nil {
		t.Fatal(err)
	}
	mustExec(t, d, "SET GLOBAL max_allowed_packet = 64 << 20", "DROP TABLE IF EXISTS wire_large",
		"CREATE TABLE wire_large (id INT PRIMARY KEY, v LONGBLOB)")
	t.Cleanup(func() {
		_, _ = d.Exec("SET GLOBAL max_allowed_packet = ?", before)
		_, _ = d.Exec("DROP TABLE wire_large")
	})
	s := session(t, sandboxtest.Shared(t).Config()) // after the new limit
	ctx := context.Background()
	ins := prepare(t, s, "INSERT INTO wire_large VALUES (?, ?)")
	// The first execution's payload: 28 bytes (command, statement id,
	// flags, iterations, NULL bitmap, types, the id, the value's length)
	// and the value, together exactly the largest a packet holds.
	exactly := bytes.Repeat([]byte("y"), 1<<24-1-28)
	more := bytes.Repeat([]byte("z"), 17<<20)
	for id, v := range [][]byte{exactly, more} {
		if n, err := ins.Exec(ctx, id, v); err != nil || n != 1 {
			t.Fatalf("insert of %d bytes: %d rows, %v", len(v), n, err)
		}
		inStep(t, s)
	}
	var sizes string
	if err := d.QueryRow("SELECT GROUP_CONCAT(LENGTH(v) ORDER BY id) FROM wire_large").Scan(&sizes); err != nil {
		t.Fatal(err)
	}
	if want := "16777187,17825792"; sizes != want {
		t.Errorf("stored lengths %s, want %s", sizes, want)
	}
	if err := prepare(t, s, "SELECT v FROM wire_large ORDER BY id").Query(ctx); err != nil {
		t.Fatalf("reading rows of 16 and 17 MiB: %v", err)
	}
	inStep(t, s)
}

// On a compressed connection the packets are not plain protocol: prepared
// statements go through the driver and still work.
func TestPreparedStatementsOnACompressedConnection(t *testing.T) {
	cfg := sandboxtest.Shared(t).Config()
	cfg.ReadTimeout = 5 * time.Second // a misread would otherwise wait for bytes that never come
	if err := cfg.Apply(mysql.EnableCompression(true)); err != nil {
		t.Fatal(err)
	}
	s := session(t, cfg)
	st := prepare(t, s, "SELECT seq FROM seq_1_to_1000 WHERE seq > ?")
	for range 3 {
		if err := st.Query(context.Background(), int64(10)); err != nil {
			t.Fatal(err)
		}
	}
	inStep(t, s)
}

// A prepared point query allocates nothing in starbench's path: the one
// allocation left is boxing the argument at the call.
func TestPreparedQueryAllocations(t *testing.T) {
	s := session(t, sandboxtest.Shared(t).Config())
	st := prepare(t, s, "SELECT ? + 1")
	ctx := context.Background()
	id, args := int64(1000), make([]any, 1) // the engine's workers reuse their argument slices too
	var err error
	allocs := testing.AllocsPerRun(200, func() {
		id++
		args[0] = id
		if e := st.Query(ctx, args...); e != nil {
			err = e
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if allocs > 1 {
		t.Errorf("%.1f allocations per prepared query, want at most 1 (the boxed argument)", allocs)
	}
}

// Against a server without CLIENT_DEPRECATE_EOF (the in-process responder),
// results end with EOF packets.
func TestPreparedStatementsWithEOFPackets(t *testing.T) {
	r, err := benchtest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s := session(t, r.Config())
	st := prepare(t, s, "SELECT c FROM sbtest1 WHERE id=?")
	for i := range 100 {
		if err := st.Query(context.Background(), int64(i)); err != nil {
			t.Fatalf("query %d: %v", i, err)
		}
	}
	if _, err := s.Query(context.Background(), "SELECT 1"); err != nil {
		t.Fatal(err)
	}
}
