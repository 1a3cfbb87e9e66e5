package tidbsql

import (
	"fmt"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	vtypes "github.com/dolthub/vitess/go/sqltypes"
)

// infoSchema is the engine's information_schema with TiDB's cluster tables
// added.
type infoSchema struct {
	sql.Database
	tables []*virtualTable
}

func (d *infoSchema) GetTableInsensitive(ctx *sql.Context, name string) (sql.Table, bool, error) {
	for _, t := range d.tables {
		if strings.EqualFold(t.name, name) {
			return t, true, nil
		}
	}
	return d.Database.GetTableInsensitive(ctx, name)
}

func (d *infoSchema) GetTableNames(ctx *sql.Context) ([]string, error) {
	names, err := d.Database.GetTableNames(ctx)
	if err != nil {
		return nil, err
	}
	for _, t := range d.tables {
		names = append(names, t.name)
	}
	return names, nil
}

// virtualTable is a read-only engine table whose rows are computed when it
// is read.
type virtualTable struct {
	name   string
	schema sql.Schema
	rows   func() []sql.Row
}

type onePartition struct{}

func (onePartition) Key() []byte { return []byte("all") }

func (t *virtualTable) Name() string               { return t.name }
func (t *virtualTable) String() string             { return t.name }
func (t *virtualTable) Schema() sql.Schema         { return t.schema }
func (t *virtualTable) Collation() sql.CollationID { return sql.Collation_Default }
func (t *virtualTable) Partitions(*sql.Context) (sql.PartitionIter, error) {
	return sql.PartitionsToPartitionIter(onePartition{}), nil
}
func (t *virtualTable) PartitionRows(*sql.Context, sql.Partition) (sql.RowIter, error) {
	return sql.RowsToRowIter(t.rows()...), nil
}

type column struct {
	name     string
	typ      sql.Type
	nullable bool
}

func schemaOf(table string, cols ...column) sql.Schema {
	var s sql.Schema
	for _, c := range cols {
		s = append(s, &sql.Column{Name: c.name, Type: c.typ, Nullable: c.nullable, Source: table, DatabaseSource: "information_schema"})
	}
	return s
}

var (
	bigint   = types.Int64
	tinyint  = types.Int8
	double   = types.Float64
	text     = types.Text
	datetime = types.Datetime
	varchar  = types.MustCreateStringWithDefaults(vtypes.VarChar, 64)
)

// infoSchemaTables are v5.2's TIKV_REGION_STATUS, TIKV_REGION_PEERS,
// TIKV_STORE_STATUS and CLUSTER_CONFIG over the model.
func (c *cluster) infoSchemaTables() []*virtualTable {
	return []*virtualTable{
		{name: "TIKV_REGION_STATUS", rows: c.regionStatusRows, schema: schemaOf("TIKV_REGION_STATUS",
			column{"REGION_ID", bigint, true}, column{"START_KEY", text, true}, column{"END_KEY", text, true},
			column{"TABLE_ID", bigint, true}, column{"DB_NAME", varchar, true}, column{"TABLE_NAME", varchar, true},
			column{"IS_INDEX", tinyint, false}, column{"INDEX_ID", bigint, true}, column{"INDEX_NAME", varchar, true},
			column{"EPOCH_CONF_VER", bigint, true}, column{"EPOCH_VERSION", bigint, true},
			column{"WRITTEN_BYTES", bigint, true}, column{"READ_BYTES", bigint, true},
			column{"APPROXIMATE_SIZE", bigint, true}, column{"APPROXIMATE_KEYS", bigint, true},
			column{"REPLICATIONSTATUS_STATE", varchar, true}, column{"REPLICATIONSTATUS_STATEID", bigint, true})},
		{name: "TIKV_REGION_PEERS", rows: c.regionPeerRows, schema: schemaOf("TIKV_REGION_PEERS",
			column{"REGION_ID", bigint, true}, column{"PEER_ID", bigint, true}, column{"STORE_ID", bigint, true},
			column{"IS_LEARNER", tinyint, false}, column{"IS_LEADER", tinyint, false},
			column{"STATUS", types.MustCreateStringWithDefaults(vtypes.VarChar, 10), true}, column{"DOWN_SECONDS", bigint, true})},
		{name: "TIKV_STORE_STATUS", rows: c.storeStatusRows, schema: schemaOf("TIKV_STORE_STATUS",
			column{"STORE_ID", bigint, true}, column{"ADDRESS", varchar, true}, column{"STORE_STATE", bigint, true},
			column{"STORE_STATE_NAME", varchar, true}, column{"LABEL", types.JSON, true}, column{"VERSION", varchar, true},
			column{"CAPACITY", varchar, true}, column{"AVAILABLE", varchar, true},
			column{"LEADER_COUNT", bigint, true}, column{"LEADER_WEIGHT", double, true}, column{"LEADER_SCORE", double, true},
			column{"LEADER_SIZE", bigint, true}, column{"REGION_COUNT", bigint, true}, column{"REGION_WEIGHT", double, true},
			column{"REGION_SCORE", double, true}, column{"REGION_SIZE", bigint, true},
			column{"START_TS", datetime, true}, column{"LAST_HEARTBEAT_TS", datetime, true}, column{"UPTIME", varchar, true})},
		{name: "CLUSTER_CONFIG", rows: c.configRows, schema: schemaOf("CLUSTER_CONFIG",
			column{"TYPE", varchar, true}, column{"INSTANCE", varchar, true},
			column{"KEY", types.MustCreateStringWithDefaults(vtypes.VarChar, 256), true}, column{"VALUE", text, true})},
	}
}

func (c *cluster) regionStatusRows() []sql.Row {
	c.mu.Lock()
	defer c.mu.Unlock()
	var rows []sql.Row
	for _, r := range c.regions {
		keys, size := c.regionStats(r)
		tail := []any{int64(r.confVer), int64(r.version), int64(0), int64(0), approximateMB(size), keys, nil, nil}
		list := c.regionTables(r)
		if len(list) == 0 {
			rows = append(rows, append(sql.Row{int64(r.id), pdKey(r.start), pdKey(r.end), nil, nil, nil, int8(0), nil, nil}, tail...))
		}
		for _, rt := range list {
			row := sql.Row{int64(r.id), pdKey(r.start), pdKey(r.end), rt.table.id, rt.table.db, rt.table.name, int8(0), nil, nil}
			if rt.index != nil {
				row[6], row[7], row[8] = int8(1), rt.index.id, rt.index.name
			}
			rows = append(rows, append(row, tail...))
		}
	}
	return rows
}

func (c *cluster) regionPeerRows() []sql.Row {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	var rows []sql.Row
	for _, r := range c.regions {
		for _, p := range r.peers {
			leader := int8(0)
			if p.id == r.leader {
				leader = 1
			}
			status, down := "NORMAL", any(nil)
			if s := c.store(p.store); s != nil && s.state == "Down" && p.id != r.leader {
				status, down = "DOWN", int64(now.Sub(s.heartbeat)/time.Second)
			}
			rows = append(rows, sql.Row{int64(r.id), int64(p.id), int64(p.store), int8(0), leader, status, down})
		}
	}
	return rows
}

func (c *cluster) storeStatusRows() []sql.Row {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	type counts struct{ leaders, regions, leaderSize, regionSize int64 }
	per := map[uint64]*counts{}
	for _, s := range c.stores {
		per[s.id] = &counts{}
	}
	for _, r := range c.regions {
		_, size := c.regionStats(r)
		mb := approximateMB(size)
		for _, p := range r.peers {
			if n := per[p.store]; n != nil {
				n.regions++
				n.regionSize += mb
				if p.id == r.leader {
					n.leaders++
					n.leaderSize += mb
				}
			}
		}
	}
	var rows []sql.Row
	for _, s := range c.stores {
		if s.state == "Tombstone" { // PD's store list leaves Tombstone stores out unless asked
			continue
		}
		n := per[s.id]
		used := uint64(n.regionSize) << 20
		beat := s.lastHeartbeat(now)
		rows = append(rows, sql.Row{
			int64(s.id), s.addr, s.metaState(), s.state, types.JSONDocument{Val: nil}, strings.TrimPrefix(TiDBVersion, "v"),
			byteSize(s.capacity), byteSize(s.capacity - used),
			n.leaders, 1.0, float64(n.leaders), n.leaderSize,
			n.regions, 1.0, float64(n.regionSize), n.regionSize,
			s.started, beat, beat.Sub(s.started).Round(time.Millisecond).String(),
		})
	}
	return rows
}

// byteSize prints a size as PD does (binary units, four significant
// digits): 500GiB, 1.759TiB.
func byteSize(b uint64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	v := float64(b)
	i := 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	return fmt.Sprintf("%.4g%s", v, units[i])
}

// configRows are every instance's configuration: the TiDB server itself,
// the PDs, and each TiKV that answers (not Down, not Tombstone), sorted by
// type, instance and name.
func (c *cluster) configRows() []sql.Row {
	c.mu.Lock()
	defer c.mu.Unlock()
	instances := map[string][]string{"tidb": {c.tidbAddr}}
	for i := 0; i < c.opts.PD; i++ {
		instances["pd"] = append(instances["pd"], fmt.Sprintf("127.0.0.1:%d", 2379+i))
	}
	for _, s := range c.stores {
		if s.serving() {
			instances["tikv"] = append(instances["tikv"], s.addr)
		}
	}
	var rows []sql.Row
	for typ, addrs := range instances {
		for _, addr := range addrs {
			for k, v := range c.config[typ] {
				rows = append(rows, sql.Row{typ, addr, k, v})
			}
		}
	}
	sort.Slice(rows, func(i, j int) bool {
		for k := 0; k < 3; k++ {
			a, b := rows[i][k].(string), rows[j][k].(string)
			if a != b {
				return a < b
			}
		}
		return false
	})
	return rows
}

// constFunc is a function of no arguments with a fixed string value:
// VERSION() and tidb_version().
type constFunc struct{ name, value string }

func (f constFunc) Resolved() bool                          { return true }
func (f constFunc) String() string                          { return f.name + "()" }
func (f constFunc) Type() sql.Type                          { return types.LongText }
func (f constFunc) IsNullable() bool                        { return false }
func (f constFunc) Eval(*sql.Context, sql.Row) (any, error) { return f.value, nil }
func (f constFunc) Children() []sql.Expression              { return nil }
func (f constFunc) FunctionName() string                    { return f.name }
func (f constFunc) Description() string                     { return "returns the TiDB stand-in's " + f.name }
func (f constFunc) CollationCoercibility(*sql.Context) (sql.CollationID, byte) {
	return sql.Collation_utf8mb3_general_ci, 3
}
func (f constFunc) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 0 {
		return nil, sql.ErrInvalidChildrenNumber.New(f, len(children), 0)
	}
	return f, nil
}

// tidbVersionText is tidb_version()'s answer in TiDB v5.2's layout; the build
// fields are "None", as in a TiDB built without release flags.
func tidbVersionText() string {
	return "Release Version: " + TiDBVersion + "\n" +
		"Edition: Community\n" +
		"Git Commit Hash: None\n" +
		"Git Branch: None\n" +
		"UTC Build Time: None\n" +
		"GoVersion: " + runtime.Version() + "\n" +
		"Race Enabled: false\n" +
		"TiKV Min Version: v3.0.0-60965b006877ca7234adaced7890d7b029ed1306\n" +
		"Check Table Before Drop: false"
}
