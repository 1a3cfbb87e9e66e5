package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/starbench/starbench/runner"
	"github.com/starbench/starbench/runner/mods"
)

const bundleLong = `Bundle writes one file holding a plan and everything it loads: its own modules, the standard
library modules it uses and its pinned shared modules (resolved and verified), with the -p
values chosen and a table of every file's sha256. 'starbench run', 'check' and 'params' take the
bundle as they take a .star file, from any directory and offline; files are read from the bundle
only, and a bundle changed after it was made is refused. With --seed the bundle also pins the
run seed, and 'starbench rerun BUNDLE' repeats exactly that run.

The plan is evaluated as 'starbench check' does to find what it reads: nothing connects and
nothing is written but the bundle. A results folder is itself a bundle (its sources/): run it
with 'starbench run DIR', or bundle it with 'starbench bundle DIR -o FILE'.

Exit codes: 0 ok, 1 the plan failed while being evaluated, 2 a bad command line or plan.`

func (a *app) bundleCommand() *cobra.Command {
	var f planFlags
	var out string
	cmd := &cobra.Command{
		Use:   "bundle PLAN.star|BUNDLE|RESULTS_DIR [-p name=value]... [--seed N] -o FILE",
		Short: "Pack a plan, every module it loads and its chosen parameters into one file to run elsewhere",
		Long:  bundleLong,
		Example: `  starbench bundle plans/seed003_tidb_v520_vs_v511.star -p scale=small -o seed003-small.bundle
  starbench check seed003-small.bundle
  starbench run seed003-small.bundle --target 'root:pw@tcp(10.0.1.5:4000)/sbtest'
  starbench bundle results/20261130T101500Z-seed003 -o seed003.bundle`,
		Args: exactlyOnePlan,
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usagef("bundle needs -o FILE, the bundle to write")
			}
			opts, err := a.options(cmd, args[0], &f)
			if err != nil {
				return err
			}
			opts.DryRun = true
			var discard bytes.Buffer
			opts.Stdout, opts.Stderr = &discard, &discard
			res, err := runner.Evaluate(cmd.Context(), opts)
			a.redact = res.Redact
			if err != nil {
				return err
			}
			overrides := f.params
			if opts.From != nil {
				overrides = append(append([]string{}, opts.From.Manifest.Overrides...), f.params...)
			}
			var seed *int64
			if cmd.Flags().Changed("seed") {
				seed = &f.seed
			}
			if err := runner.WriteBundle(out, res, overrides, seed, toolVersion()); err != nil {
				return err
			}
			a.describeBundle(out, res, overrides, seed)
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().StringVarP(&out, "out", "o", "", "the bundle file to write")
	return cmd
}

// describeBundle says what a new bundle holds.
func (a *app) describeBundle(file string, res *runner.Result, overrides []string, seed *int64) {
	fmt.Fprintf(a.stdout, "bundle %s: %s and the %d other files it reads\n", file, filepath.Base(res.Plan), len(res.Sources)-1)
	for _, m := range res.Modules {
		fmt.Fprintf(a.stdout, "  %s: %s at %s (commit %s)\n", m.Name, m.URL, (mods.Pin{Commit: m.Commit, Ref: m.Ref}).RefLabel(), m.Commit)
	}
	if len(overrides) > 0 {
		fmt.Fprintf(a.stdout, "  parameters: -p %s\n", a.redact(strings.Join(overrides, " -p ")))
	}
	if seed != nil {
		fmt.Fprintf(a.stdout, "  seed: %d ('starbench rerun %s' repeats it)\n", *seed, file)
	}
	fmt.Fprintf(a.stdout, "Run it anywhere with 'starbench run %s'; 'starbench params %s' says what it takes.\n", file, file)
}
