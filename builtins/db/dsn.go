// Package db is starbench's SQL client core: DSN parsing in go-sql-driver
// and mysql:// URL form, password redaction, connections that keep one
// session for a plan, query results as plain Go values, and the MySQL error
// codes of failures. It does not import Starlark; the plan module lives in
// builtins/db/dbstar.
package db

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"

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
	if err != nil {
		return nil, err
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

// redactURLError drops the URL (with its password) that url.Parse quotes.
func redactURLError(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}

// Redacted formats cfg as a DSN with its password replaced by ***.
func Redacted(cfg *mysql.Config) string {
	c := cfg.Clone()
	if c.Passwd != "" {
		c.Passwd = "***"
	}
	return c.FormatDSN()
}

var (
	urlPassword = regexp.MustCompile(`^(mysql://[^:/@]*:)[^@]*@`)
	dsnPassword = regexp.MustCompile(`^([^:/@()]*:).*@((tcp|unix|tcp6|udp)?\(|/)`)
)

// RedactDSNText hides the password in DSN text that may not parse.
func RedactDSNText(dsn string) string {
	if urlPassword.MatchString(dsn) {
		return urlPassword.ReplaceAllString(dsn, "${1}***@")
	}
	if dsnPassword.MatchString(dsn) {
		return dsnPassword.ReplaceAllString(dsn, "${1}***@${2}")
	}
	return dsn
}

// Endpoint is host:port (or the socket path) of a config, for messages.
func Endpoint(cfg *mysql.Config) string {
	return cfg.Net + "(" + cfg.Addr + ")"
}
