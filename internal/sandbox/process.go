package sandbox

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
)

// stopWait is how long a server has to end after SIGTERM before it is
// killed.
const stopWait = 30 * time.Second

// process is one run of a server program: started in its own process
// group (a Ctrl-C meant for starbench does not reach it; Stop ends it),
// killed by the kernel if starbench dies (Pdeathsig), and waited for by
// one goroutine that closes exited.
type process struct {
	name    string // the program's name, for messages
	cmd     *exec.Cmd
	exited  chan struct{}
	waitErr error
}

func startProcess(name string, cmd *exec.Cmd) (*process, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &process{name: name, cmd: cmd, exited: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// running reports whether the process has not exited yet.
func (p *process) running() bool {
	if p == nil {
		return false
	}
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

func (p *process) pid() int {
	if !p.running() {
		return 0
	}
	return p.cmd.Process.Pid
}

// stop ends the process with SIGTERM, and with SIGKILL when it has not
// ended within stopWait (an error then says so).
func (p *process) stop() error {
	if !p.running() {
		return nil
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
		return nil
	case <-time.After(stopWait):
		_ = p.cmd.Process.Kill()
		<-p.exited
		return fmt.Errorf("%s did not stop within %s and was killed", p.name, stopWait)
	}
}

// kill ends the process at once, as a crash would.
func (p *process) kill() {
	if p.running() {
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}

// waitReady polls ready every 50 ms until it succeeds, the process exits,
// ctx ends or timeout passes; logTail tells what the server's log says
// when it does not come up.
func (p *process) waitReady(ctx context.Context, timeout time.Duration, ready func(context.Context) error, logTail func() string) error {
	deadline := time.Now().Add(timeout)
	for {
		select {
		case <-p.exited:
			return fmt.Errorf("%s exited during start-up (%v); its log says:\n%s", p.name, p.waitErr, logTail())
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if err := ready(ctx); err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not ready after %s; its log says:\n%s", p.name, timeout, logTail())
		}
	}
}

// errNotRunning is the answer of Shutdown and Kill to a server that is not
// running.
var errNotRunning = errors.New("server is not running")

func fileTail(path string, n int) string {
	data, _ := os.ReadFile(path)
	return string(tail(data, n))
}

func tail(b []byte, n int) []byte {
	b = bytes.TrimSpace(b)
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func randomPassword() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "sb-" + hex.EncodeToString(b[:])
}

// executable reports whether path is a regular file with an execute bit.
func executable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

func lookPath(names ...string) string {
	for _, name := range names {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
		for _, dir := range []string{"/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"} {
			if p := filepath.Join(dir, name); executable(p) {
				return p
			}
		}
	}
	return ""
}

// Server is what a test or a command needs of any sandbox server: how to
// log in as root, and how to stop it. MariaDB and TiDB are Servers.
type Server interface {
	Config() *mysql.Config // root over TCP, in the server's database
	Password() string
	DSN() string
	ServerVersion() string // VERSION()
	PID() int              // the server's process, 0 when it is not running
	Stop() error
}

var (
	_ Server = (*MariaDB)(nil)
	_ Server = (*TiDB)(nil)
)
