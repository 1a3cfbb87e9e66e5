package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/starbench/starbench/builtins"
	"github.com/starbench/starbench/builtins/cli"
	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/builtins/db/targets"
	"github.com/starbench/starbench/runner"
	"github.com/starbench/starbench/runner/livemetrics"
	"github.com/starbench/starbench/runner/results"
	"github.com/starbench/starbench/stdlib"
)

// planFlags are the flags run and check share.
type planFlags struct {
	params  []string
	targets []string
	seed    int64
	seedSet bool
	verbose bool // dry-run lists: every statement of a batch, every file a step writes
}

func (f *planFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringArrayVarP(&f.params, "param", "p", nil, "set a plan parameter: -p name=value (lists comma-separated: -p threads=1,2,4); repeatable")
	cmd.Flags().StringArrayVar(&f.targets, "target", nil,
		"database target: a DSN (user:pw@tcp(host:port)/db or mysql://user:pw@host:port/db), 'embedded', or "+
			"'sandbox:mariadb' or 'sandbox:tidb' (a throwaway local MariaDB, or a tidb-server on unistore); NAME=SPEC names one for db.connect(\"NAME\"); repeatable. "+
			"Default: $STARBENCH_TARGET, else embedded")
	cmd.Flags().Int64Var(&f.seed, "seed", 0, "run seed (default: drawn at random and recorded in the manifest)")
	cmd.Flags().BoolVarP(&f.verbose, "verbose", "v", false, "in the dry-run step list, show each step whole: every statement of a batch (SET GLOBAL lists), the content of every file a step writes (topologies, configurations)")
}

// options builds the runner options shared by run and check. plan is a
// .star file, a bundle or a results folder (run as a bundle).
func (a *app) options(cmd *cobra.Command, plan string, f *planFlags) (runner.Options, error) {
	var seed *int64
	if cmd.Flags().Changed("seed") {
		seed = &f.seed
	}
	opts, err := a.planOptions(plan, f.params, f.targets, seed)
	if err != nil || plan == "" {
		return opts, err
	}
	switch {
	case runner.IsBundle(plan):
		opts.From, err = runner.ReadBundle(plan)
	case runner.IsResultsFolder(plan):
		var rec *runner.Recorded
		if rec, err = runner.LoadRecorded(plan); err == nil {
			opts.From = rec.AsBundle()
		}
	}
	if opts.From != nil {
		opts.PlanFile = ""
	}
	return opts, err
}

// planOptions builds the runner options of a plan run from its file,
// -p values, --target values and --seed (nil: none given).
func (a *app) planOptions(plan string, params, targetSpecs []string, seed *int64) (runner.Options, error) {
	opts := runner.Options{
		PlanFile:    plan,
		Params:      params,
		Predeclared: builtins.Predeclared(),
		Stdlib:      stdlib.FS,
		Stdout:      a.stdout,
		Stderr:      a.stderr,
		ToolVersion: toolVersion(),
		CommandLine: os.Args,
		Seed:        seed,
	}
	targets, secrets, err := parseTargets(targetSpecs, os.Getenv("STARBENCH_TARGET"))
	if err != nil {
		return opts, err
	}
	opts.Targets, opts.Secrets = targets, secrets
	if pw, ok := os.LookupEnv("MYSQL_PWD"); ok && pw != "" {
		opts.Secrets = append(opts.Secrets, pw)
	}
	for _, s := range opts.Secrets {
		a.secrets.Add(s)
	}
	return opts, nil
}

// parseTargets reads --target values: SPEC (the default target) or
// NAME=SPEC. envDefault ($STARBENCH_TARGET) is used when none is given.
func parseTargets(values []string, envDefault string) (map[string]string, []string, error) {
	if len(values) == 0 && envDefault != "" {
		values = []string{envDefault}
	}
	given := map[string]string{}
	var secrets []string
	for _, v := range values {
		name, spec := db.SplitNamedTarget(v)
		if name == "" {
			name = runner.DefaultTarget
		}
		if _, dup := given[name]; dup {
			return nil, nil, usagef("--target: %q is given twice", name)
		}
		t, err := targets.Parse(spec)
		if err != nil {
			return nil, nil, usagef("--target %s: %v", db.RedactDSNText(v), err)
		}
		if t.Kind == targets.KindDSN {
			cfg, _ := db.ParseDSN(spec)
			if cfg.Passwd != "" {
				secrets = append(secrets, cfg.Passwd)
			}
		}
		given[name] = spec
	}
	return given, secrets, nil
}

// runFlags are run's flags: the plan flags and its own.
type runFlags struct {
	plan       planFlags
	out        string // --out
	progress   string // --progress: auto, plain or tty
	resume     string // --resume DIR
	editedPlan string // --plan, with --resume
	dryRun     bool
	quiet      bool
	segment    string // --segment i/n|job/n
	barrier    string // --start-barrier HOST:PORT
	timeout    string // --start-timeout
	metrics    string // --metrics-addr HOST:PORT
}

// register adds run's flags to cmd.
func (f *runFlags) register(cmd *cobra.Command) {
	f.plan.register(cmd)
	cmd.Flags().StringVarP(&f.out, "out", "o", "", "results folder (must be new or empty; default results/<UTC time>-<plan name>/)")
	cmd.Flags().BoolVar(&f.dryRun, "dry-run", false, "list the steps without acting: no connection, no results folder")
	cmd.Flags().StringVar(&f.progress, "progress", "auto", "auto (a live view on a terminal, else plain), plain (sysbench's interval lines and reports) or tty")
	cmd.Flags().BoolVarP(&f.quiet, "quiet", "q", false, "keep benchmark output off the terminal (it stays in output.log and the step folders)")
	cmd.Flags().StringVar(&f.resume, "resume", "", "continue the stopped run in DIR: completed steps are not redone")
	cmd.Flags().StringVar(&f.editedPlan, "plan", "", "with --resume: an edited plan whose completed steps replay identically")
	cmd.Flags().StringVar(&f.segment, "segment", "", "run the i-th of n slices of every benchmark step's load (i/n; job/n: i from JOB_COMPLETION_INDEX, "+
		"and --out DIR becomes DIR/seg-i); the n runs share --seed")
	cmd.Flags().StringVar(&f.barrier, "start-barrier", "", "with --segment: meet the other segments at HOST:PORT before each benchmark step (segment 1 serves it)")
	cmd.Flags().StringVar(&f.timeout, "start-timeout", "", "how long the barrier waits for every segment (default 10m)")
	cmd.Flags().StringVar(&f.metrics, "metrics-addr", "", "serve the run's live numbers at http://HOST:PORT/metrics in Prometheus' format "+
		"(step running, tps, latency percentiles, events, queries and errors by code), for Grafana; not in a dry run")
}

// checkArgs wants one plan file, except with --resume, which takes the
// plan from the results folder (or --plan).
func (f *runFlags) checkArgs(cmd *cobra.Command, args []string) error {
	if f.resume != "" {
		if len(args) > 0 {
			return usagef("--resume takes the plan from the results folder; give an edited plan with --plan, not as an argument")
		}
		return nil
	}
	if f.editedPlan != "" {
		return usagef("--plan only goes with --resume")
	}
	return exactlyOnePlan(cmd, args)
}

const runLong = `Run evaluates PLAN.star: it declares parameters with params(), then starbench calls main(p)
with the resolved parameters. Every builtin call that does I/O is a step, journaled in
journal.jsonl as it starts and ends.

The results folder (--out, default results/<UTC time>-<plan>/) holds manifest.json (tool
version, every loaded file with its sha256 and a copy under sources/, parameters, seed, client
host, targets with server version and global variables), journal.jsonl and output.log.

PLAN may also be a bundle ('starbench bundle') or a results folder: its plan and modules are
read from it only (from any directory, offline), with the parameters it was made with (-p
values given here come after them) and a new seed (or --seed); the new manifest says where
the files came from.

'starbench run PLAN --help' ends with what that plan takes, as 'starbench params PLAN' says it.

--dry-run evaluates the plan without acting: steps return placeholders, nothing connects and
nothing is written; the numbered step list is printed.

--resume DIR continues a stopped run (killed, interrupted, or failed at a step) in its own
folder: the plan is evaluated again from the copies in DIR/sources with the recorded params and
seed; steps the journal records as completed return their recorded results without acting; the
first step that did not complete runs for real, and everything after it. Connections reopen
lazily on the targets you give again (--target, the environment: secrets are not in the
folder) and re-apply their SET/USE statements. Completed steps that set or read server state (SET
GLOBAL, SET CONFIG, conn.variables(), SHOW VARIABLES/CONFIG, the version) run again rather than
replay: a restart or a hand-made change may have undone them; a read that differs from the record
is said. A run that used a DSN target must be given it again (it is named if not). Nothing is
written into DIR until a step runs anew, so a refused resume leaves it unchanged; a completed DIR
is said to be complete (exit 0). If the plan no longer matches the journal, resume
refuses and names the first differing step. --plan EDITED.star resumes with an edited plan as
long as every completed step replays identically; the edit is recorded in the manifest. Runs on
the embedded server or a sandbox cannot be resumed (their data is gone): use 'starbench rerun'.

Exit codes: 0 ok, 1 the run failed, 2 bad command line or plan, 130 interrupted (Ctrl-C once
stops the run cleanly and writes its results; twice exits at once).`

const runExample = `  starbench run plans/quickstart.star
  starbench run plan.star -p threads=1,2,4 -p time=30s --target sandbox:mariadb
  starbench run plan.star --target main='root:pw@tcp(10.0.1.5:4000)/sbtest' --target ref=mysql://root@10.0.1.6:3306/sbtest
  starbench run plan.star --dry-run
  starbench run --resume results/20261130T101500Z-seed003 --target 'root:pw@tcp(10.0.1.5:4000)/sbtest'
  starbench run --resume results/20261130T101500Z-seed003 --plan seed003-fixed.star --target ...`

func (a *app) runCommand() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:     "run PLAN.star|BUNDLE|RESULTS_DIR [-p name=value]... [--target DSN|embedded|sandbox:mariadb|sandbox:tidb] [--out DIR] [--dry-run] [--seed N]\n  starbench run --resume DIR [--target ...] [--plan EDITED.star]",
		Short:   "Run a plan and write its results folder",
		Long:    runLong,
		Example: runExample,
		Args:    f.checkArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runPlan(cmd, args, &f)
		},
	}
	f.register(cmd)
	// run PLAN --help also says what that plan takes, as 'params' does.
	defaultHelp := cmd.HelpFunc()
	cmd.SetHelpFunc(func(c *cobra.Command, args []string) {
		defaultHelp(c, args)
		plans := c.Flags().Args()
		if len(plans) != 1 {
			return
		}
		fmt.Fprintf(a.stdout, "\n%s\n\n", strings.Repeat("-", 72))
		if err := a.explainPlan(c, plans[0], &f.plan); err != nil {
			a.report(err)
		}
	})
	return cmd
}

// runPlan is run's action: it builds the options, evaluates the plan
// with the progress view asked for, and reports the outcome.
func (a *app) runPlan(cmd *cobra.Command, args []string, f *runFlags) error {
	plan := ""
	if len(args) > 0 {
		plan = args[0]
	}
	opts, err := a.options(cmd, plan, &f.plan)
	if err != nil {
		return err
	}
	if f.resume != "" {
		if err := a.resumeOptions(&opts, f); err != nil {
			if errors.Is(err, errComplete) {
				return nil
			}
			return err
		}
	}
	opts.OutDir, opts.DryRun, opts.Quiet = f.out, f.dryRun, f.quiet
	ctx, done, err := f.segmentOptions(cmd.Context(), &opts)
	if err != nil {
		return err
	}
	defer done()
	live, err := a.progressView(cmd, opts, f)
	if err != nil {
		return err
	}
	if live != nil {
		opts.Progress = live
	}
	if f.metrics != "" && !f.dryRun {
		srv, err := livemetrics.Listen(f.metrics, planLabel(plan, opts))
		if err != nil {
			return usagef("--metrics-addr: %v", err)
		}
		defer srv.Close()
		opts.Observer = metricsObserver{srv}
		fmt.Fprintf(a.stderr, "metrics: http://%s/metrics\n", srv.Addr)
	}
	res, err := runner.Evaluate(ctx, opts)
	if live != nil {
		live.finish()
	}
	a.redact = res.Redact
	if f.dryRun {
		a.printSteps(res, err, f.plan.verbose)
	} else if res.Dir != "" {
		a.writeRunReports(res.Dir)
		fmt.Fprintf(a.stderr, "results: %s (%s)\n", res.Dir, res.Status)
	}
	return err
}

// metricsObserver hands the run's steps and benchmark numbers to its live
// metrics.
type metricsObserver struct{ srv *livemetrics.Server }

func (o metricsObserver) StepStarted(n int, id, builtin, text string) {
	o.srv.StepStarted(n, id, builtin, text)
}
func (o metricsObserver) StepEnded(id, outcome string) { o.srv.StepEnded(id, outcome) }
func (o metricsObserver) Benchmark(b runner.BenchmarkStatus) {
	o.srv.Benchmark(livemetrics.Status{Workload: b.Workload, Threads: b.Threads, ElapsedS: b.ElapsedS, TotalS: b.TotalS,
		TPS: b.TPS, P50MS: b.P50MS, P95MS: b.P95MS, P99MS: b.P99MS, MaxMS: b.MaxMS, Final: b.Final,
		TotalEvents: b.TotalEvents, TotalQueries: b.TotalQueries, ErrorsByCode: b.ErrorsByCode})
}

// planLabel names the run's plan in its live metrics: the plan file's
// name without .star (the resumed run's, the bundle's).
func planLabel(plan string, opts runner.Options) string {
	switch {
	case opts.Resume != nil && opts.PlanFile == "":
		plan = opts.Resume.Manifest.Plan
	case opts.PlanFile != "":
		plan = opts.PlanFile
	}
	return strings.TrimSuffix(filepath.Base(plan), ".star")
}

// runFamilyPlan runs a family's .star file as a plan (cli.Env.RunPlan),
// as runPlan runs one: its results folder and reports, or its step list.
func (a *app) runFamilyPlan(ctx context.Context, r cli.PlanRun) error {
	opts, err := a.planOptions(r.Plan, nil, r.Targets, r.Seed)
	if err != nil {
		return err
	}
	opts.Entry, opts.OutDir, opts.DryRun = r.Entry, r.Out, r.DryRun
	res, err := runner.Evaluate(ctx, opts)
	a.redact = res.Redact
	if r.DryRun {
		a.printSteps(res, err, false)
	} else if res.Dir != "" {
		a.writeRunReports(res.Dir)
		fmt.Fprintf(a.stderr, "results: %s (%s)\n", res.Dir, res.Status)
	}
	return err
}

// resumeOptions loads the run to resume (--resume) into opts, with the
// edited plan if --plan gives one, and says how far it got.
func (a *app) resumeOptions(opts *runner.Options, f *runFlags) error {
	if f.out != "" || f.dryRun {
		return usagef("--resume continues in its own folder: --out and --dry-run do not go with it")
	}
	rec, err := runner.LoadRecorded(f.resume)
	if err != nil {
		return err
	}
	if rec.Manifest.Status == results.StatusCompleted {
		ended := ""
		if rec.Manifest.Ended != nil {
			ended = ", ended " + rec.Manifest.Ended.Format("2006-01-02 15:04:05 MST")
		}
		fmt.Fprintf(a.stderr, "%s is complete (%d steps%s): nothing to resume, and nothing in it was changed; "+
			"'starbench rerun %s' repeats it into a new folder\n", f.resume, rec.Completed(), ended, f.resume)
		return errComplete
	}
	if err := recordedTargetsGiven("resume", rec, opts.Targets); err != nil {
		return err
	}
	opts.Resume, opts.PlanFile = rec, f.editedPlan
	fmt.Fprintf(a.stderr, "resuming %s: %d steps completed\n", f.resume, rec.Completed())
	return nil
}

// errComplete: resume was given a folder whose run completed; it said so
// and changed nothing (exit 0).
var errComplete = errors.New("the run is complete")

// recordedTargetsGiven checks that every target a recorded run connected
// to by name (a DSN or a sandbox given with --target) is given again:
// without it the plan would connect to the embedded server. Passwords are
// not recorded, so the message shows the DSN with PASSWORD in its place.
func recordedTargetsGiven(verb string, rec *runner.Recorded, given map[string]string) error {
	var missing []string
	var names []string
	for name := range rec.Manifest.Targets {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		t := rec.Manifest.Target(name)
		if strings.ContainsAny(name, ":/@") || t.Kind == targets.KindEmbedded {
			continue // written in the plan (its endpoint or spec), or the embedded server
		}
		if _, ok := given[name]; ok || (name == runner.DefaultTarget && len(given) == 1) {
			continue
		}
		spec := t.Kind
		switch t.Kind {
		case targets.KindDSN:
			spec = strings.Replace(t.DSN, ":***@", ":PASSWORD@", 1)
		case targets.KindSandbox:
			spec = targets.KindSandbox + ":" + t.Engine
		}
		flag := "--target '" + spec + "'"
		if name != runner.DefaultTarget {
			flag = "--target " + name + "='" + spec + "'"
		}
		what := fmt.Sprintf("target %q (%s", name, t.Kind)
		if t.ServerVersion != "" {
			what += ", " + t.ServerVersion
		}
		missing = append(missing, what+"): give it again with "+flag)
	}
	if len(missing) == 0 {
		return nil
	}
	return usagef("%s: %s used %s.\nPasswords are not recorded: write yours where the DSN says PASSWORD, or set MYSQL_PWD. "+
		"Without the target the plan would connect to the embedded server.", verb, rec.Dir, strings.Join(missing, "; "))
}

// progressView returns the live terminal view --progress asks for, or nil
// for plain output (always so in a dry run or with --quiet).
func (a *app) progressView(cmd *cobra.Command, opts runner.Options, f *runFlags) (*ttyProgress, error) {
	if f.dryRun || f.quiet {
		return nil, nil
	}
	switch f.progress {
	case "tty":
		return a.liveView(cmd, opts), nil
	case "auto":
		if isTerminal(a.stdout) {
			return a.liveView(cmd, opts), nil
		}
	case "plain":
	default:
		return nil, usagef("unknown --progress %q (want auto, plain or tty)", f.progress)
	}
	return nil, nil
}

func (a *app) rerunCommand() *cobra.Command {
	var f planFlags
	var out string
	cmd := &cobra.Command{
		Use:   "rerun DIR|BUNDLE [--out NEW] [--target ...]",
		Short: "Repeat a finished run exactly: its plan sources, params and seed, into a new folder",
		Long: `Rerun runs the plan copies kept in DIR/sources again with the recorded parameters and seed,
so every step issues the same statements (the same data in prepare, the same statement streams in
runs), and writes a new results folder whose manifest records which run it repeats. Give the
targets again (--target, the environment): secrets are not kept in results folders. Compare the
two folders with 'starbench compare DIR NEW'. A bundle made with --seed repeats the same way.`,
		Example: `  starbench rerun results/20261130T101500Z-quickstart
  starbench rerun results/20261130T101500Z-seed003 --target 'root:pw@tcp(10.0.1.5:4000)/sbtest' --out results/seed003-again`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("rerun needs exactly one results folder\nRun 'starbench rerun --help' for usage.")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			load := runner.LoadRecorded
			if runner.IsBundle(args[0]) {
				load = runner.ReadBundle
			}
			rec, err := load(args[0])
			if err != nil {
				return err
			}
			opts, err := a.options(cmd, "", &f)
			if err != nil {
				return err
			}
			if err := recordedTargetsGiven("rerun", rec, opts.Targets); err != nil {
				return err
			}
			opts.Rerun, opts.OutDir = rec, out
			res, err := runner.Evaluate(cmd.Context(), opts)
			a.redact = res.Redact
			if res.Dir != "" {
				a.writeRunReports(res.Dir)
				fmt.Fprintf(a.stderr, "results: %s (%s), repeating %s\n", res.Dir, res.Status, args[0])
			}
			return err
		},
	}
	f.register(cmd)
	// rerun repeats the recorded seed and params and lists no steps.
	cmd.Flags().Lookup("seed").Usage = "the recorded run's seed is used; a --seed that differs is refused"
	cmd.Flags().Lookup("param").Usage = "the recorded run's -p values are used; give none, or exactly those"
	_ = cmd.Flags().MarkHidden("verbose")
	cmd.Flags().StringVarP(&out, "out", "o", "", "results folder (must be new or empty; default results/<UTC time>-<plan name>/)")
	return cmd
}

// liveView makes the terminal view; a quiet dry run first counts the
// plan's steps so the view can show step n of m.
func (a *app) liveView(cmd *cobra.Command, opts runner.Options) *ttyProgress {
	count := opts
	count.DryRun, count.Stdout, count.Stderr, count.Progress = true, io.Discard, io.Discard, nil
	total := 0
	if opts.Resume != nil || opts.Rerun != nil {
		return newTTYProgress(a.stdout, 0, a.redact) // step count unknown
	}
	if res, err := runner.Evaluate(cmd.Context(), count); err == nil {
		for _, s := range res.Steps {
			if !strings.Contains(s.ID, ".") {
				total++
			}
		}
	}
	return newTTYProgress(a.stdout, total, a.redact)
}

func exactlyOnePlan(cmd *cobra.Command, args []string) error {
	if len(args) != 1 {
		return usagef("%s needs exactly one plan file, got %d arguments\nRun '%s --help' for usage.", cmd.Name(), len(args), cmd.CommandPath())
	}
	if !strings.HasSuffix(args[0], ".star") {
		if st, err := os.Stat(args[0]); err == nil && st.IsDir() && !runner.IsResultsFolder(args[0]) {
			return usagef("%s is a folder; give a .star plan file, a bundle or a results folder", args[0])
		}
	}
	return nil
}

func (a *app) checkCommand() *cobra.Command {
	var f planFlags
	cmd := &cobra.Command{
		Use:   "check PLAN.star|BUNDLE|RESULTS_DIR [-p name=value]...",
		Short: "Parse a plan, validate its parameters and list its steps without running them",
		Long: `Check parses PLAN.star, validates -p overrides against its params(), and evaluates it in
dry-run mode: builtins that would act record a step and return a placeholder instead. It prints
the parameters, the numbered step list with the SQL text and commands, and notes where the
plan's control flow depended on a placeholder (so a real run may take another path).
No connection is opened and nothing is written.

Syntax errors print as plan.star:LINE:COL: message and exit 2; runtime errors print a
backtrace and exit 1.`,
		Example: `  starbench check plans/quickstart.star
  starbench check plan.star -p threads=150,300`,
		Args: exactlyOnePlan,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts, err := a.options(cmd, args[0], &f)
			if err != nil {
				return err
			}
			opts.DryRun = true
			res, err := runner.Evaluate(cmd.Context(), opts)
			a.redact = res.Redact
			if res.Params != nil {
				a.printParams(res.Params)
			}
			a.printSteps(res, err, f.verbose)
			if err == nil {
				fmt.Fprintf(a.stdout, "\n%s: OK\n", args[0])
			}
			return err
		},
	}
	f.register(cmd)
	return cmd
}

func (a *app) printParams(ps *runner.ParamSet) {
	if len(ps.Params) == 0 {
		fmt.Fprintln(a.stdout, "parameters: none")
		return
	}
	fmt.Fprintln(a.stdout, "parameters:")
	for _, p := range ps.Params {
		line := fmt.Sprintf("  %-16s %-14s = %s", p.Name, p.TypeName(), p.Value)
		if p.Set {
			line += "  (from -p)"
		}
		if p.Help != "" {
			line += "  # " + p.Help
		}
		fmt.Fprintln(a.stdout, a.redact(line))
	}
	fmt.Fprintln(a.stdout)
}

// printSteps prints a dry-run's numbered step list and its notes. A
// dry run that failed (err) before its first step prints nothing: its
// error is all there is to say; one that failed later lists the steps
// before the error.
func (a *app) printSteps(res *runner.Result, err error, verbose bool) {
	w := a.stdout
	abridged := false
	switch {
	case err != nil && len(res.Steps) == 0:
		return
	case err != nil:
		fmt.Fprintf(w, "dry run (seed %d): %d steps before the error below; nothing was executed and no connection was opened\n", res.Seed, len(res.Steps))
	default:
		fmt.Fprintf(w, "dry run (seed %d): %d steps; nothing was executed and no connection was opened\n", res.Seed, len(res.Steps))
	}
	width := 2
	for _, s := range res.Steps {
		if len(s.ID) > width {
			width = len(s.ID)
		}
	}
	for _, s := range res.Steps {
		pos := s.Pos
		if pos != "" {
			pos = "(" + shortPos(pos) + ")"
		}
		head := fmt.Sprintf("  %*s  %-16s %s", width, s.ID, s.Builtin, pos)
		fmt.Fprintln(w, a.redact(head))
		for _, line := range strings.Split(s.Text, "\n") {
			if line != "" {
				fmt.Fprintf(w, "  %*s      %s\n", width, "", a.redact(line))
			}
		}
		if s.Detail == "" || s.Detail == s.Text {
			continue
		}
		if !verbose {
			abridged = true
			continue
		}
		for _, line := range strings.Split(strings.TrimRight(s.Detail, "\n"), "\n") {
			fmt.Fprintf(w, "  %*s      | %s\n", width, "", a.redact(line))
		}
	}
	if abridged {
		fmt.Fprintln(w, "(abridged: --verbose shows every statement of a batch and the content of every file a step writes)")
	}
	if len(res.Notes) > 0 {
		fmt.Fprintln(w, "\nnotes:")
		for _, n := range res.Notes {
			fmt.Fprintf(w, "  %s\n", a.redact(n))
		}
	}
}

// shortPos shows a position relative to the working directory.
func shortPos(pos string) string {
	if wd, err := os.Getwd(); err == nil && filepath.IsAbs(pos) {
		if rel, err := filepath.Rel(wd, pos); err == nil {
			return rel
		}
	}
	return pos
}
