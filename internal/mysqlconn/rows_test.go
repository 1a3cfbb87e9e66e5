package mysqlconn_test

import (
	"bytes"
	"context"
	"database/sql/driver"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/starbench/starbench/internal/mysqlconn"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
)

// rowsText renders decoded rows comparably: values by Go type.
func rowsText(t *testing.T, st mysqlconn.Stmt, args ...any) string {
	t.Helper()
	var b strings.Builder
	n, err := st.QueryRows(context.Background(), func(cols []driver.Value) error {
		for _, v := range cols {
			switch v := v.(type) {
			case []byte:
				fmt.Fprintf(&b, "%q ", v)
			case time.Time:
				fmt.Fprintf(&b, "%s ", v.Format("2006-01-02 15:04:05.000000"))
			default:
				fmt.Fprintf(&b, "%T(%v) ", v, v)
			}
		}
		b.WriteString("|")
		return nil
	}, args...)
	if err != nil {
		t.Fatalf("QueryRows: %v", err)
	}
	return fmt.Sprintf("%d: %s", n, b.String())
}

// QueryRows decodes every column type a workload reads, on the binary
// path, through the driver (compressed connection) and as text, and the
// session stays in step after it, also when the callback stops early and
// when a row is larger than the read buffer.
func TestQueryRowsDecodesValues(t *testing.T) {
	d := adminDB(t)
	mustExec(t, d, "DROP TABLE IF EXISTS rows_types", `CREATE TABLE rows_types (
		id INT PRIMARY KEY, ti TINYINT, tu TINYINT UNSIGNED, sm SMALLINT, mi MEDIUMINT, bu BIGINT UNSIGNED,
		f FLOAT, dbl DOUBLE, dec_ DECIMAL(12, 2), vc VARCHAR(20), ch CHAR(4), bl BLOB,
		dt DATE, dtm DATETIME(6), ts TIMESTAMP NULL, tm TIME, yr YEAR, nu INT)`,
		`INSERT INTO rows_types VALUES
		(1, -5, 250, -300, 70000, 18446744073709551615, 1.5, -2.25, 1234567.89, 'it''s', 'ab', x'00ff10',
		 '2026-12-01', '2026-12-01 12:34:56.789012', '2026-12-01 01:02:03', '-25:30:15', 2026, NULL),
		(2, 0, 0, 0, 0, 7, 0, 0, 0.00, '', '', '', '1999-01-31', '1999-01-31 00:00:00', NULL, '00:00:00', 1999, 42)`)
	t.Cleanup(func() { _, _ = d.Exec("DROP TABLE rows_types") })
	const q = "SELECT * FROM rows_types WHERE id >= ? ORDER BY id"
	want := `2: int64(1) int64(-5) int64(250) int64(-300) int64(70000) uint64(18446744073709551615) float64(1.5) float64(-2.25) "1234567.89" "it's" "ab" "\x00\xff\x10" ` +
		`2026-12-01 00:00:00.000000 2026-12-01 12:34:56.789012 2026-12-01 01:02:03.000000 "-25:30:15" int64(2026) <nil>(<nil>) |` +
		`int64(2) int64(0) int64(0) int64(0) int64(0) int64(7) float64(0) float64(0) "0.00" "" "" "" ` +
		`1999-01-31 00:00:00.000000 1999-01-31 00:00:00.000000 <nil>(<nil>) "00:00:00" int64(1999) int64(42) |`

	s := session(t, sandboxtest.Shared(t).Config())
	if got := rowsText(t, prepare(t, s, q), 1); got != want {
		t.Errorf("binary protocol:\n got %s\nwant %s", got, want)
	}
	inStep(t, s)

	cfg := sandboxtest.Shared(t).Config()
	cfg.ReadTimeout = 5 * time.Second
	if err := cfg.Apply(mysql.EnableCompression(true)); err != nil {
		t.Fatal(err)
	}
	viaDriver := rowsText(t, prepare(t, session(t, cfg), q), 1)
	// The driver reads DECIMAL, TIME and character columns as []byte, as
	// the binary path does, and the same numbers.
	if viaDriver != want {
		t.Errorf("through the driver:\n got %s\nwant %s", viaDriver, want)
	}

	text, err := mysqlconn.Open(context.Background(), sandboxtest.Shared(t).Config(), mysqlconn.Options{TextStatements: true})
	if err != nil {
		t.Fatal(err)
	}
	defer text.Close()
	st, _ := text.Prepare(context.Background(), q)
	// The text protocol's values come as the binary path's types too.
	rows := strings.SplitN(strings.TrimPrefix(want, "2: "), "|", 2)
	if got := rowsText(t, st, 2); got != "1: "+rows[1] {
		t.Errorf("as text:\n got %s\nwant %s", got, "1: "+rows[1])
	}

	// A callback that stops: its error, and the session still in step.
	stop := fmt.Errorf("enough")
	n, err := prepare(t, s, q).QueryRows(context.Background(), func([]driver.Value) error { return stop }, 1)
	if err != stop || n != 2 {
		t.Errorf("stopped early: %d rows, %v", n, err)
	}
	inStep(t, s)

	// Rows larger than the read buffer (16 KB) and than a packet (16 MiB).
	var before int64
	if err := d.QueryRow("SELECT @@GLOBAL.max_allowed_packet").Scan(&before); err != nil {
		t.Fatal(err)
	}
	mustExec(t, d, "SET GLOBAL max_allowed_packet = 64 << 20", "DROP TABLE IF EXISTS rows_large",
		"CREATE TABLE rows_large (id INT PRIMARY KEY, v LONGBLOB)")
	t.Cleanup(func() {
		_, _ = d.Exec("SET GLOBAL max_allowed_packet = ?", before)
		_, _ = d.Exec("DROP TABLE rows_large")
	})
	s = session(t, sandboxtest.Shared(t).Config())
	ins := prepare(t, s, "INSERT INTO rows_large VALUES (?, ?)")
	values := [][]byte{bytes.Repeat([]byte("a"), 100<<10), bytes.Repeat([]byte("b"), 17<<20), []byte("c")}
	for i, v := range values {
		if _, err := ins.Exec(context.Background(), int64(i), v); err != nil {
			t.Fatal(err)
		}
	}
	i := 0
	n, err = prepare(t, s, "SELECT id, v FROM rows_large ORDER BY id").QueryRows(context.Background(), func(cols []driver.Value) error {
		if cols[0] != int64(i) || !bytes.Equal(cols[1].([]byte), values[i]) {
			return fmt.Errorf("row %d: id %v, %d bytes", i, cols[0], len(cols[1].([]byte)))
		}
		i++
		return nil
	})
	if err != nil || n != 3 {
		t.Fatalf("large rows: %d, %v", n, err)
	}
	inStep(t, s)
}
