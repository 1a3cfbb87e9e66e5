package mysqlconn

import (
	"bytes"
	"context"
	"io"
	"net"
	"testing"
)

// Both connections read ahead: one receive call takes a whole result that
// the driver then reads in small pieces, reads at least as large as the
// buffer go straight to the caller, and the byte stream comes out
// unchanged up to the peer's close. A pooled buffer goes back once read.
func TestConnectionsReadAhead(t *testing.T) {
	dialers := map[string]func(ctx context.Context, addr string) (net.Conn, error){
		"blocking": func(ctx context.Context, addr string) (net.Conn, error) {
			return dialBlocking(ctx, "tcp", addr, false)
		},
		"poller": dialPollerTCP,
	}
	for name, dial := range dialers {
		t.Run(name, func(t *testing.T) {
			c, peer := loopbackPair(t, dial)
			var ahead *readAhead
			switch c := c.(type) {
			case *blockingConn:
				ahead = &c.ahead
			case *pollerConn:
				ahead = &c.ahead
			default:
				t.Fatalf("dialled a %T", c)
			}

			result := pattern(12500, 1) // one oltp_read_write range result
			if _, err := peer.Write(result); err != nil {
				t.Fatal(err)
			}
			// Over loopback the write is in c's receive queue once it
			// returns: the first small read takes all of it.
			got := make([]byte, 4)
			if _, err := io.ReadFull(c, got); err != nil {
				t.Fatal(err)
			}
			if buffered := ahead.end - ahead.start; buffered != len(result)-4 {
				t.Fatalf("after a 4-byte read %d bytes are buffered, want %d", buffered, len(result)-4)
			}
			rest := make([]byte, len(result)-4)
			for off := 0; off < len(rest); {
				n, err := c.Read(rest[off:min(off+4096, len(rest))])
				if err != nil {
					t.Fatal(err)
				}
				off += n
			}
			if !bytes.Equal(append(got, rest...), result) {
				t.Fatal("the result read in pieces differs from what was sent")
			}
			if ahead.pooled && ahead.buf != nil {
				t.Fatal("a read-out pooled buffer was kept")
			}

			// A read as large as the buffer bypasses it; then the peer's
			// close reads as io.EOF.
			large := pattern(3*readAheadSize, 7)
			go func() {
				peer.Write(large)
				peer.Close()
			}()
			whole := make([]byte, len(large))
			if _, err := io.ReadFull(c, whole); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(whole, large) {
				t.Fatal("a large read differs from what was sent")
			}
			if ahead.end != ahead.start {
				t.Fatalf("a large read left %d bytes buffered", ahead.end-ahead.start)
			}
			if n, err := c.Read(got); n != 0 || err != io.EOF {
				t.Fatalf("after the peer's close: %d bytes, %v; want io.EOF", n, err)
			}
		})
	}
}

// pattern returns n bytes that differ from their neighbours and from
// another seed's.
func pattern(n int, seed byte) []byte {
	p := make([]byte, n)
	for i := range p {
		p[i] = byte(i*31) + seed
	}
	return p
}
