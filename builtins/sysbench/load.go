package sysbench

import (
	"fmt"
	"strconv"

	"github.com/starbench/starbench/builtins/bulkload"
)

// How prepare loads rows (see package bulkload). Both give the same rows,
// in the same order, for a seed; they differ in the statements the server
// sees.
const (
	LoadAuto   = bulkload.Auto     // LOAD DATA LOCAL INFILE where accepted, else INSERT
	LoadInsert = bulkload.Insert   // sysbench's multi-row INSERT statements
	LoadData   = bulkload.LoadData // LOAD DATA LOCAL INFILE, failing if refused
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
	return bulkload.CheckMethod(m.Load)
}

// rows is sbtest<n>'s prepare rows 1..size as a bulk-load table: the
// values of sysbench's INSERTs (k, then c and pad drawn from rng), without
// id on auto-increment tables.
func rows(o *Options, n int, size int64, rng *Rand) bulkload.Table {
	columns := "(id, k, c, pad)"
	if o.AutoInc || o.AutoRandom {
		columns = "(k, c, pad)"
	}
	id := int64(0)
	return bulkload.Table{
		Name: TableName(n), Columns: columns, Insert: InsertHeader(o, n), Rows: size,
		Row: func(b []byte, text bool) []byte {
			id++
			k := rng.Default(1, o.TableSize)
			if text {
				return appendTabRow(b, o, rng, id, k)
			}
			return appendRow(b, o, rng, id, k)
		},
	}
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
