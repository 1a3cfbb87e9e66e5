package mysqlconn

import (
	"context"
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
//
// In runs with few threads (see ForWorkers) the calls are also hidden from
// the scheduler (ioDedicated): the runtime then sees a worker waiting for
// its answer as running, so a query costs no system-call bookkeeping and a
// worker never has its P taken away. The socket always has send and receive timeouts
// (idleTimeout when no deadline is set), because with one set a signal
// interrupts a blocked call (EINTR) instead of restarting it: that is how
// the runtime's preemption signal (garbage collection, the scheduler's
// 10 ms time slice) reaches a worker waiting on a slow server, which then
// yields its P.
type blockingConn struct {
	fd            int // owned: closed by Close
	hidden        bool
	local, remote net.Addr
	readDeadline  time.Time
	writeDeadline time.Time
	once          sync.Once
	closeErr      error
	ahead         readAhead
}

// idleTimeout is the socket timeout when no deadline is set: a call that
// times out after it is simply made again.
const idleTimeout = time.Minute

// dialBlocking dials addr and returns the connection in blocking mode;
// hidden makes its calls invisible to the scheduler (ioDedicated).
func dialBlocking(ctx context.Context, network, addr string, hidden bool) (net.Conn, error) {
	tcp, c, err := dialTCP(ctx, network, addr)
	if tcp == nil {
		return c, err
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
	bc := &blockingConn{fd: fd, hidden: hidden, local: local, remote: remote}
	if err := bc.SetDeadline(time.Time{}); err != nil {
		bc.Close()
		return nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	return bc, nil
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
	if n := c.ahead.take(p); n > 0 || len(p) == 0 {
		return n, nil
	}
	for {
		n, err := c.call(syscall.SYS_RECVFROM, c.ahead.into(p))
		if err != nil {
			c.ahead.received(p, 0)
			if err := c.again(err, "read", syscall.SO_RCVTIMEO, c.readDeadline); err != nil {
				return 0, err
			}
			continue
		}
		if n == 0 {
			c.ahead.received(p, 0)
			return 0, io.EOF
		}
		return c.ahead.received(p, n), nil
	}
}

func (c *blockingConn) Write(p []byte) (int, error) {
	written := 0
	for written < len(p) {
		n, err := c.call(syscall.SYS_SENDTO, p[written:])
		if err != nil {
			if err := c.again(err, "write", syscall.SO_SNDTIMEO, c.writeDeadline); err != nil {
				return written, err
			}
			continue
		}
		written += n
	}
	return written, nil
}

// again decides after a failed call: nil makes it again (a signal cut it
// short, or idleTimeout passed with no deadline set), otherwise it is the
// error to return.
func (c *blockingConn) again(err error, op string, opt int, deadline time.Time) error {
	switch {
	case err == syscall.EINTR:
		return c.interrupted(opt, deadline)
	case err == syscall.EAGAIN && deadline.IsZero():
		return nil
	case err == syscall.EAGAIN:
		return os.ErrDeadlineExceeded
	}
	return &net.OpError{Op: op, Net: "tcp", Source: c.local, Addr: c.remote, Err: err}
}

// call makes one recvfrom or sendto system call on p: the socket calls
// skip the file layer read and write go through, and a send to a closed
// peer fails (MSG_NOSIGNAL) instead of raising SIGPIPE.
func (c *blockingConn) call(trap uintptr, p []byte) (int, error) {
	var flags uintptr
	if trap == syscall.SYS_SENDTO {
		flags = syscall.MSG_NOSIGNAL
	}
	n, errno := socketCall(trap, uintptr(c.fd), p, flags, !c.hidden)
	if errno != 0 {
		return 0, errno
	}
	return n, nil
}

// interrupted runs after a signal cut a call short, before it is made
// again. A hidden call may have been interrupted by the runtime asking for
// this P (a stop for garbage collection, a preemption): yielding is where
// it gets it. The call's timeout is then what is left of its deadline.
func (c *blockingConn) interrupted(opt int, deadline time.Time) error {
	if c.hidden {
		runtime.Gosched()
	}
	if deadline.IsZero() {
		return nil
	}
	if !time.Now().Before(deadline) {
		return os.ErrDeadlineExceeded
	}
	return c.timeout(opt, deadline)
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

// Deadlines become socket timeouts (relative to now); the zero time sets
// idleTimeout (see blockingConn).
func (c *blockingConn) SetReadDeadline(t time.Time) error {
	c.readDeadline = t
	return c.timeout(syscall.SO_RCVTIMEO, t)
}

func (c *blockingConn) SetWriteDeadline(t time.Time) error {
	c.writeDeadline = t
	return c.timeout(syscall.SO_SNDTIMEO, t)
}

func (c *blockingConn) timeout(opt int, t time.Time) error {
	d := idleTimeout
	if !t.IsZero() {
		d = max(time.Until(t), time.Microsecond)
	}
	tv := syscall.NsecToTimeval(d.Nanoseconds())
	return syscall.SetsockoptTimeval(c.fd, syscall.SOL_SOCKET, opt, &tv)
}
