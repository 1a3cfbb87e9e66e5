package benchcmp

import (
	"errors"
	"flag"
	"io"
	"math"
	"os"
	"strings"
	"testing"
	"time"
)

func TestMeanInterval(t *testing.T) {
	// 1..5: mean 3, sample sd sqrt(2.5), the exact t(4) = 2.7764451...
	mean, half, ok := MeanInterval([]float64{1, 2, 3, 4, 5})
	if want := 2.7764451051977935 * math.Sqrt(2.5) / math.Sqrt(5); !ok || mean != 3 || math.Abs(half-want) > 1e-9 {
		t.Errorf("MeanInterval(1..5) = %v ± %v (%v), want 3 ± %v", mean, half, ok, want)
	}
	// Two rounds: one degree of freedom, t = 12.706.
	if _, half, _ := MeanInterval([]float64{1, 2}); math.Abs(half-12.706204736174693*math.Sqrt(0.5)/math.Sqrt(2)) > 1e-9 {
		t.Errorf("two values: half-width %v", half)
	}
	if _, half, ok := MeanInterval([]float64{0.9, 0.9, 0.9}); !ok || half != 0 {
		t.Errorf("equal values: half-width %v (%v), want 0", half, ok)
	}
	for _, xs := range [][]float64{nil, {1.1}} {
		if _, _, ok := MeanInterval(xs); ok {
			t.Errorf("%v gave an interval", xs)
		}
	}
}

// TestOrderBalanced checks that for every round count CheckRounds
// accepts, A and starbench each go first in exactly half the rounds, and
// that it accepts the even counts from 2 and nothing else.
func TestOrderBalanced(t *testing.T) {
	accepted := 0
	for rounds := -3; rounds <= 40; rounds++ {
		err := CheckRounds(rounds)
		if want := rounds >= 2 && rounds%2 == 0; (err == nil) != want {
			t.Errorf("CheckRounds(%d) = %v", rounds, err)
		}
		if err != nil {
			if !strings.Contains(err.Error(), "-rounds must be even") {
				t.Errorf("CheckRounds(%d): %v does not say why", rounds, err)
			}
			continue
		}
		accepted++
		first := 0
		for r := range rounds {
			if AFirst(r) {
				first++
			}
			if r > 0 && AFirst(r) == AFirst(r-1) {
				t.Errorf("rounds %d and %d have the same tool first", r-1, r)
			}
		}
		if 2*first != rounds {
			t.Errorf("%d rounds: A first in %d, want %d", rounds, first, rounds/2)
		}
	}
	if accepted != 20 {
		t.Errorf("%d round counts accepted in -3..40, want the 20 even ones from 2", accepted)
	}
}

func TestListOrNone(t *testing.T) {
	if got := ListOrNone(nil); got != "none" {
		t.Errorf("ListOrNone(nil) = %q", got)
	}
	if got := ListOrNone([]string{"t1", "t4"}); got != "t1, t4" {
		t.Errorf("ListOrNone = %q", got)
	}
}

// TestRunClient runs a shell that burns a little CPU: its output comes
// back whole, each line reaches onLine, and a failing process is an error
// holding its output.
func TestRunClient(t *testing.T) {
	var seen []string
	run, err := RunClient("sh", []string{"-c", "echo one; i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; echo two; echo err >&2"},
		func(line string, pid int) error {
			seen = append(seen, line)
			if _, err := ProcessCPU(pid); err != nil {
				t.Errorf("ProcessCPU(%d): %v", pid, err)
			}
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if run.Stdout != "one\ntwo\n" || run.Stderr != "err\n" || strings.Join(seen, ",") != "one,two" {
		t.Errorf("stdout %q, stderr %q, lines %q", run.Stdout, run.Stderr, seen)
	}
	if run.CPU <= 0 || run.Wall <= 0 {
		t.Errorf("CPU %v, wall %v", run.CPU, run.Wall)
	}
	if _, err := RunClient("sh", []string{"-c", "echo said; exit 3"}, nil); err == nil || !strings.Contains(err.Error(), "said") {
		t.Errorf("failing process: %v", err)
	}
}

func TestProcessCPU(t *testing.T) {
	if _, err := ProcessCPU(os.Getpid()); err != nil {
		t.Error(err)
	}
	if _, err := ProcessCPU(-1); err == nil {
		t.Error("no error for pid -1")
	}
}

// Main maps a command's outcome to its exit status and says the error
// once, after the command's name.
func TestMainExitStatus(t *testing.T) {
	parse := func(args []string, _ io.Writer) (string, error) {
		switch args[0] {
		case "-h":
			return "", flag.ErrHelp
		case "bad":
			return "", errors.New("-rounds must be even")
		}
		return args[0], nil
	}
	run := func(o string) error {
		if o == "fail" {
			return errors.New("server gone")
		}
		return nil
	}
	for _, c := range []struct {
		arg, out string
		code     int
	}{{"-h", "", 0}, {"bad", "cmp: -rounds must be even\n", 2}, {"fail", "cmp: server gone\n", 1}, {"ok", "", 0}} {
		var stderr strings.Builder
		if code := Main("cmp", []string{c.arg}, &stderr, parse, run); code != c.code || stderr.String() != c.out {
			t.Errorf("%s: exit %d, stderr %q; want %d, %q", c.arg, code, stderr.String(), c.code, c.out)
		}
	}
	if _, err := ParseThreads("1, 4,x"); err == nil {
		t.Error("-threads 1,4,x: want an error")
	}
	if th, err := ParseThreads("1, 4,16"); err != nil || len(th) != 3 || th[1] != 4 {
		t.Errorf("-threads 1,4,16: %v %v", th, err)
	}
	if CheckRunTime(1500*time.Millisecond) == nil || CheckRunTime(0) == nil || CheckRunTime(2*time.Second) != nil {
		t.Error("-time: 1.5s and 0 are refused, 2s is taken")
	}
}
