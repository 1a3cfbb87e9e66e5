// Command bench-tpch-vs-gotpc measures `starbench tpch` against go-tpc
// v1.0.7's tpch on the same private MariaDB in the same run, with the same
// command line given to both.
//
// Load: after one untimed starbench load (the server's first load, its
// files and buffer pool, charged to no one), each round has both tools
// load scale factor -sf into a dropped and re-created database, A B or
// B A; each tool's wall time, rows a second, client CPU (the process's
// user + system time, from the kernel's rusage) and the server's CPU per
// row are printed, with the ratios starbench / go-tpc: the pairs' range,
// median and the 95% confidence interval of their mean.
//
// Queries: on one starbench load, each round has both tools run -queries
// once and -passes times over one connection (go-tpc's --count), A B or
// B A; the figures are each tool's client CPU per query (its whole
// process) and per query of the extra passes (start-up and, for
// starbench, its results folder out), with the same ratios.
//
// -rounds must be even (2, 4, ...): go-tpc goes first in even rounds.
//
// -answers instead checks the 22 answers both ways at scale factor 1:
// go-tpc's `run --check` on starbench's load, and starbench's `run
// --check` on go-tpc's. It adds indexes to lineitem (l_partkey,
// l_suppkey) and orders (o_custkey) first: without them MariaDB takes
// many minutes over q13, q17, q20 and q22; they change the server's plans,
// not the answers.
//
//	go run ./cmd/bench-tpch-vs-gotpc -sf 1 -rounds 6
//	go run ./cmd/bench-tpch-vs-gotpc -answers
package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	_ "github.com/go-sql-driver/mysql"

	"github.com/starbench/starbench/cmd/internal/benchcmp"
	"github.com/starbench/starbench/internal/sandbox"
)

// database is where both tools load and run.
const database = "tpch"

// tables are TPC-H's eight.
var tables = []string{"nation", "region", "part", "supplier", "partsupp", "customer", "orders", "lineitem"}

type options struct {
	sf          int
	loadThreads int
	queries     string
	passes      int
	rounds      int
	starbench   string
	answers     bool
	loads       bool
}

func main() {
	os.Exit(benchcmp.Main("bench-tpch-vs-gotpc", os.Args[1:], os.Stderr, parseFlags, run))
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("bench-tpch-vs-gotpc", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: bench-tpch-vs-gotpc [flags]

Runs go-tpc v1.0.7's tpch and starbench tpch alternately (A B, B A, ...) on a private MariaDB
(1 GB buffer pool): the load of a scale factor (wall time, rows/s, client CPU, server CPU per row)
and a stream of queries (client CPU per query), with the ratios starbench / go-tpc. -rounds must be
even. go-tpc is looked for on PATH, then in $(go env GOPATH)/bin.

`)
		fs.PrintDefaults()
	}
	var o options
	fs.IntVar(&o.sf, "sf", 1, "scale factor")
	fs.IntVar(&o.loadThreads, "load-threads", 2, "threads of each load (-T of prepare)")
	fs.StringVar(&o.queries, "queries", "q2,q10,q11,q16", "the queries of each run (the default: quick on MariaDB, 18,000 rows of answers in all)")
	fs.IntVar(&o.passes, "passes", 4, "times each run goes through -queries")
	fs.IntVar(&o.rounds, "rounds", 6, "A/B rounds of loads and of runs; even")
	fs.StringVar(&o.starbench, "starbench", "", "starbench binary (default: build ./cmd/starbench)")
	fs.BoolVar(&o.loads, "loads", true, "measure the loads (-loads=false: the queries only)")
	fs.BoolVar(&o.answers, "answers", false, "check the 22 answers both ways at scale factor 1 instead of measuring")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if err := benchcmp.CheckRounds(o.rounds); err != nil {
		return o, err
	}
	if o.sf < 1 || o.loadThreads < 1 || o.passes < 1 || o.queries == "" {
		return o, fmt.Errorf("-sf, -load-threads and -passes must be at least 1, -queries not empty")
	}
	return o, nil
}

type tool int

const (
	goTPC     tool = iota // tool A
	starbench             // tool B
)

func (t tool) String() string { return [...]string{"go-tpc", "starbench"}[t] }

func order(r int) [2]tool {
	if benchcmp.AFirst(r) {
		return [2]tool{goTPC, starbench}
	}
	return [2]tool{starbench, goTPC}
}

type bench struct {
	o      options
	work   string
	bins   [2]string
	server sandbox.Server
	db     *sql.DB
}

func run(o options) error {
	goTPCBin, err := benchcmp.GoTPCBinary()
	if err != nil {
		return err
	}
	setup, err := benchcmp.SetupServer("bench-tpch-vs-gotpc", o.starbench, "mariadb", sandbox.MariaDBOptions{ExtraArgs: []string{
		"--innodb-buffer-pool-size=1G", "--innodb-flush-log-at-trx-commit=0", "--innodb-log-file-size=512M"}})
	if err != nil {
		return err
	}
	defer setup.Close()
	db, err := sql.Open("mysql", setup.Server.DSN())
	if err != nil {
		return err
	}
	defer db.Close()
	ctx := context.Background()
	b := &bench{o: o, work: setup.Work, bins: [2]string{goTPCBin, setup.Starbench}, server: setup.Server, db: db}
	fmt.Printf("MariaDB %s on 127.0.0.1 (1 GB buffer pool), go-tpc %s, scale factor %d, %d rounds (A B, B A, ...), %d CPUs\n\n",
		b.server.ServerVersion(), benchcmp.GoTPCVersion(goTPCBin), o.sf, o.rounds, runtime.NumCPU())
	if o.answers {
		return b.crossCheck(ctx)
	}
	if o.loads {
		if err := b.compareLoads(ctx); err != nil {
			return err
		}
	}
	if _, err := b.load(ctx, starbench); err != nil {
		return fmt.Errorf("the load the queries run on: %w", err)
	}
	runs := map[tool][]measure{}
	for r := 0; r < o.rounds; r++ {
		for _, t := range order(r) {
			m, err := b.queries(t, r)
			if err != nil {
				return err
			}
			fmt.Printf("  round %d %-10s %d queries, %7.1f s wall, %8.0f µs client CPU a query, %8.0f µs a query of the extra passes\n",
				r+1, t, m.count, m.wall.Seconds(), m.perEvent(), m.marginal)
			runs[t] = append(runs[t], m)
		}
	}
	printQueries(o, runs)
	return nil
}

// compareLoads times both tools' loads, round by round, after a warm-up.
func (b *bench) compareLoads(ctx context.Context) error {
	if _, err := b.load(ctx, starbench); err != nil {
		return fmt.Errorf("warm-up: %w", err)
	}
	loads := map[tool][]measure{}
	for r := 0; r < b.o.rounds; r++ {
		for _, t := range order(r) {
			l, err := b.load(ctx, t)
			if err != nil {
				return err
			}
			fmt.Printf("  round %d %-10s load %7.1f s wall, %7.1f s client CPU, %9.0f rows/s\n", r+1, t, l.wall.Seconds(), l.cpu.Seconds(),
				float64(l.count)/l.wall.Seconds())
			loads[t] = append(loads[t], l)
		}
	}
	printLoads(b.o, loads)
	return nil
}

// measure is one timed load or run of one tool.
type measure struct {
	wall, cpu time.Duration // the client's whole process
	serverCPU time.Duration
	count     int64   // rows loaded, or queries run
	marginal  float64 // of queries: the CPU µs a query of the extra passes cost
}

func (m measure) perEvent() float64 { return float64(m.cpu.Microseconds()) / float64(max(m.count, 1)) }

func (b *bench) conn() []string {
	return []string{"-H", "127.0.0.1", "-P", benchcmp.Port(b.server), "-U", "root", "-p", b.server.Password(), "-D", database,
		"--sf", strconv.Itoa(b.o.sf)}
}

// load re-creates the database, has the server write out its dirty
// pages, and has t load it.
func (b *bench) load(ctx context.Context, t tool) (measure, error) {
	for _, stmt := range []string{"DROP DATABASE IF EXISTS " + database, "CREATE DATABASE " + database} {
		if _, err := b.db.ExecContext(ctx, stmt); err != nil {
			return measure{}, fmt.Errorf("%s: %w", stmt, err)
		}
	}
	if err := benchcmp.Settle(ctx, b.db); err != nil && !errors.Is(err, benchcmp.ErrStillDirty) {
		return measure{}, err
	}
	args := append(b.conn(), "-T", strconv.Itoa(b.o.loadThreads))
	if t == goTPC {
		args = append([]string{"tpch", "prepare"}, args...)
	} else {
		args = append(append([]string{"tpch"}, args...), "prepare")
	}
	m, err := b.client(t, args)
	if err != nil {
		return m, fmt.Errorf("%s load: %w", t, err)
	}
	counts := make([]string, len(tables))
	for i, table := range tables {
		counts[i] = fmt.Sprintf("(SELECT COUNT(*) FROM %s.%s)", database, table)
	}
	if err := b.db.QueryRowContext(ctx, "SELECT "+strings.Join(counts, " + ")).Scan(&m.count); err != nil {
		return m, fmt.Errorf("count the loaded rows: %w", err)
	}
	return m, nil
}

// queries has t run the queries once, then -passes times, over one
// connection: the second run's whole-process CPU a query, and the CPU a
// query the extra passes cost (the difference of the two runs over the
// difference of their queries: start-up, connecting and starbench's
// results folder and reports are in both and drop out).
func (b *bench) queries(t tool, r int) (measure, error) {
	per := len(strings.Split(b.o.queries, ","))
	var runs [2]measure
	for i, n := range []int{per, per * b.o.passes} {
		args := append(b.conn(), "-T", "1", "--queries", b.o.queries, "--count", strconv.Itoa(n))
		if t == goTPC {
			args = append([]string{"tpch", "run"}, args...)
		} else {
			args = append(append([]string{"tpch"}, args...), "--out", filepath.Join(b.work, fmt.Sprintf("run-%d-%d", r, i)), "run")
		}
		m, err := b.client(t, args)
		if err != nil {
			return m, fmt.Errorf("%s run: %w", t, err)
		}
		m.count = int64(n)
		runs[i] = m
	}
	m := runs[1]
	if extra := runs[1].count - runs[0].count; extra > 0 {
		m.marginal = float64((runs[1].cpu - runs[0].cpu).Microseconds()) / float64(extra)
	}
	return m, nil
}

// client runs one tool's process, with the server's CPU over it.
func (b *bench) client(t tool, args []string) (measure, error) {
	server0, err := benchcmp.ProcessCPU(b.server.PID())
	if err != nil {
		return measure{}, err
	}
	run, err := benchcmp.RunClient(b.bins[t], args, nil)
	if err != nil {
		return measure{}, err
	}
	server1, err := benchcmp.ProcessCPU(b.server.PID())
	if err != nil {
		return measure{}, err
	}
	return measure{wall: run.Wall, cpu: run.CPU, serverCPU: server1 - server0}, nil
}

// ratio is starbench's figure over go-tpc's, round by round.
func ratio(gt, sb []measure, f func(measure) float64) benchcmp.Ratio {
	pairs := make([]float64, len(gt))
	var a, b float64
	for r := range gt {
		pairs[r] = f(sb[r]) / f(gt[r])
		a += f(gt[r])
		b += f(sb[r])
	}
	return benchcmp.NewRatio(b/a, pairs)
}

func median(ms []measure, f func(measure) float64) float64 {
	xs := make([]float64, len(ms))
	for i, m := range ms {
		xs[i] = f(m)
	}
	slices.Sort(xs)
	if n := len(xs); n%2 == 1 {
		return xs[n/2]
	} else {
		return (xs[n/2-1] + xs[n/2]) / 2
	}
}

func printLoads(o options, loads map[tool][]measure) {
	wall := func(m measure) float64 { return m.wall.Seconds() }
	cpu := func(m measure) float64 { return m.cpu.Seconds() }
	rate := func(m measure) float64 { return float64(m.count) / m.wall.Seconds() }
	server := func(m measure) float64 { return float64(m.serverCPU.Microseconds()) / float64(max(m.count, 1)) }
	fmt.Printf("\nload, scale factor %d, -T %d, into a re-created database (medians over %d rounds):\n", o.sf, o.loadThreads, o.rounds)
	for _, t := range []tool{goTPC, starbench} {
		fmt.Printf("  %-10s %8.1f s wall %10.0f rows/s %8.1f s client CPU %6.2f µs server CPU/row\n", t,
			median(loads[t], wall), median(loads[t], rate), median(loads[t], cpu), median(loads[t], server))
	}
	w := ratio(loads[goTPC], loads[starbench], wall)
	fmt.Printf("  starbench/go-tpc wall time: median %.2f (%s); client CPU %.2f; server CPU/row %.2f\n", w.Median, w.Spread(),
		ratio(loads[goTPC], loads[starbench], cpu).Median, ratio(loads[goTPC], loads[starbench], server).Median)
}

func printQueries(o options, runs map[tool][]measure) {
	per := func(m measure) float64 { return m.perEvent() }
	marginal := func(m measure) float64 { return m.marginal }
	fmt.Printf("\nqueries %s over one connection, once then %d passes (medians over %d rounds):\n", o.queries, o.passes, o.rounds)
	for _, t := range []tool{goTPC, starbench} {
		fmt.Printf("  %-10s %8.0f µs client CPU a query (whole process of %d passes), %8.0f µs a query of the extra passes, %6.1f s wall\n",
			t, median(runs[t], per), o.passes, median(runs[t], marginal), median(runs[t], func(m measure) float64 { return m.wall.Seconds() }))
	}
	c := ratio(runs[goTPC], runs[starbench], per)
	fmt.Printf("  starbench/go-tpc client CPU a query, whole process: median %.2f (%s)\n", c.Median, c.Spread())
	c = ratio(runs[goTPC], runs[starbench], marginal)
	fmt.Printf("  starbench/go-tpc client CPU a query, the extra passes: median %.2f (%s)\n", c.Median, c.Spread())
	fmt.Println("\nRatios are starbench over go-tpc: below 1.0 starbench is faster or cheaper. \"pairs\" is the range of the")
	fmt.Println("rounds' A/B ratios, \"95% CI\" the confidence interval of their mean (Student's t). Client CPU is the")
	fmt.Println("process's (rusage): the whole process's figure includes start-up, connecting and, for starbench, its")
	fmt.Println("results folder and reports; the extra passes' figure is the difference between a run of -passes")
	fmt.Println("passes and one of one pass, over the queries it adds.")
}

// checkIndexes speed MariaDB's plans for q13, q17, q20 and q22 (the
// answers stay the same).
var checkIndexes = []string{
	"CREATE INDEX bench_l_part_supp ON " + database + ".lineitem (l_partkey, l_suppkey)",
	"CREATE INDEX bench_o_cust ON " + database + ".orders (o_custkey)",
}

// crossCheck has each tool check all 22 answers on the other's load.
func (b *bench) crossCheck(ctx context.Context) error {
	all := "q1,q2,q3,q4,q5,q6,q7,q8,q9,q10,q11,q12,q13,q14,q15,q16,q17,q18,q19,q20,q21,q22"
	for _, loader := range []tool{goTPC, starbench} {
		checker := 1 - loader
		l, err := b.load(ctx, loader)
		if err != nil {
			return err
		}
		for _, stmt := range checkIndexes {
			if _, err := b.db.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("%s: %w", stmt, err)
			}
		}
		args := append(b.conn(), "-T", "1", "--queries", all, "--count", "22", "--check")
		if checker == goTPC {
			args = append([]string{"tpch", "run"}, args...)
		} else {
			args = append(append([]string{"tpch"}, args...), "--out", filepath.Join(b.work, "check"), "run")
		}
		run, err := benchcmp.RunClient(b.bins[checker], args, nil)
		out := run.Stdout + run.Stderr
		switch {
		case err != nil:
			fmt.Printf("%s's check of %s's load (%d rows): FAILED\n%v\n", checker, loader, l.count, err)
		case strings.Contains(out, "failed"):
			fmt.Printf("%s's check of %s's load (%d rows): FAILED\n%s\n", checker, loader, l.count, out)
		default:
			fmt.Printf("%s's check of %s's load (%d rows): the 22 answers are TPC-H's (%.0f s)\n", checker, loader, l.count, run.Wall.Seconds())
		}
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(line, "[Summary]") || strings.HasPrefix(line, "check:") {
				fmt.Println("  " + line)
			}
		}
	}
	return nil
}
