package k8s

import (
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/starbench/starbench/builtins/bench"
)

func TestJobSegment(t *testing.T) {
	env := func(v string) func(string) string { return func(string) string { return v } }
	for _, c := range []struct{ spec, index, want, err string }{
		{"2/3", "", "2/3", ""},
		{"job/3", "0", "1/3", ""},
		{"job/3", "2", "3/3", ""},
		{"job/3", "3", "", `JOB_COMPLETION_INDEX="3" is not an index below 3`},
		{"job/3", "", "", "which a Kubernetes Indexed Job sets in its pods; it is not set here (give --segment i/3)"},
		{"job/x", "0", "", "want job/N"},
	} {
		got, _, err := JobSegment(c.spec, env(c.index))
		if got != c.want || (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s with index %q: %q, %v", c.spec, c.index, got, err)
		}
	}
}

// A start time already passed is an error, not a late start.
func TestStartAtPassed(t *testing.T) {
	err := StartAt{At: time.Now().Add(-2 * time.Second)}.Arrive(context.Background())
	if err == nil || !strings.Contains(err.Error(), "passed 2") {
		t.Errorf("got %v", err)
	}
	start := time.Now()
	if err := (StartAt{At: start.Add(200 * time.Millisecond)}).Arrive(context.Background()); err != nil || time.Since(start) < 200*time.Millisecond {
		t.Errorf("waited %v: %v", time.Since(start), err)
	}
}

func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// Three segments meet twice (two steps) and start within milliseconds of
// one another each time; when one never comes, the others fail, segment
// 1 naming it.
func TestBarrier(t *testing.T) {
	addr := freeAddr(t)
	var wg sync.WaitGroup
	var started [2][3]time.Time
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := &Barrier{Addr: addr, Segment: bench.Segment{Index: i + 1, Count: 3}, Lead: 100 * time.Millisecond}
			defer b.Close()
			for step := range 2 {
				time.Sleep(time.Duration(i) * 300 * time.Millisecond) // the last comes 0.6s late
				if err := b.Arrive(context.Background()); err != nil {
					t.Errorf("segment %d, step %d: %v", i+1, step+1, err)
				}
				started[step][i] = time.Now()
			}
		}()
	}
	wg.Wait()
	for step := range 2 {
		for _, s := range started[step][1:] {
			if d := s.Sub(started[step][0]).Abs(); d > 20*time.Millisecond {
				t.Errorf("step %d: started %v apart", step+1, d)
			}
		}
	}

	addr = freeAddr(t)
	errs := make([]error, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := &Barrier{Addr: addr, Segment: bench.Segment{Index: i + 1, Count: 3}, Timeout: 500 * time.Millisecond}
			defer b.Close()
			errs[i] = b.Arrive(context.Background())
		}()
	}
	wg.Wait()
	if errs[0] == nil || !strings.Contains(errs[0].Error(), "segments 3 of 3 did not arrive within 500ms") || errs[1] == nil {
		t.Errorf("a segment missing: %v; %v", errs[0], errs[1])
	}
}
