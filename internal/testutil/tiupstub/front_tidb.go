package tiupstub

import (
	"context"
	"encoding/binary"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"
)

// The TiDB-only statements a Front answers besides the TiDB tables, so
// that a seed plan's TiDB procedure runs against a real server: each is
// rewritten into a statement the server behind answers with the shape TiDB
// documents, so the client gets a real server's packets.
//
//   - SET of TiDB's own variables (tidb_*, allow_auto_random_explicit_insert;
//     docs: system-variables), which MySQL and MariaDB do not know: recorded (Globals) and answered OK
//     (sent as DO 0). A SET that also names other variables is refused
//     (error 1105): a plan sets TiDB's apart. Reading them back (SELECT
//     @@tidb_x) is not modelled.
//   - SHOW CONFIG [LIKE 'type' | WHERE ...] (docs: sql-statement-show-config):
//     Type, Instance, Name, Value from Config (e.g. Stub.ClusterConfig),
//     read out of a table of the Front's schema, so that LIKE and WHERE
//     filter as on TiDB. With a Version before v4.0, where TiDB had no
//     SHOW CONFIG (it came in release-4.0), the statement goes to the
//     server as it is and fails there with a syntax error (1064), as
//     TiDB 3.0 answers it.
//   - ADMIN CHECKSUM TABLE t[, ...] (docs: sql-statement-admin-checksum-table):
//     Db_name, Table_name, Checksum_crc64_xor, Total_kvs, Total_bytes from
//     the server's data: the checksum is the server's CHECKSUM TABLE, the
//     KV count TiDB's (a record per row and an entry per row in each
//     secondary index), the bytes the rows' values' length; equal data
//     gives equal figures and changed data changed ones, but they never
//     equal a real cluster's.
//   - SELECT VERSION() and SELECT @@version answer Version when it is set
//     (TiDB's form, e.g. 5.7.25-TiDB-v5.2.0), so that a client takes the
//     server for TiDB; SELECT tidb_version() answers in TiDB v5's layout,
//     whose lines name no store (TiKV's, for a client).

// ConfigRow is a row of SHOW CONFIG.
type ConfigRow struct {
	Type, Instance, Name, Value string
}

var (
	setStatement    = regexp.MustCompile(`(?is)^\s*set\s+(.*?)\s*;?\s*$`)
	setAssignment   = regexp.MustCompile(`(?is)^(?:(global|session|local)\s+|@@(global|session|local)\.|@@)?` + "`?" + `([a-z0-9_]+)` + "`?" + `\s*(?:=|:=)\s*(.+)$`)
	showConfig      = regexp.MustCompile(`(?is)^\s*show\s+config\b(.*?)\s*;?\s*$`)
	adminChecksum   = regexp.MustCompile(`(?is)^\s*admin\s+checksum\s+table\s+(.+?)\s*;?\s*$`)
	selectVersion   = regexp.MustCompile(`(?is)^\s*select\s+(version\s*\(\s*\)|@@version|@@global\.version)` + columnAlias + `\s*;?\s*$`)
	selectTiDBVer   = regexp.MustCompile(`(?is)^\s*select\s+(tidb_version\s*\(\s*\))` + columnAlias + `\s*;?\s*$`)
	useStatement    = regexp.MustCompile("(?is)^\\s*use\\s+`?([^`;\\s]+)`?\\s*;?\\s*$")
	configTableCols = "Type VARCHAR(64), Instance VARCHAR(128), Name VARCHAR(255), Value TEXT"
)

// columnAlias matches an optional "AS name" after a selected expression;
// its group is the name.
const columnAlias = "(?:\\s+as\\s+`?([a-z0-9_]+)`?)?"

// columnName is the name a SELECT of expr [AS alias] gives its column.
func columnName(expr, alias string) string {
	if alias != "" {
		return alias
	}
	return strings.TrimSpace(expr)
}

// Globals are the TiDB variables the Front's clients set, by name (the
// last value, whatever the scope).
func (f *Front) Globals() map[string]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]string{}
	for k, v := range f.globals {
		out[k] = v
	}
	return out
}

// rewriteTiDB returns the statement to send the server for one of the
// TiDB-only statements above (text itself for any other), or an error
// the client gets.
func (r *relay) rewriteTiDB(text string) (string, error) {
	f := r.f
	if m := useStatement.FindStringSubmatch(text); m != nil {
		r.setDB(m[1])
		return text, nil
	}
	if m := setStatement.FindStringSubmatch(text); m != nil {
		return f.setVariables(m[1], text)
	}
	if m := showConfig.FindStringSubmatch(text); m != nil && !f.before4() {
		return f.showConfig(m[1])
	}
	if m := adminChecksum.FindStringSubmatch(text); m != nil {
		return f.adminChecksum(r.currentDB(), m[1])
	}
	if m := selectVersion.FindStringSubmatch(text); m != nil && f.Version != "" {
		return fmt.Sprintf("SELECT %s AS `%s`", quote(f.Version), columnName(m[1], m[2])), nil
	}
	if m := selectTiDBVer.FindStringSubmatch(text); m != nil && f.Version != "" {
		// TiDB v5's layout, which has no Store line (v6 and later add one).
		release := f.Version[strings.LastIndex(f.Version, "-")+1:]
		return fmt.Sprintf("SELECT %s AS `%s`", quote("Release Version: "+release+"\nEdition: Community\nGit Commit Hash: None\n"+
			"Git Branch: None\nUTC Build Time: None\nRace Enabled: false\nCheck Table Before Drop: false"), columnName(m[1], m[2])), nil
	}
	return text, nil
}

// setVariables answers a SET of TiDB's variables; any other SET goes on.
func (f *Front) setVariables(list, text string) (string, error) {
	var tidb, other []string
	values := map[string]string{}
	for _, a := range splitTopLevel(list) {
		m := setAssignment.FindStringSubmatch(strings.TrimSpace(a))
		if m == nil {
			return text, nil // not a plain assignment (SET NAMES, a user variable): the server's
		}
		name := strings.ToLower(m[3])
		if strings.HasPrefix(name, "tidb_") || name == "allow_auto_random_explicit_insert" { // conn.snapshot's on TiDB
			tidb = append(tidb, name)
			values[name] = strings.Trim(strings.TrimSpace(m[4]), "'\"")
		} else {
			other = append(other, name)
		}
	}
	if len(tidb) == 0 {
		return text, nil
	}
	if len(other) > 0 {
		return "", fmt.Errorf("a SET of TiDB's variables (%s) and others (%s) at once: set them apart", strings.Join(tidb, ", "), strings.Join(other, ", "))
	}
	f.mu.Lock()
	if f.globals == nil {
		f.globals = map[string]string{}
	}
	for k, v := range values {
		f.globals[k] = v
	}
	f.mu.Unlock()
	return "DO 0", nil
}

// showConfig fills the Front's cluster_config table from Config and reads
// it as SHOW CONFIG's filter asks.
func (f *Front) showConfig(filter string) (string, error) {
	var rows []ConfigRow
	if f.Config != nil {
		var err error
		if rows, err = f.Config(); err != nil {
			return "", err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tx, err := f.DB.BeginTx(ctx, nil)
	if err != nil {
		return "", err
	}
	defer tx.Rollback()
	table := "`" + f.Schema + "`.cluster_config"
	if _, err := tx.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS "+table+" ("+configTableCols+")"); err != nil {
		return "", err
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM "+table); err != nil {
		return "", err
	}
	for _, row := range rows {
		if _, err := tx.ExecContext(ctx, "INSERT INTO "+table+" VALUES (?, ?, ?, ?)", row.Type, row.Instance, row.Name, row.Value); err != nil {
			return "", err
		}
	}
	if err := tx.Commit(); err != nil {
		return "", err
	}
	q := "SELECT Type, Instance, Name, Value FROM " + table
	filter = strings.TrimSpace(filter)
	switch lower := strings.ToLower(filter); {
	case filter == "":
	case strings.HasPrefix(lower, "like "):
		q += " WHERE Type LIKE " + strings.TrimSpace(filter[len("like "):])
	case strings.HasPrefix(lower, "where "):
		q += " " + filter
	default:
		return "", fmt.Errorf("SHOW CONFIG takes LIKE 'type' or WHERE ..., not %q", filter)
	}
	return q + " ORDER BY Type, Instance, Name", nil
}

// adminChecksum computes each table's figures and answers them as one
// SELECT of constants.
func (f *Front) adminChecksum(currentDB, list string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var selects []string
	for _, name := range splitTopLevel(list) {
		db, table := currentDB, strings.Trim(strings.TrimSpace(name), "`")
		if d, t, ok := strings.Cut(table, "."); ok {
			db, table = strings.Trim(d, "`"), strings.Trim(t, "`")
		}
		if db == "" {
			return "", fmt.Errorf("no database selected for ADMIN CHECKSUM TABLE %s", table)
		}
		var cols []string
		rows, err := f.DB.QueryContext(ctx, "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION", db, table)
		if err != nil {
			return "", err
		}
		for rows.Next() {
			var c string
			if err := rows.Scan(&c); err != nil {
				rows.Close()
				return "", err
			}
			cols = append(cols, "`"+strings.ReplaceAll(c, "`", "``")+"`")
		}
		rows.Close()
		if len(cols) == 0 {
			return "", fmt.Errorf("Table '%s.%s' doesn't exist", db, table)
		}
		qualified := "`" + db + "`.`" + table + "`"
		var tableName string
		var checksum uint64
		if err := f.DB.QueryRowContext(ctx, "CHECKSUM TABLE "+qualified).Scan(&tableName, &checksum); err != nil {
			return "", err
		}
		var indexes, count, bytes int64
		if err := f.DB.QueryRowContext(ctx, "SELECT COUNT(DISTINCT INDEX_NAME) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND INDEX_NAME <> 'PRIMARY'", db, table).Scan(&indexes); err != nil {
			return "", err
		}
		if err := f.DB.QueryRowContext(ctx, "SELECT COUNT(*), COALESCE(SUM(LENGTH(CONCAT_WS('', "+strings.Join(cols, ", ")+"))), 0) FROM "+qualified).Scan(&count, &bytes); err != nil {
			return "", err
		}
		selects = append(selects, fmt.Sprintf("SELECT %s AS Db_name, %s AS Table_name, CAST(%d AS UNSIGNED) AS Checksum_crc64_xor, %d AS Total_kvs, %d AS Total_bytes",
			quote(db), quote(table), checksum, count*(1+indexes), bytes))
	}
	return strings.Join(selects, " UNION ALL "), nil
}

// setDB and currentDB follow the client's current database: the one its
// handshake named, COM_INIT_DB and USE.
func (r *relay) setDB(db string) {
	r.mu.Lock()
	r.db = db
	r.mu.Unlock()
}

func (r *relay) currentDB() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.db
}

// handshakeDB is the database a handshake response names (its
// CLIENT_CONNECT_WITH_DB field), "" when it names none.
func handshakeDB(p []byte) string {
	const (
		connectWithDB = 0x00000008
		secureConn    = 0x00008000
		lenencAuth    = 0x00200000
	)
	if len(p) < 32 {
		return ""
	}
	caps := binary.LittleEndian.Uint32(p)
	rest := p[32:]
	i := strings.IndexByte(string(rest), 0) // the user name
	if i < 0 {
		return ""
	}
	rest = rest[i+1:]
	switch {
	case caps&lenencAuth != 0:
		n, size := lengthEncoded(rest)
		if size == 0 || uint64(len(rest)) < uint64(size)+n {
			return ""
		}
		rest = rest[uint64(size)+n:]
	case caps&secureConn != 0:
		if len(rest) < 1 || len(rest) < 1+int(rest[0]) {
			return ""
		}
		rest = rest[1+int(rest[0]):]
	default:
		i := strings.IndexByte(string(rest), 0)
		if i < 0 {
			return ""
		}
		rest = rest[i+1:]
	}
	if caps&connectWithDB == 0 {
		return ""
	}
	if i := strings.IndexByte(string(rest), 0); i >= 0 {
		return string(rest[:i])
	}
	return string(rest)
}

// lengthEncoded decodes a length-encoded integer: its value and size (0
// when p is too short).
func lengthEncoded(p []byte) (uint64, int) {
	if len(p) == 0 {
		return 0, 0
	}
	switch b := p[0]; {
	case b < 0xfb:
		return uint64(b), 1
	case b == 0xfc && len(p) >= 3:
		return uint64(binary.LittleEndian.Uint16(p[1:])), 3
	case b == 0xfd && len(p) >= 4:
		return uint64(p[1]) | uint64(p[2])<<8 | uint64(p[3])<<16, 4
	case b == 0xfe && len(p) >= 9:
		return binary.LittleEndian.Uint64(p[1:]), 9
	}
	return 0, 0
}

// splitTopLevel splits a comma list outside quotes and parentheses.
func splitTopLevel(s string) []string {
	var out []string
	depth, start := 0, 0
	var quoteChar rune
	for i, c := range s {
		switch {
		case quoteChar != 0:
			if c == quoteChar {
				quoteChar = 0
			}
		case c == '\'' || c == '"' || c == '`':
			quoteChar = c
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == ',' && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// quote is a SQL string literal.
func quote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// ClusterConfig returns SHOW CONFIG's rows for a stand-in cluster: for
// each TiDB, TiKV and PD instance, the settings its topology gives
// (server_configs of its role, then its own config), flattened to dotted
// names; Instance is the instance's address (host:port, PD's client
// port). TiDB shows every setting of every instance; the stand-in knows
// only those the topology gives.
func (s *Stub) ClusterConfig(cluster string) func() ([]ConfigRow, error) {
	return func() ([]ConfigRow, error) {
		topo, err := state{home: s.Home}.topology(cluster)
		if err != nil {
			return nil, err
		}
		sections := map[string]configMap{"tidb": topo.spec.ServerConfigs.TiDB, "tikv": topo.spec.ServerConfigs.TiKV, "pd": topo.spec.ServerConfigs.PD}
		var out []ConfigRow
		for _, c := range components {
			base, ok := sections[c.name]
			if !ok {
				continue
			}
			for _, spec := range topo.spec.servers(c) {
				in := instance(c, spec)
				settings := map[string]string{}
				flatten("", map[string]any(base), settings)
				if own, ok := fieldByYAML(spec, "config").Interface().(configMap); ok {
					flatten("", map[string]any(own), settings)
				}
				names := make([]string, 0, len(settings))
				for n := range settings {
					names = append(names, n)
				}
				sort.Strings(names)
				for _, n := range names {
					out = append(out, ConfigRow{Type: c.name, Instance: fmt.Sprintf("%s:%d", in.Host, in.Port), Name: n, Value: settings[n]})
				}
			}
		}
		return out, nil
	}
}

// flatten writes a configuration's settings with dotted names, values as
// TiDB prints them.
func flatten(prefix string, m map[string]any, out map[string]string) {
	for k, v := range m {
		name := k
		if prefix != "" {
			name = prefix + "." + k
		}
		switch v := v.(type) {
		case map[string]any:
			flatten(name, v, out)
		case configMap:
			flatten(name, map[string]any(v), out)
		case nil:
			out[name] = ""
		default:
			out[name] = fmt.Sprint(v)
		}
	}
}

// before4 reports whether the Front answers as a TiDB release before
// v4.0 (its Version's "-TiDB-v3.0.5").
func (f *Front) before4() bool {
	_, release, ok := strings.Cut(f.Version, "-TiDB-v")
	major, _, _ := strings.Cut(release, ".")
	return ok && len(major) == 1 && major < "4"
}
