// Package cli is the contract between the starbench command and the
// command lines of the workload families (`starbench sysbench ...`, next
// `starbench tpcc ...`): what a family's subcommand gets from the command
// (Env), and how it says that its command line was wrong (UsageError, exit
// code 2). The registry (package builtins) lists each family's Command;
// cmd/starbench makes them subcommands.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"go.starlark.net/starlark"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/builtins/db/targets"
	"github.com/starbench/starbench/runner"
	"github.com/starbench/starbench/runner/results"
)

// Env is what the starbench command hands a family's subcommand.
type Env struct {
	Stdout, Stderr io.Writer
	ToolVersion    string
	// AddSecrets registers passwords: from then on Redact masks them, and
	// so does everything the command prints.
	AddSecrets func(secrets ...string)
	// Redact masks the secrets registered so far.
	Redact func(string) string
	// WriteReports writes report.md and report.html into a finished
	// results folder (a failure is printed, not returned).
	WriteReports func(dir string)
	// Help prints the subcommand's --help (a family parses its own
	// arguments, --help among them).
	Help func() error
	// RunPlan runs a file as a plan, as `starbench run` does (targets,
	// results folder, reports, progress), with r.Entry in place of its
	// main(p): for a family whose workloads are declared in .star files.
	RunPlan func(ctx context.Context, r PlanRun) error
}

// PlanRun is a family's request to run a .star file as a plan.
type PlanRun struct {
	Plan    string
	Entry   func(globals starlark.StringDict) (starlark.Callable, error)
	Targets []string // --target values, as `starbench run` takes them
	Out     string   // --out, "" for results/<UTC time>-<plan>
	Seed    *int64   // --seed, nil to draw one
	DryRun  bool     // list the steps, act on nothing
}

// Command is a family's subcommand: its help, and Run, which gets the
// arguments as typed (the family parses its own command line, as its
// peer tool does).
type Command struct {
	Use, Short, Long, Example string
	Run                       func(ctx context.Context, env *Env, args []string) error
	// SeedFlag is the flag that seeds a run ("--rand-seed"): the segments
	// of one load share it.
	SeedFlag string
	// PasswordFlags are the flags that carry a password ("--mysql-password"),
	// which a rendered manifest must not hold.
	PasswordFlags []string
}

// UsageError is a bad command line: the command prints it and exits 2.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Usagef makes a UsageError.
func Usagef(format string, args ...any) error { return &UsageError{fmt.Sprintf(format, args...)} }

// Endpoints are the servers a family's command line runs against.
type Endpoints struct {
	Configs []*mysql.Config
	Info    map[string]any // what the manifest records: kind, engine, port
	Stop    func()         // stops a server the command started (embedded, sandbox)
}

// Connector opens sessions on the endpoints in turn, their statements
// as mode says.
func (ep *Endpoints) Connector(mode bench.PSMode) bench.Connector {
	conn := &bench.RoundRobin{}
	for _, c := range ep.Configs {
		conn.Connectors = append(conn.Connectors, bench.NewSQLConnector(c, mode))
	}
	return conn
}

// HelpWithFlags prints the subcommand's --help, then its flags under
// title.
func (e *Env) HelpWithFlags(title, flags string) error {
	if err := e.Help(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(e.Stdout, "\n%s:\n%s", title, flags)
	return err
}

// Throwaway reports whether the server lives for this command only (the
// embedded server, a sandbox), so that nothing a previous command made is
// on it.
func (ep *Endpoints) Throwaway() bool {
	kind := ep.Info["kind"]
	return kind == targets.KindEmbedded || kind == targets.KindSandbox
}

// Display is the endpoints as shown (passwords redacted).
func (ep *Endpoints) Display() string {
	var parts []string
	for _, c := range ep.Configs {
		parts = append(parts, db.Redacted(c))
	}
	return strings.Join(parts, ",")
}

// Direct are endpoints given as connection configurations (the family's
// own flags: --mysql-host, -H ...).
func Direct(cfgs []*mysql.Config) *Endpoints {
	return &Endpoints{Configs: cfgs, Info: map[string]any{"kind": "dsn"}, Stop: func() {}}
}

// OpenTarget opens a --target value (a DSN, embedded or sandbox:ENGINE):
// a server it names is started, its secrets registered and its banner
// printed. what names the family in messages.
func (e *Env) OpenTarget(ctx context.Context, what, spec string) (*Endpoints, error) {
	t, err := targets.Parse(spec)
	if err != nil {
		return nil, Usagef("%s: --target %s: %v", what, db.RedactDSNText(spec), err)
	}
	srv, err := targets.Open(ctx, t)
	if err != nil {
		return nil, err
	}
	e.AddSecrets(srv.Secret, srv.Config.Passwd)
	if srv.Banner != "" {
		fmt.Fprintf(e.Stderr, "\n%s\n\n", srv.Banner)
	}
	return &Endpoints{Configs: []*mysql.Config{srv.Config}, Info: srv.Info, Stop: srv.Stop}, nil
}

// TargetOr opens target; when neither it nor the family's own connection
// options were given (ownGiven), $STARBENCH_TARGET; and with neither, the
// family's own servers (own). what names the family in messages.
func (e *Env) TargetOr(ctx context.Context, what, target string, ownGiven bool, own func() []*mysql.Config) (*Endpoints, error) {
	if target == "" && !ownGiven {
		target = os.Getenv("STARBENCH_TARGET")
	}
	if target == "" {
		return Direct(own()), nil
	}
	return e.OpenTarget(ctx, what, target)
}

// RefuseEmbeddedTPCC refuses to load TPC-C's tables into the embedded
// server (what names the family): go-mysql-server's memory tables
// compare each row inserted with every row already in the table, so the
// 300,000 order lines of one warehouse (about 4.5·10^10 comparisons) do
// not load in useful time.
func RefuseEmbeddedTPCC(what string, ep *Endpoints) error {
	if ep.Info["kind"] != targets.KindEmbedded {
		return nil
	}
	return Usagef("%s: the embedded server cannot load a TPC-C warehouse in useful time: it compares each row it inserts with every row "+
		"already in the table, and one warehouse has 300,000 order lines (7 minutes of CPU here did not load half of them).\n"+
		"Use --target sandbox:mariadb or sandbox:tidb (a private server for this command), or --target DSN", what)
}

// PrepareFirst reports whether a run must make its tables first: a server
// that lives for this command only (Throwaway) starts empty. It says so.
func (e *Env) PrepareFirst(ep *Endpoints) bool {
	if !ep.Throwaway() {
		return false
	}
	fmt.Fprintf(e.Stderr, "note: --target %s starts an empty server for this command only; preparing the tables first\n", ep.Info["kind"])
	return true
}

// WrapInterrupt marks an error that came from cancelling ctx as an
// interruption (exit code 130).
func WrapInterrupt(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("%w: %w", runner.ErrInterrupted, err)
	}
	return err
}

// RunSpec is what a family's command-line run records besides its step.
type RunSpec struct {
	What string // the family, for messages: "sysbench"
	Out  string // --out, "" for results/<UTC time>-<Name>
	Name string // the default folder's name after the time: "sysbench-oltp_read_write"
	Plan string // what ran, for the manifest: "sysbench oltp_read_write"
	Seed int64
}

// RunStep runs a family's benchmark step from its command line: the step
// folder is the results folder, with a manifest (tool, command line,
// seed, host, the target's version and variables, status) written before
// and after, and the reports at the end; the folder is printed with its
// status. The step's target and output are set here.
func (e *Env) RunStep(ctx context.Context, spec RunSpec, ep *Endpoints, step bench.Step) error {
	dir, err := results.Create(spec.Out, "", spec.Name, time.Now())
	if errors.Is(err, results.ErrNotEmpty) {
		return Usagef("%s: --out %s exists and is not empty", spec.What, spec.Out)
	}
	if err != nil {
		return err
	}
	args := make([]string, len(os.Args))
	for i, a := range os.Args {
		args[i] = e.Redact(a)
	}
	manifest := results.Manifest{
		Tool:        results.Tool(e.ToolVersion),
		Plan:        spec.Plan,
		CommandLine: args,
		Seed:        spec.Seed,
		Host:        results.ReadHostInfo(),
		Targets:     map[string]any{"default": e.describe(ctx, ep)},
		Started:     time.Now().UTC(),
		Status:      results.StatusRunning,
	}
	if err := results.WriteManifest(dir, &manifest, e.Redact); err != nil {
		return err
	}
	step.Target, step.Output, step.Redact = ep.Display(), e.Stdout, e.Redact
	_, res, runErr := bench.RunStep(ctx, dir, step)
	end := time.Now().UTC()
	manifest.Ended = &end
	manifest.Status = results.StatusCompleted
	if res != nil && res.Stopped == "interrupted" {
		manifest.Status = results.StatusInterrupted
	}
	if runErr != nil {
		manifest.Status, manifest.Error = results.StatusFailed, e.Redact(runErr.Error())
	}
	if err := results.WriteManifest(dir, &manifest, e.Redact); err != nil {
		return err
	}
	e.WriteReports(dir)
	fmt.Fprintf(e.Stderr, "results: %s (%s)\n", dir, manifest.Status)
	if runErr != nil {
		return WrapInterrupt(ctx, runErr)
	}
	if manifest.Status == results.StatusInterrupted {
		return runner.ErrInterrupted
	}
	return nil
}

// describe is what the manifest records of the first endpoint: its
// version and global variables, with how it was reached.
func (e *Env) describe(ctx context.Context, ep *Endpoints) map[string]any {
	out := map[string]any{"endpoints": ep.Display()}
	for k, v := range ep.Info {
		out[k] = v
	}
	if ep.Info["dry_run"] == true {
		return out // nothing was sent to the server: nothing to ask it
	}
	c, err := db.Open(ctx, ep.Configs[0])
	if err != nil {
		out["error"] = e.Redact(err.Error())
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

// ParseSegment reads a family's --segment (what: the family, for
// messages): "" is the whole load; otherwise it must be i/n with
// 1 <= i <= n, on the run command, with a seed given with seedFlag (the
// segments of one load share it), and leave the segment at least one of
// the load's threads (and of its events, when bounded by events). Any
// of these wrong is a UsageError.
func ParseSegment(what, spec, command string, seed int64, seedFlag string, threads, events int64) (bench.Segment, error) {
	if spec == "" {
		return bench.Segment{}, nil
	}
	seg, err := bench.ParseSegment(spec)
	if err != nil {
		return seg, Usagef("%s: --%v", what, err)
	}
	switch {
	case command != "run":
		return seg, Usagef("%s: --segment slices a run; %s runs whole", what, command)
	case seed == 0:
		return seg, Usagef("%s: --segment %s needs %s=N, the same for every segment, so that the segments together are one reproducible load", what, seg, seedFlag)
	case seg.Share(threads) == 0:
		return seg, Usagef("%s: --segment %s of %d threads leaves this segment without a thread: run at most %d segments", what, seg, threads, threads)
	case events > 0 && seg.Share(events) == 0:
		return seg, Usagef("%s: --segment %s of %d events leaves this segment without an event", what, seg, events)
	}
	return seg, nil
}

// SegmentSuffix names a segment's results folder: "-seg2of3", "" for the
// whole load.
func SegmentSuffix(seg bench.Segment) string {
	if seg.Whole() {
		return ""
	}
	return fmt.Sprintf("-seg%dof%d", seg.Index, seg.Count)
}

// CreateUnknownDatabase is go-tpc's rule for its -D (v1.0.7,
// cmd/go-tpc/main.go, openDB), which every go-tpc command follows: when a
// server answers that the database is unknown (error 1049), the database
// is created (CREATE DATABASE IF NOT EXISTS), and the output says so. A
// server that does not answer is left to the command's own connection
// to report. what names the family in messages.
func (e *Env) CreateUnknownDatabase(ctx context.Context, what string, ep *Endpoints) error {
	for _, cfg := range ep.Configs {
		created, err := db.CreateDatabaseIfUnknown(ctx, cfg)
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		if !created {
			continue
		}
		fmt.Fprintf(e.Stderr, "note: database %s did not exist on %s; created it, as go-tpc does for its -D\n", cfg.DBName, cfg.Addr)
	}
	return nil
}
