package main

import (
	"bufio"
	"database/sql"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/starbench/starbench/internal/testutil/gotpctest"
)

// go-tpc's `prepare --output-type csv`, as go-tpc v1.0.7 does it: the
// database and its nine tables made empty, the rows written as
// DB.TABLE.THREAD.csv files (the same files as go-tpc's, the same lines
// per file but order_line's random count, the same value formats column
// by column). The files load into MariaDB with LOAD DATA and pass tpcc
// check; go-tpc's own files load and pass the same way.
func TestTPCCCSVOutputAsGoTPC(t *testing.T) {
	bin := gotpctest.Binary(t)
	m, _ := serverWith(t)
	host, port, _ := strings.Cut(m.Config().Addr, ":")
	conn := []string{"-H", host, "-P", port, "-U", "root", "-p", m.Password()}
	tpccCmd := func(extra ...string) cliResult {
		return starbench(t, nil, append(append([]string{"tpcc"}, conn...), extra...)...)
	}
	ours, theirs := filepath.Join(t.TempDir(), "ours"), filepath.Join(t.TempDir(), "theirs")
	r := tpccCmd("-D", "sbcsv", "--warehouses", "1", "-T", "2", "prepare", "--output-type", "csv", "--output-dir", ours)
	expect(t, r, 0, "database sbcsv did not exist on ", "Creating table 'sbcsv.order_line' (empty", "into 17 files", "then run check")
	gotpctest.Run(t, bin, m, "gotpccsv", "prepare", "--warehouses", "1", "-T", "2", "--output-type", "csv", "--output-dir", theirs)

	admin, err := sql.Open("mysql", m.Config().FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	for _, schema := range []string{"sbcsv", "gotpccsv"} {
		var tables, rows int
		if err := admin.QueryRow("SELECT COUNT(*), COALESCE(SUM(TABLE_ROWS), 0) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?", schema).Scan(&tables, &rows); err != nil {
			t.Fatal(err)
		}
		if tables != 9 || rows != 0 {
			t.Errorf("%s: %d tables, %d rows; want the nine, empty", schema, tables, rows)
		}
	}

	// The same files, lines and formats.
	names := func(dir, db string) []string {
		entries, _ := os.ReadDir(dir)
		var out []string
		for _, e := range entries {
			out = append(out, strings.TrimPrefix(e.Name(), db+"."))
		}
		return out
	}
	if a, b := names(ours, "sbcsv"), names(theirs, "gotpccsv"); !slices.Equal(a, b) || len(a) != 17 {
		t.Fatalf("files: starbench %v\ngo-tpc %v", a, b)
	}
	for _, name := range names(ours, "sbcsv") {
		a, b := csvShape(t, filepath.Join(ours, "sbcsv."+name)), csvShape(t, filepath.Join(theirs, "gotpccsv."+name))
		if a.lines != b.lines && !strings.HasPrefix(name, "order_line.") {
			t.Errorf("%s: %d lines by starbench, %d by go-tpc", name, a.lines, b.lines)
		}
		if fmt.Sprint(a.columns) != fmt.Sprint(b.columns) {
			t.Errorf("%s: value formats by column\nstarbench %v\ngo-tpc    %v", name, a.columns, b.columns)
		}
	}

	// Loaded with LOAD DATA, both pass the checks.
	cfg := m.Config().Clone()
	cfg.AllowAllFiles = true
	loader, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer loader.Close()
	for schema, dir := range map[string]string{"sbcsv": ours, "gotpccsv": theirs} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.csv"))
		for _, f := range files {
			table := strings.Split(filepath.Base(f), ".")[1]
			q := fmt.Sprintf("LOAD DATA LOCAL INFILE '%s' INTO TABLE %s.%s FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"'", f, schema, table)
			if _, err := loader.Exec(q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		expect(t, tpccCmd("-D", schema, "--warehouses", "1", "check"), 0, "3.3.2.1 ", "3.3.2.12")
	}
	var nulls int
	if err := admin.QueryRow("SELECT COUNT(*) FROM sbcsv.orders WHERE o_carrier_id IS NULL").Scan(&nulls); err != nil || nulls != 9000 {
		t.Errorf("%d undelivered orders (no carrier) loaded, want 9,000 (%v)", nulls, err)
	}
}

// A server that does not answer is said and the files are written all
// the same, as go-tpc does; --tables picks the files. Flags that go-tpc
// would take and act on otherwise (or ignore: --driver), and its retries,
// which starbench does not have, are refused with exit 2.
func TestTPCCCSVOutputWithoutServer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().(*net.TCPAddr)
	l.Close() // nothing listens there now
	conn := []string{"-H", "127.0.0.1", "-P", strconv.Itoa(addr.Port), "-D", "tpcc", "--warehouses", "2", "-T", "3"}
	dir := filepath.Join(t.TempDir(), "csv")
	r := starbench(t, nil, append([]string{"tpcc", "prepare", "--output-type", "csv", "--output-dir", dir, "--tables", "stock,item"}, conn...)...)
	expect(t, r, 0, "does not answer", "writing the files only, no tables made", "into 4 files")
	entries, _ := os.ReadDir(dir)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if want := []string{"tpcc.item.0.csv", "tpcc.stock.0.csv", "tpcc.stock.1.csv", "tpcc.stock.2.csv"}; !slices.Equal(got, want) {
		t.Errorf("files %v, want %v", got, want)
	}
	// Warehouses 1 and 2 by threads 0 and 1; thread 2 has none.
	for i, want := range []int{100_000, 100_000, 0} {
		if s := csvShape(t, filepath.Join(dir, fmt.Sprintf("tpcc.stock.%d.csv", i))); s.lines != want {
			t.Errorf("stock.%d: %d lines, want %d", i, s.lines, want)
		}
	}

	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"prepare", "--output-type", "sql", "--output-dir", dir}, `--output-type "sql": go-tpc writes csv only`},
		{[]string{"prepare", "--output-type", "csv"}, "--output-type csv needs --output-dir DIR"},
		{[]string{"prepare", "--output-dir", dir}, "--output-dir is for --output-type csv"},
		{[]string{"prepare", "--tables", "stock"}, "--tables is for --output-type csv"},
		{[]string{"prepare", "--output-type", "csv", "--output-dir", dir, "--tables", "stocks"}, `table "stocks" is not a go-tpc table`},
		{[]string{"run", "--time", "1s", "--output-type", "csv", "--output-dir", dir}, "--output-type is prepare's"},
		{[]string{"prepare", "--output-type", "csv", "--output-dir", dir, "--dropdata"}, "--dropdata with --output-type csv"},
		{[]string{"prepare", "-d", "postgres"}, `--driver "postgres": go-tpc v1.0.7 and starbench speak MySQL's protocol only`},
		{[]string{"prepare", "--retry-count", "5"}, "--retry-count: starbench's prepare does not retry a failed load statement"},
	} {
		expect(t, starbench(t, nil, append(append([]string{"tpcc"}, bad.args...), conn...)...), 2, bad.want)
	}
}

// csvFileShape is what a CSV file's lines are: how many, and per column
// the formats its values take (decimal with six places, DATETIME, NULL,
// other), in the order first seen.
type csvFileShape struct {
	lines   int
	columns [][]string
}

var (
	csvDecimal  = regexp.MustCompile(`^-?[0-9]+\.[0-9]{6}$`)
	csvDatetime = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}$`)
)

func csvShape(t *testing.T, path string) csvFileShape {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var s csvFileShape
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		s.lines++
		fields := strings.Split(sc.Text(), ",")
		for len(s.columns) < len(fields) {
			s.columns = append(s.columns, nil)
		}
		if len(fields) != len(s.columns) {
			t.Fatalf("%s:%d: %d fields, line 1 had %d", path, s.lines, len(fields), len(s.columns))
		}
		for i, v := range fields {
			kind := "other"
			switch {
			case v == "NULL":
				kind = "NULL"
			case csvDecimal.MatchString(v):
				kind = "decimal"
			case csvDatetime.MatchString(v):
				kind = "datetime"
			case strings.ContainsAny(v, `"`):
				kind = "quoted"
			}
			if !slices.Contains(s.columns[i], kind) {
				s.columns[i] = append(s.columns[i], kind)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return s
}
