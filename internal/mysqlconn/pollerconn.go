package mysqlconn

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"
	"unsafe"
)

// pollerConn is a TCP connection that waits for the server through Go's
// network poller (runs with many threads, see BlockingIO) but makes its
// socket calls without the runtime's system-call bookkeeping. The socket
// is non-blocking, so a call never blocks and needs none; and when every
// P has been idle (a client waiting for its server), the bookkeeping of
// the next call wakes the runtime's monitor thread, which then polls in
// 20 µs sleeps: a futex wake-up and a few sleeps per answer, a sizeable
// part of the client's CPU per query (the README's Speed section has the
// figures).
//
// Waiting, deadlines and Close are the poller's, through the connection's
// syscall.RawConn, as in net.TCPConn.
type pollerConn struct {
	*net.TCPConn
	raw   syscall.RawConn
	ahead readAhead
}

// dialPoller dials addr for a connection read through the poller.
func dialPoller(ctx context.Context, network, addr string) (net.Conn, error) {
	tcp, c, err := dialTCP(ctx, network, addr)
	if tcp == nil {
		return c, err
	}
	raw, err := tcp.SyscallConn()
	if err != nil {
		tcp.Close()
		return nil, err
	}
	return &pollerConn{TCPConn: tcp, raw: raw, ahead: readAhead{pooled: true}}, nil
}

func (c *pollerConn) Read(p []byte) (int, error) {
	if n := c.ahead.take(p); n > 0 || len(p) == 0 {
		return n, nil
	}
	var n int
	var errno syscall.Errno
	err := c.raw.Read(func(fd uintptr) bool {
		n, errno = socketCall(syscall.SYS_RECVFROM, fd, c.ahead.into(p), 0, false)
		n = c.ahead.received(p, n)
		return errno != syscall.EAGAIN
	})
	switch {
	case err != nil:
		return 0, c.opError("read", err)
	case errno != 0:
		return 0, c.opError("read", errno)
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

func (c *pollerConn) Write(p []byte) (int, error) {
	written := 0
	var errno syscall.Errno
	err := c.raw.Write(func(fd uintptr) bool {
		for written < len(p) {
			var n int
			n, errno = socketCall(syscall.SYS_SENDTO, fd, p[written:], syscall.MSG_NOSIGNAL, false)
			if errno != 0 {
				return errno != syscall.EAGAIN
			}
			written += n
		}
		return true
	})
	switch {
	case err != nil:
		return written, c.opError("write", err)
	case errno != 0:
		return written, c.opError("write", errno)
	}
	return written, nil
}

// opError reports a failed call as net.TCPConn would: the raw
// connection's own error says "raw-read" or "raw-write".
func (c *pollerConn) opError(op string, err error) error {
	if oe := (*net.OpError)(nil); errors.As(err, &oe) {
		err = oe.Err
	}
	return &net.OpError{Op: op, Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}

// dialTCP dials addr; tcp is nil when the connection is not TCP (or the
// dial failed), and conn and err are then what the dial gave.
func dialTCP(ctx context.Context, network, addr string) (tcp *net.TCPConn, conn net.Conn, err error) {
	var d net.Dialer
	conn, err = d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, nil, err
	}
	tcp, _ = conn.(*net.TCPConn)
	return tcp, conn, nil
}

// socketCall makes one recvfrom or sendto call on p, through the
// scheduler's system-call bookkeeping only when viaScheduler is set (a call
// that may block while holding a P; see pollerConn and blockingConn).
func socketCall(trap, fd uintptr, p []byte, flags uintptr, viaScheduler bool) (int, syscall.Errno) {
	var buf unsafe.Pointer
	if len(p) > 0 {
		buf = unsafe.Pointer(&p[0])
	}
	call := syscall.RawSyscall6
	if viaScheduler {
		call = syscall.Syscall6
	}
	n, _, errno := call(trap, fd, uintptr(buf), uintptr(len(p)), flags, 0, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(n), 0
}
