// Package bulkload loads generated rows into tables fast, for every
// workload family's prepare (sysbench's tables, TPC-C's warehouses): rows
// come from a generator in order, and are streamed to the server with
// LOAD DATA LOCAL INFILE where it accepts it, or sent as multi-row INSERTs
// where it does not. Either way the server gets the same rows for a seed:
// rows are generated as the server reads them, so a server that refuses
// LOAD DATA before reading a row has used up no random draw, and the
// INSERTs that follow generate the very same rows. Tables load in
// parallel, each thread taking its share in a fixed order (ByThread). It
// has no Starlark in it.
package bulkload

import (
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/db"
)

// How rows are loaded.
const (
	// Auto streams rows with LOAD DATA LOCAL INFILE where the server
	// accepts it and falls back to INSERT where it refuses.
	Auto = "auto"
	// Insert sends multi-row INSERT statements.
	Insert = "insert"
	// LoadData streams rows with LOAD DATA LOCAL INFILE and fails if the
	// server refuses it.
	LoadData = "load-data"
)

// CheckMethod accepts "" (Auto) and the three methods.
func CheckMethod(m string) error {
	switch m {
	case "", Auto, Insert, LoadData:
		return nil
	}
	return fmt.Errorf("load must be %s, %s or %s, not %q", Auto, Insert, LoadData, m)
}

// Table is one table's rows as a family generates them.
type Table struct {
	Name string // as statements name it: "sbtest1", "warehouse"
	// Columns is the column list the rows fill, for LOAD DATA:
	// "(id, k, c, pad)"; "" means every column in order.
	Columns string
	// Insert is an INSERT statement up to its first row, exactly as the
	// family sends it: "INSERT INTO sbtest1(id, k, c, pad) VALUES".
	Insert string
	Rows   int64 // how many rows
	// Row appends the next row to b: as a LOAD DATA line when text (fields
	// separated by tabs, a newline at the end; a tab, newline or backslash
	// in a value escaped with a backslash, NULL as \N), as an SQL tuple
	// "(1, 'x')" otherwise. It is called once a row, in order.
	Row func(b []byte, text bool) []byte
	// NewStatement, when set, is asked before each row of an INSERT load
	// (after the first) whether that row must start a new statement, for
	// servers that cannot take some rows together in one statement.
	NewStatement func() bool
}

// Bounds of one statement: an INSERT is cut at about 1 MiB, a LOAD DATA
// at 200,000 rows, so that no statement is a huge transaction (TiDB
// limits a transaction's size).
const (
	insertBatchBytes = 1 << 20
	loadDataRows     = 200_000
	streamPiece      = 64 << 10
)

// Loader loads tables by Method, for all the threads of one prepare: once
// the server has refused LOAD DATA, Auto sends INSERTs from then on.
type Loader struct {
	Method string // Auto (""), Insert or LoadData
	// Fallback, when set, is told once why Auto falls back to INSERT.
	Fallback func(reason error)
	refused  atomic.Bool
}

// Load fills t with its rows over s.
func (l *Loader) Load(ctx context.Context, s bench.Session, t Table) error {
	_, err := l.LoadVia(ctx, s, t)
	return err
}

// LoadVia fills t with its rows over s and says whether they went in
// through LOAD DATA (an AUTO_INCREMENT counter may then stand past the
// rows: InnoDB reserves ids for such loads in growing blocks).
func (l *Loader) LoadVia(ctx context.Context, s bench.Session, t Table) (loadedData bool, err error) {
	method := l.Method
	if method == "" {
		method = Auto
	}
	if ll, ok := s.(bench.LocalLoader); ok && method != Insert && !l.refused.Load() {
		src := &rowStream{t: &t, left: t.Rows}
		err := loadData(ctx, ll, &t, src)
		if err == nil {
			return true, nil
		}
		// Servers refuse LOAD DATA LOCAL in many ways: 1148 with
		// local_infile=OFF (MariaDB, MySQL 5.7), 3948 (MySQL 8), 1105
		// (go-mysql-server), a syntax error elsewhere. Any server error
		// before the server read a row counts as a refusal; a real
		// problem (a missing table) then shows on the first INSERT.
		if _, isServer := db.ErrorCode(err); method != Auto || src.read > 0 || !isServer {
			return false, fmt.Errorf("load %s: %w", t.Name, err)
		}
		// No row went in and no row was generated: INSERT gives the same.
		if l.refused.CompareAndSwap(false, true) && l.Fallback != nil {
			l.Fallback(err)
		}
	} else if method == LoadData {
		return false, fmt.Errorf("load %s: this connection cannot send LOAD DATA LOCAL INFILE", t.Name)
	}
	return false, insertRows(ctx, s, &t)
}

// loadData streams the table's rows in LOAD DATA statements of up to
// loadDataRows rows each.
func loadData(ctx context.Context, ll bench.LocalLoader, t *Table, src *rowStream) error {
	stmt := "LOAD DATA LOCAL INFILE %s INTO TABLE " + t.Name + " CHARACTER SET binary"
	if t.Columns != "" {
		stmt += " " + t.Columns
	}
	for src.left > 0 {
		piece := min(src.left, loadDataRows)
		src.piece = piece
		want := src.read + piece
		loaded, err := ll.LoadLocal(ctx, stmt, src)
		if err != nil {
			return err
		}
		if src.read < want {
			return fmt.Errorf("the server stopped reading at row %d of %d", src.read+1, t.Rows)
		}
		// LOAD DATA LOCAL skips rows it cannot take (a duplicate key, a
		// value that does not fit) with a warning only: count them.
		if loaded != piece {
			return fmt.Errorf("the server took %d of rows %d-%d (LOAD DATA LOCAL skips duplicate keys and values that do not fit)",
				loaded, want-piece+1, want)
		}
	}
	return nil
}

// insertRows sends the rows as multi-row INSERTs of about insertBatchBytes.
func insertRows(ctx context.Context, s bench.Session, t *Table) error {
	b := make([]byte, 0, insertBatchBytes+1024)
	for i := int64(1); i <= t.Rows; i++ {
		if len(b) > 0 && t.NewStatement != nil && t.NewStatement() {
			if _, err := s.Exec(ctx, string(b)); err != nil {
				return fmt.Errorf("load %s: %w", t.Name, err)
			}
			b = b[:0]
		}
		if len(b) == 0 {
			b = append(b, t.Insert...)
		} else {
			b = append(b, ',')
		}
		b = t.Row(b, false)
		if len(b) >= insertBatchBytes || i == t.Rows {
			if _, err := s.Exec(ctx, string(b)); err != nil {
				return fmt.Errorf("load %s: %w", t.Name, err)
			}
			b = b[:0]
		}
	}
	return nil
}

// rowStream is the file content of LOAD DATA statements: rows generated
// as the driver reads them, a statement's piece at a time, in chunks small
// enough that the server starts on the first rows while later ones are
// generated.
type rowStream struct {
	t       *Table
	left    int64 // rows not yet generated
	piece   int64 // rows of the current statement not yet generated
	read    int64 // rows generated (and handed to the driver)
	buf     []byte
	pending []byte
}

func (r *rowStream) Read(p []byte) (int, error) {
	if len(r.pending) == 0 {
		if r.piece == 0 {
			return 0, io.EOF
		}
		if r.buf == nil {
			r.buf = make([]byte, 0, streamPiece+1024)
		}
		b := r.buf[:0]
		for ; r.piece > 0 && len(b) < streamPiece; r.piece, r.left, r.read = r.piece-1, r.left-1, r.read+1 {
			b = r.t.Row(b, true)
		}
		r.pending = b
	}
	n := copy(p, r.pending)
	r.pending = r.pending[n:]
	return n, nil
}

// ByThread runs work on threads sessions at once, handing them jobs as
// sysbench hands out tables (job i to thread i mod threads, in order), so
// that each thread's share and order, and with them its random draws, are
// fixed. It returns the first error by thread.
func ByThread(ctx context.Context, conn bench.Connector, jobs []int, threads int, work func(s bench.Session, thread int, mine []int) error) error {
	errs := make([]error, threads)
	var wg sync.WaitGroup
	for t := 0; t < threads; t++ {
		var mine []int
		for i := t; i < len(jobs); i += threads {
			mine = append(mine, jobs[i])
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := conn.Connect(ctx)
			if err != nil {
				errs[t] = fmt.Errorf("thread %d: connect: %w", t, err)
				return
			}
			defer s.Close()
			errs[t] = work(s, t, mine)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// AppendText appends v as a LOAD DATA field: a backslash, tab, newline or
// carriage return escaped with a backslash, so that any string loads as is.
func AppendText(b []byte, v string) []byte {
	for i := 0; i < len(v); i++ {
		switch c := v[i]; c {
		case '\\':
			b = append(b, `\\`...)
		case '\t':
			b = append(b, `\t`...)
		case '\n':
			b = append(b, `\n`...)
		case '\r':
			b = append(b, `\r`...)
		case 0:
			b = append(b, `\0`...)
		default:
			b = append(b, c)
		}
	}
	return b
}

// AppendSQLString appends v as a single-quoted SQL string literal.
func AppendSQLString(b []byte, v string) []byte {
	b = append(b, '\'')
	for i := 0; i < len(v); i++ {
		switch c := v[i]; c {
		case '\'', '\\':
			b = append(b, '\\', c)
		case 0:
			b = append(b, `\0`...)
		case '\n':
			b = append(b, `\n`...)
		case '\r':
			b = append(b, `\r`...)
		case 0x1a:
			b = append(b, `\Z`...)
		default:
			b = append(b, c)
		}
	}
	return append(b, '\'')
}
