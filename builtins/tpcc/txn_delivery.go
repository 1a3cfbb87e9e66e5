package tpcc

import (
	"context"
	"database/sql/driver"
	"fmt"

	"github.com/starbench/starbench/builtins/bench"
)

// Delivery (clause 2.7) as go-tpc sends it: one read per district, then
// each step for the ten districts' orders at once.
const (
	dlSelectNewOrder  = "SELECT no_o_id FROM new_order WHERE no_w_id = ? AND no_d_id = ? ORDER BY no_o_id ASC LIMIT 1 FOR UPDATE"
	dlUpdateCustomer  = "UPDATE customer SET c_balance = c_balance + ?, c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"
	dlDistricts       = 10
	dlTenOrders       = "(?,?,?),(?,?,?),(?,?,?),(?,?,?),(?,?,?),(?,?,?),(?,?,?),(?,?,?),(?,?,?),(?,?,?)"
	dlDeleteNewOrder  = "DELETE FROM new_order WHERE (no_w_id, no_d_id, no_o_id) IN (" + dlTenOrders + ")"
	dlUpdateOrders    = "UPDATE orders SET o_carrier_id = ? WHERE (o_w_id, o_d_id, o_id) IN (" + dlTenOrders + ")"
	dlSelectOrders    = "SELECT o_d_id, o_c_id FROM orders WHERE (o_w_id, o_d_id, o_id) IN (" + dlTenOrders + ")"
	dlUpdateOrderLine = "UPDATE order_line SET ol_delivery_d = ? WHERE (ol_w_id, ol_d_id, ol_o_id) IN (" + dlTenOrders + ")"
	dlSelectSums      = "SELECT ol_d_id, SUM(ol_amount) FROM order_line WHERE (ol_w_id, ol_d_id, ol_o_id) IN (" + dlTenOrders + ") GROUP BY ol_d_id"
)

type deliveryStmts struct {
	newOrder, orders, sums                        bench.RowStmt
	deleteNewOrder, updateOrders, updateOrderLine bench.Stmt
	updateCustomer                                bench.Stmt
}

func (w *txnWorker) prepareDelivery(p *stmtPreparer) {
	st := &w.st.delivery
	st.newOrder = p.rows(dlSelectNewOrder)
	st.deleteNewOrder = p.stmt(dlDeleteNewOrder)
	st.updateOrders = p.stmt(dlUpdateOrders)
	st.orders = p.rows(dlSelectOrders)
	st.updateOrderLine = p.stmt(dlUpdateOrderLine)
	st.sums = p.rows(dlSelectSums)
	st.updateCustomer = p.stmt(dlUpdateCustomer)
}

// deliveryTxn is a Delivery's inputs and what it read, by district.
type deliveryTxn struct {
	wID, carrier int64
	oID          [dlDistricts]int64 // 0: the district had no new order
	cID          [dlDistricts]int64
	amount       [dlDistricts]float64
	district     int // the district being read
}

// drawDelivery picks the inputs as go-tpc does (clause 2.7.1): a carrier
// of 1 to 10.
func (w *txnWorker) drawDelivery() {
	t := &w.dl
	t.wID = w.home()
	t.carrier = int64(w.rng.Int(1, 10))
}

// dlDistrict reads the district column of a row (1..10) as an index.
func dlDistrict(v driver.Value) (int, error) {
	d, err := colInt(v)
	if err == nil && (d < 1 || d > dlDistricts) {
		err = fmt.Errorf("tpcc: delivery: district %d", d)
	}
	return int(d) - 1, err
}

func (w *txnWorker) initDeliveryRows() {
	t := &w.dl
	w.rows.dlNewOrder = func(c []driver.Value) error {
		var err error
		t.oID[t.district], err = colInt(c[0])
		return err
	}
	w.rows.dlOrders = func(c []driver.Value) error {
		d, err := dlDistrict(c[0])
		if err != nil {
			return err
		}
		t.cID[d], err = colInt(c[1])
		return err
	}
	w.rows.dlSums = func(c []driver.Value) error {
		d, err := dlDistrict(c[0])
		if err != nil {
			return err
		}
		t.amount[d], err = colFloat(c[1])
		return err
	}
}

// orderKeys puts (w_id, d_id, o_id) of the ten districts' orders in args
// from index at (districts without an order have o_id 0 and match none).
func (t *deliveryTxn) orderKeys(args []any, at int) []any {
	for d := range dlDistricts {
		args[at+3*d], args[at+3*d+1], args[at+3*d+2] = t.wID, int64(d+1), t.oID[d]
	}
	return args[:at+3*dlDistricts]
}

// delivery runs a Delivery: the oldest new order of each district (locked),
// then for all ten at once: their new_order rows deleted, the carrier set,
// their customers read, their lines' delivery dates set and amounts
// summed; then each customer's balance raised by its order's amount.
func (w *txnWorker) delivery(ctx context.Context, s bench.Session) error {
	t, st := &w.dl, &w.st.delivery
	t.oID, t.cID, t.amount = [dlDistricts]int64{}, [dlDistricts]int64{}, [dlDistricts]float64{}
	if err := w.begin(ctx, s); err != nil {
		return err
	}
	for d := range dlDistricts {
		t.district = d
		if _, err := st.newOrder.QueryRows(ctx, w.rows.dlNewOrder, w.params(t.wID, int64(d+1))...); err != nil {
			return err
		}
	}
	if _, err := st.deleteNewOrder.Exec(ctx, t.orderKeys(w.argv[:], 0)...); err != nil {
		return err
	}
	w.argv[0] = t.carrier
	if _, err := st.updateOrders.Exec(ctx, t.orderKeys(w.argv[:], 1)...); err != nil {
		return err
	}
	if _, err := st.orders.QueryRows(ctx, w.rows.dlOrders, t.orderKeys(w.argv[:], 0)...); err != nil {
		return err
	}
	w.argv[0] = w.timestamp()
	if _, err := st.updateOrderLine.Exec(ctx, t.orderKeys(w.argv[:], 1)...); err != nil {
		return err
	}
	if _, err := st.sums.QueryRows(ctx, w.rows.dlSums, t.orderKeys(w.argv[:], 0)...); err != nil {
		return err
	}
	for d := range dlDistricts {
		if t.oID[d] == 0 {
			continue
		}
		if _, err := st.updateCustomer.Exec(ctx, w.params(t.amount[d], t.wID, int64(d+1), t.cID[d])...); err != nil {
			return err
		}
	}
	return txnCommit(ctx, s)
}
