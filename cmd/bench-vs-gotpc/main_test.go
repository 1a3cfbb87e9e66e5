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
)

// goTPCOutput is a go-tpc v1.0.7 run's output (-T 4 --time 5s --interval
// 5s against MariaDB 10.11), with a [Current] block and a stopped thread
// added: both must not count.
const goTPCOutput = `[Current] NEW_ORDER - Takes(s): 4.9, Count: 700, TPM: 8571.4, Sum(ms): 10505.8, Avg(ms): 15.0, 50th(ms): 14.7, 90th(ms): 23.1, 95th(ms): 27.3, 99th(ms): 37.7, 99.9th(ms): 46.1, Max(ms): 52.4
[2026-01-02 15:04:05] execute run failed, err Error 1213 (40001): Deadlock found when trying to get lock; try restarting transaction
execute run failed, err Error 1213 (40001): Deadlock found when trying to get lock; try restarting transaction
Finished
[Summary] DELIVERY - Takes(s): 4.7, Count: 55, TPM: 699.9, Sum(ms): 1242.3, Avg(ms): 22.7, 50th(ms): 23.1, 90th(ms): 35.7, 95th(ms): 35.7, 99th(ms): 35.7, 99.9th(ms): 41.9, Max(ms): 41.9
[Summary] NEW_ORDER - Takes(s): 5.0, Count: 763, TPM: 9234.7, Sum(ms): 11505.8, Avg(ms): 15.1, 50th(ms): 14.7, 90th(ms): 23.1, 95th(ms): 27.3, 99th(ms): 37.7, 99.9th(ms): 46.1, Max(ms): 52.4
[Summary] NEW_ORDER_ERR - Takes(s): 5.0, Count: 3, TPM: 36.3, Sum(ms): 44.8, Avg(ms): 14.9, 50th(ms): 8.9, 90th(ms): 28.3, 95th(ms): 28.3, 99th(ms): 28.3, 99.9th(ms): 28.3, Max(ms): 28.3
[Summary] ORDER_STATUS - Takes(s): 4.8, Count: 57, TPM: 714.5, Sum(ms): 253.0, Avg(ms): 4.4, 50th(ms): 4.7, 90th(ms): 6.8, 95th(ms): 7.9, 99th(ms): 8.4, 99.9th(ms): 8.9, Max(ms): 8.9
[Summary] PAYMENT - Takes(s): 4.9, Count: 669, TPM: 8126.5, Sum(ms): 5599.3, Avg(ms): 8.4, 50th(ms): 7.9, 90th(ms): 14.7, 95th(ms): 17.8, 99th(ms): 23.1, 99.9th(ms): 31.5, Max(ms): 35.7
[Summary] PAYMENT_ERR - Takes(s): 4.9, Count: 1, TPM: 12.1, Sum(ms): 2.0, Avg(ms): 1.8, 50th(ms): 2.1, 90th(ms): 2.1, 95th(ms): 2.1, 99th(ms): 2.1, 99.9th(ms): 2.1, Max(ms): 2.1
[Summary] STOCK_LEVEL - Takes(s): 4.9, Count: 76, TPM: 924.4, Sum(ms): 512.4, Avg(ms): 6.8, 50th(ms): 7.9, 90th(ms): 10.5, 95th(ms): 11.5, 99th(ms): 13.1, 99.9th(ms): 13.6, Max(ms): 13.6
tpmC: 9234.5, efficiency: 71808.2%
`

func TestParseOutput(t *testing.T) {
	s, err := parseOutput(goTPCOutput)
	if err != nil {
		t.Fatal(err)
	}
	// 55 + 763 + 57 + 669 + 76: the _ERR lines and [Current] left out.
	if s.txns != 1620 || s.tpmC != 9234.5 || s.stopped != 1 {
		t.Errorf("parseOutput = %d transactions, tpmC %v, %d stopped; want 1620, 9234.5, 1", s.txns, s.tpmC, s.stopped)
	}
	// starbench's output: a header, a tpmTotal line and its results
	// folder after go-tpc's lines.
	sb := "TPC-C: 1 warehouses, 4 threads, seed 1 (starbench)\nFinished\n" +
		"[Summary] NEW_ORDER - Takes(s): 5.0, Count: 1790, TPM: 21413.0, Sum(ms): 11510.6, Avg(ms): 6.4, 50th(ms): 5.8, 90th(ms): 10.7, 95th(ms): 12.5, 99th(ms): 17.6, 99.9th(ms): 25.7, Max(ms): 30.9\n" +
		"[Summary] PAYMENT - Takes(s): 5.0, Count: 1713, TPM: 20491.9, Sum(ms): 5994.9, Avg(ms): 3.5, 50th(ms): 3.1, 90th(ms): 6.0, 95th(ms): 7.3, 99th(ms): 10.4, 99.9th(ms): 14.2, Max(ms): 17.7\n" +
		"tpmC: 21413.0, efficiency: 166508.5%\ntpmTotal: 47623.0\nresults: /tmp/x (completed)\n"
	if s, err := parseOutput(sb); err != nil || s.txns != 3503 || s.tpmC != 21413 || s.stopped != 0 {
		t.Errorf("starbench output: %+v, %v", s, err)
	}
	for _, out := range []string{
		"",
		"Finished\n",
		strings.Replace(goTPCOutput, "tpmC: 9234.5", "tpm: 9234.5", 1),                                               // no tpmC line
		"[Summary] NEW_ORDER_ERR - Takes(s): 5.0, Count: 3, TPM: 36.3, Sum(ms): 44.8\ntpmC: 0.0, efficiency: 0.0%\n", // errors only
	} {
		if _, err := parseOutput(out); err == nil {
			t.Errorf("%q: no error", out)
		}
	}
}

func TestParseFlags(t *testing.T) {
	o, err := parseFlags(nil, io.Discard)
	if err != nil || o.warehouses != 2 || o.loadThreads != 2 || len(o.threads) != 3 || o.threads[2] != 16 ||
		o.runTime != 20*time.Second || o.rounds != 2 || o.starbench != "" {
		t.Errorf("defaults: %+v, %v", o, err)
	}
	o, err = parseFlags([]string{"-warehouses", "1", "-load-threads", "4", "-threads", "1, 8", "-time", "5s", "-rounds", "4", "-starbench", "/x/sb"}, io.Discard)
	if err != nil || o.warehouses != 1 || o.loadThreads != 4 || len(o.threads) != 2 || o.threads[1] != 8 ||
		o.runTime != 5*time.Second || o.rounds != 4 || o.starbench != "/x/sb" {
		t.Errorf("parseFlags = %+v, %v", o, err)
	}
	for _, n := range []string{"1", "3", "5", "0", "-2"} {
		_, err := parseFlags([]string{"-rounds", n}, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "-rounds must be even") {
			t.Errorf("-rounds %s: error %v, want a refusal", n, err)
		}
	}
	for _, args := range [][]string{{"-threads", "1,x"}, {"-threads", "0"}, {"-threads", ""}, {"-threads", "1,,4"},
		{"-time", "500ms"}, {"-time", "1.5s"}, {"-warehouses", "0"}, {"-load-threads", "0"}, {"extra"}} {
		if _, err := parseFlags(args, io.Discard); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
	if _, err := parseFlags([]string{"-h"}, io.Discard); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: %v", err)
	}
}

// TestOrder checks that go-tpc and starbench each go first in half of
// any accepted number of rounds.
func TestOrder(t *testing.T) {
	for _, rounds := range []int{2, 4, 6} {
		first := 0
		for r := range rounds {
			o := order(r)
			if o[0] == o[1] {
				t.Fatalf("round %d: %v", r, o)
			}
			if o[0] == goTPC {
				first++
			}
		}
		if 2*first != rounds {
			t.Errorf("%d rounds: go-tpc first in %d", rounds, first)
		}
	}
}

// TestOddRoundsExitStatus runs main in a child process: an odd -rounds
// stops it with exit status 2 before it looks for go-tpc, builds or
// starts anything.
func TestOddRoundsExitStatus(t *testing.T) {
	if os.Getenv("BENCH_VS_GOTPC_MAIN") == "1" {
		os.Args = []string{"bench-vs-gotpc", "-rounds", "3"}
		main()
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestOddRoundsExitStatus$")
	cmd.Env = append(os.Environ(), "BENCH_VS_GOTPC_MAIN=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Fatalf("exit %v, want status 2; output:\n%s", err, out)
	}
	if !strings.Contains(string(out), "-rounds must be even and at least 2 (2, 4, 6, ...), not 3") {
		t.Errorf("output does not say why:\n%s", out)
	}
}

func TestLoadLines(t *testing.T) {
	l := func(wall, cpu, server float64, rows int64) load {
		return load{wall: time.Duration(wall * float64(time.Second)), cpu: time.Duration(cpu * float64(time.Second)),
			serverCPU: time.Duration(server * float64(time.Second)), rows: rows}
	}
	// go-tpc 10 s, 2 s CPU, 1 µs server CPU a row; starbench 4 s, 0.5 s,
	// 0.5 µs: ratios 0.4, 0.25, 0.5.
	gt := []load{l(10, 2, 1, 1000000), l(10, 2, 1, 1000000)}
	sb := []load{l(4, 0.5, 0.5, 1000000), l(4, 0.5, 0.5, 1000000)}
	lines, r := loadLines(1, 2, gt, sb)
	if len(lines) != 4 || r.Value != 0.4 || !r.HasCI || r.Half != 0 {
		t.Fatalf("lines %q, ratio %+v", lines, r)
	}
	for i, want := range []string{"1 warehouses, -T 2", "go-tpc        10.00 s wall     2.00 s client CPU     1.00 µs server CPU/row  (1000000 rows)",
		"starbench      4.00 s wall     0.50 s client CPU     0.50 µs server CPU/row", "wall 0.40 (pairs 0.40-0.40, 95% CI 0.40-0.40), client CPU 0.25, server CPU/row 0.50"} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("line %d %q lacks %q", i, lines[i], want)
		}
	}
}
