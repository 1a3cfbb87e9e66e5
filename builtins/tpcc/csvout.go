package tpcc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/starbench/starbench/builtins/bench"
)

// CSVOptions say what WriteCSVFiles writes: go-tpc v1.0.7's
// `prepare --output-type csv --output-dir DIR [--tables ...]`.
type CSVOptions struct {
	Dir        string   // the output directory, made when missing (not its parents, as go-tpc)
	DB         string   // the database name, the files' prefix
	Warehouses int      // 1..
	Threads    int      // writers; each writes files of its own
	Tables     []string // go-tpc's table names; empty: all nine
	Seed       int64
	LoadTime   time.Time // c_since, h_date, o_entry_d and delivered ol_delivery_d; zero: now
}

// CSVResult says what WriteCSVFiles wrote.
type CSVResult struct {
	Files     []string         // every file, in the order made
	Rows      map[string]int64 // by table
	TotalRows int64
	Bytes     int64
	Seconds   float64
	LoadTime  string
}

// CSVTables are the go-tpc tables opts names, checked: all nine when
// none is named, each at most once, in go-tpc's order.
func CSVTables(names []string) ([]string, error) {
	if len(names) == 0 {
		return Tables, nil
	}
	var out []string
	for _, n := range names {
		if !slices.Contains(Tables, n) {
			return nil, fmt.Errorf("table %q is not a go-tpc table (tables: %s)", n, strings.Join(Tables, ", "))
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return slices.Index(Tables, a) - slices.Index(Tables, b) })
	return out, nil
}

// CSVFileName is go-tpc's name of a table's file written by thread (0-based).
func CSVFileName(db, table string, thread int) string {
	return fmt.Sprintf("%s.%s.%d.csv", db, table, thread)
}

// warehouseTables are the tables go-tpc writes per warehouse; the others
// (but item, which thread 0 writes whole) it writes per district.
var warehouseTables = []string{Warehouse, Stock, District}

// districtTables are the tables written per district, in go-tpc's order.
var districtTables = []string{Customer, History, Orders, NewOrder, OrderLine}

// WriteCSVFiles writes the initial database as go-tpc's CSV output: per
// thread t a file DB.TABLE.t.csv of each table (item's only for thread 0,
// which writes all its rows), thread t taking warehouses t+1, t+1+threads,
// ... for warehouse, stock and district and the districts t, t+threads,
// ... (numbered from 0 over all warehouses) for the others; lines as
// Go's encoding/csv writes go-tpc's values (decimals with six places,
// NULL for NULL, DATETIME text for the load time). The rows are those
// Prepare loads for the same seed and load time. Existing files of those
// names are replaced, as go-tpc does; nothing else in the directory is
// touched.
func WriteCSVFiles(ctx context.Context, o CSVOptions, out io.Writer) (*CSVResult, error) {
	tables, err := CSVTables(o.Tables)
	if err != nil {
		return nil, err
	}
	switch {
	case o.Warehouses < 1:
		return nil, fmt.Errorf("warehouses must be at least 1, not %d", o.Warehouses)
	case o.Threads < 1:
		return nil, fmt.Errorf("threads must be at least 1, not %d", o.Threads)
	case o.Dir == "":
		return nil, errors.New("the output directory is empty")
	case o.DB == "" || strings.ContainsAny(o.DB, `/\`):
		return nil, fmt.Errorf("database name %q cannot prefix a file name", o.DB)
	}
	if err := os.Mkdir(o.Dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	if st, err := os.Stat(o.Dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("output directory %s is not a directory", o.Dir)
	}
	if o.LoadTime.IsZero() {
		o.LoadTime = time.Now()
	}
	o.LoadTime = o.LoadTime.Truncate(time.Second)
	start := time.Now()
	gen := NewGenerator(o.Seed, o.LoadTime)
	res := &CSVResult{Rows: map[string]int64{}, LoadTime: o.LoadTime.Format(time.DateTime)}
	var mu sync.Mutex // res and firstErr, which the threads fill
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var firstErr error // the first cause: a failure cancels the other threads
	var wg sync.WaitGroup
	for t := range o.Threads {
		var mine []string
		for _, table := range tables {
			if table != Item || t == 0 {
				mine = append(mine, table)
			}
		}
		files := make(map[string]*csvFile, len(mine))
		for _, table := range mine {
			f, err := createCSVFile(filepath.Join(o.Dir, CSVFileName(o.DB, table, t)))
			if err != nil {
				closeAll(files)
				cancel()
				wg.Wait()
				return nil, err
			}
			files[table] = f
			res.Files = append(res.Files, f.path)
			fmt.Fprintf(out, "Writing %s...\n", f.path)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			rows, err := writeThreadCSV(ctx, gen, files, t, o)
			for _, f := range files {
				if cerr := f.close(); err == nil {
					err = cerr
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if firstErr == nil || errors.Is(firstErr, context.Canceled) {
					firstErr = err
				}
				cancel()
				return
			}
			for table, n := range rows {
				res.Rows[table] += n
				res.TotalRows += n
			}
			for _, f := range files {
				res.Bytes += f.bytes
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// writeThreadCSV writes thread t's rows into its files.
func writeThreadCSV(ctx context.Context, gen *Generator, files map[string]*csvFile, t int, o CSVOptions) (map[string]int64, error) {
	rows := map[string]int64{}
	write := func(table string, warehouse, first, last int) error {
		f, ok := files[table]
		if !ok {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := gen.WriteCSV(f.w, table, warehouse, first, last)
		if err != nil {
			return fmt.Errorf("%s: %w", f.path, err)
		}
		rows[table] += n
		return nil
	}
	if err := write(Item, 0, 1, Slices); err != nil {
		return nil, err
	}
	for i := t; i < o.Warehouses; i += o.Threads {
		for _, table := range warehouseTables {
			if err := write(table, i+1, 1, Slices); err != nil {
				return nil, err
			}
		}
	}
	for i := t; i < o.Warehouses*genDistrictsPerWarehouse; i += o.Threads {
		w, d := i/genDistrictsPerWarehouse+1, i%genDistrictsPerWarehouse+1
		for _, table := range districtTables {
			if err := write(table, w, d, d); err != nil {
				return nil, err
			}
		}
	}
	return rows, nil
}

// csvFile is one output file, buffered, counting what it wrote.
type csvFile struct {
	path  string
	f     *os.File
	w     *bufio.Writer
	bytes int64
}

func createCSVFile(path string) (*csvFile, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	c := &csvFile{path: path, f: f}
	c.w = bufio.NewWriterSize(countingWriter{f, &c.bytes}, 1<<20)
	return c, nil
}

func (c *csvFile) close() error {
	err := c.w.Flush()
	if cerr := c.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", c.path, err)
	}
	return nil
}

func closeAll(files map[string]*csvFile) {
	for _, f := range files {
		f.f.Close()
	}
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n *int64
}

func (c countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	*c.n += int64(n)
	return n, err
}

// CreateEmptyTables creates go-tpc's nine tables (parts partitions each)
// in conn's database where they are missing, keeping those that exist, as
// go-tpc's CSV output does before it writes the files (CREATE TABLE IF
// NOT EXISTS), saying of each which it did.
func CreateEmptyTables(ctx context.Context, conn bench.Connector, parts int, out io.Writer) error {
	s, err := conn.Connect(ctx)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer s.Close()
	schemaName := bench.SchemaOf(conn)
	existing, err := existingLoadTables(ctx, s, GoTPCLayout)
	if err != nil {
		return err
	}
	schema := Schema{Parts: parts, Layout: GoTPCLayout}
	for _, t := range Tables {
		name := bench.Qualified(schemaName, t)
		if slices.Contains(existing, t) {
			fmt.Fprintf(out, "Table '%s' exists: kept as it is\n", name)
			continue
		}
		ddl, err := schema.CreateTableSQL(t)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "Creating table '%s' (empty: the rows go to the files)...\n", name)
		if _, err := s.Exec(ctx, ddl); err != nil {
			return fmt.Errorf("create %s: %w", name, err)
		}
	}
	return nil
}
