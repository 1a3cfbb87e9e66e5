package tidbsql

import (
	"strings"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
)

// colDef is a result column as TiDB's planner types it: numeric columns of
// these statements are UNSIGNED, strings are utf8mb4.
type colDef struct {
	name     string
	typ      querypb.Type
	unsigned bool
	length   uint32
}

func fields(cols ...colDef) []*querypb.Field {
	out := make([]*querypb.Field, 0, len(cols))
	for _, c := range cols {
		_, flags := sqltypes.TypeToMySQL(c.typ)
		if c.unsigned {
			flags |= int64(querypb.MySqlFlag_UNSIGNED_FLAG)
		}
		charset := uint32(63) // binary
		if sqltypes.IsText(c.typ) {
			charset = 46 // utf8mb4_bin
		}
		out = append(out, &querypb.Field{Name: c.name, Type: c.typ, ColumnLength: c.length, Charset: charset, Flags: uint32(flags)})
	}
	return out
}

var (
	checksumCols = fields(
		colDef{"Db_name", sqltypes.VarChar, false, 128},
		colDef{"Table_name", sqltypes.VarChar, false, 128},
		colDef{"Checksum_crc64_xor", sqltypes.Uint64, true, 22},
		colDef{"Total_kvs", sqltypes.Uint64, true, 22},
		colDef{"Total_bytes", sqltypes.Uint64, true, 22},
	)
	splitCols = fields(
		colDef{"TOTAL_SPLIT_REGION", sqltypes.Uint64, true, 4},
		colDef{"SCATTER_FINISH_RATIO", sqltypes.Float64, true, 8},
	)
)

func (h *handler) adminChecksum(ss session, st *adminChecksum) (*sqltypes.Result, error) {
	if err := h.refresh(ss, false); err != nil {
		return nil, err
	}
	res := &sqltypes.Result{Fields: checksumCols}
	for _, ref := range st.tables {
		ref, err := h.lookup(ss, ref)
		if err != nil {
			return nil, err
		}
		h.model.mu.Lock()
		t := h.model.tables[keyOf(ref.db, ref.name)].snapshot()
		h.model.mu.Unlock()
		data, err := scanTable(ss, &t)
		if err != nil {
			return nil, err
		}
		h.model.mu.Lock()
		if cur := h.model.tables[keyOf(ref.db, ref.name)]; cur != nil && cur.id == t.id {
			cur.stats = data.stats()
		}
		h.model.mu.Unlock()
		crc, kvs, size := data.checksum()
		res.Rows = append(res.Rows, []sqltypes.Value{
			sqltypes.NewVarChar(t.db), sqltypes.NewVarChar(t.name),
			sqltypes.NewUint64(crc), sqltypes.NewUint64(kvs), sqltypes.NewUint64(size),
		})
	}
	return res, nil
}

// TiDB's limits on SPLIT TABLE (split-region-max-num, minRegionStepValue).
const (
	maxSplitRegions = 1000
	minSplitStep    = 1000
)

func (h *handler) splitTable(ss session, st *splitTable) (*sqltypes.Result, error) {
	if err := h.refresh(ss, false); err != nil {
		return nil, err
	}
	ref, err := h.lookup(ss, st.table)
	if err != nil {
		return nil, err
	}
	if st.index != "" {
		return nil, sqlError(mysql.ERUnknownError, "HY000", "the TiDB stand-in does not model index splits (SPLIT TABLE %s INDEX %s)", ref.name, st.index)
	}
	c := h.model
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.tables[keyOf(ref.db, ref.name)]
	var keys [][]byte
	if st.by != nil {
		for _, v := range st.by {
			keys = append(keys, recordKey(t.id, v))
		}
	} else {
		if st.regions > maxSplitRegions {
			return nil, sqlError(mysql.ERUnknownError, "HY000", "Split table region num exceeded the limit %d", maxSplitRegions)
		}
		if st.regions < 1 {
			return nil, sqlError(mysql.ERUnknownError, "HY000", "Split table region num should more than 0")
		}
		if st.upper <= st.lower {
			return nil, sqlError(mysql.ERUnknownError, "HY000", "Split table `%s` region lower value %d should less than the upper value %d", t.name, st.lower, st.upper)
		}
		step := (st.upper - st.lower) / st.regions
		if step < minSplitStep {
			return nil, sqlError(mysql.ERUnknownError, "HY000", "Split table `%s` region step value should more than %d, step %d is invalid", t.name, minSplitStep, step)
		}
		if len(t.indexes) > 0 {
			keys = append(keys, recordPrefix(t.id)) // a Region of its own for the indexes
		}
		v := st.lower
		for i := int64(1); i < st.regions; i++ {
			v += step
			keys = append(keys, recordKey(t.id, v))
		}
	}
	n := c.split(keys)
	ratio := 0.0
	if n > 0 {
		ratio = 1 // tidb_wait_split_region_finish is on: the scatter has finished
	}
	return &sqltypes.Result{Fields: splitCols, Rows: [][]sqltypes.Value{{sqltypes.NewUint64(uint64(n)), sqltypes.NewFloat64(ratio)}}}, nil
}

// showConfig answers SHOW CONFIG from information_schema.CLUSTER_CONFIG,
// the engine applying LIKE (to Type, as TiDB does) or WHERE.
func (h *handler) showConfig(ss session, st *showConfig, cb mysql.ResultSpoolFn) error {
	q := "SELECT * FROM (SELECT `TYPE` AS `Type`, `INSTANCE` AS `Instance`, `KEY` AS `Name`, `VALUE` AS `Value` " +
		"FROM information_schema.CLUSTER_CONFIG) AS `config`"
	switch {
	case st.like != nil:
		q += " WHERE `Type` LIKE " + sqlString(*st.like)
	case st.where != "":
		q += " WHERE " + st.where
	}
	q += " ORDER BY `Type`, `Instance`, `Name`"
	return h.Handler.ComQuery(ss.ctx, ss.c, q, cb)
}

// sqlString is a single-quoted SQL string literal.
func sqlString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\x00", `\0`)
	return "'" + r.Replace(s) + "'"
}
