package tpccstar

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/cli"
	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/builtins/tpcc"
	"github.com/starbench/starbench/runner/results"
)

const tpccLong = `Tpcc runs TPC-C as go-tpc v1.0.7 does, with go-tpc's command line as reports print it: the
same nine tables, the same statements and mix, the same [Current]/[Summary] output with tpmC
and efficiency (and a tpmTotal line), on starbench's workload engine: HdrHistogram latencies per
transaction, errors by code, reconnects, and a results folder that report and compare read.

Commands: prepare (create and load the tables; then check them unless --no-check; with
--output-type csv --output-dir DIR the tables are made empty and the rows written as go-tpc's
CSV files, DB.TABLE.THREAD.csv, for LOAD DATA or TiDB Lightning), run (the five
transactions for --time or --count), check (the consistency conditions; --check-all adds
3.3.2.11, which holds only before a run), cleanup (drop the tables).

Connection: go-tpc's -H/--host, -P/--port, -U/--user, -p/--password, -D/--db (defaults
127.0.0.1:4000, root, test), or starbench's --target DSN|sandbox:mariadb|sandbox:tidb (a sandbox's
run loads --warehouses first). The embedded server is refused for prepare and run: it compares each
row it inserts with every row of its table, and a warehouse does not load in useful time.

starbench additions: --target, --out DIR (results folder of a run), --seed N (the data and the
transactions repeat for a seed), --load-method auto|insert|load-data (prepare: LOAD DATA LOCAL
where the server takes it), --props FILE (a BenchmarkSQL props.mysql: conn, user, password,
warehouses, loadWorkers, terminals, runMins or runTxnsPerTerminal, the five weights), --layout
go-tpc|benchmarksql (the tables: BenchmarkSQL's bmsql_ ones are the default with --props, so a
database either tool loaded can be run).

By default a run counts and retries deadlocks, lock wait timeouts and TiDB's retryable errors;
--ignore-error does so for every server error, as go-tpc's does.

Exit codes: 0 ok, 1 the command or a consistency condition failed, 2 bad command line, 130 interrupted.`

// Command is `starbench tpcc ...`: go-tpc's command lines.
var Command = &cli.Command{
	SeedFlag:      "--seed",
	PasswordFlags: []string{"-p", "--password"},
	Use:           "tpcc [go-tpc flags] prepare|run|check|cleanup",
	Short:         "Run TPC-C (go-tpc's tables, statements and command line) with the Go workload engine",
	Long:          tpccLong,
	Example: `  starbench tpcc -H 127.0.0.1 -P 4000 -D tpcc --warehouses 4 -T 4 prepare
  starbench tpcc -H 127.0.0.1 -P 4000 -D tpcc --warehouses 4 -T 16 --time 5m --interval 10s run
  starbench tpcc -D tpcc --warehouses 4 check
  starbench tpcc --props props.mysql run
  starbench tpcc -D tpcc --warehouses 100 -T 8 prepare --output-type csv --output-dir /data/tpcc-csv
  starbench tpcc --target sandbox:mariadb --warehouses 1 -T 2 --time 30s run   # prepares first: the server lives for this command only`,
	Run: func(ctx context.Context, env *cli.Env, args []string) error { return (&command{env}).run(ctx, args) },
}

// command is one `starbench tpcc` invocation.
type command struct{ *cli.Env }

func (a *command) run(ctx context.Context, args []string) error {
	cl, err := tpcc.ParseCommandLine(args)
	if err != nil {
		return cli.Usagef("tpcc: %v\nRun 'starbench tpcc --help' for usage.", err)
	}
	a.AddSecrets(cl.Password)
	if cl.Help {
		return a.HelpWithFlags("go-tpc's and starbench's flags", tpcc.FlagUsage())
	}
	if cl.Props != "" {
		if err := a.applyProps(cl); err != nil {
			return err
		}
	}
	seg, err := cli.ParseSegment("tpcc", cl.Segment, cl.Command, cl.Seed, "--seed", int64(cl.Threads), cl.Count)
	if err != nil {
		return err
	}
	ep, err := a.endpoints(ctx, cl)
	if err != nil {
		return err
	}
	defer ep.Stop()
	if err := a.CreateUnknownDatabase(ctx, "tpcc", ep); err != nil {
		return cli.WrapInterrupt(ctx, err)
	}
	if cl.Command == "prepare" && cl.OutputType == "" || cl.Command == "run" {
		if err := cli.RefuseEmbeddedTPCC("tpcc", ep); err != nil {
			return err
		}
	}
	conn := ep.Connector(bench.PSAuto)
	if cl.Seed == 0 {
		cl.Seed = results.DrawSeed()
	}
	switch cl.Command {
	case "prepare":
		if cl.OutputType != "" {
			err = a.writeCSV(ctx, cl, conn, ep)
			break
		}
		err = a.prepare(ctx, cl, conn, ep)
	case "run":
		if a.PrepareFirst(ep) {
			if err := a.load(ctx, cl, conn, a.Stderr); err != nil {
				return err
			}
		}
		return a.runStep(ctx, cl, conn, ep, seg)
	case "check":
		err = a.check(ctx, cl, ep)
	case "cleanup":
		_, err = tpcc.Cleanup(ctx, conn, cl.Layout, a.Stdout)
	}
	return cli.WrapInterrupt(ctx, err)
}

// applyProps takes a BenchmarkSQL props file's connection, size, threads,
// run length and weights. What the command line gives (-H/-P/-U/-p/-D,
// --warehouses, -T, --time or --count) wins over the file; the run says
// which values came from where.
func (a *command) applyProps(cl *tpcc.CommandLine) error {
	f, err := os.Open(cl.Props)
	if err != nil {
		return cli.Usagef("tpcc: --props: %v", err)
	}
	defer f.Close()
	p, err := tpcc.ReadProps(f, cl.Props)
	if err != nil {
		return cli.Usagef("tpcc: --props: %v", err)
	}
	a.AddSecrets(p.Password)
	var fromFile, fromFlags []string
	take := func(flags []string, key string, apply func()) {
		for _, f := range flags {
			if cl.Given[f] {
				fromFlags = append(fromFlags, "--"+f)
				return
			}
		}
		apply()
		fromFile = append(fromFile, key)
	}
	switch {
	case cl.Target != "":
		fromFlags = append(fromFlags, "--target")
	case cl.MySQLGiven:
		fromFlags = append(fromFlags, "the connection (-H/-P/-U/-p/-D)")
	default:
		cl.Host, cl.Port, cl.DB, cl.User, cl.Password = p.Host, p.Port, p.DB, p.User, p.Password
		cl.Params, cl.ConnectTimeout = p.Params, p.ConnectTimeout
		cl.MySQLGiven = true
		fromFile = append(fromFile, "conn", "user", "password")
	}
	take([]string{"warehouses"}, "warehouses", func() { cl.Warehouses = p.Warehouses })
	switch cl.Command {
	case "prepare":
		take([]string{"threads"}, "loadWorkers", func() { cl.Threads = max(p.LoadWorkers, 1) })
	case "run":
		take([]string{"threads"}, "terminals", func() { cl.Threads = max(p.Terminals, 1) })
		take([]string{"time", "count"}, "runMins/runTxnsPerTerminal", func() {
			cl.Time, cl.Count = p.RunTime, p.TxnsPerTerminal*int64(cl.Threads)
		})
	}
	cl.Weights = p.Weights
	if cl.Command == "run" {
		cl.FixedWarehouse = p.WarehouseFixed
		fromFile = append(fromFile, fmt.Sprintf("terminalWarehouseFixed=%v", p.WarehouseFixed))
		if p.TxnsPerMin > 0 {
			cl.Rate = float64(p.TxnsPerMin) / 60
			fromFile = append(fromFile, fmt.Sprintf("limitTxnsPerMin=%d (a rate of %.4g transactions a second in all, open loop)", p.TxnsPerMin, cl.Rate))
		}
		if cl.FixedWarehouse && cl.Threads > 10*cl.Warehouses {
			return cli.Usagef("tpcc: --props: terminalWarehouseFixed=true gives each terminal a warehouse and district of its own: %d terminals need %d warehouses, not %d (BenchmarkSQL would wait for ever)",
				cl.Threads, (cl.Threads+9)/10, cl.Warehouses)
		}
	}
	fmt.Fprintf(a.Stderr, "note: %s gives %s", cl.Props, strings.Join(append(fromFile, "the weights"), ", "))
	if len(fromFlags) > 0 {
		fmt.Fprintf(a.Stderr, "; the command line gives %s (over the file's)", strings.Join(fromFlags, ", "))
	}
	fmt.Fprintln(a.Stderr)
	if len(p.Ignored) > 0 {
		fmt.Fprintf(a.Stderr, "note: %s: keys starbench does not use: %v\n", cl.Props, p.Ignored)
	}
	for _, note := range p.Notes {
		fmt.Fprintf(a.Stderr, "note: %s: conn: %s\n", cl.Props, note)
	}
	for _, w := range p.Warnings {
		fmt.Fprintf(a.Stderr, "warning: %s\n", w)
	}
	return nil
}

// endpoints resolves --target or go-tpc's -H/-P/-U/-p/-D.
func (a *command) endpoints(ctx context.Context, cl *tpcc.CommandLine) (*cli.Endpoints, error) {
	return a.TargetOr(ctx, "tpcc", cl.Target, cl.MySQLGiven, func() []*mysql.Config {
		cfg := cl.Config()
		if cl.ConnectTimeout > 0 {
			cfg.Timeout = cl.ConnectTimeout
		}
		if len(cl.Params) > 0 {
			cfg.Params = maps.Clone(cl.Params)
		}
		return []*mysql.Config{cfg}
	})
}

// prepare loads the tables and, unless --no-check, checks them.
func (a *command) prepare(ctx context.Context, cl *tpcc.CommandLine, conn bench.Connector, ep *cli.Endpoints) error {
	if err := a.load(ctx, cl, conn, a.Stdout); err != nil {
		return err
	}
	if cl.NoCheck {
		return nil
	}
	return a.check(ctx, cl, ep)
}

func (a *command) load(ctx context.Context, cl *tpcc.CommandLine, conn bench.Connector, out io.Writer) error {
	o := tpcc.LoadOptions{Warehouses: cl.Warehouses, Threads: cl.Threads, Parts: cl.Parts, Seed: cl.Seed,
		Method: cl.LoadMethod, IfExists: tpcc.IfExistsError, Layout: cl.Layout}
	if cl.DropData {
		o.IfExists = tpcc.IfExistsDrop
	}
	res, err := tpcc.Prepare(ctx, conn, o, out)
	if err != nil {
		return cli.WrapInterrupt(ctx, err)
	}
	fmt.Fprintf(out, "loaded %d rows into %d tables in %.1fs (%.0f rows/s), seed %d\n", res.TotalRows, len(res.Tables), res.Seconds, res.RowsPerS, cl.Seed)
	return nil
}

// writeCSV is go-tpc's prepare --output-type csv: the database and the
// nine tables made empty when the server answers (as go-tpc does; when
// it does not, the files alone, as go-tpc), then the rows written as
// go-tpc's CSV files, to be loaded by TiDB Lightning or LOAD DATA.
func (a *command) writeCSV(ctx context.Context, cl *tpcc.CommandLine, conn bench.Connector, ep *cli.Endpoints) error {
	if err := a.createEmptyTables(ctx, cl, conn, ep); err != nil {
		return cli.WrapInterrupt(ctx, err)
	}
	res, err := tpcc.WriteCSVFiles(ctx, tpcc.CSVOptions{Dir: cl.OutputDir, DB: ep.Configs[0].DBName, Warehouses: cl.Warehouses,
		Threads: cl.Threads, Tables: cl.CSVTables, Seed: cl.Seed}, a.Stdout)
	if err != nil {
		return cli.WrapInterrupt(ctx, fmt.Errorf("tpcc: --output-type csv: %w", err))
	}
	fmt.Fprintf(a.Stdout, "wrote %d rows of %d tables into %d files in %s (%.1f MB) in %.1fs, seed %d, load time %s\n",
		res.TotalRows, len(res.Rows), len(res.Files), cl.OutputDir, float64(res.Bytes)/1e6, res.Seconds, cl.Seed, res.LoadTime)
	fmt.Fprintln(a.Stdout, "Skip preparing checking. Load the files into the database (LOAD DATA ... FIELDS TERMINATED BY ',' "+
		"OPTIONALLY ENCLOSED BY '\"', or TiDB Lightning), then run check.")
	return nil
}

// createEmptyTables makes the tables go-tpc's CSV output makes (the
// database was made when the server said it is unknown, as go-tpc does);
// a server that does not answer is said and passed over.
func (a *command) createEmptyTables(ctx context.Context, cl *tpcc.CommandLine, conn bench.Connector, ep *cli.Endpoints) error {
	cfg := ep.Configs[0]
	probe, err := db.Open(ctx, cfg)
	if err != nil {
		if _, isServer := db.ErrorCode(err); isServer {
			return fmt.Errorf("tpcc: %w", err) // the server answered and refused: say it
		}
		fmt.Fprintf(a.Stderr, "note: the server at %s does not answer (%v): writing the files only, no tables made\n", cfg.Addr, err)
		return nil
	}
	probe.Close()
	return tpcc.CreateEmptyTables(ctx, conn, cl.Parts, a.Stdout)
}

// check runs the consistency conditions and fails when one fails.
func (a *command) check(ctx context.Context, cl *tpcc.CommandLine, ep *cli.Endpoints) error {
	q, err := db.Open(ctx, ep.Configs[0])
	if err != nil {
		return err
	}
	defer q.Close()
	conds, err := tpcc.Check(ctx, q, cl.Layout, cl.Warehouses, cl.CheckAll)
	if err != nil {
		return notLoaded(ctx, fmt.Errorf("check: %w", err))
	}
	for _, line := range tpcc.CheckLines(conds) {
		fmt.Fprintln(a.Stdout, line)
	}
	if !tpcc.Passed(conds) {
		return fmt.Errorf("%s", failedList(conds))
	}
	return nil
}

// runStep runs the transactions as a benchmark step whose folder is the
// results folder.
func (a *command) runStep(ctx context.Context, cl *tpcc.CommandLine, conn bench.Connector, ep *cli.Endpoints, seg bench.Segment) error {
	wl, err := tpcc.NewWorkload(tpcc.WorkloadOptions{Warehouses: cl.Warehouses, Weights: cl.Weights, Wait: cl.Wait,
		Constants: tpcc.NewConstants(uint64(cl.Seed)), Isolation: tpcc.IsolationLevels[cl.Isolation], Layout: cl.Layout,
		FixedWarehouse: cl.FixedWarehouse})
	if err != nil {
		return cli.Usagef("tpcc: %v", err)
	}
	// Missing tables, another tool's or too few warehouses are bad input:
	// said before a results folder is made.
	if err := tpcc.VerifyLoaded(ctx, conn, cl.Layout, cl.Warehouses); err != nil {
		return notLoaded(ctx, err)
	}
	o := tpcc.RunOptions{Threads: cl.Threads, Time: cl.Time, Count: cl.Count, Interval: cl.Interval, Seed: cl.Seed, IgnoreAll: cl.IgnoreError, Segment: seg,
		Rate: cl.Rate}
	spec := cli.RunSpec{What: "tpcc", Out: cl.Out, Name: "tpcc" + cli.SegmentSuffix(seg), Plan: "tpcc", Seed: cl.Seed}
	return a.RunStep(ctx, spec, ep, wl.Step(conn, o))
}

// notLoaded makes tables that are missing, another tool's or too few a
// usage error (exit 2).
func notLoaded(ctx context.Context, err error) error {
	var nl *tpcc.NotLoadedError
	if errors.As(err, &nl) {
		return cli.Usagef("tpcc: %v", err)
	}
	return cli.WrapInterrupt(ctx, fmt.Errorf("tpcc: %w", err))
}
