// Package tpcc is the TPC-C workload family's core, without Starlark: the
// nine tables (in go-tpc's layout, or BenchmarkSQL's bmsql_ one), their
// data as the TPC-C specification generates it, the five transactions as
// a bench.Workload, and the consistency checks. Plans reach it through
// tpccstar; `starbench tpcc` takes go-tpc's flags or a BenchmarkSQL
// props file.
package tpcc

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Table names (go-tpc's layout).
const (
	Warehouse = "warehouse"
	District  = "district"
	Customer  = "customer"
	History   = "history"
	NewOrder  = "new_order"
	Orders    = "orders"
	OrderLine = "order_line"
	Item      = "item"
	Stock     = "stock"
)

// Tables lists the nine tables in the order they are created and loaded
// (item first: it does not depend on the warehouses).
var Tables = []string{Item, Warehouse, District, Customer, History, NewOrder, Orders, OrderLine, Stock}

// Schema creates the tables: go-tpc's layout (its column names, types,
// keys and indexes), each table HASH-partitioned by warehouse when parts
// is more than 1, as go-tpc's --parts does.
type Schema struct {
	Parts  int
	Layout Layout
}

// tableDDL is each table's CREATE TABLE body (columns, keys, indexes) and
// the column it is partitioned by ("" for item, which is not).
var tableDDL = map[string]struct{ body, partitionBy string }{
	Warehouse: {`w_id INT NOT NULL,
  w_name VARCHAR(10),
  w_street_1 VARCHAR(20),
  w_street_2 VARCHAR(20),
  w_city VARCHAR(20),
  w_state CHAR(2),
  w_zip CHAR(9),
  w_tax DECIMAL(4, 4),
  w_ytd DECIMAL(12, 2),
  PRIMARY KEY (w_id)`, "w_id"},
	District: {`d_id INT NOT NULL,
  d_w_id INT NOT NULL,
  d_name VARCHAR(10),
  d_street_1 VARCHAR(20),
  d_street_2 VARCHAR(20),
  d_city VARCHAR(20),
  d_state CHAR(2),
  d_zip CHAR(9),
  d_tax DECIMAL(4, 4),
  d_ytd DECIMAL(12, 2),
  d_next_o_id INT,
  PRIMARY KEY (d_w_id, d_id)`, "d_w_id"},
	Customer: {`c_id INT NOT NULL,
  c_d_id INT NOT NULL,
  c_w_id INT NOT NULL,
  c_first VARCHAR(16),
  c_middle CHAR(2),
  c_last VARCHAR(16),
  c_street_1 VARCHAR(20),
  c_street_2 VARCHAR(20),
  c_city VARCHAR(20),
  c_state CHAR(2),
  c_zip CHAR(9),
  c_phone CHAR(16),
  c_since DATETIME,
  c_credit CHAR(2),
  c_credit_lim DECIMAL(12, 2),
  c_discount DECIMAL(4, 4),
  c_balance DECIMAL(12, 2),
  c_ytd_payment DECIMAL(12, 2),
  c_payment_cnt INT,
  c_delivery_cnt INT,
  c_data VARCHAR(500),
  PRIMARY KEY (c_w_id, c_d_id, c_id),
  INDEX idx_customer (c_w_id, c_d_id, c_last, c_first)`, "c_w_id"},
	History: {`h_c_id INT NOT NULL,
  h_c_d_id INT NOT NULL,
  h_c_w_id INT NOT NULL,
  h_d_id INT NOT NULL,
  h_w_id INT NOT NULL,
  h_date DATETIME,
  h_amount DECIMAL(6, 2),
  h_data VARCHAR(24),
  INDEX idx_h_w_id (h_w_id),
  INDEX idx_h_c_w_id (h_c_w_id)`, "h_w_id"},
	NewOrder: {`no_o_id INT NOT NULL,
  no_d_id INT NOT NULL,
  no_w_id INT NOT NULL,
  PRIMARY KEY (no_w_id, no_d_id, no_o_id)`, "no_w_id"},
	Orders: {`o_id INT NOT NULL,
  o_d_id INT NOT NULL,
  o_w_id INT NOT NULL,
  o_c_id INT,
  o_entry_d DATETIME,
  o_carrier_id INT,
  o_ol_cnt INT,
  o_all_local INT,
  PRIMARY KEY (o_w_id, o_d_id, o_id),
  INDEX idx_order (o_w_id, o_d_id, o_c_id, o_id)`, "o_w_id"},
	OrderLine: {`ol_o_id INT NOT NULL,
  ol_d_id INT NOT NULL,
  ol_w_id INT NOT NULL,
  ol_number INT NOT NULL,
  ol_i_id INT NOT NULL,
  ol_supply_w_id INT,
  ol_delivery_d DATETIME,
  ol_quantity INT,
  ol_amount DECIMAL(6, 2),
  ol_dist_info CHAR(24),
  PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number)`, "ol_w_id"},
	Stock: {`s_i_id INT NOT NULL,
  s_w_id INT NOT NULL,
  s_quantity INT,
  s_dist_01 CHAR(24),
  s_dist_02 CHAR(24),
  s_dist_03 CHAR(24),
  s_dist_04 CHAR(24),
  s_dist_05 CHAR(24),
  s_dist_06 CHAR(24),
  s_dist_07 CHAR(24),
  s_dist_08 CHAR(24),
  s_dist_09 CHAR(24),
  s_dist_10 CHAR(24),
  s_ytd INT,
  s_order_cnt INT,
  s_remote_cnt INT,
  s_data VARCHAR(50),
  PRIMARY KEY (s_w_id, s_i_id)`, "s_w_id"},
	Item: {`i_id INT NOT NULL,
  i_im_id INT,
  i_name VARCHAR(24),
  i_price DECIMAL(5, 2),
  i_data VARCHAR(50),
  PRIMARY KEY (i_id)`, ""},
}

// CreateTableSQL is a table's CREATE TABLE statement in the schema's
// layout (table is go-tpc's name; BenchmarkSQLConfig for BenchmarkSQL's
// tenth table).
func (s Schema) CreateTableSQL(table string) (string, error) {
	ddl := tableDDL
	if s.Layout == BenchmarkSQLLayout {
		ddl = bmsqlDDL
	}
	d, ok := ddl[table]
	if !ok {
		return "", fmt.Errorf("no TPC-C table %q (tables: %s)", table, strings.Join(Tables, ", "))
	}
	q := "CREATE TABLE " + s.Layout.Table(table) + " (\n  " + d.body + "\n)"
	if s.Parts > 1 && d.partitionBy != "" {
		q += fmt.Sprintf("\nPARTITION BY HASH(%s)\nPARTITIONS %d", d.partitionBy, s.Parts)
	}
	return q, nil
}

// Layout is whose table layout the tables follow: go-tpc's, or
// BenchmarkSQL's, so that a database either tool loaded can be run.
type Layout int

const (
	// GoTPCLayout is go-tpc's: warehouse, district, ..., orders, ...
	GoTPCLayout Layout = iota
	// BenchmarkSQLLayout is BenchmarkSQL 5's for MySQL (its
	// tableCreates.sql and indexCreates.sql): bmsql_ names, orders as
	// bmsql_oorder, its column order and indexes, history keyed by an
	// AUTO_INCREMENT hist_id, TIMESTAMP columns, and bmsql_config holding
	// the load's warehouses and NURand constants.
	BenchmarkSQLLayout
)

// BenchmarkSQLConfig is BenchmarkSQL's tenth table (cfg_name, cfg_value).
const BenchmarkSQLConfig = "bmsql_config"

// ParseLayout reads "go-tpc" or "benchmarksql" ("" is go-tpc).
func ParseLayout(name string) (Layout, error) {
	switch strings.ToLower(name) {
	case "", "go-tpc", "gotpc":
		return GoTPCLayout, nil
	case "benchmarksql", "bmsql":
		return BenchmarkSQLLayout, nil
	}
	return 0, fmt.Errorf("layout must be \"go-tpc\" or \"benchmarksql\", not %q", name)
}

func (l Layout) String() string {
	if l == BenchmarkSQLLayout {
		return "BenchmarkSQL"
	}
	return "go-tpc"
}

// Table is a table's name in the layout; t is go-tpc's name.
func (l Layout) Table(t string) string {
	switch {
	case l != BenchmarkSQLLayout || t == BenchmarkSQLConfig:
		return t
	case t == Orders:
		return "bmsql_oorder"
	}
	return "bmsql_" + t
}

// DropOrder is the layout's tables (by go-tpc's names) in an order that
// drops every table before those it references: BenchmarkSQL's
// runDatabaseBuild.sh adds foreign keys (foreignKeys.sql), which go-tpc's
// tables may have too. The order of BenchmarkSQL's tableDrops.sql.
func (l Layout) DropOrder() []string {
	order := []string{NewOrder, OrderLine, Orders, History, Customer, Stock, Item, District, Warehouse}
	if l == BenchmarkSQLLayout {
		return append([]string{BenchmarkSQLConfig}, order...)
	}
	return order
}

// Tables are the layout's tables in the order they are created, by
// go-tpc's names (BenchmarkSQL's adds BenchmarkSQLConfig).
func (l Layout) Tables() []string {
	if l == BenchmarkSQLLayout {
		return append(slices.Clone(Tables), BenchmarkSQLConfig)
	}
	return Tables
}

// tableWordRe finds go-tpc's table names in its statements.
var tableWordRe = regexp.MustCompile(`\b(warehouse|district|customer|history|new_order|orders|order_line|item|stock)\b`)

// SQL is a statement written for go-tpc's tables, naming the layout's.
// (Both layouts have the same column names.)
func (l Layout) SQL(q string) string {
	if l != BenchmarkSQLLayout {
		return q
	}
	return tableWordRe.ReplaceAllStringFunc(q, l.Table)
}

// Columns are a table's column names in the layout, in order; t is
// go-tpc's name.
func (l Layout) Columns(t string) []string {
	ddl := tableDDL
	if l == BenchmarkSQLLayout {
		ddl = bmsqlDDL
	}
	d, ok := ddl[t]
	if !ok {
		return nil
	}
	var cols []string
	for _, line := range strings.Split(d.body, "\n") {
		name, _, _ := strings.Cut(strings.TrimSpace(line), " ")
		switch name {
		case "", "PRIMARY", "INDEX", "UNIQUE", "KEY":
			continue
		}
		cols = append(cols, name)
	}
	return cols
}

// bmsqlDDL is BenchmarkSQL's layout of each table (by go-tpc's name):
// the columns, keys and indexes of run/sql.mysql/tableCreates.sql on the
// branch TiDB's TPC-C guide builds (pingcap/benchmarksql
// 5.0-mysql-support-opt-2.1), bmsql_oorder_idx1 on o_c_id as Order-Status
// reads it (older BenchmarkSQL has o_carrier_id there, and Order-Status
// then reads a district's orders to find a customer's). It has no
// partitioned form here.
var bmsqlDDL = map[string]struct{ body, partitionBy string }{
	Warehouse: {`w_id INT NOT NULL,
  w_ytd DECIMAL(12, 2),
  w_tax DECIMAL(4, 4),
  w_name VARCHAR(10),
  w_street_1 VARCHAR(20),
  w_street_2 VARCHAR(20),
  w_city VARCHAR(20),
  w_state CHAR(2),
  w_zip CHAR(9),
  PRIMARY KEY (w_id)`, ""},
	District: {`d_w_id INT NOT NULL,
  d_id INT NOT NULL,
  d_ytd DECIMAL(12, 2),
  d_tax DECIMAL(4, 4),
  d_next_o_id INT,
  d_name VARCHAR(10),
  d_street_1 VARCHAR(20),
  d_street_2 VARCHAR(20),
  d_city VARCHAR(20),
  d_state CHAR(2),
  d_zip CHAR(9),
  PRIMARY KEY (d_w_id, d_id)`, ""},
	Customer: {`c_w_id INT NOT NULL,
  c_d_id INT NOT NULL,
  c_id INT NOT NULL,
  c_discount DECIMAL(4, 4),
  c_credit CHAR(2),
  c_last VARCHAR(16),
  c_first VARCHAR(16),
  c_credit_lim DECIMAL(12, 2),
  c_balance DECIMAL(12, 2),
  c_ytd_payment DECIMAL(12, 2),
  c_payment_cnt INT,
  c_delivery_cnt INT,
  c_street_1 VARCHAR(20),
  c_street_2 VARCHAR(20),
  c_city VARCHAR(20),
  c_state CHAR(2),
  c_zip CHAR(9),
  c_phone CHAR(16),
  c_since TIMESTAMP NULL,
  c_middle CHAR(2),
  c_data VARCHAR(500),
  PRIMARY KEY (c_w_id, c_d_id, c_id),
  INDEX bmsql_customer_idx1 (c_w_id, c_d_id, c_last, c_first)`, ""},
	History: {`hist_id INT NOT NULL AUTO_INCREMENT,
  h_c_id INT,
  h_c_d_id INT,
  h_c_w_id INT,
  h_d_id INT,
  h_w_id INT,
  h_date TIMESTAMP NULL,
  h_amount DECIMAL(6, 2),
  h_data VARCHAR(24),
  PRIMARY KEY (hist_id)`, ""},
	NewOrder: {`no_w_id INT NOT NULL,
  no_d_id INT NOT NULL,
  no_o_id INT NOT NULL,
  PRIMARY KEY (no_w_id, no_d_id, no_o_id)`, ""},
	Orders: {`o_w_id INT NOT NULL,
  o_d_id INT NOT NULL,
  o_id INT NOT NULL,
  o_c_id INT,
  o_carrier_id INT,
  o_ol_cnt INT,
  o_all_local INT,
  o_entry_d TIMESTAMP NULL,
  PRIMARY KEY (o_w_id, o_d_id, o_id),
  UNIQUE INDEX bmsql_oorder_idx1 (o_w_id, o_d_id, o_c_id, o_id)`, ""},
	OrderLine: {`ol_w_id INT NOT NULL,
  ol_d_id INT NOT NULL,
  ol_o_id INT NOT NULL,
  ol_number INT NOT NULL,
  ol_i_id INT NOT NULL,
  ol_delivery_d TIMESTAMP NULL,
  ol_amount DECIMAL(6, 2),
  ol_supply_w_id INT,
  ol_quantity INT,
  ol_dist_info CHAR(24),
  PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number)`, ""},
	Item: {`i_id INT NOT NULL,
  i_name VARCHAR(24),
  i_price DECIMAL(5, 2),
  i_data VARCHAR(50),
  i_im_id INT,
  PRIMARY KEY (i_id)`, ""},
	Stock: {`s_w_id INT NOT NULL,
  s_i_id INT NOT NULL,
  s_quantity INT,
  s_ytd INT,
  s_order_cnt INT,
  s_remote_cnt INT,
  s_data VARCHAR(50),
  s_dist_01 CHAR(24),
  s_dist_02 CHAR(24),
  s_dist_03 CHAR(24),
  s_dist_04 CHAR(24),
  s_dist_05 CHAR(24),
  s_dist_06 CHAR(24),
  s_dist_07 CHAR(24),
  s_dist_08 CHAR(24),
  s_dist_09 CHAR(24),
  s_dist_10 CHAR(24),
  PRIMARY KEY (s_w_id, s_i_id)`, ""},
	BenchmarkSQLConfig: {`cfg_name VARCHAR(30) NOT NULL,
  cfg_value VARCHAR(50),
  PRIMARY KEY (cfg_name)`, ""},
}
