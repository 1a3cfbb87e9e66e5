package mix

import (
	"context"
	"database/sql/driver"
	"fmt"
	"time"

	"github.com/starbench/starbench/builtins/bench"
)

// The escape hatch: a transaction whose body is code rather than a list
// of statements, for what the declarative form cannot say (a loop over
// a result, a branch on a value read). It runs between the mix's BEGIN
// and COMMIT like any transaction, with its retries and think time, but
// its code runs per event: it is slower than declared statements, by
// what the code costs (the README's speed table measures a Starlark
// body).

// CustomMaker makes a worker's body of a custom transaction. It is called
// once per worker before the run.
type CustomMaker func(w *CustomWorker) (CustomBody, error)

// CustomWorker is the worker a custom body is made for: its id in the
// whole load, its seed, and draws from the mix's generators.
type CustomWorker struct {
	ID    int
	Seed  uint64
	env   *instanceEnv
	draws map[*Gen]drawer
}

// Draw draws a value from g as a statement's argument would: from a
// stream of the worker's own (one per generator, made at its first draw),
// a sequence counting with the run's other uses of it. Strings come back
// as []byte, valid until g's next draw. Generators that take values from
// the transaction's statements (ref, same) cannot be drawn here.
func (w *CustomWorker) Draw(g *Gen) (any, error) {
	d, ok := w.draws[g]
	if !ok {
		if g.kind == genRef || g.kind == genSame {
			return nil, fmt.Errorf("%v takes its value from a declared statement; draw it in the function instead", g)
		}
		d = g.instance(w.env)
		w.draws[g] = d
	}
	return d.draw(), nil
}

// CustomBody runs one attempt of a custom transaction's statements over q.
type CustomBody func(ctx context.Context, q Querier) error

// Querier is what a custom transaction's body sends statements through:
// each distinct text is prepared once per session and reused, with one ?
// placeholder per argument.
type Querier interface {
	// Exec runs a statement that returns no rows and reports the rows it
	// affected.
	Exec(ctx context.Context, sql string, args ...any) (int64, error)
	// Query runs a statement and returns its rows, decoded: integers as
	// int64 (uint64 above its range), FLOAT and DOUBLE as float64, NULL
	// as nil, the rest as string (dates and times as "2006-01-02
	// 15:04:05"). At most limit rows are kept (the rest are read and
	// dropped).
	Query(ctx context.Context, sql string, limit int, args ...any) ([][]any, error)
}

// maxCustomStatements bounds the distinct statement texts a custom body
// may prepare on one session: a body that builds its text from values
// would otherwise prepare without end.
const maxCustomStatements = 256

// statementCache is a worker's Querier: its session's statements by text.
type statementCache struct {
	s     bench.Session
	stmts map[string]bench.Stmt
}

func (c *statementCache) reset(s bench.Session) {
	if c.s != s {
		c.s, c.stmts = s, map[string]bench.Stmt{}
	}
}

func (c *statementCache) stmt(ctx context.Context, sql string, args []any) (bench.Stmt, error) {
	if st, ok := c.stmts[sql]; ok {
		return st, nil
	}
	if n := scanSQL(sql).placeholders; n != len(args) {
		return nil, fmt.Errorf("%d ? placeholders but %d arguments in %q", n, len(args), sql)
	}
	if isTxnControl(sql) {
		return nil, fmt.Errorf("%q: a transaction's BEGIN and COMMIT are the mix's (autocommit = True sends none)", sql)
	}
	if len(c.stmts) >= maxCustomStatements {
		return nil, fmt.Errorf("more than %d distinct statements on one connection: pass values as ? arguments rather than in the text", maxCustomStatements)
	}
	st, err := c.s.Prepare(ctx, sql)
	if err != nil {
		return nil, err
	}
	c.stmts[sql] = st
	return st, nil
}

// Exec implements Querier.
func (c *statementCache) Exec(ctx context.Context, sql string, args ...any) (int64, error) {
	st, err := c.stmt(ctx, sql, args)
	if err != nil {
		return 0, err
	}
	return st.Exec(ctx, args...)
}

// Query implements Querier.
func (c *statementCache) Query(ctx context.Context, sql string, limit int, args ...any) ([][]any, error) {
	st, err := c.stmt(ctx, sql, args)
	if err != nil {
		return nil, err
	}
	rs, ok := st.(bench.RowStmt)
	if !ok {
		return nil, fmt.Errorf("this connection cannot hand back result values (%T)", st)
	}
	var out [][]any
	_, err = rs.QueryRows(ctx, func(cols []driver.Value) error {
		if len(out) >= limit {
			return nil
		}
		row := make([]any, len(cols))
		for i, v := range cols {
			switch v := v.(type) {
			case []byte:
				row[i] = string(v)
			case time.Time:
				row[i] = v.Format(time.DateTime)
			case int64, uint64, float64, nil:
				row[i] = v
			default:
				row[i] = fmt.Sprint(v)
			}
		}
		out = append(out, row)
		return nil
	}, args...)
	return out, err
}
