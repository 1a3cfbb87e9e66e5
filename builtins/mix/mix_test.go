package mix

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func TestScanSQL(t *testing.T) {
	for _, c := range []struct {
		sql          string
		placeholders int
		tables       []string
		rows         bool
		columns      []string
	}{
		{"SELECT c FROM sbtest1 WHERE id = ?", 1, []string{"sbtest1"}, true, []string{"c"}},
		{"select o.id, SUM(amount) AS total, `x`.`Name`, max(v) m FROM db.orders o, lines AS l WHERE note = '?' AND a = ? -- ?\n", 1,
			[]string{"orders", "lines"}, true, []string{"id", "total", "name", "m"}},
		{"INSERT INTO t (a, b) VALUES (?, \"it's ?\"), (?, /* ? */ ?)", 3, []string{"t"}, false, nil},
		{"UPDATE accounts a JOIN owners ON owners.id = a.owner SET a.n = a.n + 1 WHERE a.id = ?", 1, []string{"accounts", "owners"}, false, nil},
		{"DELETE FROM q WHERE id IN (SELECT id FROM r WHERE k = ?)", 1, []string{"q", "r"}, false, nil},
		{"SELECT 1 + ?, COUNT(*) FROM dual", 1, []string{"dual"}, true, []string{"", ""}},
		{"REPLACE INTO `weird name` VALUES (?) # trailing ?", 1, []string{"weird name"}, false, nil},
	} {
		s := scanSQL(c.sql)
		if s.placeholders != c.placeholders || !slices.Equal(s.tables, c.tables) || s.returnsRows != c.rows || !slices.Equal(s.columns, c.columns) {
			t.Errorf("%q: got %d placeholders, tables %q, rows %v, columns %q; want %d, %q, %v, %q", c.sql, s.placeholders, s.tables,
				s.returnsRows, s.columns, c.placeholders, c.tables, c.rows, c.columns)
		}
	}
}

func mustGen(t *testing.T) func(*Gen, error) *Gen {
	return func(g *Gen, err error) *Gen {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
}

// Bad definitions fail with a message that names what is wrong.
func TestDefineErrors(t *testing.T) {
	gen := mustGen(t)
	one := gen(Const(int64(1)))
	table := []Table{{Name: "t", Create: "id INT PRIMARY KEY, v INT"}}
	txn := func(stmts ...Statement) []Transaction {
		return []Transaction{{Name: "x", Weight: 1, Statements: stmts}}
	}
	for _, c := range []struct {
		d    Definition
		want string
	}{
		{Definition{Name: "m", Tables: table, Transactions: txn(Statement{SQL: "SELECT v FROM t WHERE id = ?"})},
			"transaction x: statement 1: 1 ? placeholders but 0 arguments"},
		{Definition{Name: "m", Tables: table, Transactions: txn(Statement{SQL: "SELECT v FROM u WHERE id = ?", Args: []*Gen{one}})},
			"statement 1: names table u, which the mix does not declare (it declares t)"},
		{Definition{Name: "m", Tables: table, Transactions: txn(
			Statement{SQL: "SELECT v FROM t WHERE id = ?", Args: []*Gen{one}},
			Statement{SQL: "UPDATE t SET v = 0 WHERE id = ?", Args: []*Gen{gen(Ref("id"))}})},
			`statement 2: ref("id"): no earlier statement of the transaction returns a column id (statement 1 returns v`},
		{Definition{Name: "m", Tables: table, Transactions: txn(Statement{SQL: "UPDATE t SET v = ? WHERE id = 1", Args: []*Gen{gen(Ref("v"))}})},
			`ref("v"): no earlier statement of the transaction returns rows`},
		{Definition{Name: "m", Tables: table, Transactions: []Transaction{{Name: "x", Statements: []Statement{{SQL: "SELECT 1"}}}}},
			"transaction x: weight must be positive, got 0"},
		{Definition{Name: "m", Tables: table, Transactions: txn(Statement{SQL: "BEGIN"})}, `a transaction's BEGIN and COMMIT are the mix's`},
		{Definition{Name: "m", Tables: []Table{{Name: "t", Create: "CREATE TABLE other (id INT)"}}, Transactions: txn(Statement{SQL: "SELECT 1"})},
			`tables: t: its CREATE TABLE creates "other", not t`},
		{Definition{Name: "m", Tables: table, Loads: []Load{{Table: "t", Rows: 1, Columns: []Column{{Name: "id", Gen: gen(Ref("id"))}}}},
			Transactions: txn(Statement{SQL: "SELECT 1"})}, `load: t.id: ref("id") cannot fill a loaded column`},
		{Definition{Name: "m", Tables: table, Loads: []Load{{Table: "u", Rows: 1, Columns: []Column{{Name: "id", Gen: one}}}},
			Transactions: txn(Statement{SQL: "SELECT 1"})}, "load: table u is not one of the mix's tables (t)"},
		{Definition{Name: "a/b", Tables: table, Transactions: txn(Statement{SQL: "SELECT 1"})}, "a mix needs a name without spaces or slashes"},
	} {
		_, err := Define(c.d)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
	for _, c := range []struct {
		err  error
		want string
	}{
		{second(Uniform(5, 4)), "uniform: lo 5 is greater than hi 4"},
		{second(Zipfian(1, 10, 1, false)), "zipfian: theta must be between 0 and 1"},
		{second(Zipfian(1, 10, 0.5, true)), "scrambled takes YCSB's theta 0.99 only"},
		{second(Choice([]any{"a", "b"}, []int64{1, 0})), "the weight of value 2 is 0"},
		{second(Sequence(1, 0, true)), "step must not be 0"},
		{second(String(5, 4)), "want 0 <= min <= max"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("got %v, want %q", c.err, c.want)
		}
	}
}

func second(_ *Gen, err error) error { return err }

// A worker draws its transactions in the proportions of their weights:
// each within 3 standard deviations of its expected count over 100,000
// events.
func TestTransactionProportions(t *testing.T) {
	weights := []int{50, 30, 15, 4, 1}
	var txns []Transaction
	for i, w := range weights {
		txns = append(txns, Transaction{Name: string(rune('a' + i)), Weight: w, Statements: []Statement{{SQL: "SELECT 1"}}})
	}
	m, err := Define(Definition{Name: "p", Transactions: txns})
	if err != nil {
		t.Fatal(err)
	}
	r := &run{m: m, threads: 1, shared: &sharedCounters{m: map[*Gen]*counter{}}}
	wk, err := r.NewWorker(0, 99)
	if err != nil {
		t.Fatal(err)
	}
	w := wk.(*worker)
	const n = 100_000
	counts := make([]int, len(weights))
	for range n {
		counts[pickWeighted(w.pick, m.cum)]++
	}
	for i, wt := range weights {
		p := float64(wt) / 100
		want, sd := n*p, math.Sqrt(n*p*(1-p))
		if math.Abs(float64(counts[i])-want) > 3*sd {
			t.Errorf("transaction %d (weight %d): %d of %d, want %.0f ± %.0f", i, wt, counts[i], n, want, 3*sd)
		}
	}
}
