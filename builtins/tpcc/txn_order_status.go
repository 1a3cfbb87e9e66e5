package tpcc

import (
	"context"
	"database/sql/driver"
	"fmt"

	"github.com/starbench/starbench/builtins/bench"
)

// Order-Status (clause 2.6) as go-tpc sends it.
const (
	osCountByLast    = "SELECT count(c_id) namecnt FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ?"
	osSelectByLast   = "SELECT c_balance, c_first, c_middle, c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first"
	osSelectByID     = "SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"
	osSelectLatest   = "SELECT o_id, o_carrier_id, o_entry_d FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ? ORDER BY o_id DESC LIMIT 1"
	osSelectOrderLns = "SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?"
)

type orderStatusStmts struct {
	countByLast, byLast, byID, latest bench.RowStmt
	lines                             bench.Stmt
}

func (w *txnWorker) prepareOrderStatus(p *stmtPreparer) {
	st := &w.st.orderStatus
	st.countByLast = p.rows(osCountByLast)
	st.byLast = p.rows(osSelectByLast)
	st.byID = p.rows(osSelectByID)
	st.latest = p.rows(osSelectLatest)
	st.lines = p.stmt(osSelectOrderLns)
}

// orderStatusTxn is an Order-Status's inputs and what it read.
type orderStatusTxn struct {
	wID, dID int64
	byName   bool
	cID      int64 // by id
	cLast    []byte

	named, take, seen int64 // by name: customers counted, rows to read, rows read
	customer          int64 // the customer found
	found             int64
	oID               int64
}

// drawOrderStatus picks the inputs as go-tpc does (clause 2.6.1): the
// customer by last name 60% of the time.
func (w *txnWorker) drawOrderStatus() {
	t := &w.os
	t.wID = w.home()
	t.dID = int64(w.rng.Int(1, 10))
	t.byName = w.rng.Int(0, 99) < 60
	t.cID = 0
	t.cLast = t.cLast[:0]
	if t.byName {
		t.cLast = AppendLastName(t.cLast, w.rng.LastNameNumber())
	} else {
		t.cID = int64(w.rng.CustomerID())
	}
}

func (w *txnWorker) initOrderStatusRows() {
	t := &w.os
	w.rows.osCount = func(c []driver.Value) error {
		var err error
		t.named, err = colInt(c[0])
		return err
	}
	// go-tpc reads the customers of the name up to the middle one (the
	// count rounded up to even, halved) and keeps the last it read.
	w.rows.osByLast = func(c []driver.Value) error {
		if t.seen >= t.take {
			return nil
		}
		t.seen++
		var err error
		t.customer, err = colInt(c[3])
		return err
	}
	w.rows.osByID = func([]driver.Value) error {
		t.found++
		return nil
	}
	w.rows.osLatest = func(c []driver.Value) error {
		t.found++
		var err error
		t.oID, err = colInt(c[0])
		return err
	}
}

// orderStatus runs an Order-Status: the customer (by last name: counted,
// then the middle one by first name), its latest order, and that order's
// lines; it changes nothing.
func (w *txnWorker) orderStatus(ctx context.Context, s bench.Session) error {
	t, st := &w.os, &w.st.orderStatus
	if err := w.begin(ctx, s); err != nil {
		return err
	}
	t.customer = t.cID
	if t.byName {
		t.named = 0
		if _, err := st.countByLast.QueryRows(ctx, w.rows.osCount, w.params(t.wID, t.dID, t.cLast)...); err != nil {
			return err
		}
		t.take, t.seen = (t.named+t.named%2)/2, 0
		if _, err := st.byLast.QueryRows(ctx, w.rows.osByLast, w.params(t.wID, t.dID, t.cLast)...); err != nil {
			return err
		}
	} else {
		t.found = 0
		if _, err := st.byID.QueryRows(ctx, w.rows.osByID, w.params(t.wID, t.dID, t.cID)...); err != nil {
			return err
		}
		if t.found == 0 {
			return txnNoRow("order_status customer", w.argv[:3]...)
		}
	}
	t.found = 0
	if _, err := st.latest.QueryRows(ctx, w.rows.osLatest, w.params(t.wID, t.dID, t.customer)...); err != nil {
		return err
	}
	if t.found == 0 {
		return fmt.Errorf("tpcc: order_status: no order of customer (%d, %d, %d)", t.wID, t.dID, t.customer)
	}
	if err := st.lines.Query(ctx, w.params(t.wID, t.dID, t.oID)...); err != nil {
		return err
	}
	return txnCommit(ctx, s)
}
