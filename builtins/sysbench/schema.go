package sysbench

import (
	"fmt"
	"strconv"
)

// Value templates of sysbench's c and pad columns: groups of 11 random
// digits joined by dashes ('#' is a digit, '@' a lowercase letter).
const (
	CTemplate   = "###########-###########-###########-###########-###########-###########-###########-###########-###########-###########"
	PadTemplate = "###########-###########-###########-###########-###########"
)

// TableName is sbtest<n>, n counted from 1.
func TableName(n int) string { return fmt.Sprintf("sbtest%d", n) }

// TableNames lists sbtest1..sbtest<n>.
func TableNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = TableName(i + 1)
	}
	return names
}

// CreateTableSQL is oltp_common's table definition.
func CreateTableSQL(o *Options, n int) string {
	idDef := "INTEGER NOT NULL AUTO_INCREMENT"
	switch {
	case o.AutoRandom:
		idDef = "BIGINT NOT NULL AUTO_RANDOM"
	case !o.AutoInc:
		idDef = "INTEGER NOT NULL"
	}
	keyDef := "PRIMARY KEY"
	if o.Secondary {
		keyDef = "KEY xid"
	}
	return fmt.Sprintf("CREATE TABLE %s(\n  id %s,\n  k INTEGER DEFAULT '0' NOT NULL,\n  c CHAR(120) DEFAULT '' NOT NULL,\n  pad CHAR(60) DEFAULT '' NOT NULL,\n  %s (id)\n) /*! ENGINE = %s */ %s",
		TableName(n), idDef, keyDef, o.StorageEngine, o.CreateTableOptions)
}

// LegacyCreateTableSQL is oltp_legacy/common.lua's table definition.
func LegacyCreateTableSQL(o *Options, n int) string {
	id := "INTEGER UNSIGNED NOT NULL AUTO_INCREMENT"
	switch {
	case o.AutoRandom:
		id = "BIGINT NOT NULL AUTO_RANDOM"
	case !o.AutoInc:
		id = "INTEGER UNSIGNED NOT NULL"
	}
	keyDef := "PRIMARY KEY (id)"
	if o.Secondary {
		keyDef = "KEY xid (id)"
	}
	return fmt.Sprintf("CREATE TABLE sbtest%d (\nid %s,\nk INTEGER UNSIGNED DEFAULT '0' NOT NULL,\nc CHAR(120) DEFAULT '' NOT NULL,\npad CHAR(60) DEFAULT '' NOT NULL,\n%s\n) /*! ENGINE = %s MAX_ROWS = 1000000 */ %s",
		n, id, keyDef, o.StorageEngine, o.CreateTableOptions)
}

// LegacyBulkTableSQL is oltp_legacy/bulk_insert.lua's table.
func LegacyBulkTableSQL(n int) string {
	return fmt.Sprintf("CREATE TABLE IF NOT EXISTS sbtest%d (\nid INTEGER UNSIGNED NOT NULL,\nk INTEGER UNSIGNED DEFAULT '0' NOT NULL,\nPRIMARY KEY (id)\n) ENGINE = InnoDB", n)
}

// CreateIndexSQL is the secondary index created after loading.
func CreateIndexSQL(n int) string { return fmt.Sprintf("CREATE INDEX k_%d ON sbtest%d(k)", n, n) }

// InsertHeader starts prepare's multi-row INSERT.
func InsertHeader(o *Options, n int) string {
	if o.AutoInc || o.AutoRandom {
		return fmt.Sprintf("INSERT INTO sbtest%d(k, c, pad) VALUES", n)
	}
	return fmt.Sprintf("INSERT INTO sbtest%d(id, k, c, pad) VALUES", n)
}

// appendRow appends one prepare row, (id, k, 'c', 'pad') or without id
// for auto-increment tables, drawing c and pad from rng.
func appendRow(b []byte, o *Options, rng *Rand, id, k int64) []byte {
	b = append(b, '(')
	if !o.AutoInc && !o.AutoRandom {
		b = strconv.AppendInt(b, id, 10)
		b = append(b, ", "...)
	}
	b = strconv.AppendInt(b, k, 10)
	b = append(b, ", '"...)
	b = rng.AppendString(b, CTemplate)
	b = append(b, "', '"...)
	b = rng.AppendString(b, PadTemplate)
	return append(b, "')"...)
}

// BulkTableSQL is bulk_insert.lua's table: sbtest<n>(id, k).
func BulkTableSQL(n int) string {
	return fmt.Sprintf("CREATE TABLE IF NOT EXISTS sbtest%d (\n  id INTEGER NOT NULL,\n  k INTEGER DEFAULT '0' NOT NULL,\n  PRIMARY KEY (id))", n)
}
