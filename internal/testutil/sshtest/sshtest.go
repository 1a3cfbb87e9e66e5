// Package sshtest gives tests private OpenSSH servers: each Start runs the
// machine's sshd (Debian's openssh-server) on a random 127.0.0.1 port with
// its own temp directory holding the config, a fresh host key, a fresh
// client key pair, authorized_keys, known_hosts and the log. The server
// logs in the current user with the client key only. When sshd is
// missing, tests fail under CI=true and are skipped elsewhere with a
// message saying what to install.
package sshtest

import (
	"crypto/ed25519"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	xssh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/starbench/starbench/builtins/ssh"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
)

// Missing explains what to install when sshd is not found.
const Missing = "OpenSSH server (sshd) was not found; install Debian's openssh-server: sudo apt-get install -y openssh-server"

// Server is a running private sshd.
type Server struct {
	Addr       string // 127.0.0.1:port
	Host       string // 127.0.0.1
	Port       int
	User       string // the current user, who may log in with KeyFile
	KeyFile    string // client private key (OpenSSH format, no passphrase)
	KnownHosts string // known_hosts holding this server's host key
	HostKey    xssh.PublicKey
	Dir        string // temp directory with config, keys and log

	logFile  string
	env      map[string]string
	cmd      *exec.Cmd
	exited   chan struct{}
	stopOnce sync.Once
}

// FindSSHD returns the path of sshd, or "" when it is not installed.
func FindSSHD() string {
	for _, p := range []string{"/usr/sbin/sshd", "/usr/local/sbin/sshd", "/usr/bin/sshd"} {
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	if p, err := exec.LookPath("sshd"); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs // sshd refuses to start from a relative path
		}
	}
	return ""
}

// Require stops the test when sshd is missing: it fails in CI and skips
// elsewhere.
func Require(t testing.TB) string {
	t.Helper()
	p := FindSSHD()
	if p == "" {
		if sandboxtest.InCI() {
			t.Fatalf("CI=true and a real sshd is needed: %s", Missing)
		}
		t.Skipf("skipping: %s", Missing)
	}
	return p
}

// Options tune StartWith.
type Options struct {
	// Env is set in every session (sshd's SetEnv, which overrides the
	// default environment: HOME gives the "host" a home of its own).
	Env map[string]string
}

// Start starts a private sshd for the test and stops it (and every session
// process) at cleanup.
func Start(t testing.TB) *Server {
	t.Helper()
	return StartWith(t, Options{})
}

// StartWith starts a private sshd as Start does, with options.
func StartWith(t testing.TB, o Options) *Server {
	t.Helper()
	sshd := Require(t)
	if os.Geteuid() == 0 {
		// sshd wants its privilege separation directory when run as root.
		if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
			t.Fatalf("create /run/sshd: %v", err)
		}
	}
	u, err := user.Current()
	if err != nil {
		t.Fatalf("current user: %v", err)
	}
	dir, err := os.MkdirTemp("", "starbench-sshd-")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Dir: dir, Host: "127.0.0.1", User: u.Username, logFile: filepath.Join(dir, "sshd.log"), env: o.Env}
	t.Cleanup(func() {
		s.Stop()
		if t.Failed() {
			t.Logf("sshd log (%s), last 200 lines:\n%s", s.Addr, lastLines(s.Log(), 200))
		}
		os.RemoveAll(dir)
	})

	hostPub, err := writeKey(filepath.Join(dir, "host_ed25519"))
	if err != nil {
		t.Fatalf("host key: %v", err)
	}
	s.HostKey = hostPub
	s.KeyFile = filepath.Join(dir, "client_ed25519")
	clientPub, err := writeKey(s.KeyFile)
	if err != nil {
		t.Fatalf("client key: %v", err)
	}
	authorized := filepath.Join(dir, "authorized_keys")
	if err := os.WriteFile(authorized, xssh.MarshalAuthorizedKey(clientPub), 0o600); err != nil {
		t.Fatal(err)
	}

	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		port, err := freePort()
		if err != nil {
			t.Fatalf("pick a port: %v", err)
		}
		if lastErr = s.start(sshd, port, authorized); lastErr == nil {
			break
		}
		if !strings.Contains(lastErr.Error(), "ddress already in use") {
			break
		}
	}
	if lastErr != nil {
		t.Fatalf("start sshd: %v\nlog:\n%s", lastErr, s.Log())
	}
	s.KnownHosts = filepath.Join(dir, "known_hosts")
	line := knownhosts.Line([]string{knownhosts.Normalize(s.Addr)}, hostPub) + "\n"
	if err := os.WriteFile(s.KnownHosts, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	return s
}

func (s *Server) start(sshd string, port int, authorized string) error {
	s.Port = port
	s.Addr = net.JoinHostPort(s.Host, strconv.Itoa(port))
	config := filepath.Join(s.Dir, "sshd_config")
	conf := fmt.Sprintf(`ListenAddress 127.0.0.1
Port %d
HostKey %s
AuthorizedKeysFile %s
PidFile %s
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
StrictModes no
UsePAM no
UseDNS no
AllowTcpForwarding yes
X11Forwarding no
PrintMotd no
PrintLastLog no
MaxSessions 50
MaxStartups 50:30:100
LogLevel DEBUG1
`, port, filepath.Join(s.Dir, "host_ed25519"), authorized, filepath.Join(s.Dir, "sshd.pid"))
	if len(s.env) > 0 {
		keys := make([]string, 0, len(s.env))
		for k := range s.env {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		conf += "SetEnv"
		for _, k := range keys {
			conf += fmt.Sprintf(" %s=%q", k, s.env[k])
		}
		conf += "\n"
	}
	if err := os.WriteFile(config, []byte(conf), 0o600); err != nil {
		return err
	}
	os.Remove(s.logFile)
	cmd := exec.Command(sshd, "-D", "-f", config, "-E", s.logFile)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Dir = s.Dir
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	deadline := time.Now().Add(15 * time.Second)
	for {
		conn, err := net.DialTimeout("tcp", s.Addr, time.Second)
		if err == nil {
			conn.Close()
			s.cmd, s.exited = cmd, exited
			return nil
		}
		select {
		case <-exited:
			return fmt.Errorf("sshd exited at start: %s", lastLines(s.Log(), 5))
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			<-exited
			return fmt.Errorf("sshd did not accept connections on %s within 15s", s.Addr)
		}
	}
}

// Spec returns a Spec that logs in to the server with its key and
// known_hosts.
func (s *Server) Spec() ssh.Spec {
	return ssh.Spec{
		User:           s.User,
		Host:           s.Host,
		Port:           s.Port,
		KeyFile:        s.KeyFile,
		KnownHosts:     s.KnownHosts,
		ConnectTimeout: 10 * time.Second,
	}
}

// Log returns the server's log so far.
func (s *Server) Log() string {
	b, _ := os.ReadFile(s.logFile)
	return string(b)
}

// KillSessions kills (SIGKILL) every process under the listening sshd: the
// per-connection sshd processes and the commands they run, so that every
// client sees its connection drop. The listener keeps accepting new
// connections. It returns how many processes it killed.
func (s *Server) KillSessions() int {
	if s.cmd == nil || s.cmd.Process == nil {
		return 0
	}
	pids := descendants(s.cmd.Process.Pid)
	// Freeze first so that no session can report an exit status to its
	// client while the tree is being killed.
	for _, pid := range pids {
		syscall.Kill(pid, syscall.SIGSTOP)
	}
	n := 0
	for _, pid := range pids {
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			n++
		}
	}
	return n
}

// KillConnections kills (SIGKILL) the per-connection sshd processes under
// the listening sshd, and not the commands they run: every client sees
// its connection drop, and every command its stdin close. It returns how
// many it killed.
func (s *Server) KillConnections() int {
	if s.cmd == nil || s.cmd.Process == nil {
		return 0
	}
	n := 0
	for _, pid := range descendants(s.cmd.Process.Pid) {
		comm, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "comm"))
		if err == nil && strings.HasPrefix(string(comm), "sshd") && syscall.Kill(pid, syscall.SIGKILL) == nil {
			n++
		}
	}
	return n
}

// Stop kills the server and its sessions. It is called at cleanup.
func (s *Server) Stop() {
	s.stopOnce.Do(func() {
		if s.cmd == nil {
			return
		}
		s.KillSessions()
		s.cmd.Process.Kill()
		select {
		case <-s.exited:
		case <-time.After(10 * time.Second):
		}
	})
}

// descendants lists the processes below pid, parents before children.
func descendants(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...; comm may contain spaces and parens.
		i := strings.LastIndexByte(string(b), ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 2 {
			continue
		}
		ppid, err := strconv.Atoi(f[1])
		if err != nil {
			continue
		}
		children[ppid] = append(children[ppid], p)
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

func writeKey(path string) (xssh.PublicKey, error) {
	pub, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		return nil, err
	}
	block, err := xssh.MarshalPrivateKey(priv, "starbench-sshtest")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
		return nil, err
	}
	sshPub, err := xssh.NewPublicKey(pub)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(path+".pub", xssh.MarshalAuthorizedKey(sshPub), 0o644); err != nil {
		return nil, err
	}
	return sshPub, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
