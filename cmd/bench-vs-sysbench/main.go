// Command bench-vs-sysbench measures starbench's workload engine against
// Debian's sysbench on the same private MariaDB in the same run: for each
// workload and thread count it runs sysbench and `starbench sysbench`
// alternately (A B A B ...) with the same options, takes each client
// process's CPU time (user + system, from the kernel's rusage) and its
// query count, and prints CPU µs per query and tps, with the ratios
// starbench / sysbench and a 95% confidence interval of the per-round CPU
// ratios; tps is only comparable within one run. Where client
// and server share the cores, both CPU costs per query swing with the
// server's pace from run to run, so the server's CPU per query in each
// tool's runs is shown too, and the client's CPU per server CPU, which
// takes that swing out.
//
//	go run ./cmd/bench-vs-sysbench -time 10s -rounds 2
package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	_ "github.com/go-sql-driver/mysql"

	"github.com/starbench/starbench/builtins/sandbox"
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

func main() {
	runTime := flag.Duration("time", 10*time.Second, "duration of each run")
	rounds := flag.Int("rounds", 2, "A/B rounds per point")
	workloads := flag.String("workloads", "oltp_point_select,oltp_read_write", "comma-separated workloads")
	threads := flag.String("threads", "1,4,16", "comma-separated thread counts")
	tableSize := flag.Int("table-size", 100000, "rows per table")
	tables := flag.Int("tables", 4, "tables")
	starbenchBin := flag.String("starbench", "", "starbench binary (default: build ./cmd/starbench)")
	flag.Parse()
	if err := run(*runTime, *rounds, *workloads, *threads, *tableSize, *tables, *starbenchBin); err != nil {
		fmt.Fprintln(os.Stderr, "bench-vs-sysbench:", err)
		os.Exit(1)
	}
}

func run(runTime time.Duration, rounds int, workloads, threads string, tableSize, tables int, starbenchBin string) error {
	if rounds < 1 {
		return fmt.Errorf("-rounds must be at least 1, not %d", rounds)
	}
	sysbench, err := exec.LookPath("sysbench")
	if err != nil {
		return fmt.Errorf("sysbench is not installed (sudo apt-get install -y sysbench)")
	}
	if starbenchBin == "" {
		dir, err := os.MkdirTemp("", "bench-vs-sysbench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		starbenchBin = filepath.Join(dir, "starbench")
		build := exec.Command("go", "build", "-o", starbenchBin, "./cmd/starbench")
		build.Stderr = os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("build starbench: %w", err)
		}
	}
	ctx := context.Background()
	m, err := sandbox.StartMariaDB(ctx, sandbox.MariaDBOptions{})
	if err != nil {
		return err
	}
	defer m.Stop()
	host, port, _ := strings.Cut(m.Config().Addr, ":")
	conn := []string{"--mysql-host=" + host, "--mysql-port=" + port, "--mysql-user=root", "--mysql-password=" + m.Password(), "--mysql-db=sbtest"}
	common := []string{fmt.Sprintf("--tables=%d", tables), fmt.Sprintf("--table-size=%d", tableSize), "--rand-type=uniform"}

	fmt.Printf("MariaDB %s on 127.0.0.1, sysbench %s, %d tables x %d rows, %s per run, %d rounds (A B, B A, ...)\n",
		m.Version, version(sysbench), tables, tableSize, runTime, rounds)
	prep := append(append(append([]string{"oltp_read_write"}, conn...), common...), "--threads=4", "prepare")
	cleanup := append(append(append([]string{"oltp_read_write"}, conn...), common...), "cleanup")
	var sysPrepare, sbPrepare time.Duration
	for r := 0; r < rounds; r++ {
		for _, c := range []struct {
			bin  string
			args []string
			took *time.Duration
		}{{sysbench, prep, &sysPrepare}, {starbenchBin, append([]string{"sysbench"}, prep...), &sbPrepare}} {
			if out, err := exec.Command(sysbench, cleanup...).CombinedOutput(); err != nil {
				return fmt.Errorf("cleanup: %v\n%s", err, out)
			}
			start := time.Now()
			if out, err := exec.Command(c.bin, c.args...).CombinedOutput(); err != nil {
				return fmt.Errorf("%s prepare: %v\n%s", c.bin, err, out)
			}
			*c.took += time.Since(start)
		}
	}
	db, err := sql.Open("mysql", m.DSN())
	if err != nil {
		return err
	}
	defer db.Close()
	rows := float64(tables*tableSize) * float64(rounds)
	fmt.Printf("prepare (4 threads, wall time): sysbench %.0f rows/s, starbench %.0f rows/s (ratio %.2f)\n\n",
		rows/sysPrepare.Seconds(), rows/sbPrepare.Seconds(), sysPrepare.Seconds()/sbPrepare.Seconds())

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
	fmt.Printf("%-20s %7s  %14s %14s %7s %11s %11s  %10s %10s %7s  %8s %8s  %9s %9s  %10s\n", "workload", "threads", "sysbench µs/q", "starbench µs/q", "ratio", "pairs", "95% CI",
		"sysbench tps", "starbench tps", "ratio", "start sb", "start st", "server sb", "server st", "per server")
	worst, worstPerServer := 0.0, 0.0
	var above, even []string // points whose interval lies above 1.0, or holds it
	for _, wl := range strings.Split(workloads, ",") {
		for _, ts := range strings.Split(threads, ",") {
			t, _ := strconv.Atoi(ts)
			args := append(append(append([]string{wl}, conn...), common...),
				fmt.Sprintf("--threads=%d", t), fmt.Sprintf("--time=%d", int(runTime.Seconds())), "run")
			if err := settle(ctx, db); err != nil {
				return err
			}
			var sys, sb []sample
			for r := 0; r < rounds; r++ {
				type tool struct {
					name, bin string
					args      []string
					samples   *[]sample
				}
				out := filepath.Join(os.TempDir(), fmt.Sprintf("bvs-%d-%s-%d-%d", os.Getpid(), wl, t, r))
				pair := []tool{
					{"sysbench", sysbench, args, &sys},
					{"starbench", starbenchBin, append([]string{"sysbench", "--out", out}, args...), &sb},
				}
				// A B, then B A: whatever the first run of a pair leaves
				// behind (server caches, purge) favours neither tool.
				if r%2 == 1 {
					pair[0], pair[1] = pair[1], pair[0]
				}
				for _, tl := range pair {
					s, err := measure(tl.bin, tl.args, m.PID())
					if err != nil {
						return fmt.Errorf("%s %s: %w", tl.name, wl, err)
					}
					*tl.samples = append(*tl.samples, s)
				}
			}
			a, b := total(sys), total(sb)
			cpuRatio := b.cpuPerQuery() / a.cpuPerQuery()
			worst = max(worst, cpuRatio)
			perServer := (b.cpu.Seconds() / b.serverCPU.Seconds()) / (a.cpu.Seconds() / a.serverCPU.Seconds())
			worstPerServer = max(worstPerServer, perServer)
			pairs := make([]float64, len(sys))
			for r := range sys {
				pairs[r] = sb[r].cpuPerQuery() / sys[r].cpuPerQuery()
			}
			lo, hi := slices.Min(pairs), slices.Max(pairs)
			ci := "-"
			if mean, half, ok := meanInterval(pairs); ok {
				ci = fmt.Sprintf("%.2f-%.2f", mean-half, mean+half)
				name := fmt.Sprintf("%s t%d", wl, t)
				switch {
				case mean-half > 1:
					above = append(above, name)
				case mean+half >= 1:
					even = append(even, name)
				}
			}
			fmt.Printf("%-20s %7d  %14.1f %14.1f %7.2f %11s %11s  %10.1f %10.1f %7.2f  %8d %8d  %9.1f %9.1f  %10.2f\n", wl, t,
				a.cpuPerQuery(), b.cpuPerQuery(), cpuRatio, fmt.Sprintf("%.2f-%.2f", lo, hi), ci, a.tps/float64(rounds), b.tps/float64(rounds), b.tps/a.tps,
				a.startup.Milliseconds()/int64(rounds), b.startup.Milliseconds()/int64(rounds), a.serverPerQuery(), b.serverPerQuery(), perServer)
		}
	}
	fmt.Printf("\nworst CPU/query ratio starbench/sysbench: %.2f (must be <= 1.0, aim <= 0.9)\n", worst)
	fmt.Printf("worst client-per-server-CPU ratio starbench/sysbench: %.2f\n", worstPerServer)
	if rounds >= 2 {
		fmt.Printf("95%% CI above 1.0 (costlier than sysbench beyond the noise): %s\n", listOrNone(above))
		fmt.Printf("95%% CI holding 1.0 (even within the noise; more rounds narrow it): %s\n", listOrNone(even))
	}
	return nil
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// meanInterval returns the mean of xs and the half-width of its 95%
// confidence interval (Student's t with len(xs)-1 degrees of freedom);
// ok is false with fewer than two values.
func meanInterval(xs []float64) (mean, half float64, ok bool) {
	n := len(xs)
	if n < 2 {
		return 0, 0, false
	}
	for _, x := range xs {
		mean += x
	}
	mean /= float64(n)
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	sd := math.Sqrt(ss / float64(n-1))
	return mean, studentT95(n-1) * sd / math.Sqrt(float64(n)), true
}

// studentT95 is the two-sided 95% quantile of Student's t distribution
// with df degrees of freedom; between tabulated values and above 30 it
// takes the next smaller df's, which is slightly wide, never narrow.
func studentT95(df int) float64 {
	table := []struct {
		df int
		t  float64
	}{{1, 12.706}, {2, 4.303}, {3, 3.182}, {4, 2.776}, {5, 2.571}, {6, 2.447}, {7, 2.365}, {8, 2.306}, {9, 2.262},
		{10, 2.228}, {12, 2.179}, {15, 2.131}, {20, 2.086}, {25, 2.060}, {30, 2.042}}
	t := table[0].t
	for _, e := range table {
		if e.df <= df {
			t = e.t
		}
	}
	return t
}

// settle has the server write out its dirty pages before a point's runs.
// A prepare (or a writing workload) leaves thousands of them, which the
// page cleaner would flush for the next minute at ~100 pages/s, charging
// server CPU and I/O to whichever tool runs then.
func settle(ctx context.Context, db *sql.DB) error {
	var pct string
	if err := db.QueryRowContext(ctx, "SELECT @@GLOBAL.innodb_max_dirty_pages_pct").Scan(&pct); err != nil {
		return fmt.Errorf("settle: %w", err)
	}
	if _, err := db.ExecContext(ctx, "SET GLOBAL innodb_max_dirty_pages_pct = 0"); err != nil {
		return fmt.Errorf("settle: %w", err)
	}
	defer db.ExecContext(ctx, "SET GLOBAL innodb_max_dirty_pages_pct = "+pct)
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		var name string
		var dirty int64
		if err := db.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_dirty'").Scan(&name, &dirty); err != nil {
			return fmt.Errorf("settle: %w", err)
		}
		if dirty < 10 {
			return nil
		}
	}
	fmt.Fprintln(os.Stderr, "bench-vs-sysbench: the server still had dirty pages after 2 minutes; measuring anyway")
	return nil
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
	cmd := exec.Command(bin, args...)
	var out, errOut bytes.Buffer
	cmd.Stderr = &errOut
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return sample{}, err
	}
	if err := cmd.Start(); err != nil {
		return sample{}, err
	}
	var startup, server0 time.Duration
	started := false
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		line := lines.Text()
		out.WriteString(line + "\n")
		if strings.HasPrefix(line, "Threads started!") && !started {
			started = true
			startup, err = processCPU(cmd.Process.Pid)
			if err == nil {
				server0, err = processCPU(serverPID)
			}
			if err != nil {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
				return sample{}, err
			}
		}
	}
	if err := cmd.Wait(); err != nil {
		return sample{}, fmt.Errorf("%v\n%s%s", err, out.String(), errOut.String())
	}
	server1, err := processCPU(serverPID)
	if err != nil {
		return sample{}, err
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	q := queriesRe.FindStringSubmatch(out.String())
	tp := tpsRe.FindStringSubmatch(out.String())
	if q == nil || tp == nil || !started {
		return sample{}, fmt.Errorf("no report in the output:\n%s", out.String())
	}
	n, _ := strconv.ParseInt(q[1], 10, 64)
	tps, _ := strconv.ParseFloat(tp[1], 64)
	return sample{cpu: cpu - startup, startup: startup, serverCPU: server1 - server0, queries: n, tps: tps}, nil
}

// clockTicks is the kernel's USER_HZ, the unit of /proc/PID/stat times
// (100 on every Linux architecture Go supports).
const clockTicks = 100

// processCPU returns the user + system CPU time a running process has used
// so far (all its threads).
func processCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// Fields after the command name, which is in parentheses and may
	// contain spaces: state is field 3, utime 14, stime 15.
	rest := string(b[bytes.LastIndexByte(b, ')')+2:])
	f := strings.Fields(rest)
	if len(f) < 13 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat: %q", pid, b)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return time.Duration(utime+stime) * time.Second / clockTicks, nil
}

func version(bin string) string {
	out, _ := exec.Command(bin, "--version").Output()
	return strings.TrimSpace(strings.TrimPrefix(string(out), "sysbench "))
}
