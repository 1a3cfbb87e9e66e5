package agent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/ssh"
)

// Placement binds an agent to CPUs (taskset -c) or to a NUMA node's CPUs
// and memory (numactl); the zero Placement binds nothing.
type Placement struct {
	CPUs     string // taskset's list: "0-3,8"
	NUMANode int    // numactl's node, when HasNode
	HasNode  bool
}

var cpuList = regexp.MustCompile(`^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$`)

// Check refuses a CPU list taskset would not take, a negative node, or
// both at once.
func (p Placement) Check() error {
	switch {
	case p.CPUs != "" && !cpuList.MatchString(p.CPUs):
		return fmt.Errorf("cpus %q is not a CPU list (e.g. \"0-3\" or \"0,2,4\")", p.CPUs)
	case p.HasNode && p.NUMANode < 0:
		return fmt.Errorf("numa_node must not be negative, got %d", p.NUMANode)
	case p.CPUs != "" && p.HasNode:
		return fmt.Errorf("give cpus or numa_node, not both")
	}
	return nil
}

// Bound reports whether the placement binds anything.
func (p Placement) Bound() bool { return p.CPUs != "" || p.HasNode }

// wrapper is the command that binds what follows it.
func (p Placement) wrapper() []string {
	switch {
	case p.CPUs != "":
		return []string{"taskset", "-c", p.CPUs}
	case p.HasNode:
		n := strconv.Itoa(p.NUMANode)
		return []string{"numactl", "--cpunodebind=" + n, "--membind=" + n}
	}
	return nil
}

func (p Placement) String() string {
	switch {
	case p.CPUs != "":
		return "cpus " + p.CPUs
	case p.HasNode:
		return fmt.Sprintf("NUMA node %d", p.NUMANode)
	}
	return ""
}

// Binaries finds a starbench binary for an OS and CPU architecture: this
// process's own for its platform, or starbench-OS-ARCH in the folder
// $STARBENCH_AGENT_BINARIES names.
type Binaries struct {
	Self string // this process's executable ("" to look it up)
	Dir  string // the folder of other platforms' binaries ("" for none)
}

// DefaultBinaries are this executable and $STARBENCH_AGENT_BINARIES.
func DefaultBinaries() Binaries { return Binaries{Dir: os.Getenv("STARBENCH_AGENT_BINARIES")} }

// For returns the binary for goos/goarch, or a bench.BadInput error
// that says what is at hand and how to add one.
func (b Binaries) For(goos, goarch string) (string, error) {
	if goos == runtime.GOOS && goarch == runtime.GOARCH {
		if b.Self != "" {
			return b.Self, nil
		}
		self, err := os.Executable()
		if err != nil {
			return "", fmt.Errorf("cannot find this starbench's binary to send: %w", err)
		}
		return self, nil
	}
	name := "starbench-" + goos + "-" + goarch
	if b.Dir != "" {
		p := filepath.Join(b.Dir, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, nil
		}
	}
	return "", bench.BadInput(fmt.Errorf("no starbench binary for %s/%s is at hand (this one is for %s/%s): build one with "+
		"GOOS=%s GOARCH=%s CGO_ENABLED=0 go build -o %s ./cmd/starbench and put it in the folder $STARBENCH_AGENT_BINARIES names",
		goos, goarch, runtime.GOOS, runtime.GOARCH, goos, goarch, name))
}

// platforms maps uname's names to Go's.
var (
	unameOS   = map[string]string{"Linux": "linux", "Darwin": "darwin", "FreeBSD": "freebsd", "OpenBSD": "openbsd", "NetBSD": "netbsd"}
	unameArch = map[string]string{"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64", "i686": "386", "i386": "386",
		"armv7l": "arm", "ppc64le": "ppc64le", "s390x": "s390x", "riscv64": "riscv64", "loongarch64": "loong64"}
)

// sums caches the sha256 of binaries by path, size and time.
var sums sync.Map

func fileSum(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	key := fmt.Sprintf("%s|%d|%d", path, st.Size(), st.ModTime().UnixNano())
	if v, ok := sums.Load(key); ok {
		return v.(string), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	sum := hex.EncodeToString(h.Sum(nil))
	sums.Store(key, sum)
	return sum, nil
}

// uploads serializes the installs of one binary on one host, so that
// parts starting together upload it once.
var uploads sync.Map // host|path → *sync.Mutex

// SSHOptions tune StartSSH.
type SSHOptions struct {
	Binaries  Binaries
	Placement Placement
	// Log gets a line for each binary uploaded (nil: none).
	Log func(line string)
	// Stderr gets the agent's standard error as it comes (nil: only the
	// end of it is kept, for messages).
	Stderr io.Writer
}

// StartSSH starts an agent on the host c is connected to: it finds the
// host's OS and CPU, installs the binary for them into the host's
// per-user cache (${XDG_CACHE_HOME:-~/.cache}/starbench/agent/SHA256/)
// unless a copy with the same sha256 is there, starts it (bound as the
// placement says) and opens its session.
func StartSSH(ctx context.Context, c *ssh.Client, o SSHOptions) (*Session, error) {
	host := "ssh " + c.Addr()
	if err := o.Placement.Check(); err != nil {
		return nil, bench.BadInput(err)
	}
	res, err := c.Run(ctx, `printf '%s\n%s\n%s\n' "$(uname -s)" "$(uname -m)" "${XDG_CACHE_HOME:-$HOME/.cache}"`, ssh.RunOptions{})
	if err != nil {
		return nil, fmt.Errorf("agent on %s: %w", host, err)
	}
	fields := strings.Split(strings.TrimSuffix(res.Stdout, "\n"), "\n")
	if res.ExitCode != 0 || len(fields) != 3 {
		return nil, fmt.Errorf("agent on %s: cannot tell the host's OS and CPU (uname said %q, exit code %d)", host, strings.TrimSpace(res.Stdout), res.ExitCode)
	}
	goos, goarch := unameOS[fields[0]], unameArch[fields[1]]
	if goos == "" || goarch == "" {
		return nil, bench.BadInput(fmt.Errorf("client host %s runs %s on %s, which starbench has no build for", c.Addr(), fields[0], fields[1]))
	}
	binary, err := o.Binaries.For(goos, goarch)
	if err != nil {
		return nil, fmt.Errorf("client host %s: %w", c.Addr(), err)
	}
	sum, err := fileSum(binary)
	if err != nil {
		return nil, fmt.Errorf("agent binary %s: %w", binary, err)
	}
	remote := fields[2] + "/starbench/agent/" + sum[:16] + "/starbench"
	if err := install(ctx, c, binary, sum, remote, o.Log); err != nil {
		return nil, fmt.Errorf("agent on %s: %w", host, err)
	}
	cmd := ssh.QuoteArgs(append(o.Placement.wrapper(), remote, "agent")...)
	stderr := &tail{w: o.Stderr}
	proc, err := c.Start(ctx, "starbench agent", cmd, stderr)
	if err != nil {
		return nil, fmt.Errorf("agent on %s: %w", host, err)
	}
	return Open(ctx, proc, host, o.Placement.String(), stderr)
}

// install puts the binary at remote unless a file with its sha256 is
// there already.
func install(ctx context.Context, c *ssh.Client, binary, sum, remote string, log func(string)) error {
	muV, _ := uploads.LoadOrStore(c.Addr()+"|"+remote, &sync.Mutex{})
	mu := muV.(*sync.Mutex)
	mu.Lock()
	defer mu.Unlock()
	q := ssh.Quote(remote)
	check := `if [ -x ` + q + ` ]; then if command -v sha256sum >/dev/null 2>&1; then sha256sum < ` + q +
		`; else shasum -a 256 < ` + q + `; fi; fi`
	res, err := c.Run(ctx, check, ssh.RunOptions{})
	if err != nil {
		return err
	}
	if have := strings.Fields(res.Stdout); len(have) > 0 && have[0] == sum {
		return nil
	}
	if res, err := c.Run(ctx, "mkdir -p "+ssh.Quote(filepath.Dir(remote)), ssh.RunOptions{}); err != nil || res.ExitCode != 0 {
		if err == nil {
			err = fmt.Errorf("mkdir %s: exit code %d: %s", filepath.Dir(remote), res.ExitCode, strings.TrimSpace(res.Stderr))
		}
		return err
	}
	if err := c.Upload(ctx, binary, remote); err != nil {
		return err
	}
	if log != nil {
		log(fmt.Sprintf("agent: uploaded %s (sha256 %s) to %s:%s", filepath.Base(binary), sum[:16], c.Addr(), remote))
	}
	return nil
}

// LocalOptions tune StartLocal.
type LocalOptions struct {
	Binary    string // this starbench ("" for this executable)
	Placement Placement
	Stderr    io.Writer // the agent's standard error as it comes (nil: kept for messages only)
	Env       []string  // added to the agent's environment
}

// StartLocal starts an agent as a child process on this host, bound as
// the placement says, and opens its session. It ends with its stdin,
// which the kernel closes when this process dies.
func StartLocal(ctx context.Context, o LocalOptions) (*Session, error) {
	if err := o.Placement.Check(); err != nil {
		return nil, bench.BadInput(err)
	}
	binary := o.Binary
	if binary == "" {
		var err error
		if binary, err = (Binaries{}).For(runtime.GOOS, runtime.GOARCH); err != nil {
			return nil, err
		}
	}
	args := append(o.Placement.wrapper(), binary, "agent")
	host := "this host"
	if _, err := exec.LookPath(args[0]); err != nil {
		return nil, fmt.Errorf("agent on %s: %s is not installed (Debian: apt-get install %s): %w", host, args[0], map[string]string{
			"taskset": "util-linux", "numactl": "numactl"}[args[0]], err)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(), o.Env...)
	// Its own process group, for Kill; no parent-death signal, which
	// follows the thread that started it, not the process.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr := &tail{w: o.Stderr}
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("agent on %s: %w", host, err)
	}
	p := &localProcess{cmd: cmd, stdin: stdin, stdout: stdout, done: make(chan struct{})}
	go p.wait()
	return Open(ctx, p, host, o.Placement.String(), stderr)
}

// localProcess is an agent that is a child process.
type localProcess struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.Reader
	done   chan struct{}
	code   int
	err    error
}

func (p *localProcess) wait() {
	err := p.cmd.Wait()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		p.code = ee.ExitCode()
	case errors.As(err, &ee):
		p.code, p.err = -1, fmt.Errorf("it was killed (%v)", ee.ProcessState)
	default:
		p.code, p.err = -1, err
	}
	close(p.done)
}

func (p *localProcess) Stdin() io.WriteCloser { return p.stdin }
func (p *localProcess) Stdout() io.Reader     { return p.stdout }
func (p *localProcess) Done() <-chan struct{} { return p.done }
func (p *localProcess) Wait() (int, error)    { <-p.done; return p.code, p.err }
func (p *localProcess) Kill() {
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.done
}
