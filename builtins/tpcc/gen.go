package tpcc

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/starbench/starbench/builtins/bulkload"
)

// Cardinalities of the initial database (clause 4.3.3.1).
const (
	genItems                 = 100_000 // item rows, and stock rows per warehouse
	genDistrictsPerWarehouse = 10
	genCustomersPerDistrict  = 3_000 // customer and history rows per district
	genOrdersPerDistrict     = 3_000
	genFirstNewOrder         = 2_101 // orders 2101..3000 are undelivered: in new_order
	// Slices is how many slices each table's rows for a warehouse (item's
	// rows) are cut into: a district's rows, or 10,000 items'.
	Slices          = 10
	genSliceItems   = genItems / Slices
	genMaxWarehouse = 1<<24 - 1 // warehouse numbers fit in the streams' 24 bits
)

// Generator makes the rows of the initial database for a seed, as clause
// 4.3.3.1 of the TPC-C specification prescribes them and go-tpc loads them
// into its tables. Each table's rows for a warehouse (item's rows) come in
// ten slices, a district's rows or 10,000 items', each drawn from a random
// stream of its own: the rows are a function of the seed, the warehouse,
// the table and the load time only, so whichever thread loads a slice, in
// whatever order, the database is the same.
type Generator struct {
	seed uint64
	c    Constants
	now  string // the load time as DATETIME text
}

// NewGenerator makes the rows for seed, with loadTime (to the second) in
// c_since, h_date, o_entry_d and the delivered orders' ol_delivery_d.
func NewGenerator(seed int64, loadTime time.Time) *Generator {
	return &Generator{
		seed: uint64(seed),
		c:    NewConstants(uint64(seed)),
		now:  loadTime.Format(time.DateTime),
	}
}

// Constants are the NURand constants of the seed; the load draws last
// names with CLast, and a run on the loaded database should use the same.
func (g *Generator) Constants() Constants { return g.c }

// Table is a table's rows for warehouse (item's rows: warehouse is then
// ignored). Each call starts them afresh.
func (g *Generator) Table(table string, warehouse int) (bulkload.Table, error) {
	return g.Slices(table, warehouse, 1, Slices)
}

// Slices is slices first..last (of 1..Slices) of a table's rows for
// warehouse, in order: Slices(t, w, 1, 5) and Slices(t, w, 6, 10) are
// Table(t, w) cut in two. A warehouse has one warehouse row, in slice 1.
func (g *Generator) Slices(table string, warehouse, first, last int) (bulkload.Table, error) {
	columns, parts, rows, err := g.parts(table, warehouse, first, last)
	if err != nil {
		return bulkload.Table{}, err
	}
	var cur genSlice
	next := 0
	return bulkload.Table{
		Name: table, Columns: columns, Insert: "INSERT INTO " + table + " " + columns + " VALUES", Rows: rows,
		NewStatement: func() bool {
			return cur.rows > 0 && cur.newStatement != nil && cur.newStatement()
		},
		Row: func(b []byte, text bool) []byte {
			for cur.rows == 0 {
				cur = parts[next]
				next++
			}
			cur.rows--
			f := sqlTuple
			if text {
				f = loadText
			}
			return f.end(cur.row(f.begin(b), f))
		},
	}, nil
}

// parts are slices first..last of a table's rows for warehouse, with the
// table's column list and their number of rows.
func (g *Generator) parts(table string, warehouse, first, last int) (string, []genSlice, int64, error) {
	if table != Item && (warehouse < 1 || warehouse > genMaxWarehouse) {
		return "", nil, 0, fmt.Errorf("%s: no warehouse %d (warehouses are 1..%d)", table, warehouse, genMaxWarehouse)
	}
	if first < 1 || last > Slices || first > last {
		return "", nil, 0, fmt.Errorf("%s: no slices %d..%d (slices are 1..%d)", table, first, last, Slices)
	}
	t, ok := genTables[table]
	if !ok {
		_, err := Schema{}.CreateTableSQL(table)
		return "", nil, 0, err
	}
	if table == Item {
		warehouse = 0
	}
	parts := make([]genSlice, 0, last-first+1)
	var rows int64
	for s := first; s <= last; s++ {
		p := t.slice(g, warehouse, s)
		rows += p.rows
		parts = append(parts, p)
	}
	return t.columns, parts, rows, nil
}

// WriteCSV writes slices first..last of a table's rows for warehouse to w
// as go-tpc's CSV output has them (csvLine), returning how many.
func (g *Generator) WriteCSV(w io.Writer, table string, warehouse, first, last int) (int64, error) {
	_, parts, rows, err := g.parts(table, warehouse, first, last)
	if err != nil {
		return 0, err
	}
	var b []byte
	for _, p := range parts {
		for range p.rows {
			b = csvLine.end(p.row(b[:0], csvLine))
			if _, err := w.Write(b); err != nil {
				return 0, err
			}
		}
	}
	return rows, nil
}

// genSlice is one slice of a table: how many rows, and the function that
// appends the next one.
type genSlice struct {
	rows int64
	row  func(b []byte, f rowFields) []byte
	// newStatement, when set, reports before a row that it must not share
	// an INSERT with the rows before it (bulkload.Table.NewStatement).
	newStatement func() bool
}

// genTables are the nine tables' column lists and slices.
var genTables = map[string]struct {
	columns string
	slice   func(g *Generator, w, s int) genSlice
}{
	Item:      {genItemCols, (*Generator).itemSlice},
	Warehouse: {genWarehouseCols, (*Generator).warehouseSlice},
	District:  {genDistrictCols, (*Generator).districtSlice},
	Customer:  {genCustomerCols, (*Generator).customerSlice},
	History:   {genHistoryCols, (*Generator).historySlice},
	Orders:    {genOrdersCols, (*Generator).ordersSlice},
	NewOrder:  {genNewOrderCols, (*Generator).newOrderSlice},
	OrderLine: {genOrderLineCols, (*Generator).orderLineSlice},
	Stock:     {genStockCols, (*Generator).stockSlice},
}

// rand is the random stream of one slice of one table of one warehouse
// (0 for item), tagged "load" in its upper bits: apart from every other
// stream of the seed (a run's workers draw from txnStream).
func (g *Generator) rand(table string, w, s int) *Rand {
	n := 0
	for i, t := range Tables {
		if t == table {
			n = i
		}
	}
	return NewRand(g.seed, 0x6c6f_6164<<32|uint64(w)<<8|uint64(s)<<4|uint64(n), g.c) // "load"
}

// Column lists, in go-tpc's INSERT order (the tables' column order).
const (
	genItemCols      = "(i_id, i_im_id, i_name, i_price, i_data)"
	genWarehouseCols = "(w_id, w_name, w_street_1, w_street_2, w_city, w_state, w_zip, w_tax, w_ytd)"
	genDistrictCols  = "(d_id, d_w_id, d_name, d_street_1, d_street_2, d_city, d_state, d_zip, d_tax, d_ytd, d_next_o_id)"
	genCustomerCols  = "(c_id, c_d_id, c_w_id, c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, " +
		"c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance, c_ytd_payment, c_payment_cnt, c_delivery_cnt, c_data)"
	genHistoryCols   = "(h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)"
	genOrdersCols    = "(o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)"
	genNewOrderCols  = "(no_o_id, no_d_id, no_w_id)"
	genOrderLineCols = "(ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)"
	genStockCols     = "(s_i_id, s_w_id, s_quantity, s_dist_01, s_dist_02, s_dist_03, s_dist_04, s_dist_05, s_dist_06, " +
		"s_dist_07, s_dist_08, s_dist_09, s_dist_10, s_ytd, s_order_cnt, s_remote_cnt, s_data)"
)

// rowFields is how a row's values are written: an SQL tuple, a LOAD DATA
// line, or a line of go-tpc's CSV output. The strings of the load come
// from the a-string and n-string alphabets, the syllables and the load
// time: none holds a character that bulkload.AppendText or
// AppendSQLString would escape or that CSV would quote, so they are
// written as they are drawn, between quotes in SQL.
type rowFields uint8

const (
	sqlTuple rowFields = iota
	loadText           // tab-separated, \N for NULL
	csvLine            // go-tpc's: comma-separated, NULL for NULL, decimals with six places (Go's %f)
)

func (f rowFields) begin(b []byte) []byte {
	if f != sqlTuple {
		return b
	}
	return append(b, '(')
}

func (f rowFields) end(b []byte) []byte {
	if f != sqlTuple {
		return append(b, '\n')
	}
	return append(b, ')')
}

// sep ends a value.
func (f rowFields) sep(b []byte) []byte {
	switch f {
	case loadText:
		return append(b, '\t')
	case csvLine:
		return append(b, ',')
	}
	return append(b, ", "...)
}

// q opens or closes a string value.
func (f rowFields) q(b []byte) []byte {
	if f != sqlTuple {
		return b
	}
	return append(b, '\'')
}

func (f rowFields) null(b []byte) []byte {
	if f == loadText {
		return append(b, `\N`...)
	}
	return append(b, "NULL"...)
}

// decimals pads a decimal just written with places places to go-tpc's
// six in CSV; in SQL and LOAD DATA it stays as it is.
func (f rowFields) decimals(b []byte, places int) []byte {
	if f != csvLine {
		return b
	}
	return append(b, "000000"[places:]...)
}

// money appends cents as a decimal with two places (six in CSV).
func (f rowFields) money(b []byte, cents int) []byte { return f.decimals(genCents(b, cents), 2) }

// rate appends ten-thousandths as a decimal with four places (six in CSV).
func (f rowFields) rate(b []byte, v int) []byte { return f.decimals(genRate(b, v), 4) }

func (f rowFields) int(b []byte, v int) []byte { return f.sep(strconv.AppendInt(b, int64(v), 10)) }

// str appends a constant string value and ends it.
func (f rowFields) str(b []byte, s string) []byte { return f.sep(f.q(append(f.q(b), s...))) }

// astr appends a random a-string value of min..max characters and ends it.
func (f rowFields) astr(b []byte, r *Rand, min, max int) []byte {
	return f.sep(f.q(genAString(f.q(b), r, min, max)))
}

// genCents appends cents as a decimal with two places: 1234 as 12.34.
func genCents(b []byte, cents int) []byte {
	b = strconv.AppendInt(b, int64(cents/100), 10)
	b = append(b, '.', byte('0'+cents%100/10), byte('0'+cents%10))
	return b
}

// genRate appends a rate of 0..10000 ten-thousandths with four places:
// 1234 as 0.1234.
func genRate(b []byte, v int) []byte {
	b = strconv.AppendInt(b, int64(v/10000), 10)
	return append(b, '.', byte('0'+v/1000%10), byte('0'+v/100%10), byte('0'+v/10%10), byte('0'+v%10))
}

// address appends street 1 and 2, city, state and zip (4.3.3.1), ending
// the zip.
func (f rowFields) address(b []byte, r *Rand) []byte {
	b = f.astr(b, r, 10, 20)
	b = f.astr(b, r, 10, 20)
	b = f.astr(b, r, 10, 20)
	b = f.sep(f.q(r.AppendState(f.q(b))))
	return f.sep(f.q(r.AppendZip(f.q(b))))
}

// itemSlice is items (s-1)*10,000+1..s*10,000.
func (g *Generator) itemSlice(_, s int) genSlice {
	r := g.rand(Item, 0, s)
	id := (s - 1) * genSliceItems
	return genSlice{rows: genSliceItems, row: func(b []byte, f rowFields) []byte {
		id++
		b = f.int(b, id)
		b = f.int(b, r.Int(1, 10_000))
		b = f.astr(b, r, 14, 24)
		b = f.sep(f.money(b, r.Int(100, 10_000)))
		return f.q(genData(f.q(b), r, 26, 50))
	}}
}

// warehouseSlice is warehouse w's row in slice 1.
func (g *Generator) warehouseSlice(w, s int) genSlice {
	if s != 1 {
		return genSlice{}
	}
	r := g.rand(Warehouse, w, s)
	return genSlice{rows: 1, row: func(b []byte, f rowFields) []byte {
		b = f.int(b, w)
		b = f.astr(b, r, 6, 10)
		b = f.address(b, r)
		b = f.sep(f.rate(b, r.Int(0, 2000)))
		return f.money(b, 300000_00)
	}}
}

// districtSlice is district s of warehouse w.
func (g *Generator) districtSlice(w, s int) genSlice {
	r := g.rand(District, w, s)
	return genSlice{rows: 1, row: func(b []byte, f rowFields) []byte {
		b = f.int(b, s)
		b = f.int(b, w)
		b = f.astr(b, r, 6, 10)
		b = f.address(b, r)
		b = f.sep(f.rate(b, r.Int(0, 2000)))
		b = f.sep(f.money(b, 30000_00))
		return strconv.AppendInt(b, genOrdersPerDistrict+1, 10)
	}}
}

// customerSlice is the 3,000 customers of district s of warehouse w: the
// first 1,000 named by the syllables of their number less one, the others
// by NURand(255, 0, 999) with the run's C_LAST.
func (g *Generator) customerSlice(w, s int) genSlice {
	r := g.rand(Customer, w, s)
	c := 0
	return genSlice{rows: genCustomersPerDistrict, row: func(b []byte, f rowFields) []byte {
		c++
		b = f.int(b, c)
		b = f.int(b, s)
		b = f.int(b, w)
		last := c - 1
		if c > 1000 {
			last = r.LastNameNumber()
		}
		b = f.astr(b, r, 8, 16)
		b = f.str(b, "OE")
		b = f.sep(f.q(AppendLastName(f.q(b), last)))
		b = f.address(b, r)
		b = f.sep(f.q(r.AppendNString(f.q(b), 16, 16)))
		b = f.str(b, g.now)
		credit := "GC"
		if r.Int(1, 10) == 1 {
			credit = "BC"
		}
		b = f.str(b, credit)
		b = f.sep(f.money(b, 50000_00))
		b = f.sep(f.rate(b, r.Int(0, 5000)))
		b = f.sep(f.decimals(append(b, "-10.00"...), 2))
		b = f.sep(f.money(b, 10_00))
		b = f.int(b, 1)
		b = f.int(b, 0)
		return f.q(genAString(f.q(b), r, 300, 500))
	}}
}

// historySlice is the payments of district s's customers: 10.00 each.
func (g *Generator) historySlice(w, s int) genSlice {
	r := g.rand(History, w, s)
	c := 0
	return genSlice{rows: genCustomersPerDistrict, row: func(b []byte, f rowFields) []byte {
		c++
		b = f.int(b, c)
		b = f.int(b, s)
		b = f.int(b, w)
		b = f.int(b, s)
		b = f.int(b, w)
		b = f.str(b, g.now)
		b = f.sep(f.money(b, 10_00))
		return f.q(genAString(f.q(b), r, 12, 24))
	}}
}

// genOrderPlan is what the orders and order_line rows of a district
// share: for each order its customer (a random permutation of the
// district's customers), carrier (0 for an undelivered order) and number
// of lines. It comes from the orders slice's stream.
type genOrderPlan struct {
	customer [genOrdersPerDistrict]uint16
	carrier  [genOrdersPerDistrict]uint8
	lines    [genOrdersPerDistrict]uint8
	total    int64 // order lines in all
}

func (g *Generator) orderPlan(w, s int) *genOrderPlan {
	r := g.rand(Orders, w, s)
	p := &genOrderPlan{}
	for i := range p.customer {
		p.customer[i] = uint16(i + 1)
	}
	for i := len(p.customer) - 1; i > 0; i-- {
		j := r.Int(0, i)
		p.customer[i], p.customer[j] = p.customer[j], p.customer[i]
	}
	for o := range p.lines {
		if o+1 < genFirstNewOrder {
			p.carrier[o] = uint8(r.Int(1, 10))
		}
		n := r.Int(5, 15)
		p.lines[o] = uint8(n)
		p.total += int64(n)
	}
	return p
}

// ordersSlice is the 3,000 orders of district s, orders 2101 and later
// not yet delivered (no carrier).
func (g *Generator) ordersSlice(w, s int) genSlice {
	p := g.orderPlan(w, s)
	o := 0
	return genSlice{rows: genOrdersPerDistrict, row: func(b []byte, f rowFields) []byte {
		o++
		b = f.int(b, o)
		b = f.int(b, s)
		b = f.int(b, w)
		b = f.int(b, int(p.customer[o-1]))
		b = f.str(b, g.now)
		if carrier := p.carrier[o-1]; carrier == 0 {
			b = f.sep(f.null(b))
		} else {
			b = f.int(b, int(carrier))
		}
		b = f.int(b, int(p.lines[o-1]))
		return append(b, '1')
	}}
}

// newOrderSlice is the new orders of district s: its last 900 orders.
func (g *Generator) newOrderSlice(w, s int) genSlice {
	o := genFirstNewOrder - 1
	return genSlice{rows: genOrdersPerDistrict - genFirstNewOrder + 1, row: func(b []byte, f rowFields) []byte {
		o++
		b = f.int(b, o)
		b = f.int(b, s)
		return strconv.AppendInt(b, int64(w), 10)
	}}
}

// orderLineSlice is the order lines of district s: o_ol_cnt per order,
// supplied by the warehouse; the lines of delivered orders were delivered
// at the load time and cost nothing, the others cost 0.01..9999.99.
func (g *Generator) orderLineSlice(w, s int) genSlice {
	p := g.orderPlan(w, s)
	r := g.rand(OrderLine, w, s)
	o, n := 1, 0
	// go-mysql-server (the embedded target) keys a statement's new rows by
	// their primary key's values written one after the other, so order 3's
	// line 11 and order 31's line 1 are one key to it ("1" "1" "3" "11" and
	// "1" "1" "31" "1") and the INSERT fails on a duplicate. Orders 1-9,
	// 10-99, 100-999 and 1000-3000 go in statements of their own: in each,
	// the order numbers have one length and every key reads one way.
	newStatement := func() bool {
		next := o + 1
		return n == int(p.lines[o-1]) && (next == 10 || next == 100 || next == 1000)
	}
	lines := genSlice{rows: p.total, newStatement: newStatement}
	lines.row = func(b []byte, f rowFields) []byte {
		if n++; n > int(p.lines[o-1]) {
			o, n = o+1, 1
		}
		b = f.int(b, o)
		b = f.int(b, s)
		b = f.int(b, w)
		b = f.int(b, n)
		b = f.int(b, r.Int(1, genItems))
		b = f.int(b, w)
		delivered := o < genFirstNewOrder
		if delivered {
			b = f.str(b, g.now)
		} else {
			b = f.sep(f.null(b))
		}
		b = f.int(b, 5)
		if delivered {
			b = f.sep(f.money(b, 0))
		} else {
			b = f.sep(f.money(b, r.Int(1, 999_999)))
		}
		return f.q(genAString(f.q(b), r, 24, 24))
	}
	return lines
}

// stockSlice is warehouse w's stock of items (s-1)*10,000+1..s*10,000.
func (g *Generator) stockSlice(w, s int) genSlice {
	r := g.rand(Stock, w, s)
	i := (s - 1) * genSliceItems
	return genSlice{rows: genSliceItems, row: func(b []byte, f rowFields) []byte {
		i++
		b = f.int(b, i)
		b = f.int(b, w)
		b = f.int(b, r.Int(10, 100))
		for range 10 {
			b = f.astr(b, r, 24, 24)
		}
		b = f.int(b, 0)
		b = f.int(b, 0)
		b = f.int(b, 0)
		return f.q(genData(f.q(b), r, 26, 50))
	}}
}

// genAString appends an a-string of min..max random alphanumerics, as
// Rand.AppendAString does but ten characters from each 64-bit draw (six
// bits each; 62 and 63 are drawn again, so that every character is as
// likely): the load's strings are most of what it generates.
func genAString(b []byte, r *Rand, min, max int) []byte {
	n := r.Int(min, max)
	b = slices.Grow(b, n)
	out := b[len(b) : len(b)+n]
	for i := 0; i < n; {
		x := r.r.Uint64()
		for k := 0; k < 10 && i < n; k, x = k+1, x>>6 {
			if v := x & 63; v < 62 {
				out[i] = alphanumeric[v]
				i++
			}
		}
	}
	return b[:len(b)+n]
}

// genData appends an a-string of min..max characters of which 10% hold
// "ORIGINAL" at a random position (i_data, s_data; Rand.AppendData's rule).
func genData(b []byte, r *Rand, min, max int) []byte {
	start := len(b)
	b = genAString(b, r, min, max)
	if r.Int(1, 10) == 1 {
		copy(b[start+r.Int(0, len(b)-start-8):], "ORIGINAL")
	}
	return b
}
