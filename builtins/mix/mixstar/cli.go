package mixstar

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/pflag"
	"go.starlark.net/starlark"

	"github.com/starbench/starbench/builtins/cli"
	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/builtins/db/dbstar"
	"github.com/starbench/starbench/builtins/db/targets"
	"github.com/starbench/starbench/builtins/family"
	"github.com/starbench/starbench/builtins/family/familystar"
	"github.com/starbench/starbench/builtins/mix"
)

const mixLong = `Mix runs a mix declared in a .star file (mix.define, at the file's top level) from the
command line: prepare (create its tables and load them by their mix.rows), run (its
transactions for --time or --events), cleanup (drop its tables, and nothing else).

The file is evaluated as a plan whose main is the command: the run writes a results folder
(manifest, journal, the step's summary, intervals and latency histogram, report.md and
report.html) that report and compare read, and --dry-run lists the steps without acting. The
file may load other modules (@stdlib//oltp.star, files beside it) and need not define main.

--mix names the mix: the global variable that holds it or the mix's own name; it may be left
out when the file defines one mix.

--segment i/n runs the i-th of n slices of the run, for one load from several machines: thread
j (0-based) of --threads belongs to segment j mod n + 1 with its statement stream, so the n
segments run with one --seed issue the transactions of the whole load; --rate and --events are
split the same way. 'starbench merge' merges the segments' step folders exactly.

Connection: --target DSN|embedded|sandbox:mariadb|sandbox:tidb (repeatable as NAME=SPEC; default
$STARBENCH_TARGET, else embedded), as 'starbench run' takes it. On a server that lives for the
command only (embedded, sandbox), run prepares the tables first.

Exit codes: 0 ok, 1 the command failed, 2 bad command line or file, 130 interrupted.`

// Command is `starbench mix FILE.star ... prepare|run|cleanup`.
var Command = &cli.Command{
	SeedFlag: "--seed",
	Use:      "mix FILE.star [--mix NAME] [flags] prepare|run|cleanup",
	Short:    "Run a workload declared in a .star file (mix.define) from the command line",
	Long:     mixLong,
	Example: `  starbench mix shop.star --target sandbox:mariadb --threads 4 prepare
  starbench mix shop.star --mix shop --target 'root:pw@tcp(10.0.1.5:4000)/shop' --threads 64 --time 5m --report-interval 10s run
  starbench mix shop.star --target ... --threads 64 --seed 7 --segment 1/2 run   # and 2/2 on another machine
  starbench mix shop.star --target ... cleanup
  starbench mix shop.star --dry-run run`,
	Run: runCommand,
}

// cliArgs is a parsed `starbench mix` command line.
type cliArgs struct {
	file, mix, command string
	seed               int64
	seedSet            bool
	targets            []string
	out                string
	dryRun, help       bool
	options            *familystar.Flags // the family's options: --threads, --time, ...
}

func parseCommandLine(args []string) (*cliArgs, error) {
	cl := &cliArgs{}
	fs := cl.flags()
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	return cl, cl.check(fs)
}

// flags are the command line's flags, bound to cl: the mix family's
// run and prepare options (familystar.BindFlags) and the command's own.
func (cl *cliArgs) flags() *pflag.FlagSet {
	fs := pflag.NewFlagSet("mix", pflag.ContinueOnError)
	fs.SetOutput(nopWriter{})
	fs.StringVar(&cl.mix, "mix", "", "the mix: its global variable or its name (default: the file's only mix)")
	f := mix.Family{}
	cl.options = familystar.BindFlags(fs, map[string][]family.Option{"run": f.RunOptions(), "prepare": f.PrepareOptions()}, "seed")
	fs.Int64Var(&cl.seed, "seed", 0, "run seed (default: drawn at random and recorded)")
	fs.StringArrayVar(&cl.targets, "target", nil, "database target, as 'starbench run' takes it (repeatable)")
	fs.StringVar(&cl.out, "out", "", "results folder (default results/<UTC time>-<file>)")
	fs.BoolVar(&cl.dryRun, "dry-run", false, "list the steps without acting")
	fs.BoolVarP(&cl.help, "help", "h", false, "this help")
	return fs
}

// check reads the arguments after the flags and checks the values.
func (cl *cliArgs) check(fs *pflag.FlagSet) error {
	cl.seedSet = fs.Changed("seed")
	if cl.help {
		return nil
	}
	rest := fs.Args()
	if len(rest) != 2 {
		return fmt.Errorf("want FILE.star and a command (prepare, run or cleanup), got %q", strings.Join(rest, " "))
	}
	cl.file, cl.command = rest[0], rest[1]
	switch cl.command {
	case "prepare", "run", "cleanup":
	default:
		return fmt.Errorf("unknown command %q: want prepare, run or cleanup", cl.command)
	}
	if !strings.HasSuffix(cl.file, ".star") {
		return fmt.Errorf("%s: the file must be a .star file", cl.file)
	}
	o := cl.options
	if o.Int("threads") < 1 || o.Int("events") < 0 || o.Float("rate") < 0 || o.Duration("time") < 0 || o.Duration("report_interval") < 0 || o.Duration("warmup_time") < 0 {
		return fmt.Errorf("want --threads >= 1 and no negative --time, --events, --rate, --report-interval or --warmup-time")
	}
	if cl.command == "run" && o.Duration("time") == 0 && o.Int("events") == 0 {
		return fmt.Errorf("run: give a --time or --events")
	}
	return nil
}

type nopWriter struct{}

func (nopWriter) Write(p []byte) (int, error) { return len(p), nil }

func runCommand(ctx context.Context, env *cli.Env, args []string) error {
	cl, err := parseCommandLine(args)
	if err != nil {
		return cli.Usagef("mix: %v\nRun 'starbench mix --help' for usage.", err)
	}
	if cl.help {
		if err := env.Help(); err != nil {
			return err
		}
		_, err := fmt.Fprintf(env.Stdout, "\nmix flags:\n%s", cl.flags().FlagUsages())
		return err
	}
	if _, err := cli.ParseSegment("mix", cl.options.String("segment"), cl.command, cl.seed, "--seed", cl.options.Int("threads"), cl.options.Int("events")); err != nil {
		return err
	}
	if env.RunPlan == nil {
		return errors.New("mix: this command cannot run plans")
	}
	r := cli.PlanRun{Plan: cl.file, Targets: cl.targets, Out: cl.out, DryRun: cl.dryRun, Entry: cl.entry}
	if cl.seedSet {
		r.Seed = &cl.seed
	}
	return cli.WrapInterrupt(ctx, env.RunPlan(ctx, r))
}

// entry finds the mix in the file's globals and returns the function the
// run calls in place of main(p): it connects and calls the module's
// prepare, run or cleanup with the command line's options, so each is a
// step like a plan's.
func (cl *cliArgs) entry(globals starlark.StringDict) (starlark.Callable, error) {
	m, err := cl.find(globals)
	if err != nil {
		return nil, err
	}
	return starlark.NewBuiltin("mix."+cl.command, func(thread *starlark.Thread, _ *starlark.Builtin, _ starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
		conn, err := starlark.Call(thread, dbstar.Module.Members["connect"], nil, nil)
		if err != nil {
			return nil, err
		}
		if cl.command == "run" && throwaway(cl.targets) {
			// A server that lives for this command only has no tables yet.
			reuse := map[string]starlark.Value{"if_exists": starlark.String(IfExistsReuse)}
			if _, err := starlark.Call(thread, Module.Members["prepare"], starlark.Tuple{conn, m}, cl.options.Kwargs(mix.Family{}.PrepareOptions(), reuse)); err != nil {
				return nil, err
			}
		}
		return starlark.Call(thread, Module.Members[cl.command], starlark.Tuple{conn, m}, cl.kwargs())
	}), nil
}

// IfExistsReuse is prepare's if_exists that keeps tables as they are.
const IfExistsReuse = "reuse"

// throwaway says whether the default target is a server that lives for
// this command only (embedded, or a sandbox), as the --target values or
// $STARBENCH_TARGET (else embedded) give it.
func throwaway(targetFlags []string) bool {
	spec := os.Getenv("STARBENCH_TARGET")
	for _, t := range targetFlags {
		if name, s := db.SplitNamedTarget(t); name == "" {
			spec = s
		}
	}
	if spec == "" {
		return true
	}
	t, err := targets.Parse(spec)
	return err == nil && (t.Kind == targets.KindEmbedded || t.Kind == targets.KindSandbox)
}

// find is the mix --mix names (a global or a mix's name), or the file's
// only mix.
func (cl *cliArgs) find(globals starlark.StringDict) (*Value, error) {
	var names []string
	byName := map[string]*Value{}
	for name, v := range globals {
		if m, ok := v.(*Value); ok {
			names = append(names, name)
			byName[name] = m
		}
	}
	sort.Strings(names)
	if cl.mix != "" {
		if m, ok := byName[cl.mix]; ok {
			return m, nil
		}
		for _, n := range names {
			if byName[n].Mix.Name() == cl.mix {
				return byName[n], nil
			}
		}
		return nil, fmt.Errorf("--mix %s: %s defines no such mix (it defines %s)", cl.mix, filepath.Base(cl.file), listOrNone(names))
	}
	switch len(names) {
	case 0:
		return nil, fmt.Errorf("%s defines no mix at its top level (mix.define(...) assigned to a global)", filepath.Base(cl.file))
	case 1:
		return byName[names[0]], nil
	}
	return nil, fmt.Errorf("%s defines several mixes (%s): name one with --mix", filepath.Base(cl.file), strings.Join(names, ", "))
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// kwargs are the command's keyword arguments to prepare, run or cleanup:
// the options the command line set, and with --segment its --seed, the
// one every segment shares.
func (cl *cliArgs) kwargs() []starlark.Tuple {
	f := mix.Family{}
	switch cl.command {
	case "prepare":
		return cl.options.Kwargs(f.PrepareOptions(), nil)
	case "run":
		var set map[string]starlark.Value
		if cl.options.String("segment") != "" {
			set = map[string]starlark.Value{"seed": starlark.MakeInt64(cl.seed)}
		}
		return cl.options.Kwargs(f.RunOptions(), set)
	}
	return nil
}
