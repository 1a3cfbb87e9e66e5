package mysqlconn

import "sync"

// readAheadSize is how much a connection asks the kernel for at a time.
// The driver reads through a 4 KB buffer, so a 100-row range result of
// oltp_read_write (about 12.5 KB) took four receive calls; MariaDB sends
// it in one piece of up to 16 KB (its net_buffer_length), which one call
// now takes whole, as libmariadb's larger buffer does for sysbench.
const readAheadSize = 16 << 10

// readAheadBuffers holds the buffers of pooled readAheads between calls.
var readAheadBuffers = sync.Pool{New: func() any { return new([readAheadSize]byte) }}

// readAhead is a connection's receive buffer: a call to the kernel asks
// for up to readAheadSize bytes and reads hand them out. A pooled one
// holds its buffer only while it has unread bytes, so thousands of
// connections waiting in the poller hold none; an unpooled one (a few
// connections that each block in the kernel) keeps its own.
type readAhead struct {
	pooled     bool
	buf        *[readAheadSize]byte
	start, end int // buf[start:end] is received and not yet read
}

// take copies buffered bytes into p and says how many.
func (b *readAhead) take(p []byte) int {
	if b.start == b.end {
		return 0
	}
	n := copy(p, b.buf[b.start:b.end])
	b.start += n
	if b.start == b.end {
		b.release()
	}
	return n
}

// into returns where a receive call for a read into p should go: p itself
// when it is at least as large as the buffer, else the (empty) buffer.
func (b *readAhead) into(p []byte) []byte {
	if len(p) >= readAheadSize {
		return p
	}
	if b.buf == nil {
		if b.pooled {
			b.buf = readAheadBuffers.Get().(*[readAheadSize]byte)
		} else {
			b.buf = new([readAheadSize]byte)
		}
	}
	return b.buf[:]
}

// received ends a receive call that went where into(p) said, of n bytes
// (0 for none, or a failure), and returns how many of them are now in p.
func (b *readAhead) received(p []byte, n int) int {
	if len(p) >= readAheadSize {
		return n
	}
	b.start, b.end = 0, max(n, 0)
	if n <= 0 {
		b.release()
		return n
	}
	return b.take(p)
}

// release gives a pooled buffer back once it is empty.
func (b *readAhead) release() {
	if b.pooled && b.buf != nil {
		readAheadBuffers.Put(b.buf)
		b.buf = nil
	}
}
