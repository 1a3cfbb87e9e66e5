package tpcc

import (
	"context"
	"database/sql/driver"
	"fmt"
	"strings"

	"github.com/starbench/starbench/builtins/bench"
)

// New-Order (clause 2.4) as go-tpc sends it.
const (
	noSelectCustomer = "SELECT c_discount, c_last, c_credit, w_tax FROM customer, warehouse WHERE w_id = ? AND c_w_id = w_id AND c_d_id = ? AND c_id = ?"
	noSelectDistrict = "SELECT d_next_o_id, d_tax FROM district WHERE d_id = ? AND d_w_id = ? FOR UPDATE"
	noUpdateDistrict = "UPDATE district SET d_next_o_id = ? + 1 WHERE d_id = ? AND d_w_id = ?"
	noInsertOrder    = "INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local) VALUES (?, ?, ?, ?, ?, ?, ?)"
	noInsertNewOrder = "INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?)"
	noUpdateStock    = "UPDATE stock SET s_quantity = ?, s_ytd = s_ytd + ?, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + ? WHERE s_i_id = ? AND s_w_id = ?"
)

// An order has 5 to 15 lines; the statements over its items come in one
// version per count.
const (
	noMinLines = 5
	noMaxLines = 15
)

// noSelectItems reads an order's n items at once.
func noSelectItems(n int) string {
	return "SELECT i_price, i_name, i_data, i_id FROM item WHERE i_id IN (" + repeatJoined("?", ",", n) + ")"
}

// noSelectStock locks an order's n stock rows at once.
func noSelectStock(n int) string {
	return "SELECT s_i_id, s_quantity, s_data, s_dist_01, s_dist_02, s_dist_03, s_dist_04, s_dist_05, s_dist_06, s_dist_07, s_dist_08, s_dist_09, s_dist_10 FROM stock WHERE (s_w_id, s_i_id) IN (" +
		repeatJoined("(?,?)", ",", n) + ") FOR UPDATE"
}

// noInsertOrderLines inserts an order's n lines in one statement.
func noInsertOrderLines(n int) string {
	return "INSERT into order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info) VALUES " +
		repeatJoined("(?,?,?,?,?,?,?,?,?)", ",", n)
}

// repeatJoined is n copies of s separated by sep.
func repeatJoined(s, sep string, n int) string {
	return strings.TrimSuffix(strings.Repeat(s+sep, n), sep)
}

type newOrderStmts struct {
	customer, district          bench.RowStmt
	updateDistrict, insertOrder bench.Stmt
	insertNewOrder, updateStock bench.Stmt
	items, stock                [noMaxLines + 1]bench.RowStmt // by line count
	insertLines                 [noMaxLines + 1]bench.Stmt
}

func (w *txnWorker) prepareNewOrder(p *stmtPreparer) {
	st := &w.st.newOrder
	st.customer = p.rows(noSelectCustomer)
	st.district = p.rows(noSelectDistrict)
	st.updateDistrict = p.stmt(noUpdateDistrict)
	st.insertOrder = p.stmt(noInsertOrder)
	st.insertNewOrder = p.stmt(noInsertNewOrder)
	st.updateStock = p.stmt(noUpdateStock)
	for n := noMinLines; n <= noMaxLines; n++ {
		st.items[n] = p.rows(noSelectItems(n))
		st.stock[n] = p.rows(noSelectStock(n))
		st.insertLines[n] = p.stmt(noInsertOrderLines(n))
	}
}

// newOrderTxn is a New-Order's inputs and what it read.
type newOrderTxn struct {
	wID, dID, cID int64
	lines         []noLine // lineBuf[:o_ol_cnt]
	lineBuf       [noMaxLines]noLine
	allLocal      int64

	customers       int64 // rows of the customer read
	cDiscount, wTax float64
	dTax            float64
	oID             int64
	haveDistrict    bool
}

// noLine is one line of a New-Order.
type noLine struct {
	iID, supplyWID, quantity int64
	remote                   int64 // 1 when supplied by another warehouse
	price                    float64
	inItems, inStock         bool
	sQuantity                int64 // the stock's quantity after the order
	amount                   float64
	dist                     []byte // s_dist_<d_id>
}

// drawNewOrder picks the inputs as go-tpc does (clause 2.4.1): 5-15
// distinct items, the last one -1 (unused) in 1% of the orders, which
// then roll back; each line supplied by another warehouse with
// probability 1% when there are several.
func (w *txnWorker) drawNewOrder() {
	t := &w.no
	t.wID = w.home()
	t.dID = int64(w.rng.Int(1, 10))
	t.cID = int64(w.rng.CustomerID())
	t.lines = t.lineBuf[:w.rng.Int(noMinLines, noMaxLines)]
	rollback := w.rng.Int(1, 100) == 1
	t.allLocal = 1
	for i := range t.lines {
		l := &t.lines[i]
		*l = noLine{dist: l.dist[:0]}
		if i == len(t.lines)-1 && rollback {
			l.iID = -1
		} else {
			l.iID = w.distinctItem(t.lines[:i])
		}
		if w.o.Warehouses == 1 || w.rng.Int(1, 100) != 1 {
			l.supplyWID = t.wID
		} else {
			l.supplyWID = w.otherWarehouse(t.wID)
			l.remote = 1
			t.allLocal = 0
		}
		l.quantity = int64(w.rng.Int(1, 10))
	}
}

// distinctItem draws an item id none of the order's earlier lines has.
func (w *txnWorker) distinctItem(earlier []noLine) int64 {
	for {
		id := int64(w.rng.ItemID())
		dup := false
		for i := range earlier {
			if earlier[i].iID == id {
				dup = true
				break
			}
		}
		if !dup {
			return id
		}
	}
}

// line finds the order's line of item id.
func (t *newOrderTxn) line(id int64) *noLine {
	for i := range t.lines {
		if t.lines[i].iID == id {
			return &t.lines[i]
		}
	}
	return nil
}

func (w *txnWorker) initNewOrderRows() {
	t := &w.no
	w.rows.noCustomer = func(c []driver.Value) error {
		t.customers++
		var err error
		if t.cDiscount, err = colFloat(c[0]); err != nil {
			return err
		}
		t.wTax, err = colFloat(c[3])
		return err
	}
	w.rows.noDistrict = func(c []driver.Value) error {
		var err error
		if t.oID, err = colInt(c[0]); err != nil {
			return err
		}
		t.dTax, err = colFloat(c[1])
		t.haveDistrict = err == nil
		return err
	}
	w.rows.noItem = func(c []driver.Value) error {
		id, err := colInt(c[3])
		if err != nil {
			return err
		}
		l := t.line(id)
		if l == nil {
			return fmt.Errorf("tpcc: new_order: item %d was not asked for", id)
		}
		l.inItems = true
		l.price, err = colFloat(c[0])
		return err
	}
	w.rows.noStock = func(c []driver.Value) error {
		id, err := colInt(c[0])
		if err != nil {
			return err
		}
		l := t.line(id)
		if l == nil {
			return fmt.Errorf("tpcc: new_order: stock of item %d was not asked for", id)
		}
		q, err := colInt(c[1])
		if err != nil {
			return err
		}
		// Clause 2.4.2.2: take the quantity, adding 91 when fewer than
		// 10 would be left.
		if q -= l.quantity; q < 10 {
			q += 91
		}
		l.inStock, l.sQuantity = true, q
		l.dist = appendColText(l.dist[:0], c[2+t.dID]) // s_dist_01 is column 3
		// go-tpc's amount, with the taxes and the discount in it.
		l.amount = float64(l.quantity) * l.price * (1 + t.wTax + t.dTax) * (1 - t.cDiscount)
		return nil
	}
}

// newOrder runs a New-Order: the customer and the district (locked), the
// district's next order id taken, the order and its new_order row
// written, the items read (an unused item rolls back here), their stock
// locked and updated, and the order lines inserted.
func (w *txnWorker) newOrder(ctx context.Context, s bench.Session) error {
	t, st := &w.no, &w.st.newOrder
	t.customers, t.haveDistrict, w.rolledBack = 0, false, false
	if err := w.begin(ctx, s); err != nil {
		return err
	}
	if _, err := st.customer.QueryRows(ctx, w.rows.noCustomer, w.params(t.wID, t.dID, t.cID)...); err != nil {
		return err
	}
	if t.customers == 0 {
		return txnNoRow("new_order customer", "w_id=", t.wID, " d_id=", t.dID, " c_id=", t.cID)
	}
	if _, err := st.district.QueryRows(ctx, w.rows.noDistrict, w.params(t.dID, t.wID)...); err != nil {
		return err
	}
	if !t.haveDistrict {
		return txnNoRow("new_order district", "w_id=", t.wID, " d_id=", t.dID)
	}
	if _, err := st.updateDistrict.Exec(ctx, w.params(t.oID, t.dID, t.wID)...); err != nil {
		return err
	}
	n := len(t.lines)
	if _, err := st.insertOrder.Exec(ctx, w.params(t.oID, t.dID, t.wID, t.cID, w.timestamp(), int64(n), t.allLocal)...); err != nil {
		return err
	}
	if _, err := st.insertNewOrder.Exec(ctx, w.params(t.oID, t.dID, t.wID)...); err != nil {
		return err
	}
	args := w.argv[:n]
	for i := range t.lines {
		args[i] = t.lines[i].iID
	}
	if _, err := st.items[n].QueryRows(ctx, w.rows.noItem, args...); err != nil {
		return err
	}
	for i := range t.lines {
		if l := &t.lines[i]; !l.inItems {
			if l.iID == -1 {
				// The 1% with an unused item: roll back, and the
				// transaction is complete.
				w.rolledBack = true
				_, err := s.Exec(ctx, "ROLLBACK")
				return err
			}
			return fmt.Errorf("tpcc: new_order: item %d not found", l.iID)
		}
	}
	args = w.argv[:2*n]
	for i := range t.lines {
		args[2*i], args[2*i+1] = t.wID, t.lines[i].iID
	}
	if _, err := st.stock[n].QueryRows(ctx, w.rows.noStock, args...); err != nil {
		return err
	}
	for i := range t.lines {
		l := &t.lines[i]
		if !l.inStock {
			return fmt.Errorf("tpcc: new_order: item (%d, %d) not found in stock", t.wID, l.iID)
		}
		if _, err := st.updateStock.Exec(ctx, w.params(l.sQuantity, l.quantity, l.remote, l.iID, t.wID)...); err != nil {
			return err
		}
	}
	args = w.argv[:9*n]
	for i := range t.lines {
		l := &t.lines[i]
		a := args[9*i : 9*i+9]
		a[0], a[1], a[2], a[3], a[4] = t.oID, t.dID, t.wID, int64(i+1), l.iID
		a[5], a[6], a[7], a[8] = l.supplyWID, l.quantity, l.amount, l.dist
	}
	if _, err := st.insertLines[n].Exec(ctx, args...); err != nil {
		return err
	}
	return txnCommit(ctx, s)
}
