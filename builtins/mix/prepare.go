package mix

import (
	"context"
	"fmt"
	"github.com/starbench/starbench/builtins/family"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/bulkload"
	"github.com/starbench/starbench/internal/sqltext"
)

// What Prepare does with tables that already exist.
const (
	IfExistsError = "error" // fail, naming them
	IfExistsDrop  = "drop"  // drop them and prepare them again
	IfExistsReuse = "reuse" // keep them as they are, unloaded
)

// sliceRows is how many rows of a table one load job generates: the
// slices (and so the rows, for a seed) are the same whatever the threads.
const sliceRows = 100_000

// PrepareOptions control Prepare.
type PrepareOptions struct {
	Threads  int
	IfExists string // IfExistsError (""), IfExistsDrop or IfExistsReuse
	Method   string // bulkload's: Auto (""), Insert or LoadData
	Seed     int64
}

// PrepareResult is what a prepare did: the result every family's prepare
// gives.
type PrepareResult = family.Prepared

// TablesExistError is a prepare refused because tables it would create
// exist (if_exists="error").
type TablesExistError struct {
	Tables []string // schema.table
}

func (e *TablesExistError) Error() string {
	return fmt.Sprintf("tables already exist: %s (drop them with cleanup, or prepare with if_exists=\"drop\" or \"reuse\")", strings.Join(e.Tables, ", "))
}

// Prepare creates the mix's tables in conn's database and loads them, in
// slices of sliceRows rows spread over o.Threads sessions, through the
// shared bulk loader (LOAD DATA LOCAL INFILE where the server takes it).
// Tables that exist are an error naming them as schema.table, unless
// o.IfExists says to drop or reuse them.
func (m *Mix) Prepare(ctx context.Context, conn bench.Connector, o PrepareOptions, out io.Writer) (*PrepareResult, error) {
	if o.Threads < 1 {
		return nil, fmt.Errorf("threads must be at least 1, got %d", o.Threads)
	}
	if err := bulkload.CheckMethod(o.Method); err != nil {
		return nil, err
	}
	start := time.Now()
	p := &linePrinter{w: out}
	res := &PrepareResult{Schema: bench.SchemaOf(conn), Rows: map[string]int64{}}
	admin, err := conn.Connect(ctx)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	defer admin.Close()
	existing, err := m.existing(ctx, admin)
	if err != nil {
		return nil, err
	}
	skip := map[string]bool{}
	if len(existing) > 0 {
		switch o.IfExists {
		case "", IfExistsError:
			return nil, &TablesExistError{Tables: qualified(res.Schema, existing)}
		case IfExistsReuse:
			for _, t := range existing {
				skip[t] = true
				res.Reused = append(res.Reused, t)
			}
		case IfExistsDrop:
			if _, err := m.drop(ctx, admin, res.Schema, existing, "Dropping table '%s' (if_exists=drop)...\n", p); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("if_exists must be %s, %s or %s, not %q", IfExistsError, IfExistsDrop, IfExistsReuse, o.IfExists)
		}
	}
	for _, t := range m.def.Tables {
		if skip[t.Name] {
			continue
		}
		name := bench.Qualified(res.Schema, t.Name)
		p.printf("Creating table '%s'...\n", name)
		if _, err := admin.Exec(ctx, t.CreateSQL()); err != nil {
			return nil, fmt.Errorf("create %s: %w", name, err)
		}
		res.Tables = append(res.Tables, t.Name)
	}
	jobs := m.loadJobs(skip, o.Seed)
	loader := &bulkload.Loader{Method: o.Method, Fallback: func(reason error) {
		p.printf("Loading rows with INSERT: the server does not accept LOAD DATA LOCAL INFILE (%v)\n", reason)
	}}
	var mu sync.Mutex
	indexes := make([]int, len(jobs))
	for i := range indexes {
		indexes[i] = i
	}
	announced := map[string]bool{}
	if len(jobs) == 0 {
		res.Seconds = time.Since(start).Seconds()
		return res, nil
	}
	err = bulkload.ByThread(ctx, conn, indexes, min(o.Threads, len(jobs)), func(s bench.Session, _ int, mine []int) error {
		for _, j := range mine {
			job := jobs[j]
			mu.Lock()
			if !announced[job.load.Table] {
				announced[job.load.Table] = true
				p.printf("Loading %d rows into '%s'...\n", job.load.Rows, bench.Qualified(res.Schema, job.load.Table))
			}
			mu.Unlock()
			if err := loader.Load(ctx, s, job.table()); err != nil {
				return err
			}
			mu.Lock()
			res.Rows[job.load.Table] += job.rows
			res.TotalRows += job.rows
			mu.Unlock()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	res.Seconds = time.Since(start).Seconds()
	if res.Seconds > 0 {
		res.RowsPerS = float64(res.TotalRows) / res.Seconds
	}
	return res, nil
}

// loadJob is one slice of a table's rows.
type loadJob struct {
	load       *Load
	first      int64 // row index of the slice's first row
	rows       int64
	seed       uint64
	columnList string
}

func (m *Mix) loadJobs(skip map[string]bool, seed int64) []loadJob {
	var jobs []loadJob
	for li := range m.def.Loads {
		l := &m.def.Loads[li]
		if skip[m.declaredName(l.Table)] {
			continue
		}
		names := make([]string, len(l.Columns))
		for i, c := range l.Columns {
			names[i] = c.Name
		}
		cols := "(" + strings.Join(names, ", ") + ")"
		for first, slice := int64(0), uint64(0); first < l.Rows; first, slice = first+sliceRows, slice+1 {
			jobs = append(jobs, loadJob{load: l, first: first, rows: min(sliceRows, l.Rows-first), columnList: cols,
				seed: bench.WorkerSeed(seed, li<<20|int(slice))})
		}
	}
	return jobs
}

// table is the job's rows for the bulk loader: each column's generator
// drawn in a stream of the slice's own.
func (j loadJob) table() bulkload.Table {
	row := j.first - 1
	env := &instanceEnv{seed: j.seed, loading: true, row: &row, counters: map[*Gen]*counter{}, threads: 1}
	draws := make([]drawer, len(j.load.Columns))
	for i, c := range j.load.Columns {
		draws[i] = c.Gen.instance(env)
	}
	return bulkload.Table{Name: j.load.Table, Columns: j.columnList, Insert: "INSERT INTO " + j.load.Table + " " + j.columnList + " VALUES",
		Rows: j.rows, Row: func(b []byte, text bool) []byte {
			row++
			if !text {
				b = append(b, '(')
			}
			for i, d := range draws {
				if i > 0 {
					if text {
						b = append(b, '\t')
					} else {
						b = append(b, ", "...)
					}
				}
				b = appendValue(b, d.draw(), text)
			}
			if text {
				return append(b, '\n')
			}
			return append(b, ')')
		}}
}

// appendValue writes a value as a LOAD DATA field (text) or an SQL
// literal.
func appendValue(b []byte, v any, text bool) []byte {
	switch v := v.(type) {
	case nil:
		if text {
			return append(b, `\N`...)
		}
		return append(b, "NULL"...)
	case int64:
		return strconv.AppendInt(b, v, 10)
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return appendValue(b, nil, text)
		}
		return strconv.AppendFloat(b, v, 'f', -1, 64)
	case bool:
		if v {
			return append(b, '1')
		}
		return append(b, '0')
	case time.Time:
		s := v.Format("2006-01-02 15:04:05.999999")
		if text {
			return append(b, s...)
		}
		return bulkload.AppendSQLString(b, s)
	case []byte:
		if text {
			return bulkload.AppendText(b, string(v))
		}
		return bulkload.AppendSQLString(b, string(v))
	case string:
		if text {
			return bulkload.AppendText(b, v)
		}
		return bulkload.AppendSQLString(b, v)
	}
	return appendValue(b, fmt.Sprint(v), text)
}

// declaredName is a table's name as the mix declares it.
func (m *Mix) declaredName(name string) string {
	for _, t := range m.def.Tables {
		if strings.EqualFold(t.Name, name) {
			return t.Name
		}
	}
	return name
}

// existing lists the mix's tables that exist in the session's database,
// in declaration order.
func (m *Mix) existing(ctx context.Context, s bench.Session) ([]string, error) {
	var found []string
	for _, t := range m.def.Tables {
		n, err := s.Query(ctx, "SELECT 1 FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = "+sqltext.QuoteString(t.Name))
		if err != nil {
			return nil, fmt.Errorf("look for existing tables: %w", err)
		}
		if n > 0 {
			found = append(found, t.Name)
		}
	}
	return found, nil
}

// drop drops tables (the last declared first: a later table may refer to
// an earlier one), printing each by format with its schema.table name.
func (m *Mix) drop(ctx context.Context, s bench.Session, schema string, tables []string, format string, p *linePrinter) ([]string, error) {
	var dropped []string
	for _, t := range slices.Backward(tables) {
		name := bench.Qualified(schema, t)
		p.printf(format, name)
		if _, err := s.Exec(ctx, "DROP TABLE IF EXISTS "+sqltext.QuoteIdent(t)); err != nil {
			return dropped, fmt.Errorf("drop %s: %w", name, err)
		}
		dropped = append(dropped, t)
	}
	return dropped, nil
}

// Cleanup drops the mix's tables that exist in conn's database, naming
// each as schema.table, and returns their names. It drops nothing else.
func (m *Mix) Cleanup(ctx context.Context, conn bench.Connector, out io.Writer) ([]string, error) {
	s, err := conn.Connect(ctx)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	defer s.Close()
	existing, err := m.existing(ctx, s)
	if err != nil {
		return nil, err
	}
	return m.drop(ctx, s, bench.SchemaOf(conn), existing, "Dropping table '%s'...\n", &linePrinter{w: out})
}

func qualified(schema string, tables []string) []string {
	out := make([]string, len(tables))
	for i, t := range tables {
		out[i] = bench.Qualified(schema, t)
	}
	return out
}

// linePrinter serialises the lines of parallel threads.
type linePrinter struct {
	mu sync.Mutex
	w  io.Writer
}

func (p *linePrinter) printf(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, format, args...)
}
