// Package db is starbench's SQL client core: DSN parsing in go-sql-driver
// and mysql:// URL form, password redaction, connections that keep one
// session for a plan, query results as plain Go values, and the MySQL error
// codes of failures. It does not import Starlark; the plan module lives in
// builtins/db/dbstar.
package db

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/go-sql-driver/mysql"
)

// DefaultConnectTimeout bounds connection set-up when the DSN sets none.
const DefaultConnectTimeout = 10 * time.Second

// ParseDSN accepts go-sql-driver DSNs (root:pw@tcp(127.0.0.1:4000)/sbtest)
// and URLs (mysql://root:pw@127.0.0.1:4000/sbtest?timeout=5s). When the DSN
// has a user but no password and MYSQL_PWD is set, that password is used.
func ParseDSN(dsn string) (*mysql.Config, error) {
	dsn = strings.TrimSpace(dsn)
	var cfg *mysql.Config
	var err error
	if strings.HasPrefix(dsn, "mysql://") {
		cfg, err = parseURL(dsn)
	} else {
		cfg, err = mysql.ParseDSN(dsn)
		if err != nil {
			err = fmt.Errorf("invalid DSN %s: %v (want user:password@tcp(host:port)/db or mysql://user:password@host:port/db)", RedactDSNText(dsn), err)
		}
	}
	if err == nil && !networkName.MatchString(cfg.Net) {
		err = fmt.Errorf("invalid DSN %s: network %q is not a name like tcp or unix", RedactDSNText(dsn), cfg.Net)
	}
	if err == nil && strings.HasPrefix(cfg.Net, "tcp") {
		if aerr := checkHostPort(cfg.Addr); aerr != nil {
			err = fmt.Errorf("invalid DSN %s: address %s: %v", RedactDSNText(dsn), cfg.Addr, aerr)
		}
	}
	if err != nil {
		return nil, errors.New(hidePassword(err.Error(), dsn))
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultConnectTimeout
	}
	if cfg.Passwd == "" && cfg.User != "" {
		if pw, ok := os.LookupEnv("MYSQL_PWD"); ok {
			cfg.Passwd = pw
		}
	}
	return cfg, nil
}

// networkName is what a DSN's network may be: tcp, unix or the name of a
// dialer registered with the driver (not " tcp", which formats back
// without its space).
var networkName = regexp.MustCompile(`^[A-Za-z0-9_.+-]+$`)

// checkHostPort refuses a TCP address that is not host:port with a port
// of 1-65535 (the driver passes "]" on as "]:3306").
func checkHostPort(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("invalid port %q", port)
	}
	return nil
}

func parseURL(dsn string) (*mysql.Config, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return nil, fmt.Errorf("invalid DSN URL %s: %v", RedactDSNText(dsn), redactURLError(err))
	}
	cfg := mysql.NewConfig()
	if u.RawQuery != "" {
		// Let the driver validate and apply its own parameters.
		cfg, err = mysql.ParseDSN("/?" + u.RawQuery)
		if err != nil {
			return nil, fmt.Errorf("invalid DSN URL %s: %v", RedactDSNText(dsn), err)
		}
	}
	if u.User != nil {
		cfg.User = u.User.Username()
		cfg.Passwd, _ = u.User.Password()
	}
	host := u.Host
	if host == "" {
		host = "127.0.0.1"
	}
	if _, _, err := net.SplitHostPort(host); err != nil {
		host = net.JoinHostPort(strings.Trim(host, "[]"), "3306")
	}
	cfg.Net, cfg.Addr = "tcp", host
	cfg.DBName = strings.TrimPrefix(u.Path, "/")
	return cfg, nil
}

// redactURLError drops the URL (with its password) that url.Parse quotes,
// and the part of it the error quotes (a "port" may be half a password
// that holds a "/").
func redactURLError(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return errors.New(quotedText.ReplaceAllString(ue.Err.Error(), ""))
	}
	return err
}

var quotedText = regexp.MustCompile(`\s*"(?:[^"\\]|\\.)*"`)

// Redacted formats cfg as a DSN with its password replaced by ***.
func Redacted(cfg *mysql.Config) string {
	c := cfg.Clone()
	if c.Passwd != "" {
		c.Passwd = "***"
	}
	return c.FormatDSN()
}

// RedactDSNText hides the password in DSN text that may not parse, in
// either form, with or without a --target name ("main=user:pw@...").
func RedactDSNText(dsn string) string {
	i, j := passwordSpan(dsn)
	if i < 0 {
		return dsn
	}
	return dsn[:i] + "***" + dsn[j:]
}

// passwordSpan locates the password in DSN text that may not parse: from
// the first ":" of the user info to the "@" that ends it, the last "@"
// before the query string or else the last "@" (where the DSN does not
// parse, a password may hold "@", "/", "?" and "#"). It returns -1, -1
// when the text has no password.
func passwordSpan(dsn string) (int, int) {
	off := 0
	if name, spec := SplitNamedTarget(dsn); name != "" {
		off, dsn = len(name)+1, spec
	}
	if strings.HasPrefix(dsn, "mysql://") {
		off, dsn = off+len("mysql://"), dsn[len("mysql://"):]
	}
	colon := strings.IndexByte(dsn, ':')
	if colon < 0 || strings.ContainsAny(dsn[:colon], "/@()?#") {
		return -1, -1
	}
	at := -1
	if q := strings.IndexByte(dsn[colon:], '?'); q >= 0 {
		at = strings.LastIndexByte(dsn[colon:colon+q], '@')
	}
	if at < 0 {
		at = strings.LastIndexByte(dsn[colon:], '@')
	}
	if at < 0 {
		return -1, -1
	}
	return off + colon + 1, off + colon + at
}

// hidePassword removes from a parser's message the password of the DSN it
// failed on, and the pieces of it the parser may have cut at a separator
// and quoted (a network name, a port, a parameter value).
func hidePassword(msg, dsn string) string {
	i, j := passwordSpan(dsn)
	if i < 0 || i == j {
		return msg
	}
	pw := dsn[i:j]
	// Pieces are cut at separators and at what a message may escape when
	// it quotes them (%q), so that they are found as printed.
	pieces := append(strings.FieldsFunc(pw, func(r rune) bool {
		return strings.ContainsRune("/@?#:()=&,%\"'\\", r) || r == utf8.RuneError || !unicode.IsPrint(r)
	}), pw)
	sort.Slice(pieces, func(a, b int) bool { return len(pieces[a]) > len(pieces[b]) })
	for _, p := range pieces {
		if len(p) >= 3 {
			msg = strings.ReplaceAll(msg, p, "***")
		}
	}
	return msg
}

// Endpoint is host:port (or the socket path) of a config, for messages.
func Endpoint(cfg *mysql.Config) string {
	return cfg.Net + "(" + cfg.Addr + ")"
}
