package ch

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/pflag"

	"github.com/starbench/starbench/builtins/gotpc"
	"github.com/starbench/starbench/builtins/tpcc"
	"github.com/starbench/starbench/builtins/tpch"
)

// CommandLine is a `starbench ch` command line: go-tpc v1.0.7's flags as
// they are (-H -P -U -p -D -T -t --warehouses --queries --time --count
// --interval --isolation --ignore-error --dropdata), and starbench's
// --target, --out, --seed, --segment and --load-method.
type CommandLine struct {
	Command string // prepare, run or cleanup
	gotpc.Conn

	Threads     int // -T: transactional
	APThreads   int // -t/--acThreads: analytical
	Warehouses  int
	Queries     string
	Time        time.Duration
	Count       int64
	Interval    time.Duration
	Isolation   int
	IgnoreError bool
	DropData    bool
	Seed        int64
	Segment     string
	Out         string
	LoadMethod  string
	Help        bool
}

// Commands are the subcommands: go-tpc's prepare and run, and cleanup,
// which drops what prepare made (go-tpc's ch has none).
var Commands = []string{"prepare", "run", "cleanup"}

// ignoredFlags are go-tpc flags starbench accepts and has no use for.
var ignoredFlags = gotpc.Ignored{"max-procs": "", "pprof": "", "silence": "", "driver": "d", "parts": "", "check-all": ""}

// refusedFlags are go-tpc ch prepare's TiDB switches, which starbench
// leaves to the plan (TiDB's statements through db.exec).
var refusedFlags = func() map[string]string {
	why := "starbench's ch prepare makes the tables and the view only; give TiDB's statements (ALTER TABLE ... SET TIFLASH REPLICA, ANALYZE TABLE) in a plan with db.exec"
	out := map[string]string{}
	for _, name := range []string{"tiflash", "analyze", "tidb_build_stats_concurrency", "tidb_distsql_scan_concurrency", "tidb_index_serial_scan_concurrency"} {
		out[name] = why
	}
	return out
}()

// ParseCommandLine reads a `starbench ch` command line: flags before or
// after the command, as go-tpc's cobra reads them.
func ParseCommandLine(args []string) (*CommandLine, error) {
	cl := &CommandLine{}
	var err error
	if cl.Command, err = gotpc.Parse(cl.flagSet(), args, &cl.Conn, &cl.Help, refusedFlags, "ch", Commands); err != nil || cl.Help {
		return cl, err
	}
	return cl, cl.check()
}

// FlagUsage lists the flags with their defaults, for --help.
func FlagUsage() string {
	return ignoredFlags.Usage((&CommandLine{}).flagSet(), "go-tpc's profiling, driver and TPC-C load flags")
}

func (cl *CommandLine) flagSet() *pflag.FlagSet {
	fs := pflag.NewFlagSet("ch", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cl.Conn.Bind(fs)
	fs.IntVarP(&cl.Threads, "threads", "T", 1, "transactional threads (TPC-C's transactions)")
	fs.IntVarP(&cl.APThreads, "acThreads", "t", 1, "analytical threads (the queries)")
	fs.IntVar(&cl.Warehouses, "warehouses", 10, "warehouses loaded (by tpcc prepare)")
	fs.StringVar(&cl.Queries, "queries", allQueries, "the queries, in order")
	fs.DurationVar(&cl.Time, "time", 0, "how long run runs (e.g. 10m; 0: until --count)")
	fs.Int64Var(&cl.Count, "count", 0, "transactions and queries run runs in all (0: until --time)")
	fs.DurationVar(&cl.Interval, "interval", 10*time.Second, "report interval")
	fs.IntVar(&cl.Isolation, "isolation", 0, "run: isolation level of the transactions: 0 the server's, 1 READ UNCOMMITTED, 2 READ COMMITTED, 4 REPEATABLE READ, 6 SERIALIZABLE (go-tpc's numbers)")
	fs.BoolVar(&cl.IgnoreError, "ignore-error", false, "run: count and retry every server error instead of stopping")
	fs.BoolVar(&cl.DropData, "dropdata", false, "prepare: drop nation, region, supplier and revenue1 first")
	fs.Int64Var(&cl.Seed, "seed", 0, "the run's seed (0: drawn and printed)")
	fs.StringVar(&cl.Segment, "segment", "", "run the i-th of n slices of all the threads (i/n; with --seed, the same on every segment)")
	fs.StringVar(&cl.Out, "out", "", "results folder of a run (new or empty)")
	fs.StringVar(&cl.LoadMethod, "load-method", "auto", "prepare: auto (LOAD DATA LOCAL where accepted), insert or load-data")
	fs.BoolVarP(&cl.Help, "help", "h", false, "help")
	ignoredFlags.Bind(fs)
	fs.Lookup("check-all").NoOptDefVal = "true"
	for name := range refusedFlags {
		if name == "tiflash" || name == "analyze" {
			fs.Bool(name, false, "go-tpc's; refused: give TiDB's statements in a plan")
		} else {
			fs.Int(name, 0, "go-tpc's; refused: give TiDB's statements in a plan")
		}
	}
	return fs
}

// check refuses what go-tpc would run into the ground with.
func (cl *CommandLine) check() error {
	switch {
	case cl.Warehouses < 1:
		return fmt.Errorf("--warehouses must be at least 1, not %d", cl.Warehouses)
	case cl.Threads < 0 || cl.APThreads < 0 || cl.Threads+cl.APThreads == 0:
		return fmt.Errorf("-T and -t must not be negative, nor both 0 (got %d and %d)", cl.Threads, cl.APThreads)
	case cl.Time < 0 || cl.Count < 0:
		return fmt.Errorf("--time and --count must not be negative")
	case cl.Interval <= 0:
		return fmt.Errorf("--interval must be positive, not %s", cl.Interval)
	case cl.Command == "run" && cl.Time == 0 && cl.Count == 0:
		return fmt.Errorf("run needs --time or --count (go-tpc would run until interrupted; give --time 10m, say)")
	}
	if _, ok := tpcc.IsolationLevels[cl.Isolation]; !ok {
		return fmt.Errorf("--isolation must be 0 (the server's), 1 (read uncommitted), 2 (read committed), 4 (repeatable read) or 6 (serializable), not %d", cl.Isolation)
	}
	switch cl.LoadMethod {
	case "auto", "insert", "load-data":
	default:
		return fmt.Errorf("--load-method must be auto, insert or load-data, not %q", cl.LoadMethod)
	}
	_, err := tpch.ParseQueries(cl.Queries)
	return err
}
