// Package benchcmp holds what the commands that measure starbench against
// another client on one private server share (cmd/bench-vs-sysbench,
// cmd/bench-vs-gotpc, cmd/bench-agents): the order rule of their A/B rounds and the check
// that keeps it balanced, running a client process for its CPU time, wall
// time and output, reading a running process's CPU time from /proc,
// letting the server write out its dirty pages before a measurement, and
// the mean with its 95% confidence interval of per-round ratios; and
// their command lines' common parts (cmd.go: exit statuses, -time,
// -threads, the starbench binary, the folder and private server a
// comparison runs in).
//
// It measures and computes; it prints nothing, and each command words its
// own tables.
package benchcmp

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/starbench/starbench/builtins/report"
)

// CheckRounds refuses round counts that cannot be balanced: with A B in
// even rounds and B A in odd ones (AFirst), only an even count lets each
// tool go first equally often.
func CheckRounds(rounds int) error {
	if rounds < 2 || rounds%2 != 0 {
		return fmt.Errorf("-rounds must be even and at least 2 (2, 4, 6, ...), not %d: rounds alternate A B and B A "+
			"so that each tool goes first in half of them, which an odd count cannot do", rounds)
	}
	return nil
}

// AFirst reports whether tool A (the one starbench is compared with) runs
// before starbench in round r (counted from 0): A B, B A, A B, ...
// Whatever the first run of a pair leaves behind (server caches, purge,
// dirty pages) then favours neither tool over an even number of rounds.
func AFirst(r int) bool { return r%2 == 0 }

// MeanInterval returns the mean of xs and the half-width of its 95%
// confidence interval (Student's t with len(xs)-1 degrees of freedom);
// ok is false with fewer than two values.
func MeanInterval(xs []float64) (mean, half float64, ok bool) {
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
	return mean, report.TQuantile(0.975, float64(n-1)) * sd / math.Sqrt(float64(n)), true
}

// ListOrNone joins names with commas, or says "none".
func ListOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// ErrStillDirty is returned (wrapped) by Settle when the server kept
// dirty pages past its deadline; the caller may measure anyway.
var ErrStillDirty = errors.New("the server still had dirty pages after 2 minutes")

// Settle has the server write out its dirty pages before a measurement.
// A load (or a writing workload) leaves thousands of them, which the page
// cleaner would flush for the next minute at ~100 pages/s, charging
// server CPU and I/O to whichever tool runs then. It sets
// innodb_max_dirty_pages_pct to 0 until fewer than 10 are left (for at
// most 2 minutes, then ErrStillDirty) and restores it. A server without
// InnoDB's buffer pool (TiDB, whose status has no dirty pages) has none to
// write out.
func Settle(ctx context.Context, db *sql.DB) error {
	var name string
	var dirty int64
	err := db.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_dirty'").Scan(&name, &dirty)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
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
	return ErrStillDirty
}

// Run is what RunClient measured of one client process.
type Run struct {
	CPU    time.Duration // user + system time of the whole process, from the kernel's rusage
	Wall   time.Duration // from just before its start to its exit
	Stdout string
	Stderr string
}

// RunClient runs bin with args to its end and returns its CPU and wall
// time and its output. onLine, when not nil, sees each line of its
// standard output as it comes, with the process id (to read the process's
// CPU from /proc at a line, say); an error from it kills the process and
// is returned. A process that fails is an error holding its output.
func RunClient(bin string, args []string, onLine func(line string, pid int) error) (Run, error) {
	cmd := exec.Command(bin, args...)
	var out, errOut bytes.Buffer
	cmd.Stderr = &errOut
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return Run{}, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return Run{}, err
	}
	lines := bufio.NewScanner(stdout)
	lines.Buffer(nil, 1<<20)
	for lines.Scan() {
		line := lines.Text()
		out.WriteString(line + "\n")
		if onLine == nil {
			continue
		}
		if err := onLine(line, cmd.Process.Pid); err != nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			return Run{}, err
		}
	}
	// A line too long for the scanner: keep reading, so that the client
	// never blocks on a full pipe.
	_, _ = out.ReadFrom(stdout)
	if err := cmd.Wait(); err != nil {
		return Run{}, fmt.Errorf("%v\n%s%s", err, out.String(), errOut.String())
	}
	wall := time.Since(start)
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return Run{
		CPU:    time.Duration(ru.Utime.Nano() + ru.Stime.Nano()),
		Wall:   wall,
		Stdout: out.String(),
		Stderr: errOut.String(),
	}, nil
}

// clockTicks is the kernel's USER_HZ, the unit of /proc/PID/stat times
// (100 on every Linux architecture Go supports).
const clockTicks = 100

// ProcessCPU returns the user + system CPU time a running process has
// used so far (all its threads), from /proc/PID/stat: to 10 ms.
func ProcessCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// Fields after the command name, which is in parentheses and may
	// contain spaces: state is field 3, utime 14, stime 15.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 > len(b) {
		return 0, fmt.Errorf("unexpected /proc/%d/stat: %q", pid, b)
	}
	f := strings.Fields(string(b[i+2:]))
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
