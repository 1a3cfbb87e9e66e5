package tpcc

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/pflag"

	"github.com/starbench/starbench/builtins/gotpc"
)

// CommandLine is a `starbench tpcc` command line: go-tpc v1.0.7's flags as
// they are (-H -P -U -p -D -T --warehouses --time --count --interval
// --check-all --dropdata --parts --ignore-error ...), starbench's
// --target, --out, --seed and --load-method, or a BenchmarkSQL props file
// (--props).
type CommandLine struct {
	Command string // prepare, run, check or cleanup

	gotpc.Conn

	Threads     int
	Warehouses  int
	Parts       int
	Time        time.Duration // 0: until Count
	Count       int64         // transactions in all, 0: until Time
	Interval    time.Duration
	CheckAll    bool
	NoCheck     bool
	DropData    bool
	IgnoreError bool
	Wait        bool
	Isolation   int
	Seed        int64
	Out         string
	Segment     string // --segment i/n: run the i-th of n slices of the run
	LoadMethod  string
	Driver      string          // -d/--driver: go-tpc's; only mysql (or empty) is taken
	OutputType  string          // prepare --output-type csv: go-tpc's CSV files instead of a load
	OutputDir   string          // prepare --output-dir: where they go
	CSVTables   []string        // prepare --tables: the tables written (go-tpc's names); empty: all
	Given       map[string]bool // the flags the command line gave (long names): they win over --props
	// From --props only: BenchmarkSQL's terminalWarehouseFixed and
	// limitTxnsPerMin (as a rate, transactions a second), and the JDBC
	// URL's session variables and connect timeout.
	FixedWarehouse bool
	Rate           float64
	Params         map[string]string
	ConnectTimeout time.Duration
	Props          string  // a BenchmarkSQL props file
	LayoutName     string  // --layout: go-tpc or benchmarksql; "": BenchmarkSQL's with --props, else go-tpc's
	Layout         Layout  // LayoutName read
	Weights        Weights // the mix from --props; zero: DefaultWeights
	Help           bool
}

// Commands are the subcommands, as go-tpc has them.
var Commands = []string{"prepare", "run", "check", "cleanup"}

// ignoredFlags are go-tpc flags starbench accepts and has no use for: its
// profiling endpoints (--metrics-addr is starbench's own, taken before the
// command line is parsed) and ch's analytical threads.
var ignoredFlags = gotpc.Ignored{"max-procs": "", "pprof": "", "silence": "", "max-measure-latency": "", "acThreads": "t"}

// refusedFlags are go-tpc flags whose behaviour starbench does not have:
// given, they are an error saying so rather than ignored.
var refusedFlags = map[string]string{
	"retry-count":    "starbench's prepare does not retry a failed load statement (go-tpc retries each batch, 50 times 10 s apart by default): a failure stops it naming the table and warehouse; prepare again with --dropdata",
	"retry-interval": "starbench's prepare does not retry a failed load statement (see --retry-count)",
}

// ParseCommandLine reads a `starbench tpcc` command line: flags before or
// after the command, as go-tpc's cobra reads them.
func ParseCommandLine(args []string) (*CommandLine, error) {
	cl := &CommandLine{}
	fs := cl.flagSet()
	var err error
	if cl.Command, err = gotpc.Parse(fs, args, &cl.Conn, &cl.Help, refusedFlags, "tpcc", Commands); err != nil || cl.Help {
		return cl, err
	}
	cl.Given = map[string]bool{}
	fs.Visit(func(f *pflag.Flag) { cl.Given[f.Name] = true })
	return cl, cl.check()
}

// FlagUsage lists the flags with their defaults, for --help.
func FlagUsage() string {
	return ignoredFlags.Usage((&CommandLine{}).flagSet(), "go-tpc's profiling, and ch's")
}

// flagSet binds the flags to cl's fields.
func (cl *CommandLine) flagSet() *pflag.FlagSet {
	fs := pflag.NewFlagSet("tpcc", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cl.Conn.Bind(fs)
	fs.IntVarP(&cl.Threads, "threads", "T", 1, "threads (loaders in prepare, terminals in run)")
	fs.IntVar(&cl.Warehouses, "warehouses", 10, "warehouses")
	fs.IntVar(&cl.Parts, "parts", 1, "partitions of each table by warehouse")
	fs.DurationVar(&cl.Time, "time", 0, "how long run runs (e.g. 10m; 0: until --count)")
	fs.Int64Var(&cl.Count, "count", 0, "transactions run runs in all (0: until --time)")
	fs.DurationVar(&cl.Interval, "interval", 10*time.Second, "report interval")
	fs.BoolVar(&cl.CheckAll, "check-all", false, "check every consistency condition, not only the default set")
	fs.BoolVar(&cl.NoCheck, "no-check", false, "prepare: no consistency check after the load")
	fs.BoolVar(&cl.DropData, "dropdata", false, "prepare: drop the nine tables first")
	fs.BoolVar(&cl.IgnoreError, "ignore-error", false, "run: count and retry every server error instead of stopping")
	fs.BoolVar(&cl.Wait, "wait", false, "run: keying and think times as the specification says")
	fs.IntVar(&cl.Isolation, "isolation", 0, "run: isolation level: 0 the server's, 1 READ UNCOMMITTED, 2 READ COMMITTED, 4 REPEATABLE READ, 6 SERIALIZABLE (go-tpc's numbers)")
	fs.Int64Var(&cl.Seed, "seed", 0, "data and transaction seed (0: drawn and printed)")
	fs.StringVar(&cl.Out, "out", "", "results folder of a run (new or empty)")
	fs.StringVar(&cl.Segment, "segment", "", "run the i-th of n slices of the run (i/n): thread j of --threads is segment j mod n + 1's, with its stream; needs --seed, the same on every segment; 'starbench merge' merges the folders")
	fs.StringVar(&cl.LoadMethod, "load-method", "auto", "prepare: auto (LOAD DATA LOCAL where accepted), insert or load-data")
	fs.StringVar(&cl.LayoutName, "layout", "", "the tables: go-tpc (warehouse, orders, ...) or benchmarksql (bmsql_warehouse, bmsql_oorder, ...); default benchmarksql with --props, else go-tpc")
	fs.StringVarP(&cl.Driver, "driver", "d", "", "database driver: mysql (the only one go-tpc v1.0.7 and starbench have)")
	fs.StringVar(&cl.OutputType, "output-type", "", "prepare: csv writes go-tpc's CSV files into --output-dir instead of loading the rows (the tables are made empty when the server answers)")
	fs.StringVar(&cl.OutputDir, "output-dir", "", "prepare --output-type csv: the directory of the files (DB.TABLE.THREAD.csv)")
	fs.StringSliceVar(&cl.CSVTables, "tables", nil, "prepare --output-type csv: the tables to write (e.g. item,stock; default all nine)")
	fs.StringVar(&cl.Props, "props", "", "a BenchmarkSQL props file (props.mysql): connection, warehouses, terminals, runMins, weights")
	fs.BoolVarP(&cl.Help, "help", "h", false, "help")
	ignoredFlags.Bind(fs)
	for name, why := range refusedFlags {
		fs.String(name, "", "go-tpc's; refused: "+why)
	}
	return fs
}

// check refuses values go-tpc would run into the ground with.
func (cl *CommandLine) check() error {
	switch {
	case cl.Warehouses < 1:
		return fmt.Errorf("--warehouses must be at least 1, not %d", cl.Warehouses)
	case cl.Threads < 1:
		return fmt.Errorf("--threads must be at least 1, not %d", cl.Threads)
	case cl.Parts < 1 || cl.Parts > cl.Warehouses:
		return fmt.Errorf("--parts must be between 1 and --warehouses (%d), not %d", cl.Warehouses, cl.Parts)
	case cl.Time < 0 || cl.Count < 0:
		return fmt.Errorf("--time and --count must not be negative")
	case cl.Interval <= 0:
		return fmt.Errorf("--interval must be positive, not %s", cl.Interval)
	case cl.Command == "run" && cl.Time == 0 && cl.Count == 0 && cl.Props == "":
		return fmt.Errorf("run needs --time or --count (go-tpc would run until interrupted; give --time 10m, say)")
	}
	if _, ok := IsolationLevels[cl.Isolation]; !ok {
		return fmt.Errorf("--isolation must be 0 (the server's), 1 (read uncommitted), 2 (read committed), 4 (repeatable read) or 6 (serializable), not %d", cl.Isolation)
	}
	layout, err := ParseLayout(cl.LayoutName)
	if err != nil {
		return fmt.Errorf("--%v", err)
	}
	if cl.LayoutName == "" && cl.Props != "" {
		layout = BenchmarkSQLLayout
	}
	cl.Layout = layout
	if cl.Layout == BenchmarkSQLLayout && cl.Parts > 1 {
		return fmt.Errorf("--parts: BenchmarkSQL's layout is not partitioned here")
	}
	switch cl.LoadMethod {
	case "auto", "insert", "load-data":
	default:
		return fmt.Errorf("--load-method must be auto, insert or load-data, not %q", cl.LoadMethod)
	}
	if cl.Driver != "" && cl.Driver != "mysql" {
		return fmt.Errorf("--driver %q: go-tpc v1.0.7 and starbench speak MySQL's protocol only (--driver mysql)", cl.Driver)
	}
	return cl.checkCSV()
}

// checkCSV checks go-tpc's CSV output flags: only with prepare, csv as the
// type (go-tpc loads the database on any other), a directory, go-tpc's
// tables.
func (cl *CommandLine) checkCSV() error {
	if cl.OutputType == "" {
		switch {
		case cl.OutputDir != "":
			return fmt.Errorf("--output-dir is for --output-type csv (prepare writes the rows into files instead of the database)")
		case len(cl.CSVTables) > 0:
			return fmt.Errorf("--tables is for --output-type csv: a load into the database makes all nine tables")
		}
		return nil
	}
	switch {
	case cl.Command != "prepare":
		return fmt.Errorf("--output-type is prepare's (go-tpc writes CSV files only there), not %s's", cl.Command)
	case cl.OutputType != "csv" && cl.OutputType != "CSV":
		return fmt.Errorf("--output-type %q: go-tpc writes csv only", cl.OutputType)
	case cl.OutputDir == "":
		return fmt.Errorf("--output-type csv needs --output-dir DIR")
	case cl.Layout != GoTPCLayout:
		return fmt.Errorf("--output-type csv writes go-tpc's tables, not BenchmarkSQL's (--props or --layout benchmarksql)")
	case cl.DropData:
		return fmt.Errorf("--dropdata with --output-type csv: go-tpc drops nothing when it writes files; drop the tables with cleanup")
	case cl.LoadMethod != "auto":
		return fmt.Errorf("--load-method with --output-type csv: nothing is loaded")
	}
	_, err := CSVTables(cl.CSVTables)
	return err
}

func oneOf(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}
