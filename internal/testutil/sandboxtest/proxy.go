package sandboxtest

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Proxy relays TCP connections from a new loopback address to target,
// delaying every reply from the server by delay (a target slowed down on
// purpose; 0 for none). It returns the address and a count of the
// connections accepted; everything stops when the test ends.
func Proxy(t testing.TB, target string, delay time.Duration) (string, *atomic.Int64) {
	var accepted atomic.Int64
	addr := relay(t, "127.0.0.1", target, func(client, server net.Conn) (toServer, toClient func()) {
		accepted.Add(1)
		return func() { io.Copy(server, client); server.Close() },
			func() {
				defer client.Close()
				copyEach(server, func(b []byte) error {
					time.Sleep(delay)
					_, err := client.Write(b)
					return err
				})
			}
	})
	return addr, &accepted
}

// Tap relays TCP connections from a new port on the loopback address host
// (any of 127.0.0.0/8) to target, as Proxy does, and keeps the first
// connection's first 1 MiB sent by the client, for tests of what goes over
// the wire (a handshake's flags, no plain text under TLS). It returns the
// address and a function giving the bytes kept so far.
func Tap(t testing.TB, host, target string) (string, func() []byte) {
	var mu sync.Mutex
	var kept []byte
	first := true
	addr := relay(t, host, target, func(client, server net.Conn) (toServer, toClient func()) {
		mu.Lock()
		keep := first
		first = false
		mu.Unlock()
		return func() {
				defer server.Close()
				copyEach(client, func(b []byte) error {
					if keep {
						mu.Lock()
						kept = append(kept, b[:min(len(b), 1<<20-len(kept))]...)
						mu.Unlock()
					}
					_, err := server.Write(b)
					return err
				})
			},
			func() { io.Copy(client, server); client.Close() }
	})
	return addr, func() []byte {
		mu.Lock()
		defer mu.Unlock()
		return append([]byte(nil), kept...)
	}
}

// relay listens on a new port of host and connects each connection it
// accepts to target, running the two directions handle returns; it stops
// when the test ends, its connections' goroutines done.
func relay(t testing.TB, host, target string, handle func(client, server net.Conn) (toServer, toClient func())) string {
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	go func() {
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			server, err := net.Dial("tcp", target)
			if err != nil {
				client.Close()
				continue
			}
			toServer, toClient := handle(client, server)
			wg.Add(2)
			go func() { defer wg.Done(); toServer() }()
			go func() { defer wg.Done(); toClient() }()
		}
	}()
	return ln.Addr().String()
}

// copyEach reads from r until it fails, handing each read to each until
// that fails.
func copyEach(r io.Reader, each func([]byte) error) {
	buf := make([]byte, 64<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if werr := each(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
