package ssh

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	xssh "golang.org/x/crypto/ssh"
)

// MaxCollected caps the stdout and the stderr that Run keeps in Result
// (each). Callbacks still see every line.
const MaxCollected = 16 << 20

// maxLine caps one line handed to a callback; longer lines are cut into
// pieces of this size.
const maxLine = 1 << 20

// killGrace is how long Run waits for a killed command's session to wind
// down before giving up on it.
const killGrace = 2 * time.Second

// RunOptions tune Run.
type RunOptions struct {
	// Timeout kills the remote command when it runs longer; 0 means no
	// timeout (ctx still applies).
	Timeout time.Duration
	// Env is exported to the command (as `export K='v';` before it, since
	// servers usually refuse setenv requests). Keys must be shell names.
	Env map[string]string
	// Stdin, when set, is copied to the command's standard input.
	Stdin io.Reader
	// OnStdout and OnStderr receive each output line as it arrives,
	// without its line end. They are called from different goroutines,
	// each in order.
	OnStdout, OnStderr func(line string)
}

// Result is what a command did.
type Result struct {
	ExitCode int // 128+N when killed by signal N; -1 when unknown
	Stdout   string
	Stderr   string
	// StdoutTruncated and StderrTruncated say that more than MaxCollected
	// bytes were written and the rest was dropped (a note ends the text).
	StdoutTruncated, StderrTruncated bool
}

// Run runs cmd on the remote host with the user's login shell. A non-zero
// exit is not an error: it is in Result.ExitCode. Errors are returned when
// the command cannot be started, when it times out or ctx ends (the remote
// command is then killed with SIGKILL; the partial Result is returned with
// the error), and when the connection drops (wrapping ErrConnectionLost).
func (c *Client) Run(ctx context.Context, cmd string, o RunOptions) (*Result, error) {
	prefix, err := EnvPrefix(o.Env)
	if err != nil {
		return nil, err
	}
	stdout := &lineWriter{cb: o.OnStdout, limit: MaxCollected}
	stderr := &lineWriter{cb: o.OnStderr, limit: MaxCollected}
	code, err := c.exec(ctx, shortCmd(cmd), prefix+cmd, o.Timeout, o.Stdin, stdout, stderr)
	stdout.flush()
	stderr.flush()
	res := &Result{ExitCode: code}
	res.Stdout, res.StdoutTruncated = stdout.result()
	res.Stderr, res.StderrTruncated = stderr.result()
	return res, err
}

// exec runs cmd in a new session and returns its exit code. A non-zero exit
// is not an error. Errors name the command by label, which must not hold
// secrets (cmd may: environment values).
func (c *Client) exec(ctx context.Context, label, cmd string, timeout time.Duration, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	if err := ctx.Err(); err != nil {
		return -1, fmt.Errorf("ssh %s: %s: not started: %w", c.addr, label, err)
	}
	sess, err := c.conn.NewSession()
	if err != nil {
		if c.lost(time.Second) {
			return -1, c.lostError("before " + label + " started")
		}
		return -1, fmt.Errorf("ssh %s: open session: %w", c.addr, err)
	}
	defer sess.Close()
	sniff := newPIDSniffer(stderr)
	sess.Stdin = stdin
	sess.Stdout = stdout
	sess.Stderr = sniff
	if err := sess.Start(pidPrefix + cmd); err != nil {
		if c.lost(time.Second) {
			return -1, c.lostError("before " + label + " started")
		}
		return -1, fmt.Errorf("ssh %s: start %s: %w", c.addr, label, err)
	}
	done := make(chan error, 1)
	go func() { done <- sess.Wait() }()

	var timer <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		timer = t.C
	}
	var why error
	select {
	case err := <-done:
		sniff.flush()
		return c.exitCode(label, err)
	case <-ctx.Done():
		why = fmt.Errorf("ssh %s: %s: %w; the remote command was killed", c.addr, label, ctx.Err())
	case <-timer:
		why = fmt.Errorf("ssh %s: %s: timed out after %v; the remote command was killed", c.addr, label, timeout)
	case <-c.dead:
		if c.lost(0) {
			return -1, c.lostError("during " + label)
		}
		return -1, fmt.Errorf("ssh %s: %s: the client was closed", c.addr, label)
	}
	// Kill the remote process group. OpenSSH's sshd delivers a signal
	// request with killpg to the session's shell, but refuses it for root
	// logins ("session signalling requires privilege separation") and old
	// servers ignore it, so also kill the group from a second session,
	// using the shell's pid the command reported first thing on stderr.
	// sshd makes that shell a session (and process group) leader.
	sess.Signal(xssh.SIGKILL)
	if pid := sniff.shellPID(time.Second); pid > 0 {
		c.killGroup(pid)
	}
	select {
	case <-done:
	case <-time.After(killGrace):
	}
	sess.Close()
	sniff.flush()
	return -1, why
}

// pidPrefix makes the remote shell report its pid on stderr before
// anything else runs; pidSniffer takes that line out again.
const pidPrefix = `printf 'starbench-pid:%s\n' "$$" >&2; `

const pidMarker = "starbench-pid:"

// killGroup kills the remote process group pid from a new session.
func (c *Client) killGroup(pid int) {
	c.bestEffort(fmt.Sprintf("kill -9 -%d 2>/dev/null; kill -9 %d 2>/dev/null; true", pid, pid))
}

// bestEffort runs a clean-up command in a new session, waiting at most
// killGrace, and ignores what happens.
func (c *Client) bestEffort(cmd string) {
	sess, err := c.conn.NewSession()
	if err != nil {
		return
	}
	defer sess.Close()
	done := make(chan struct{})
	go func() {
		sess.Run(cmd)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(killGrace):
	}
}

// pidSniffer passes stderr through, except the first line when it is the
// pid report of pidPrefix.
type pidSniffer struct {
	w     io.Writer
	mu    sync.Mutex
	done  bool
	head  []byte
	pid   int
	ready chan struct{} // closed when the first line was seen
}

func newPIDSniffer(w io.Writer) *pidSniffer {
	return &pidSniffer{w: w, ready: make(chan struct{})}
}

func (p *pidSniffer) Write(b []byte) (int, error) {
	p.mu.Lock()
	if p.done {
		p.mu.Unlock()
		return p.w.Write(b)
	}
	n := len(b)
	p.head = append(p.head, b...)
	i := bytes.IndexByte(p.head, '\n')
	if i < 0 && len(p.head) < 64 {
		p.mu.Unlock()
		return n, nil
	}
	p.done = true
	close(p.ready)
	rest := p.head
	if i >= 0 && bytes.HasPrefix(p.head, []byte(pidMarker)) {
		if pid, err := strconv.Atoi(string(p.head[len(pidMarker):i])); err == nil {
			p.pid = pid
			rest = p.head[i+1:]
		}
	}
	p.head = nil
	p.mu.Unlock()
	if len(rest) > 0 {
		if _, err := p.w.Write(rest); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// flush passes on a short first line that never ended.
func (p *pidSniffer) flush() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.done {
		p.done = true
		close(p.ready)
		if len(p.head) > 0 {
			p.w.Write(p.head)
		}
		p.head = nil
	}
}

// shellPID returns the reported pid, waiting up to wait for it; 0 means
// unknown.
func (p *pidSniffer) shellPID(wait time.Duration) int {
	select {
	case <-p.ready:
	case <-time.After(wait):
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.pid
}

func (c *Client) exitCode(label string, err error) (int, error) {
	if err == nil {
		return 0, nil
	}
	var ee *xssh.ExitError
	if errors.As(err, &ee) {
		return ee.ExitStatus(), nil
	}
	// A dropped connection shows up as a session torn down without an exit
	// status; give the transport a moment to report it.
	grace := time.Duration(0)
	var em *xssh.ExitMissingError
	if errors.As(err, &em) || errors.Is(err, io.EOF) {
		grace = 2 * time.Second
	}
	if c.lost(grace) {
		return -1, c.lostError("during " + label)
	}
	return -1, fmt.Errorf("ssh %s: %s: %w", c.addr, label, err)
}

func shortCmd(cmd string) string {
	cmd = strings.TrimSpace(cmd)
	if i := strings.IndexByte(cmd, '\n'); i >= 0 {
		cmd = cmd[:i] + " ..."
	}
	if len(cmd) > 80 {
		cmd = cmd[:77] + "..."
	}
	return fmt.Sprintf("%q", cmd)
}

// EnvPrefix returns `export K='v'; ...` for env, sorted by key, or an
// error for a key that is not a shell variable name.
func EnvPrefix(env map[string]string) (string, error) {
	if len(env) == 0 {
		return "", nil
	}
	keys := make([]string, 0, len(env))
	for k := range env {
		if !validName(k) {
			return "", fmt.Errorf("ssh: environment variable name %q is not valid (want letters, digits and _, not starting with a digit)", k)
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString("export ")
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(Quote(env[k]))
		b.WriteString("; ")
	}
	return b.String(), nil
}

func validName(k string) bool {
	if k == "" {
		return false
	}
	for i, r := range k {
		switch {
		case r == '_', r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// Quote quotes s for a POSIX shell: strings of only safe characters
// (letters, digits and @%+=:,./-_) are returned as they are, anything else
// is wrapped in single quotes, with each ' written as '\”.
func Quote(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for i := 0; i < len(s); i++ {
		b := s[i]
		if !(b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || strings.IndexByte("@%+=:,./-_", b) >= 0) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// QuoteArgs quotes each argument with Quote and joins them with spaces.
func QuoteArgs(args ...string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = Quote(a)
	}
	return strings.Join(q, " ")
}

// lineWriter collects up to limit bytes and hands complete lines to cb.
type lineWriter struct {
	mu        sync.Mutex
	cb        func(string)
	limit     int
	buf       bytes.Buffer
	truncated bool
	partial   []byte
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(p)
	if room := w.limit - w.buf.Len(); len(p) > room {
		w.truncated = true
		w.buf.Write(p[:max(room, 0)])
	} else {
		w.buf.Write(p)
	}
	if w.cb == nil {
		return n, nil
	}
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			w.partial = append(w.partial, p...)
			for len(w.partial) >= maxLine {
				w.cb(string(w.partial[:maxLine]))
				w.partial = append(w.partial[:0], w.partial[maxLine:]...)
			}
			break
		}
		line := p[:i]
		if len(w.partial) > 0 {
			line = append(w.partial, line...)
			w.partial = w.partial[:0]
		}
		w.cb(strings.TrimSuffix(string(line), "\r"))
		p = p[i+1:]
	}
	return n, nil
}

// flush hands a last unterminated line to the callback.
func (w *lineWriter) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cb != nil && len(w.partial) > 0 {
		w.cb(strings.TrimSuffix(string(w.partial), "\r"))
		w.partial = nil
	}
}

// result returns the collected text (ending with a note when truncated).
func (w *lineWriter) result() (string, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.buf.String()
	if w.truncated {
		s += fmt.Sprintf("\n[starbench: output truncated at %d MiB]\n", w.limit>>20)
	}
	return s, w.truncated
}
