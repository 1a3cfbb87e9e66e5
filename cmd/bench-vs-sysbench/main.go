// Command bench-vs-sysbench measures starbench's workload engine against
// Debian's sysbench on the same private MariaDB (or TiDB: -server tidb) in the same run: for each
// workload and thread count it runs sysbench and `starbench sysbench`
// alternately (A B, B A, ...) with the same options, takes each client
// process's CPU time (user + system, from the kernel's rusage) and its
// query count, and prints CPU µs per query and tps, with the ratios
// starbench / sysbench and a 95% confidence interval of the per-round CPU
// ratios; tps is only comparable within one run. Where client
// and server share the cores, both CPU costs per query swing with the
// server's pace from run to run, so the server's CPU per query in each
// tool's runs is shown too, and the client's CPU per server CPU, which
// takes that swing out.
//
// Prepare is compared like with like: sysbench's INSERTs against
// starbench's INSERTs (--load-method=insert), 4 threads each, wall time,
// in the same alternating order after one untimed warm-up prepare (so
// neither tool pays for the cold server). starbench's LOAD DATA LOCAL
// INFILE loading (--load-method=load-data) is timed last in each round and
// printed on a line of its own, with its ratio to sysbench's INSERTs.
//
// With -mix, the comparison is of a declared mix against the built-in
// workload it restates: stdlib/oltp.star's oltp_read_write (run by
// `starbench run` on a plan that calls mix.run) against `starbench
// sysbench oltp_read_write`, both on one table, uniform keys, the same
// alternation; the prepare is done once and not timed.
//
// -rounds must be even (2, 4, ...): round r runs sysbench first when r is
// even and starbench first when it is odd, so each tool goes first in
// exactly half the rounds; an odd count is refused with exit status 2
// rather than left unbalanced.
//
//	go run ./cmd/bench-vs-sysbench -time 10s -rounds 2
package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	_ "github.com/go-sql-driver/mysql"

	"github.com/starbench/starbench/cmd/internal/benchcmp"
	"github.com/starbench/starbench/internal/sandbox"
)

type point struct {
	workload string
	threads  int
}

type sample struct {
	cpu       time.Duration // from "Threads started!" to the end
	startup   time.Duration // before it
	serverCPU time.Duration // the server's, over the same part of the run
	queries   int64
	tps       float64
}

// options are the command line's.
type options struct {
	runTime           time.Duration
	rounds            int
	workloads         []string
	threads           []int
	tableSize, tables int
	starbench         string
	server            string // -server: mariadb or tidb
	baseline          string // a starbench binary in sysbench's place
	mix               bool   // the oltp_read_write mix against the built-in workload
	event             bool   // with mix: the mix's statements sent from an event function
	plan              bool   // with baseline: both builds run the workload from a plan (sysbench.run)
}

func main() {
	os.Exit(benchcmp.Main("bench-vs-sysbench", os.Args[1:], os.Stderr, parseFlags, run))
}

// parseFlags reads and checks the command line; its errors are usage
// errors (exit status 2). Help goes to stderr.
func parseFlags(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("bench-vs-sysbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: bench-vs-sysbench [flags]

Runs sysbench and starbench alternately (A B, B A, ...) on a private MariaDB (or TiDB, -server tidb) and prints
client CPU per query, tps and their ratios; prepare is compared INSERT against INSERT
in the same alternating order, and starbench's LOAD DATA is shown on a line of its own.
-rounds must be even, so that each tool goes first in half the rounds: an odd count is
refused (exit status 2). With -baseline OLD, another starbench binary takes sysbench's
place (its columns are labelled baseline), to measure a change to the engine itself.
With -baseline OLD -plan, both builds run each workload from a plan (sysbench.run) instead of
the sysbench command: the cost of a change to the plan modules' path.
With -mix, stdlib/oltp.star's oltp_read_write mix is measured against the built-in
oltp_read_write (one table, uniform keys): the cost of a workload declared in a plan;
-mix -event measures the same statements sent from a Starlark event function (mix.txn's
escape hatch) instead.

`)
		fs.PrintDefaults()
	}
	var o options
	var workloads, threads string
	fs.DurationVar(&o.runTime, "time", 10*time.Second, "duration of each run (whole seconds)")
	fs.IntVar(&o.rounds, "rounds", 2, "A/B rounds per point and for prepare; even, so each tool goes first in half of them")
	fs.StringVar(&workloads, "workloads", "oltp_point_select,oltp_read_write", "comma-separated workloads")
	fs.StringVar(&threads, "threads", "1,4,16", "comma-separated thread counts")
	fs.IntVar(&o.tableSize, "table-size", 100000, "rows per table")
	fs.IntVar(&o.tables, "tables", 4, "tables")
	fs.StringVar(&o.starbench, "starbench", "", "starbench binary (default: build ./cmd/starbench)")
	fs.StringVar(&o.server, "server", "mariadb", "the private server both tools run against: mariadb (Debian's), or tidb (a tidb-server on unistore, found as --target sandbox:tidb finds it)")
	fs.StringVar(&o.baseline, "baseline", "", "another starbench binary (say, built from an earlier commit) in sysbench's place:\n"+
		"the table then compares the two starbench builds (a change's effect on the engine)")
	fs.BoolVar(&o.mix, "mix", false, "compare stdlib/oltp.star's oltp_read_write mix (as B) with the built-in oltp_read_write (as A),\n"+
		"on one table (-workloads and -tables are then oltp_read_write and 1)")
	fs.BoolVar(&o.plan, "plan", false, "with -baseline: both builds run each workload from a plan's sysbench.run, not the sysbench command\n"+
		"(the plan module's path: a change to the family adapter)")
	fs.BoolVar(&o.event, "event", false, "with -mix: the mix's transaction is an event function sending the same statements (the escape hatch)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if o.event && !o.mix {
		return o, fmt.Errorf("-event measures a mix's escape hatch: give it with -mix")
	}
	if o.plan && o.baseline == "" {
		return o, fmt.Errorf("-plan compares two builds' plan modules: give it with -baseline")
	}
	if o.mix && o.baseline != "" {
		return o, fmt.Errorf("-mix and -baseline compare different things; give one")
	}
	if o.mix {
		workloads, o.tables = "oltp_read_write", 1
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
	if o.tables < 1 || o.tableSize < 1 {
		return o, fmt.Errorf("-tables and -table-size must be at least 1")
	}
	for _, w := range strings.Split(workloads, ",") {
		if w = strings.TrimSpace(w); w != "" {
			o.workloads = append(o.workloads, w)
		}
	}
	if len(o.workloads) == 0 {
		return o, fmt.Errorf("-workloads names none")
	}
	var err error
	o.threads, err = benchcmp.ParseThreads(threads)
	return o, err
}

// sysbenchFirst reports whether sysbench (tool A) runs before starbench in
// round r (counted from 0): A B, B A, A B, ... as benchcmp.AFirst has it.
func sysbenchFirst(r int) bool { return benchcmp.AFirst(r) }

// prepareKind is one of the prepares a round times.
type prepareKind int

const (
	sysbenchInsert    prepareKind = iota // sysbench's multi-row INSERTs
	starbenchInsert                      // starbench --load-method=insert: the same INSERTs
	starbenchLoadData                    // starbench --load-method=load-data: LOAD DATA LOCAL INFILE
)

func (k prepareKind) String() string {
	return [...]string{"sysbench INSERT", "starbench INSERT", "starbench LOAD DATA"}[k]
}

// prepareOrder is the order of round r's prepares: the like-for-like pair
// (both tools sending INSERTs) A B or B A as sysbenchFirst says, then
// starbench's LOAD DATA, which has no counterpart to alternate with and
// never goes first.
func prepareOrder(r int) []prepareKind {
	if sysbenchFirst(r) {
		return []prepareKind{sysbenchInsert, starbenchInsert, starbenchLoadData}
	}
	return []prepareKind{starbenchInsert, sysbenchInsert, starbenchLoadData}
}

// prepareLines formats the prepare figures: rows is what one prepare
// loads, the durations are each kind's wall times by round, and loadData
// is empty with noLoadData saying why when LOAD DATA was not measured.
// Ratios are starbench's rows/s over sysbench's: above 1.0 starbench
// loads faster.
func prepareLines(base string, rows float64, sys, sbInsert, loadData []time.Duration, noLoadData string) []string {
	rate := func(ds []time.Duration) float64 {
		var sum time.Duration
		for _, d := range ds {
			sum += d
		}
		return rows * float64(len(ds)) / sum.Seconds()
	}
	pairs := make([]float64, len(sys))
	for r := range sys {
		pairs[r] = sys[r].Seconds() / sbInsert[r].Seconds()
	}
	spread := fmt.Sprintf("pairs %.2f-%.2f", slices.Min(pairs), slices.Max(pairs))
	if mean, half, ok := benchcmp.MeanInterval(pairs); ok {
		spread += fmt.Sprintf(", 95%% CI %.2f-%.2f", mean-half, mean+half)
	}
	lines := []string{fmt.Sprintf("prepare INSERT vs INSERT (4 threads, wall time, A B / B A): %s %.0f rows/s, "+
		"starbench --load-method=insert %.0f rows/s, ratio %.2f (%s)", base, rate(sys), rate(sbInsert), rate(sbInsert)/rate(sys), spread)}
	if len(loadData) == 0 {
		return append(lines, "prepare LOAD DATA (starbench only): not measured: "+noLoadData)
	}
	return append(lines, fmt.Sprintf("prepare LOAD DATA (starbench only, --load-method=load-data, last in each round): "+
		"%.0f rows/s, ratio to %s INSERT %.2f", rate(loadData), base, rate(loadData)/rate(sys)))
}

// run measures the prepares and every point of o, printing the figures
// as it goes.
func run(o options) error {
	sysbench, err := exec.LookPath("sysbench")
	if err != nil {
		return fmt.Errorf("sysbench is not installed (sudo apt-get install -y sysbench)")
	}
	setup, err := benchcmp.Setup("bench-vs-sysbench", o.starbench, o.server)
	if err != nil {
		return err
	}
	defer setup.Close()
	ctx, work, m := context.Background(), setup.Work, setup.Server
	b := newBench(o, work, sysbench, setup.Starbench, m)
	if o.plan {
		if err := os.WriteFile(filepath.Join(work, "sysbench.star"), []byte(sysbenchPlan), 0o644); err != nil {
			return err
		}
	}
	b.printHeader()
	if o.mix {
		if err := b.prepareOnce(); err != nil {
			return err
		}
	} else {
		took, noLoadData, err := b.timePrepares()
		if err != nil {
			return err
		}
		b.printPrepares(took, noLoadData)
	}
	db, err := sql.Open("mysql", m.DSN())
	if err != nil {
		return err
	}
	defer db.Close()
	printLegend()
	return b.measurePoints(ctx, db)
}

// toolA is the side starbench is compared with: sysbench, or with
// -baseline another starbench build.
type toolA struct {
	name, bin string
	// args turns a run's sysbench arguments into the tool's; out is
	// where a starbench build writes its results, p the run's point.
	args func(out string, p point, args []string) []string
}

// bench is what every run of the comparison shares: the options, the
// binaries, the private server and the arguments that reach it.
type bench struct {
	o         options
	work      string // the temporary directory the runs write into
	sysbench  string // the sysbench binary (cleanup always uses it)
	starbench string // the starbench binary
	a         toolA
	b         toolB
	server    sandbox.Server
	conn      []string // --mysql-* options for the server
	common    []string // --tables, --table-size, --rand-type
}

// toolB is the side measured: starbench's sysbench command, or with -mix
// the oltp_read_write mix's plan.
type toolB struct {
	name string
	// args turns a run's sysbench arguments into starbench's, writing
	// its results to out.
	args func(out string, p point, args []string) []string
}

// mixPlan runs stdlib/oltp.star's oltp_read_write mix as -mix measures it.
const mixPlan = `load("@stdlib//oltp.star", "oltp_read_write")

params(threads = 1, time = "10s", table_size = 10000, event = False)

def main(p):
    conn = db.connect()
    m = oltp_read_write(table_size = p.table_size, distribution = "uniform", event = p.event)
    mix.run(conn, m, threads = p.threads, time = p.time)
`

// sysbenchPlan runs a sysbench workload from a plan, as -plan measures it.
const sysbenchPlan = `params(workload = "oltp_point_select", threads = 1, time = "10s", tables = 1, table_size = 10000)

def main(p):
    conn = db.connect()
    sysbench.run(conn, p.workload, threads = p.threads, time = p.time, tables = p.tables, table_size = p.table_size, rand_type = "uniform")
`

// newBench gathers what the runs share; tool A is sysbench unless
// o.baseline names another starbench binary, or o.mix compares the mix
// with the built-in workload.
func newBench(o options, work, sysbench, starbenchBin string, m sandbox.Server) *bench {
	host, port, _ := strings.Cut(m.Config().Addr, ":")
	b := &bench{
		o: o, work: work, sysbench: sysbench, starbench: starbenchBin, server: m,
		conn:   []string{"--mysql-host=" + host, "--mysql-port=" + port, "--mysql-user=root", "--mysql-password=" + m.Password(), "--mysql-db=sbtest"},
		common: []string{fmt.Sprintf("--tables=%d", o.tables), fmt.Sprintf("--table-size=%d", o.tableSize), "--rand-type=uniform"},
		a:      toolA{name: "sysbench", bin: sysbench, args: func(out string, _ point, args []string) []string { return args }},
	}
	b.b = toolB{name: "starbench", args: func(out string, _ point, args []string) []string {
		return append([]string{"sysbench", "--out", out}, args...)
	}}
	if o.baseline != "" {
		b.a = toolA{name: "baseline", bin: o.baseline, args: func(out string, _ point, args []string) []string {
			return append([]string{"sysbench", "--out", out + "-baseline"}, args...)
		}}
	}
	if o.plan {
		plan := filepath.Join(work, "sysbench.star")
		planArgs := func(out string, p point) []string {
			return []string{"run", plan, "--out", out, "--target", m.DSN(), "-p", "workload=" + p.workload, "-p", fmt.Sprintf("threads=%d", p.threads),
				"-p", fmt.Sprintf("time=%ds", int(o.runTime.Seconds())), "-p", fmt.Sprintf("tables=%d", o.tables), "-p", fmt.Sprintf("table_size=%d", o.tableSize)}
		}
		b.a.args = func(out string, p point, _ []string) []string { return planArgs(out+"-baseline", p) }
		b.b.args = func(out string, p point, _ []string) []string { return planArgs(out, p) }
	}
	if o.mix {
		b.a = toolA{name: "built-in", bin: starbenchBin, args: func(out string, _ point, args []string) []string {
			return append([]string{"sysbench", "--out", out + "-builtin"}, args...)
		}}
		plan := filepath.Join(work, "mix.star")
		b.b = toolB{name: "mix", args: func(out string, p point, _ []string) []string {
			return []string{"run", plan, "--out", out, "--target", m.DSN(), "-p", fmt.Sprintf("threads=%d", p.threads),
				"-p", fmt.Sprintf("time=%ds", int(o.runTime.Seconds())), "-p", fmt.Sprintf("table_size=%d", o.tableSize),
				"-p", fmt.Sprintf("event=%v", o.event)}
		}}
		if o.event {
			b.b.name = "event"
		}
	}
	return b
}

// prepareOnce writes the mix's plan and prepares the table -mix runs on,
// untimed.
func (b *bench) prepareOnce() error {
	if err := os.WriteFile(filepath.Join(b.work, "mix.star"), []byte(mixPlan), 0o644); err != nil {
		return err
	}
	args := append(append(append([]string{"sysbench", "oltp_read_write"}, b.conn...), b.common...), "--threads=4", "prepare")
	if out, err := exec.Command(b.starbench, args...).CombinedOutput(); err != nil {
		return fmt.Errorf("prepare: %v\n%s", err, out)
	}
	what := "stdlib/oltp.star's oltp_read_write"
	if b.o.event {
		what += " sent from an event function (event = True)"
	}
	fmt.Printf("mix: %s (B) against the built-in oltp_read_write (A), one table, uniform keys\n", what)
	fmt.Println()
	return nil
}

// printHeader prints what is measured, against what, and how often.
func (b *bench) printHeader() {
	fmt.Printf("%s on 127.0.0.1, sysbench %s, %d tables x %d rows, %s per run, %d rounds (A B, B A, ...)\n",
		b.server.ServerVersion(), version(b.sysbench), b.o.tables, b.o.tableSize, b.o.runTime, b.o.rounds)
	if b.o.baseline != "" {
		fmt.Printf("baseline: %s, in sysbench's place (its figures are in the sysbench columns)\n", b.o.baseline)
	}
}

// preparer runs one kind of prepare on freshly dropped tables.
type preparer struct {
	sysbench string                   // the binary that drops the tables
	cleanup  []string                 // its arguments for that
	commands map[prepareKind][]string // each kind's command line
}

// newPreparer builds the cleanup and each kind's prepare command: 4
// threads of oltp_read_write, tool A's INSERTs being a starbench build's
// with -baseline.
func (b *bench) newPreparer() preparer {
	prep := append(append(append([]string{"oltp_read_write"}, b.conn...), b.common...), "--threads=4")
	cleanup := append(append(append([]string{"oltp_read_write"}, b.conn...), b.common...), "cleanup")
	commands := map[prepareKind][]string{
		sysbenchInsert:    append(append([]string{b.sysbench}, prep...), "prepare"),
		starbenchInsert:   append(append([]string{b.starbench, "sysbench"}, prep...), "--load-method=insert", "prepare"),
		starbenchLoadData: append(append([]string{b.starbench, "sysbench"}, prep...), "--load-method=load-data", "prepare"),
	}
	if b.o.baseline != "" {
		commands[sysbenchInsert] = append(append([]string{b.o.baseline, "sysbench"}, prep...), "--load-method=insert", "prepare")
	}
	return preparer{sysbench: b.sysbench, cleanup: cleanup, commands: commands}
}

// run drops the tables, then times a prepare of kind k (wall time).
func (p preparer) run(k prepareKind) (time.Duration, error) {
	if out, err := exec.Command(p.sysbench, p.cleanup...).CombinedOutput(); err != nil {
		return 0, fmt.Errorf("cleanup: %v\n%s", err, out)
	}
	start := time.Now()
	if out, err := exec.Command(p.commands[k][0], p.commands[k][1:]...).CombinedOutput(); err != nil {
		return 0, fmt.Errorf("%s prepare: %v\n%s", k, err, out)
	}
	return time.Since(start), nil
}

// timePrepares runs one untimed warm-up prepare, then o.rounds rounds of
// timed prepares in prepareOrder. It returns each kind's wall times by
// round and, when the server refused LOAD DATA in the first round, why
// (the first line of the error) instead of LOAD DATA's times.
func (b *bench) timePrepares() (took map[prepareKind][]time.Duration, noLoadData string, err error) {
	p := b.newPreparer()
	// An untimed prepare first: the server's first load (files, buffer
	// pool, the client binary's pages) is charged to no one.
	if _, err := p.run(sysbenchInsert); err != nil {
		return nil, "", fmt.Errorf("warm-up: %w", err)
	}
	took = map[prepareKind][]time.Duration{}
	for r := 0; r < b.o.rounds; r++ {
		for _, k := range prepareOrder(r) {
			if k == starbenchLoadData && noLoadData != "" {
				continue
			}
			d, err := p.run(k)
			if err != nil && k == starbenchLoadData && r == 0 {
				// The server refuses LOAD DATA LOCAL: the INSERT
				// comparison stands without it, and the next
				// round's prepares replace the partial tables.
				noLoadData = strings.SplitN(err.Error(), "\n", 2)[0]
				continue
			}
			if err != nil {
				return nil, "", err
			}
			took[k] = append(took[k], d)
		}
	}
	return took, noLoadData, nil
}

// printPrepares prints the prepare figures and how to read them.
func (b *bench) printPrepares(took map[prepareKind][]time.Duration, noLoadData string) {
	for _, l := range prepareLines(b.a.name, float64(b.o.tables*b.o.tableSize), took[sysbenchInsert], took[starbenchInsert], took[starbenchLoadData], noLoadData) {
		fmt.Println(l)
	}
	fmt.Println("(prepare ratios are starbench rows/s over sysbench's: above 1.0 starbench loads faster; one untimed prepare")
	fmt.Println("warmed the server first, and each prepare starts from dropped tables)")
	fmt.Println()
}

// printLegend explains the columns of the points' table.
func printLegend() {
	fmt.Println("Before each point the server writes out its dirty pages (innodb_max_dirty_pages_pct = 0 until none are left).")
	fmt.Println("CPU per query counts the client's user + system time from \"Threads started!\" to its exit;")
	fmt.Println("start-up (process, connections, statements) is shown apart, in CPU ms per run.")
	fmt.Println()
	fmt.Println("\"pairs\" is the range of the CPU/query ratio over the rounds' A/B pairs (the run-to-run noise).")
	fmt.Println()
	fmt.Println("\"server\" is the server's CPU µs per query over the same part of each run. Client and server share the")
	fmt.Println("machine's cores, so both costs per query rise and fall together with the server's pace from run to run;")
	fmt.Println("\"per server\" divides the client's CPU by the server's, which takes that common swing out (a client that")
	fmt.Println("made the server slower would show it in the \"server\" and tps columns instead).")
	fmt.Println()
	fmt.Println("\"95% CI\" is the confidence interval of the mean pair ratio (Student's t over the pairs): a point")
	fmt.Println("whose interval holds 1.0 is even with sysbench within this run's noise.")
	fmt.Println()
}

// measurePoints measures every workload at every thread count, printing
// the table a row at a time and then the summary.
func (b *bench) measurePoints(ctx context.Context, db *sql.DB) error {
	fmt.Printf("%-20s %7s  %14s %14s %7s %11s %11s  %10s %10s %7s  %8s %8s  %9s %9s  %10s\n", "workload", "threads", b.a.name+" µs/q", b.b.name+" µs/q", "ratio", "pairs", "95% CI",
		b.a.name+" tps", b.b.name+" tps", "ratio", "start sb", "start st", "server sb", "server st", "per server")
	var sum summary
	for _, wl := range b.o.workloads {
		for _, t := range b.o.threads {
			p := point{workload: wl, threads: t}
			sys, sb, err := b.measurePoint(ctx, db, p)
			if err != nil {
				return err
			}
			res := comparePoint(p, sys, sb)
			sum.add(res)
			res.print(b.o.rounds)
		}
	}
	target := "must be <= 1.0, aim <= 0.9"
	if b.o.mix {
		target = "the mix's target: <= 1.1"
	}
	if b.o.event {
		target = "the escape hatch's cost: no target (Starlark runs per event)"
	}
	sum.print(b.a.name, b.b.name, target)
	return nil
}

// runArgs are the sysbench arguments of a run at p.
func (b *bench) runArgs(p point) []string {
	return append(append(append([]string{p.workload}, b.conn...), b.common...),
		fmt.Sprintf("--threads=%d", p.threads), fmt.Sprintf("--time=%d", int(b.o.runTime.Seconds())), "run")
}

// measurePoint has the server settle, then runs tool A and starbench at
// p o.rounds times, A B or B A as sysbenchFirst says; it returns A's
// samples and starbench's, by round.
func (b *bench) measurePoint(ctx context.Context, db *sql.DB, p point) (sys, sb []sample, err error) {
	args := b.runArgs(p)
	if err := benchcmp.Settle(ctx, db); errors.Is(err, benchcmp.ErrStillDirty) {
		fmt.Fprintf(os.Stderr, "bench-vs-sysbench: %v; measuring anyway\n", err)
	} else if err != nil {
		return nil, nil, err
	}
	for r := 0; r < b.o.rounds; r++ {
		type tool struct {
			name, bin string
			args      []string
			samples   *[]sample
		}
		out := filepath.Join(b.work, fmt.Sprintf("%s-t%d-r%d", p.workload, p.threads, r))
		pair := []tool{
			{b.a.name, b.a.bin, b.a.args(out, p, args), &sys},
			{b.b.name, b.starbench, b.b.args(out, p, args), &sb},
		}
		if !sysbenchFirst(r) {
			pair[0], pair[1] = pair[1], pair[0]
		}
		for _, tl := range pair {
			s, err := measure(tl.bin, tl.args, b.server.PID())
			if err != nil {
				return nil, nil, fmt.Errorf("%s %s: %w", tl.name, p.workload, err)
			}
			*tl.samples = append(*tl.samples, s)
		}
	}
	return sys, sb, nil
}

// pointResult is one row of the table: both tools' totals at a point
// and the ratios of starbench's figures to A's.
type pointResult struct {
	point
	a, b      sample  // the totals of A's and starbench's samples
	cpuRatio  float64 // CPU per query, starbench over A
	perServer float64 // client CPU per server CPU, starbench over A
	lo, hi    float64 // the range of the per-round CPU per query ratios
	mean      float64 // their mean, and the half-width of its 95% CI
	half      float64
	hasCI     bool // whether mean and half are known (two rounds or more)
}

// comparePoint totals A's samples (sys) and starbench's (sb) at p and
// works out the row's ratios.
func comparePoint(p point, sys, sb []sample) pointResult {
	res := pointResult{point: p, a: total(sys), b: total(sb)}
	res.cpuRatio = res.b.cpuPerQuery() / res.a.cpuPerQuery()
	res.perServer = (res.b.cpu.Seconds() / res.b.serverCPU.Seconds()) / (res.a.cpu.Seconds() / res.a.serverCPU.Seconds())
	pairs := make([]float64, len(sys))
	for r := range sys {
		pairs[r] = sb[r].cpuPerQuery() / sys[r].cpuPerQuery()
	}
	res.lo, res.hi = slices.Min(pairs), slices.Max(pairs)
	res.mean, res.half, res.hasCI = benchcmp.MeanInterval(pairs)
	return res
}

// print prints the row; tps and start-up are per run, over rounds runs.
func (res pointResult) print(rounds int) {
	a, b := res.a, res.b
	ci := "-"
	if res.hasCI {
		ci = fmt.Sprintf("%.2f-%.2f", res.mean-res.half, res.mean+res.half)
	}
	fmt.Printf("%-20s %7d  %14.1f %14.1f %7.2f %11s %11s  %10.1f %10.1f %7.2f  %8d %8d  %9.1f %9.1f  %10.2f\n", res.workload, res.threads,
		a.cpuPerQuery(), b.cpuPerQuery(), res.cpuRatio, fmt.Sprintf("%.2f-%.2f", res.lo, res.hi), ci, a.tps/float64(rounds), b.tps/float64(rounds), b.tps/a.tps,
		a.startup.Milliseconds()/int64(rounds), b.startup.Milliseconds()/int64(rounds), a.serverPerQuery(), b.serverPerQuery(), res.perServer)
}

// summary gathers the rows' worst ratios and the points whose confidence
// interval lies above 1.0 or holds it.
type summary struct {
	worst, worstPerServer float64
	above, even           []string
}

// add takes a row into the summary.
func (s *summary) add(res pointResult) {
	s.worst = max(s.worst, res.cpuRatio)
	s.worstPerServer = max(s.worstPerServer, res.perServer)
	if !res.hasCI {
		return
	}
	name := fmt.Sprintf("%s t%d", res.workload, res.threads)
	switch {
	case res.mean-res.half > 1:
		s.above = append(s.above, name)
	case res.mean+res.half >= 1:
		s.even = append(s.even, name)
	}
}

// print prints the summary below the table; aName and bName are the
// tools' names.
func (s *summary) print(aName, bName, target string) {
	fmt.Printf("\nworst CPU/query ratio %s/%s: %.2f (%s)\n", bName, aName, s.worst, target)
	fmt.Printf("worst client-per-server-CPU ratio %s/%s: %.2f\n", bName, aName, s.worstPerServer)
	fmt.Printf("95%% CI above 1.0 (costlier than %s beyond the noise): %s\n", aName, benchcmp.ListOrNone(s.above))
	fmt.Printf("95%% CI holding 1.0 (even within the noise; more rounds narrow it): %s\n", benchcmp.ListOrNone(s.even))
}

func (s sample) cpuPerQuery() float64 { return s.perQuery(s.cpu) }

func (s sample) serverPerQuery() float64 { return s.perQuery(s.serverCPU) }

// perQuery is d in µs per query of the sample.
func (s sample) perQuery(d time.Duration) float64 {
	if s.queries == 0 {
		return 0
	}
	return float64(d.Microseconds()) / float64(s.queries)
}

func total(ss []sample) sample {
	var t sample
	for _, s := range ss {
		t.cpu += s.cpu
		t.startup += s.startup
		t.serverCPU += s.serverCPU
		t.queries += s.queries
		t.tps += s.tps
	}
	return t
}

var (
	queriesRe = regexp.MustCompile(`(?m)^    queries:\s+(\d+)\s+\((\d+\.\d+) per sec`)
	tpsRe     = regexp.MustCompile(`(?m)^    transactions:\s+\d+\s+\((\d+\.\d+) per sec`)
)

// measure runs a client to its end and returns its CPU time and counts.
// The CPU it spent before printing "Threads started!" (process start-up,
// connecting, preparing statements) is taken from /proc when the line
// appears and reported apart: the per-query figure is the run's alone.
// The server's (serverPID's) CPU is taken over the same part of the run.
func measure(bin string, args []string, serverPID int) (sample, error) {
	var startup, server0 time.Duration
	started := false
	run, err := benchcmp.RunClient(bin, args, func(line string, pid int) error {
		if !strings.HasPrefix(line, "Threads started!") || started {
			return nil
		}
		started = true
		var err error
		startup, err = benchcmp.ProcessCPU(pid)
		if err == nil {
			server0, err = benchcmp.ProcessCPU(serverPID)
		}
		return err
	})
	if err != nil {
		return sample{}, err
	}
	server1, err := benchcmp.ProcessCPU(serverPID)
	if err != nil {
		return sample{}, err
	}
	q := queriesRe.FindStringSubmatch(run.Stdout)
	tp := tpsRe.FindStringSubmatch(run.Stdout)
	if q == nil || tp == nil || !started {
		return sample{}, fmt.Errorf("no report in the output:\n%s", run.Stdout)
	}
	n, _ := strconv.ParseInt(q[1], 10, 64)
	tps, _ := strconv.ParseFloat(tp[1], 64)
	return sample{cpu: run.CPU - startup, startup: startup, serverCPU: server1 - server0, queries: n, tps: tps}, nil
}

func version(bin string) string {
	out, _ := exec.Command(bin, "--version").Output()
	return strings.TrimSpace(strings.TrimPrefix(string(out), "sysbench "))
}
