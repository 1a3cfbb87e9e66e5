package sysbench

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"sync/atomic"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/db"
)

// How prepare loads rows. Both give the same rows, in the same order, for a
// seed; they differ in the statements the server sees.
const (
	// LoadAuto streams rows with LOAD DATA LOCAL INFILE where the server
	// accepts it and falls back to INSERT where it refuses.
	LoadAuto = "auto"
	// LoadInsert sends sysbench's multi-row INSERT statements.
	LoadInsert = "insert"
	// LoadData streams rows with LOAD DATA LOCAL INFILE and fails if the
	// server refuses it.
	LoadData = "load-data"
)

// PrepareMode is how Prepare treats existing tables and loads rows.
type PrepareMode struct {
	IfExists string // IfExistsError (default), IfExistsDrop or IfExistsReuse
	Load     string // LoadAuto (default), LoadInsert or LoadData
}

func (m *PrepareMode) validate() error {
	if m.IfExists == "" {
		m.IfExists = IfExistsError
	}
	if m.Load == "" {
		m.Load = LoadAuto
	}
	if m.IfExists != IfExistsError && m.IfExists != IfExistsDrop && m.IfExists != IfExistsReuse {
		return fmt.Errorf("if_exists must be %s, %s or %s, not %q", IfExistsError, IfExistsDrop, IfExistsReuse, m.IfExists)
	}
	if m.Load != LoadAuto && m.Load != LoadInsert && m.Load != LoadData {
		return fmt.Errorf("load must be %s, %s or %s, not %q", LoadAuto, LoadInsert, LoadData, m.Load)
	}
	return nil
}

// prepareBatchBytes bounds one multi-row INSERT of prepare.
const prepareBatchBytes = 1 << 20

// loadDataRows bounds one LOAD DATA statement, so that no statement is a
// huge transaction (TiDB limits a transaction's size).
const loadDataRows = 200_000

// loader loads prepare's rows for all of a Prepare's threads.
type loader struct {
	mode    string
	refused atomic.Bool // LOAD DATA was refused: INSERT from now on
	w       *syncWriter
}

// load fills sbtest<n> with rows 1..size.
func (l *loader) load(ctx context.Context, s bench.Session, o *Options, n int, size int64, rng *Rand) error {
	if ll, ok := s.(bench.LocalLoader); ok && l.mode != LoadInsert && !l.refused.Load() {
		read, err := l.loadData(ctx, ll, o, n, 1, size, rng)
		if err == nil {
			return nil
		}
		// Servers refuse LOAD DATA LOCAL in many ways: 1148 with
		// local_infile=OFF (MariaDB, MySQL 5.7), 3948 (MySQL 8), 1105
		// (go-mysql-server), a syntax error elsewhere. Any server error
		// before the server read a row counts as a refusal; a real
		// problem (a missing table) then shows on the first INSERT.
		if _, isServer := db.ErrorCode(err); l.mode != LoadAuto || read || !isServer {
			return fmt.Errorf("load sbtest%d: %w", n, err)
		}
		// The server refused before reading a row: no row went in and no
		// random draw was used up (rows are generated as they are read),
		// so INSERT gives the same rows.
		if l.refused.CompareAndSwap(false, true) {
			l.w.printf("Loading rows with INSERT: the server does not accept LOAD DATA LOCAL INFILE (%v)\n", err)
		}
	} else if l.mode == LoadData {
		return fmt.Errorf("load sbtest%d: this connection cannot send LOAD DATA LOCAL INFILE", n)
	}
	return insertRows(ctx, s, o, n, size, rng)
}

// loadData streams rows first..last as LOAD DATA LOCAL INFILE statements
// of up to loadDataRows rows each; read says whether the server read any.
func (l *loader) loadData(ctx context.Context, ll bench.LocalLoader, o *Options, n int, first, last int64, rng *Rand) (read bool, err error) {
	columns := "(id, k, c, pad)"
	if o.AutoInc || o.AutoRandom {
		columns = "(k, c, pad)"
	}
	for from := first; from <= last; from += loadDataRows {
		src := &rowSource{o: o, rng: rng, next: from, last: min(last, from+loadDataRows-1)}
		stmt := "LOAD DATA LOCAL INFILE %s INTO TABLE " + TableName(n) + " CHARACTER SET binary " + columns
		_, err := ll.LoadLocal(ctx, stmt, src)
		read = read || src.next > from
		if err != nil {
			return read, err
		}
		if src.next <= src.last {
			return read, fmt.Errorf("the server stopped reading rows at id %d of %d", src.next, src.last)
		}
	}
	return read, nil
}

// insertRows sends sysbench's multi-row INSERTs for rows 1..size.
func insertRows(ctx context.Context, s bench.Session, o *Options, n int, size int64, rng *Rand) error {
	b := make([]byte, 0, prepareBatchBytes+1024)
	header := InsertHeader(o, n)
	for id := int64(1); id <= size; id++ {
		if len(b) == 0 {
			b = append(b, header...)
		} else {
			b = append(b, ',')
		}
		b = appendRow(b, o, rng, id, rng.Default(1, o.TableSize))
		if len(b) >= prepareBatchBytes || id == size {
			if _, err := s.Exec(ctx, string(b)); err != nil {
				return fmt.Errorf("load sbtest%d: %w", n, err)
			}
			b = b[:0]
		}
	}
	return nil
}

// rowSource generates prepare's rows as LOAD DATA text (tab-separated,
// one row a line) while the driver reads it, in pieces small enough that
// the server starts on the first rows while later ones are generated.
type rowSource struct {
	o          *Options
	rng        *Rand
	next, last int64
	buf        []byte
	pending    []byte
}

const rowSourcePiece = 64 << 10

func (r *rowSource) Read(p []byte) (int, error) {
	if len(r.pending) == 0 {
		if r.next > r.last {
			return 0, io.EOF
		}
		if r.buf == nil {
			r.buf = make([]byte, 0, rowSourcePiece+256)
		}
		b := r.buf[:0]
		for ; r.next <= r.last && len(b) < rowSourcePiece; r.next++ {
			b = appendTabRow(b, r.o, r.rng, r.next, r.rng.Default(1, r.o.TableSize))
		}
		r.pending = b
	}
	n := copy(p, r.pending)
	r.pending = r.pending[n:]
	return n, nil
}

// appendTabRow appends one row as a LOAD DATA line: the values of
// appendRow, tab-separated (c and pad hold only digits and dashes, so
// nothing needs escaping).
func appendTabRow(b []byte, o *Options, rng *Rand, id, k int64) []byte {
	if !o.AutoInc && !o.AutoRandom {
		b = strconv.AppendInt(b, id, 10)
		b = append(b, '\t')
	}
	b = strconv.AppendInt(b, k, 10)
	b = append(b, '\t')
	b = rng.AppendString(b, CTemplate)
	b = append(b, '\t')
	b = rng.AppendString(b, PadTemplate)
	return append(b, '\n')
}
