// Package sqltext writes values and names into SQL text: string literals
// and backquoted identifiers, as MySQL and its kin read them. The db
// module's core, its snapshots and its adapter use it; it is not API.
package sqltext

import "strings"

// QuoteString returns s as a single-quoted SQL string literal.
func QuoteString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\x00", `\0`, "\n", `\n`, "\r", `\r`, "\x1a", `\Z`)
	return "'" + r.Replace(s) + "'"
}

// QuoteIdent returns a backquoted identifier.
func QuoteIdent(name string) string {
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

// QuoteTableName quotes "table" or "schema.table".
func QuoteTableName(name string) string {
	if schema, table, ok := strings.Cut(name, "."); ok {
		return QuoteIdent(schema) + "." + QuoteIdent(table)
	}
	return QuoteIdent(name)
}
