package tpchstar

import (
	"context"
	"fmt"

	"github.com/go-sql-driver/mysql"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/cli"
	"github.com/starbench/starbench/builtins/tpch"
)

const tpchLong = `Tpch runs TPC-H as go-tpc v1.0.7 does, with go-tpc's command line: the same eight tables
loaded with dbgen's rows (the same rows as go-tpc's for a scale factor), the same 22 queries, and
go-tpc's [Current]/[Summary] lines, on starbench's workload engine: a latency histogram per
query, the geometric mean of the queries' latencies and the power it gives, and a results folder
that report and compare read.

Commands: prepare (create the tables and load them: each table in slices of 100,000 rows over
-T connections, with LOAD DATA LOCAL where the server takes it), run (the queries of --queries,
thread i starting at the i-th and going round the list, for --count queries or --time; with
neither, one round), cleanup (drop the eight tables).

Connection: go-tpc's -H/--host, -P/--port, -U/--user, -p/--password, -D/--db (defaults
127.0.0.1:4000, root, test), or starbench's --target DSN|embedded|sandbox:mariadb|sandbox:tidb.

--check (scale factor 1) compares every answer with TPC-H's as go-tpc does: a wrong one stops
the run naming the query, row and column (exit 1).

Exit codes: 0 ok, 1 the command failed, 2 bad command line, 130 interrupted.`

// Command is `starbench tpch ...`: go-tpc's command lines.
var Command = &cli.Command{
	SeedFlag:      "--seed",
	PasswordFlags: []string{"-p", "--password"},
	Use:           "tpch [go-tpc flags] prepare|run|cleanup",
	Short:         "Run TPC-H (go-tpc's tables, data, queries and command line) with the Go workload engine",
	Long:          tpchLong,
	Example: `  starbench tpch -H 127.0.0.1 -P 4000 -D tpch --sf 1 -T 4 prepare
  starbench tpch -H 127.0.0.1 -P 4000 -D tpch --sf 1 -T 2 --queries q1,q3,q6 --count 30 run
  starbench tpch -D tpch cleanup`,
	Run: func(ctx context.Context, env *cli.Env, args []string) error { return (&command{env}).run(ctx, args) },
}

type command struct{ *cli.Env }

func (a *command) run(ctx context.Context, args []string) error {
	cl, err := tpch.ParseCommandLine(args)
	if err != nil {
		return cli.Usagef("tpch: %v\nRun 'starbench tpch --help' for usage.", err)
	}
	a.AddSecrets(cl.Password)
	if cl.Help {
		return a.HelpWithFlags("go-tpc's and starbench's flags", tpch.FlagUsage())
	}
	seg, err := cli.ParseSegment("tpch", cl.Segment, cl.Command, cl.Seed, "--seed", int64(cl.Threads), cl.Count)
	if err != nil {
		return err
	}
	ep, err := a.TargetOr(ctx, "tpch", cl.Target, cl.MySQLGiven, func() []*mysql.Config { return []*mysql.Config{cl.Config()} })
	if err != nil {
		return err
	}
	defer ep.Stop()
	if err := a.CreateUnknownDatabase(ctx, "tpch", ep); err != nil {
		return cli.WrapInterrupt(ctx, err)
	}
	conn := ep.Connector(bench.PSAuto)
	switch cl.Command {
	case "prepare":
		err = a.prepare(ctx, cl, conn)
	case "run":
		if a.PrepareFirst(ep) {
			if err := a.prepare(ctx, cl, conn); err != nil {
				return err
			}
		}
		queries, _ := tpch.ParseQueries(cl.Queries) // checked by ParseCommandLine
		o := tpch.RunOptions{Segment: seg, ScaleFactor: cl.ScaleFactor, Queries: queries, Explain: cl.Explain, Check: cl.Check, Threads: cl.Threads, Time: cl.Time,
			Count: cl.Count, Interval: cl.Interval, Seed: cl.Seed}
		if o.Time == 0 && o.Count == 0 {
			o.Count = int64(len(queries))
		}
		step, err := tpch.Step(conn, o)
		if err != nil {
			return cli.Usagef("tpch: %v", err)
		}
		spec := cli.RunSpec{What: "tpch", Out: cl.Out, Name: "tpch" + cli.SegmentSuffix(seg), Plan: "tpch", Seed: cl.Seed}
		return a.RunStep(ctx, spec, ep, step)
	case "cleanup":
		_, err = tpch.Cleanup(ctx, conn, a.Stdout)
	}
	return cli.WrapInterrupt(ctx, err)
}

func (a *command) prepare(ctx context.Context, cl *tpch.CommandLine, conn bench.Connector) error {
	o := tpch.PrepareOptions{ScaleFactor: cl.ScaleFactor, Threads: cl.Threads, Method: cl.LoadMethod, IfExists: tpch.IfExistsError}
	if cl.DropData {
		o.IfExists = tpch.IfExistsDrop
	}
	res, err := tpch.Prepare(ctx, conn, o, a.Stdout)
	if err != nil {
		return cli.WrapInterrupt(ctx, fmt.Errorf("tpch: %w", err))
	}
	fmt.Fprintf(a.Stdout, "loaded %d rows into %d tables in %.1fs (%.0f rows/s)\n", res.TotalRows, len(res.Tables), res.Seconds, res.RowsPerS)
	return nil
}
