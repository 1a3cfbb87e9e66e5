// Package sandbox starts throwaway database servers on loopback for tests
// and for `--target sandbox:mariadb` and `sandbox:tidb`: a private data
// directory in a temp folder, random ports on 127.0.0.1, a random root
// password, and a clean stop that removes everything. It uses the server
// binaries installed on the machine (Debian's mariadb-server; a
// tidb-server from tiup or scripts/build-tidb.sh) and never touches a
// system instance.
package sandbox

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

// MissingMariaDB explains what to install when the binaries are not found.
const MissingMariaDB = "MariaDB server binaries (mariadbd, mariadb-install-db) were not found; install Debian's mariadb-server: sudo apt-get install -y mariadb-server"

// ErrNotInstalled is returned (wrapped) when the server binaries are missing.
var ErrNotInstalled = errors.New(MissingMariaDB)

// MariaDBOptions tune a sandbox server.
type MariaDBOptions struct {
	MaxConnections int      // max_connections; 0 means 2000
	Database       string   // created empty at start; "" means sbtest
	ExtraArgs      []string // more mariadbd options, e.g. --general-log=1
	StartTimeout   time.Duration
}

// MariaDB is a running sandbox server.
type MariaDB struct {
	Dir      string // temp folder holding data, socket and logs
	Port     int
	Database string
	Version  string
	password string
	bins     Binaries
	opts     MariaDBOptions
	proc     *process
}

// Binaries are the MariaDB programs the sandbox runs.
type Binaries struct {
	Server    string // mariadbd
	InstallDB string // mariadb-install-db
}

// FindMariaDB locates the server binaries in PATH and in Debian's places.
func FindMariaDB() (Binaries, error) {
	server := lookPath("mariadbd", "mysqld")
	install := lookPath("mariadb-install-db", "mysql_install_db")
	if server == "" || install == "" {
		return Binaries{}, ErrNotInstalled
	}
	return Binaries{Server: server, InstallDB: install}, nil
}

// StartMariaDB initialises a data directory and starts mariadbd on a random
// 127.0.0.1 port. The caller must Stop it.
func StartMariaDB(ctx context.Context, opts MariaDBOptions) (*MariaDB, error) {
	bins, err := FindMariaDB()
	if err != nil {
		return nil, err
	}
	if opts.MaxConnections == 0 {
		opts.MaxConnections = 2000
	}
	if opts.Database == "" {
		opts.Database = "sbtest"
	}
	if opts.StartTimeout == 0 {
		opts.StartTimeout = 60 * time.Second
	}
	dir, err := os.MkdirTemp("", "starbench-mariadb-")
	if err != nil {
		return nil, err
	}
	m := &MariaDB{Dir: dir, Database: opts.Database, password: randomPassword(), bins: bins, opts: opts}
	if err := m.start(ctx, bins, opts); err != nil {
		m.Stop()
		return nil, err
	}
	return m, nil
}

func (m *MariaDB) datadir() string { return filepath.Join(m.Dir, "data") }

// Socket is the server's unix socket.
func (m *MariaDB) Socket() string { return filepath.Join(m.Dir, "mysqld.sock") }

// ErrorLog is the path of the server's error log.
func (m *MariaDB) ErrorLog() string { return filepath.Join(m.Dir, "error.log") }

func osUser() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return "root"
}

// tmpdir is the server's own temporary directory: servers sharing /tmp
// collide on the names of their temporary tables' files (mariadb-install-db
// failed with "Error on delete of '/tmp/#sql-temptable-...'" when several
// started at once).
func (m *MariaDB) tmpdir() string { return filepath.Join(m.Dir, "tmp") }

func (m *MariaDB) start(ctx context.Context, bins Binaries, opts MariaDBOptions) error {
	if err := os.MkdirAll(m.tmpdir(), 0o700); err != nil {
		return err
	}
	install := exec.CommandContext(ctx, bins.InstallDB,
		"--no-defaults", "--datadir="+m.datadir(), "--user="+osUser(),
		"--auth-root-authentication-method=normal", "--skip-test-db", "--skip-name-resolve", "--tmpdir="+m.tmpdir())
	install.Env = append(os.Environ(), "TMPDIR="+m.tmpdir())
	if out, err := install.CombinedOutput(); err != nil {
		return fmt.Errorf("mariadb-install-db: %v\n%s", err, tail(out, 2000))
	}
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		port, err := freePort()
		if err != nil {
			return err
		}
		m.Port = port
		if lastErr = m.launch(ctx, bins.Server, opts); lastErr == nil {
			return m.setUp(ctx, opts)
		}
		if ctx.Err() != nil {
			return lastErr
		}
	}
	return lastErr
}

func (m *MariaDB) launch(ctx context.Context, server string, opts MariaDBOptions) error {
	args := []string{
		"--no-defaults",
		"--datadir=" + m.datadir(),
		"--tmpdir=" + m.tmpdir(),
		"--socket=" + m.Socket(),
		"--port=" + strconv.Itoa(m.Port),
		"--bind-address=127.0.0.1",
		"--pid-file=" + filepath.Join(m.Dir, "mysqld.pid"),
		"--log-error=" + m.ErrorLog(),
		"--user=" + osUser(),
		"--skip-name-resolve",
		"--max-connections=" + strconv.Itoa(opts.MaxConnections),
		"--innodb-buffer-pool-size=256M",
		"--innodb-flush-log-at-trx-commit=2",
		"--skip-log-bin",
	}
	args = append(args, opts.ExtraArgs...)
	proc, err := startProcess("mariadbd", exec.Command(server, args...))
	if err != nil {
		return err
	}
	m.proc = proc
	return proc.waitReady(ctx, opts.StartTimeout, m.pingSocket, m.logTail)
}

func (m *MariaDB) socketDB() (*sql.DB, error) {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr = "root", "unix", m.Socket()
	cfg.Timeout = 2 * time.Second
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(connector), nil
}

func (m *MariaDB) pingSocket(ctx context.Context) error {
	if _, err := os.Stat(m.Socket()); err != nil {
		return err
	}
	db, err := m.socketDB()
	if err != nil {
		return err
	}
	defer db.Close()
	return db.PingContext(ctx)
}

// setUp gives root a password for TCP logins from 127.0.0.1 and creates
// the database.
func (m *MariaDB) setUp(ctx context.Context, opts MariaDBOptions) error {
	db, err := m.socketDB()
	if err != nil {
		return err
	}
	defer db.Close()
	stmts := []string{
		"CREATE USER IF NOT EXISTS 'root'@'127.0.0.1'",
		fmt.Sprintf("ALTER USER 'root'@'127.0.0.1' IDENTIFIED BY '%s'", m.password),
		"GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION",
		"CREATE DATABASE IF NOT EXISTS `" + strings.ReplaceAll(opts.Database, "`", "``") + "`",
	}
	for _, s := range stmts {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("sandbox set-up: %w", err)
		}
	}
	return db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&m.Version)
}

// ServerVersion is VERSION().
func (m *MariaDB) ServerVersion() string { return m.Version }

// Password is root's password for TCP logins.
func (m *MariaDB) Password() string { return m.password }

// Config is a go-sql-driver configuration for root over TCP.
func (m *MariaDB) Config() *mysql.Config {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd = "root", m.password
	cfg.Net, cfg.Addr = "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(m.Port))
	cfg.DBName = m.Database
	cfg.Timeout = 10 * time.Second
	return cfg
}

// PID is the server's process id, 0 when it is not running.
func (m *MariaDB) PID() int { return m.proc.pid() }

// DSN is Config in go-sql-driver form, password included.
func (m *MariaDB) DSN() string { return m.Config().FormatDSN() }

// Stop ends the server (SIGTERM, then SIGKILL after 30 s) and removes its
// folder. It is safe to call more than once.
func (m *MariaDB) Stop() error {
	err := m.proc.stop()
	m.proc = nil
	if m.Dir != "" {
		if rerr := os.RemoveAll(m.Dir); rerr != nil && err == nil {
			err = rerr
		}
		m.Dir = ""
	}
	return err
}

// Shutdown ends the server cleanly (SIGTERM, waiting up to 30 s) and
// leaves its data directory, for Restart: a stop as a service manager does.
func (m *MariaDB) Shutdown() error {
	if m.proc == nil {
		return errNotRunning
	}
	return m.proc.stop()
}

// Restart starts the server again on its data directory and port, after
// Kill (a crash and a recovery) or Shutdown.
func (m *MariaDB) Restart(ctx context.Context) error {
	if m.proc.running() {
		return errors.New("server is still running")
	}
	return m.launch(ctx, m.bins.Server, m.opts)
}

// Kill ends the server at once with SIGKILL, as a crash would, and leaves
// the data directory so that Restart can bring it back.
func (m *MariaDB) Kill() error {
	if m.proc == nil {
		return errNotRunning
	}
	m.proc.kill()
	return nil
}

func (m *MariaDB) logTail() string { return fileTail(m.ErrorLog(), 3000) }
