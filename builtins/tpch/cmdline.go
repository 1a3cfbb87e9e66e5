package tpch

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/pflag"

	"github.com/starbench/starbench/builtins/gotpc"
)

// CommandLine is a `starbench tpch` command line: go-tpc v1.0.7's flags as
// they are (-H -P -U -p -D -T --time --count --interval --dropdata --sf
// --queries --use-explain --check), and starbench's --target, --out and
// --load-method.
type CommandLine struct {
	Command string // prepare, run or cleanup

	gotpc.Conn

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
	Segment     string // --segment i/n: run the i-th of n slices of the run
	Out         string
	LoadMethod  string
	Help        bool
}

// Commands are the subcommands, as go-tpc has them for tpch.
var Commands = []string{"prepare", "run", "cleanup"}

// ignoredFlags are go-tpc flags starbench accepts and has no use for.
var ignoredFlags = gotpc.Ignored{"max-procs": "", "pprof": "", "silence": "", "driver": "d"}

// ParseCommandLine reads a `starbench tpch` command line: flags before or
// after the command, as go-tpc's cobra reads them.
func ParseCommandLine(args []string) (*CommandLine, error) {
	cl := &CommandLine{}
	var err error
	if cl.Command, err = gotpc.Parse(cl.flagSet(), args, &cl.Conn, &cl.Help, nil, "tpch", Commands); err != nil || cl.Help {
		return cl, err
	}
	return cl, cl.check()
}

// FlagUsage lists the flags with their defaults, for --help.
func FlagUsage() string {
	return ignoredFlags.Usage((&CommandLine{}).flagSet(), "go-tpc's profiling and driver")
}

func (cl *CommandLine) flagSet() *pflag.FlagSet {
	fs := pflag.NewFlagSet("tpch", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cl.Conn.Bind(fs)
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
	fs.StringVar(&cl.Segment, "segment", "", "run the i-th of n slices of the run (i/n): thread j of --threads is segment j mod n + 1's; needs --seed, the same on every segment; 'starbench merge' merges the folders")
	fs.StringVar(&cl.Out, "out", "", "results folder of a run (new or empty)")
	fs.StringVar(&cl.LoadMethod, "load-method", "auto", "prepare: auto (LOAD DATA LOCAL where accepted), insert or load-data")
	fs.BoolVarP(&cl.Help, "help", "h", false, "help")
	ignoredFlags.Bind(fs)
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
	case cl.Check && cl.ScaleFactor != 1:
		return fmt.Errorf("--check compares the answers at scale factor 1, the only one they are known for (go-tpc's rule), not %d", cl.ScaleFactor)
	case cl.Check && cl.Explain:
		return fmt.Errorf("--check with --use-explain: the rows are EXPLAIN ANALYZE's plan, not the answer (go-tpc skips the check)")
	}
	switch cl.LoadMethod {
	case "auto", "insert", "load-data":
	default:
		return fmt.Errorf("--load-method must be auto, insert or load-data, not %q", cl.LoadMethod)
	}
	_, err := ParseQueries(cl.Queries)
	return err
}
