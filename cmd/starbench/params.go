package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/starbench/starbench/builtins/db/targets"
	"github.com/starbench/starbench/runner"
)

// paramsCommand is `starbench params PLAN.star`: what someone handed a
// plan needs to run it, without reading its source.
func (a *app) paramsCommand() *cobra.Command {
	var f planFlags
	cmd := &cobra.Command{
		Use:   "params PLAN.star|BUNDLE|RESULTS_DIR [-p name=value]...",
		Short: "Say what a plan is and what it takes: its header, parameters and targets",
		Long: `Params prints what someone handed a plan needs to run it: the plan's header comment (the
comment lines it starts with), its parameters with their types, defaults (or the -p values
given) and help, and the targets it connects to, with how to give each. It evaluates the plan
as 'starbench check' does: nothing connects and nothing is written. A bundle or a results folder
is explained as its plan (with the parameters chosen when it was made).

Exit codes: 0 ok, 1 the plan failed while being evaluated, 2 a bad command line or plan file.`,
		Example: `  starbench params plans/seed004_tidb_insert_hotspot.star
  starbench params plan.star -p scale=small`,
		Args: exactlyOnePlan,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.explainPlan(cmd, args[0], &f)
		},
	}
	f.register(cmd)
	return cmd
}

// explainPlan prints what a plan (a bundle, a results folder) is and
// takes: its header, parameters and targets.
func (a *app) explainPlan(cmd *cobra.Command, plan string, f *planFlags) error {
	opts, err := a.options(cmd, plan, f)
	if err != nil {
		return err
	}
	header, err := planHeader(opts)
	if err != nil {
		return usagef("%v", err)
	}
	opts.DryRun = true
	var discard bytes.Buffer
	opts.Stdout, opts.Stderr = &discard, &discard // the plan's own prints are not what it takes
	res, err := runner.Evaluate(cmd.Context(), opts)
	a.redact = res.Redact
	if header != "" {
		fmt.Fprintf(a.stdout, "%s\n\n", header)
	}
	if res.Params != nil {
		a.printParams(res.Params)
		if len(res.Params.Params) > 0 {
			fmt.Fprintf(a.stdout, "Give a parameter another value with -p NAME=VALUE (starbench run %s -p %s=...).\n\n", plan, res.Params.Params[0].Name)
		}
	}
	_, defaultGiven := opts.Targets[runner.DefaultTarget]
	a.printTargets(res, defaultGiven)
	return err
}

// planHeader is the comment block a plan file (or the plan of a bundle)
// starts with, its '#' markers taken off.
func planHeader(opts runner.Options) (string, error) {
	var data []byte
	if rec := opts.From; rec != nil {
		data = rec.Sources()[rec.Manifest.Plan]
	} else {
		var err error
		if data, err = os.ReadFile(opts.PlanFile); err != nil {
			return "", err
		}
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), " \t")
		if !strings.HasPrefix(line, "#") {
			break
		}
		line = strings.TrimPrefix(strings.TrimPrefix(line, "#"), " ")
		lines = append(lines, line)
	}
	return strings.TrimSpace(strings.Join(lines, "\n")), nil
}

// printTargets lists the targets the plan's dry run connected to, each
// once, with how to give the ones the command line did not. The default
// target, when neither --target nor $STARBENCH_TARGET gave it, is shown
// as not given rather than as the embedded server a run would fall back
// to (a plan written for TiDB is not for that server).
func (a *app) printTargets(res *runner.Result, defaultGiven bool) {
	var seen []string
	missing := false
	for _, s := range res.Steps {
		if s.Builtin != "db.connect" {
			continue
		}
		target := strings.TrimPrefix(s.Text, "connect ")
		if i := strings.Index(target, " (database "); i >= 0 {
			target = target[:i]
		}
		if target == targets.KindEmbedded && !defaultGiven {
			target = "default (not given: a run without --target uses the embedded server, which says nothing of a real database's speed)"
			missing = true
		}
		if !slices.Contains(seen, target) {
			seen = append(seen, target)
			missing = missing || strings.HasSuffix(target, "(not given)")
		}
	}
	if len(seen) == 0 {
		fmt.Fprintln(a.stdout, "targets: none (the plan connects to no database)")
		return
	}
	fmt.Fprintln(a.stdout, "targets:")
	for _, t := range seen {
		fmt.Fprintln(a.stdout, "  "+a.redact(t))
	}
	if missing {
		fmt.Fprintln(a.stdout, "Give the default target with --target DSN and a named one with --target NAME=DSN (or sandbox:mariadb, sandbox:tidb to try it on a private server).")
	}
}
