// Command starbench runs database benchmark plans written in Starlark.
//
// This package is the only place that prints Starlark backtraces and maps
// errors to exit codes: 0 ok, 1 run failed, 2 usage or plan error,
// 3 threshold failed, 130 interrupted.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/starbench/starbench/builtins"
	"github.com/starbench/starbench/builtins/cli"
	"github.com/starbench/starbench/internal/redact"
	"github.com/starbench/starbench/runner"
)

// Exit codes.
const (
	exitOK          = 0
	exitFailed      = 1
	exitUsage       = 2
	exitThreshold   = 3
	exitInterrupted = 130
)

func main() {
	// STARBENCH_CPUPROFILE=FILE writes a CPU profile of the whole command
	// (for work on the engine's speed: go tool pprof FILE).
	if path := os.Getenv("STARBENCH_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil {
			if pprof.StartCPUProfile(f) == nil {
				defer pprof.StopCPUProfile()
			}
		}
	}
	ctx, stop := interruptContext(os.Stderr)
	defer stop()
	code := execute(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	pprof.StopCPUProfile()
	os.Exit(code)
}

// interruptContext is cancelled by the first SIGINT or SIGTERM; a second
// one exits at once with code 130.
func interruptContext(stderr io.Writer) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-signals:
			fmt.Fprintf(stderr, "\nstarbench: %s: stopping the run and writing its results (press Ctrl-C again to exit at once)\n", sig)
			cancel()
		case <-done:
			return
		}
		select {
		case <-signals:
			fmt.Fprintln(stderr, "starbench: interrupted again: exiting now")
			os.Exit(exitInterrupted)
		case <-done:
		}
	}()
	return ctx, func() {
		select {
		case <-done:
		default:
			close(done)
			signal.Stop(signals)
			cancel()
		}
	}
}

// usageError marks command-line mistakes found by the CLI itself.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// execute runs the CLI and returns the exit code.
func execute(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	app := &app{stdout: stdout, stderr: stderr, secrets: redact.New()}
	app.redact = app.secrets.Redact
	root := app.rootCommand()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	return app.report(err)
}

// app holds what the commands share.
type app struct {
	stdout, stderr io.Writer
	secrets        *redact.Set
	redact         func(string) string // secrets.Redact, or a run's own redaction once it ran
}

// familyCommand makes a workload family's subcommand (see package cli).
func (a *app) familyCommand(c *cli.Command) *cobra.Command {
	cmd := &cobra.Command{Use: c.Use, Short: c.Short, Long: c.Long + segmentHelp, Example: c.Example, DisableFlagParsing: true}
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		env := &cli.Env{
			Stdout: a.stdout, Stderr: a.stderr, ToolVersion: toolVersion(),
			AddSecrets: func(secrets ...string) {
				for _, s := range secrets {
					a.secrets.Add(s)
				}
			},
			Redact:       func(s string) string { return a.redact(s) },
			WriteReports: a.writeRunReports,
			Help:         cmd.Help,
			RunPlan:      a.runFamilyPlan,
		}
		ctx, args, done, err := segmentArgs(cmd.Context(), cmd.Name(), args)
		if err != nil {
			return err
		}
		defer done()
		return c.Run(ctx, env, args)
	}
	return cmd
}

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "starbench",
		Short: "Run database benchmark plans written in Starlark",
		Long: `starbench runs benchmark plans: Starlark (.star) programs that script a whole database
benchmark (prepare, analyze, back up, restore, run workloads, report) while Go builtins do the
heavy work. Every step is journaled and every run writes a results folder that says exactly
what ran.

With no --target, plans run against an embedded in-process server (good for trying plans,
meaningless for numbers).`,
		Example: `  starbench run plans/quickstart.star
  starbench run plan.star -p threads=1,2,4 -p time=60s --target 'root:pw@tcp(127.0.0.1:3306)/sbtest'
  starbench check plan.star
  starbench doc db`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return usagef("%v\nRun '%s --help' for usage.", err, cmd.CommandPath())
	})
	root.AddCommand(a.runCommand(), a.checkCommand(), a.paramsCommand(), a.rerunCommand(), a.bundleCommand(), a.modCommand())
	for _, f := range builtins.Families() {
		root.AddCommand(a.familyCommand(f.Command))
		for _, c := range f.Peers {
			root.AddCommand(a.familyCommand(c))
		}
	}
	root.AddCommand(a.reportCommand(), a.compareCommand(), a.mergeCommand(), a.docCommand(), a.versionCommand())
	root.AddCommand(a.importCommand(), a.k8sCommand(), a.agentCommand())
	return root
}

// report prints err once, redacted, and returns its exit code.
func (a *app) report(err error) int {
	var usage *usageError
	var familyUsage *cli.UsageError
	var runnerUsage *runner.UsageError
	var planErr *runner.PlanError
	var threshold *thresholdError
	switch {
	case errors.As(err, &usage), errors.As(err, &familyUsage), errors.As(err, &runnerUsage):
		fmt.Fprintf(a.stderr, "starbench: %s\n", a.redact(err.Error()))
		return exitUsage
	case errors.As(err, &planErr):
		fmt.Fprintf(a.stderr, "%s\n", a.redact(planErrorText(planErr)))
		return exitUsage
	case errors.As(err, &threshold):
		fmt.Fprintf(a.stderr, "%s\n", a.redact(err.Error()))
		return exitThreshold
	case errors.Is(err, runner.ErrInterrupted):
		fmt.Fprintf(a.stderr, "starbench: interrupted\n")
		return exitInterrupted
	}
	var evalErr *starlark.EvalError
	if errors.As(err, &evalErr) {
		fmt.Fprintf(a.stderr, "%s\n", a.redact(backtrace(evalErr)))
		return exitFailed
	}
	if strings.HasPrefix(err.Error(), "unknown command") || strings.Contains(err.Error(), "arg(s)") {
		fmt.Fprintf(a.stderr, "starbench: %s\n", err)
		return exitUsage
	}
	fmt.Fprintf(a.stderr, "starbench: %s\n", a.redact(err.Error()))
	return exitFailed
}

// planErrorText shows a syntax error as file:line:col: message and a load
// failure with the position of its load statement.
func planErrorText(e *runner.PlanError) string {
	var syn syntax.Error
	if errors.As(e.Err, &syn) {
		return fmt.Sprintf("%s: %s", syn.Pos, syn.Msg)
	}
	var resolveErrs resolve.ErrorList
	if errors.As(e.Err, &resolveErrs) {
		lines := make([]string, len(resolveErrs))
		for i, re := range resolveErrs {
			lines[i] = re.Error()
		}
		return strings.Join(lines, "\n")
	}
	var evalErr *starlark.EvalError
	if errors.As(e.Err, &evalErr) {
		return backtrace(evalErr)
	}
	return e.Err.Error()
}

// backtrace formats a Starlark error with every plan frame. The message of
// a failing builtin already names it, so its frame is not repeated.
func backtrace(e *starlark.EvalError) string {
	stack := e.CallStack
	if n := len(stack); n > 0 && stack[n-1].Pos.Filename() == "<builtin>" {
		stack = stack[:n-1]
	}
	var b strings.Builder
	if len(stack) > 0 {
		b.WriteString("Traceback (most recent call last):\n")
		for _, fr := range stack {
			fmt.Fprintf(&b, "  %s: in %s\n", fr.Pos, fr.Name)
		}
	}
	b.WriteString("Error: " + e.Msg)
	return b.String()
}

func jsonIndent(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
