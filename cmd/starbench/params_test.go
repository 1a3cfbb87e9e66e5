package main

import (
	"strings"
	"testing"
)

// params tells whoever is handed a plan what it is and what it takes: its
// header comment, its parameters (with -p values marked), and the targets
// it connects to, with how to give the missing ones; a password given in
// a target is not printed; a missing plan is a usage error.
func TestParamsExplainsAPlan(t *testing.T) {
	r := starbench(t, nil, "params", "plans/seed001_tidb305_three_sysbench.star", "-p", "scale=small", "--target", "tidb2=root:s3cretpw@tcp(10.0.0.2:4000)/sbtest")
	expect(t, r, 0, "Seed report 001", "parameters:\n", `scale            string         = "small"  (from -p)`,
		"servers          list[string]   = [\"tidb1\", \"tidb2\", \"tidb3\"]", "targets:\n  tidb1 (not given)\n  root:***@tcp(10.0.0.2:4000)/sbtest",
		"a named one with --target NAME=DSN")
	if strings.Contains(r.stdout+r.stderr, "s3cretpw") {
		t.Error("the target's password was printed")
	}
	if strings.HasPrefix(r.stdout, "#") || strings.Contains(r.stdout, "dry run (seed") {
		t.Errorf("params printed comment markers or the step list:\n%s", r.stdout)
	}
	expect(t, starbench(t, nil, "params", "plans/nope.star"), 2, "nope.star")

	// A plan written for TiDB on the default target: not given, not
	// "embedded" (the server a run without --target would fall back to).
	r = starbench(t, []string{"STARBENCH_TARGET="}, "params", "plans/insert_hotspot_mix.star")
	expect(t, r, 0, "targets:\n  default (not given: a run without --target uses the embedded server", "Give the default target with --target DSN")
	expect(t, starbench(t, []string{"STARBENCH_TARGET="}, "params", "plans/insert_hotspot_mix.star", "--target", "embedded"), 0, "targets:\n  embedded\n")
}

// run PLAN --help is run's help and then what that plan takes.
func TestRunPlanHelpExplainsThePlan(t *testing.T) {
	r := starbench(t, []string{"STARBENCH_TARGET="}, "run", "plans/quickstart.star", "-p", "threads=4", "--help")
	expect(t, r, 0, "Run evaluates PLAN.star", "Quickstart: a small sysbench benchmark", `threads          list[int]      = [4]  (from -p)`, "targets:\n  default (not given: a run without --target uses the embedded server")
	if strings.Contains(r.stdout, "results:") {
		t.Errorf("run --help ran the plan:\n%s", r.stdout)
	}
	r = starbench(t, nil, "run", "--help")
	expect(t, r, 0, "Run evaluates PLAN.star")
	if strings.Contains(r.stdout, "parameters:") {
		t.Errorf("run --help without a plan explains one:\n%s", r.stdout)
	}
}
