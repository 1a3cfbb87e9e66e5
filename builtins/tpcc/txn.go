package tpcc

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/runner/results"
)

// The transactions (this file and txn_*.go) send, statement for
// statement, what go-tpc v1.0.7 sends to a MySQL server: the same SQL
// (whitespace aside), prepared on the server once per session, in the
// same order, with the same argument types, inside START TRANSACTION ...
// COMMIT sent as text; where go-tpc departs from the specification's
// clause 2 (an item id of -1 for New-Order's rollback, stock read and
// updated in the home warehouse, ol_amount with taxes and discount, the
// home warehouse drawn per transaction) they do as go-tpc does, so that
// results compare with go-tpc's.

// Kind is one of TPC-C's five transactions; its value is the index into
// Workload.Kinds.
type Kind int

// The five transactions, in the order of Workload.Kinds.
const (
	KindNewOrder Kind = iota
	KindPayment
	KindOrderStatus
	KindDelivery
	KindStockLevel
	numKinds
)

var kindNames = [numKinds]string{"new_order", "payment", "order_status", "delivery", "stock_level"}

// String is the transaction's name as go-tpc reports it in lower case
// ("new_order", ...).
func (k Kind) String() string {
	if k < 0 || k >= numKinds {
		return "kind(" + strconv.Itoa(int(k)) + ")"
	}
	return kindNames[k]
}

// checkWeights checks a mix: no weight negative, the five adding up to
// 100.
func checkWeights(w Weights) error {
	sum := 0
	for k, v := range w {
		if v < 0 {
			return fmt.Errorf("weight of %s must not be negative, got %d", Kind(k), v)
		}
		sum += v
	}
	if sum != 100 {
		return fmt.Errorf("transaction weights must add up to 100, got %d (%d/%d/%d/%d/%d)", sum, w[0], w[1], w[2], w[3], w[4])
	}
	return nil
}

// WorkloadOptions configure the transactions of a run.
type WorkloadOptions struct {
	// Warehouses is the number of warehouses loaded (go-tpc's
	// --warehouses); every transaction draws its home warehouse from
	// 1..Warehouses, as go-tpc does.
	Warehouses int
	// Weights is the mix, in Kind order (BenchmarkSQL's newOrderWeight
	// ... stockLevelWeight); the zero value means DefaultWeights.
	Weights Weights
	// Wait adds the specification's keying time before and think time
	// after each transaction (go-tpc's --wait; off by default). The
	// engine times the whole event, so latencies then include them.
	Wait bool
	// Constants are the load's NURand constants (NewConstants of the
	// load's seed); with BenchmarkSQL's layout the run reads them from
	// bmsql_config instead, as BenchmarkSQL does. The run's are
	// RunConstants of them (clause 2.1.6.1).
	Constants Constants
	// FixedWarehouse keeps each worker on one home warehouse, worker i on
	// warehouse i mod Warehouses + 1 (BenchmarkSQL's
	// terminalWarehouseFixed); otherwise every transaction draws its own.
	FixedWarehouse bool
	// Layout is the tables' (go-tpc's by default, or BenchmarkSQL's
	// bmsql_ ones); the statements are go-tpc's either way.
	Layout Layout
	// Isolation is the level each transaction sets first (SET
	// TRANSACTION ISOLATION LEVEL ...), one of IsolationLevels' names;
	// empty: the server's default, and no statement.
	Isolation string
}

// StatementGeneration versions the statement stream: it changes whenever
// a seed's statements or their arguments change.
const StatementGeneration = "1"

// Workload is TPC-C's five transactions as a bench.Workload (closed loop,
// one session per worker): each event is one transaction, dealt from a
// shuffled deck of the weights. It is also a bench.Kinded workload, and
// its workers are bench.KindReporters.
//
// The transactions use what they read, so the statements a worker reads
// rows from must be bench.RowStmts (the engine's transport's are): Prepare
// fails with ErrNoRowValues on a session whose statements are not.
type Workload struct {
	opts WorkloadOptions
	deck []Kind
	// now is the clock of the dates the transactions write (o_entry_d,
	// h_date, ol_delivery_d, c_data); tests fix it.
	now func() time.Time
	// run are the run's C constants, set by Step's run from the load's
	// and the run seed; nil: RunConstants(opts.Constants, 0).
	run *Constants
}

// runConstants are the C constants every worker of the run draws with.
func (wl *Workload) runConstants() Constants {
	if wl.run == nil {
		return RunConstants(wl.opts.Constants, 0)
	}
	return *wl.run
}

// NewWorkload validates the options and makes the workload.
func NewWorkload(o WorkloadOptions) (*Workload, error) {
	if o.Warehouses < 1 {
		return nil, fmt.Errorf("warehouses must be at least 1, got %d", o.Warehouses)
	}
	if o.Weights == (Weights{}) {
		o.Weights = DefaultWeights
	}
	if err := checkWeights(o.Weights); err != nil {
		return nil, err
	}
	if !isolationKnown(o.Isolation) {
		return nil, fmt.Errorf("unknown isolation level %q", o.Isolation)
	}
	wl := &Workload{opts: o, now: time.Now}
	for k, n := range o.Weights {
		for range n {
			wl.deck = append(wl.deck, Kind(k))
		}
	}
	return wl, nil
}

func isolationKnown(level string) bool {
	for _, name := range IsolationLevels {
		if name == level {
			return true
		}
	}
	return false
}

// Options returns the options the workload was made with (Weights
// filled in).
func (wl *Workload) Options() WorkloadOptions { return wl.opts }

// Meta implements bench.Workload.
func (wl *Workload) Meta() results.Meta {
	return results.Meta{Name: "tpcc", Version: "go-tpc-1.0.7/gen" + StatementGeneration}
}

// Kinds implements bench.Kinded: the five transactions in Kind order.
func (wl *Workload) Kinds() []string { return append([]string(nil), kindNames[:]...) }

// txnStream is the stream of a worker's seed its Rand draws from (the
// loader's streams are its own).
const txnStream = 0x74786e // "txn"

// NewWorker implements bench.Workload. All of the worker's choices (the
// deck's order, the transactions' inputs, the wait times) derive from
// seed and the options, so a seed repeats the stream.
func (wl *Workload) NewWorker(id int, seed uint64) (bench.Worker, error) {
	w := &txnWorker{
		o:    wl.opts,
		id:   id,
		rng:  NewRand(seed, txnStream, wl.runConstants()),
		deck: append([]Kind(nil), wl.deck...),
		now:  wl.now,
	}
	w.next = len(w.deck) // shuffled before the first deal
	if wl.opts.FixedWarehouse {
		w.fixedHome = int64(id%wl.opts.Warehouses + 1)
	}
	w.initRowFuncs()
	return w, nil
}

// ErrNoRowValues is returned (wrapped) by a worker's Prepare when the
// session's prepared statements cannot hand back row values (they are not
// bench.RowStmts).
var ErrNoRowValues = errors.New("the session's prepared statements cannot return row values (they are not bench.RowStmts), which TPC-C's transactions need")

// txnWorker runs the transactions of one client thread.
type txnWorker struct {
	o    WorkloadOptions
	id   int
	rng  *Rand
	deck []Kind
	next int  // next card of deck to deal
	kind Kind // the last event's transaction
	// fixedHome is the worker's home warehouse with FixedWarehouse; 0:
	// drawn per transaction.
	fixedHome int64
	// retry says the last event failed: the next one runs the same
	// transaction with the same inputs again, as the engine retries an
	// event after an ignored error (so completed transactions keep the
	// mix's shares exactly).
	retry bool
	// rolledBack says the last New-Order was the 1% that rolls back.
	rolledBack bool

	now     func() time.Time
	nowUnix int64
	nowText any // now formatted as go-tpc sends it, redone once a second

	st   txnStatements
	argv [15 * 9]any // the arguments of a call, reused
	buf  []byte      // c_data and h_data being built

	no  newOrderTxn
	pay paymentTxn
	os  orderStatusTxn
	dl  deliveryTxn
	sl  stockLevelTxn

	rows  txnRowFuncs
	timer *time.Timer
}

// Kind implements bench.KindReporter: the index of the last event's
// transaction in Workload.Kinds.
func (w *txnWorker) Kind() int { return int(w.kind) }

// SetWeights implements bench.Reweighter: a phase's mix deals from a
// deck of its weights (shuffled before its first deal), nil from the
// workload's.
func (w *txnWorker) SetWeights(weights []int64) {
	if weights == nil {
		weights = make([]int64, numKinds)
		for k, n := range w.o.Weights {
			weights[k] = int64(n)
		}
	}
	w.deck = w.deck[:0]
	for k, n := range weights {
		for range n {
			w.deck = append(w.deck, Kind(k))
		}
	}
	w.next = len(w.deck)
}

// txnStatements are a worker's prepared statements, by transaction.
type txnStatements struct {
	newOrder    newOrderStmts
	payment     paymentStmts
	orderStatus orderStatusStmts
	delivery    deliveryStmts
	stockLevel  stockLevelStmts
}

// txnRowFuncs are the row callbacks of the worker's reads, made once (a
// method value made per call would be allocated per call).
type txnRowFuncs struct {
	noCustomer, noDistrict, noItem, noStock                func([]driver.Value) error
	payDistrict, payWarehouse, payCustomerIDs, payCustomer func([]driver.Value) error
	payData                                                func([]driver.Value) error
	osCount, osByLast, osByID, osLatest                    func([]driver.Value) error
	dlNewOrder, dlOrders, dlSums, slDistrict               func([]driver.Value) error
}

func (w *txnWorker) initRowFuncs() {
	w.initNewOrderRows()
	w.initPaymentRows()
	w.initOrderStatusRows()
	w.initDeliveryRows()
	w.initStockLevelRows()
}

// Prepare implements bench.Worker: it prepares the five transactions'
// statements on the session (again after a reconnect).
func (w *txnWorker) Prepare(ctx context.Context, s bench.Session) error {
	p := stmtPreparer{ctx: ctx, s: s, layout: w.o.Layout}
	w.st = txnStatements{}
	w.prepareNewOrder(&p)
	w.preparePayment(&p)
	w.prepareOrderStatus(&p)
	w.prepareDelivery(&p)
	w.prepareStockLevel(&p)
	return p.err
}

// stmtPreparer prepares statements until the first error, which it keeps.
type stmtPreparer struct {
	ctx    context.Context
	s      bench.Session
	layout Layout // the tables' names
	err    error
}

func (p *stmtPreparer) stmt(query string) bench.Stmt {
	if p.err != nil {
		return nil
	}
	st, err := p.s.Prepare(p.ctx, p.layout.SQL(query))
	if err != nil {
		p.err = err
		return nil
	}
	return st
}

func (p *stmtPreparer) rows(query string) bench.RowStmt {
	st := p.stmt(query)
	if st == nil {
		return nil
	}
	rs, ok := st.(bench.RowStmt)
	if !ok {
		p.err = fmt.Errorf("tpcc: %w (%T)", ErrNoRowValues, st)
		return nil
	}
	return rs
}

// Event implements bench.Worker: it runs the next transaction of the
// deck, or, after a failed event, the same transaction again. A failed
// transaction is rolled back (unless the connection is gone) so that the
// session can go on; server errors are returned as they come.
func (w *txnWorker) Event(ctx context.Context, s bench.Session) error {
	if !w.retry {
		w.kind = w.deal()
		w.draw(w.kind)
		if w.o.Wait {
			if err := w.sleep(ctx, keyingTime[w.kind]); err != nil {
				return err
			}
		}
	}
	err := w.run(ctx, s)
	if err != nil {
		w.retry = true
		if ctx.Err() == nil && !bench.IsConnectionLost(err) {
			_, _ = s.Exec(ctx, "ROLLBACK")
		}
		return err
	}
	w.retry = false
	if w.o.Wait {
		return w.sleep(ctx, w.thinkTime(w.kind))
	}
	return nil
}

// deal takes the next card of the deck, shuffling it when it is used up:
// every len(deck) events of a worker hold each transaction exactly its
// weight's number of times.
func (w *txnWorker) deal() Kind {
	if w.next >= len(w.deck) {
		for i := len(w.deck) - 1; i > 0; i-- {
			j := w.rng.Int(0, i)
			w.deck[i], w.deck[j] = w.deck[j], w.deck[i]
		}
		w.next = 0
	}
	k := w.deck[w.next]
	w.next++
	return k
}

// draw picks the inputs of a transaction.
func (w *txnWorker) draw(k Kind) {
	switch k {
	case KindNewOrder:
		w.drawNewOrder()
	case KindPayment:
		w.drawPayment()
	case KindOrderStatus:
		w.drawOrderStatus()
	case KindDelivery:
		w.drawDelivery()
	case KindStockLevel:
		w.drawStockLevel()
	}
}

// run executes the drawn transaction.
func (w *txnWorker) run(ctx context.Context, s bench.Session) error {
	switch w.kind {
	case KindNewOrder:
		return w.newOrder(ctx, s)
	case KindPayment:
		return w.payment(ctx, s)
	case KindOrderStatus:
		return w.orderStatus(ctx, s)
	case KindDelivery:
		return w.delivery(ctx, s)
	case KindStockLevel:
		return w.stockLevel(ctx, s)
	}
	return fmt.Errorf("tpcc: no transaction %d", w.kind)
}

// Keying and mean think times (clause 5.2.5), as go-tpc waits them.
var (
	keyingTime = [numKinds]time.Duration{18 * time.Second, 3 * time.Second, 2 * time.Second, 2 * time.Second, 2 * time.Second}
	meanThink  = [numKinds]float64{12, 12, 10, 5, 5} // seconds
)

// thinkTime is a think time from the negative exponential distribution of
// clause 5.2.5.4, cut at ten times its mean.
func (w *txnWorker) thinkTime(k Kind) time.Duration {
	const scale = 1 << 53
	u := float64(w.rng.Int(1, scale)) / scale // (0, 1]
	t := min(-math.Log(u)*meanThink[k], 10*meanThink[k])
	return time.Duration(t * float64(time.Second))
}

// sleep waits d, or until ctx ends.
func (w *txnWorker) sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	if w.timer == nil {
		w.timer = time.NewTimer(d)
	} else {
		w.timer.Reset(d)
	}
	select {
	case <-w.timer.C:
		return nil
	case <-ctx.Done():
		w.timer.Stop()
		return ctx.Err()
	}
}

// warehouse draws a warehouse uniformly from all of them, as go-tpc does.
func (w *txnWorker) warehouse() int64 { return int64(w.rng.Int(1, w.o.Warehouses)) }

// home is a transaction's home warehouse: the worker's own with
// FixedWarehouse, else drawn per transaction (warehouse).
func (w *txnWorker) home() int64 {
	if w.fixedHome > 0 {
		return w.fixedHome
	}
	return w.warehouse()
}

// otherWarehouse draws a warehouse other than home (home itself when
// there is only one), as go-tpc does.
func (w *txnWorker) otherWarehouse(home int64) int64 {
	if w.o.Warehouses == 1 {
		return home
	}
	for {
		if o := w.warehouse(); o != home {
			return o
		}
	}
}

// params puts a call's arguments in the worker's reused array.
func (w *txnWorker) params(args ...any) []any {
	n := copy(w.argv[:], args)
	return w.argv[:n]
}

// timestamp is the current time as go-tpc sends dates: a string in
// "2006-01-02 15:04:05" form.
func (w *txnWorker) timestamp() any {
	now := w.now()
	if sec := now.Unix(); sec != w.nowUnix || w.nowText == nil {
		w.nowUnix = sec
		w.nowText = now.Format(time.DateTime)
	}
	return w.nowText
}

// begin starts a transaction as go-sql-driver's BeginTx does for go-tpc:
// the isolation level first when one is asked for.
func (w *txnWorker) begin(ctx context.Context, s bench.Session) error {
	if w.o.Isolation != "" {
		if _, err := s.Exec(ctx, "SET TRANSACTION ISOLATION LEVEL "+w.o.Isolation); err != nil {
			return err
		}
	}
	_, err := s.Exec(ctx, "START TRANSACTION")
	return err
}

// IsolationLevels are go-tpc's --isolation numbers (database/sql's
// IsolationLevel) that the MySQL protocol has, as the SQL names them; 0
// is the server's default. go-tpc's others (3 WriteCommitted, 5
// Snapshot, 7 Linearizable) fail in go-sql-driver, so here they are
// refused.
var IsolationLevels = map[int]string{0: "", 1: "READ UNCOMMITTED", 2: "READ COMMITTED", 4: "REPEATABLE READ", 6: "SERIALIZABLE"}

// txnCommit ends a transaction as go-sql-driver's Commit does.
func txnCommit(ctx context.Context, s bench.Session) error {
	_, err := s.Exec(ctx, "COMMIT")
	return err
}

// txnNoRow reports a row a transaction needs and did not find (go-tpc's
// sql.ErrNoRows from a QueryRow).
func txnNoRow(what string, args ...any) error {
	return fmt.Errorf("tpcc: %s: no row for %s", what, fmt.Sprint(args...))
}

// colInt reads an integer column.
func colInt(v driver.Value) (int64, error) {
	switch v := v.(type) {
	case int64:
		return v, nil
	case uint64:
		return int64(v), nil
	case float64:
		return int64(v), nil
	case []byte:
		return strconv.ParseInt(string(v), 10, 64)
	case string:
		return strconv.ParseInt(v, 10, 64)
	case nil:
		return 0, errors.New("tpcc: NULL where a number was expected")
	}
	return 0, fmt.Errorf("tpcc: a %T where an integer was expected", v)
}

// colFloat reads a DECIMAL or floating-point column as go-tpc scans it
// into a float64.
func colFloat(v driver.Value) (float64, error) {
	switch v := v.(type) {
	case float64:
		return v, nil
	case float32:
		return float64(v), nil
	case int64:
		return float64(v), nil
	case uint64:
		return float64(v), nil
	case []byte:
		return strconv.ParseFloat(string(v), 64)
	case string:
		return strconv.ParseFloat(v, 64)
	case nil:
		return 0, errors.New("tpcc: NULL where a number was expected")
	}
	return 0, fmt.Errorf("tpcc: a %T where a number was expected", v)
}

// appendColText appends a character column's value (NULL as nothing).
func appendColText(b []byte, v driver.Value) []byte {
	switch v := v.(type) {
	case []byte:
		return append(b, v...)
	case string:
		return append(b, v...)
	case nil:
		return b
	}
	return fmt.Append(b, v)
}
