package sandbox

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

// TiDBServerEnv names the tidb-server binary to use, before PATH and the
// other places FindTiDB looks in.
const TiDBServerEnv = "STARBENCH_TIDB_SERVER"

// MissingTiDB says how to get a tidb-server when none is found.
const MissingTiDB = "tidb-server was not found (looked at $" + TiDBServerEnv + ", PATH, $GOBIN, $GOPATH/bin, ~/go/bin and ~/.tiup/components/tidb/*/). " +
	"Get one with tiup (curl --proto '=https' --tlsv1.2 -sSf https://tiup-mirrors.pingcap.com/install.sh | sh; tiup install tidb), " +
	"or build the one starbench is tested with from its source tree: bash scripts/build-tidb.sh (about 15 minutes on 2 cores, 243 MB, into $(go env GOPATH)/bin); " +
	"or name a binary with " + TiDBServerEnv + "=/path/to/tidb-server"

// ErrTiDBNotFound is returned (wrapped) when no tidb-server is found.
var ErrTiDBNotFound = errors.New(MissingTiDB)

// FindTiDB locates a tidb-server binary: the one $STARBENCH_TIDB_SERVER
// names (which must exist), else tidb-server on PATH, in $GOBIN, in each
// $GOPATH's bin (or ~/go/bin), or the newest tiup installed under
// ~/.tiup/components/tidb.
func FindTiDB() (string, error) {
	if p := os.Getenv(TiDBServerEnv); p != "" {
		if !executable(p) {
			return "", fmt.Errorf("%s=%s: not an executable file", TiDBServerEnv, p)
		}
		return p, nil
	}
	if p, err := exec.LookPath("tidb-server"); err == nil {
		return p, nil
	}
	home, _ := os.UserHomeDir()
	var dirs []string
	if gobin := os.Getenv("GOBIN"); gobin != "" {
		dirs = append(dirs, gobin)
	}
	if gopath := os.Getenv("GOPATH"); gopath != "" {
		for _, d := range filepath.SplitList(gopath) {
			dirs = append(dirs, filepath.Join(d, "bin"))
		}
	} else if home != "" {
		dirs = append(dirs, filepath.Join(home, "go", "bin"))
	}
	for _, d := range dirs {
		if p := filepath.Join(d, "tidb-server"); executable(p) {
			return p, nil
		}
	}
	if home != "" {
		if p := newestTiUPTiDB(filepath.Join(home, ".tiup", "components", "tidb")); p != "" {
			return p, nil
		}
	}
	return "", ErrTiDBNotFound
}

// newestTiUPTiDB is the tidb-server of the highest version tiup installed
// under dir (dir/vX.Y.Z/tidb-server), or "".
func newestTiUPTiDB(dir string) string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	var versions []string
	for _, e := range entries {
		if e.IsDir() && executable(filepath.Join(dir, e.Name(), "tidb-server")) {
			versions = append(versions, e.Name())
		}
	}
	if len(versions) == 0 {
		return ""
	}
	sort.Slice(versions, func(i, j int) bool { return versionLess(versions[i], versions[j]) })
	return filepath.Join(dir, versions[len(versions)-1], "tidb-server")
}

// versionLess orders vX.Y.Z names by their numbers (v8.10.0 after v8.9.0).
func versionLess(a, b string) bool {
	pa, pb := versionNumbers(a), versionNumbers(b)
	for i := 0; i < len(pa) && i < len(pb); i++ {
		if pa[i] != pb[i] {
			return pa[i] < pb[i]
		}
	}
	if len(pa) != len(pb) {
		return len(pa) < len(pb)
	}
	return a < b
}

func versionNumbers(v string) []int {
	v = strings.TrimPrefix(v, "v")
	if i := strings.IndexAny(v, "-+"); i >= 0 {
		v = v[:i]
	}
	var out []int
	for _, part := range strings.Split(v, ".") {
		n, err := strconv.Atoi(part)
		if err != nil {
			break
		}
		out = append(out, n)
	}
	return out
}

// TiDBOptions tune a sandbox TiDB.
type TiDBOptions struct {
	Database string // created empty at start; "" means sbtest
	// Config is TOML added to the server's configuration file (after
	// the sandbox's own lines, which keep every file in its folder).
	Config       string
	ExtraArgs    []string // more tidb-server flags
	StartTimeout time.Duration
}

// TiDB is a running sandbox tidb-server on unistore, TiDB's embedded
// single-process store: TiDB's whole SQL layer, its status port and
// metrics, without PD, TiKV or BR (information_schema's PD-backed tables
// fail, ADMIN CHECKSUM computes nothing).
type TiDB struct {
	Dir        string // temp folder holding the store, logs and temporary files
	Port       int
	StatusPort int
	Database   string
	Version    string // VERSION(), e.g. 8.0.11-TiDB-v8.4.0-this-is-a-placeholder
	Binary     string
	password   string
	opts       TiDBOptions
	proc       *process
}

// StartTiDB starts tidb-server on unistore in a new temp folder, on random
// 127.0.0.1 ports (SQL and status), gives root a random password and
// creates the database. The caller must Stop it.
func StartTiDB(ctx context.Context, opts TiDBOptions) (*TiDB, error) {
	bin, err := FindTiDB()
	if err != nil {
		return nil, err
	}
	if opts.Database == "" {
		opts.Database = "sbtest"
	}
	if opts.StartTimeout == 0 {
		opts.StartTimeout = 120 * time.Second
	}
	dir, err := os.MkdirTemp("", "starbench-tidb-")
	if err != nil {
		return nil, err
	}
	t := &TiDB{Dir: dir, Database: opts.Database, Binary: bin, password: randomPassword(), opts: opts}
	if err := t.start(ctx); err != nil {
		t.Stop()
		return nil, err
	}
	return t, nil
}

// Log is the path of the server's log.
func (t *TiDB) Log() string { return filepath.Join(t.Dir, "tidb.log") }

// GeneralLog is the path of the server's general log: every statement
// while the global tidb_general_log is ON (it is OFF at the start).
func (t *TiDB) GeneralLog() string { return filepath.Join(t.Dir, "general.log") }

func (t *TiDB) tmpdir() string { return filepath.Join(t.Dir, "tmp") }

// configFile keeps every file the server writes inside its folder: the
// temporary storage for large queries and the slow query log (which
// default to /tmp and the working directory).
func (t *TiDB) configFile() string {
	q := strconv.Quote
	return "tmp-storage-path = " + q(filepath.Join(t.Dir, "tmp-storage")) + "\n" +
		"[log]\nslow-query-file = " + q(filepath.Join(t.Dir, "slow.log")) + "\n" +
		t.opts.Config + "\n"
}

func (t *TiDB) start(ctx context.Context) error {
	if err := os.MkdirAll(t.tmpdir(), 0o700); err != nil {
		return err
	}
	cfgPath := filepath.Join(t.Dir, "tidb.toml")
	if err := os.WriteFile(cfgPath, []byte(t.configFile()), 0o600); err != nil {
		return err
	}
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		if t.Port, lastErr = freePort(); lastErr != nil {
			return lastErr
		}
		if t.StatusPort, lastErr = freePort(); lastErr != nil {
			return lastErr
		}
		if lastErr = t.launch(ctx, cfgPath); lastErr == nil {
			return t.setUp(ctx)
		}
		if ctx.Err() != nil {
			return lastErr
		}
	}
	return lastErr
}

func (t *TiDB) launch(ctx context.Context, cfgPath string) error {
	args := []string{
		"-config", cfgPath,
		"-store", "unistore",
		"-path", filepath.Join(t.Dir, "store"),
		"-host", "127.0.0.1",
		"-P", strconv.Itoa(t.Port),
		"-status-host", "127.0.0.1",
		"-status", strconv.Itoa(t.StatusPort),
		"-socket", filepath.Join(t.Dir, "tidb.sock"),
		"-temp-dir", t.tmpdir(),
		"-log-file", t.Log(),
		"-log-general", t.GeneralLog(),
	}
	args = append(args, t.opts.ExtraArgs...)
	cmd := exec.Command(t.Binary, args...)
	cmd.Dir = t.Dir
	cmd.Env = append(os.Environ(), "TMPDIR="+t.tmpdir())
	// What it prints before its log is open (a bad flag) goes to a file.
	out, err := os.Create(filepath.Join(t.Dir, "stderr.log"))
	if err != nil {
		return err
	}
	defer out.Close()
	cmd.Stdout, cmd.Stderr = out, out
	proc, err := startProcess("tidb-server", cmd)
	if err != nil {
		return err
	}
	t.proc = proc
	// A fresh store's root has no password until setUp gives it one.
	return proc.waitReady(ctx, t.opts.StartTimeout, func(ctx context.Context) error { return t.ping(ctx, "") }, t.logTail)
}

func (t *TiDB) rootDB(password string) (*sql.DB, error) {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = "root", password, "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(t.Port))
	cfg.Timeout = 2 * time.Second
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(connector), nil
}

func (t *TiDB) ping(ctx context.Context, password string) error {
	db, err := t.rootDB(password)
	if err != nil {
		return err
	}
	defer db.Close()
	return db.PingContext(ctx)
}

func (t *TiDB) setUp(ctx context.Context) error {
	db, err := t.rootDB("")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	stmts := []string{
		fmt.Sprintf("ALTER USER 'root'@'%%' IDENTIFIED BY '%s'", t.password),
		"CREATE DATABASE IF NOT EXISTS `" + strings.ReplaceAll(t.opts.Database, "`", "``") + "`",
	}
	for _, s := range stmts {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("sandbox set-up: %w", err)
		}
	}
	return db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&t.Version)
}

// ServerVersion is VERSION().
func (t *TiDB) ServerVersion() string { return t.Version }

// Password is root's password.
func (t *TiDB) Password() string { return t.password }

// Config is a go-sql-driver configuration for root over TCP.
func (t *TiDB) Config() *mysql.Config {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd = "root", t.password
	cfg.Net, cfg.Addr = "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(t.Port))
	cfg.DBName = t.Database
	cfg.Timeout = 10 * time.Second
	return cfg
}

// DSN is Config in go-sql-driver form, password included.
func (t *TiDB) DSN() string { return t.Config().FormatDSN() }

// StatusURL is the base of the status port's HTTP API (/status, /metrics).
func (t *TiDB) StatusURL() string {
	return "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(t.StatusPort))
}

// PID is the server's process id, 0 when it is not running.
func (t *TiDB) PID() int { return t.proc.pid() }

// Stop ends the server (SIGTERM, then SIGKILL after 30 s) and removes its
// folder. It is safe to call more than once.
func (t *TiDB) Stop() error {
	err := t.proc.stop()
	t.proc = nil
	if t.Dir != "" {
		if rerr := os.RemoveAll(t.Dir); rerr != nil && err == nil {
			err = rerr
		}
		t.Dir = ""
	}
	return err
}

func (t *TiDB) logTail() string {
	return fileTail(filepath.Join(t.Dir, "stderr.log"), 1000) + "\n" + fileTail(t.Log(), 3000)
}
