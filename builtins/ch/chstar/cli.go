package chstar

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-sql-driver/mysql"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/ch"
	"github.com/starbench/starbench/builtins/cli"
	"github.com/starbench/starbench/builtins/tpcc"
	"github.com/starbench/starbench/builtins/tpch"
	"github.com/starbench/starbench/runner/results"
)

const chLong = `Ch runs CH-benCHmark as go-tpc v1.0.7 does, with go-tpc's command line: TPC-C's transactions on
-T threads and 22 analytical queries (TPC-H's, rewritten for TPC-C's tables) on -t threads at once,
as one step whose results folder holds both: each transaction's and each query's latency
histogram, tpmC and QphH.

Commands: prepare (add nation, region and supplier, with TPC-H's rows at scale factor 1, and the
view revenue1 to TPC-C's tables, which 'starbench tpcc prepare' loads first, as with go-tpc), run
(both loads for --time or --count events), cleanup (drop what prepare made; TPC-C's tables are
'starbench tpcc cleanup''s).

Connection: go-tpc's -H/--host, -P/--port, -U/--user, -p/--password, -D/--db (defaults
127.0.0.1:4000, root, test), or starbench's --target DSN|sandbox:mariadb|sandbox:tidb (a sandbox's
run loads TPC-C's --warehouses and CH's tables first; the embedded server is refused for prepare and
run, as tpcc's help says).

Not taken: go-tpc's TiDB switches of prepare (--tiflash, --analyze, --tidb_*): give TiDB's
statements in a plan.

Exit codes: 0 ok, 1 the command failed, 2 bad command line or tables not loaded, 130 interrupted.`

// Command is `starbench ch ...`: go-tpc's command lines.
var Command = &cli.Command{
	SeedFlag:      "--seed",
	PasswordFlags: []string{"-p", "--password"},
	Use:           "ch [go-tpc flags] prepare|run|cleanup",
	Short:         "Run CH-benCHmark (go-tpc's TPC-C transactions and analytical queries at once) with the Go workload engine",
	Long:          chLong,
	Example: `  starbench tpcc -H 127.0.0.1 -P 4000 -D tpcc --warehouses 10 -T 4 prepare
  starbench ch -H 127.0.0.1 -P 4000 -D tpcc prepare
  starbench ch -H 127.0.0.1 -P 4000 -D tpcc --warehouses 10 -T 8 -t 2 --time 5m run`,
	Run: func(ctx context.Context, env *cli.Env, args []string) error { return (&command{env}).run(ctx, args) },
}

type command struct{ *cli.Env }

func (a *command) run(ctx context.Context, args []string) error {
	cl, err := ch.ParseCommandLine(args)
	if err != nil {
		return cli.Usagef("ch: %v\nRun 'starbench ch --help' for usage.", err)
	}
	a.AddSecrets(cl.Password)
	if cl.Help {
		return a.HelpWithFlags("go-tpc's and starbench's flags", ch.FlagUsage())
	}
	seg, err := cli.ParseSegment("ch", cl.Segment, cl.Command, cl.Seed, "--seed", int64(cl.Threads+cl.APThreads), cl.Count)
	if err != nil {
		return err
	}
	ep, err := a.TargetOr(ctx, "ch", cl.Target, cl.MySQLGiven, func() []*mysql.Config { return []*mysql.Config{cl.Config()} })
	if err != nil {
		return err
	}
	defer ep.Stop()
	if err := a.CreateUnknownDatabase(ctx, "ch", ep); err != nil {
		return cli.WrapInterrupt(ctx, err)
	}
	if cl.Command == "prepare" || cl.Command == "run" {
		if err := cli.RefuseEmbeddedTPCC("ch", ep); err != nil {
			return err
		}
	}
	conn := ep.Connector(bench.PSAuto)
	if cl.Seed == 0 {
		cl.Seed = results.DrawSeed()
	}
	switch cl.Command {
	case "prepare":
		err = a.prepare(ctx, cl, conn)
	case "run":
		if a.PrepareFirst(ep) {
			if _, err := tpcc.Prepare(ctx, conn, tpcc.LoadOptions{Warehouses: cl.Warehouses, Threads: max(cl.Threads, 1), Seed: cl.Seed}, a.Stderr); err != nil {
				return cli.WrapInterrupt(ctx, fmt.Errorf("ch: %w", err))
			}
			if err := a.prepare(ctx, cl, conn); err != nil {
				return err
			}
		}
		return a.runStep(ctx, cl, conn, ep, seg)
	case "cleanup":
		_, err = ch.Cleanup(ctx, conn, a.Stdout)
	}
	return cli.WrapInterrupt(ctx, err)
}

func (a *command) prepare(ctx context.Context, cl *ch.CommandLine, conn bench.Connector) error {
	o := ch.PrepareOptions{Method: cl.LoadMethod, IfExists: tpch.IfExistsError}
	if o.Method == "auto" {
		o.Method = ""
	}
	if cl.DropData {
		o.IfExists = tpch.IfExistsDrop
	}
	res, err := ch.Prepare(ctx, conn, o, a.Stdout)
	if err != nil {
		return notLoaded(ctx, err)
	}
	fmt.Fprintf(a.Stdout, "loaded %d rows into %d tables in %.1fs\n", res.TotalRows, len(res.Rows), res.Seconds)
	return nil
}

// runStep runs both loads as a benchmark step whose folder is the
// results folder.
func (a *command) runStep(ctx context.Context, cl *ch.CommandLine, conn bench.Connector, ep *cli.Endpoints, seg bench.Segment) error {
	queries, _ := tpch.ParseQueries(cl.Queries) // checked by ParseCommandLine
	o := ch.RunOptions{Warehouses: cl.Warehouses, TPThreads: cl.Threads, APThreads: cl.APThreads, Queries: queries, Time: cl.Time,
		Count: cl.Count, Interval: cl.Interval, Seed: cl.Seed, Isolation: tpcc.IsolationLevels[cl.Isolation], IgnoreAll: cl.IgnoreError,
		Segment: seg}
	// Missing tables or too few warehouses are bad input: said before a
	// results folder is made.
	if err := tpcc.VerifyLoaded(ctx, conn, tpcc.GoTPCLayout, cl.Warehouses); err != nil {
		return notLoaded(ctx, err)
	}
	step, err := ch.Step(conn, o)
	if err != nil {
		return cli.Usagef("ch: %v", err)
	}
	spec := cli.RunSpec{What: "ch", Out: cl.Out, Name: "ch" + cli.SegmentSuffix(seg), Plan: "ch", Seed: cl.Seed}
	return a.RunStep(ctx, spec, ep, step)
}

// notLoaded makes TPC-C tables that are missing or too few a usage error
// (exit 2).
func notLoaded(ctx context.Context, err error) error {
	var nl *tpcc.NotLoadedError
	if errors.As(err, &nl) {
		return cli.Usagef("ch: %v", err)
	}
	return cli.WrapInterrupt(ctx, fmt.Errorf("ch: %w", err))
}
