package main

import (
	"errors"
	"flag"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/starbench/starbench/cmd/internal/benchcmp"
)

// TestOrderBalanced checks that for every round count the command accepts,
// sysbench and starbench each go first in exactly half the rounds, in the
// runs and in the INSERT prepares, and that LOAD DATA always comes last.
func TestOrderBalanced(t *testing.T) {
	accepted := 0
	for rounds := 0; rounds <= 40; rounds++ {
		if benchcmp.CheckRounds(rounds) != nil {
			continue
		}
		accepted++
		runs, prepares := 0, 0
		for r := range rounds {
			if sysbenchFirst(r) {
				runs++
			}
			order := prepareOrder(r)
			if len(order) != 3 || order[2] != starbenchLoadData {
				t.Fatalf("round %d: prepare order %v, want the INSERT pair then LOAD DATA", r, order)
			}
			switch {
			case order[0] == sysbenchInsert && order[1] == starbenchInsert:
				prepares++
				if !sysbenchFirst(r) {
					t.Errorf("round %d: prepare has sysbench first, the runs starbench", r)
				}
			case order[0] == starbenchInsert && order[1] == sysbenchInsert:
			default:
				t.Fatalf("round %d: prepare order %v is not an INSERT pair", r, order)
			}
		}
		if 2*runs != rounds || 2*prepares != rounds {
			t.Errorf("%d rounds: sysbench first in %d runs and %d prepares, want %d", rounds, runs, prepares, rounds/2)
		}
	}
	if accepted != 20 {
		t.Errorf("%d round counts accepted in 0..40, want the 20 even ones from 2", accepted)
	}
}

func TestParseFlagsRefusesOddRounds(t *testing.T) {
	for _, n := range []string{"1", "3", "5", "0", "-2"} {
		_, err := parseFlags([]string{"-rounds", n}, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "-rounds must be even") {
			t.Errorf("-rounds %s: error %v, want a refusal", n, err)
		}
	}
	o, err := parseFlags([]string{"-rounds", "4", "-threads", "1, 8", "-time", "3s", "-workloads", "oltp_point_select"}, io.Discard)
	if err != nil || o.rounds != 4 || len(o.threads) != 2 || o.threads[1] != 8 || o.runTime != 3*time.Second ||
		len(o.workloads) != 1 || o.workloads[0] != "oltp_point_select" {
		t.Errorf("parseFlags = %+v, %v", o, err)
	}
	for _, args := range [][]string{{"-threads", "1,x"}, {"-threads", "0"}, {"-time", "500ms"}, {"-tables", "0"}, {"extra"}} {
		if _, err := parseFlags(args, io.Discard); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
	if _, err := parseFlags([]string{"-h"}, io.Discard); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: %v", err)
	}
}

// TestOddRoundsExitStatus runs main in a child process: an odd -rounds
// stops it with exit status 2 before it builds or starts anything.
func TestOddRoundsExitStatus(t *testing.T) {
	if os.Getenv("BENCH_VS_SYSBENCH_MAIN") == "1" {
		os.Args = []string{"bench-vs-sysbench", "-rounds", "3"}
		main()
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestOddRoundsExitStatus$")
	cmd.Env = append(os.Environ(), "BENCH_VS_SYSBENCH_MAIN=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Fatalf("exit %v, want status 2; output:\n%s", err, out)
	}
	if !strings.Contains(string(out), "-rounds must be even and at least 2 (2, 4, 6, ...), not 3") {
		t.Errorf("output does not say why:\n%s", out)
	}
}

func TestPrepareLines(t *testing.T) {
	s := func(secs ...float64) []time.Duration {
		ds := make([]time.Duration, len(secs))
		for i, x := range secs {
			ds[i] = time.Duration(x * float64(time.Second))
		}
		return ds
	}
	// 1000 rows a prepare: sysbench 1000 rows/s, starbench INSERT 1250
	// (pairs 1.25 and 1.25), LOAD DATA 2000.
	lines := prepareLines("sysbench", 1000, s(1, 1), s(0.8, 0.8), s(0.5, 0.5), "")
	if len(lines) != 2 {
		t.Fatalf("lines %q", lines)
	}
	for _, want := range []string{"prepare INSERT vs INSERT", "sysbench 1000 rows/s", "--load-method=insert 1250 rows/s", "ratio 1.25",
		"pairs 1.25-1.25", "95% CI 1.25-1.25"} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("%q lacks %q", lines[0], want)
		}
	}
	for _, want := range []string{"prepare LOAD DATA (starbench only", "2000 rows/s", "ratio to sysbench INSERT 2.00"} {
		if !strings.Contains(lines[1], want) {
			t.Errorf("%q lacks %q", lines[1], want)
		}
	}
	lines = prepareLines("sysbench", 1000, s(1, 1), s(0.8, 0.8), nil, "refused")
	if lines[1] != "prepare LOAD DATA (starbench only): not measured: refused" {
		t.Errorf("without LOAD DATA: %q", lines[1])
	}
}

// -mix compares the oltp_read_write mix with the built-in workload: it
// runs on one table whatever -tables says, and refuses -baseline.
func TestParseFlagsMix(t *testing.T) {
	o, err := parseFlags([]string{"-mix", "-tables", "8", "-workloads", "oltp_point_select"}, io.Discard)
	if err != nil || !o.mix || o.tables != 1 || len(o.workloads) != 1 || o.workloads[0] != "oltp_read_write" {
		t.Errorf("got %+v, %v", o, err)
	}
	if _, err := parseFlags([]string{"-mix", "-baseline", "/bin/true"}, io.Discard); err == nil || !strings.Contains(err.Error(), "-mix and -baseline") {
		t.Errorf("-mix with -baseline: %v", err)
	}
	if _, err := parseFlags([]string{"-event"}, io.Discard); err == nil || !strings.Contains(err.Error(), "give it with -mix") {
		t.Errorf("-event without -mix: %v", err)
	}
	if o, err := parseFlags([]string{"-mix", "-event"}, io.Discard); err != nil || !o.event {
		t.Errorf("-mix -event: %+v, %v", o, err)
	}
	if _, err := parseFlags([]string{"-plan"}, io.Discard); err == nil || !strings.Contains(err.Error(), "give it with -baseline") {
		t.Errorf("-plan without -baseline: %v", err)
	}
	if o, err := parseFlags([]string{"-plan", "-baseline", "/bin/true"}, io.Discard); err != nil || !o.plan {
		t.Errorf("-plan -baseline: %+v, %v", o, err)
	}
}
