package tpcc

import (
	"fmt"
	"io"
	"maps"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/magiconair/properties"
)

// Props is what starbench takes from a BenchmarkSQL props file
// (props.mysql): the connection, the size, the load and run threads, how
// long the run is, the transaction weights, whether each terminal keeps
// one warehouse, and the rate limit.
type Props struct {
	Host, DB, User, Password string
	Port                     int
	Params                   map[string]string // session variables from the JDBC URL's sessionVariables
	ConnectTimeout           time.Duration     // the JDBC URL's connectTimeout (ms); 0: the default
	Warehouses               int
	LoadWorkers              int           // prepare's threads
	Terminals                int           // run's threads
	RunTime                  time.Duration // runMins
	TxnsPerTerminal          int64         // runTxnsPerTerminal
	Weights                  Weights
	WarehouseFixed           bool     // terminalWarehouseFixed: each terminal keeps one home warehouse
	TxnsPerMin               int      // limitTxnsPerMin: 0 unlimited
	Ignored                  []string // keys BenchmarkSQL knows that starbench does not use
	Notes                    []string // what starbench does with the JDBC URL's parameters
	Warnings                 []string // unknown keys, with the nearest known one
}

// Weights are the shares of the five transactions in percent, in the
// order of Kinds: New-Order, Payment, Order-Status, Delivery, Stock-Level.
type Weights [5]int

// DefaultWeights are the specification's mix: 45/43/4/4/4.
var DefaultWeights = Weights{45, 43, 4, 4, 4}

// propsKeys are the keys starbench reads; propsIgnored the ones BenchmarkSQL
// knows that it does not use (its result files, its OS collector, its JDBC
// driver name).
var (
	propsKeys = []string{"conn", "user", "password", "warehouses", "loadWorkers", "terminals", "runMins",
		"runTxnsPerTerminal", "newOrderWeight", "paymentWeight", "orderStatusWeight", "deliveryWeight", "stockLevelWeight",
		"terminalWarehouseFixed", "limitTxnsPerMin"}
	propsIgnored = []string{"db", "driver", "resultDirectory", "osCollectorScript", "osCollectorInterval",
		"osCollectorSSHAddr", "osCollectorDevices"}
)

// ReadProps reads a props file as Java reads a .properties file (key=value,
// key: value or key value; # and ! comments; a line ending in \ goes on on
// the next; \ escapes), as BenchmarkSQL does. Its sample files' "//" lines
// are keys to Java that BenchmarkSQL never reads: they are skipped here.
func ReadProps(r io.Reader, name string) (*Props, error) {
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	lines := strings.Split(string(raw), "\n")
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "//") && !continued(lines, i) {
			lines[i] = ""
		}
	}
	loader := &properties.Loader{Encoding: properties.ISO_8859_1, DisableExpansion: true}
	props, err := loader.LoadBytes([]byte(strings.Join(lines, "\n")))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	values := map[string]string{}
	p := &Props{Weights: DefaultWeights, Port: 3306}
	for _, key := range props.Keys() {
		value, _ := props.Get(key)
		switch {
		case oneOf(propsKeys, key):
			values[key] = strings.TrimSpace(value)
		case oneOf(propsIgnored, key):
			p.Ignored = append(p.Ignored, key)
		default:
			p.Warnings = append(p.Warnings, fmt.Sprintf("%s:%d: unknown key %q (did you mean %q?)", name, lineOf(lines, key), key, nearest(key)))
		}
	}
	if err := p.set(values); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	sort.Strings(p.Ignored)
	return p, nil
}

// continued says whether line i is the continuation of the line before
// (which ends in an odd number of backslashes).
func continued(lines []string, i int) bool {
	if i == 0 {
		return false
	}
	prev := strings.TrimRight(lines[i-1], "\r")
	n := len(prev) - len(strings.TrimRight(prev, "\\"))
	return n%2 == 1
}

// lineOf is the line (1-based) where key is set; 0 when it is not found.
func lineOf(lines []string, key string) int {
	for i, l := range lines {
		l = strings.TrimLeft(l, " \t\f")
		if rest, ok := strings.CutPrefix(l, key); ok && (rest == "" || strings.ContainsRune("=: \t\f\r", rune(rest[0]))) {
			return i + 1
		}
	}
	return 0
}

// set reads the values of the keys starbench uses.
func (p *Props) set(values map[string]string) error {
	conn, ok := values["conn"]
	if !ok {
		return fmt.Errorf("no conn (a JDBC URL, jdbc:mysql://host:port/db)")
	}
	u, err := url.Parse(strings.TrimPrefix(conn, "jdbc:"))
	if err != nil || u.Scheme != "mysql" || u.Hostname() == "" {
		return fmt.Errorf("conn %q is not a MySQL JDBC URL (jdbc:mysql://host:port/db)", conn)
	}
	p.Host, p.DB = u.Hostname(), strings.TrimPrefix(u.Path, "/")
	if port := u.Port(); port != "" {
		if p.Port, err = strconv.Atoi(port); err != nil {
			return fmt.Errorf("conn %q: port %q", conn, port)
		}
	}
	p.User, p.Password = values["user"], values["password"]
	ints := map[string]*int{"warehouses": &p.Warehouses, "loadWorkers": &p.LoadWorkers, "terminals": &p.Terminals,
		"newOrderWeight": &p.Weights[0], "paymentWeight": &p.Weights[1], "orderStatusWeight": &p.Weights[2],
		"deliveryWeight": &p.Weights[3], "stockLevelWeight": &p.Weights[4]}
	for key, dst := range ints {
		if v, ok := values[key]; ok {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return fmt.Errorf("%s = %q is not a whole number", key, v)
			}
			*dst = n
		}
	}
	// BenchmarkSQL reads these with Integer.parseInt: whole numbers only.
	var mins, txns int
	for key, dst := range map[string]*int{"runMins": &mins, "runTxnsPerTerminal": &txns, "limitTxnsPerMin": &p.TxnsPerMin} {
		if v, ok := values[key]; ok {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return fmt.Errorf("%s = %q is not a whole number (BenchmarkSQL reads it as an integer)", key, v)
			}
			*dst = n
		}
	}
	p.RunTime, p.TxnsPerTerminal = time.Duration(mins)*time.Minute, int64(txns)
	// Java's Boolean.parseBoolean: "true" in any case, anything else false.
	p.WarehouseFixed = strings.EqualFold(values["terminalWarehouseFixed"], "true")
	if err := p.readURLParams(conn, u.Query()); err != nil {
		return err
	}
	return p.check()
}

// jdbcParam is what starbench does with a MySQL Connector/J URL parameter.
type jdbcParam int

const (
	jdbcNoEffect jdbcParam = iota // the driver's own caching, batching or logging: no effect on what the server is sent to run
	jdbcSameHere                  // what starbench does anyway
	jdbcApplied                   // read: sessionVariables, connectTimeout
)

// jdbcParams are the Connector/J parameters the props files of BenchmarkSQL
// and TiDB's guides use, by name; any other is refused, so that none that
// changes the run passes unnoticed.
var jdbcParams = map[string]jdbcParam{
	"useSSL": jdbcNoEffect, "requireSSL": jdbcNoEffect, "verifyServerCertificate": jdbcNoEffect, "sslMode": jdbcNoEffect, // checked below
	"useServerPrepStmts": jdbcSameHere, "cachePrepStmts": jdbcNoEffect, "prepStmtCacheSize": jdbcNoEffect,
	"prepStmtCacheSqlLimit": jdbcNoEffect, "rewriteBatchedStatements": jdbcNoEffect, "useConfigs": jdbcNoEffect,
	"useLocalSessionState": jdbcNoEffect, "useLocalTransactionState": jdbcNoEffect, "cacheServerConfiguration": jdbcNoEffect,
	"cacheResultSetMetadata": jdbcNoEffect, "cacheCallableStmts": jdbcNoEffect, "elideSetAutoCommits": jdbcNoEffect,
	"maintainTimeStats": jdbcNoEffect, "alwaysSendSetIsolation": jdbcNoEffect, "useUnicode": jdbcNoEffect,
	"characterEncoding": jdbcNoEffect, "serverTimezone": jdbcNoEffect, "allowPublicKeyRetrieval": jdbcNoEffect,
	"autoReconnect": jdbcSameHere, "socketTimeout": jdbcNoEffect, "allowMultiQueries": jdbcNoEffect,
	"sessionVariables": jdbcApplied, "connectTimeout": jdbcApplied,
}

// readURLParams takes the JDBC URL's parameters by name: refused when
// starbench cannot do what they ask (TLS) or does not know them, applied
// (session variables, the connect timeout), or noted.
func (p *Props) readURLParams(conn string, q url.Values) error {
	var unknown, noEffect, same []string
	for _, name := range slices.Sorted(maps.Keys(q)) {
		v := q.Get(name)
		kind, ok := jdbcParams[name]
		switch {
		case !ok:
			unknown = append(unknown, name)
		case name == "useSSL" || name == "requireSSL" || name == "verifyServerCertificate":
			if strings.EqualFold(v, "true") {
				return fmt.Errorf("conn: %s=true asks for TLS, which a props file cannot set up here: give --target with a DSN and tls=... instead", name)
			}
			noEffect = append(noEffect, name+"="+v)
		case name == "sslMode":
			if !strings.EqualFold(v, "DISABLED") {
				return fmt.Errorf("conn: sslMode=%s asks for TLS, which a props file cannot set up here: give --target with a DSN and tls=... instead", v)
			}
			noEffect = append(noEffect, name+"="+v)
		case name == "sessionVariables":
			p.Params = map[string]string{}
			for _, kv := range strings.Split(v, ",") {
				k, val, ok := strings.Cut(kv, "=")
				if !ok || strings.TrimSpace(k) == "" {
					return fmt.Errorf("conn: sessionVariables %q: want name=value,name=value", v)
				}
				p.Params[strings.TrimSpace(k)] = strings.TrimSpace(val)
			}
			p.Notes = append(p.Notes, "sessionVariables: set on every connection ("+v+")")
		case name == "connectTimeout":
			ms, err := strconv.Atoi(v)
			if err != nil || ms < 0 {
				return fmt.Errorf("conn: connectTimeout=%q is not a whole number of milliseconds", v)
			}
			p.ConnectTimeout = time.Duration(ms) * time.Millisecond
		case kind == jdbcSameHere:
			same = append(same, name+"="+v)
		default:
			noEffect = append(noEffect, name+"="+v)
		}
	}
	if len(unknown) > 0 {
		return fmt.Errorf("conn %q: unknown JDBC parameters %s (known: %s): starbench refuses what it cannot tell the effect of", conn,
			strings.Join(unknown, ", "), strings.Join(slices.Sorted(maps.Keys(jdbcParams)), ", "))
	}
	if len(same) > 0 {
		p.Notes = append(p.Notes, strings.Join(same, ", ")+": what starbench does anyway (server-side prepared statements, reconnecting)")
	}
	if len(noEffect) > 0 {
		p.Notes = append(p.Notes, strings.Join(noEffect, ", ")+": the Java driver's own settings, without effect here")
	}
	return nil
}

// check applies BenchmarkSQL's own rules.
func (p *Props) check() error {
	switch {
	case p.Warehouses < 1:
		return fmt.Errorf("warehouses must be at least 1")
	case (p.RunTime > 0) == (p.TxnsPerTerminal > 0):
		return fmt.Errorf("give one of runMins and runTxnsPerTerminal, and the other 0 (BenchmarkSQL's rule)")
	}
	sum := 0
	for _, w := range p.Weights {
		sum += w
	}
	if sum != 100 {
		return fmt.Errorf("the five weights add up to %d, not 100", sum)
	}
	return nil
}

// nearest is the known key closest to an unknown one (edit distance).
func nearest(key string) string {
	best, bestD := "", 1<<30
	for _, k := range append(append([]string{}, propsKeys...), propsIgnored...) {
		if d := editDistance(strings.ToLower(key), strings.ToLower(k)); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
