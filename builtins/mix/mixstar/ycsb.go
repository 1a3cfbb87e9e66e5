package mixstar

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"go.starlark.net/starlark"

	"github.com/starbench/starbench/builtins/cli"
	"github.com/starbench/starbench/builtins/db/dbstar"
	"github.com/starbench/starbench/builtins/goycsb"
	"github.com/starbench/starbench/builtins/mix"
)

// YCSBPlan is the plan `starbench ycsb` runs: the standard library's
// YCSB, whose core() takes the properties.
const YCSBPlan = "@stdlib//ycsb.star"

const ycsbLong = `Ycsb runs YCSB's core workload from go-ycsb's command line as it is (go-ycsb v1.0.3): load
creates the table and loads recordcount records, run runs operationcount operations in the
proportions the properties give. The workload is @stdlib//ycsb.star's core() with the
properties as its arguments, run as a mix: the results folder, report and compare are the mix
family's, and --dry-run lists the steps.

Properties come as go-ycsb takes them: -P files in order, then -p name=value, then --threads,
--target N, --interval and --table, with go-ycsb's defaults (uniform requests; 0.95 reads,
0.05 updates; 10 fields of 100 characters; scans up to 1000 rows; usertable). A property
starbench cannot honour (requestdistribution=hotspot, batch.size, insertstart, warmuptime,
...) is an error naming it; go-ycsb's output switches (measurementtype, silence, ...) are
listed as not used; a property neither go-ycsb's core workload nor its mysql driver reads is
listed as unknown, as go-ycsb would ignore it.

Note go-ycsb's own workload files: workloada, b, c, e and f say requestdistribution=uniform
(and e has no maxscanlength, so scans go up to 1000 rows), unlike YCSB's files, which say
zipfian; @stdlib//ycsb.star's workload("a") and the like follow YCSB's.

Connection: go-ycsb's mysql.host, mysql.port, mysql.user, mysql.password and mysql.db
(default 127.0.0.1:3306, root, test), or --target with a server: a DSN, embedded,
sandbox:mariadb or sandbox:tidb (a number given to --target is go-ycsb's operations a
second). With neither, $STARBENCH_TARGET if set, else go-ycsb's default. On a server that
lives for the command only (embedded, sandbox), run loads the records first.

Differences from go-ycsb, on purpose: load sends the records as LOAD DATA or multi-row
INSERTs (go-ycsb: one INSERT IGNORE a record), and refuses a table that exists unless
-p dropdata=true drops it first (go-ycsb's CREATE TABLE IF NOT EXISTS adds to it); run
stops at a server error other than deadlock (1213), record changed (1020) and lock wait
timeout (1205), which it counts and goes on after (go-ycsb prints every error and goes on);
--target paces a run open loop (a late operation's latency counts from when it was due).

Exit codes: 0 ok, 1 the command failed, 2 bad command line or property, 130 interrupted.`

// YCSBCommand is `starbench ycsb load|run mysql -P FILE -p name=value ...`.
var YCSBCommand = &cli.Command{
	SeedFlag: "--seed",
	Use:      "ycsb load|run mysql|tidb [-P FILE]... [-p name=value]... [--threads N] [--target N|SERVER] [flags]",
	Short:    "Run YCSB's core workload from go-ycsb's command line",
	Long:     ycsbLong,
	Example: `  starbench ycsb load mysql -P workloads/workloadb -p recordcount=100000 -p mysql.host=10.0.1.5 -p mysql.port=4000 --threads 16
  starbench ycsb run mysql -P workloads/workloadb -p operationcount=1000000 -p mysql.host=10.0.1.5 -p mysql.port=4000 --threads 64
  starbench ycsb run tidb -P workloads/workloada -p requestdistribution=zipfian -p operationcount=10000 --target sandbox:tidb`,
	Run: runYCSB,
}

func runYCSB(ctx context.Context, env *cli.Env, args []string) error {
	usage := func(err error) error {
		return cli.Usagef("ycsb: %v\nRun 'starbench ycsb --help' for usage.", err)
	}
	cl, err := goycsb.Parse(args)
	if err != nil {
		return usage(err)
	}
	if cl.Help {
		return env.HelpWithFlags("ycsb flags", goycsb.FlagUsage())
	}
	w, err := cl.Read()
	if w != nil && w.Conn != nil {
		env.AddSecrets(w.Conn.Passwd)
	}
	if err != nil {
		return usage(err)
	}
	targets, err := ycsbTargets(cl, w)
	if err != nil {
		return usage(err)
	}
	if len(w.Ignored) > 0 {
		fmt.Fprintf(env.Stderr, "note: go-ycsb properties of its own output, not used here: %s\n", strings.Join(w.Ignored, ", "))
	}
	if len(w.Unknown) > 0 {
		fmt.Fprintf(env.Stderr, "note: properties neither go-ycsb's core workload nor its mysql driver reads, ignored as go-ycsb ignores them: %s\n", strings.Join(w.Unknown, ", "))
	}
	fmt.Fprintln(env.Stdout, "properties:")
	for _, kv := range w.Properties {
		value := kv[1]
		if kv[0] == "mysql.password" && value != "" {
			value = "***"
		}
		fmt.Fprintf(env.Stdout, "  %s=%s\n", kv[0], env.Redact(value))
	}
	if env.RunPlan == nil {
		return errors.New("ycsb: this command cannot run plans")
	}
	r := cli.PlanRun{Plan: YCSBPlan, Targets: targets, Out: cl.Out, DryRun: cl.DryRun, Entry: ycsbEntry(w, throwaway(targets))}
	if cl.SeedGiven() {
		r.Seed = &cl.Seed
	}
	return cli.WrapInterrupt(ctx, env.RunPlan(ctx, r))
}

// ycsbTargets is the server as --target, the mysql.* properties,
// $STARBENCH_TARGET or go-ycsb's default give it.
func ycsbTargets(cl *goycsb.CommandLine, w *goycsb.Workload) ([]string, error) {
	server := cl.ServerTarget()
	switch {
	case server != "" && w.Conn != nil:
		return nil, fmt.Errorf("give the server either with --target or with mysql.* properties, not both")
	case server != "":
		return []string{server}, nil
	case w.Conn != nil:
		return []string{w.Conn.FormatDSN()}, nil
	case os.Getenv("STARBENCH_TARGET") != "":
		return nil, nil
	}
	return []string{goycsb.DefaultConn().FormatDSN()}, nil
}

// ycsbEntry is what the run calls in place of main(p): core() with the
// properties, then prepare (load) or run, each a step.
func ycsbEntry(w *goycsb.Workload, throwaway bool) func(starlark.StringDict) (starlark.Callable, error) {
	return func(globals starlark.StringDict) (starlark.Callable, error) {
		core, ok := globals["core"].(starlark.Callable)
		if !ok {
			return nil, fmt.Errorf("%s defines no core()", YCSBPlan)
		}
		return starlark.NewBuiltin("ycsb."+w.Command, func(thread *starlark.Thread, _ *starlark.Builtin, _ starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
			m, err := starlark.Call(thread, core, nil, coreKwargs(w.Core))
			if err != nil {
				return nil, err
			}
			conn, err := starlark.Call(thread, dbstar.Module.Members["connect"], nil, nil)
			if err != nil {
				return nil, err
			}
			threads := starlark.MakeInt(w.Threads)
			prepare := func(ifExists string) error {
				kw := []starlark.Tuple{{starlark.String("threads"), threads}, {starlark.String("if_exists"), starlark.String(ifExists)}}
				_, err := starlark.Call(thread, Module.Members["prepare"], starlark.Tuple{conn, m}, kw)
				var exists *mix.TablesExistError
				if errors.As(err, &exists) {
					return fmt.Errorf("ycsb load: %s exists: load with -p dropdata=true to drop it and load it anew (go-ycsb's dropdata), "+
						"or run against the records it holds", strings.Join(exists.Tables, ", "))
				}
				return err
			}
			if w.Command == "load" {
				ifExists := "error"
				if w.DropData {
					ifExists = "drop"
				}
				return starlark.None, prepare(ifExists)
			}
			if throwaway {
				// A server that lives for this command only has no records yet.
				if err := prepare(IfExistsReuse); err != nil {
					return nil, err
				}
			}
			kw := []starlark.Tuple{
				{starlark.String("threads"), threads},
				{starlark.String("time"), starlark.String("0s")},
				{starlark.String("events"), starlark.MakeInt64(w.OperationCount)},
				{starlark.String("rate"), starlark.Float(w.Rate)},
				{starlark.String("report_interval"), starlark.String(w.Interval.String())},
			}
			return starlark.Call(thread, Module.Members["run"], starlark.Tuple{conn, m}, kw)
		}), nil
	}
}

// coreKwargs are core()'s keyword arguments.
func coreKwargs(args []goycsb.Arg) []starlark.Tuple {
	var out []starlark.Tuple
	for _, a := range args {
		var v starlark.Value
		switch x := a.Value.(type) {
		case int64:
			v = starlark.MakeInt64(x)
		case float64:
			v = starlark.Float(x)
		case bool:
			v = starlark.Bool(x)
		case string:
			v = starlark.String(x)
		case map[string]float64:
			d := starlark.NewDict(len(x))
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				_ = d.SetKey(starlark.String(k), starlark.Float(x[k]))
			}
			v = d
		}
		out = append(out, starlark.Tuple{starlark.String(a.Name), v})
	}
	return out
}
