package dbstar

import (
	"fmt"
	"strings"

	"go.starlark.net/starlark"

	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/runner"
)

// Rows is what conn.query returns: a sequence of Row values with the
// column names in .columns. In dry-run mode it is an empty placeholder
// (.placeholder is True) that notes where the plan depended on it.
type Rows struct {
	columns     []string
	types       []string
	rows        []*Row
	placeholder *runner.Step
}

var (
	_ starlark.Indexable = (*Rows)(nil)
	_ starlark.Sequence  = (*Rows)(nil)
	_ starlark.HasAttrs  = (*Rows)(nil)
)

func newRows(rs *db.ResultSet) *Rows {
	r := &Rows{columns: rs.Columns, types: rs.Types}
	index := make(map[string]int, len(rs.Columns))
	for i, c := range rs.Columns {
		if _, dup := index[c]; !dup {
			index[c] = i
		}
	}
	for _, raw := range rs.Rows {
		vals := make([]starlark.Value, len(raw))
		for i, v := range raw {
			vals[i] = FromSQLValue(v)
		}
		r.rows = append(r.rows, &Row{columns: rs.Columns, index: index, values: vals})
	}
	return r
}

func placeholderRows(s *runner.Step) *Rows { return &Rows{placeholder: s} }

func (r *Rows) String() string {
	if r.placeholder != nil {
		return "<rows: dry-run placeholder>"
	}
	return fmt.Sprintf("<rows: %d rows, columns %s>", len(r.rows), strings.Join(r.columns, ", "))
}
func (r *Rows) Type() string { return "rows" }
func (r *Rows) Freeze()      {}
func (r *Rows) Truth() starlark.Bool {
	r.note("tested the truth of")
	return len(r.rows) > 0
}
func (r *Rows) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable: rows") }
func (r *Rows) Len() int {
	r.note("took the length of")
	return len(r.rows)
}
func (r *Rows) Index(i int) starlark.Value { return r.rows[i] }
func (r *Rows) Iterate() starlark.Iterator {
	r.note("iterated over")
	return &rowIterator{rows: r.rows}
}

func (r *Rows) Attr(name string) (starlark.Value, error) {
	switch name {
	case "columns":
		cols := make([]starlark.Value, len(r.columns))
		for i, c := range r.columns {
			cols[i] = starlark.String(c)
		}
		return starlark.NewList(cols), nil
	case "placeholder":
		return starlark.Bool(r.placeholder != nil), nil
	}
	return nil, nil
}
func (r *Rows) AttrNames() []string { return []string{"columns", "placeholder"} }

func (r *Rows) note(what string) {
	if r.placeholder != nil {
		r.placeholder.NotePlaceholder(what)
	}
}

type rowIterator struct {
	rows []*Row
	i    int
}

func (it *rowIterator) Next(p *starlark.Value) bool {
	if it.i >= len(it.rows) {
		return false
	}
	*p = it.rows[it.i]
	it.i++
	return true
}
func (it *rowIterator) Done() {}

// Row is one result row: row["col"], row[0] and row.col all work, and
// iterating yields the values in column order.
type Row struct {
	columns []string
	index   map[string]int
	values  []starlark.Value
}

var (
	_ starlark.Mapping  = (*Row)(nil)
	_ starlark.Iterable = (*Row)(nil)
	_ starlark.HasAttrs = (*Row)(nil)
	_ starlark.Sequence = (*Row)(nil)
)

func (r *Row) String() string {
	var b strings.Builder
	b.WriteString("row(")
	for i, c := range r.columns {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s=%s", c, r.values[i])
	}
	b.WriteString(")")
	return b.String()
}
func (r *Row) Type() string          { return "row" }
func (r *Row) Freeze()               {}
func (r *Row) Truth() starlark.Bool  { return len(r.values) > 0 }
func (r *Row) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable: row") }
func (r *Row) Len() int              { return len(r.values) }

// Get looks a value up by column name or by position.
func (r *Row) Get(k starlark.Value) (starlark.Value, bool, error) {
	switch k := k.(type) {
	case starlark.String:
		i, ok := r.index[string(k)]
		if !ok {
			return nil, false, fmt.Errorf("row has no column %s (columns: %s)", k, strings.Join(r.columns, ", "))
		}
		return r.values[i], true, nil
	case starlark.Int:
		i, err := starlark.AsInt32(k)
		if err != nil {
			return nil, false, err
		}
		if i < 0 {
			i += len(r.values)
		}
		if i < 0 || i >= len(r.values) {
			return nil, false, fmt.Errorf("row index %s out of range: the row has %d columns", k, len(r.values))
		}
		return r.values[i], true, nil
	}
	return nil, false, fmt.Errorf("row index must be a column name or a position, not %s", k.Type())
}

func (r *Row) Iterate() starlark.Iterator {
	return &valueIterator{values: r.values}
}

func (r *Row) Attr(name string) (starlark.Value, error) {
	if i, ok := r.index[name]; ok {
		return r.values[i], nil
	}
	return nil, nil
}
func (r *Row) AttrNames() []string { return r.columns }

type valueIterator struct {
	values []starlark.Value
	i      int
}

func (it *valueIterator) Next(p *starlark.Value) bool {
	if it.i >= len(it.values) {
		return false
	}
	*p = it.values[it.i]
	it.i++
	return true
}
func (it *valueIterator) Done() {}
