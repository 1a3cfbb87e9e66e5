package tpcc

import (
	"context"
	"database/sql/driver"

	"github.com/starbench/starbench/builtins/bench"
)

// Stock-Level (clause 2.8) as go-tpc sends it, with its TiDB join hint.
const (
	slSelectDistrict = "SELECT d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?"
	slCountLowStock  = "SELECT /*+ TIDB_INLJ(order_line,stock) */ COUNT(DISTINCT (s_i_id)) stock_count FROM order_line, stock WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id < ? AND ol_o_id >= ? - 20 AND s_w_id = ? AND s_i_id = ol_i_id AND s_quantity < ?"
)

type stockLevelStmts struct {
	district bench.RowStmt
	count    bench.Stmt
}

func (w *txnWorker) prepareStockLevel(p *stmtPreparer) {
	st := &w.st.stockLevel
	st.district = p.rows(slSelectDistrict)
	st.count = p.stmt(slCountLowStock)
}

// stockLevelTxn is a Stock-Level's inputs and what it read.
type stockLevelTxn struct {
	wID, dID, threshold int64
	nextOID             int64
	found               bool
}

// drawStockLevel picks the inputs as go-tpc does (clause 2.8.1): a
// warehouse and district per transaction, a threshold of 10 to 20.
func (w *txnWorker) drawStockLevel() {
	t := &w.sl
	t.wID = w.home()
	t.dID = int64(w.rng.Int(1, 10))
	t.threshold = int64(w.rng.Int(10, 20))
}

func (w *txnWorker) initStockLevelRows() {
	t := &w.sl
	w.rows.slDistrict = func(c []driver.Value) error {
		var err error
		t.nextOID, err = colInt(c[0])
		t.found = err == nil
		return err
	}
}

// stockLevel runs a Stock-Level: the district's next order id, then the
// distinct items of its last 20 orders whose stock is under the
// threshold, counted; it changes nothing.
func (w *txnWorker) stockLevel(ctx context.Context, s bench.Session) error {
	t, st := &w.sl, &w.st.stockLevel
	if err := w.begin(ctx, s); err != nil {
		return err
	}
	t.found = false
	if _, err := st.district.QueryRows(ctx, w.rows.slDistrict, w.params(t.wID, t.dID)...); err != nil {
		return err
	}
	if !t.found {
		return txnNoRow("stock_level district", w.argv[:2]...)
	}
	if err := st.count.Query(ctx, w.params(t.wID, t.dID, t.nextOID, t.nextOID, t.wID, t.threshold)...); err != nil {
		return err
	}
	return txnCommit(ctx, s)
}
