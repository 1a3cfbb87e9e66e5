package mysqlconn

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// A poller connection over loopback TCP: bytes go both ways, a read
// deadline ends a read the peer never answers, Close from another
// goroutine wakes a blocked read, and the peer's close reads as io.EOF.
func TestPollerConn(t *testing.T) {
	dial := func() (net.Conn, net.Conn) {
		t.Helper()
		c, peer := loopbackPair(t, dialPollerTCP)
		if _, ok := c.(*pollerConn); !ok {
			t.Fatalf("dialPoller gave a %T", c)
		}
		return c, peer
	}

	c, peer := dial()
	// More than both socket buffers hold, and the peer starts reading
	// late: Write must wait in the poller for room.
	big := make([]byte, 16<<20)
	for i := range big {
		big[i] = byte(i)
	}
	echoed := make(chan error, 1)
	go func() {
		time.Sleep(200 * time.Millisecond)
		got := make([]byte, len(big))
		if _, err := io.ReadFull(peer, got); err != nil {
			echoed <- err
			return
		}
		_, err := peer.Write(got[:100])
		echoed <- err
	}()
	if n, err := c.Write(big); err != nil || n != len(big) {
		t.Fatalf("write: %d of %d bytes, %v", n, len(big), err)
	}
	if err := <-echoed; err != nil {
		t.Fatal(err)
	}
	back := make([]byte, 100)
	if _, err := io.ReadFull(c, back); err != nil || back[99] != big[99] {
		t.Fatalf("read back: %v", err)
	}

	// The peer says nothing: the deadline ends the read.
	c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	start := time.Now()
	_, err := c.Read(back)
	if took := time.Since(start); !errors.Is(err, os.ErrDeadlineExceeded) || took < 150*time.Millisecond || took > 3*time.Second {
		t.Fatalf("read with a 200 ms deadline: %v after %v", err, took)
	}
	var opErr *net.OpError
	if !errors.As(err, &opErr) || opErr.Op != "read" {
		t.Errorf("deadline error %#v, want a net.OpError for read", err)
	}

	// Close wakes a read blocked with no deadline.
	c.SetReadDeadline(time.Time{})
	time.AfterFunc(200*time.Millisecond, func() { c.Close() })
	start = time.Now()
	if _, err := c.Read(back); !errors.Is(err, net.ErrClosed) || time.Since(start) > 3*time.Second {
		t.Fatalf("read on a closed connection: %v after %v", err, time.Since(start))
	}

	// The peer closes: EOF.
	c2, peer2 := dial()
	peer2.Close()
	if _, err := c2.Read(back); err != io.EOF {
		t.Fatalf("read after the peer closed: %v, want io.EOF", err)
	}
}

func dialPollerTCP(ctx context.Context, addr string) (net.Conn, error) {
	return dialPoller(ctx, "tcp", addr)
}

// loopbackPair dials a listener on 127.0.0.1 with dial and returns the
// connection and the accepted peer, both closed when the test ends.
func loopbackPair(t *testing.T, dial func(ctx context.Context, addr string) (net.Conn, error)) (conn, peer net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	conn, err = dial(context.Background(), ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if peer, err = ln.Accept(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { peer.Close() })
	return conn, peer
}
