package tpch

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/bulkload"
	"github.com/starbench/starbench/builtins/family"
)

// Start positions the generator at row first (1-based) of table t (and of
// the table made with it): each of their streams skipped by the draws
// the rows before make, so that a slice of a table can be made alone.
func (g *Generator) Start(t Table, first int64) {
	switch t {
	case PartSupp, PartPsupp:
		t = Part
	case LineItem, OrderLine:
		t = Orders
	}
	child := childOf(t)
	g.streams = streamTable
	for i := range g.streams {
		if st := &g.streams[i]; st.table == t || st.table == child {
			skip(&st.seed, (first-1)*st.boundary)
		}
	}
}

// lineCounts are how many lines orders first ... first+n-1 have: the
// draws of the line count's stream alone.
func lineCounts(first, n int64) []int64 {
	g := &Generator{streams: streamTable}
	g.Start(Orders, first)
	counts := make([]int64, n)
	for i := range counts {
		counts[i] = g.random(1, lineMax, sOrderLines)
	}
	return counts
}

// What Prepare does with tables that already exist.
const (
	IfExistsError = "error" // fail, naming them
	IfExistsDrop  = "drop"  // drop them and prepare them again
	IfExistsReuse = "reuse" // keep them as they are, unloaded
)

// PrepareOptions control Prepare.
type PrepareOptions struct {
	ScaleFactor int64
	Threads     int
	IfExists    string // IfExistsError (""), IfExistsDrop or IfExistsReuse
	Method      string // bulkload's: Auto (""), Insert or LoadData
	// Tables are the tables prepared (CH-benCHmark's nation, region and
	// supplier, say); none: the eight.
	Tables []string
}

// tables are the tables o prepares, in go-tpc's order.
func (o PrepareOptions) tables() []string {
	if len(o.Tables) == 0 {
		return TableNames
	}
	var out []string
	for _, t := range TableNames {
		if slices.Contains(o.Tables, t) {
			out = append(out, t)
		}
	}
	return out
}

// sliceRows is how many rows of a table (orders, for lineitem) one load
// job makes.
const sliceRows = 100_000

// loadJob is one slice of a table's rows.
type loadJob struct {
	table       string
	first, rows int64 // of the rows the generator counts (orders for lineitem, parts for partsupp)
	lines       int64 // the table's rows of the slice
}

// quoted says which columns of each table go-tpc's INSERTs quote.
var quoted = map[string]string{
	"nation": "-+-+", "region": "-++", "part": "-++++-+++", "supplier": "-++-+++", "partsupp": "---++",
	"customer": "-++-++++", "orders": "--+++++-+", "lineitem": "-----++++++++++",
}

// Prepare creates the eight tables in conn's database and loads them with
// dbgen's rows for o.ScaleFactor, each table in slices spread over
// o.Threads sessions, through the shared bulk loader. Tables that exist
// are an error naming them as schema.table, unless o.IfExists says to
// drop or reuse them.
func Prepare(ctx context.Context, conn bench.Connector, o PrepareOptions, out io.Writer) (*family.Prepared, error) {
	if o.Threads < 1 {
		return nil, fmt.Errorf("threads must be at least 1, got %d", o.Threads)
	}
	if err := bulkload.CheckMethod(o.Method); err != nil {
		return nil, err
	}
	probe, err := NewGenerator(o.ScaleFactor)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	res := &family.Prepared{Schema: bench.SchemaOf(conn), Rows: map[string]int64{}}
	admin, err := conn.Connect(ctx)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	defer admin.Close()
	existing, err := existingTables(ctx, admin, o.tables())
	if err != nil {
		return nil, err
	}
	skipped := map[string]bool{}
	for _, t := range TableNames {
		skipped[t] = !slices.Contains(o.tables(), t)
	}
	if len(existing) > 0 {
		switch o.IfExists {
		case "", IfExistsError:
			return nil, fmt.Errorf("tables already exist: %s (drop them with cleanup, or prepare with if_exists=\"drop\" or \"reuse\")",
				strings.Join(qualified(res.Schema, existing), ", "))
		case IfExistsReuse:
			for _, t := range existing {
				skipped[t] = true
				res.Reused = append(res.Reused, t)
			}
		case IfExistsDrop:
			if _, err := dropTables(ctx, admin, res.Schema, existing, "Dropping table '%s' (if_exists=drop)...\n", out); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("if_exists must be %s, %s or %s, not %q", IfExistsError, IfExistsDrop, IfExistsReuse, o.IfExists)
		}
	}
	for _, t := range tableDDL {
		if skipped[t.Name] {
			continue
		}
		fmt.Fprintf(out, "Creating table '%s'...\n", bench.Qualified(res.Schema, t.Name))
		if _, err := admin.Exec(ctx, t.DDL); err != nil {
			return nil, fmt.Errorf("create %s: %w", bench.Qualified(res.Schema, t.Name), err)
		}
		res.Tables = append(res.Tables, t.Name)
	}
	jobs := loadJobs(probe, skipped)
	loader := &bulkload.Loader{Method: o.Method, Fallback: func(reason error) {
		fmt.Fprintf(out, "Loading rows with INSERT: the server does not accept LOAD DATA LOCAL INFILE (%v)\n", reason)
	}}
	var mu sync.Mutex
	announced := map[string]bool{}
	indexes := make([]int, len(jobs))
	for i := range indexes {
		indexes[i] = i
	}
	err = bulkload.ByThread(ctx, conn, indexes, min(o.Threads, max(len(jobs), 1)), func(s bench.Session, _ int, mine []int) error {
		for _, j := range mine {
			job := jobs[j]
			mu.Lock()
			if !announced[job.table] {
				announced[job.table] = true
				fmt.Fprintf(out, "Loading '%s'...\n", bench.Qualified(res.Schema, job.table))
			}
			mu.Unlock()
			if err := loader.Load(ctx, s, job.bulk(o.ScaleFactor)); err != nil {
				return err
			}
			mu.Lock()
			res.Rows[job.table] += job.lines
			res.TotalRows += job.lines
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

// loadJobs slices the tables not skipped: the largest first, so that the
// threads finish together.
func loadJobs(g *Generator, skipped map[string]bool) []loadJob {
	var jobs []loadJob
	slices := func(table string, rows int64, lines func(first, n int64) int64) {
		if skipped[table] {
			return
		}
		for first := int64(1); first <= rows; first += sliceRows {
			n := min(sliceRows, rows-first+1)
			jobs = append(jobs, loadJob{table: table, first: first, rows: n, lines: lines(first, n)})
		}
	}
	same := func(_, n int64) int64 { return n }
	slices("lineitem", g.Rows(Orders), func(first, n int64) int64 {
		total := int64(0)
		for _, c := range lineCounts(first, n) {
			total += c
		}
		return total
	})
	slices("orders", g.Rows(Orders), same)
	slices("partsupp", g.Rows(Part), func(_, n int64) int64 { return n * suppPerPart })
	slices("part", g.Rows(Part), same)
	slices("customer", g.Rows(Customer), same)
	slices("supplier", g.Rows(Supplier), same)
	slices("nation", g.Rows(Nation), same)
	slices("region", g.Rows(Region), same)
	return jobs
}

// bulk is the job's rows for the bulk loader.
func (j loadJob) bulk(sf int64) bulkload.Table {
	g, _ := NewGenerator(sf) // checked by Prepare
	var next func() [][]string
	i := j.first
	switch j.table {
	case "nation":
		next = func() [][]string { i++; return [][]string{g.NationRow(i - 1)} }
	case "region":
		next = func() [][]string { i++; return [][]string{g.RegionRow(i - 1)} }
	case "customer":
		g.Start(Customer, j.first)
		next = func() [][]string { i++; return [][]string{g.CustomerRow(i - 1)} }
	case "supplier":
		g.Start(Supplier, j.first)
		next = func() [][]string { i++; return [][]string{g.SupplierRow(i - 1)} }
	case "part", "partsupp":
		g.Start(Part, j.first)
		next = func() [][]string {
			i++
			part, supplies := g.PartRows(i - 1)
			if j.table == "part" {
				return [][]string{part}
			}
			return supplies
		}
	case "orders", "lineitem":
		g.Start(Orders, j.first)
		next = func() [][]string {
			i++
			order, lines := g.OrderRows(i - 1)
			if j.table == "orders" {
				return [][]string{order}
			}
			return lines
		}
	}
	var pending [][]string
	mask := quoted[j.table]
	return bulkload.Table{Name: j.table, Insert: "INSERT INTO " + j.table + " VALUES", Rows: j.lines,
		Row: func(b []byte, text bool) []byte {
			for len(pending) == 0 {
				pending = next()
			}
			row := pending[0]
			pending = pending[1:]
			if !text {
				b = append(b, '(')
			}
			for c, v := range row {
				switch {
				case c > 0 && text:
					b = append(b, '\t')
				case c > 0:
					b = append(b, ',')
				}
				switch {
				case text:
					b = bulkload.AppendText(b, v)
				case mask[c] == '+':
					b = bulkload.AppendSQLString(b, v)
				default:
					b = append(b, v...)
				}
			}
			if text {
				return append(b, '\n')
			}
			return append(b, ')')
		}}
}

// existingTables are those of tables that exist in s's database.
func existingTables(ctx context.Context, s bench.Session, tables []string) ([]string, error) {
	var found []string
	for _, t := range tables {
		n, err := s.Query(ctx, "SHOW TABLES LIKE '"+t+"'")
		if err != nil {
			return nil, err
		}
		if n > 0 {
			found = append(found, t)
		}
	}
	return found, nil
}

func qualified(schema string, tables []string) []string {
	out := make([]string, len(tables))
	for i, t := range tables {
		out[i] = bench.Qualified(schema, t)
	}
	return out
}

// dropTables drops tables (in go-tpc's order), naming each as
// schema.table on out with format.
func dropTables(ctx context.Context, s bench.Session, schema string, tables []string, format string, out io.Writer) ([]string, error) {
	var dropped []string
	for _, t := range TableNames {
		for _, x := range tables {
			if x != t {
				continue
			}
			fmt.Fprintf(out, format, bench.Qualified(schema, t))
			if _, err := s.Exec(ctx, "DROP TABLE IF EXISTS "+t); err != nil {
				return dropped, fmt.Errorf("drop %s: %w", bench.Qualified(schema, t), err)
			}
			dropped = append(dropped, t)
		}
	}
	return dropped, nil
}

// Cleanup drops the eight tables that exist in conn's database, naming
// each as schema.table on out, and returns their names.
func Cleanup(ctx context.Context, conn bench.Connector, out io.Writer) ([]string, error) {
	return CleanupTables(ctx, conn, TableNames, out)
}

// CleanupTables drops those of tables that exist in conn's database (in
// go-tpc's order), naming each as schema.table on out, and returns their
// names.
func CleanupTables(ctx context.Context, conn bench.Connector, tables []string, out io.Writer) ([]string, error) {
	s, err := conn.Connect(ctx)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	defer s.Close()
	existing, err := existingTables(ctx, s, tables)
	if err != nil {
		return nil, err
	}
	return dropTables(ctx, s, bench.SchemaOf(conn), existing, "Dropping table '%s'...\n", out)
}
