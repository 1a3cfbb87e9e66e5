package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// blockingConn is a TCP connection read and written with plain blocking
// system calls instead of Go's network poller. A worker waits for each
// answer anyway; parking its goroutine in the poller and waking it again
// costs more CPU per query than the thread simply blocking in read(2),
// which is what sysbench does. Close (or Interrupt) shuts the socket down
// first, which wakes a read blocked on it.
type blockingConn struct {
	fd            int // owned: closed by Close
	local, remote net.Addr
	once          sync.Once
	closeErr      error
}

// BlockingIO says whether a run with this many threads uses blocking
// sockets: up to 8 threads a core. Measured on 2 cores against MariaDB
// (oltp_point_select, CPU per query): blocking 27 µs against the
// netpoller's 46 at 4 threads and 24 against 27 at 16; even at 32; the
// netpoller 33 against 43 at 64 and 36 against 76 at 1200 threads, where
// a thread per connection means a context switch per answer.
func BlockingIO(threads int) bool { return threads <= 8*runtime.NumCPU() }

type blockingIOKey struct{}

// withBlockingIO tells SQLConnector.Connect which sockets to use.
func withBlockingIO(ctx context.Context, on bool) context.Context {
	return context.WithValue(ctx, blockingIOKey{}, on)
}

// blockingIOFor reads withBlockingIO's hint; without one (prepare, a
// single session) sockets block.
func blockingIOFor(ctx context.Context) bool {
	on, ok := ctx.Value(blockingIOKey{}).(bool)
	return on || !ok
}

// dialBlocking dials addr and returns the connection in blocking mode.
func dialBlocking(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	tcp, ok := c.(*net.TCPConn)
	if !ok {
		return c, nil
	}
	_ = tcp.SetNoDelay(true)
	local, remote := tcp.LocalAddr(), tcp.RemoteAddr()
	// Duplicate the descriptor ourselves rather than with tcp.File: an
	// os.File made from a non-blocking descriptor joins the runtime's
	// epoll set, and every packet would then wake an idle thread to poll.
	// Closing tcp takes the original out of epoll; the copy never joins.
	fd, err := dupDescriptor(tcp)
	tcp.Close()
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	if err := syscall.SetNonblock(fd, false); err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	return &blockingConn{fd: fd, local: local, remote: remote}, nil
}

// dupDescriptor returns a close-on-exec copy of a connection's descriptor.
func dupDescriptor(conn syscall.Conn) (int, error) {
	raw, err := conn.SyscallConn()
	if err != nil {
		return -1, err
	}
	fd, dupErr := -1, error(nil)
	err = raw.Control(func(orig uintptr) {
		syscall.ForkLock.RLock()
		defer syscall.ForkLock.RUnlock()
		fd, dupErr = syscall.Dup(int(orig))
		if dupErr == nil {
			syscall.CloseOnExec(fd)
		}
	})
	if err != nil {
		return -1, err
	}
	return fd, dupErr
}

func (c *blockingConn) Read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(c.fd, p)
		switch {
		case err == syscall.EINTR:
			continue
		case errors.Is(err, syscall.EAGAIN):
			return 0, os.ErrDeadlineExceeded
		case err != nil:
			return 0, &net.OpError{Op: "read", Net: "tcp", Source: c.local, Addr: c.remote, Err: err}
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (c *blockingConn) Write(p []byte) (int, error) {
	written := 0
	for written < len(p) {
		n, err := syscall.Write(c.fd, p[written:])
		switch {
		case err == syscall.EINTR:
			continue
		case errors.Is(err, syscall.EAGAIN):
			return written, os.ErrDeadlineExceeded
		case err != nil:
			return written, &net.OpError{Op: "write", Net: "tcp", Source: c.local, Addr: c.remote, Err: err}
		}
		written += n
	}
	return written, nil
}

// Interrupt wakes any read or write blocked on the connection; they fail.
func (c *blockingConn) Interrupt() {
	_ = syscall.Shutdown(c.fd, syscall.SHUT_RDWR)
}

func (c *blockingConn) Close() error {
	c.once.Do(func() {
		c.Interrupt()
		c.closeErr = syscall.Close(c.fd)
	})
	return c.closeErr
}

func (c *blockingConn) LocalAddr() net.Addr  { return c.local }
func (c *blockingConn) RemoteAddr() net.Addr { return c.remote }

func (c *blockingConn) SetDeadline(t time.Time) error {
	if err := c.SetReadDeadline(t); err != nil {
		return err
	}
	return c.SetWriteDeadline(t)
}

// Deadlines become socket timeouts (relative to now); the zero time
// clears them.
func (c *blockingConn) SetReadDeadline(t time.Time) error {
	return c.timeout(syscall.SO_RCVTIMEO, t)
}

func (c *blockingConn) SetWriteDeadline(t time.Time) error {
	return c.timeout(syscall.SO_SNDTIMEO, t)
}

func (c *blockingConn) timeout(opt int, t time.Time) error {
	var tv syscall.Timeval
	if !t.IsZero() {
		d := time.Until(t)
		if d <= 0 {
			d = time.Microsecond
		}
		tv = syscall.NsecToTimeval(d.Nanoseconds())
	}
	return syscall.SetsockoptTimeval(c.fd, syscall.SOL_SOCKET, opt, &tv)
}
