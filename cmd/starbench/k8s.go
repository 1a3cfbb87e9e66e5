package main

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/starbench/starbench/builtins"
	"github.com/starbench/starbench/builtins/cli"
	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/builtins/k8s"
	"github.com/starbench/starbench/runner"
	"github.com/starbench/starbench/runner/results"
)

func (a *app) k8sCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "k8s",
		Short: "Run a load from many pods: render a Kubernetes Indexed Job",
		Args:  noArgs,
		RunE:  func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	var j k8s.Job
	var merge bool
	var seed int64
	var out string
	job := &cobra.Command{
		Use:   "job [flags] -- FAMILY COMMAND LINE... run | -- PLAN.star|BUNDLE [-p name=value]... [--target SPEC]...",
		Short: "Render the manifests of an Indexed Job whose pods run the segments of one load",
		Long: `starbench k8s job renders (it applies nothing) the manifests that run one load from
--parallelism pods, for when one client machine cannot drive the cluster: an Indexed Job whose
pod i runs segment i+1 of N of the family's command line given after -- (starbench sysbench,
tpcc or mix, as 'starbench FAMILY --help' documents them), all with one seed, and a headless
Service that names its first pod:

  - each pod runs the image's /starbench (the repository's Dockerfile: FROM scratch, the static
    binary, no shell); starbench reads the pod's JOB_COMPLETION_INDEX itself (--segment job/N);
  - the pods connect and prepare, then meet at a barrier the first pod serves (or start at
    --start-at) and start together;
  - each writes its segment's folder into the volume of --results-claim (ReadWriteMany when the
    pods run on several nodes): RESULTS/NAME/seg-1 ... seg-N;
  - --merge renders the Job to apply once the load's Job completed: 'starbench merge' of the
    segments into RESULTS/NAME-merged, which refuses segments that did not run at the same time.

Given a plan (a .star file, bundled with its -p values, or a bundle) instead, the pods run it
from a ConfigMap ('starbench run BUNDLE --segment job/N --seed S'): every benchmark step runs its
segment of the load, and the pods meet at the barrier before each; the plan should hold the loads
only (prepare the tables beforehand: every pod runs every other step). The merge Job then merges
the pods' results folders step by step.

The command line must not hold a password (a manifest is not a secret): give the target as a DSN
without one (--target 'root@tcp(tidb:4000)/sbtest') and the password as a Secret's key with
--password-secret SECRET:KEY (the pods get it as MYSQL_PWD).`,
		Example: `  starbench k8s job --name sb --image registry.example.com/starbench:v1 --parallelism 3 \
      --results-claim bench-results --password-secret tidb:password -- \
      sysbench oltp_point_select --tables=32 --table-size=10000000 --threads=1200 --time=300 \
      --target 'root@tcp(tidb.tidb:4000)/sbtest' run > job.yaml
  kubectl apply -f job.yaml && kubectl wait --for=condition=complete job/sb --timeout=1h
  starbench k8s job --name sb ... --merge -- sysbench ... run | kubectl apply -f -
  starbench k8s job --name load --image ... --parallelism 4 --results-claim bench-results -- \
      load.star -p threads=1200 --target 'root@tcp(tidb.tidb:4000)/sbtest'`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.ArgsLenAtDash() != 0 || len(args) == 0 {
				return usagef("k8s job: give the family's command line after --, e.g. -- sysbench oltp_point_select ... run\nRun 'starbench k8s job --help' for usage.")
			}
			if isPlanArg(args[0]) {
				bundle, rest, planSeed, err := a.jobPlan(cmd, args, seed)
				if err != nil {
					return err
				}
				j.Bundle, j.Command, j.Seed = bundle, rest, planSeed
			} else {
				command, err := a.jobCommand(args, seed)
				if err != nil {
					return err
				}
				j.Command = command
			}
			if j.StartAt != "" {
				if _, err := time.Parse(time.RFC3339Nano, j.StartAt); err != nil {
					return usagef("k8s job: --start-at %q: want a time such as 2026-12-03T15:00:00Z (RFC 3339)", j.StartAt)
				}
			}
			render := k8s.Render
			if merge {
				render = k8s.RenderMerge
			}
			data, err := render(j)
			if err != nil {
				return usagef("k8s job: %v", err)
			}
			if out == "" || out == "-" {
				_, err = a.stdout.Write(data)
				return err
			}
			return results.WriteFile(out, data)
		},
	}
	f := job.Flags()
	f.StringVar(&j.Name, "name", "starbench", "the Job's (and Service's) name, and the folder in the results volume")
	f.StringVar(&j.Namespace, "namespace", "", "the namespace (default: kubectl's)")
	f.StringVar(&j.Image, "image", "", "an image with starbench at /starbench (build it with the repository's Dockerfile)")
	f.IntVar(&j.Parallelism, "parallelism", 0, "pods, each running one segment of the load")
	f.StringVar(&j.ResultsClaim, "results-claim", "", "the PersistentVolumeClaim the pods write their folders into")
	f.StringVar(&j.ResultsPath, "results-path", "/results", "where the claim is mounted in the pods")
	f.StringVar(&j.StartAt, "start-at", "", "start every segment at this time (RFC 3339) instead of at the first pod's barrier")
	f.StringVar(&j.Barrier, "barrier", "", "the barrier's address (default NAME-0.NAME:7077, the first pod through the Service)")
	f.IntVar(&j.BarrierPort, "barrier-port", k8s.DefaultBarrierPort, "the port the first pod serves the barrier on")
	f.StringVar(&j.PasswordSecret, "password-secret", "", "SECRET:KEY of the database password, given to the pods as MYSQL_PWD")
	f.Int64Var(&seed, "seed", 0, "the seed every segment shares (default: the command's, else drawn and printed)")
	f.BoolVar(&merge, "merge", false, "render the Job that merges the segments' folders (apply it once the load's Job completed)")
	f.StringVarP(&out, "output", "o", "", "write the manifests to FILE (default: stdout)")
	root.AddCommand(job)
	return root
}

// targetWithoutPassword refuses a --target a manifest would show with
// its password.
func targetWithoutPassword(spec string) error {
	if masked := db.RedactDSNText(spec); masked != spec {
		return usagef("k8s job: --target %s holds a password: give it without one and --password-secret SECRET:KEY", masked)
	}
	return nil
}

// isPlanArg reports whether a Job's command is a plan (a .star file or
// a bundle) rather than a family's command line.
func isPlanArg(arg string) bool {
	return strings.HasSuffix(arg, ".star") || runner.IsBundle(arg)
}

// jobPlan bundles the plan a Job's pods run (with its -p values) and
// checks run's other arguments; it returns the bundle, those arguments
// and the seed the segments share.
func (a *app) jobPlan(cmd *cobra.Command, args []string, seed int64) ([]byte, []string, int64, error) {
	var params, rest []string
	for i := 1; i < len(args); i++ {
		name, value, hasValue := strings.Cut(args[i], "=")
		next := func() string {
			if hasValue {
				return value
			}
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		switch name {
		case "-p", "--param":
			params = append(params, next())
		case "--target":
			spec := next()
			if err := targetWithoutPassword(spec); err != nil {
				return nil, nil, 0, err
			}
			rest = append(rest, "--target", spec)
		case "--segment", "--out", "-o", "--start-barrier", "--start-timeout", "--seed", "--resume", "--dry-run":
			return nil, nil, 0, usagef("k8s job: %s is the Job's to set (each pod runs its segment of the plan into the results volume)", name)
		default:
			rest = append(rest, args[i])
		}
	}
	if seed == 0 {
		seed = results.DrawSeed()
		fmt.Fprintf(a.stderr, "starbench k8s job: the segments share --seed %d\n", seed)
	}
	plan := args[0]
	if runner.IsBundle(plan) && len(params) == 0 {
		data, err := os.ReadFile(plan)
		return data, rest, seed, err
	}
	opts, err := a.options(cmd, plan, &planFlags{params: params})
	if err != nil {
		return nil, nil, 0, err
	}
	opts.DryRun = true
	var discard bytes.Buffer
	opts.Stdout, opts.Stderr = &discard, &discard
	res, err := runner.Evaluate(cmd.Context(), opts)
	if err != nil {
		return nil, nil, 0, err
	}
	tmp, err := os.CreateTemp("", "starbench-k8s-*.bundle")
	if err != nil {
		return nil, nil, 0, err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	overrides := params
	if opts.From != nil {
		overrides = append(append([]string{}, opts.From.Manifest.Overrides...), params...)
	}
	if err := runner.WriteBundle(tmp.Name(), res, overrides, nil, toolVersion()); err != nil {
		return nil, nil, 0, err
	}
	data, err := os.ReadFile(tmp.Name())
	return data, rest, seed, err
}

// jobCommand checks the family's command line a Job's pods run and
// gives it the seed its segments share.
func (a *app) jobCommand(args []string, seed int64) ([]string, error) {
	var family *cli.Command
	for _, e := range builtins.Families() {
		if e.Module.Name == args[0] {
			family = e.Command
		}
	}
	if family == nil && args[0] == "ycsb" {
		return nil, usagef("k8s job: 'starbench ycsb' runs in one process (it takes no --segment): run YCSB's workloads from the pods as the mix family's,\n" +
			"e.g. -- mix @stdlib//ycsb.star --mix b --threads 64 --time 5m --target 'root@tcp(tidb:4000)/test' run (prepare the table beforehand with 'starbench ycsb load')")
	}
	if family == nil {
		var names []string
		for _, e := range builtins.Families() {
			names = append(names, e.Module.Name)
		}
		return nil, usagef("k8s job: %q is not a workload family's command (%s)", args[0], strings.Join(names, ", "))
	}
	if !slices.Contains(args, "run") {
		return nil, usagef("k8s job: the pods run a load: the command line must end in run")
	}
	given := ""
	for i, arg := range args {
		name, value, hasValue := strings.Cut(arg, "=")
		for _, p := range family.PasswordFlags {
			if name == p {
				return nil, usagef("k8s job: %s puts the password in the manifest: give the target without it and --password-secret SECRET:KEY", p)
			}
		}
		switch name {
		case "--segment", "--out", "--start-at", "--start-barrier", "--start-timeout":
			return nil, usagef("k8s job: %s is the Job's to set (each pod runs its own segment into the results volume)", name)
		case "--target":
			if !hasValue && i+1 < len(args) {
				value = args[i+1]
			}
			if err := targetWithoutPassword(value); err != nil {
				return nil, err
			}
		case family.SeedFlag:
			if !hasValue && i+1 < len(args) {
				value = args[i+1]
			}
			given = value
		}
	}
	switch {
	case given != "" && seed != 0 && given != fmt.Sprint(seed):
		return nil, usagef("k8s job: --seed %d and the command's %s %s differ", seed, family.SeedFlag, given)
	case given == "0":
		return nil, usagef("k8s job: %s 0 draws a seed in each pod: the segments must share one", family.SeedFlag)
	case given != "":
		return args, nil
	}
	if seed == 0 {
		seed = results.DrawSeed()
		fmt.Fprintf(a.stderr, "starbench k8s job: the segments share %s=%d\n", family.SeedFlag, seed)
	}
	return append(append([]string(nil), args...), fmt.Sprintf("%s=%d", family.SeedFlag, seed)), nil
}
