package ssh

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	xssh "golang.org/x/crypto/ssh"
)

// Process is a remote command that runs beside the caller and talks with
// it over its stdin and stdout (a starbench agent): Start returns once it
// runs, Wait when it ended, Kill ends it and its process group.
type Process struct {
	c      *Client
	sess   *xssh.Session
	label  string
	sniff  *pidSniffer
	stdin  io.WriteCloser
	stdout io.Reader

	done     chan struct{} // closed when the command ended
	exitCode int
	err      error
	killOnce sync.Once
}

// Start starts cmd in a new session and returns its stdin and stdout
// as pipes (stderr goes to stderr, which may be nil). label names the
// command in errors and must not hold secrets; cmd should not either, as
// the remote process table shows it: pass secrets on stdin.
func (c *Client) Start(ctx context.Context, label, cmd string, stderr io.Writer) (*Process, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("ssh %s: %s: not started: %w", c.addr, label, err)
	}
	sess, err := c.conn.NewSession()
	if err != nil {
		if c.lost(time.Second) {
			return nil, c.lostError("before " + label + " started")
		}
		return nil, fmt.Errorf("ssh %s: open session: %w", c.addr, err)
	}
	if stderr == nil {
		stderr = io.Discard
	}
	p := &Process{c: c, sess: sess, label: label, sniff: newPIDSniffer(stderr), done: make(chan struct{})}
	sess.Stderr = p.sniff
	if p.stdin, err = sess.StdinPipe(); err == nil {
		p.stdout, err = sess.StdoutPipe()
	}
	if err == nil {
		err = sess.Start(pidPrefix + "exec " + cmd)
	}
	if err != nil {
		sess.Close()
		if c.lost(time.Second) {
			return nil, c.lostError("before " + label + " started")
		}
		return nil, fmt.Errorf("ssh %s: start %s: %w", c.addr, label, err)
	}
	go func() {
		werr := sess.Wait()
		p.sniff.flush()
		var ee *xssh.ExitError
		if errors.As(werr, &ee) && ee.Signal() != "" {
			p.exitCode, p.err = -1, fmt.Errorf("ssh %s: %s was killed by signal %s", c.addr, label, ee.Signal())
		} else {
			p.exitCode, p.err = c.exitCode(label, werr)
		}
		close(p.done)
	}()
	return p, nil
}

// Stdin is the command's standard input; closing it is the command's EOF.
func (p *Process) Stdin() io.WriteCloser { return p.stdin }

// Stdout is the command's standard output.
func (p *Process) Stdout() io.Reader { return p.stdout }

// Done is closed when the command has ended.
func (p *Process) Done() <-chan struct{} { return p.done }

// Wait waits for the command to end and returns its exit code, or an
// error when it has none (killed by a signal: an error naming it; the
// connection dropped: one wrapping ErrConnectionLost).
func (p *Process) Wait() (int, error) {
	<-p.done
	return p.exitCode, p.err
}

// Kill ends the command: SIGKILL to the session and, because sshd
// refuses signals for some logins, a kill of its process group from a
// second session. It waits at most a few seconds for the session to end.
func (p *Process) Kill() {
	p.killOnce.Do(func() {
		select {
		case <-p.done:
			return
		default:
		}
		p.sess.Signal(xssh.SIGKILL)
		if pid := p.sniff.shellPID(time.Second); pid > 0 {
			p.c.killGroup(pid)
		}
		select {
		case <-p.done:
		case <-time.After(killGrace):
			p.sess.Close()
		}
	})
}
