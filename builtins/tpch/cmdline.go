package tpch

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// CommandLine is a `starbench tpch` command line: go-tpc v1.0.7's flags as
// they are (-H -P -U -p -D -T --time --count --interval --dropdata --sf
// --queries --use-explain --check), and starbench's --target, --out and
// --load-method.
type CommandLine struct {
	Command string // prepare, run or cleanup

	Host, User, Password, DB string
	Port                     int
	Target                   string // --target: a DSN, embedded or sandbox:mariadb, instead of -H/-P/...
	MySQLGiven               bool   // some of -H -P -U -p -D was given

	Threads     int
	ScaleFactor int64
	Queries     string
	Explain     bool
	Check       bool
	Time        time.Duration
	Count       int64
	Interval    time.Duration
	DropData    bool
	Seed        int64
	Out         string
	LoadMethod  string
	Help        bool
}

// Commands are the subcommands, as go-tpc has them for tpch.
var Commands = []string{"prepare", "run", "cleanup"}

// ignoredFlags are go-tpc flags starbench accepts and has no use for.
var ignoredFlags = []string{"max-procs", "pprof", "silence", "driver"}

// ParseCommandLine reads a `starbench tpch` command line: flags before or
// after the command, as go-tpc's cobra reads them.
func ParseCommandLine(args []string) (*CommandLine, error) {
	cl := &CommandLine{}
	fs := cl.flagSet()
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	for _, name := range []string{"host", "port", "user", "password", "db"} {
		cl.MySQLGiven = cl.MySQLGiven || fs.Changed(name)
	}
	rest := fs.Args()
	if len(rest) > 0 && rest[0] == "tpch" { // go-tpc's own word, as reports print the command
		rest = rest[1:]
	}
	if cl.Help {
		return cl, nil
	}
	if len(rest) != 1 {
		return nil, fmt.Errorf("want one command (%s), got %q", strings.Join(Commands, ", "), strings.Join(rest, " "))
	}
	cl.Command = rest[0]
	switch cl.Command {
	case "prepare", "run", "cleanup":
	default:
		return nil, fmt.Errorf("unknown command %q (want %s)", cl.Command, strings.Join(Commands, ", "))
	}
	return cl, cl.check()
}

// FlagUsage lists the flags with their defaults, for --help.
func FlagUsage() string {
	fs := (&CommandLine{}).flagSet()
	for _, name := range ignoredFlags {
		fs.Lookup(name).Hidden = true
	}
	return fs.FlagUsages() + "\nAccepted and unused: --" + strings.Join(ignoredFlags, ", --") + "\n"
}

func (cl *CommandLine) flagSet() *pflag.FlagSet {
	fs := pflag.NewFlagSet("tpch", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVarP(&cl.Host, "host", "H", "127.0.0.1", "database host")
	fs.IntVarP(&cl.Port, "port", "P", 4000, "database port")
	fs.StringVarP(&cl.User, "user", "U", "root", "database user")
	fs.StringVarP(&cl.Password, "password", "p", "", "database password")
	fs.StringVarP(&cl.DB, "db", "D", "test", "database name")
	fs.StringVar(&cl.Target, "target", "", "a DSN, embedded or sandbox:mariadb (instead of -H -P -U -p -D)")
	fs.IntVarP(&cl.Threads, "threads", "T", 1, "threads (table slices loaded at once in prepare, query streams in run)")
	fs.Int64Var(&cl.ScaleFactor, "sf", 1, "scale factor (1 is about 1 GB)")
	fs.StringVar(&cl.Queries, "queries", allQueries, "the queries, in order")
	fs.BoolVar(&cl.Explain, "use-explain", false, "run: execute each query under EXPLAIN ANALYZE")
	fs.BoolVar(&cl.Check, "check", false, "run: check the answers (scale factor 1 only)")
	fs.DurationVar(&cl.Time, "time", 0, "how long run runs (0: until --count)")
	fs.Int64Var(&cl.Count, "count", 0, "queries run runs in all (0 with no --time: one round of --queries)")
	fs.DurationVar(&cl.Interval, "interval", 10*time.Second, "report interval")
	fs.BoolVar(&cl.DropData, "dropdata", false, "prepare: drop the eight tables first")
	fs.Int64Var(&cl.Seed, "seed", 0, "the run's seed (the data is dbgen's whatever the seed)")
	fs.StringVar(&cl.Out, "out", "", "results folder of a run (new or empty)")
	fs.StringVar(&cl.LoadMethod, "load-method", "auto", "prepare: auto (LOAD DATA LOCAL where accepted), insert or load-data")
	fs.BoolVarP(&cl.Help, "help", "h", false, "help")
	for _, name := range ignoredFlags {
		short := ""
		if name == "driver" {
			short = "d"
		}
		fs.StringP(name, short, "", "accepted for go-tpc's command lines; not used")
	}
	fs.Lookup("silence").NoOptDefVal = "true"
	return fs
}

// check refuses what go-tpc refuses, and what starbench cannot do yet.
func (cl *CommandLine) check() error {
	switch {
	case cl.ScaleFactor < 1:
		return fmt.Errorf("--sf must be at least 1, not %d", cl.ScaleFactor)
	case cl.Threads < 1:
		return fmt.Errorf("--threads must be at least 1, not %d", cl.Threads)
	case cl.Time < 0 || cl.Count < 0:
		return fmt.Errorf("--time and --count must not be negative")
	case cl.Interval <= 0:
		return fmt.Errorf("--interval must be positive, not %s", cl.Interval)
	case cl.Target != "" && cl.MySQLGiven:
		return fmt.Errorf("give either --target or -H/-P/-U/-p/-D, not both")
	case cl.Check && cl.ScaleFactor != 1:
		return fmt.Errorf("--check compares the answers at scale factor 1, the only one they are known for (go-tpc's rule), not %d", cl.ScaleFactor)
	case cl.Check:
		return fmt.Errorf("--check: starbench does not compare the answers yet; run without it")
	}
	switch cl.LoadMethod {
	case "auto", "insert", "load-data":
	default:
		return fmt.Errorf("--load-method must be auto, insert or load-data, not %q", cl.LoadMethod)
	}
	_, err := ParseQueries(cl.Queries)
	return err
}
