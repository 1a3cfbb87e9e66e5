// Package mix is the core of declared transaction mixes: a workload for a
// team's own schema, described as data (tables, how to load them, and
// transactions of parameterised statements whose values come from
// generators) and run by the engine at the speed of the built-in
// families. Define checks a description and compiles it once; no plan
// code runs per event. The Starlark module that declares mixes
// (builtins/mix/mixstar) turns a plan's declaration into a Definition; a
// Go program can build one directly.
package mix

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/starbench/starbench/runner/results"
)

// Definition describes a mix.
type Definition struct {
	Name         string
	Tables       []Table
	Loads        []Load
	Transactions []Transaction
}

// Table is a table the mix creates, loads, uses and drops.
type Table struct {
	Name string
	// Create is the table's column and index definitions ("id BIGINT
	// PRIMARY KEY, c VARCHAR(20)"), or a whole CREATE TABLE statement
	// that names the table.
	Create string
}

// Load is how a table is filled before a run: rows rows, each column's
// value drawn from its generator (row r of a sequence is start + r*step).
type Load struct {
	Table   string
	Rows    int64
	Columns []Column
}

// Column is a loaded column and its generator.
type Column struct {
	Name string
	Gen  *Gen
}

// Transaction is one kind of event of the mix, drawn by weight.
type Transaction struct {
	Name       string
	Weight     int
	Statements []Statement
	// Autocommit sends the statements without BEGIN and COMMIT.
	Autocommit bool
	// RetryOn lists MySQL error codes on which the transaction is rolled
	// back and run again, up to Retries times, before its error counts.
	RetryOn []uint16
	Retries int
	// Think is a pause after the transaction, not part of its latency
	// (closed loop only: under a rate the schedule paces the events).
	Think time.Duration
	// Custom, in place of Statements, makes each worker's body of the
	// transaction: code run per event (see CustomMaker), slower than
	// statements. CustomName says where it comes from (a function and
	// its file:line), for the mix's version and messages.
	Custom     CustomMaker
	CustomName string
}

// Statement is one statement of a transaction: its text, with a ?
// placeholder for each argument; or, with Either, one of several
// statements, drawn uniformly each time the transaction runs (YCSB's
// update of one field of ten).
type Statement struct {
	SQL    string
	Args   []*Gen
	Either []Statement
}

// CheckStatement checks a statement's text against its arguments: one
// per ? placeholder, and refs (values of an earlier result) only where a
// transaction can give them.
func CheckStatement(sql string, args []*Gen) error {
	if strings.TrimSpace(sql) == "" {
		return fmt.Errorf("the statement is empty")
	}
	if n := scanSQL(sql).placeholders; n != len(args) {
		return fmt.Errorf("%d ? placeholders but %d arguments in %q", n, len(args), sql)
	}
	for i, a := range args {
		if a == nil {
			return fmt.Errorf("argument %d is missing", i+1)
		}
	}
	return nil
}

// CheckTransaction checks a transaction on its own, before a mix names
// it: its weight, its statements and their refs (the tables are checked
// by Define, which knows the mix's).
func CheckTransaction(t Transaction) error {
	_, err := compileTxn(&t, func(string) bool { return true }, nil)
	return err
}

// Mix is a checked, compiled Definition: what runs, prepares and cleans
// up. It is immutable and serves any number of runs.
type Mix struct {
	def     Definition
	txns    []compiledTxn
	cum     []int64 // cumulative transaction weights
	version string
}

type compiledTxn struct {
	*Transaction
	stmts []compiledStmt
	slots int // ref values the transaction keeps
}

type compiledStmt struct {
	sql      string
	args     []*Gen
	argSlot  []int // by argument: the slot a ref or same takes its value from, -1 for a generator
	keepSlot []int // by argument: the slot its drawn value is kept in for a later same, -1 for none
	rows     bool  // returns a result set
	captures []capture
	either   []compiledStmt // the alternatives of a mix.either
}

// capture keeps one column of a statement's first row in a ref slot.
type capture struct {
	column int // in the result
	slot   int
}

// Define checks d and compiles it. Its errors say which transaction,
// statement, table or generator is wrong.
func Define(d Definition) (*Mix, error) {
	if d.Name == "" || strings.ContainsAny(d.Name, "/\\ \t\n") {
		return nil, fmt.Errorf("a mix needs a name without spaces or slashes, got %q", d.Name)
	}
	m := &Mix{def: d}
	declared := map[string]bool{}
	for _, t := range d.Tables {
		key := strings.ToLower(t.Name)
		if t.Name == "" || declared[key] {
			return nil, fmt.Errorf("tables: %q is empty or declared twice", t.Name)
		}
		if err := checkCreate(t); err != nil {
			return nil, fmt.Errorf("tables: %s: %w", t.Name, err)
		}
		declared[key] = true
	}
	knownTable := func(name string) bool { return declared[strings.ToLower(name)] || strings.EqualFold(name, "dual") }
	loaded := map[string]bool{}
	for _, l := range d.Loads {
		if !declared[strings.ToLower(l.Table)] {
			return nil, fmt.Errorf("load: table %s is not one of the mix's tables (%s)", l.Table, tableList(d.Tables))
		}
		if loaded[strings.ToLower(l.Table)] {
			return nil, fmt.Errorf("load: table %s is loaded twice", l.Table)
		}
		loaded[strings.ToLower(l.Table)] = true
		if l.Rows < 0 {
			return nil, fmt.Errorf("load: %s: rows must not be negative, got %d", l.Table, l.Rows)
		}
		if len(l.Columns) == 0 {
			return nil, fmt.Errorf("load: %s: no columns to fill", l.Table)
		}
		for _, c := range l.Columns {
			if c.Gen == nil || c.Gen.kind == genRef || c.Gen.kind == genLatest || c.Gen.kind == genSame {
				return nil, fmt.Errorf("load: %s.%s: %v cannot fill a loaded column (ref, same and latest draw from a running transaction)", l.Table, c.Name, c.Gen)
			}
		}
	}
	if len(d.Transactions) == 0 {
		return nil, fmt.Errorf("a mix needs at least one transaction")
	}
	var total int64
	names := map[string]bool{}
	for i := range d.Transactions {
		t := &d.Transactions[i]
		if t.Name == "" || names[t.Name] {
			return nil, fmt.Errorf("transaction %q is unnamed or declared twice", t.Name)
		}
		names[t.Name] = true
		ct, err := compileTxn(t, knownTable, d.Tables)
		if err != nil {
			return nil, fmt.Errorf("transaction %s: %w", t.Name, err)
		}
		total += int64(t.Weight)
		m.txns = append(m.txns, ct)
		m.cum = append(m.cum, total)
	}
	m.version = "mix-gen1/" + fingerprint(d)
	return m, nil
}

func compileTxn(t *Transaction, knownTable func(string) bool, tables []Table) (compiledTxn, error) {
	ct := compiledTxn{Transaction: t}
	if t.Weight <= 0 {
		return ct, fmt.Errorf("weight must be positive, got %d", t.Weight)
	}
	if t.Retries < 0 || t.Think < 0 {
		return ct, fmt.Errorf("retries and think must not be negative")
	}
	if t.Custom != nil {
		if len(t.Statements) > 0 {
			return ct, fmt.Errorf("has both statements and an event function: give one")
		}
		return ct, nil
	}
	if len(t.Statements) == 0 {
		return ct, fmt.Errorf("no statements")
	}
	c := &txnCompiler{ct: &ct, knownTable: knownTable, tables: tables, drawnAt: map[*Gen][2]int{}}
	for i, st := range t.Statements {
		if len(st.Either) == 0 {
			cs, sc, err := c.statement(i, st, true)
			if err != nil {
				return ct, fmt.Errorf("statement %d: %w", i+1, err)
			}
			ct.stmts = append(ct.stmts, cs)
			c.earlier = append(c.earlier, sc)
			continue
		}
		// One of several statements: none of them can be what a later
		// ref or same takes a value from (it may not have run).
		either := compiledStmt{}
		for j, alt := range st.Either {
			if len(alt.Either) > 0 {
				return ct, fmt.Errorf("statement %d: alternative %d is itself an either", i+1, j+1)
			}
			cs, _, err := c.statement(i, alt, false)
			if err != nil {
				return ct, fmt.Errorf("statement %d, alternative %d: %w", i+1, j+1, err)
			}
			either.either = append(either.either, cs)
		}
		ct.stmts = append(ct.stmts, either)
		c.earlier = append(c.earlier, scanned{})
	}
	return ct, nil
}

// txnCompiler compiles a transaction's statements in order, knowing what
// the earlier ones return and draw.
type txnCompiler struct {
	ct         *compiledTxn
	knownTable func(string) bool
	tables     []Table
	earlier    []scanned       // by statement: what it returns
	drawnAt    map[*Gen][2]int // a generator's latest use: statement, argument
}

// statement compiles statement i (or an alternative of it, which is no
// source for later refs and sames: source is false).
func (c *txnCompiler) statement(i int, st Statement, source bool) (compiledStmt, scanned, error) {
	ct := c.ct
	var cs compiledStmt
	if err := CheckStatement(st.SQL, st.Args); err != nil {
		return cs, scanned{}, err
	}
	sc := scanSQL(st.SQL)
	for _, name := range sc.tables {
		if !c.knownTable(name) {
			return cs, sc, fmt.Errorf("names table %s, which the mix does not declare (it declares %s)", name, tableList(c.tables))
		}
	}
	if isTxnControl(st.SQL) {
		return cs, sc, fmt.Errorf("%q: a transaction's BEGIN and COMMIT are the mix's (autocommit = True sends none)", strings.TrimSpace(st.SQL))
	}
	cs = compiledStmt{sql: st.SQL, args: st.Args, rows: sc.returnsRows}
	for k, a := range st.Args {
		cs.keepSlot = append(cs.keepSlot, -1)
		switch a.kind {
		case genRef:
			slot, err := ct.resolveRef(a.column, c.earlier, i)
			if err != nil {
				return cs, sc, err
			}
			cs.argSlot = append(cs.argSlot, slot)
		case genSame:
			at, ok := c.drawnAt[a.of]
			if !ok {
				return cs, sc, fmt.Errorf("%s: %s is not drawn earlier in the transaction (outside a mix.either)", a.desc, a.of.desc)
			}
			keep := &cs.keepSlot[at[1]]
			if at[0] < i {
				keep = &ct.stmts[at[0]].keepSlot[at[1]]
			}
			if *keep < 0 {
				*keep = ct.slots
				ct.slots++
			}
			cs.argSlot = append(cs.argSlot, *keep)
		default:
			cs.argSlot = append(cs.argSlot, -1)
			if source {
				c.drawnAt[a] = [2]int{i, k}
			}
		}
	}
	return cs, sc, nil
}

// resolveRef finds the latest earlier statement returning column and
// gives it a slot (one per statement and column).
func (ct *compiledTxn) resolveRef(column string, earlier []scanned, at int) (int, error) {
	want := strings.ToLower(column)
	for j := len(earlier) - 1; j >= 0; j-- {
		col := slices.Index(earlier[j].columns, want)
		if col < 0 || !earlier[j].returnsRows {
			continue
		}
		st := &ct.stmts[j]
		for _, c := range st.captures {
			if c.column == col {
				return c.slot, nil
			}
		}
		st.captures = append(st.captures, capture{column: col, slot: ct.slots})
		ct.slots++
		return ct.slots - 1, nil
	}
	var seen []string
	for j := range earlier {
		if earlier[j].returnsRows {
			seen = append(seen, fmt.Sprintf("statement %d returns %s", j+1, strings.Join(nonEmpty(earlier[j].columns), ", ")))
		}
	}
	if len(seen) == 0 {
		return 0, fmt.Errorf("ref(%q): no earlier statement of the transaction returns rows", column)
	}
	return 0, fmt.Errorf("ref(%q): no earlier statement of the transaction returns a column %s (%s; name an expression with AS)", column, column, strings.Join(seen, "; "))
}

func nonEmpty(cols []string) []string {
	var out []string
	for _, c := range cols {
		if c == "" {
			c = "(an unnamed expression)"
		}
		out = append(out, c)
	}
	return out
}

func isTxnControl(sql string) bool {
	toks := tokenize(sql)
	return len(toks) > 0 && (toks[0].is("BEGIN") || toks[0].is("COMMIT") || toks[0].is("ROLLBACK") ||
		(toks[0].is("START") && len(toks) > 1 && toks[1].is("TRANSACTION")))
}

// checkCreate checks a table's definition: a whole CREATE TABLE statement
// must create that table.
func checkCreate(t Table) error {
	if strings.TrimSpace(t.Create) == "" {
		return fmt.Errorf("no column definitions")
	}
	toks := tokenize(t.Create)
	if len(toks) < 2 || !toks[0].is("CREATE") {
		return nil // column definitions
	}
	i := 1
	for i < len(toks) && (toks[i].is("TEMPORARY") || toks[i].is("OR") || toks[i].is("REPLACE")) {
		i++
	}
	if i >= len(toks) || !toks[i].is("TABLE") {
		return fmt.Errorf("want CREATE TABLE %s (...) or the column definitions alone", t.Name)
	}
	i++
	if i+2 < len(toks) && toks[i].is("IF") && toks[i+1].is("NOT") && toks[i+2].is("EXISTS") {
		i += 3
	}
	if name, _ := tableName(toks, i); !strings.EqualFold(name, t.Name) {
		return fmt.Errorf("its CREATE TABLE creates %q, not %s", name, t.Name)
	}
	return nil
}

// CreateSQL is the statement that creates the table.
func (t Table) CreateSQL() string {
	toks := tokenize(t.Create)
	if len(toks) > 0 && toks[0].is("CREATE") {
		return t.Create
	}
	return "CREATE TABLE " + t.Name + " (" + t.Create + ")"
}

func tableList(tables []Table) string {
	if len(tables) == 0 {
		return "no tables"
	}
	names := make([]string, len(tables))
	for i, t := range tables {
		names[i] = t.Name
	}
	return strings.Join(names, ", ")
}

// fingerprint identifies a definition's content, for the step's meta:
// two runs of the same mix compare; an edited mix says so.
func fingerprint(d Definition) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n", d.Name)
	for _, t := range d.Tables {
		fmt.Fprintf(h, "table %s %s\n", t.Name, t.Create)
	}
	for _, l := range d.Loads {
		fmt.Fprintf(h, "load %s %d\n", l.Table, l.Rows)
		for _, c := range l.Columns {
			fmt.Fprintf(h, " %s %s\n", c.Name, c.Gen.desc)
		}
	}
	for _, t := range d.Transactions {
		fmt.Fprintf(h, "txn %s %d %v %v %d %v\n", t.Name, t.Weight, t.Autocommit, t.RetryOn, t.Retries, t.Think)
		if t.Custom != nil {
			fmt.Fprintf(h, " custom %s\n", t.CustomName)
		}
		for _, s := range t.Statements {
			fmt.Fprintf(h, " %s\n", s.SQL)
			for _, a := range s.Args {
				fmt.Fprintf(h, "  %s\n", a.desc)
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// Name is the mix's name.
func (m *Mix) Name() string { return m.def.Name }

// Definition is what the mix was defined from.
func (m *Mix) Definition() Definition { return m.def }

// Meta names the mix and its content's version for results.
func (m *Mix) Meta() results.Meta { return results.Meta{Name: m.def.Name, Version: m.version} }

// Kinds are the transactions' names, in declaration order.
func (m *Mix) Kinds() []string {
	out := make([]string, len(m.txns))
	for i, t := range m.txns {
		out[i] = t.Name
	}
	return out
}

// TableNames are the mix's tables, in declaration order.
func (m *Mix) TableNames() []string {
	out := make([]string, len(m.def.Tables))
	for i, t := range m.def.Tables {
		out[i] = t.Name
	}
	return out
}
