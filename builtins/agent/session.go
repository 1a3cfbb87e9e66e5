package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/runner/results"
)

// Process is a running agent as the coordinator holds it: its stdin and
// stdout, and how to wait for it or end it (an *ssh.Process, or a child
// process on this host).
type Process interface {
	Stdin() io.WriteCloser
	Stdout() io.Reader
	Done() <-chan struct{}
	Wait() (int, error)
	Kill()
}

// Session is the coordinator's side of one agent.
type Session struct {
	// Host names the agent's host ("ssh 10.0.1.5:22", "this host") and
	// Placement what it is bound to ("cpus 0-3"; "" for nothing).
	Host, Placement string
	// Offset is how far the agent's clock is ahead of this one's, and RTT
	// the round trip of the probe it was measured with.
	Offset, RTT time.Duration
	// Version, OS and Arch are the agent's, and CPUs those it may run on.
	Version, OS, Arch, CPUs string

	proc   Process
	c      *conn
	stderr *tail
	msgs   chan message
	closed chan struct{} // closed when the agent's stdout ended
	readMu sync.Mutex
	read   error // why it ended

	beatOnce sync.Once     // keepAlive
	stopBeat chan struct{} // closed by Close when keepAlive started
}

// Heartbeat is how often the coordinator tells an agent it is there, and
// DefaultWatchdog how long an agent waits for it before it stops.
const (
	Heartbeat       = time.Second
	DefaultWatchdog = 10 * time.Second
)

// helloTimeout bounds the wait for an agent's hello: a host that starts
// it slowly, or a binary that is not an agent.
const helloTimeout = 30 * time.Second

// Open starts the protocol with a started agent: it reads the hello,
// checks the protocol version and measures the clock offset. stderr holds
// the agent's standard error, quoted when it fails. On an error the agent
// is ended.
func Open(ctx context.Context, proc Process, host, placement string, stderr *tail) (*Session, error) {
	s := &Session{Host: host, Placement: placement, proc: proc, c: newConn(proc.Stdout(), proc.Stdin()), stderr: stderr,
		msgs: make(chan message, 256), closed: make(chan struct{})}
	go s.readLoop()
	fail := func(err error) (*Session, error) {
		s.Close()
		return nil, err
	}
	timer := time.NewTimer(helloTimeout)
	defer timer.Stop()
	var h *hello
	for h == nil {
		select {
		case m, ok := <-s.msgs:
			if !ok {
				return fail(s.gone("before it said hello"))
			}
			if m.Type == msgHello && m.Hello != nil {
				h = m.Hello
			}
		case <-timer.C:
			return fail(fmt.Errorf("agent on %s: no hello within %v%s", s.where(), helloTimeout, s.stderr.quote()))
		case <-ctx.Done():
			return fail(ctx.Err())
		}
	}
	if h.Protocol != ProtocolVersion {
		return fail(fmt.Errorf("agent on %s speaks protocol %d (starbench %s), this coordinator %d: run the same starbench on both",
			s.where(), h.Protocol, h.Version, ProtocolVersion))
	}
	s.Version, s.OS, s.Arch, s.CPUs = h.Version, h.OS, h.Arch, h.CPUs
	if err := s.measureClock(ctx); err != nil {
		return fail(err)
	}
	return s, nil
}

// readLoop hands the agent's messages to msgs until its stdout ends.
func (s *Session) readLoop() {
	defer close(s.msgs)
	defer close(s.closed)
	for {
		m, err := s.c.receive()
		if err != nil {
			s.readMu.Lock()
			s.read = err
			s.readMu.Unlock()
			return
		}
		s.msgs <- m
	}
}

// clockProbes is how many pings measure the offset.
const clockProbes = 7

// measureClock pings the agent and keeps the offset the reply with the
// shortest round trip gives: the agent's time minus the midpoint of the
// probe's send and receipt.
func (s *Session) measureClock(ctx context.Context) error {
	best := time.Duration(-1)
	for id := 1; id <= clockProbes; id++ {
		sent := time.Now()
		if err := s.c.send(message{Type: msgPing, Clock: &clockProbe{ID: id}}); err != nil {
			return s.gone("while its clock was measured")
		}
		probe, cancel := context.WithTimeout(ctx, 10*time.Second)
		m, err := s.await(probe, "while its clock was measured", func(m message) bool {
			return m.Type == msgPong && m.Clock != nil && m.Clock.ID == id
		})
		got := time.Now()
		cancel()
		switch {
		case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
			return fmt.Errorf("agent on %s: no answer to a clock probe within 10s", s.where())
		case err != nil:
			return err
		}
		rtt := got.Sub(sent)
		if best < 0 || rtt < best {
			best = rtt
			mid := sent.Add(rtt / 2)
			s.Offset, s.RTT = time.Unix(0, m.Clock.Agent).Sub(mid), rtt
		}
	}
	return nil
}

// await waits for the agent's message that match takes, passing over
// the others (a late answer to an earlier request): ctx's error when it
// ends first, gone(when) when the agent does.
func (s *Session) await(ctx context.Context, when string, match func(message) bool) (message, error) {
	for {
		select {
		case m, ok := <-s.msgs:
			if !ok {
				return message{}, s.gone(when)
			}
			if match(m) {
				return m, nil
			}
		case <-ctx.Done():
			return message{}, ctx.Err()
		}
	}
}

// gone is the error of an agent that ended when it should not have: why
// it ended (its exit, a signal, a dropped connection) and the end of its
// standard error.
func (s *Session) gone(when string) error {
	why := "its output ended"
	select {
	case <-s.proc.Done():
	case <-time.After(3 * time.Second):
	}
	select {
	case <-s.proc.Done():
		code, err := s.proc.Wait()
		switch {
		case err != nil:
			why = err.Error()
		default:
			why = fmt.Sprintf("it exited with code %d", code)
		}
	default:
		s.readMu.Lock()
		if s.read != nil && s.read != io.EOF {
			why = s.read.Error()
		}
		s.readMu.Unlock()
	}
	return fmt.Errorf("agent on %s ended %s: %s%s", s.where(), when, why, s.stderr.quote())
}

// heartbeat tells the agent every Heartbeat that the coordinator is
// there, until stop closes or the agent's output ends.
func (s *Session) heartbeat(stop <-chan struct{}) {
	t := time.NewTicker(Heartbeat)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-s.closed:
			return
		case <-t.C:
			_ = s.c.send(message{Type: msgHeartbeat})
		}
	}
}

// Close ends the session: it closes the agent's stdin, which makes it
// exit, and kills it when it has not within a few seconds.
func (s *Session) Close() {
	if s.stopBeat != nil {
		close(s.stopBeat)
		s.stopBeat = nil
	}
	_ = s.proc.Stdin().Close()
	select {
	case <-s.proc.Done():
	case <-time.After(5 * time.Second):
		s.proc.Kill()
	}
}

// Client is the session's record for a step's summary.
func (s *Session) Client() *results.Client {
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return &results.Client{Host: s.Host, Placement: s.Placement, CPUs: s.CPUs, Version: s.Version, OS: s.OS, Arch: s.Arch,
		ClockOffsetMS: ms(s.Offset), RTTMS: ms(s.RTT)}
}

// where names the agent in messages: its host and placement.
func (s *Session) where() string {
	if s.Placement != "" {
		return s.Host + " (" + s.Placement + ")"
	}
	return s.Host
}

// RunPart runs req on the agent as step s of a bench.RunStep: its start
// waits on s.Start (the agent is sent the planned start in its own
// clock), its text goes to s.Output, its progress to s.Progress, and the
// step folder it sends is written into dir. When ctx ends the agent is
// told to stop and its partial results are kept. When the agent dies, the
// intervals it streamed are kept in dir (without a summary, so not a
// result) and the error names its host.
func (s *Session) RunPart(ctx context.Context, dir string, req RunRequest, step bench.Step) (*results.Summary, error) {
	req.ClockOffset = int64(s.Offset)
	if req.Watchdog == 0 {
		req.Watchdog = int64(DefaultWatchdog)
	}
	if err := s.c.send(message{Type: msgRun, Run: &req}); err != nil {
		return nil, s.gone("before its part was sent")
	}
	stopBeat := make(chan struct{})
	defer close(stopBeat)
	go s.heartbeat(stopBeat)
	redact := step.Redact
	if redact == nil {
		redact = func(t string) string { return t }
	}
	// The streamed intervals, kept encoded (a decoded histogram is
	// hundreds of KB, a long run has thousands) for a part whose agent is
	// lost.
	var streamed []*intervalData
	var startedAt atomic.Int64 // unix ns, this clock
	stopped := false
	var stopTimer <-chan time.Time
	ctxDone := ctx.Done()
	for {
		select {
		case <-ctxDone:
			ctxDone = nil
			stopped = true
			_ = s.c.send(message{Type: msgStop})
			stopTimer = time.After(15 * time.Second) // for its partial results
			continue
		case <-stopTimer:
			s.proc.Kill()
			return nil, fmt.Errorf("agent on %s did not stop within 15s of being told to; it was killed: %w", s.where(), ctx.Err())
		case m, ok := <-s.msgs:
			if !ok {
				err := s.gone("before its part did")
				if len(streamed) > 0 {
					err = errors.Join(err, writePartial(dir, step.Workload, time.Unix(0, startedAt.Load()), streamed))
				}
				return nil, err
			}
			switch m.Type {
			case msgError:
				err := fmt.Errorf("agent on %s: %s", s.where(), redact(m.Error))
				if m.Usage {
					err = bench.BadInput(err)
				}
				return nil, err
			case msgReady:
				go s.start(ctx, step.Start, &startedAt)
			case msgOutput:
				if step.Output != nil {
					_, _ = io.WriteString(step.Output, redact(m.Text))
				}
			case msgProgress:
				if step.Progress != nil && m.Progress != nil && !m.Progress.Final {
					p := *m.Progress
					p.Client = s.where()
					step.Progress(p)
				}
			case msgInterval:
				if m.Interval != nil {
					streamed = append(streamed, m.Interval)
				}
			case msgDone:
				if m.Done == nil {
					return nil, fmt.Errorf("agent on %s sent an empty result", s.where())
				}
				sum, err := writeFiles(dir, m.Done.Files, s.Client(), redact)
				if err != nil {
					return nil, fmt.Errorf("agent on %s: its results: %w", s.where(), err)
				}
				if step.Progress != nil && sum != nil {
					step.Progress(bench.Progress{Workload: step.Workload, Threads: step.Threads, ElapsedS: sum.Seconds, TotalS: step.Total,
						TPS: sum.TPS, P99MS: sum.Latency.Percentiles["99"], Errors: sum.Errors, Reconnects: sum.Reconnects, Final: true, Client: s.where()})
				}
				switch {
				case m.Done.Error != "" && stopped:
					return sum, fmt.Errorf("agent on %s: %s: %w", s.where(), redact(m.Done.Error), context.Canceled)
				case m.Done.Error != "":
					return sum, fmt.Errorf("agent on %s: %s", s.where(), redact(m.Done.Error))
				}
				return sum, nil
			}
		}
	}
}

// writePartial keeps what a lost agent streamed: its intervals' rows and
// histograms, without a summary (results.WritePartial).
func writePartial(dir, workload string, started time.Time, streamed []*intervalData) error {
	rows := make([]results.Interval, len(streamed))
	for i, d := range streamed {
		rows[i] = d.Row
	}
	histograms := func(yield func(results.LatencyInterval, error) bool) {
		for _, d := range streamed {
			_, hs, err := decodeInterval(d)
			if err != nil {
				yield(results.LatencyInterval{}, fmt.Errorf("a streamed interval: %w", err))
				return
			}
			for _, h := range hs {
				if !yield(h, nil) {
					return
				}
			}
		}
	}
	return results.WritePartialOf(dir, workload, started, rows, histograms)
}

// start waits on the step's barrier and sends the agent the time to
// start at, in its clock; startedAt is set to it in this one's.
func (s *Session) start(ctx context.Context, barrier bench.StartBarrier, startedAt *atomic.Int64) {
	at := time.Now().Add(bench.RemoteStartLead)
	switch b := barrier.(type) {
	case nil:
	case bench.TimedStart:
		t, err := b.ArriveAt(ctx)
		if err != nil {
			return
		}
		at = t
	default:
		if b.Arrive(ctx) != nil {
			return
		}
		at = time.Now().Add(bench.RemoteStartLead)
	}
	startedAt.Store(at.UnixNano())
	_ = s.c.send(message{Type: msgStart, StartAt: at.Add(s.Offset).UnixNano()})
}

// writeFiles writes a part's step folder as the agent sent it: summary.json
// last, so that the folder is a result only once it is whole. Only the
// step folder's own files are taken.
func writeFiles(dir string, files map[string][]byte, client *results.Client, redact func(string) string) (*results.Summary, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	allowed := map[string]bool{results.IntervalsFile: true, results.LatencyFile: true, results.OutputFile: true}
	var names []string
	for name := range files {
		if !allowed[name] && name != results.SummaryFile {
			return nil, fmt.Errorf("unexpected file %q", name)
		}
		if name != results.SummaryFile {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		data := files[name]
		if name == results.OutputFile {
			data = []byte(redact(string(data)))
		}
		if err := results.WriteFile(filepath.Join(dir, name), data); err != nil {
			return nil, err
		}
	}
	data, ok := files[results.SummaryFile]
	if !ok {
		return nil, nil // nothing ran
	}
	var sum results.Summary
	if err := json.Unmarshal(data, &sum); err != nil {
		return nil, fmt.Errorf("%s does not parse: %w", results.SummaryFile, err)
	}
	sum.Client = client
	if err := results.WriteJSON(filepath.Join(dir, results.SummaryFile), &sum); err != nil {
		return nil, err
	}
	return &sum, nil
}

// tail keeps the last lines written to it (an agent's standard error),
// passing everything on to w when set.
type tail struct {
	mu    sync.Mutex
	w     io.Writer
	lines []string
	part  []byte
}

const tailLines = 10

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.w != nil {
		_, _ = t.w.Write(p)
	}
	t.part = append(t.part, p...)
	for {
		i := bytes.IndexByte(t.part, '\n')
		if i < 0 {
			break
		}
		t.lines = append(t.lines, string(t.part[:i]))
		t.part = t.part[i+1:]
		if len(t.lines) > tailLines {
			t.lines = t.lines[1:]
		}
	}
	return len(p), nil
}

// quote is the lines kept, as the end of an error message.
func (t *tail) quote() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := append([]string(nil), t.lines...)
	if len(t.part) > 0 {
		lines = append(lines, string(t.part))
	}
	if len(lines) == 0 {
		return ""
	}
	return "; its stderr ends: " + strings.Join(lines, " | ")
}
