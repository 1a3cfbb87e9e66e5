package tpcc

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/starbench/starbench/builtins/db"
)

// Querier runs a statement that returns rows. *db.Conn is one; Check runs
// every query on it, one after the other.
type Querier interface {
	Query(ctx context.Context, query string, args ...any) (*db.ResultSet, error)
}

// Condition is the verdict of one consistency condition of clause 3.3.2
// of the TPC-C specification.
type Condition struct {
	// Number is the clause, "3.3.2.1" to "3.3.2.12".
	Number string `json:"number"`
	// Description is the relationship that must hold, in the
	// specification's terms ("W_YTD = sum(D_YTD)").
	Description string `json:"description"`
	// CheckAll is set on the conditions only go-tpc's --check-all runs
	// (those the Delivery transaction breaks).
	CheckAll bool `json:"check_all,omitempty"`
	// Unit is what the condition is checked for, one by one, and what
	// Offending counts: "warehouses", "districts", "orders", "order lines"
	// or "customers".
	Unit string `json:"unit"`
	// Pass is true when no row breaks the condition.
	Pass bool `json:"pass"`
	// Offending is how many of the units break the condition.
	Offending int `json:"offending"`
	// Examples are the first few that do, in key order, each naming the
	// unit and the values compared: "w_id=1 d_id=3: d_next_o_id=3002
	// max(o_id)=3000 max(no_o_id)=3000".
	Examples []string `json:"examples,omitempty"`
}

// MaxExamples is how many offending rows a Condition keeps as examples.
const MaxExamples = 5

// Check verifies the consistency conditions of clause 3.3.2 for
// warehouses 1 to warehouses: go-tpc v1.0.7's default set (3.3.2.1 to
// 3.3.2.10 and 3.3.2.12), which holds after a load and after any run, or
// with all its --check-all set, which adds 3.3.2.11 and holds right after
// a load (Delivery transactions change it).
//
// Each condition is one set-based query per warehouse (joins and GROUP BY
// over the warehouse's rows, no correlated subquery per customer), which
// returns only the rows breaking it. Where go-tpc's inner joins skip a
// unit (a district without new orders for 3.3.2.2's max(O_ID), a customer
// without delivered orders for 3.3.2.10 and 3.3.2.12, an order without
// order lines for 3.3.2.6), Check compares against an empty sum or count
// instead, as the specification does; on consistent data both agree.
//
// A condition that does not hold is a failed Condition, not an error: the
// error is for a query that could not run.
func Check(ctx context.Context, q Querier, layout Layout, warehouses int, all bool) ([]Condition, error) {
	if warehouses < 1 {
		return nil, fmt.Errorf("warehouses must be at least 1, not %d", warehouses)
	}
	dbName, err := q.Query(ctx, "SELECT DATABASE()")
	if err != nil {
		return nil, err
	}
	cols, err := q.Query(ctx, "SELECT LOWER(TABLE_NAME), LOWER(COLUMN_NAME) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME, ORDINAL_POSITION")
	if err != nil {
		return nil, fmt.Errorf("read the tables' columns: %w", err)
	}
	have, schema := map[string][]string{}, ""
	if len(dbName.Rows) == 1 && dbName.Rows[0][0] != nil {
		schema = fmt.Sprint(dbName.Rows[0][0])
	}
	for _, row := range cols.Rows {
		t := fmt.Sprint(row[0])
		have[t] = append(have[t], fmt.Sprint(row[1]))
	}
	if err := compareLayout(have, schema, layout); err != nil {
		return nil, err
	}
	q = layoutQuerier{q, layout}
	// Conditions over warehouses that are not there hold vacuously: a
	// check told of more warehouses than were loaded would pass them.
	rs, err := q.Query(ctx, "SELECT COUNT(*) FROM "+Warehouse+" WHERE w_id BETWEEN 1 AND ?", warehouses)
	if err != nil {
		return nil, fmt.Errorf("count the warehouses: %w", err)
	}
	if n, err := countOf(rs); err != nil {
		return nil, err
	} else if n != warehouses {
		return nil, &NotLoadedError{fmt.Sprintf("the database holds %d of warehouses 1..%d: check the warehouses that were loaded", n, warehouses)}
	}
	var out []Condition
	for _, c := range conditions {
		if c.checkAll && !all {
			continue
		}
		res, err := c.run(ctx, q, warehouses)
		if err != nil {
			return nil, fmt.Errorf("tpcc check %s (%s): %w", c.number, c.desc, err)
		}
		out = append(out, res)
	}
	return out, nil
}

// layoutQuerier runs queries written for go-tpc's tables on a layout's.
type layoutQuerier struct {
	q      Querier
	layout Layout
}

func (l layoutQuerier) Query(ctx context.Context, query string, args ...any) (*db.ResultSet, error) {
	return l.q.Query(ctx, l.layout.SQL(query), args...)
}

// Passed reports whether every condition holds.
func Passed(conds []Condition) bool {
	for _, c := range conds {
		if !c.Pass {
			return false
		}
	}
	return true
}

// exampleLines is how many examples a line of CheckLines shows.
const exampleLines = 3

// CheckLines renders conditions as text, one aligned line each:
//
//	3.3.2.1   W_YTD = sum(D_YTD)                          pass
//	3.3.2.2   D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)  fail (2 districts, e.g. w_id=1 d_id=3: ...; w_id=1 d_id=7: ...)
func CheckLines(conds []Condition) []string {
	numW, descW := 0, 0
	for _, c := range conds {
		numW = max(numW, len(c.Number))
		descW = max(descW, len(c.Description))
	}
	lines := make([]string, 0, len(conds))
	for _, c := range conds {
		verdict := "pass"
		if !c.Pass {
			verdict = fmt.Sprintf("fail (%d %s", c.Offending, unitName(c.Unit, c.Offending))
			if len(c.Examples) > 0 {
				ex := c.Examples[:min(len(c.Examples), exampleLines)]
				verdict += ", e.g. " + strings.Join(ex, "; ")
				if c.Offending > len(ex) {
					verdict += "; ..."
				}
			}
			verdict += ")"
		}
		lines = append(lines, fmt.Sprintf("%-*s  %-*s  %s", numW, c.Number, descW, c.Description, verdict))
	}
	return lines
}

// unitName is unit ("districts") in the singular when n is 1.
func unitName(unit string, n int) string {
	if n == 1 {
		return strings.TrimSuffix(unit, "s")
	}
	return unit
}

// condition is one consistency condition and its query.
type condition struct {
	number, desc, unit string
	checkAll           bool
	// keys is how many leading columns of the query name the offending
	// unit (w_id first); the others are the values compared.
	keys int
	// query selects the rows of one warehouse that break the condition,
	// in key order; every ? is the warehouse's id, and {table} stands
	// for the table's name.
	query string
}

// tableNames maps the queries' {table} placeholders to the tables.
var tableNames = strings.NewReplacer(
	"{warehouse}", Warehouse,
	"{district}", District,
	"{customer}", Customer,
	"{history}", History,
	"{new_order}", NewOrder,
	"{orders}", Orders,
	"{order_line}", OrderLine,
)

// run checks the condition warehouse by warehouse.
func (c condition) run(ctx context.Context, q Querier, warehouses int) (Condition, error) {
	res := Condition{Number: c.number, Description: c.desc, CheckAll: c.checkAll, Unit: c.unit}
	query := strings.TrimSpace(tableNames.Replace(c.query))
	// One row more than the examples tells whether counting is needed.
	limited := query + " LIMIT " + strconv.Itoa(MaxExamples+1)
	counting := "SELECT COUNT(*) FROM (" + query + ") t"
	for w := 1; w <= warehouses; w++ {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		args := warehouseArgs(query, w)
		rs, err := q.Query(ctx, limited, args...)
		if err != nil {
			return res, fmt.Errorf("warehouse %d: %w", w, err)
		}
		n := len(rs.Rows)
		if n > MaxExamples {
			crs, err := q.Query(ctx, counting, args...)
			if err != nil {
				return res, fmt.Errorf("warehouse %d: %w", w, err)
			}
			if n, err = countOf(crs); err != nil {
				return res, fmt.Errorf("warehouse %d: %w", w, err)
			}
		}
		res.Offending += n
		for _, row := range rs.Rows {
			if len(res.Examples) == MaxExamples {
				break
			}
			res.Examples = append(res.Examples, describeRow(rs.Columns, row, c.keys))
		}
	}
	res.Pass = res.Offending == 0
	return res, nil
}

// warehouseArgs binds the warehouse's id to every ? of query.
func warehouseArgs(query string, w int) []any {
	args := make([]any, strings.Count(query, "?"))
	for i := range args {
		args[i] = w
	}
	return args
}

// countOf reads the single integer a COUNT(*) query returns.
func countOf(rs *db.ResultSet) (int, error) {
	if len(rs.Rows) != 1 || len(rs.Rows[0]) != 1 {
		return 0, fmt.Errorf("count: want one value, got %d rows", len(rs.Rows))
	}
	switch v := rs.Rows[0][0].(type) {
	case int64:
		return int(v), nil
	case float64:
		return int(v), nil
	case string:
		return strconv.Atoi(v)
	}
	return 0, fmt.Errorf("count: unexpected value %v (%T)", rs.Rows[0][0], rs.Rows[0][0])
}

// describeRow is an example: "w_id=1 d_id=3: d_next_o_id=3002 max(o_id)=3000".
func describeRow(cols []string, row []any, keys int) string {
	var b strings.Builder
	for i, v := range row {
		switch {
		case i == keys:
			b.WriteString(": ")
		case i > 0:
			b.WriteByte(' ')
		}
		b.WriteString(cols[i])
		b.WriteByte('=')
		b.WriteString(valueString(v))
	}
	return b.String()
}

func valueString(v any) string {
	switch v := v.(type) {
	case nil:
		return "NULL"
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case []byte:
		return string(v)
	}
	return fmt.Sprint(v)
}

// deliveredPerCustomer sums, per customer of a warehouse, the amounts of
// the order lines delivered to them (3.3.2.10 and 3.3.2.12). idx_order
// (o_w_id, o_d_id, o_c_id, o_id) yields the orders grouped already.
const deliveredPerCustomer = `(SELECT o_d_id, o_c_id, SUM(ol_amount) s
    FROM {orders} JOIN {order_line} ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id
    WHERE o_w_id = ? AND ol_delivery_d IS NOT NULL
    GROUP BY o_d_id, o_c_id)`

// conditions are go-tpc v1.0.7's checks, in the specification's order.
// Each query keeps to one warehouse and to SQL that MySQL 5.7, MariaDB and
// TiDB all run (<=> is the null-safe equality, so a NULL where a value
// belongs counts as a difference).
var conditions = []condition{
	{
		number: "3.3.2.1", desc: "W_YTD = sum(D_YTD)", unit: "warehouses", keys: 1,
		query: `
SELECT w_id, w_ytd, COALESCE(SUM(d_ytd), 0) AS ` + "`sum(d_ytd)`" + `
FROM {warehouse} LEFT JOIN {district} ON d_w_id = w_id
WHERE w_id = ?
GROUP BY w_id, w_ytd
HAVING NOT (w_ytd <=> COALESCE(SUM(d_ytd), 0))
ORDER BY w_id`,
	},
	{
		// Spec: max(NO_O_ID) only where the district has new orders.
		number: "3.3.2.2", desc: "D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)", unit: "districts", keys: 2,
		query: `
SELECT d_w_id AS w_id, d_id, d_next_o_id, o.mx AS ` + "`max(o_id)`" + `, n.mx AS ` + "`max(no_o_id)`" + `
FROM {district}
LEFT JOIN (SELECT o_d_id, MAX(o_id) mx FROM {orders} WHERE o_w_id = ? GROUP BY o_d_id) o ON o.o_d_id = d_id
LEFT JOIN (SELECT no_d_id, MAX(no_o_id) mx FROM {new_order} WHERE no_w_id = ? GROUP BY no_d_id) n ON n.no_d_id = d_id
WHERE d_w_id = ?
  AND (NOT (d_next_o_id - 1 <=> COALESCE(o.mx, 0)) OR (n.mx IS NOT NULL AND NOT (d_next_o_id - 1 <=> n.mx)))
ORDER BY d_id`,
	},
	{
		number: "3.3.2.3", desc: "max(NO_O_ID) - min(NO_O_ID) + 1 = count(NEW_ORDER)", unit: "districts", keys: 2,
		query: `
SELECT no_w_id AS w_id, no_d_id AS d_id, MIN(no_o_id) AS ` + "`min(no_o_id)`" + `,
  MAX(no_o_id) AS ` + "`max(no_o_id)`" + `, COUNT(*) AS ` + "`count(new_order)`" + `
FROM {new_order}
WHERE no_w_id = ?
GROUP BY no_w_id, no_d_id
HAVING MAX(no_o_id) - MIN(no_o_id) + 1 <> COUNT(*)
ORDER BY no_d_id`,
	},
	{
		number: "3.3.2.4", desc: "sum(O_OL_CNT) = count(ORDER_LINE)", unit: "districts", keys: 2,
		query: `
SELECT d_w_id AS w_id, d_id, COALESCE(o.s, 0) AS ` + "`sum(o_ol_cnt)`" + `, COALESCE(l.n, 0) AS ` + "`count(order_line)`" + `
FROM {district}
LEFT JOIN (SELECT o_d_id, SUM(o_ol_cnt) s FROM {orders} WHERE o_w_id = ? GROUP BY o_d_id) o ON o.o_d_id = d_id
LEFT JOIN (SELECT ol_d_id, COUNT(*) n FROM {order_line} WHERE ol_w_id = ? GROUP BY ol_d_id) l ON l.ol_d_id = d_id
WHERE d_w_id = ? AND COALESCE(o.s, 0) <> COALESCE(l.n, 0)
ORDER BY d_id`,
	},
	{
		number: "3.3.2.5", desc: "O_CARRIER_ID is null iff the order is in NEW_ORDER", unit: "orders", keys: 3,
		query: `
SELECT o_w_id AS w_id, o_d_id AS d_id, o_id, o_carrier_id,
  CASE WHEN no_o_id IS NULL THEN 'absent' ELSE 'present' END AS new_order
FROM {orders} LEFT JOIN {new_order} ON no_w_id = o_w_id AND no_d_id = o_d_id AND no_o_id = o_id
WHERE o_w_id = ? AND (o_carrier_id IS NULL) = (no_o_id IS NULL)
ORDER BY o_d_id, o_id`,
	},
	{
		number: "3.3.2.6", desc: "O_OL_CNT = count(ORDER_LINE) of the order", unit: "orders", keys: 3,
		query: `
SELECT o_w_id AS w_id, o_d_id AS d_id, o_id, o_ol_cnt, COUNT(ol_o_id) AS ` + "`count(order_line)`" + `
FROM {orders} LEFT JOIN {order_line} ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id
WHERE o_w_id = ?
GROUP BY o_w_id, o_d_id, o_id, o_ol_cnt
HAVING NOT (o_ol_cnt <=> COUNT(ol_o_id))
ORDER BY o_d_id, o_id`,
	},
	{
		number: "3.3.2.7", desc: "OL_DELIVERY_D is null iff O_CARRIER_ID is null", unit: "order lines", keys: 4,
		query: `
SELECT ol_w_id AS w_id, ol_d_id AS d_id, ol_o_id AS o_id, ol_number, o_carrier_id, ol_delivery_d
FROM {orders} JOIN {order_line} ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id
WHERE o_w_id = ? AND (o_carrier_id IS NULL) <> (ol_delivery_d IS NULL)
ORDER BY ol_d_id, ol_o_id, ol_number`,
	},
	{
		number: "3.3.2.8", desc: "W_YTD = sum(H_AMOUNT)", unit: "warehouses", keys: 1,
		query: `
SELECT w_id, w_ytd, COALESCE(h.s, 0) AS ` + "`sum(h_amount)`" + `
FROM {warehouse} CROSS JOIN (SELECT SUM(h_amount) s FROM {history} WHERE h_w_id = ?) h
WHERE w_id = ? AND NOT (w_ytd <=> COALESCE(h.s, 0))
ORDER BY w_id`,
	},
	{
		number: "3.3.2.9", desc: "D_YTD = sum(H_AMOUNT)", unit: "districts", keys: 2,
		query: `
SELECT d_w_id AS w_id, d_id, d_ytd, COALESCE(h.s, 0) AS ` + "`sum(h_amount)`" + `
FROM {district}
LEFT JOIN (SELECT h_d_id, SUM(h_amount) s FROM {history} WHERE h_w_id = ? GROUP BY h_d_id) h ON h.h_d_id = d_id
WHERE d_w_id = ? AND NOT (d_ytd <=> COALESCE(h.s, 0))
ORDER BY d_id`,
	},
	{
		number: "3.3.2.10", desc: "C_BALANCE = sum(delivered OL_AMOUNT) - sum(H_AMOUNT)", unit: "customers", keys: 3,
		query: `
SELECT c_w_id AS w_id, c_d_id AS d_id, c_id, c_balance,
  COALESCE(o.s, 0) AS ` + "`sum(ol_amount)`" + `, COALESCE(h.s, 0) AS ` + "`sum(h_amount)`" + `
FROM {customer}
LEFT JOIN ` + deliveredPerCustomer + ` o ON o.o_d_id = c_d_id AND o.o_c_id = c_id
LEFT JOIN (SELECT h_c_d_id, h_c_id, SUM(h_amount) s FROM {history} WHERE h_c_w_id = ? GROUP BY h_c_d_id, h_c_id) h
  ON h.h_c_d_id = c_d_id AND h.h_c_id = c_id
WHERE c_w_id = ? AND NOT (c_balance <=> COALESCE(o.s, 0) - COALESCE(h.s, 0))
ORDER BY c_d_id, c_id`,
	},
	{
		number: "3.3.2.11", desc: "count(ORDER) - count(NEW_ORDER) = 2100", unit: "districts", keys: 2, checkAll: true,
		query: `
SELECT d_w_id AS w_id, d_id, COALESCE(o.n, 0) AS ` + "`count(orders)`" + `, COALESCE(n.n, 0) AS ` + "`count(new_order)`" + `
FROM {district}
LEFT JOIN (SELECT o_d_id, COUNT(*) n FROM {orders} WHERE o_w_id = ? GROUP BY o_d_id) o ON o.o_d_id = d_id
LEFT JOIN (SELECT no_d_id, COUNT(*) n FROM {new_order} WHERE no_w_id = ? GROUP BY no_d_id) n ON n.no_d_id = d_id
WHERE d_w_id = ? AND COALESCE(o.n, 0) - COALESCE(n.n, 0) <> 2100
ORDER BY d_id`,
	},
	{
		number: "3.3.2.12", desc: "C_BALANCE + C_YTD_PAYMENT = sum(delivered OL_AMOUNT)", unit: "customers", keys: 3,
		query: `
SELECT c_w_id AS w_id, c_d_id AS d_id, c_id, c_balance, c_ytd_payment, COALESCE(o.s, 0) AS ` + "`sum(ol_amount)`" + `
FROM {customer}
LEFT JOIN ` + deliveredPerCustomer + ` o ON o.o_d_id = c_d_id AND o.o_c_id = c_id
WHERE c_w_id = ? AND NOT (c_balance + c_ytd_payment <=> COALESCE(o.s, 0))
ORDER BY c_d_id, c_id`,
	},
}
