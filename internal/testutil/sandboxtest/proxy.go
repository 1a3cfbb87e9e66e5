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
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var accepted atomic.Int64
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	go func() {
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			server, err := net.Dial("tcp", target)
			if err != nil {
				client.Close()
				continue
			}
			wg.Add(2)
			go func() { defer wg.Done(); io.Copy(server, client); server.Close() }()
			go func() {
				defer wg.Done()
				defer client.Close()
				buf := make([]byte, 64<<10)
				for {
					n, err := server.Read(buf)
					if n > 0 {
						time.Sleep(delay)
						if _, werr := client.Write(buf[:n]); werr != nil {
							return
						}
					}
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String(), &accepted
}

// Tap relays TCP connections from a new port on the loopback address host
// (any of 127.0.0.0/8) to target, as Proxy does, and keeps the first
// connection's first 1 MiB sent by the client, for tests of what goes over
// the wire (a handshake's flags, no plain text under TLS). It returns the
// address and a function giving the bytes kept so far.
func Tap(t testing.TB, host, target string) (string, func() []byte) {
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var kept []byte
	first := true
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
			mu.Lock()
			keep := first
			first = false
			mu.Unlock()
			wg.Add(2)
			go func() {
				defer wg.Done()
				defer server.Close()
				buf := make([]byte, 64<<10)
				for {
					n, err := client.Read(buf)
					if n > 0 {
						if keep {
							mu.Lock()
							kept = append(kept, buf[:min(n, 1<<20-len(kept))]...)
							mu.Unlock()
						}
						if _, werr := server.Write(buf[:n]); werr != nil {
							return
						}
					}
					if err != nil {
						return
					}
				}
			}()
			go func() { defer wg.Done(); io.Copy(client, server); client.Close() }()
		}
	}()
	return ln.Addr().String(), func() []byte {
		mu.Lock()
		defer mu.Unlock()
		return append([]byte(nil), kept...)
	}
}
