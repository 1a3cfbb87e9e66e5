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
