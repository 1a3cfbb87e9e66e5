// Package gotpc owns what go-tpc's command lines (v1.0.7) have in common
// and starbench's tpcc, tpch and ch commands take as they are: the
// connection flags (-H -P -U -p -D, or starbench's --target), the flags
// accepted and left unused, and the command word after the flags. It has
// no Starlark in it.
package gotpc

import (
	"fmt"
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/go-sql-driver/mysql"
	"github.com/spf13/pflag"

	"github.com/starbench/starbench/builtins/db"
)

// Conn is a command line's connection: go-tpc's -H/--host, -P/--port,
// -U/--user, -p/--password, -D/--db, or starbench's --target.
type Conn struct {
	Host, User, Password, DB string
	Port                     int
	Target                   string // --target: a DSN, embedded or sandbox:ENGINE, instead of -H/-P/...
	MySQLGiven               bool   // some of -H -P -U -p -D was given
}

// connFlags are the long names of go-tpc's connection flags.
var connFlags = []string{"host", "port", "user", "password", "db"}

// Bind adds the connection flags to fs, with go-tpc's defaults.
func (c *Conn) Bind(fs *pflag.FlagSet) {
	fs.StringVarP(&c.Host, "host", "H", "127.0.0.1", "database host")
	fs.IntVarP(&c.Port, "port", "P", 4000, "database port")
	fs.StringVarP(&c.User, "user", "U", "root", "database user")
	fs.StringVarP(&c.Password, "password", "p", "", "database password")
	fs.StringVarP(&c.DB, "db", "D", "test", "database name")
	fs.StringVar(&c.Target, "target", "", "a DSN, embedded, sandbox:mariadb or sandbox:tidb (instead of -H -P -U -p -D)")
}

// Parsed notes, after fs is parsed, whether the command line gave a
// connection flag, and refuses one given beside --target.
func (c *Conn) Parsed(fs *pflag.FlagSet) error {
	for _, name := range connFlags {
		c.MySQLGiven = c.MySQLGiven || fs.Changed(name)
	}
	if c.Target != "" && c.MySQLGiven {
		return fmt.Errorf("give either --target or -H/-P/-U/-p/-D, not both")
	}
	return nil
}

// Config is the driver's configuration for -H/-P/-U/-p/-D.
func (c *Conn) Config() *mysql.Config {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName = c.User, c.Password, "tcp", net.JoinHostPort(c.Host, strconv.Itoa(c.Port)), c.DB
	cfg.Timeout = db.DefaultConnectTimeout
	cfg.AllowNativePasswords = true
	return cfg
}

// Ignored are go-tpc flags a command accepts and has no use for (its
// profiling and output switches), each with its one-letter name if any.
type Ignored map[string]string

// Bind adds the flags to fs, string-valued; --silence also alone.
func (ig Ignored) Bind(fs *pflag.FlagSet) {
	for _, name := range ig.Names() {
		fs.StringP(name, ig[name], "", "accepted for go-tpc's command lines; not used")
	}
	if f := fs.Lookup("silence"); f != nil {
		f.NoOptDefVal = "true"
	}
}

// Names are the flags' long names, sorted.
func (ig Ignored) Names() []string {
	var names []string
	for name := range ig {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Usage is fs's flags for --help, the ignored ones listed apart after
// why they are accepted.
func (ig Ignored) Usage(fs *pflag.FlagSet, why string) string {
	for _, name := range ig.Names() {
		fs.Lookup(name).Hidden = true
	}
	return fs.FlagUsages() + "\nAccepted and unused (" + why + "): --" + strings.Join(ig.Names(), ", --") + "\n"
}

// Parse reads args into fs (whose flags include conn's and help), checks
// the connection, refuses the flags of refused that were given (flag:
// why) and returns the command word among commands, go-tpc's workload
// word (word) before it skipped; "" when help was asked for.
func Parse(fs *pflag.FlagSet, args []string, conn *Conn, help *bool, refused map[string]string, word string, commands []string) (string, error) {
	if err := fs.Parse(args); err != nil {
		return "", err
	}
	if err := conn.Parsed(fs); err != nil {
		return "", err
	}
	for _, name := range slices.Sorted(maps.Keys(refused)) {
		if fs.Changed(name) {
			return "", fmt.Errorf("--%s: %s", name, refused[name])
		}
	}
	if *help {
		return "", nil
	}
	return Command(fs.Args(), word, commands)
}

// Command is the command word of what is left after the flags (go-tpc's
// workload word, as reports print the command, skipped): one of commands.
func Command(rest []string, word string, commands []string) (string, error) {
	if len(rest) > 0 && rest[0] == word {
		rest = rest[1:]
	}
	if len(rest) != 1 {
		return "", fmt.Errorf("want one command (%s), got %q", strings.Join(commands, ", "), strings.Join(rest, " "))
	}
	if !slices.Contains(commands, rest[0]) {
		return "", fmt.Errorf("unknown command %q (want %s)", rest[0], strings.Join(commands, ", "))
	}
	return rest[0], nil
}
