package benchcmp

import (
	"context"
	"debug/buildinfo"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/starbench/starbench/internal/sandbox"
)

// Main runs a comparison command: parse reads the arguments (its errors
// are usage errors, flag.ErrHelp after -h), run measures. It returns the
// exit status: 0, 2 for a usage error and 1 for a failed run, each error
// printed to stderr after the command's name.
func Main[O any](name string, args []string, stderr io.Writer, parse func([]string, io.Writer) (O, error), run func(O) error) int {
	opts, err := parse(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 2
	}
	if err := run(opts); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 1
	}
	return 0
}

// CheckRunTime refuses a -time that is not a whole number of seconds, at
// least one: both tools take seconds.
func CheckRunTime(d time.Duration) error {
	if d < time.Second || d%time.Second != 0 {
		return fmt.Errorf("-time must be a whole number of seconds, at least 1s, not %s", d)
	}
	return nil
}

// ParseThreads reads -threads: comma-separated thread counts, each at
// least 1.
func ParseThreads(list string) ([]int, error) {
	var threads []int
	for _, ts := range strings.Split(list, ",") {
		t, err := strconv.Atoi(strings.TrimSpace(ts))
		if err != nil || t < 1 {
			return nil, fmt.Errorf("-threads: %q is not a thread count", ts)
		}
		threads = append(threads, t)
	}
	return threads, nil
}

// StarbenchBinary returns the starbench binary to measure: the one given
// (-starbench), or else one built from ./cmd/starbench into work.
func StarbenchBinary(given, work string) (string, error) {
	if given != "" {
		return given, nil
	}
	bin := filepath.Join(work, "starbench")
	build := exec.Command("go", "build", "-o", bin, "./cmd/starbench")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("build starbench: %w", err)
	}
	return bin, nil
}

// Bench is what a comparison runs in: a temporary folder, the starbench
// binary and a private server (MariaDB or TiDB).
type Bench struct {
	Work      string
	Starbench string
	Server    sandbox.Server
}

// Servers are the engines a comparison can run on (-server).
var Servers = []string{"mariadb", "tidb"}

// Setup makes a comparison's temporary folder (named after the command),
// finds or builds the starbench binary (StarbenchBinary) and starts a
// private server of engine (mariadb or tidb); Close stops and removes
// them.
func Setup(name, starbench, engine string) (*Bench, error) {
	return SetupServer(name, starbench, engine, sandbox.MariaDBOptions{})
}

// SetupServer is Setup with a MariaDB's options (a larger buffer pool).
func SetupServer(name, starbench, engine string, server sandbox.MariaDBOptions) (*Bench, error) {
	work, err := os.MkdirTemp("", name+"-")
	if err != nil {
		return nil, err
	}
	b := &Bench{Work: work}
	if b.Starbench, err = StarbenchBinary(starbench, work); err != nil {
		b.Close()
		return nil, err
	}
	switch engine {
	case "mariadb", "":
		b.Server, err = sandbox.StartMariaDB(context.Background(), server)
	case "tidb":
		b.Server, err = sandbox.StartTiDB(context.Background(), sandbox.TiDBOptions{})
	default:
		err = fmt.Errorf("-server %q: want one of %s", engine, strings.Join(Servers, ", "))
	}
	if err != nil {
		b.Server = nil
		b.Close()
		return nil, err
	}
	return b, nil
}

// Close stops the server and removes the folder.
func (b *Bench) Close() {
	if b.Server != nil {
		b.Server.Stop()
	}
	os.RemoveAll(b.Work)
}

// GoTPCInstall says how to get the go-tpc the comparisons are made with.
const GoTPCInstall = "install it with: GOFLAGS= go install github.com/pingcap/go-tpc/cmd/go-tpc@v1.0.7"

// GoTPCBinary finds go-tpc on PATH or in $(go env GOPATH)/bin.
func GoTPCBinary() (string, error) {
	if bin, err := exec.LookPath("go-tpc"); err == nil {
		return bin, nil
	}
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		for _, dir := range filepath.SplitList(strings.TrimSpace(string(out))) {
			bin := filepath.Join(dir, "bin", "go-tpc")
			if fi, err := os.Stat(bin); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
				return bin, nil
			}
		}
	}
	return "", fmt.Errorf("go-tpc is not on PATH nor in $(go env GOPATH)/bin; %s", GoTPCInstall)
}

// GoTPCVersion is the module version go-tpc was built from (its own
// `go-tpc version` says "dev" when installed with go install).
func GoTPCVersion(bin string) string {
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		return "(version unknown)"
	}
	return info.Main.Version
}

// Port is the server's TCP port, as go-tpc's -P takes it.
func Port(s sandbox.Server) string {
	_, port, _ := strings.Cut(s.Config().Addr, ":")
	return port
}
