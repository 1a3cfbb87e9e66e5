package sysbench

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
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
	Help     bool   // --help
	Version  bool   // --version
}

// MySQLOptions are sysbench's --mysql-* connection options.
type MySQLOptions struct {
	Hosts    []string
	Ports    []int
	Socket   string
	User     string
	Password string
	DB       string
	Given    bool // any --mysql-host/port/socket given
}

// starbenchOnly are options starbench adds to sysbench's.
var starbenchOnly = map[string]bool{"profile": true, "target": true, "out": true, "if_exists": true, "load_method": true}

// ParseCommandLine reads sysbench arguments in any order.
func ParseCommandLine(args []string) (*CommandLine, error) {
	cl := &CommandLine{Given: map[string]string{}, MySQL: MySQLOptions{User: "sbtest", DB: "sbtest"}}
	profile := Profile1020
	type pending struct{ name, value string }
	var opts []pending
	var positional []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "--") {
			positional = append(positional, a)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		canon := strings.ReplaceAll(name, "-", "_")
		switch canon {
		case "help":
			cl.Help = true
			continue
		case "version":
			cl.Version = true
			continue
		}
		if !hasValue && needsValue(canon) {
			if i+1 >= len(args) || strings.HasPrefix(args[i+1], "--") {
				return nil, fmt.Errorf("option --%s needs a value (--%s=VALUE)", name, name)
			}
			i++
			value, hasValue = args[i], true
		}
		switch canon {
		case "profile":
			profile = value
		case "target":
			cl.Target = value
		case "out":
			cl.Out = value
		case "if_exists":
			cl.IfExists = value
		case "load_method":
			cl.Load = value
		case "mysql_host":
			cl.MySQL.Hosts, cl.MySQL.Given = splitList(value), true
		case "mysql_port":
			for _, p := range splitList(value) {
				n, err := strconv.Atoi(p)
				if err != nil || n <= 0 || n > 65535 {
					return nil, fmt.Errorf("invalid value for --mysql-port: %q", p)
				}
				cl.MySQL.Ports = append(cl.MySQL.Ports, n)
			}
			cl.MySQL.Given = true
		case "mysql_socket":
			cl.MySQL.Socket, cl.MySQL.Given = value, true
		case "mysql_user":
			cl.MySQL.User = value
		case "mysql_password":
			cl.MySQL.Password = value
		case "mysql_db":
			cl.MySQL.DB = value
		case "verbosity":
			// Accepted from old command lines; starbench prints what sysbench prints by default.
		default:
			if _, ok := LookupOption(canon); !ok {
				return nil, fmt.Errorf("invalid option: %s", a)
			}
			opts = append(opts, pending{canon, value})
		}
	}
	cl.Options = Defaults(profile)
	for _, p := range opts {
		if err := cl.Options.Set(p.name, p.value); err != nil {
			return nil, err
		}
		opt, _ := LookupOption(p.name)
		cl.Given[opt.Name] = p.value
	}
	if cl.Help || cl.Version {
		if len(positional) > 0 {
			cl.Script = positional[0]
		}
		return cl, nil
	}
	switch len(positional) {
	case 0:
		return nil, fmt.Errorf("no workload given: name a script (oltp_read_write, /usr/share/sysbench/oltp_point_select.lua, ...) and a command (%s)", strings.Join(Commands, ", "))
	case 1:
		cl.Script = positional[0]
		if isCommand(cl.Script) {
			return nil, fmt.Errorf("no workload given before %q: name a script such as oltp_read_write", cl.Script)
		}
		return nil, fmt.Errorf("command is required after %s (supported: %s)", cl.Script, strings.Join(Commands, ", "))
	case 2:
		cl.Script, cl.Command = positional[0], positional[1]
	default:
		return nil, fmt.Errorf("unexpected arguments %q: give one script and one command", positional[2:])
	}
	if !isCommand(cl.Command) {
		return nil, fmt.Errorf("unknown command %q (supported: %s)", cl.Command, strings.Join(Commands, ", "))
	}
	if cl.Command == "warmup" && cl.Options.Profile != ProfileMaster {
		cl.Command = "prewarm"
	}
	if err := cl.Options.Validate(); err != nil {
		return nil, err
	}
	return cl, nil
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
	return starbenchOnly[canon] || strings.HasPrefix(canon, "mysql_") || canon == "verbosity"
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

// Configs returns one go-sql-driver configuration per endpoint: the hosts
// and ports lists are combined as sysbench does (each host with each port).
func (m MySQLOptions) Configs() []*mysql.Config {
	base := mysql.NewConfig()
	base.User, base.Passwd, base.DBName = m.User, m.Password, m.DB
	base.Timeout = 10 * time.Second
	if m.Socket != "" {
		c := base.Clone()
		c.Net, c.Addr = "unix", m.Socket
		return []*mysql.Config{c}
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
		for _, p := range ports {
			c := base.Clone()
			c.Net, c.Addr = "tcp", net.JoinHostPort(h, strconv.Itoa(p))
			out = append(out, c)
		}
	}
	return out
}
