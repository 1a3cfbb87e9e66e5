package sysbench

import (
	"cmp"
	"fmt"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/internal/readfile"
)

// Commands a sysbench command line may name.
var Commands = []string{"prepare", "prewarm", "warmup", "run", "cleanup", "help"}

// CommandLine is a parsed sysbench command line, as printed in reports:
// options may come before or after the script and the command.
type CommandLine struct {
	Script   string // as given: a name or a path
	Command  string
	Options  Options
	Given    map[string]string // options given explicitly, by canonical name
	MySQL    MySQLOptions
	Target   string // --target: starbench's DSN / embedded / sandbox:mariadb
	Out      string // --out: results folder
	IfExists string // --if-exists for prepare
	Load     string // --load-method for prepare
	Segment  string // --segment i/n: run the i-th of n slices of the load
	Help     bool   // --help
	Version  bool   // --version
	// Verbosity is sysbench's --verbosity (0..5, default 3): below 3 its
	// log lines (the banner, "Initializing worker threads...", a run's
	// report) are not printed, the scripts' own lines (Creating table
	// ...) are.
	Verbosity int
	// DryRun is --mysql-dry-run: nothing is sent to a server, every
	// statement succeeds at once (bench.DryConnector).
	DryRun bool
	// Warnings are what sysbench would warn of reading the command line
	// (a config file's options it does not take), for the command to say.
	Warnings []string
	// Unused are the options given that sysbench takes and that cannot
	// change a result here (its debug output, its thread stack size, its
	// PostgreSQL variant), as given: the command says it leaves them.
	Unused []string
	// Checkpoints are --report-checkpoints' seconds, in order: at each, a
	// run prints sysbench's full report of the time since the previous
	// one and starts counting again.
	Checkpoints []int
	// Validate is --validate: sysbench 1.0.20's OLTP scripts check
	// nothing more with it (only its fileio test does); a run says it is
	// on, as sysbench does.
	Validate bool
}

// generalOptions are sysbench's general options that are not workload
// options here (a config file may hold them).
var generalOptions = map[string]bool{"verbosity": true, "db_driver": true, "report_checkpoints": true, "validate": true}

// maxCheckpoints is how many --report-checkpoints sysbench takes.
const maxCheckpoints = 256

// noEffectOptions are sysbench 1.0.20 options starbench accepts and leaves,
// as none changes what is sent or measured; true: a switch (on/off, or
// given bare).
var noEffectOptions = map[string]bool{"debug": true, "db_debug": true, "mysql_debug": true, "thread_stack_size": false, "pgsql_variant": false}

// switches are sysbench's on/off options outside the workload's and
// noEffectOptions (which say their own), which may be given bare
// (--mysql-dry-run) and then do not take the next argument.
var switches = map[string]bool{"mysql_dry_run": true, "mysql_compression": true, "mysql_ssl": true, "validate": true}

// MySQLOptions are sysbench's --mysql-* connection options.
type MySQLOptions struct {
	Hosts    []string
	Ports    []int
	Socket   string
	User     string
	Password string
	DB       string
	Given    bool // any --mysql-host/port/socket given
	// SSL is --mysql-ssl as given ("" when not; "on" when bare): on and
	// off as sysbench 1.0.20 takes them, or a mode as later sysbench and
	// MySQL's clients name it (REQUIRED, VERIFY_CA, ...); TLS is what it
	// asks for, with --mysql-ssl-ca/-cert/-key and --mysql-ssl-cipher.
	SSL string
	TLS db.TLSOptions
	// Compression is --mysql-compression: the protocol's zlib compression.
	Compression bool
	tls         *db.TLSSetup // set up by ParseCommandLine from SSL and TLS
}

// SSLOn reports --mysql-ssl=on (or bare): sysbench 1.0.20's TLS, with
// its files (see setUpTLS).
func (m MySQLOptions) SSLOn() bool {
	on, err := parseSwitch(m.SSL)
	return m.SSL != "" && err == nil && on
}

// sysbench 1.0.20's --mysql-ssl=on takes these files from the current
// directory (what libmariadb then does with them: the CA checks the
// server's chain, not its name).
const (
	ssl1020CA   = "cacert.pem"
	ssl1020Cert = "client-cert.pem"
	ssl1020Key  = "client-key.pem"
)

// starbenchOnly are options starbench adds to sysbench's.
var starbenchOnly = map[string]bool{"profile": true, "target": true, "out": true, "if_exists": true, "load_method": true, "segment": true}

// ParseCommandLine reads sysbench arguments in any order.
func ParseCommandLine(args []string) (*CommandLine, error) {
	p := &commandLineParser{
		cl:      &CommandLine{Given: map[string]string{}, MySQL: MySQLOptions{User: "sbtest", DB: "sbtest"}, Verbosity: 3},
		profile: Profile1020,
	}
	if err := p.readArgs(args); err != nil {
		return nil, err
	}
	cl := p.cl
	if err := p.applyWorkloadOptions(); err != nil {
		return nil, err
	}
	if cl.Help || cl.Version {
		if len(p.positional) > 0 {
			cl.Script = p.positional[0]
		}
		return cl, nil
	}
	if err := cl.setScriptAndCommand(p.positional); err != nil {
		return nil, err
	}
	if cl.Command == "warmup" && cl.Options.Profile != ProfileMaster {
		cl.Command = "prewarm"
	}
	if err := cl.Options.Validate(); err != nil {
		return nil, err
	}
	if !cl.DryRun { // a dry run connects to nothing: no files to read
		if err := cl.setUpTLS(); err != nil {
			return nil, err
		}
	}
	return cl, nil
}

// setUpTLS reads what --mysql-ssl and its files ask for. "on" is sysbench
// 1.0.20's: the CA and client certificate files in the current directory,
// unless --mysql-ssl-ca/-cert/-key name others, the server's chain
// checked (VERIFY_CA), as Debian's sysbench (libmariadb) does; "off" or a
// mode as MySQL's clients name it otherwise.
func (cl *CommandLine) setUpTLS() error {
	m := &cl.MySQL
	if m.SSL == "" || m.TLS.Mode == db.TLSDisabled {
		for _, o := range [][2]string{{"mysql-ssl-ca", m.TLS.CA}, {"mysql-ssl-cert", m.TLS.Cert}, {"mysql-ssl-key", m.TLS.Key}, {"mysql-ssl-cipher", m.TLS.Ciphers}} {
			if o[1] != "" {
				cl.Unused = append(cl.Unused, fmt.Sprintf("--%s=%s (without --mysql-ssl nothing is encrypted)", o[0], o[1]))
			}
		}
		return nil // no TLS: withTLS leaves the configs as they are
	}
	if m.SSLOn() {
		var missing []string
		type file struct {
			given *string
			name  string
		}
		for _, f := range []file{{&m.TLS.CA, ssl1020CA}, {&m.TLS.Cert, ssl1020Cert}, {&m.TLS.Key, ssl1020Key}} {
			if *f.given != "" {
				continue
			}
			if _, err := os.Stat(f.name); err != nil {
				missing = append(missing, f.name)
			}
			*f.given = f.name
		}
		if len(missing) > 0 {
			return fmt.Errorf("--mysql-ssl=on is sysbench 1.0.20's: it takes %s, %s and %s from the current directory, and this one has no %s (sysbench fails the same way, error 2026); give --mysql-ssl=REQUIRED to encrypt without checking the server, or VERIFY_CA or VERIFY_IDENTITY with --mysql-ssl-ca=FILE",
				ssl1020CA, ssl1020Cert, ssl1020Key, strings.Join(missing, ", "))
		}
	}
	setup, err := db.NewTLSSetup(m.TLS)
	if err != nil {
		return fmt.Errorf("--mysql-ssl=%s: %w", m.SSL, err)
	}
	m.tls = setup
	return nil
}

// parseCheckpoints reads --report-checkpoints as sysbench does: a list of
// whole seconds since the run's start, sorted; at most maxCheckpoints.
func parseCheckpoints(value string) ([]int, error) {
	var out []int
	for _, v := range splitList(value) {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("invalid value for --report-checkpoints: %q (whole seconds from the run's start, e.g. 10,60)", v)
		}
		out = append(out, n)
	}
	if len(out) > maxCheckpoints {
		return nil, fmt.Errorf("too many checkpoints in --report-checkpoints (up to %d can be defined)", maxCheckpoints)
	}
	sort.Ints(out)
	return out, nil
}

// commandLineParser is a command line being read: what is known at once
// goes into cl; the workload options wait for the profile, which sets
// their defaults.
type commandLineParser struct {
	cl         *CommandLine
	profile    string          // --profile
	opts       []pendingOption // workload options, in order
	positional []string        // the script and the command
}

// pendingOption is a workload option given on the command line, by
// canonical name, not yet set.
type pendingOption struct{ name, value string }

// readArgs reads every argument: positional ones are kept in order, and
// each option is taken with its value (--name=VALUE or --name VALUE).
func (p *commandLineParser) readArgs(args []string) error {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "--") {
			p.positional = append(p.positional, a)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		canon := strings.ReplaceAll(name, "-", "_")
		switch canon {
		case "help":
			p.cl.Help = true
			continue
		case "version":
			p.cl.Version = true
			continue
		}
		if !hasValue && needsValue(canon) {
			if i+1 >= len(args) || strings.HasPrefix(args[i+1], "--") {
				return fmt.Errorf("option --%s needs a value (--%s=VALUE)", name, name)
			}
			i++
			value = args[i]
		}
		if canon == "config_file" {
			if err := p.readConfigFile(value); err != nil {
				return err
			}
			continue
		}
		if err := p.setOption(canon, value, a); err != nil {
			return err
		}
	}
	return nil
}

// readConfigFile takes a --config-file's options where the option stands
// on the command line (options after it win, options before it lose), as
// sysbench 1.0.20 does: a "name=value" a line (the name as written, spaces
// included), lines without "=" and "#" lines passed over; the general,
// random-number and database options (--threads, --time, --mysql-host,
// ...) taken; a script's options (--tables, --table-size, ...) and
// unknown names not: sysbench warns that it does not pass them on and
// runs without them, and so does starbench, saying so.
func (p *commandLineParser) readConfigFile(path string) error {
	data, err := readfile.Bounded(path, 1<<20, "a config file") // a config file is a few lines
	if err != nil {
		return fmt.Errorf("--config-file: %w", err)
	}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimRight(line, "\r")
		name, value, ok := strings.Cut(line, "=")
		if !ok || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		canon := strings.ReplaceAll(name, "-", "_")
		where := fmt.Sprintf("%s:%d", path, i+1)
		opt, known := LookupOption(canon)
		switch {
		case known && (opt.Group == "oltp" || opt.Group == "legacy"):
			p.cl.Warnings = append(p.cl.Warnings, fmt.Sprintf("%s: %s is a script's option: sysbench 1.0.20 does not pass it on from a config file (it warns and runs with the default), nor does starbench; give --%s on the command line",
				where, name, strings.ReplaceAll(opt.Name, "_", "-")))
		case known || generalOptions[canon] || strings.HasPrefix(canon, "mysql_"):
			if err := p.setOption(canon, value, "--"+line+" ("+where+")"); err != nil {
				return fmt.Errorf("%s: %w", where, err)
			}
		default:
			p.cl.Warnings = append(p.cl.Warnings, fmt.Sprintf("%s: %q is not an option sysbench takes from a config file: left, as sysbench leaves it", where, name))
		}
	}
	return nil
}

// setOption takes option canon: starbench's own and the --mysql-* ones
// into the command line, a workload option into the pending ones. arg is
// the argument as given, for errors.
func (p *commandLineParser) setOption(canon, value, arg string) error {
	cl := p.cl
	switch canon {
	case "profile":
		p.profile = value
	case "target":
		cl.Target = value
	case "out":
		cl.Out = value
	case "if_exists":
		cl.IfExists = value
	case "load_method":
		cl.Load = value
	case "segment":
		cl.Segment = value
	case "mysql_host":
		cl.MySQL.Hosts, cl.MySQL.Given = splitList(value), true
	case "mysql_port":
		ports, err := parsePorts(value)
		if err != nil {
			return err
		}
		cl.MySQL.Ports, cl.MySQL.Given = append(cl.MySQL.Ports, ports...), true
	case "mysql_socket":
		cl.MySQL.Socket, cl.MySQL.Given = value, true
	case "mysql_user":
		cl.MySQL.User = value
	case "mysql_password":
		cl.MySQL.Password = value
	case "mysql_db":
		cl.MySQL.DB = value
	case "mysql_dry_run":
		return setSwitch(&cl.DryRun, canon, value)
	case "mysql_ssl":
		if on, err := parseSwitch(value); err == nil {
			cl.MySQL.SSL, cl.MySQL.TLS.Mode = cmp.Or(value, "on"), db.TLSDisabled
			if on { // sysbench 1.0.20's files, found by setUpTLS
				cl.MySQL.TLS.Mode = db.TLSVerifyCA
			}
			return nil
		}
		mode, err := db.ParseTLSMode(value)
		if err != nil {
			return fmt.Errorf("invalid value for --mysql-ssl: %q (on or off as sysbench 1.0.20 takes it, or DISABLED, PREFERRED, REQUIRED, VERIFY_CA, VERIFY_IDENTITY)", value)
		}
		cl.MySQL.SSL, cl.MySQL.TLS.Mode = value, mode
	case "mysql_ssl_cipher":
		cl.MySQL.TLS.Ciphers = value
	case "mysql_ssl_ca":
		cl.MySQL.TLS.CA = value
	case "mysql_ssl_cert":
		cl.MySQL.TLS.Cert = value
	case "mysql_ssl_key":
		cl.MySQL.TLS.Key = value
	case "mysql_compression":
		return setSwitch(&cl.MySQL.Compression, canon, value)
	case "report_checkpoints":
		cps, err := parseCheckpoints(value)
		if err != nil {
			return err
		}
		cl.Checkpoints = cps
	case "validate":
		return setSwitch(&cl.Validate, canon, value)
	case "verbosity":
		v, err := strconv.Atoi(value)
		if err != nil || v < 0 || v > 5 {
			return fmt.Errorf("invalid value for --verbosity: %s (0 to 5)", value)
		}
		cl.Verbosity = v
	default:
		if _, ok := noEffectOptions[canon]; ok {
			cl.Unused = append(cl.Unused, arg)
			return nil
		}
		if _, ok := LookupOption(canon); !ok {
			return fmt.Errorf("invalid option: %s", arg)
		}
		p.opts = append(p.opts, pendingOption{canon, value})
	}
	return nil
}

// parsePorts reads --mysql-port's comma-separated list of ports.
func parsePorts(value string) ([]int, error) {
	var ports []int
	for _, p := range splitList(value) {
		n, err := strconv.Atoi(p)
		if err != nil || n <= 0 || n > 65535 {
			return nil, fmt.Errorf("invalid value for --mysql-port: %q", p)
		}
		ports = append(ports, n)
	}
	return ports, nil
}

// applyWorkloadOptions sets the workload options, in the order given, on
// the profile's defaults, and notes each as given.
func (p *commandLineParser) applyWorkloadOptions() error {
	cl := p.cl
	cl.Options = Defaults(p.profile)
	var deprecated []pendingOption
	for _, o := range p.opts {
		if _, ok := deprecatedAliases[o.name]; ok {
			deprecated = append(deprecated, o)
			continue
		}
		if err := cl.Options.Set(o.name, o.value); err != nil {
			return err
		}
		opt, _ := LookupOption(o.name)
		cl.Given[opt.Name] = o.value
	}
	// sysbench 1.0.20 reads its deprecated aliases after the rest: one
	// given above its floor (--num-threads above 1, the others above 0)
	// wins over the new name, with a warning; at or below it, it is left.
	for _, o := range deprecated {
		n, err := strconv.ParseInt(o.value, 10, 64)
		if err != nil {
			return fmt.Errorf("invalid value for --%s: %q is not an integer", strings.ReplaceAll(o.name, "_", "-"), o.value)
		}
		if n <= deprecatedAliases[o.name] {
			continue
		}
		opt, _ := LookupOption(o.name)
		if err := cl.Options.Set(opt.Name, o.value); err != nil {
			return err
		}
		cl.Given[opt.Name] = o.value
		cl.Warnings = append(cl.Warnings, fmt.Sprintf("--%s is deprecated, use --%s instead", strings.ReplaceAll(o.name, "_", "-"), opt.Name))
	}
	return nil
}

// deprecatedAliases are sysbench 1.0.20's deprecated general options, each
// with the value at or below which sysbench leaves it.
var deprecatedAliases = map[string]int64{"num_threads": 1, "max_requests": 0, "max_time": 0, "tx_rate": 0}

// setScriptAndCommand takes the script and the command from the
// positional arguments, which must be exactly those two, the command a
// known one.
func (cl *CommandLine) setScriptAndCommand(positional []string) error {
	switch len(positional) {
	case 0:
		return fmt.Errorf("no workload given: name a script (oltp_read_write, /usr/share/sysbench/oltp_point_select.lua, ...) and a command (%s)", strings.Join(Commands, ", "))
	case 1:
		cl.Script = positional[0]
		if isCommand(cl.Script) {
			return fmt.Errorf("no workload given before %q: name a script such as oltp_read_write", cl.Script)
		}
		return fmt.Errorf("command is required after %s (supported: %s)", cl.Script, strings.Join(Commands, ", "))
	case 2:
		cl.Script, cl.Command = positional[0], positional[1]
	default:
		return fmt.Errorf("unexpected arguments %q: give one script and one command", positional[2:])
	}
	if !isCommand(cl.Command) {
		return fmt.Errorf("unknown command %q (supported: %s)", cl.Command, strings.Join(Commands, ", "))
	}
	return nil
}

func isCommand(s string) bool {
	for _, c := range Commands {
		if s == c {
			return true
		}
	}
	return false
}

// needsValue reports whether "--name VALUE" takes the next argument:
// every option but a switch does.
func needsValue(canon string) bool {
	if opt, ok := LookupOption(canon); ok {
		return !opt.IsBool()
	}
	if switches[canon] {
		return false
	}
	if isSwitch, ok := noEffectOptions[canon]; ok {
		return !isSwitch
	}
	return starbenchOnly[canon] || generalOptions[canon] || strings.HasPrefix(canon, "mysql_") || canon == "config_file"
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// DefaultSocket is the Unix socket libmysqlclient connects "localhost" to
// when neither --mysql-socket nor MYSQL_UNIX_PORT names one (Debian's).
const DefaultSocket = "/run/mysqld/mysqld.sock"

// Configs returns one go-sql-driver configuration per endpoint: the hosts
// and ports lists are combined as sysbench does (each host with each
// port). As sysbench 1.0.20 does: --mysql-socket, given, is the one
// endpoint whatever the host; else, as libmysqlclient makes it, the host
// "localhost" (the default) is the Unix socket $MYSQL_UNIX_PORT or
// DefaultSocket, without a port, and any other host is TCP.
func (m MySQLOptions) Configs() []*mysql.Config {
	base := mysql.NewConfig()
	base.User, base.Passwd, base.DBName = m.User, m.Password, m.DB
	base.Timeout = 10 * time.Second
	if m.Compression {
		_ = base.Apply(mysql.EnableCompression(true)) // the option cannot fail
	}
	if m.Socket != "" {
		c := base.Clone()
		c.Net, c.Addr = "unix", m.Socket
		return m.withTLS([]*mysql.Config{c})
	}
	hosts := m.Hosts
	if len(hosts) == 0 {
		hosts = []string{"localhost"}
	}
	ports := m.Ports
	if len(ports) == 0 {
		ports = []int{3306}
	}
	var out []*mysql.Config
	for _, h := range hosts {
		if h == "localhost" {
			c := base.Clone()
			c.Net, c.Addr = "unix", m.socket()
			out = append(out, c)
			continue
		}
		for _, p := range ports {
			c := base.Clone()
			c.Net, c.Addr = "tcp", net.JoinHostPort(h, strconv.Itoa(p))
			out = append(out, c)
		}
	}
	return m.withTLS(out)
}

// withTLS sets each config up for the TLS the options ask for.
func (m MySQLOptions) withTLS(cfgs []*mysql.Config) []*mysql.Config {
	if m.tls != nil {
		for _, c := range cfgs {
			m.tls.Apply(c)
		}
	}
	return cfgs
}

// socket is the Unix socket "localhost" means.
func (m MySQLOptions) socket() string {
	if env := os.Getenv("MYSQL_UNIX_PORT"); env != "" {
		return env
	}
	return DefaultSocket
}

// setSwitch sets *dst to an on/off option's value (canon its name).
func setSwitch(dst *bool, canon, value string) error {
	on, err := parseSwitch(value)
	if err != nil {
		return fmt.Errorf("invalid value for --%s: %w", strings.ReplaceAll(canon, "_", "-"), err)
	}
	*dst = on
	return nil
}

// parseSwitch reads an on/off option's value as sysbench does; given bare
// (empty), it is on.
func parseSwitch(value string) (bool, error) {
	switch strings.ToLower(value) {
	case "", "on", "true", "yes", "1":
		return true, nil
	case "off", "false", "no", "0":
		return false, nil
	}
	return false, fmt.Errorf("%q (want on or off)", value)
}
