package mysqlconn_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/internal/mysqlconn"
	"github.com/starbench/starbench/internal/testutil/benchtest"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
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

// session opens a session that prepares statements on the server.
func session(t *testing.T, cfg *mysql.Config) *mysqlconn.Session {
	t.Helper()
	s, err := mysqlconn.Open(context.Background(), cfg, mysqlconn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func prepare(t *testing.T, s *mysqlconn.Session, query string) mysqlconn.Stmt {
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
func inStep(t *testing.T, s *mysqlconn.Session) {
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
// statements go through the driver and still work: the session really is
// compressed, the statements are prepared and executed on the server as
// often as called, affected rows are counted, the values arrive as sent,
// and results of many rows leave the session in step.
func TestPreparedStatementsOnACompressedConnection(t *testing.T) {
	d := adminDB(t)
	mustExec(t, d, "DROP TABLE IF EXISTS wire_compressed", "CREATE TABLE wire_compressed (id INT PRIMARY KEY, n BIGINT, s TEXT)")
	cfg := sandboxtest.Shared(t).Config()
	cfg.ReadTimeout = 5 * time.Second // a misread would otherwise wait for bytes that never come
	if err := cfg.Apply(mysql.EnableCompression(true)); err != nil {
		t.Fatal(err)
	}
	s := session(t, cfg)
	ctx := context.Background()
	const compressed = "SELECT 1 FROM information_schema.SESSION_STATUS WHERE VARIABLE_NAME = 'COMPRESSION' AND VARIABLE_VALUE = 'ON'"
	if n, err := s.Query(ctx, compressed); err != nil || n != 1 {
		t.Fatalf("the session's Compression status is not ON: %d rows, %v", n, err)
	}
	if n, err := session(t, sandboxtest.Shared(t).Config()).Query(ctx, compressed); err != nil || n != 0 {
		t.Fatalf("an uncompressed session's Compression status: %d rows, %v, want none", n, err)
	}
	before := stmtCounts(t, s)

	long := strings.Repeat("compressible text ", 400) // 7200 bytes: compressed on the wire
	ins := prepare(t, s, "INSERT INTO wire_compressed VALUES (?, ?, ?)")
	for id := 1; id <= 3; id++ {
		if n, err := ins.Exec(ctx, id, int64(id)<<40, fmt.Sprint(id, long)); err != nil || n != 1 {
			t.Fatalf("insert %d: %d rows, %v", id, n, err)
		}
	}
	upd := prepare(t, s, "UPDATE wire_compressed SET n = n + ? WHERE id <= ?")
	if n, err := upd.Exec(ctx, 5, 2); err != nil || n != 2 {
		t.Errorf("update of two rows: %d affected, %v", n, err)
	}
	sel := prepare(t, s, "SELECT seq, REPEAT('r', 200) FROM seq_1_to_1000 WHERE seq > ?")
	for range 3 {
		if err := sel.Query(ctx, int64(10)); err != nil {
			t.Fatal(err)
		}
	}
	// 990 rows each time, as a text query on the session counts them.
	if n, err := s.Query(ctx, "SELECT seq, REPEAT('r', 200) FROM seq_1_to_1000 WHERE seq > 10"); err != nil || n != 990 {
		t.Errorf("text query after: %d rows, %v, want 990", n, err)
	}
	after := stmtCounts(t, s)
	if got, want := [2]int64{after[0] - before[0], after[1] - before[1]}, [2]int64{3, 3 + 1 + 3}; got != want {
		t.Errorf("the server prepared %d and executed %d statements, want %d and %d", got[0], got[1], want[0], want[1])
	}

	rows, err := d.Query("SELECT id, n, s FROM wire_compressed ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var id int
		var n int64
		var text string
		if err := rows.Scan(&id, &n, &text); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprint(id, n, text == fmt.Sprint(id, long)))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{fmt.Sprint(1, 1<<40+5, true), fmt.Sprint(2, 2<<40+5, true), fmt.Sprint(3, 3<<40, true)}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("rows written over the compressed session (id, n, s as sent): %v, want %v", got, want)
	}
	inStep(t, s)
}

// stmtCounts returns the session's Com_stmt_prepare and Com_stmt_execute
// counters, read on the session itself (a query returns as many rows as
// the counter's value, which Session.Query reports).
func stmtCounts(t *testing.T, s *mysqlconn.Session) [2]int64 {
	t.Helper()
	var out [2]int64
	for i, name := range []string{"COM_STMT_PREPARE", "COM_STMT_EXECUTE"} {
		n, err := s.Query(context.Background(), "SELECT seq FROM seq_1_to_100000 WHERE seq <= "+
			"(SELECT VARIABLE_VALUE FROM information_schema.SESSION_STATUS WHERE VARIABLE_NAME = '"+name+"')")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[i] = n
	}
	return out
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
// results end with EOF packets. A tap between the session and the
// responder shows that they really do (the client did not ask for
// CLIENT_DEPRECATE_EOF, the responder sent two EOF packets per result),
// that every query went out as one COM_STMT_EXECUTE of the one prepared
// statement, and that the session read each answer to its end: a later
// execution still gets its own answer (one affected row).
func TestPreparedStatementsWithEOFPackets(t *testing.T) {
	r, err := benchtest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cfg := r.Config()
	cfg.ReadTimeout = 5 * time.Second // a misread would otherwise wait for bytes that never come
	tp := newPacketTap(t, r.Addr())
	cfg.Addr = tp.addr
	s := session(t, cfg)
	ctx := context.Background()
	st := prepare(t, s, "SELECT c FROM sbtest1 WHERE id=?")
	for i := range 100 {
		if err := st.Query(ctx, int64(i)); err != nil {
			t.Fatalf("query %d: %v", i, err)
		}
	}
	upd := prepare(t, s, "UPDATE sbtest1 SET k=k+1 WHERE id=?")
	for i := range 3 {
		if n, err := upd.Exec(ctx, int64(i)); err != nil || n != 1 {
			t.Fatalf("update %d after the queries: %d rows, %v", i, n, err)
		}
	}
	if _, err := s.Query(ctx, "SELECT 1"); err != nil {
		t.Fatal(err)
	}
	got := tp.counts()
	// Prepares: the SELECT's answer has one parameter and one column
	// definition, each list closed by an EOF; the UPDATE's one parameter
	// and its EOF. Executions: column count, definition, EOF, row, EOF.
	want := tapCounts{handshake: true, deprecateEOF: false, prepares: 2, executes: 103, queries: 1, eofs: 2 + 1 + 100*2}
	if got != want {
		t.Errorf("on the wire: %+v\nwant        %+v", got, want)
	}
}

// tapCounts is what a packetTap saw.
type tapCounts struct {
	handshake, deprecateEOF     bool // the client's handshake response, and whether it asked for CLIENT_DEPRECATE_EOF
	prepares, executes, queries int  // client commands
	eofs                        int  // server EOF packets (0xfe, under 9 bytes) after the handshake
}

// packetTap relays one uncompressed, unencrypted MySQL connection packet
// by packet and counts what goes by.
type packetTap struct {
	addr string
	mu   sync.Mutex
	c    tapCounts
}

func (p *packetTap) counts() tapCounts {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.c
}

func newPacketTap(t *testing.T, target string) *packetTap {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &packetTap{addr: ln.Addr().String()}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	// relay copies packets from src to dst and calls see with each one.
	relay := func(dst, src net.Conn, see func(seq byte, payload []byte)) {
		defer wg.Done()
		defer dst.Close()
		var head [4]byte
		for {
			if _, err := io.ReadFull(src, head[:]); err != nil {
				return
			}
			payload := make([]byte, int(head[0])|int(head[1])<<8|int(head[2])<<16)
			if _, err := io.ReadFull(src, payload); err != nil {
				return
			}
			see(head[3], payload)
			if _, err := dst.Write(append(head[:], payload...)); err != nil {
				return
			}
		}
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		client, err := ln.Accept()
		if err != nil {
			return
		}
		server, err := net.Dial("tcp", target)
		if err != nil {
			client.Close()
			return
		}
		mu.Lock()
		conns = append(conns, client, server)
		mu.Unlock()
		wg.Add(2)
		go relay(server, client, func(seq byte, b []byte) {
			p.mu.Lock()
			defer p.mu.Unlock()
			switch {
			case !p.c.handshake && seq == 1 && len(b) >= 4:
				p.c.handshake = true
				p.c.deprecateEOF = binary.LittleEndian.Uint32(b)&(1<<24) != 0
			case seq == 0 && len(b) > 0 && b[0] == 0x16:
				p.c.prepares++
			case seq == 0 && len(b) > 0 && b[0] == 0x17:
				p.c.executes++
			case seq == 0 && len(b) > 0 && b[0] == 0x03:
				p.c.queries++
			}
		})
		go relay(client, server, func(seq byte, b []byte) {
			p.mu.Lock()
			defer p.mu.Unlock()
			if p.c.handshake && len(b) > 0 && len(b) < 9 && b[0] == 0xfe {
				p.c.eofs++
			}
		})
	}()
	return p
}
