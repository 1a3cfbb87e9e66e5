package tpch

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/starbench/starbench/internal/testutil/sandboxtest"
)

// referenceProgram writes the first rows of every table as go-tpc
// v1.0.7's generator makes them at scale factor 1, a line a row: the
// table's name and the values go-tpc's loader sends, separated by '|'.
// Each table is generated on its own, stopped after its rows by an error
// from the loader.
const referenceProgram = `package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/pingcap/go-tpc/tpch/dbgen"
)

var out *bufio.Writer
var enough = errors.New("enough")

type rows struct {
	left int
	emit func(item interface{})
}

func (r *rows) Load(item interface{}) error {
	if r.left == 0 {
		return enough
	}
	r.left--
	r.emit(item)
	return nil
}
func (r *rows) Flush() error { return nil }

func line(table string, fields ...interface{}) {
	s := make([]string, len(fields))
	for i, f := range fields {
		switch v := f.(type) {
		case byte:
			s[i] = string(v)
		default:
			s[i] = fmt.Sprint(v)
		}
	}
	fmt.Fprintln(out, table+"|"+strings.Join(s, "|"))
}

func main() {
	n, _ := strconv.Atoi(os.Args[2])
	f, _ := os.Create(os.Args[1])
	out = bufio.NewWriter(f)
	m := dbgen.FmtMoney
	dbgen.InitDbGen(1)
	tables := map[dbgen.Table]func(interface{}){
		dbgen.TNation: func(i interface{}) { x := i.(*dbgen.Nation); line("nation", x.Code, x.Text, x.Join, x.Comment) },
		dbgen.TRegion: func(i interface{}) { x := i.(*dbgen.Region); line("region", x.Code, x.Text, x.Comment) },
		dbgen.TCust: func(i interface{}) {
			x := i.(*dbgen.Cust)
			line("customer", x.CustKey, x.Name, x.Address, x.NationCode, x.Phone, m(x.Acctbal), x.MktSegment, x.Comment)
		},
		dbgen.TSupp: func(i interface{}) {
			x := i.(*dbgen.Supp)
			line("supplier", x.SuppKey, x.Name, x.Address, x.NationCode, x.Phone, m(x.Acctbal), x.Comment)
		},
		dbgen.TPartPsupp: func(i interface{}) {
			x := i.(*dbgen.Part)
			line("part", x.PartKey, x.Name, x.Mfgr, x.Brand, x.Type, x.Size, x.Container, m(x.RetailPrice), x.Comment)
			for _, s := range x.S {
				line("partsupp", s.PartKey, s.SuppKey, s.Qty, m(s.SCost), s.Comment)
			}
		},
		dbgen.TOrderLine: func(i interface{}) {
			x := i.(*dbgen.Order)
			line("orders", x.OKey, x.CustKey, x.Status, m(x.TotalPrice), x.Date, x.OrderPriority, x.Clerk, x.ShipPriority, x.Comment)
			for _, l := range x.Lines {
				line("lineitem", l.OKey, l.PartKey, l.SuppKey, l.LCnt, l.Quantity, m(l.EPrice), m(l.Discount), m(l.Tax), l.RFlag,
					l.LStatus, l.SDate, l.CDate, l.RDate, l.ShipInstruct, l.ShipMode, l.Comment)
			}
		},
	}
	for _, t := range []dbgen.Table{dbgen.TNation, dbgen.TRegion, dbgen.TCust, dbgen.TSupp, dbgen.TPartPsupp, dbgen.TOrderLine} {
		_ = dbgen.DbGen(map[dbgen.Table]dbgen.Loader{t: &rows{left: n, emit: tables[t]}}, []dbgen.Table{t})
	}
	out.Flush()
	f.Close()
}
`

// reference runs the reference program and returns its lines.
func reference(t *testing.T, rows int) []string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to build go-tpc's generator with")
	}
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module reference\n\ngo 1.22\n\nrequire github.com/pingcap/go-tpc v1.0.7\n")
	write("main.go", referenceProgram)
	run := func(args ...string) {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
		if out, err := cmd.CombinedOutput(); err != nil {
			msg := fmt.Sprintf("go %s: %v\n%s", strings.Join(args, " "), err, out)
			if sandboxtest.InCI() {
				t.Fatal(msg)
			}
			t.Skip("go-tpc's generator could not be built (the Go proxy or its module is not at hand): " + msg)
		}
	}
	run("mod", "tidy")
	run("run", ".", filepath.Join(dir, "rows.txt"), fmt.Sprint(rows))
	f, err := os.Open(filepath.Join(dir, "rows.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines
}

// ours is what Generator makes of the same rows, in the reference's
// format.
func ours(t *testing.T, rows int64) []string {
	t.Helper()
	g, err := NewGenerator(1)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	emit := func(table string, row []string) { lines = append(lines, table+"|"+strings.Join(row, "|")) }
	for i := int64(1); i <= min(rows, g.Rows(Nation)); i++ {
		emit("nation", g.NationRow(i))
	}
	for i := int64(1); i <= min(rows, g.Rows(Region)); i++ {
		emit("region", g.RegionRow(i))
	}
	for i := int64(1); i <= rows; i++ {
		emit("customer", g.CustomerRow(i))
	}
	for i := int64(1); i <= rows; i++ {
		emit("supplier", g.SupplierRow(i))
	}
	for i := int64(1); i <= rows; i++ {
		part, supplies := g.PartRows(i)
		emit("part", part)
		for _, s := range supplies {
			emit("partsupp", s)
		}
	}
	for i := int64(1); i <= rows; i++ {
		order, lines := g.OrderRows(i)
		emit("orders", order)
		for _, l := range lines {
			emit("lineitem", l)
		}
	}
	return lines
}

// The generator makes go-tpc's rows: the first 2,000 of every table at
// scale factor 1 (with their partsupp and lineitem rows, and the
// suppliers' Better Business Bureau remarks) are the same, value for
// value, as go-tpc v1.0.7's.
func TestGeneratorMatchesGoTPC(t *testing.T) {
	const rows = 2000
	want := reference(t, rows)
	got := ours(t, rows)
	bbb := 0
	for i := 0; i < max(len(want), len(got)); i++ {
		if i >= len(want) || i >= len(got) || want[i] != got[i] {
			w, g := "(none)", "(none)"
			if i < len(want) {
				w = want[i]
			}
			if i < len(got) {
				g = got[i]
			}
			t.Fatalf("line %d differs (of %d from go-tpc, %d here):\ngo-tpc: %s\nours:   %s", i+1, len(want), len(got), w, g)
		}
		if strings.Contains(got[i], "Customer ") && strings.HasPrefix(got[i], "supplier|") {
			bbb++
		}
	}
	if len(got) < 6*rows || bbb == 0 {
		t.Errorf("%d lines, %d suppliers with a remark", len(got), bbb)
	}
	t.Logf("%d rows alike, %d suppliers with a remark", len(got), bbb)
}

// Generators share one text pool, and each table's rows depend on no
// other's: a generator that made customers first makes the same orders.
func TestGeneratorsShareThePool(t *testing.T) {
	a, _ := NewGenerator(1)
	b, _ := NewGenerator(1)
	if &a.pool[0] != &b.pool[0] {
		t.Error("two text pools")
	}
	for i := int64(1); i <= 100; i++ {
		a.CustomerRow(i)
	}
	for i := int64(1); i <= 100; i++ {
		x, _ := a.OrderRows(i)
		y, _ := b.OrderRows(i)
		if strings.Join(x, "|") != strings.Join(y, "|") {
			t.Fatalf("order %d: %v and %v", i, x, y)
		}
	}
	if _, err := NewGenerator(0); err == nil {
		t.Error("scale factor 0 accepted")
	}
}

func BenchmarkGenerator(b *testing.B) {
	g, _ := NewGenerator(1)
	b.Run("orders", func(b *testing.B) {
		lines := 0
		for i := 0; i < b.N; i++ {
			_, l := g.OrderRows(int64(i + 1))
			lines += len(l)
		}
		b.ReportMetric(float64(lines)/float64(b.N), "lines/order")
	})
	b.Run("parts", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			g.PartRows(int64(i + 1))
		}
	})
}

// A slice of a table made alone (Start) is the same rows as made after
// those before it, for every table; and lineCounts counts its lines.
func TestSlicesStartAnywhere(t *testing.T) {
	whole, _ := NewGenerator(1)
	const first, n = 1201, 50
	rows := func(g *Generator, table Table, i int64) string {
		switch table {
		case Customer:
			return strings.Join(g.CustomerRow(i), "|")
		case Supplier:
			return strings.Join(g.SupplierRow(i), "|")
		case Part:
			p, s := g.PartRows(i)
			return fmt.Sprint(p, s)
		}
		o, l := g.OrderRows(i)
		return fmt.Sprint(o, l)
	}
	for _, table := range []Table{Customer, Supplier, Part, Orders} {
		var want []string
		for i := int64(1); i < first+n; i++ {
			if r := rows(whole, table, i); i >= first {
				want = append(want, r)
			}
		}
		slice, _ := NewGenerator(1)
		slice.Start(table, first)
		for k := int64(0); k < n; k++ {
			if got := rows(slice, table, first+k); got != want[k] {
				t.Fatalf("table %d row %d alone:\n%s\nafter the rows before it:\n%s", table, first+k, got, want[k])
			}
		}
	}
	g, _ := NewGenerator(1)
	g.Start(Orders, first)
	for k, c := range lineCounts(first, n) {
		if _, lines := g.OrderRows(first + int64(k)); int64(len(lines)) != c {
			t.Fatalf("order %d: %d lines, counted %d", first+int64(k), len(lines), c)
		}
	}
}
