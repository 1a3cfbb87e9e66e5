package tidbsql

import (
	"regexp"
	"strings"
)

// TiDB's AUTO_RANDOM column attribute (docs: auto-random; v4.0 on):
// `id BIGINT NOT NULL AUTO_RANDOM[(S[, R])]` on the clustered primary key
// makes TiDB allocate ids with S shard bits (5 by default) above a
// counter. The stand-in takes the DDL, which the engine behind it does
// not know: it checks the column is a BIGINT primary key, as TiDB does
// (error 8216, TiDB's wording), and hands the engine the table without
// the attribute, a plain BIGINT key. It does not allocate ids: the seeds'
// inserts go to a real server, the stand-in takes the TiDB-only
// statements (the DDL, SPLIT TABLE, the region tables).
var (
	createTable     = regexp.MustCompile(`(?is)^\s*create\s+table\b`)
	autoRandomAttr  = regexp.MustCompile(`(?i)\s*\bauto_random\b(\s*\(\s*\d+\s*(,\s*\d+\s*)?\))?`)
	autoRandomCol   = regexp.MustCompile("(?is)[(,]\\s*`?(\\w+)`?\\s+(\\w+)[^,]*?\\bauto_random\\b")
	primaryKeyOfCol = func(col string) *regexp.Regexp {
		return regexp.MustCompile("(?is)\\bprimary\\s+key\\s*\\(\\s*`?" + regexp.QuoteMeta(col) + "`?\\s*\\)")
	}
	inlinePrimary = regexp.MustCompile(`(?is)[(,]\s*` + "`?(\\w+)`?" + `\s+\w+[^,]*?\bauto_random\b[^,]*?\bprimary\s+key\b`)
)

// withoutAutoRandom returns a CREATE TABLE without its AUTO_RANDOM
// attribute for the engine (query itself when it has none), or TiDB's
// error when the column cannot take it.
func withoutAutoRandom(query string) (string, error) {
	if !createTable.MatchString(query) || !autoRandomAttr.MatchString(query) {
		return query, nil
	}
	m := autoRandomCol.FindStringSubmatch(query)
	if m == nil {
		return "", sqlError(8216, "HY000", "Invalid auto random: auto_random is not a column attribute here")
	}
	col, typ := m[1], strings.ToLower(m[2])
	if typ != "bigint" {
		return "", sqlError(8216, "HY000", "Invalid auto random: auto_random option must be defined on `bigint` column, but not on `%s` column", typ)
	}
	if !primaryKeyOfCol(col).MatchString(query) && !inlinePrimary.MatchString(query) {
		return "", sqlError(8216, "HY000", "Invalid auto random: auto_random is only supported on the tables with clustered primary key")
	}
	return autoRandomAttr.ReplaceAllString(query, ""), nil
}
