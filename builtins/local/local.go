// Package local runs commands on the client machine (where starbench
// runs): through sh -c, in their own process group so that a timeout or
// an interrupt ends everything they started, with output streamed line by
// line while it is collected. It has no Starlark in it.
package local

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"sync"
	"syscall"
	"time"
)

// Options tune Run.
type Options struct {
	Timeout  time.Duration // 0: none (the context still applies)
	Env      map[string]string
	Dir      string
	Stdin    []byte
	OnStdout func(line string)
	OnStderr func(line string)
}

// Result is a finished command. A non-zero exit is not an error.
type Result struct {
	ExitCode int    `json:"exit_code"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
}

// maxCollected bounds the output kept in a Result (streaming sees all).
const maxCollected = 16 << 20

// ErrTimeout is returned (wrapped) when a command ran past its timeout.
var ErrTimeout = errors.New("timed out")

// Run runs cmd with sh -c and waits for it.
func Run(ctx context.Context, cmd string, o Options) (*Result, error) {
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	c := exec.Command("/bin/sh", "-c", cmd)
	c.Dir = o.Dir
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Env = os.Environ()
	keys := make([]string, 0, len(o.Env))
	for k := range o.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		c.Env = append(c.Env, k+"="+o.Env[k])
	}
	if o.Stdin != nil {
		c.Stdin = bytes.NewReader(o.Stdin)
	}
	stdout, err := c.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := c.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := c.Start(); err != nil {
		return nil, fmt.Errorf("start %q: %w", cmd, err)
	}
	var outBuf, errBuf limitedBuffer
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); pump(stdout, &outBuf, o.OnStdout) }()
	go func() { defer wg.Done(); pump(stderr, &errBuf, o.OnStderr) }()
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL) // the whole group
		case <-done:
		}
	}()
	wg.Wait()
	werr := c.Wait()
	close(done)
	res := &Result{Stdout: outBuf.String(), Stderr: errBuf.String()}
	if ctx.Err() != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return res, fmt.Errorf("%q %w after %s", cmd, ErrTimeout, o.Timeout)
		}
		return res, ctx.Err()
	}
	var ee *exec.ExitError
	if errors.As(werr, &ee) {
		res.ExitCode = ee.ExitCode()
		return res, nil
	}
	return res, werr
}

// pump collects a stream exactly as written and hands each line to each
// as it arrives.
func pump(r io.Reader, buf *limitedBuffer, each func(string)) {
	chunk := make([]byte, 32<<10)
	var pending []byte
	for {
		n, err := r.Read(chunk)
		if n > 0 {
			buf.write(chunk[:n])
			if each != nil {
				pending = append(pending, chunk[:n]...)
				for {
					i := bytes.IndexByte(pending, '\n')
					if i < 0 {
						break
					}
					each(string(pending[:i]))
					pending = pending[i+1:]
				}
			}
		}
		if err != nil {
			if len(pending) > 0 && each != nil {
				each(string(pending))
			}
			return
		}
	}
}

// limitedBuffer keeps at most maxCollected bytes and notes truncation.
type limitedBuffer struct {
	b         bytes.Buffer
	truncated bool
}

func (l *limitedBuffer) write(p []byte) {
	if room := maxCollected - l.b.Len(); len(p) > room {
		p, l.truncated = p[:max(room, 0)], true
	}
	l.b.Write(p)
}

func (l *limitedBuffer) String() string {
	if l.truncated {
		return l.b.String() + "\n[output truncated]\n"
	}
	return l.b.String()
}
