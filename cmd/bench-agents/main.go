// Command bench-agents measures what running a load in agents costs: on a
// private MariaDB, in the same run, one starbench process with T×N threads
// (A) against a bench.together step of N parts of T threads, each in its
// own `starbench agent` bound to every CPU (B), rounds alternating A B and
// B A. The client CPU of a run is the whole process tree's (the
// coordinator and the agents it reaped, from the kernel's rusage); per
// query it is the figure to compare. It prints each round and the median
// ratio B/A with its 95% interval (order statistics).
//
// With -baseline segments, A is instead the same processes without the
// agents: parts plain `starbench sysbench --segment` runs bound as the
// agents are and started on a barrier, their CPU summed.
//
//	scripts/bench-agents.sh [-time 10s] [-rounds 6] [-threads 4] [-parts 3] [-baseline process|segments]
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"time"

	"github.com/starbench/starbench/cmd/internal/benchcmp"
	"github.com/starbench/starbench/runner/results"
)

type options struct {
	runTime   time.Duration
	rounds    int
	threads   int
	parts     int
	tableSize int
	starbench string
	baseline  string // "process" or "segments"
}

func main() {
	os.Exit(benchcmp.Main("bench-agents", os.Args[1:], os.Stderr, parseFlags, run))
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("bench-agents", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: bench-agents [flags]

Runs oltp_point_select on a private MariaDB as one starbench process of threads x parts
threads (A) and as a bench.together step of parts agents of threads each, bound to every CPU
with cpus= (B), alternately (A B, B A, ...), and prints the client CPU per query of each (the
whole process tree's) with the median ratio B/A and its 95% interval. -rounds must be even.

`)
		fs.PrintDefaults()
	}
	var o options
	fs.DurationVar(&o.runTime, "time", 10*time.Second, "duration of each run (whole seconds)")
	fs.IntVar(&o.rounds, "rounds", 6, "A/B rounds; even, so each side goes first in half of them")
	fs.IntVar(&o.threads, "threads", 4, "threads of each part (A runs threads x parts)")
	fs.IntVar(&o.parts, "parts", 3, "agents of B")
	fs.IntVar(&o.tableSize, "table-size", 10000, "rows of the sysbench table")
	fs.StringVar(&o.starbench, "starbench", "", "starbench binary (default: build ./cmd/starbench)")
	fs.StringVar(&o.baseline, "baseline", "process", "A: process (one process of threads x parts) or segments (parts plain processes, "+
		"segments of one load bound as the agents are, started on a barrier: the same processes without the agents' protocol and merge)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if err := benchcmp.CheckRounds(o.rounds); err != nil {
		return o, err
	}
	if err := benchcmp.CheckRunTime(o.runTime); err != nil {
		return o, err
	}
	if o.threads < 1 || o.parts < 1 {
		return o, fmt.Errorf("-threads and -parts must be at least 1")
	}
	if o.baseline != "process" && o.baseline != "segments" {
		return o, fmt.Errorf("-baseline must be process or segments, not %q", o.baseline)
	}
	return o, nil
}

// side is A (one process) or B (agents).
type side int

const (
	oneProcess side = iota
	agents
)

func (s side) String() string { return [...]string{"baseline", "agents"}[s] }

func run(o options) error {
	setup, err := benchcmp.Setup("bench-agents", o.starbench, "mariadb")
	if err != nil {
		return err
	}
	defer setup.Close()
	work, bin, m := setup.Work, setup.Starbench, setup.Server
	if _, err := benchcmp.RunClient(bin, []string{"sysbench", "oltp_point_select", "--tables=1", "--table-size=" + strconv.Itoa(o.tableSize),
		"--target", m.DSN(), "prepare"}, nil); err != nil {
		return fmt.Errorf("prepare: %w", err)
	}
	secs := int(o.runTime / time.Second)
	common := fmt.Sprintf(`"oltp_point_select", tables = 1, table_size = %d, time = %d, report_interval = 1`, o.tableSize, secs)
	plans := [2]string{
		fmt.Sprintf("def main(p):\n    sysbench.run(db.connect(), %s, threads = %d)\n", common, o.threads*o.parts),
		fmt.Sprintf("def main(p):\n    c = db.connect()\n    bench.together([sysbench.part(c, %s, threads = %d, cpus = str(k %% %d)) for k in range(%d)])\n",
			common, o.threads, runtime.NumCPU(), o.parts),
	}
	for s, text := range plans {
		if err := os.WriteFile(filepath.Join(work, fmt.Sprintf("plan%d.star", s)), []byte(text), 0o644); err != nil {
			return err
		}
	}
	a := fmt.Sprintf("one process of %d threads", o.threads*o.parts)
	if o.baseline == "segments" {
		a = fmt.Sprintf("%d processes, segments of %d threads (process k on cpu k mod %d)", o.parts, o.threads*o.parts, runtime.NumCPU())
	}
	fmt.Printf("bench-agents: oltp_point_select, %d rows, %ds a run, %d rounds; A: %s, B: %d agents of %d threads (agent k on cpu k mod %d); starbench %s\n",
		o.tableSize, secs, o.rounds, a, o.parts, o.threads, runtime.NumCPU(), bin)
	fmt.Printf("%-6s %-12s %10s %12s %14s\n", "round", "side", "tps", "queries", "CPU µs/query")
	var ratios, tpsRatios []float64
	for r := 0; r < o.rounds; r++ {
		order := [2]side{oneProcess, agents}
		if !benchcmp.AFirst(r) {
			order = [2]side{agents, oneProcess}
		}
		var perQuery, tps [2]float64
		for _, s := range order {
			out := filepath.Join(work, fmt.Sprintf("r%d-%d", r, s))
			var cpu time.Duration
			var queries int64
			var rate float64
			var err error
			if s == oneProcess && o.baseline == "segments" {
				cpu, queries, rate, err = runSegments(bin, out, m.DSN(), o)
			} else {
				cpu, queries, rate, err = runPlan(bin, filepath.Join(work, fmt.Sprintf("plan%d.star", s)), out, m.DSN())
			}
			if err != nil {
				return fmt.Errorf("round %d, %s: %w", r+1, s, err)
			}
			perQuery[s] = float64(cpu.Microseconds()) / float64(queries)
			tps[s] = rate
			fmt.Printf("%-6d %-12s %10.1f %12d %14.2f\n", r+1, s, rate, queries, perQuery[s])
		}
		ratios = append(ratios, perQuery[agents]/perQuery[oneProcess])
		tpsRatios = append(tpsRatios, tps[agents]/tps[oneProcess])
	}
	for _, x := range []struct {
		what string
		xs   []float64
	}{{"client CPU per query, agents / baseline", ratios}, {"tps, agents / baseline", tpsRatios}} {
		med, lo, hi := medianInterval(x.xs)
		fmt.Printf("%s: median %.3f, 95%% interval %.3f–%.3f (%d rounds)\n", x.what, med, lo, hi, len(x.xs))
	}
	return nil
}

// runPlan runs a plan of one benchmark step and returns the client CPU
// of the process tree, the step's queries and tps.
func runPlan(bin, plan, out, dsn string) (time.Duration, int64, float64, error) {
	res, err := benchcmp.RunClient(bin, []string{"run", plan, "--target", dsn, "--out", out, "--quiet"}, nil)
	if err != nil {
		return 0, 0, 0, err
	}
	steps := results.StepDirs(out)
	if len(steps) != 1 {
		return 0, 0, 0, fmt.Errorf("%d step folders in %s", len(steps), out)
	}
	sum, err := results.ReadSummary(steps[0])
	if err != nil {
		return 0, 0, 0, err
	}
	if sum.Queries == 0 {
		return 0, 0, 0, fmt.Errorf("no query ran")
	}
	return res.CPU, sum.Queries, sum.TPS, nil
}

// runSegments runs the load as o.parts plain processes, segment k bound
// to cpu k mod NumCPU, met on a barrier, and returns their CPU, queries
// and tps summed.
func runSegments(bin, out, dsn string, o options) (time.Duration, int64, float64, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, 0, 0, err
	}
	barrier := ln.Addr().String()
	ln.Close()
	type result struct {
		cpu     time.Duration
		queries int64
		tps     float64
		err     error
	}
	done := make(chan result, o.parts)
	for k := 0; k < o.parts; k++ {
		dir := filepath.Join(out, fmt.Sprintf("seg-%d", k+1))
		args := []string{"-c", strconv.Itoa(k % runtime.NumCPU()), bin, "sysbench", "oltp_point_select", "--tables=1",
			"--table-size=" + strconv.Itoa(o.tableSize), "--threads=" + strconv.Itoa(o.threads*o.parts),
			"--time=" + strconv.Itoa(int(o.runTime/time.Second)), "--report-interval=1", "--rand-seed=1",
			fmt.Sprintf("--segment=%d/%d", k+1, o.parts), "--start-barrier", barrier, "--target", dsn, "run", "--out", dir}
		go func() {
			res, err := benchcmp.RunClient("taskset", args, nil)
			if err != nil {
				done <- result{err: err}
				return
			}
			sum, err := results.ReadSummary(dir)
			if err != nil {
				done <- result{err: err}
				return
			}
			done <- result{cpu: res.CPU, queries: sum.Queries, tps: sum.TPS}
		}()
	}
	var total result
	for k := 0; k < o.parts; k++ {
		r := <-done
		total.err = errors.Join(total.err, r.err)
		total.cpu += r.cpu
		total.queries += r.queries
		total.tps += r.tps
	}
	if total.err == nil && total.queries == 0 {
		total.err = fmt.Errorf("no query ran")
	}
	return total.cpu, total.queries, total.tps, total.err
}

// medianInterval is the median of xs and a distribution-free interval
// holding it with at least 95% confidence: the k-th smallest and largest
// values, k as large as the binomial tail allows.
func medianInterval(xs []float64) (median, lo, hi float64) {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		median = s[n/2]
	} else {
		median = (s[n/2-1] + s[n/2]) / 2
	}
	// [s(k), s(n-k+1)] misses the median with probability
	// 2 P(Binomial(n, 1/2) < k), which must stay at most 5%.
	k, cum, c := 0, 0.0, 1.0
	for j := 0; j < n/2; j++ {
		if j > 0 {
			c = c * float64(n-j+1) / float64(j)
		}
		cum += c / math.Pow(2, float64(n)) // P(X <= j)
		if 2*cum > 0.05 {
			break
		}
		k = j + 1
	}
	if k == 0 { // too few rounds for 95%: the whole range
		return median, s[0], s[n-1]
	}
	return median, s[k-1], s[n-k]
}
