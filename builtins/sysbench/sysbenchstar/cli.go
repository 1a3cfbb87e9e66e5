package sysbenchstar

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/cli"
	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/builtins/sysbench"
	"github.com/starbench/starbench/runner/results"
)

const sysbenchLong = `Sysbench runs sysbench command lines, as printed in benchmark reports, with starbench's Go
workload engine: the same statements, the same counting, the same report layout (profile 1.0.20 by
default, --profile=master for sysbench master's defaults and layout).

Options may come before or after the script and the command. The script is a name or a path
(recognised by its base name; the Lua file need not exist): oltp_point_select, oltp_read_only,
oltp_read_write, oltp_write_only, oltp_update_index, oltp_update_non_index, oltp_delete,
oltp_insert, bulk_insert, select_random_points, select_random_ranges, oltp_common (for prepare and
cleanup), and the legacy oltp_legacy/insert.lua and oltp_legacy/bulk_insert.lua. Commands: prepare,
prewarm (warmup in master), run, cleanup, help.

Connection: sysbench's --mysql-host (a list spreads connections), --mysql-port, --mysql-socket,
--mysql-user, --mysql-password, --mysql-db; or starbench's --target DSN|embedded|sandbox:mariadb|sandbox:tidb.
--mysql-host=localhost (the default) is the Unix socket, as libmysqlclient has it: --mysql-socket,
else $MYSQL_UNIX_PORT, else /run/mysqld/mysqld.sock.
TLS: --mysql-ssl=on is sysbench 1.0.20's: client-cert.pem, client-key.pem and cacert.pem from the
current directory, the server's certificate checked against the CA (not its name), as Debian's
sysbench does; or a mode as MySQL's clients and later sysbench name it: DISABLED, PREFERRED (TLS
when offered), REQUIRED (encrypted, nothing checked), VERIFY_CA, VERIFY_IDENTITY (the name too),
with --mysql-ssl-ca=FILE (else the system's CAs), --mysql-ssl-cert/--mysql-ssl-key=FILE (a client
certificate) and --mysql-ssl-cipher=NAME[:NAME...] (OpenSSL names of TLS 1.2 suites; the
connection then stays at TLS 1.2). --mysql-compression=on compresses the protocol (zlib).
--mysql-dry-run sends nothing (every statement succeeds at once); --config-file=FILE reads options
as sysbench 1.0.20 does.

Reports: --report-interval=N prints a line every N seconds; --report-checkpoints=S1,S2,... prints
sysbench's full report at those seconds, each of the time since the previous one, and the final
report then covers the time since the last (the results folder keeps the whole run);
--verbosity=0..2 leaves out sysbench's log lines; --validate is accepted (sysbench's OLTP scripts
check nothing more with it) and named in the run header, as sysbench names it.

starbench additions: --profile=1.0.20|master, --target, --out DIR (results folder of a run; default
results/<UTC time>-sysbench-<script>/), --if-exists=error|drop|reuse (prepare on existing tables),
--load-method=auto|insert|load-data (how prepare loads rows: auto streams them with LOAD DATA LOCAL
INFILE where the server accepts it and sends sysbench's INSERTs where it refuses; the rows are the
same either way).
--rand-seed=N makes the statement stream repeatable: the same seed gives every thread the same
statements (when it is 0 a seed is drawn and printed).
--segment=i/n runs the i-th of n slices of the load, for running one load from several machines:
thread j (0-based) of --threads belongs to segment j mod n + 1, keeping its statement stream, so the
n segments run with one --rand-seed (required) issue the statements of the whole load; --rate and
--events are split the same way. 'starbench merge' merges the segments' folders exactly.

Every run writes a results folder: summary.json, intervals.csv, latency.hlog (HdrHistogram log),
output.txt (exactly what was printed) and manifest.json. Passwords never appear in it.

Exit codes: 0 ok, 1 the command failed, 2 bad command line, 130 interrupted.`

// Command is `starbench sysbench ...`: sysbench command lines as reports
// print them.
var Command = &cli.Command{
	SeedFlag:      "--rand-seed",
	PasswordFlags: []string{"--mysql-password", "--mysql_password", "--pgsql-password"},
	Use:           "sysbench [options] SCRIPT COMMAND [options]",
	Short:         "Run sysbench command lines (prepare, run, cleanup) with the Go workload engine",
	Long:          sysbenchLong,
	Example: `  starbench sysbench oltp_read_write --tables=16 --table-size=10000 --threads=16 --mysql-host=127.0.0.1 --mysql-port=4000 --mysql-user=root prepare
  starbench sysbench --db-driver=mysql /usr/share/sysbench/oltp_point_select.lua --mysql-host=127.0.0.1 --mysql-port=4000 --mysql-user=root --tables=16 --table-size=10000 --threads=150 --time=300 --report-interval=10 run
  starbench sysbench oltp_read_only --target sandbox:mariadb --table-size=1000 --time=10 run   # prepares first: the server lives for this command only
  starbench sysbench oltp_read_write help`,
	Run: func(ctx context.Context, env *cli.Env, args []string) error { return (&command{env}).run(ctx, args) },
}

// command is one `starbench sysbench` invocation.
type command struct{ *cli.Env }

func (a *command) run(ctx context.Context, args []string) error {
	cl, err := sysbench.ParseCommandLine(args)
	if err != nil {
		return cli.Usagef("sysbench: %v\nRun 'starbench sysbench --help' for usage.", err)
	}
	a.AddSecrets(cl.MySQL.Password)
	for _, w := range cl.Warnings {
		fmt.Fprintf(a.Stderr, "warning: %s\n", w)
	}
	if len(cl.Unused) > 0 {
		fmt.Fprintf(a.Stderr, "note: %s: sysbench's, without effect on what starbench sends or measures; left\n", strings.Join(cl.Unused, " "))
	}
	if cl.Version {
		fmt.Fprintf(a.Stdout, "sysbench 1.0.20 compatible (starbench %s)\n", a.ToolVersion)
		return nil
	}
	if cl.Help && cl.Script == "" {
		if err := a.Help(); err != nil {
			return err
		}
		fmt.Fprintf(a.Stdout, "\n%s", sysbench.GeneralHelp(&cl.Options))
		return nil
	}
	script, err := sysbench.LookupScript(cl.Script)
	if err != nil {
		return cli.Usagef("sysbench: %v", err)
	}
	printer := &sysbench.Printer{W: a.Stdout, Opts: &cl.Options, ToolLabel: "starbench " + a.ToolVersion}
	if cl.Help || cl.Command == "help" {
		printer.Banner()
		fmt.Fprint(a.Stdout, sysbench.HelpText(script, cl.Script, &cl.Options))
		return nil
	}
	wl, err := sysbench.NewWorkload(cl.Script, cl.Options)
	if err != nil {
		return cli.Usagef("sysbench: %v", err)
	}
	wl.Checkpoints, wl.Validate = cl.Checkpoints, cl.Validate
	seg, err := cli.ParseSegment("sysbench", cl.Segment, cl.Command, cl.Options.RandSeed, "--rand-seed",
		int64(cl.Options.Threads), cl.Options.Events)
	if err != nil {
		return err
	}
	var ep *cli.Endpoints
	var connectors []bench.Connector
	if cl.DryRun {
		if cl.Target != "" {
			return cli.Usagef("sysbench: --mysql-dry-run sends nothing to a server: leave out --target")
		}
		ep = cli.Direct(cl.MySQL.Configs())
		ep.Info["dry_run"] = true
		connectors = []bench.Connector{bench.DryConnector{}}
		fmt.Fprintln(a.Stderr, "note: --mysql-dry-run: nothing is sent to a server; every statement succeeds at once, with no rows (sysbench's dry run)")
	} else {
		if ep, err = a.endpoints(ctx, cl); err != nil {
			return err
		}
		for _, c := range ep.Configs {
			connectors = append(connectors, bench.NewSQLConnector(c, bench.PSMode(cl.Options.PSMode)))
		}
	}
	defer ep.Stop()
	conn := &bench.RoundRobin{Connectors: connectors}

	o := &cl.Options
	if cl.Verbosity < 3 {
		// sysbench's log lines are left out, the scripts' own kept; a
		// run prints nothing (its results folder has its output).
		a.Stdout = withoutLogLines{a.Stdout}
		if cl.Command == "run" {
			a.Stdout = io.Discard
		}
	} else if cl.Command != "run" {
		printer.Banner() // a run's banner is part of its step output
	}
	switch cl.Command {
	case "prepare":
		_, err = sysbench.Prepare(ctx, conn, script, o, cl.Options.RandSeed,
			sysbench.PrepareMode{IfExists: cl.IfExists, Load: cl.Load}, a.Stdout)
	case "cleanup":
		_, err = sysbench.Cleanup(ctx, conn, script, o, a.Stdout)
	case "prewarm", "warmup":
		err = sysbench.Prewarm(ctx, conn, script, o, a.Stdout)
	case "run":
		if a.PrepareFirst(ep) {
			if _, err := sysbench.Prepare(ctx, conn, script, o, cl.Options.RandSeed, sysbench.PrepareMode{Load: cl.Load}, a.Stderr); err != nil {
				return cli.WrapInterrupt(ctx, fmt.Errorf("prepare on the throwaway server: %w", err))
			}
		}
		return a.runStep(ctx, cl, wl, conn, ep, seg)
	}
	return cli.WrapInterrupt(ctx, err)
}

// endpoints resolves --target or the --mysql-* options.
func (a *command) endpoints(ctx context.Context, cl *sysbench.CommandLine) (*cli.Endpoints, error) {
	if cl.Target != "" && cl.MySQL.Given {
		return nil, cli.Usagef("sysbench: give either --target or --mysql-host/--mysql-port/--mysql-socket, not both")
	}
	if cl.Target != "" && (cl.MySQL.SSL != "" || cl.MySQL.Compression) {
		return nil, cli.Usagef("sysbench: --mysql-ssl and --mysql-compression set up the --mysql-host connections; a --target DSN says its own (tls=..., compress=true)")
	}
	ep, err := a.TargetOr(ctx, "sysbench", cl.Target, cl.MySQL.Given, cl.MySQL.Configs)
	if err != nil || cl.Target != "" {
		return ep, err
	}
	if mode := cl.MySQL.TLS.Mode; mode != "" && mode != db.TLSDisabled {
		ep.Info["tls"] = string(mode)
		if cl.MySQL.SSLOn() {
			fmt.Fprintf(a.Stderr, "note: --mysql-ssl=on: TLS with the server's certificate checked against %s and the client certificate %s (sysbench 1.0.20's files)\n", cl.MySQL.TLS.CA, cl.MySQL.TLS.Cert)
		}
	}
	if cl.MySQL.Compression {
		ep.Info["compression"] = true
	}
	return ep, nil
}

// runStep runs the workload as a benchmark step whose folder is the
// results folder.
func (a *command) runStep(ctx context.Context, cl *sysbench.CommandLine, wl *sysbench.Workload, conn bench.Connector, ep *cli.Endpoints, seg bench.Segment) error {
	seed := cl.Options.RandSeed
	if seed == 0 {
		seed = results.DrawSeed()
	}
	name := strings.ReplaceAll(strings.TrimSuffix(filepath.Base(cl.Script), ".lua"), "/", "-")
	if strings.Contains(cl.Script, "oltp_legacy/") {
		name = "oltp_legacy-" + name
	}
	spec := cli.RunSpec{What: "sysbench", Out: cl.Out, Name: "sysbench-" + name + cli.SegmentSuffix(seg), Plan: "sysbench " + wl.Script.Name, Seed: seed}
	return a.RunStep(ctx, spec, ep, wl.Step(conn, seed, "starbench "+a.ToolVersion, seg))
}

// withoutLogLines passes on what a command prints but sysbench's log lines
// at its default verbosity, which --verbosity below 3 leaves out: the
// workers' announcement (each a write of its own).
type withoutLogLines struct{ w io.Writer }

func (l withoutLogLines) Write(p []byte) (int, error) {
	if string(p) == "Initializing worker threads...\n\n" {
		return len(p), nil
	}
	return l.w.Write(p)
}
