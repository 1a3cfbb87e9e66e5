package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/starbench/starbench/internal/sandbox"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
)

// --verbosity below 3 as Debian's sysbench 1.0.20 takes it: prepare and
// cleanup print the scripts' lines only (no banner, no "Initializing
// worker threads..."), a run prints nothing (its results folder keeps its
// output); starbench's lines are sysbench's, in any order (threads
// interleave), but for the schema its destructive lines name.
func TestSysbenchVerbosityAsSysbench(t *testing.T) {
	bin, err := exec.LookPath("sysbench")
	if err != nil {
		if sandboxtest.InCI() {
			t.Fatalf("CI=true and Debian's sysbench is needed: %v", err)
		}
		t.Skip("skipping: sysbench is not installed (sudo apt-get install -y sysbench)")
	}
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{})
	cfg := m.Config()
	host, port, _ := strings.Cut(cfg.Addr, ":")
	args := []string{"--mysql-host=" + host, "--mysql-port=" + port, "--mysql-user=root", "--mysql-password=" + cfg.Passwd,
		"--mysql-db=sbtest", "--tables=2", "--table-size=100", "--threads=2", "--verbosity=1"}
	theirs := func(cmd ...string) []string {
		var out, errOut bytes.Buffer
		c := exec.Command(bin, append(append([]string{"oltp_read_write"}, args...), cmd...)...)
		c.Stdout, c.Stderr = &out, &errOut
		if err := c.Run(); err != nil {
			t.Fatalf("sysbench %v: %v\n%s%s", cmd, err, out.String(), errOut.String())
		}
		return sortedOutput(out.String())
	}
	ours := func(cmd ...string) []string {
		r := starbench(t, nil, append(append([]string{"sysbench", "oltp_read_write"}, args...), cmd...)...)
		if r.code != 0 {
			t.Fatalf("starbench sysbench %v: exit %d\n%s%s", cmd, r.code, r.stdout, r.stderr)
		}
		return sortedOutput(strings.ReplaceAll(r.stdout, "'sbtest.sbtest", "'sbtest"))
	}
	want := theirs("prepare")
	theirs("cleanup")
	if got := ours("prepare"); !slices.Equal(got, want) || len(want) == 0 {
		t.Errorf("prepare --verbosity=1:\nstarbench %q\nsysbench  %q", got, want)
	}
	got := ours("cleanup")
	theirs("prepare")
	if want := theirs("cleanup"); !slices.Equal(got, want) || len(want) == 0 {
		t.Errorf("cleanup --verbosity=1:\nstarbench %q\nsysbench  %q", got, want)
	}
	ours("prepare") // for the runs
	out := filepath.Join(t.TempDir(), "run")
	if got, want := ours("--time=1", "--out", out, "run"), theirs("--time=1", "run"); len(got) != 0 || len(want) != 0 {
		t.Errorf("run --verbosity=1 printed\nstarbench %q\nsysbench  %q", got, want)
	}
	expect(t, starbench(t, nil, "report", out), 0, "oltp_read_write")
	expect(t, starbench(t, nil, append(append([]string{"sysbench", "oltp_read_write"}, args...), "--verbosity=7", "run")...), 2,
		"invalid value for --verbosity: 7 (0 to 5)")
}

// sortedOutput is a command's non-empty lines, sorted.
func sortedOutput(s string) []string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	slices.Sort(lines)
	return lines
}
