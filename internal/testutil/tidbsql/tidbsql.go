// Package tidbsql is a TiDB SQL stand-in for tests, for what a real
// tidb-server on unistore (sandbox.StartTiDB, which the tests use for
// TiDB's SQL) cannot do: a cluster's PD-backed tables, BR, TiKV's ADMIN
// CHECKSUM, several TiDB servers over one store. It is a MySQL-protocol
// server on 127.0.0.1 that answers those statements with the result shapes
// TiDB v5.2 documents, and serves everything else (CREATE, INSERT, SELECT,
// SET, USE, SHOW ...) from an in-memory go-mysql-server engine behind it.
// It is not TiDB: it keeps a small model of a cluster (TiKV stores, PD
// regions, BR backups) so that answers agree with each other across
// statements, and nothing more. SPLIT TABLE, which makes the model's
// Regions, answers as a real tidb-server does (a test compares them).
//
// The shapes follow TiDB v5.2 (the version seed 003 benchmarks):
//
//   - ADMIN CHECKSUM TABLE t[, ...]: Db_name, Table_name, Checksum_crc64_xor,
//     Total_kvs, Total_bytes (docs: sql-statement-admin-checksum-table; types
//     from TiDB's planner: varchar, varchar, then BIGINT UNSIGNED). The KV
//     pairs are those TiDB would store (one record per row, keyed by table ID
//     and handle, one entry per secondary index), so a changed row or index
//     changes the checksum, and so does, in general, a new table ID (the
//     CRC64s are XORed, so equal-length pairs in even numbers cancel the ID
//     out, as on TiDB); the value bytes are the stand-in's own encoding, not
//     TiDB's row format, so the numbers never equal a real cluster's.
//   - SPLIT TABLE t BETWEEN (lo) AND (hi) REGIONS n and SPLIT TABLE t BY
//     (v)[, ...]: TOTAL_SPLIT_REGION, SCATTER_FINISH_RATIO (docs:
//     sql-statement-split-region). Split keys are TiDB's: the record prefix
//     when the table has indexes, then lo+step ... lo+(n-1)*step; keys that
//     are already Region boundaries create no Region; a split keeps the right
//     part in the old Region (TiKV's right-derive). SPLIT ... INDEX is refused.
//   - information_schema.TIKV_REGION_STATUS (17 columns), TIKV_REGION_PEERS
//     (7), TIKV_STORE_STATUS (19) and CLUSTER_CONFIG (docs:
//     information-schema-tikv-region-status, -tikv-region-peers,
//     -tikv-store-status, v5.2/5.3). They are engine tables, so joins, GROUP
//     BY and WHERE work. A Region holding a table's records and its index
//     entries is listed once for each, as TiDB does.
//   - SHOW CONFIG [LIKE 'type' | WHERE ...]: Type, Instance, Name, Value
//     (docs: sql-statement-show-config).
//   - BACKUP DATABASE/TABLE ... TO 'url' and RESTORE ... FROM 'url':
//     Destination, Size, BackupTS, Queue Time, Execution Time; RESTORE's
//     BackupTS is 0 (docs: sql-statement-backup, sql-statement-restore; v5.2
//     has no "Cluster TS" column). Failures are TiDB's errors 8124 "Backup
//     failed: ..." and 8125 "Restore failed: ...".
//   - SET [GLOBAL|SESSION] tidb_x = v (TiDB's own variables, which the engine
//     does not know) is accepted and recorded without validation; reading
//     them back (SELECT @@tidb_x, SHOW VARIABLES) is not modelled.
//   - VERSION() is 5.7.25-TiDB-v5.2.0 and tidb_version() has TiDB's layout
//     (Release Version, Edition, Git Commit Hash ...; the build fields say None,
//     as in a TiDB built without release flags).
//
// The model: TiKV stores 1..n at 127.0.0.1:20160+i, all Up; one Region at
// the start, then one more for every new table (TiDB's split-table); table
// IDs from 60 in creation order (TRUNCATE gives a new one; a rename, by
// RENAME TABLE or ALTER TABLE ... RENAME, keeps it, as TiDB's DDL does; a
// rename into another database is refused, the engine cannot do it); peers
// and leaders of new Regions placed round-robin over the Up stores, as PD's
// balancing leaves them; APPROXIMATE_KEYS and sizes from scanning the tables when
// TIKV_REGION_STATUS or TIKV_STORE_STATUS is read;
// WRITTEN_BYTES and READ_BYTES 0; no Region merges. BR keeps each backup in
// memory under its URL: BACKUP to a URL that holds one fails, a missing or
// empty database backs up nothing (as BR v5.2 does), RESTORE into a table
// that holds rows fails (v5.2 ingests, then fails its checksum; the stand-in
// fails before writing), local:// on several TiKVs fails at RESTORE unless
// Options.SharedLocalStorage, noop:// keeps nothing, and the options after
// the URL are accepted and ignored. Error texts after TiDB's codes are the
// stand-in's words except where TiDB's are quoted in the code.
//
// TiDB statements are recognized in COM_QUERY (and as the first statement of
// a multi-statement query); they cannot be prepared. Queries naming the TIKV_*
// tables may be prepared (tidb.region_distribution passes its filters as
// arguments). @@version stays the engine's.
package tidbsql

import (
	"fmt"
	"net"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/memory"
	"github.com/dolthub/go-mysql-server/server"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/sirupsen/logrus"

	"github.com/starbench/starbench/internal/mysqlconn"
)

// TiDBVersion is the TiDB release whose documented result shapes the
// stand-in follows.
const TiDBVersion = "v5.2.0"

// ServerVersion is what VERSION() and the handshake report, as TiDB v5.2.0
// does.
const ServerVersion = "5.7.25-TiDB-" + TiDBVersion

// Options configure a stand-in.
type Options struct {
	// TiKV is the number of TiKV stores (IDs 1..TiKV); 0 means 3.
	TiKV int
	// PD is the number of PD instances shown by SHOW CONFIG; 0 means 1.
	PD int
	// Replicas is PD's max-replicas; 0 means 3. A Region has
	// min(Replicas, serving stores) peers.
	Replicas int
	// Databases are created empty at start, besides TiDB's own "test".
	Databases []string
	// SharedLocalStorage says that local:// backup paths are one shared
	// file system (NFS) on every TiKV. Without it, BR through local:// on
	// more than one TiKV leaves each store's SST files on its own disk and
	// RESTORE fails, as on a real cluster.
	SharedLocalStorage bool
	// Config sets SHOW CONFIG values: component ("tidb", "tikv", "pd") to
	// name to value, on every instance of the component. It adds to and
	// overrides the few defaults the stand-in shows.
	Config map[string]map[string]string
}

// Server is a running stand-in.
type Server struct {
	srv     *server.Server
	addr    string
	done    chan error
	release func()
	model   *cluster
	stop    sync.Once
}

// Start listens on 127.0.0.1 with a random port and stops the server when
// the test ends. It fails the test when the server cannot start.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	s, err := start(opts)
	if err != nil {
		t.Fatalf("tidbsql: %v", err)
	}
	t.Cleanup(s.Stop)
	return s
}

func start(opts Options) (*Server, error) {
	if opts.TiKV == 0 {
		opts.TiKV = 3
	}
	if opts.PD == 0 {
		opts.PD = 1
	}
	if opts.Replicas == 0 {
		opts.Replicas = 3
	}
	if opts.TiKV < 0 || opts.PD < 0 || opts.Replicas < 0 {
		return nil, fmt.Errorf("negative count in options %+v", opts)
	}
	for comp := range opts.Config {
		if _, ok := defaultConfig(opts)[strings.ToLower(comp)]; !ok {
			return nil, fmt.Errorf("Options.Config: unknown component %q (tidb, tikv or pd)", comp)
		}
	}
	logrus.SetLevel(logrus.ErrorLevel)

	names := append([]string{"test"}, opts.Databases...)
	seen := map[string]bool{}
	var dbs []sql.Database
	for _, name := range names {
		if name == "" || seen[strings.ToLower(name)] {
			continue
		}
		seen[strings.ToLower(name)] = true
		db := memory.NewDatabase(name)
		db.BaseDatabase.EnablePrimaryKeyIndexes()
		dbs = append(dbs, db)
	}
	provider := memory.NewDBProvider(dbs...)
	provider.WithOption(memory.NativeIndexProvider(true)) // CREATE DATABASE's too
	a := analyzer.NewDefault(provider)
	model := newCluster(opts)
	a.Catalog.InfoSchema = &infoSchema{Database: a.Catalog.InfoSchema, tables: model.infoSchemaTables()}
	a.Catalog.RegisterFunction(sql.NewEmptyContext(),
		sql.Function0{Name: "version", Fn: func() sql.Expression { return constFunc{name: "version", value: ServerVersion} }},
		sql.Function0{Name: "tidb_version", Fn: func() sql.Expression { return constFunc{name: "tidb_version", value: tidbVersionText()} }},
	)
	engine := sqle.New(a, nil)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	model.tidbAddr = ln.Addr().String()
	h := &handler{model: model}
	cfg := server.Config{Protocol: "tcp", Listener: ln, Version: ServerVersion}
	srv, err := server.NewServerWithHandler(cfg, engine, sql.NewContext, memory.NewSessionBuilder(provider), nil,
		func(inner mysql.Handler) (mysql.Handler, error) {
			h.Handler = inner
			return h, nil
		})
	if err != nil {
		ln.Close()
		return nil, err
	}
	s := &Server{srv: srv, addr: ln.Addr().String(), done: make(chan error, 1), release: mysqlconn.InProcessServer(), model: model}
	go func() { s.done <- srv.Start() }()
	return s, nil
}

// Addr is the host:port the stand-in listens on (its one TiDB instance).
func (s *Server) Addr() string { return s.addr }

// DSN is a go-sql-driver DSN for user root (no password) and database db
// ("" for none).
func (s *Server) DSN(db string) string { return fmt.Sprintf("root@tcp(%s)/%s", s.addr, db) }

// Stop closes the server and drops its data; Start registers it with the
// test's cleanup, and a second call does nothing.
func (s *Server) Stop() {
	s.stop.Do(func() {
		s.srv.Close()
		<-s.done
		s.release()
	})
}

// StoreIDs are the TiKV stores' IDs, Tombstone ones included.
func (s *Server) StoreIDs() []uint64 {
	s.model.mu.Lock()
	defer s.model.mu.Unlock()
	var ids []uint64
	for _, st := range s.model.stores {
		ids = append(ids, st.id)
	}
	return ids
}

// SetStoreState sets a TiKV store's state as PD reports it: Up,
// Disconnected, Down, Offline or Tombstone (any case). Leaders on a Down
// store move to a peer on a serving store, its peers show as DOWN in
// TIKV_REGION_PEERS and its heartbeat stops; a Tombstone store's peers are
// replaced on other stores and it leaves TIKV_STORE_STATUS (PD lists only Up
// and Offline stores unless asked); a Tombstone store cannot come back.
func (s *Server) SetStoreState(id uint64, state string) error {
	return s.model.setStoreState(id, state, time.Now())
}

// SetConfig sets the value SHOW CONFIG and CLUSTER_CONFIG show for name on
// every instance of component ("tidb", "tikv" or "pd").
func (s *Server) SetConfig(component, name, value string) error {
	return s.model.setConfig(component, name, value)
}

// GlobalVariable is the value a SET GLOBAL gave TiDB variable name (tidb_*),
// as written in the statement.
func (s *Server) GlobalVariable(name string) (string, bool) {
	s.model.mu.Lock()
	defer s.model.mu.Unlock()
	v, ok := s.model.globals[strings.ToLower(name)]
	return v, ok
}

// Backups lists the storage URLs that hold a backup, sorted.
func (s *Server) Backups() []string {
	s.model.mu.Lock()
	defer s.model.mu.Unlock()
	var out []string
	for k := range s.model.backups {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
