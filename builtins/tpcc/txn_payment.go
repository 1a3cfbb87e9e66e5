package tpcc

import (
	"context"
	"database/sql/driver"
	"fmt"

	"github.com/starbench/starbench/builtins/bench"
)

// Payment (clause 2.5) as go-tpc sends it.
const (
	payUpdateDistrict     = "UPDATE district SET d_ytd = d_ytd + ? WHERE d_w_id = ? AND d_id = ?"
	paySelectDistrict     = "SELECT d_street_1, d_street_2, d_city, d_state, d_zip, d_name FROM district WHERE d_w_id = ? AND d_id = ?"
	payUpdateWarehouse    = "UPDATE warehouse SET w_ytd = w_ytd + ? WHERE w_id = ?"
	paySelectWarehouse    = "SELECT w_street_1, w_street_2, w_city, w_state, w_zip, w_name FROM warehouse WHERE w_id = ?"
	paySelectCustomerIDs  = "SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first"
	paySelectCustomer     = "SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_credit, c_credit_lim, c_discount, c_balance, c_since FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ? FOR UPDATE"
	payUpdateCustomer     = "UPDATE customer SET c_balance = c_balance - ?, c_ytd_payment = c_ytd_payment + ?, c_payment_cnt = c_payment_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"
	paySelectCustomerData = "SELECT c_data FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"
	payUpdateCustomerData = "UPDATE customer SET c_balance = c_balance - ?, c_ytd_payment = c_ytd_payment + ?, c_payment_cnt = c_payment_cnt + 1, c_data = ? WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"
	payInsertHistory      = "INSERT INTO history (h_c_d_id, h_c_w_id, h_c_id, h_d_id, h_w_id, h_date, h_amount, h_data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)

type paymentStmts struct {
	updateDistrict, updateWarehouse                bench.Stmt
	district, warehouse, customerIDs, customer     bench.RowStmt
	customerData                                   bench.RowStmt
	updateCustomer, updateCustomerData, insHistory bench.Stmt
}

func (w *txnWorker) preparePayment(p *stmtPreparer) {
	st := &w.st.payment
	st.updateWarehouse = p.stmt(payUpdateWarehouse)
	st.warehouse = p.rows(paySelectWarehouse)
	st.updateDistrict = p.stmt(payUpdateDistrict)
	st.district = p.rows(paySelectDistrict)
	st.customerIDs = p.rows(paySelectCustomerIDs)
	st.customer = p.rows(paySelectCustomer)
	st.customerData = p.rows(paySelectCustomerData)
	st.updateCustomerData = p.stmt(payUpdateCustomerData)
	st.updateCustomer = p.stmt(payUpdateCustomer)
	st.insHistory = p.stmt(payInsertHistory)
}

// paymentTxn is a Payment's inputs and what it read.
type paymentTxn struct {
	wID, dID, cWID, cDID int64
	amount               float64
	cID                  int64  // 0: by last name
	cLast                []byte // the last name looked up
	byName               bool

	dName, wName []byte
	found        int64   // rows of the last single-row read
	ids          []int64 // the customers of the last name, by c_first
	badCredit    bool
	cData        []byte
}

// drawPayment picks the inputs as go-tpc does (clause 2.5.1): an amount
// of 1.00 to 5000.00, the customer by last name 60% of the time, and of
// another warehouse (and a random district) 15% of the time when there
// are several.
func (w *txnWorker) drawPayment() {
	t := &w.pay
	t.wID = w.home()
	t.dID = int64(w.rng.Int(1, 10))
	t.amount = float64(w.rng.Int(100, 500000)) / 100
	t.byName = w.rng.Int(0, 99) < 60
	t.cID = 0
	t.cLast = t.cLast[:0]
	if t.byName {
		t.cLast = AppendLastName(t.cLast, w.rng.LastNameNumber())
	} else {
		t.cID = int64(w.rng.CustomerID())
	}
	if w.o.Warehouses == 1 || w.rng.Int(0, 99) < 85 {
		t.cWID, t.cDID = t.wID, t.dID
	} else {
		t.cWID = w.otherWarehouse(t.wID)
		t.cDID = int64(w.rng.Int(1, 10))
	}
}

func (w *txnWorker) initPaymentRows() {
	t := &w.pay
	w.rows.payDistrict = func(c []driver.Value) error {
		t.found++
		t.dName = appendColText(t.dName[:0], c[5])
		return nil
	}
	w.rows.payWarehouse = func(c []driver.Value) error {
		t.found++
		t.wName = appendColText(t.wName[:0], c[5])
		return nil
	}
	w.rows.payCustomerIDs = func(c []driver.Value) error {
		id, err := colInt(c[0])
		t.ids = append(t.ids, id)
		return err
	}
	w.rows.payCustomer = func(c []driver.Value) error {
		t.found++
		credit := appendColText(w.buf[:0], c[9])
		t.badCredit = string(credit) == "BC"
		return nil
	}
	w.rows.payData = func(c []driver.Value) error {
		t.found++
		t.cData = appendColText(t.cData[:0], c[0])
		return nil
	}
}

// payment runs a Payment: the district's and the warehouse's year-to-date
// raised (and their names read), the customer found (by last name: the
// middle one by first name) and locked, its balance and payments updated
// (and its c_data for bad credit), and a history row written.
func (w *txnWorker) payment(ctx context.Context, s bench.Session) error {
	t, st := &w.pay, &w.st.payment
	cID := t.cID // a retry finds the customer again
	if err := w.begin(ctx, s); err != nil {
		return err
	}
	if _, err := st.updateDistrict.Exec(ctx, w.params(t.amount, t.wID, t.dID)...); err != nil {
		return err
	}
	if err := w.payRead(ctx, st.district, w.rows.payDistrict, "payment district", w.params(t.wID, t.dID)); err != nil {
		return err
	}
	if _, err := st.updateWarehouse.Exec(ctx, w.params(t.amount, t.wID)...); err != nil {
		return err
	}
	if err := w.payRead(ctx, st.warehouse, w.rows.payWarehouse, "payment warehouse", w.params(t.wID)); err != nil {
		return err
	}
	if t.byName {
		t.ids = t.ids[:0]
		if _, err := st.customerIDs.QueryRows(ctx, w.rows.payCustomerIDs, w.params(t.cWID, t.cDID, t.cLast)...); err != nil {
			return err
		}
		if len(t.ids) == 0 {
			return fmt.Errorf("tpcc: payment: no customer (%d, %d) named %s", t.cWID, t.cDID, t.cLast)
		}
		cID = t.ids[(len(t.ids)+1)/2-1]
	}
	if err := w.payRead(ctx, st.customer, w.rows.payCustomer, "payment customer", w.params(t.cWID, t.cDID, cID)); err != nil {
		return err
	}
	if t.badCredit {
		if err := w.payRead(ctx, st.customerData, w.rows.payData, "payment customer data", w.params(t.cWID, t.cDID, cID)); err != nil {
			return err
		}
		data := w.newCustomerData(cID)
		if _, err := st.updateCustomerData.Exec(ctx, w.params(t.amount, t.amount, data, t.cWID, t.cDID, cID)...); err != nil {
			return err
		}
	} else if _, err := st.updateCustomer.Exec(ctx, w.params(t.amount, t.amount, t.cWID, t.cDID, cID)...); err != nil {
		return err
	}
	// h_data: the warehouse's and the district's names, four spaces apart.
	w.buf = fmt.Appendf(w.buf[:0], "%10s    %10s", t.wName, t.dName)
	hData := string(w.buf)
	if _, err := st.insHistory.Exec(ctx, w.params(t.cDID, t.cWID, cID, t.dID, t.wID, w.timestamp(), t.amount, hData)...); err != nil {
		return err
	}
	return txnCommit(ctx, s)
}

// payRead runs a single-row read and fails when it finds no row.
func (w *txnWorker) payRead(ctx context.Context, st bench.RowStmt, row func([]driver.Value) error, what string, args []any) error {
	w.pay.found = 0
	if _, err := st.QueryRows(ctx, row, args...); err != nil {
		return err
	}
	if w.pay.found == 0 {
		return txnNoRow(what, args...)
	}
	return nil
}

// newCustomerData is a bad-credit customer's new c_data as go-tpc makes
// it: the payment's ids, amount and date before the old c_data, cut at
// 500 characters, or, when shorter, made up to 500 with the old c_data's
// beginning.
func (w *txnWorker) newCustomerData(cID int64) string {
	t := &w.pay
	b := fmt.Appendf(w.buf[:0], "| %4d %2d %4d %2d %4d $%7.2f %12s %24s",
		cID, t.cDID, t.cWID, t.dID, t.wID, t.amount, w.timestamp(), t.cData)
	if len(b) >= 500 {
		b = b[:500]
	} else {
		b = append(b, t.cData[:min(500-len(b), len(t.cData))]...)
	}
	w.buf = b
	return string(b)
}
