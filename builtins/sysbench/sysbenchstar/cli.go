package sysbenchstar

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/builtins/sysbench"
	"github.com/starbench/starbench/internal/cli"
	"github.com/starbench/starbench/internal/results"
	"github.com/starbench/starbench/internal/targets"
	"github.com/starbench/starbench/runner"
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
--mysql-user, --mysql-password, --mysql-db; or starbench's --target DSN|embedded|sandbox:mariadb.

starbench additions: --profile=1.0.20|master, --target, --out DIR (results folder of a run; default
results/<UTC time>-sysbench-<script>/), --if-exists=error|drop|reuse (prepare on existing tables),
--load-method=auto|insert|load-data (how prepare loads rows: auto streams them with LOAD DATA LOCAL
INFILE where the server accepts it and sends sysbench's INSERTs where it refuses; the rows are the
same either way).
--rand-seed=N makes the statement stream repeatable: the same seed gives every thread the same
statements (when it is 0 a seed is drawn and printed).

Every run writes a results folder: summary.json, intervals.csv, latency.hlog (HdrHistogram log),
output.txt (exactly what was printed) and manifest.json. Passwords never appear in it.

Exit codes: 0 ok, 1 the command failed, 2 bad command line, 130 interrupted.`

// Command is `starbench sysbench ...`: sysbench command lines as reports
// print them.
var Command = &cli.Command{
	Use:   "sysbench [options] SCRIPT COMMAND [options]",
	Short: "Run sysbench command lines (prepare, run, cleanup) with the Go workload engine",
	Long:  sysbenchLong,
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
		fmt.Fprint(a.Stdout, sysbench.HelpText(script, &cl.Options))
		return nil
	}
	wl, err := sysbench.NewWorkload(cl.Script, cl.Options)
	if err != nil {
		return cli.Usagef("sysbench: %v", err)
	}
	cfgs, info, stop, err := a.sysbenchEndpoints(ctx, cl)
	if err != nil {
		return err
	}
	defer stop()
	var connectors []bench.Connector
	for _, c := range cfgs {
		connectors = append(connectors, bench.NewSQLConnector(c, bench.PSMode(cl.Options.PSMode)))
	}
	conn := &bench.RoundRobin{Connectors: connectors}

	o := &cl.Options
	if cl.Command != "run" {
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
		if kind := info["kind"]; kind == "embedded" || kind == "sandbox" {
			// The server lives for this command only, so no earlier
			// prepare can have made the tables: make them first.
			fmt.Fprintf(a.Stderr, "note: --target %s starts an empty server for this command only; preparing the tables first\n", kind)
			if _, err := sysbench.Prepare(ctx, conn, script, o, cl.Options.RandSeed, sysbench.PrepareMode{Load: cl.Load}, a.Stderr); err != nil {
				return wrapInterrupt(ctx, fmt.Errorf("prepare on the throwaway server: %w", err))
			}
		}
		return a.sysbenchRun(ctx, cl, wl, conn, cfgs, info)
	}
	return wrapInterrupt(ctx, err)
}

// sysbenchEndpoints resolves --target or the --mysql-* options.
func (a *command) sysbenchEndpoints(ctx context.Context, cl *sysbench.CommandLine) ([]*mysql.Config, map[string]any, func(), error) {
	if cl.Target == "" {
		if env := os.Getenv("STARBENCH_TARGET"); env != "" && !cl.MySQL.Given {
			cl.Target = env
		}
	}
	if cl.Target == "" {
		return cl.MySQL.Configs(), map[string]any{"kind": "dsn"}, func() {}, nil
	}
	if cl.MySQL.Given {
		return nil, nil, nil, cli.Usagef("sysbench: give either --target or --mysql-host/--mysql-port/--mysql-socket, not both")
	}
	t, err := targets.Parse(cl.Target)
	if err != nil {
		return nil, nil, nil, cli.Usagef("sysbench: --target %s: %v", db.RedactDSNText(cl.Target), err)
	}
	srv, err := targets.Open(ctx, t)
	if err != nil {
		return nil, nil, nil, err
	}
	a.AddSecrets(srv.Secret, srv.Config.Passwd)
	if srv.Banner != "" {
		fmt.Fprintf(a.Stderr, "\n%s\n\n", srv.Banner)
	}
	return []*mysql.Config{srv.Config}, srv.Info, srv.Stop, nil
}

func wrapInterrupt(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("%w: %w", runner.ErrInterrupted, err)
	}
	return err
}

// sysbenchRun runs the workload as a benchmark step whose folder is the
// results folder, with its manifest.
func (a *command) sysbenchRun(ctx context.Context, cl *sysbench.CommandLine, wl *sysbench.Workload, conn bench.Connector,
	cfgs []*mysql.Config, info map[string]any) error {
	seed := cl.Options.RandSeed
	if seed == 0 {
		seed = results.DrawSeed()
	}
	dir, err := sysbenchResultsDir(cl)
	if err != nil {
		return err
	}
	manifest := results.Manifest{
		Tool:        results.ToolInfo{Name: results.ToolName, Version: a.ToolVersion, GoVersion: runtime.Version()},
		Plan:        "sysbench " + wl.Script.Name,
		CommandLine: redactAll(a.Redact, os.Args),
		Seed:        seed,
		Host:        results.ReadHostInfo(),
		Targets:     map[string]any{"default": a.describeServer(ctx, cfgs, info)},
		Started:     time.Now().UTC(),
		Status:      results.StatusRunning,
	}
	if err := results.WriteManifest(dir, &manifest, a.Redact); err != nil {
		return err
	}
	step := wl.Step(conn, seed, "starbench "+a.ToolVersion)
	step.Target, step.Output, step.Redact = endpoints(cfgs), a.Stdout, a.Redact
	_, res, runErr := bench.RunStep(ctx, dir, step)
	end := time.Now().UTC()
	manifest.Ended = &end
	manifest.Status = results.StatusCompleted
	if res != nil && res.Stopped == "interrupted" {
		manifest.Status = results.StatusInterrupted
	}
	if runErr != nil {
		manifest.Status, manifest.Error = results.StatusFailed, a.Redact(runErr.Error())
	}
	if err := results.WriteManifest(dir, &manifest, a.Redact); err != nil {
		return err
	}
	a.WriteReports(dir)
	fmt.Fprintf(a.Stderr, "results: %s (%s)\n", dir, manifest.Status)
	if runErr != nil {
		return wrapInterrupt(ctx, runErr)
	}
	if manifest.Status == results.StatusInterrupted {
		return runner.ErrInterrupted
	}
	return nil
}

func sysbenchResultsDir(cl *sysbench.CommandLine) (string, error) {
	name := strings.ReplaceAll(strings.TrimSuffix(filepath.Base(cl.Script), ".lua"), "/", "-")
	if strings.Contains(cl.Script, "oltp_legacy/") {
		name = "oltp_legacy-" + name
	}
	dir, err := results.Create(cl.Out, "", "sysbench-"+name, time.Now())
	if errors.Is(err, results.ErrNotEmpty) {
		return "", cli.Usagef("sysbench: --out %s exists and is not empty", cl.Out)
	}
	return dir, err
}

// describeServer records the server version and variables of the first endpoint.
func (a *command) describeServer(ctx context.Context, cfgs []*mysql.Config, info map[string]any) map[string]any {
	out := map[string]any{"endpoints": endpoints(cfgs)}
	for k, v := range info {
		out[k] = v
	}
	c, err := db.Open(ctx, cfgs[0])
	if err != nil {
		out["error"] = a.Redact(err.Error())
		return out
	}
	defer c.Close()
	if v, err := c.Version(ctx); err == nil {
		out["server_version"] = v
	}
	if vars, err := c.Variables(ctx, ""); err == nil {
		out["variables"] = vars
	}
	return out
}

func endpoints(cfgs []*mysql.Config) string {
	var parts []string
	for _, c := range cfgs {
		parts = append(parts, db.Redacted(c))
	}
	return strings.Join(parts, ",")
}

func redactAll(redact func(string) string, args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = redact(a)
	}
	return out
}
