// Command bench-vs-gotpc measures `starbench tpcc` against go-tpc v1.0.7
// on the same private MariaDB (or TiDB: -server tidb) in the same run, with the same command line
// given to both.
//
// Load: in each round both tools load the same warehouses into a dropped
// and re-created database, A B or B A, after one untimed go-tpc load (so
// neither pays for the cold server); each tool's wall time, client CPU
// (the process's user + system time, from the kernel's rusage) and the
// server's CPU per loaded row are printed, with the ratios starbench /
// go-tpc and a 95% confidence interval of the per-round wall-time ratios.
//
// Run: after one starbench load, for each thread count the server writes
// out its dirty pages, then both tools run the TPC-C mix alternately (A
// B, B A, ...) for -time; the table shows each tool's client CPU µs per
// transaction (the final [Summary] lines' counts, *_ERR left out), the
// ratio with its range over the rounds' pairs and 95% confidence
// interval, tpmC, and the server's CPU per transaction. The client CPU
// is the whole process's: go-tpc prints no line at which its threads
// have started, so no start-up is taken out for either tool.
//
// -rounds must be even (2, 4, ...): round r runs go-tpc first when r is
// even and starbench first when it is odd, so each tool goes first in
// exactly half the rounds; an odd count is refused with exit status 2
// rather than left unbalanced.
//
//	go run ./cmd/bench-vs-gotpc -warehouses 2 -threads 1,4,16 -time 20s -rounds 2
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
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	_ "github.com/go-sql-driver/mysql"

	"github.com/starbench/starbench/cmd/internal/benchcmp"
	"github.com/starbench/starbench/internal/sandbox"
)

// database is where both tools load and run.
const database = "tpcc"

// options are the command line's.
type options struct {
	warehouses  int
	loadThreads int
	threads     []int
	runTime     time.Duration
	rounds      int
	starbench   string
	server      string // -server: mariadb or tidb
}

func main() {
	os.Exit(benchcmp.Main("bench-vs-gotpc", os.Args[1:], os.Stderr, parseFlags, run))
}

// parseFlags reads and checks the command line; its errors are usage
// errors (exit status 2). Help goes to stderr.
func parseFlags(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("bench-vs-gotpc", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: bench-vs-gotpc [flags]

Runs go-tpc v1.0.7 and starbench tpcc alternately (A B, B A, ...) on a private MariaDB (or TiDB, -server tidb): the
load (wall time, client CPU, server CPU per row) and, at each thread count, the TPC-C mix
(client CPU per transaction, tpmC, server CPU per transaction), with the ratios starbench /
go-tpc. -rounds must be even, so that each tool goes first in half the rounds: an odd count
is refused (exit status 2). go-tpc is looked for on PATH, then in $(go env GOPATH)/bin.

`)
		fs.PrintDefaults()
	}
	var o options
	var threads string
	fs.IntVar(&o.warehouses, "warehouses", 2, "warehouses")
	fs.IntVar(&o.loadThreads, "load-threads", 2, "threads of each load (-T of prepare)")
	fs.StringVar(&threads, "threads", "1,4,16", "comma-separated thread counts of the runs")
	fs.DurationVar(&o.runTime, "time", 20*time.Second, "duration of each run (whole seconds)")
	fs.IntVar(&o.rounds, "rounds", 2, "A/B rounds per thread count and for the load; even, so each tool goes first in half of them")
	fs.StringVar(&o.starbench, "starbench", "", "starbench binary (default: build ./cmd/starbench)")
	fs.StringVar(&o.server, "server", "mariadb", "the private server both tools run against: mariadb (Debian's), or tidb (a tidb-server on unistore, found as --target sandbox:tidb finds it)")
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
	if o.warehouses < 1 || o.loadThreads < 1 {
		return o, fmt.Errorf("-warehouses and -load-threads must be at least 1")
	}
	var err error
	o.threads, err = benchcmp.ParseThreads(threads)
	return o, err
}

// tool is one side of the comparison.
type tool int

const (
	goTPC     tool = iota // tool A
	starbench             // tool B
)

func (t tool) String() string { return [...]string{"go-tpc", "starbench"}[t] }

// order is round r's order of the tools: A B or B A as benchcmp.AFirst
// says.
func order(r int) [2]tool {
	if benchcmp.AFirst(r) {
		return [2]tool{goTPC, starbench}
	}
	return [2]tool{starbench, goTPC}
}

// run measures the loads and every thread count of o, printing the
// figures as it goes.
func run(o options) error {
	goTPCBin, err := benchcmp.GoTPCBinary()
	if err != nil {
		return err
	}
	setup, err := benchcmp.Setup("bench-vs-gotpc", o.starbench, o.server)
	if err != nil {
		return err
	}
	defer setup.Close()
	ctx, work, starbenchBin, m := context.Background(), setup.Work, setup.Starbench, setup.Server
	db, err := sql.Open("mysql", m.DSN())
	if err != nil {
		return err
	}
	defer db.Close()
	b := &bench{o: o, work: work, bins: [2]string{goTPCBin, starbenchBin}, server: m, db: db}
	b.printHeader()
	loads, err := b.timeLoads(ctx)
	if err != nil {
		return err
	}
	lines, loadRatio := loadLines(o.warehouses, o.loadThreads, loads[goTPC], loads[starbench])
	for _, l := range lines {
		fmt.Println(l)
	}
	fmt.Println()
	printLegend()
	if err := b.recreate(ctx); err != nil {
		return err
	}
	if _, err := benchcmp.RunClient(b.bins[starbench], b.prepareArgs(starbench), nil); err != nil {
		return fmt.Errorf("starbench load before the runs: %w", err)
	}
	return b.measurePoints(ctx, loadRatio)
}

// bench is what every run of the comparison shares: the options, the
// binaries and the private server.
type bench struct {
	o      options
	work   string    // the temporary directory starbench's runs write into
	bins   [2]string // each tool's binary
	server sandbox.Server
	db     *sql.DB
}

// printHeader prints what is measured, against what, and how often.
func (b *bench) printHeader() {
	fmt.Printf("%s on 127.0.0.1, go-tpc %s, %d warehouses, %s per run, %d rounds (A B, B A, ...), %d CPUs\n",
		b.server.ServerVersion(), benchcmp.GoTPCVersion(b.bins[goTPC]), b.o.warehouses, b.o.runTime, b.o.rounds, runtime.NumCPU())
}

// conn are the connection flags both tools take, go-tpc's.
func (b *bench) conn() []string {
	return []string{"-H", "127.0.0.1", "-P", benchcmp.Port(b.server), "-U", "root", "-p", b.server.Password(), "-D", database,
		"--warehouses", strconv.Itoa(b.o.warehouses)}
}

// prepareArgs are t's arguments for a load of o.warehouses with
// o.loadThreads threads and no check afterwards.
func (b *bench) prepareArgs(t tool) []string {
	opts := append(b.conn(), "-T", strconv.Itoa(b.o.loadThreads), "--no-check")
	if t == goTPC {
		return append([]string{"tpcc", "prepare"}, opts...)
	}
	return append(append([]string{"tpcc"}, opts...), "prepare")
}

// runArgs are t's arguments for a run of o.runTime with threads threads,
// one report at its end; out is starbench's results folder.
func (b *bench) runArgs(t tool, threads int, out string) []string {
	opts := append(b.conn(), "-T", strconv.Itoa(threads), "--time", b.o.runTime.String(), "--interval", b.o.runTime.String())
	if t == goTPC {
		return append([]string{"tpcc", "run"}, opts...)
	}
	return append(append([]string{"tpcc"}, opts...), "--out", out, "run")
}

// settle has the server write out its dirty pages; one that will not is
// measured anyway, with a word on stderr.
func (b *bench) settle(ctx context.Context) error {
	err := benchcmp.Settle(ctx, b.db)
	if errors.Is(err, benchcmp.ErrStillDirty) {
		fmt.Fprintf(os.Stderr, "bench-vs-gotpc: %v; measuring anyway\n", err)
		return nil
	}
	return err
}

// recreate drops the database with everything loaded into it and creates
// it empty.
func (b *bench) recreate(ctx context.Context) error {
	for _, stmt := range []string{"DROP DATABASE IF EXISTS " + database, "CREATE DATABASE " + database} {
		if _, err := b.db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("%s: %w", stmt, err)
		}
	}
	return nil
}

// tables are the nine TPC-C tables both tools load.
var tables = []string{"warehouse", "district", "customer", "history", "new_order", "orders", "order_line", "stock", "item"}

// countRows returns the rows of the nine tables.
func (b *bench) countRows(ctx context.Context) (int64, error) {
	counts := make([]string, len(tables))
	for i, t := range tables {
		counts[i] = fmt.Sprintf("(SELECT COUNT(*) FROM %s.%s)", database, t)
	}
	var rows int64
	if err := b.db.QueryRowContext(ctx, "SELECT "+strings.Join(counts, " + ")).Scan(&rows); err != nil {
		return 0, fmt.Errorf("count the loaded rows: %w", err)
	}
	return rows, nil
}

// load is one timed load.
type load struct {
	wall, cpu time.Duration // the client's
	serverCPU time.Duration // over the client's whole process
	rows      int64         // in the nine tables afterwards
}

// load re-creates the database, lets the server settle, and has t load
// it.
func (b *bench) load(ctx context.Context, t tool) (load, error) {
	if err := b.recreate(ctx); err != nil {
		return load{}, err
	}
	if err := b.settle(ctx); err != nil {
		return load{}, err
	}
	server0, err := benchcmp.ProcessCPU(b.server.PID())
	if err != nil {
		return load{}, err
	}
	run, err := benchcmp.RunClient(b.bins[t], b.prepareArgs(t), nil)
	if err != nil {
		return load{}, fmt.Errorf("%s load: %w", t, err)
	}
	server1, err := benchcmp.ProcessCPU(b.server.PID())
	if err != nil {
		return load{}, err
	}
	rows, err := b.countRows(ctx)
	if err != nil {
		return load{}, err
	}
	return load{wall: run.Wall, cpu: run.CPU, serverCPU: server1 - server0, rows: rows}, nil
}

// timeLoads runs one untimed go-tpc load (the server's first load, its
// files and buffer pool, are charged to no one), then o.rounds rounds of
// timed loads in order(r); it returns each tool's loads by round.
func (b *bench) timeLoads(ctx context.Context) (map[tool][]load, error) {
	if _, err := b.load(ctx, goTPC); err != nil {
		return nil, fmt.Errorf("warm-up: %w", err)
	}
	loads := map[tool][]load{}
	for r := 0; r < b.o.rounds; r++ {
		for _, t := range order(r) {
			l, err := b.load(ctx, t)
			if err != nil {
				return nil, err
			}
			loads[t] = append(loads[t], l)
		}
	}
	return loads, nil
}

// loadLines formats the load figures of go-tpc's (gt) and starbench's
// (sb) loads, by round; it also returns the wall-time ratio starbench /
// go-tpc (of the mean wall times) with its per-round pairs' 95% CI.
func loadLines(warehouses, threads int, gt, sb []load) ([]string, benchcmp.Ratio) {
	mean := func(ls []load, f func(load) float64) float64 {
		var sum float64
		for _, l := range ls {
			sum += f(l)
		}
		return sum / float64(len(ls))
	}
	wall := func(l load) float64 { return l.wall.Seconds() }
	cpu := func(l load) float64 { return l.cpu.Seconds() }
	serverPerRow := func(l load) float64 { return float64(l.serverCPU.Microseconds()) / float64(max(l.rows, 1)) }
	rows := func(l load) float64 { return float64(l.rows) }
	lines := []string{fmt.Sprintf("load (%d warehouses, -T %d, --no-check; A B / B A, each into a re-created database):", warehouses, threads)}
	for _, s := range []struct {
		name string
		ls   []load
	}{{"go-tpc", gt}, {"starbench", sb}} {
		lines = append(lines, fmt.Sprintf("  %-10s %8.2f s wall %8.2f s client CPU %8.2f µs server CPU/row  (%.0f rows)",
			s.name, mean(s.ls, wall), mean(s.ls, cpu), mean(s.ls, serverPerRow), mean(s.ls, rows)))
	}
	pairs := make([]float64, len(gt))
	for r := range gt {
		pairs[r] = sb[r].wall.Seconds() / gt[r].wall.Seconds()
	}
	wr := benchcmp.NewRatio(mean(sb, wall)/mean(gt, wall), pairs)
	lines = append(lines, fmt.Sprintf("  starbench/go-tpc: wall %.2f (%s), client CPU %.2f, server CPU/row %.2f",
		wr.Value, wr.Spread(), mean(sb, cpu)/mean(gt, cpu), mean(sb, serverPerRow)/mean(gt, serverPerRow)))
	return lines, wr
}

// printLegend explains the load lines and the runs' table.
func printLegend() {
	fmt.Println("Ratios are starbench over go-tpc: below 1.0 starbench is faster or cheaper. One untimed go-tpc load warmed")
	fmt.Println("the server first; before each load and each thread count the server writes out its dirty pages")
	fmt.Println("(innodb_max_dirty_pages_pct = 0 until none are left). starbench loads with its default --load-method")
	fmt.Println("(auto: LOAD DATA LOCAL INFILE where the server accepts it), go-tpc with INSERTs. The runs use one")
	fmt.Println("starbench load.")
	fmt.Println()
	fmt.Println("CPU per transaction counts the client's user + system time over its WHOLE process (the kernel's rusage):")
	fmt.Println("go-tpc prints no line at which its threads have started, so start-up, connecting, preparing statements")
	fmt.Println("and, for starbench, writing its results folder are included for both. Transactions are the Count: of")
	fmt.Println("the final [Summary] lines, the *_ERR lines left out.")
	fmt.Println()
	fmt.Println("\"pairs\" is the range of the CPU/txn ratio over the rounds' A/B pairs (the run-to-run noise); \"95% CI\" is")
	fmt.Println("the confidence interval of the mean pair ratio (Student's t over the pairs). tpmC is per run (the mean")
	fmt.Println("over the rounds) and only comparable within this run: client and server share the machine's cores.")
	fmt.Println("\"server\" is the server's CPU µs per transaction over each client's whole process.")
	fmt.Println()
}

// sample is one run of one tool.
type sample struct {
	cpu       time.Duration // the client's whole process
	serverCPU time.Duration // the server's, over the same time
	txns      int64         // the [Summary] counts, *_ERR left out
	tpmC      float64
	stopped   int // threads go-tpc stopped on an error ("execute run failed")
}

func (s sample) cpuPerTxn() float64 { return s.perTxn(s.cpu) }

func (s sample) serverPerTxn() float64 { return s.perTxn(s.serverCPU) }

// perTxn is d in µs per transaction of the sample.
func (s sample) perTxn(d time.Duration) float64 {
	if s.txns == 0 {
		return 0
	}
	return float64(d.Microseconds()) / float64(s.txns)
}

var (
	summaryRe = regexp.MustCompile(`^\[Summary\] (\S+)\s+- Takes\(s\): [0-9.]+, Count: (\d+),`)
	tpmCRe    = regexp.MustCompile(`(?m)^tpmC: ([0-9.]+),`)
	failedRe  = regexp.MustCompile(`(?m)^execute run failed, err`)
)

// parseOutput reads a run's output in go-tpc v1.0.7's layout, which both
// tools print: the transactions are the sum of Count: over the final
// [Summary] lines of each transaction (a later line of a transaction
// replaces an earlier one), *_ERR lines left out; tpmC is the last tpmC:
// line's; stopped counts go-tpc's "execute run failed" lines, one per
// thread that an error stopped.
func parseOutput(out string) (sample, error) {
	counts := map[string]int64{}
	for _, line := range strings.Split(out, "\n") {
		m := summaryRe.FindStringSubmatch(line)
		if m == nil || strings.HasSuffix(m[1], "_ERR") {
			continue
		}
		n, err := strconv.ParseInt(m[2], 10, 64)
		if err != nil {
			return sample{}, fmt.Errorf("%q: %w", line, err)
		}
		counts[m[1]] = n
	}
	tpmC := tpmCRe.FindAllStringSubmatch(out, -1)
	if len(counts) == 0 || len(tpmC) == 0 {
		return sample{}, fmt.Errorf("no [Summary] lines with a tpmC: line in the output:\n%s", out)
	}
	var s sample
	for _, n := range counts {
		s.txns += n
	}
	s.tpmC, _ = strconv.ParseFloat(tpmC[len(tpmC)-1][1], 64)
	s.stopped = len(failedRe.FindAllString(out, -1))
	return s, nil
}

// measure runs t with args and returns its sample, the server's CPU
// taken over the client's whole process.
func (b *bench) measure(t tool, args []string) (sample, error) {
	server0, err := benchcmp.ProcessCPU(b.server.PID())
	if err != nil {
		return sample{}, err
	}
	run, err := benchcmp.RunClient(b.bins[t], args, nil)
	if err != nil {
		return sample{}, err
	}
	server1, err := benchcmp.ProcessCPU(b.server.PID())
	if err != nil {
		return sample{}, err
	}
	s, err := parseOutput(run.Stdout)
	if err != nil {
		return sample{}, err
	}
	s.cpu, s.serverCPU = run.CPU, server1-server0
	return s, nil
}

// measurePoint has the server settle, then runs both tools with threads
// threads o.rounds times in order(r); it returns each tool's samples, by
// round.
func (b *bench) measurePoint(ctx context.Context, threads int) (map[tool][]sample, error) {
	if err := b.settle(ctx); err != nil {
		return nil, err
	}
	samples := map[tool][]sample{}
	for r := 0; r < b.o.rounds; r++ {
		for _, t := range order(r) {
			out := filepath.Join(b.work, fmt.Sprintf("run-t%d-r%d", threads, r))
			s, err := b.measure(t, b.runArgs(t, threads, out))
			if err != nil {
				return nil, fmt.Errorf("%s run, %d threads: %w", t, threads, err)
			}
			samples[t] = append(samples[t], s)
		}
	}
	return samples, nil
}

// pointResult is one row of the table.
type pointResult struct {
	threads int
	a, b    sample         // the totals of go-tpc's and starbench's samples
	cpu     benchcmp.Ratio // CPU per transaction, starbench over go-tpc
	rounds  int
}

// comparePoint totals each tool's samples at a thread count and works
// out the row's ratios.
func comparePoint(threads int, gt, sb []sample) pointResult {
	res := pointResult{threads: threads, a: total(gt), b: total(sb), rounds: len(gt)}
	pairs := make([]float64, len(gt))
	for r := range gt {
		pairs[r] = sb[r].cpuPerTxn() / gt[r].cpuPerTxn()
	}
	res.cpu = benchcmp.NewRatio(res.b.cpuPerTxn()/res.a.cpuPerTxn(), pairs)
	return res
}

func total(ss []sample) sample {
	var t sample
	for _, s := range ss {
		t.cpu += s.cpu
		t.serverCPU += s.serverCPU
		t.txns += s.txns
		t.tpmC += s.tpmC
		t.stopped += s.stopped
	}
	return t
}

const tableFormat = "%7s  %13s %16s %7s %11s %11s  %11s %14s %7s  %9s %9s\n"

// print prints the row, and a note when go-tpc stopped threads.
func (res pointResult) print() {
	a, b, n := res.a, res.b, float64(res.rounds)
	fmt.Printf(tableFormat, strconv.Itoa(res.threads),
		fmt.Sprintf("%.1f", a.cpuPerTxn()), fmt.Sprintf("%.1f", b.cpuPerTxn()), fmt.Sprintf("%.2f", res.cpu.Value), res.cpu.Pairs(), res.cpu.CI(),
		fmt.Sprintf("%.1f", a.tpmC/n), fmt.Sprintf("%.1f", b.tpmC/n), fmt.Sprintf("%.2f", b.tpmC/a.tpmC),
		fmt.Sprintf("%.1f", a.serverPerTxn()), fmt.Sprintf("%.1f", b.serverPerTxn()))
	for _, s := range []struct {
		name    string
		stopped int
	}{{"go-tpc", a.stopped}, {"starbench", b.stopped}} {
		if s.stopped > 0 {
			fmt.Printf("         (%s: %d thread(s) stopped on an error over the %d runs: fewer terminals than -T for the rest of the run)\n",
				s.name, s.stopped, res.rounds)
		}
	}
}

// Targets of the issue: starbench's client CPU per transaction and load
// wall time against go-tpc's.
const (
	cpuMust, cpuAim   = 0.8, 0.6
	loadMust, loadAim = 0.8, 0.5
)

// measurePoints measures every thread count, printing the table a row at
// a time, then the summary with loadRatio, the load's wall-time ratio.
func (b *bench) measurePoints(ctx context.Context, loadRatio benchcmp.Ratio) error {
	fmt.Printf(tableFormat, "threads", "go-tpc µs/txn", "starbench µs/txn", "ratio", "pairs", "95% CI",
		"go-tpc tpmC", "starbench tpmC", "ratio", "server gt", "server sb")
	sum := summary{load: loadRatio}
	sum.add("load wall", loadRatio, loadMust)
	for _, t := range b.o.threads {
		samples, err := b.measurePoint(ctx, t)
		if err != nil {
			return err
		}
		res := comparePoint(t, samples[goTPC], samples[starbench])
		sum.worst = max(sum.worst, res.cpu.Value)
		sum.add(fmt.Sprintf("t%d", t), res.cpu, cpuMust)
		res.print()
	}
	sum.print()
	return nil
}

// summary gathers the worst CPU benchcmp.Ratio, the load ratio and the figures
// whose confidence interval lies above their must or holds it.
type summary struct {
	worst       float64
	load        benchcmp.Ratio
	above, even []string
}

// add files a ratio's CI against its must.
func (s *summary) add(name string, r benchcmp.Ratio, must float64) {
	switch {
	case !r.HasCI:
	case r.Mean-r.Half > must:
		s.above = append(s.above, name)
	case r.Mean+r.Half >= must:
		s.even = append(s.even, name)
	}
}

func (s *summary) print() {
	fmt.Printf("\nworst CPU/txn ratio starbench/go-tpc: %.2f (must be <= %.1f, aim <= %.1f)\n", s.worst, cpuMust, cpuAim)
	fmt.Printf("load wall-time ratio starbench/go-tpc: %.2f (must be <= %.1f, aim <= %.1f)\n", s.load.Value, loadMust, loadAim)
	fmt.Printf("95%% CI above the must (misses it beyond the noise): %s\n", benchcmp.ListOrNone(s.above))
	fmt.Printf("95%% CI holding the must (within the noise; more rounds narrow it): %s\n", benchcmp.ListOrNone(s.even))
}
