// Package mixstar is the Starlark adapter of builtins/mix: the predeclared
// `mix` module, in which a plan declares a workload for its own schema
// (mix.define, mix.txn, mix.stmt and the generators) and runs it as a
// family like sysbench and TPC-C (mix.prepare, mix.run, mix.part,
// mix.cleanup). Declarations are checked where they are written and
// compiled once into Go values: no Starlark runs per event.
package mixstar

import (
	"fmt"
	"path/filepath"
	"time"

	"go.starlark.net/starlark"

	"github.com/starbench/starbench/builtins/family/familystar"
	"github.com/starbench/starbench/builtins/mix"
	"github.com/starbench/starbench/runner"
)

// adapter makes the module of the mix family (builtins/mix.Family):
// prepare, run, part and cleanup as every family has them, and the
// declaration builtins as its extras.
var adapter = &familystar.Adapter{
	Family:    mix.Family{},
	Convert:   map[string]func(starlark.Value) (any, error){"mix": mixOf},
	Extras:    declarations,
	ExtraDocs: declarationDocs,
}

// Module is the predeclared `mix` module.
var Module = adapter.Module()

// Doc documents the module for `starbench doc`.
var Doc = adapter.Doc()

// mixOf is a mix option's value: the *mix.Mix of a mix.define value.
func mixOf(v starlark.Value) (any, error) {
	m, ok := v.(*Value)
	if !ok {
		return nil, fmt.Errorf("want a mix from mix.define, not %s", v.Type())
	}
	return m.Mix, nil
}

// declarations are the module's own members: the builtins that declare a
// mix.
var declarations = starlark.StringDict{
	"define":    declaration("mix.define", define),
	"txn":       declaration("mix.txn", txn),
	"stmt":      declaration("mix.stmt", stmt),
	"rows":      declaration("mix.rows", rows),
	"uniform":   declaration("mix.uniform", uniform),
	"gaussian":  declaration("mix.gaussian", gaussian),
	"special":   declaration("mix.special", special),
	"pareto":    declaration("mix.pareto", pareto),
	"zipfian":   declaration("mix.zipfian", zipfian),
	"latest":    declaration("mix.latest", latest),
	"sequence":  declaration("mix.sequence", sequence),
	"unique_id": declaration("mix.unique_id", uniqueID),
	"string":    declaration("mix.string", randomString),
	"pattern":   declaration("mix.pattern", pattern),
	"choice":    declaration("mix.choice", choice),
	"timestamp": declaration("mix.timestamp", timestamp),
	"now":       declaration("mix.now", now),
	"ref":       declaration("mix.ref", ref),
	"same":      declaration("mix.same", same),
	"key":       declaration("mix.key", key),
	"either":    declaration("mix.either", either),
}

// declaration makes a declaring builtin whose errors are the plan's
// (runner.PlanError: exit code 2, as a syntax error): a mix declared
// wrongly is a bad plan, not a failed run.
func declaration(name string, fn func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error)) *starlark.Builtin {
	return starlark.NewBuiltin(name, func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		v, err := fn(thread, b, args, kwargs)
		if err != nil {
			return nil, &runner.PlanError{Err: err}
		}
		return v, nil
	})
}

// GenValue is a generator as a plan holds it.
type GenValue struct{ Gen *mix.Gen }

func (v *GenValue) String() string        { return "mix." + v.Gen.String() }
func (v *GenValue) Type() string          { return "mix.generator" }
func (v *GenValue) Freeze()               {}
func (v *GenValue) Truth() starlark.Bool  { return true }
func (v *GenValue) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable: mix.generator") }

// stmtValue is a statement as a plan holds it.
type stmtValue struct{ s mix.Statement }

func (v *stmtValue) String() string {
	if len(v.s.Either) > 0 {
		return fmt.Sprintf("mix.either(%d statements)", len(v.s.Either))
	}
	return fmt.Sprintf("mix.stmt(%q)", v.s.SQL)
}
func (v *stmtValue) Type() string          { return "mix.stmt" }
func (v *stmtValue) Freeze()               {}
func (v *stmtValue) Truth() starlark.Bool  { return true }
func (v *stmtValue) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable: mix.stmt") }

// txnValue is a transaction as a plan holds it (named by mix.define).
type txnValue struct{ t mix.Transaction }

func (v *txnValue) String() string {
	return fmt.Sprintf("mix.txn(%d statements, weight = %d)", len(v.t.Statements), v.t.Weight)
}
func (v *txnValue) Type() string          { return "mix.txn" }
func (v *txnValue) Freeze()               {}
func (v *txnValue) Truth() starlark.Bool  { return true }
func (v *txnValue) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable: mix.txn") }

// rowsValue is a table's load as a plan holds it (its table named by
// mix.define).
type rowsValue struct{ l mix.Load }

func (v *rowsValue) String() string {
	return fmt.Sprintf("mix.rows(%d, %d columns)", v.l.Rows, len(v.l.Columns))
}
func (v *rowsValue) Type() string          { return "mix.rows" }
func (v *rowsValue) Freeze()               {}
func (v *rowsValue) Truth() starlark.Bool  { return true }
func (v *rowsValue) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable: mix.rows") }

// Value is a defined mix as a plan holds it: name, version, tables and
// transactions are its attributes.
type Value struct{ Mix *mix.Mix }

var _ starlark.HasAttrs = (*Value)(nil)

func (v *Value) String() string {
	return fmt.Sprintf("<mix %s %s>", v.Mix.Name(), v.Mix.Meta().Version)
}
func (v *Value) Type() string          { return "mix" }
func (v *Value) Freeze()               {}
func (v *Value) Truth() starlark.Bool  { return true }
func (v *Value) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable: mix") }

// Attr gives the mix's name, version, tables and transactions.
func (v *Value) Attr(name string) (starlark.Value, error) {
	switch name {
	case "name":
		return starlark.String(v.Mix.Name()), nil
	case "version":
		return starlark.String(v.Mix.Meta().Version), nil
	case "tables":
		return runner.StringList(v.Mix.TableNames()), nil
	case "transactions":
		return runner.StringList(v.Mix.Kinds()), nil
	}
	return nil, nil
}

// AttrNames lists the attributes.
func (v *Value) AttrNames() []string { return []string{"name", "tables", "transactions", "version"} }

// Unpack lets builtins take a mix argument.
func (v *Value) Unpack(x starlark.Value) error {
	m, ok := x.(*Value)
	if !ok {
		return fmt.Errorf("want a mix from mix.define, not %s", x.Type())
	}
	*v = *m
	return nil
}

// genOf is a statement argument or column value: a generator, or a
// constant (number, string, bool, None).
func genOf(v starlark.Value) (*mix.Gen, error) {
	switch v := v.(type) {
	case *GenValue:
		return v.Gen, nil
	case starlark.NoneType:
		return mix.Const(nil)
	case starlark.Bool:
		return mix.Const(bool(v))
	case starlark.Int:
		n, ok := v.Int64()
		if !ok {
			return nil, fmt.Errorf("%s is out of range", v)
		}
		return mix.Const(n)
	case starlark.Float:
		return mix.Const(float64(v))
	case starlark.String:
		return mix.Const(string(v))
	}
	return nil, fmt.Errorf("want a generator (mix.uniform(...), ...) or a constant, not %s", v.Type())
}

func stmt(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(kwargs) > 0 {
		return nil, fmt.Errorf("%s: takes the statement and its arguments, in order, and no keywords", b.Name())
	}
	if len(args) == 0 {
		return nil, fmt.Errorf("%s: missing the statement", b.Name())
	}
	sql, ok := starlark.AsString(args[0])
	if !ok {
		return nil, fmt.Errorf("%s: the statement must be a string, not %s", b.Name(), args[0].Type())
	}
	s := mix.Statement{SQL: sql}
	for i, a := range args[1:] {
		g, err := genOf(a)
		if err != nil {
			return nil, fmt.Errorf("%s: argument %d: %w", b.Name(), i+1, err)
		}
		s.Args = append(s.Args, g)
	}
	if err := mix.CheckStatement(s.SQL, s.Args); err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return &stmtValue{s}, nil
}

func txn(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var statements *starlark.List
	var retryOn *starlark.List
	var think starlark.Value = starlark.MakeInt(0)
	var event starlark.Callable
	t := mix.Transaction{Weight: 1, Retries: 3}
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "statements?", &statements, "weight?", &t.Weight, "autocommit?", &t.Autocommit,
		"retry_on?", &retryOn, "retries?", &t.Retries, "think?", &think, "event?", &event); err != nil {
		return nil, err
	}
	switch {
	case statements == nil && event == nil:
		return nil, fmt.Errorf("%s: give the transaction's statements, or an event function (event = fn, slower)", b.Name())
	case statements != nil && event != nil:
		return nil, fmt.Errorf("%s: give the statements or an event function, not both", b.Name())
	case event != nil:
		// Every worker calls it at once: it and what it captures are frozen now.
		event.Freeze()
		t.Custom, t.CustomName = customOf(event), event.Name()
		if fn, ok := event.(*starlark.Function); ok {
			pos := fn.Position()
			t.CustomName += fmt.Sprintf(" at %s:%d", filepath.Base(pos.Filename()), pos.Line)
		}
		statements = starlark.NewList(nil)
	}
	for i := range statements.Len() {
		s, ok := statements.Index(i).(*stmtValue)
		if !ok {
			return nil, fmt.Errorf("%s: statement %d is a %s, not a mix.stmt(...)", b.Name(), i+1, statements.Index(i).Type())
		}
		t.Statements = append(t.Statements, s.s)
	}
	if retryOn != nil {
		for i := range retryOn.Len() {
			var n int
			if err := starlark.AsInt(retryOn.Index(i), &n); err != nil || n < 1 || n > 65535 {
				return nil, fmt.Errorf("%s: retry_on: %s is not a MySQL error code", b.Name(), retryOn.Index(i))
			}
			t.RetryOn = append(t.RetryOn, uint16(n))
		}
	}
	var err error
	if t.Think, err = runner.DurationOf(think); err != nil {
		return nil, fmt.Errorf("%s: think: %w", b.Name(), err)
	}
	t.Name = "txn"
	if err := mix.CheckTransaction(t); err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return &txnValue{t}, nil
}

func rows(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("%s: takes the row count, then each column as a keyword: mix.rows(1000, id = mix.sequence(), ...)", b.Name())
	}
	var n int64
	if err := starlark.AsInt(args[0], &n); err != nil || n < 0 {
		return nil, fmt.Errorf("%s: the row count must be a non-negative integer, got %s", b.Name(), args[0])
	}
	l := mix.Load{Rows: n}
	for _, kv := range kwargs {
		name := string(kv[0].(starlark.String))
		g, err := genOf(kv[1])
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", b.Name(), name, err)
		}
		l.Columns = append(l.Columns, mix.Column{Name: name, Gen: g})
	}
	if len(l.Columns) == 0 {
		return nil, fmt.Errorf("%s: no columns: name each as a keyword, mix.rows(1000, id = mix.sequence(), ...)", b.Name())
	}
	return &rowsValue{l}, nil
}

func define(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var d mix.Definition
	var tables, load, transactions *starlark.Dict
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &d.Name, "tables", &tables, "transactions", &transactions, "data?", &load); err != nil {
		return nil, err
	}
	for _, kv := range tables.Items() {
		name, ok1 := starlark.AsString(kv[0])
		create, ok2 := starlark.AsString(kv[1])
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("%s: tables maps each table's name to its column definitions (strings), got %s: %s", b.Name(), kv[0].Type(), kv[1].Type())
		}
		d.Tables = append(d.Tables, mix.Table{Name: name, Create: create})
	}
	if load != nil {
		for _, kv := range load.Items() {
			name, ok := starlark.AsString(kv[0])
			r, ok2 := kv[1].(*rowsValue)
			if !ok || !ok2 {
				return nil, fmt.Errorf("%s: data maps table names to mix.rows(...), got %s: %s", b.Name(), kv[0].Type(), kv[1].Type())
			}
			l := r.l
			l.Table = name
			d.Loads = append(d.Loads, l)
		}
	}
	for _, kv := range transactions.Items() {
		name, ok := starlark.AsString(kv[0])
		t, ok2 := kv[1].(*txnValue)
		if !ok || !ok2 {
			return nil, fmt.Errorf("%s: transactions maps names to mix.txn(...), got %s: %s", b.Name(), kv[0].Type(), kv[1].Type())
		}
		tx := t.t
		tx.Name = name
		d.Transactions = append(d.Transactions, tx)
	}
	m, err := mix.Define(d)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", b.Name(), d.Name, err)
	}
	return &Value{Mix: m}, nil
}

// genResult is a generator builtin's result.
func genResult(b *starlark.Builtin, g *mix.Gen, err error) (starlark.Value, error) {
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return &GenValue{g}, nil
}

func uniform(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var lo, hi starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "lo", &lo, "hi", &hi); err != nil {
		return nil, err
	}
	_, f1 := lo.(starlark.Float)
	_, f2 := hi.(starlark.Float)
	if f1 || f2 {
		var flo, fhi float64
		if err := starlark.UnpackArgs(b.Name(), args, kwargs, "lo", &flo, "hi", &fhi); err != nil {
			return nil, err
		}
		g, err := mix.UniformFloat(flo, fhi)
		return genResult(b, g, err)
	}
	var ilo, ihi int64
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "lo", &ilo, "hi", &ihi); err != nil {
		return nil, err
	}
	g, err := mix.Uniform(ilo, ihi)
	return genResult(b, g, err)
}

func gaussian(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var lo, hi int64
	iter := 12
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "lo", &lo, "hi", &hi, "iter?", &iter); err != nil {
		return nil, err
	}
	g, err := mix.Gaussian(lo, hi, iter)
	return genResult(b, g, err)
}

func special(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var lo, hi int64
	pct, res := 1.0, 75.0
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "lo", &lo, "hi", &hi, "pct?", &pct, "res?", &res); err != nil {
		return nil, err
	}
	g, err := mix.Special(lo, hi, pct, res)
	return genResult(b, g, err)
}

func pareto(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var lo, hi int64
	h := 0.2
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "lo", &lo, "hi", &hi, "h?", &h); err != nil {
		return nil, err
	}
	g, err := mix.Pareto(lo, hi, h)
	return genResult(b, g, err)
}

func zipfian(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var lo, hi int64
	theta, scrambled := 0.99, false
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "lo", &lo, "hi", &hi, "theta?", &theta, "scrambled?", &scrambled); err != nil {
		return nil, err
	}
	g, err := mix.Zipfian(lo, hi, theta, scrambled)
	return genResult(b, g, err)
}

func latest(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var seq starlark.Value
	theta, lo := 0.99, int64(1)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "sequence", &seq, "lo?", &lo, "theta?", &theta); err != nil {
		return nil, err
	}
	gv, ok := seq.(*GenValue)
	if !ok {
		return nil, fmt.Errorf("%s: takes a mix.sequence(...), not %s", b.Name(), seq.Type())
	}
	g, err := mix.Latest(gv.Gen, lo, theta)
	return genResult(b, g, err)
}

func sequence(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	start, step := int64(1), int64(1)
	perWorker := false
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "start?", &start, "step?", &step, "per_worker?", &perWorker); err != nil {
		return nil, err
	}
	g, err := mix.Sequence(start, step, !perWorker)
	return genResult(b, g, err)
}

func uniqueID(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	start := int64(1)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "start?", &start); err != nil {
		return nil, err
	}
	g, err := mix.UniqueID(start)
	return genResult(b, g, err)
}

func randomString(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var minLen int
	maxLen := -1
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "min", &minLen, "max?", &maxLen); err != nil {
		return nil, err
	}
	if maxLen < 0 {
		maxLen = minLen
	}
	g, err := mix.String(minLen, maxLen)
	return genResult(b, g, err)
}

func pattern(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var template string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "template", &template); err != nil {
		return nil, err
	}
	g, err := mix.Pattern(template)
	return genResult(b, g, err)
}

func choice(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var values *starlark.List
	var weights *starlark.List
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "values", &values, "weights?", &weights); err != nil {
		return nil, err
	}
	var vals []any
	for i := range values.Len() {
		g, err := genOf(values.Index(i))
		if err != nil || g.IsGenerator() {
			return nil, fmt.Errorf("%s: value %d: want a number, string, bool or None, not %s", b.Name(), i+1, values.Index(i).Type())
		}
		vals = append(vals, g.Constant())
	}
	var ws []int64
	if weights != nil {
		for i := range weights.Len() {
			var w int64
			if err := starlark.AsInt(weights.Index(i), &w); err != nil {
				return nil, fmt.Errorf("%s: weights: %w", b.Name(), err)
			}
			ws = append(ws, w)
		}
	}
	g, err := mix.Choice(vals, ws)
	return genResult(b, g, err)
}

func timestamp(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var lo, hi string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "lo", &lo, "hi", &hi); err != nil {
		return nil, err
	}
	tlo, err1 := parseTime(lo)
	thi, err2 := parseTime(hi)
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("%s: want times as \"2006-01-02 15:04:05\" or \"2006-01-02\", got %q and %q", b.Name(), lo, hi)
	}
	g, err := mix.Timestamp(tlo, thi)
	return genResult(b, g, err)
}

func parseTime(s string) (time.Time, error) {
	if t, err := time.Parse(time.DateTime, s); err == nil {
		return t, nil
	}
	return time.Parse(time.DateOnly, s)
}

func now(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	return &GenValue{mix.Now()}, nil
}

func ref(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var column string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "column", &column); err != nil {
		return nil, err
	}
	g, err := mix.Ref(column)
	return genResult(b, g, err)
}

func same(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var of starlark.Value
	var plus int64
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "generator", &of, "plus?", &plus); err != nil {
		return nil, err
	}
	gv, ok := of.(*GenValue)
	if !ok {
		return nil, fmt.Errorf("%s: takes a generator, not %s", b.Name(), of.Type())
	}
	g, err := mix.Same(gv.Gen, plus)
	return genResult(b, g, err)
}

func key(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var of starlark.Value
	prefix, hashed, pad := "user", true, 1
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "generator", &of, "prefix?", &prefix, "hashed?", &hashed, "pad?", &pad); err != nil {
		return nil, err
	}
	gv, ok := of.(*GenValue)
	if !ok {
		return nil, fmt.Errorf("%s: takes a generator of integers, not %s", b.Name(), of.Type())
	}
	g, err := mix.Key(gv.Gen, prefix, hashed, pad)
	return genResult(b, g, err)
}

func either(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var statements *starlark.List
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "statements", &statements); err != nil {
		return nil, err
	}
	if statements.Len() < 2 {
		return nil, fmt.Errorf("%s: takes at least two statements to choose from, got %d", b.Name(), statements.Len())
	}
	var s mix.Statement
	for i := range statements.Len() {
		st, ok := statements.Index(i).(*stmtValue)
		if !ok || len(st.s.Either) > 0 {
			return nil, fmt.Errorf("%s: statement %d is a %s, not a mix.stmt(...)", b.Name(), i+1, statements.Index(i).Type())
		}
		s.Either = append(s.Either, st.s)
	}
	return &stmtValue{s}, nil
}
