package telemetry

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// MySQLStatus are the status variables read from a MySQL or MariaDB
// server when the plan names none.
var MySQLStatus = []string{
	"Questions", "Com_select", "Com_insert", "Com_update", "Com_delete", "Com_commit", "Com_rollback",
	"Innodb_rows_read", "Innodb_rows_inserted", "Innodb_rows_updated", "Innodb_rows_deleted", // MySQL's
	"Rows_read", "Rows_sent", // MariaDB's (it has no Innodb_rows_*)
	"Handler_read_key", "Handler_read_next", "Handler_read_rnd_next", "Handler_write", "Handler_update", "Handler_delete",
	"Innodb_data_read", "Innodb_data_written", "Innodb_buffer_pool_reads", "Innodb_buffer_pool_read_requests",
	"Threads_running", "Threads_connected",
}

// TiDBStatus are those read from TiDB when the plan names none. TiDB's
// status variables are its schema version, TLS and GC state and uptime
// (docs.pingcap.com, "Server Status Variables"): its rates are on its
// Prometheus endpoint (:10080/metrics), which a watch of a TiDB cluster
// reads as well.
var TiDBStatus = []string{"ddl_schema_version"}

// Status reads a server's global status variables (SHOW GLOBAL STATUS),
// one query a reading on a connection of its own; the server's kind
// (TiDB or MySQL/MariaDB) picks the variables when none were named.
// Variables that only count up are rated per second; those that stand
// for a current state (Threads_running, Open_tables, buffer pool pages)
// are kept as they are.
type Status struct {
	name, source string
	db           *sql.DB
	vars         []string // nil: by the server's kind

	once  sync.Once
	known map[string]bool // the variables to keep
	err   error
}

// NewStatus is a status source named name reading db (at most one
// connection is used), described as source; vars are the variables to
// read (nil: the defaults for the server's kind).
func NewStatus(name, source string, db *sql.DB, vars []string) *Status {
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	return &Status{name: name, source: source, db: db, vars: vars}
}

func (s *Status) Name() string   { return s.name }
func (s *Status) Kind() string   { return "status" }
func (s *Status) Source() string { return s.source }

// Close closes the source's connection.
func (s *Status) Close() error { return s.db.Close() }

// Read reads the variables once.
func (s *Status) Read(ctx context.Context) (Reading, error) {
	s.once.Do(func() { s.known, s.err = s.choose(ctx) })
	if s.err != nil {
		return Reading{}, s.err
	}
	rows, err := s.db.QueryContext(ctx, "SHOW GLOBAL STATUS")
	if err != nil {
		return Reading{}, err
	}
	defer rows.Close()
	r := Reading{Time: time.Now(), Counters: map[string]float64{}, Gauges: map[string]float64{}}
	for rows.Next() {
		var name, value string
		if err := rows.Scan(&name, &value); err != nil {
			return Reading{}, err
		}
		if !s.known[strings.ToLower(name)] {
			continue
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			continue // text (a TLS cipher, a GC leader)
		}
		if StatusIsGauge(name) {
			r.Gauges[name] = v
		} else {
			r.Counters[name] = v
		}
	}
	return r, rows.Err()
}

// choose picks the variables: the plan's, or the defaults for the kind
// of server the source reads.
func (s *Status) choose(ctx context.Context) (map[string]bool, error) {
	vars := s.vars
	if vars == nil {
		var version string
		if err := s.db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version); err != nil {
			return nil, fmt.Errorf("the server's version: %w", err)
		}
		vars = MySQLStatus
		if strings.Contains(strings.ToLower(version), "tidb") {
			vars = TiDBStatus
		}
	}
	known := map[string]bool{}
	for _, v := range vars {
		known[strings.ToLower(v)] = true // servers differ in case (TiDB's are lower case)
	}
	return known, nil
}

// StatusIsGauge tells a status variable that stands for a current state
// from one that counts up since the server started.
func StatusIsGauge(name string) bool {
	n := strings.ToLower(name)
	switch {
	case n == "threads_created":
		return false
	case strings.HasPrefix(n, "threads_"), strings.HasPrefix(n, "open_"),
		strings.HasPrefix(n, "innodb_buffer_pool_bytes_"), strings.HasPrefix(n, "innodb_row_lock_current"),
		strings.HasPrefix(n, "innodb_buffer_pool_pages_") && n != "innodb_buffer_pool_pages_flushed":
		return true
	}
	switch n {
	case "max_used_connections", "uptime", "innodb_history_list_length", "memory_used", "ddl_schema_version",
		"innodb_checkpoint_age", "innodb_num_open_files", "prepared_stmt_count", "qcache_free_memory":
		return true
	}
	return false
}
