// Package k8s runs one load from many machines as segments that start
// together: as a Kubernetes Indexed Job (the manifests, Render), where a
// pod's segment is its completion index (JobSegment), or on any machines
// by hand. Segments start at a set time (StartAt) or meet at a barrier one
// of them serves (Barrier), as k6-operator's starter starts its runners;
// `starbench merge` then merges their folders exactly. Nothing here
// imports Starlark.
package k8s

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/starbench/starbench/builtins/bench"
)

// IndexEnv is the variable a Kubernetes Indexed Job's pods get their
// completion index (0-based) in.
const IndexEnv = "JOB_COMPLETION_INDEX"

// JobSegment resolves a --segment of the form "job/N" into "i/N", i being
// the pod's completion index plus one, read from getenv(IndexEnv); other
// forms are returned as they are. ok reports whether spec was job/N.
func JobSegment(spec string, getenv func(string) string) (resolved string, ok bool, err error) {
	n, isJob := strings.CutPrefix(spec, "job/")
	if !isJob {
		return spec, false, nil
	}
	count, err := strconv.Atoi(n)
	if err != nil || count < 1 {
		return "", true, fmt.Errorf("--segment %s: want job/N with N the Job's completions, e.g. job/3", spec)
	}
	v := getenv(IndexEnv)
	if v == "" {
		return "", true, fmt.Errorf("--segment %s takes the segment from %s, which a Kubernetes Indexed Job sets in its pods; it is not set here (give --segment i/%d)", spec, IndexEnv, count)
	}
	index, err := strconv.Atoi(v)
	if err != nil || index < 0 || index >= count {
		return "", true, fmt.Errorf("--segment %s: %s=%q is not an index below %d", spec, IndexEnv, v, count)
	}
	return fmt.Sprintf("%d/%d", index+1, count), true, nil
}

// SegmentFolder is where segment resolved ("i/n") of a Job writes in the
// folder dir its segments share: dir/seg-i (what the merge Job reads).
func SegmentFolder(dir, resolved string) string {
	index, _, _ := strings.Cut(resolved, "/")
	return filepath.Join(dir, "seg-"+index)
}

// StartAt holds a load until a set time: the segments started with the
// same time start together (their clocks synchronized, as NTP keeps a
// cluster's). A segment ready only after the time fails, rather than run
// late beside the others.
type StartAt struct {
	At  time.Time
	Now func() time.Time // nil: time.Now
}

// Arrive waits until the time.
func (s StartAt) Arrive(ctx context.Context) error {
	now := s.Now
	if now == nil {
		now = time.Now
	}
	if late := now().Sub(s.At); late > 0 {
		return fmt.Errorf("--start-at %s passed %v before this segment was ready: start the segments with a later time", s.At.UTC().Format(time.RFC3339), late.Round(time.Millisecond))
	}
	return bench.SleepUntil(ctx, s.At, now)
}

// Barrier is a start rendezvous of the Count segments of a load, met
// once per benchmark step (rounds, in order: every segment runs the same
// steps): segment 1 serves it on Addr's port (on Addr's host when that is
// an IP address, on every interface otherwise) from its first Arrive
// until Close; every segment, once ready, connects to Addr and says so;
// when all have, each is sent the time to start at, a moment ahead.
// Segments that do not all arrive within Timeout fail, segment 1 naming
// those missing.
type Barrier struct {
	Addr    string
	Segment bench.Segment
	Timeout time.Duration // 0: 10 minutes
	// Lead is how far ahead the start is set (0: one second).
	Lead time.Duration

	mu    sync.Mutex
	round int
	srv   *barrierServer
}

// Arrive meets the other segments at the next round and waits for the
// start.
func (b *Barrier) Arrive(ctx context.Context) error {
	if b.Segment.Whole() {
		return fmt.Errorf("--start-barrier needs --segment i/n: it is the meeting of n segments")
	}
	b.mu.Lock()
	b.round++
	round := b.round
	if b.Segment.Index == 1 && b.srv == nil {
		ln, err := b.listen()
		if err != nil {
			b.mu.Unlock()
			return fmt.Errorf("--start-barrier %s: segment 1 serves it: %w", b.Addr, err)
		}
		b.srv = &barrierServer{ln: ln, count: b.Segment.Count, lead: b.Lead, rounds: map[int]map[int]net.Conn{}}
		go b.srv.serve()
	}
	srv := b.srv
	b.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, b.timeout())
	defer cancel()
	at, err := b.meet(ctx, round)
	if err != nil {
		if missing := srv.missing(round); len(missing) > 0 {
			return fmt.Errorf("--start-barrier %s: segments %s of %d did not arrive within %v", b.Addr, strings.Join(missing, ", "), b.Segment.Count, b.timeout())
		}
		return err
	}
	return bench.SleepUntil(ctx, at, time.Now)
}

// Close stops serving the barrier (segment 1's), once the run is over.
func (b *Barrier) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.srv != nil {
		b.srv.close()
	}
}

func (b *Barrier) timeout() time.Duration {
	if b.Timeout > 0 {
		return b.Timeout
	}
	return 10 * time.Minute
}

func (b *Barrier) listen() (net.Listener, error) {
	host, port, err := net.SplitHostPort(b.Addr)
	if err != nil {
		return nil, err
	}
	if net.ParseIP(host) == nil {
		host = "" // a name (the first pod's): every interface
	}
	var lc net.ListenConfig
	return lc.Listen(context.Background(), "tcp", net.JoinHostPort(host, port))
}

// barrierServer is segment 1's side: it takes every segment's "ready i/n
// r" and, once all n came for round r, answers each "start UNIXNANO".
type barrierServer struct {
	ln     net.Listener
	count  int
	lead   time.Duration
	mu     sync.Mutex
	rounds map[int]map[int]net.Conn
}

func (s *barrierServer) serve() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return // closed
		}
		go s.take(c)
	}
}

func (s *barrierServer) take(c net.Conn) {
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	line, err := bufio.NewReader(c).ReadString('\n')
	var i, n, round int
	if err == nil {
		_, err = fmt.Sscanf(line, "ready %d/%d %d\n", &i, &n, &round)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	arrived := s.rounds[round]
	if err != nil || n != s.count || i < 1 || i > n || arrived[i] != nil {
		fmt.Fprintf(c, "refused: this barrier is for segments 1..%d of %d, once each a step\n", s.count, s.count)
		c.Close()
		return
	}
	if arrived == nil {
		arrived = map[int]net.Conn{}
		s.rounds[round] = arrived
	}
	_ = c.SetReadDeadline(time.Time{})
	arrived[i] = c
	if len(arrived) < s.count {
		return
	}
	lead := s.lead
	if lead <= 0 {
		lead = time.Second
	}
	at := time.Now().Add(lead).UnixNano()
	for _, c := range arrived {
		fmt.Fprintf(c, "start %d\n", at)
		c.Close()
	}
	delete(s.rounds, round)
}

// missing lists the segments round r still waits for ("" for a barrier
// this process does not serve).
func (s *barrierServer) missing(round int) []string {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	arrived, ok := s.rounds[round]
	if !ok {
		return nil
	}
	var out []string
	for i := 1; i <= s.count; i++ {
		if arrived[i] == nil {
			out = append(out, strconv.Itoa(i))
		}
	}
	return out
}

func (s *barrierServer) close() {
	s.ln.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, arrived := range s.rounds {
		for _, c := range arrived {
			c.Close()
		}
	}
}

// meet connects to the barrier (again and again until it is served),
// says this segment is ready for round and reads the start.
func (b *Barrier) meet(ctx context.Context, round int) (time.Time, error) {
	var d net.Dialer
	for {
		c, err := d.DialContext(ctx, "tcp", b.Addr)
		if err != nil {
			select {
			case <-ctx.Done():
				return time.Time{}, fmt.Errorf("--start-barrier %s: cannot reach it within %v: %w", b.Addr, b.timeout(), err)
			case <-time.After(200 * time.Millisecond):
				continue
			}
		}
		stop := context.AfterFunc(ctx, func() { c.Close() })
		fmt.Fprintf(c, "ready %d/%d %d\n", b.Segment.Index, b.Segment.Count, round)
		line, err := bufio.NewReader(c).ReadString('\n')
		stop()
		c.Close()
		var at int64
		if err == nil {
			if _, serr := fmt.Sscanf(line, "start %d\n", &at); serr != nil {
				return time.Time{}, fmt.Errorf("--start-barrier %s: %s", b.Addr, strings.TrimSpace(line))
			}
			return time.Unix(0, at), nil
		}
		if ctx.Err() != nil {
			return time.Time{}, fmt.Errorf("--start-barrier %s: the other segments did not all arrive within %v", b.Addr, b.timeout())
		}
		// The server went away before it answered (a restart): try again.
		time.Sleep(200 * time.Millisecond)
	}
}
