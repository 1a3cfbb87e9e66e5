package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/go-sql-driver/mysql"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/family"
	"github.com/starbench/starbench/builtins/telemetry"
	"github.com/starbench/starbench/runner/results"
)

// ServeOptions configure an agent.
type ServeOptions struct {
	Version string // the tool's version, said in hello
	// Family is the workload family of a name (the registry's).
	Family func(name string) (family.Family, bool)
	// ClockSkew is added to the agent's clock, the one its messages and
	// its part's recorded start are on: a test's stand-in for a host
	// whose clock is off, which the coordinator's measured offset must
	// undo (the product binary cannot set it: cmd/starbench reads it only
	// in a build with the agenttest tag).
	ClockSkew time.Duration
	// TempDir is where the part's folder is written before it is sent
	// ("" for the system's).
	TempDir string
	// Watchdog is how long the agent waits for a message until its part
	// says its own (0: 30s).
	Watchdog time.Duration
}

// defaultWatchdog is how long an agent waits for its first message.
const defaultWatchdog = 30 * time.Second

// ErrCoordinatorGone is why an agent stopped when its stdin closed or its
// watchdog fired.
var ErrCoordinatorGone = errors.New("the coordinator is gone")

// Serve is the agent: it speaks the protocol on in and out until its part
// ran and its files were sent, the coordinator closed in, told it to stop
// or went silent for the watchdog's time, or ctx ended. It returns nil
// when the part ran (whatever the part's own outcome, which the
// coordinator was sent).
func Serve(ctx context.Context, in io.Reader, out io.Writer, o ServeOptions) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	now := func() time.Time { return time.Now().Add(o.ClockSkew) }
	c := newConn(in, out)
	host, _ := os.Hostname()
	if err := c.send(message{Type: msgHello, Hello: &hello{Protocol: ProtocolVersion, Version: o.Version, OS: runtime.GOOS,
		Arch: runtime.GOARCH, PID: os.Getpid(), Hostname: host, CPUs: allowedCPUs()}}); err != nil {
		return err
	}
	var lastSeen atomic.Int64
	lastSeen.Store(time.Now().UnixNano())
	var watchdog atomic.Int64
	watchdog.Store(int64(defaultWatchdog))
	if o.Watchdog > 0 {
		watchdog.Store(int64(o.Watchdog))
	}
	var sampled atomic.Bool // a telemetry session: its end is the coordinator's closing
	var hostMu sync.Mutex
	var hostReader telemetry.HostReader // kept between samples: it remembers the processes
	runs := make(chan *RunRequest, 1)
	starts := make(chan int64, 1)
	go func() {
		for {
			m, err := c.receive()
			if err != nil {
				cancel(fmt.Errorf("%w: its stdin closed (%v)", ErrCoordinatorGone, err))
				return
			}
			lastSeen.Store(time.Now().UnixNano())
			switch m.Type {
			case msgPing:
				if m.Clock != nil {
					_ = c.send(message{Type: msgPong, Clock: &clockProbe{ID: m.Clock.ID, Agent: now().UnixNano()}})
				}
			case msgRun:
				if m.Run != nil {
					if m.Run.Watchdog > 0 {
						watchdog.Store(m.Run.Watchdog)
					}
					select {
					case runs <- m.Run:
					default:
					}
				}
			case msgStart:
				select {
				case starts <- m.StartAt:
				default:
				}
			case msgStop:
				cancel(context.Canceled)
			case msgSample:
				if m.Sample != nil {
					sampled.Store(true)
					go func(req sampleRequest) {
						hostMu.Lock()
						defer hostMu.Unlock()
						d := &readingData{ID: req.ID}
						r, err := hostReader.Read(req.Processes)
						if err != nil {
							d.Error = err.Error()
						}
						r.Time = now()
						d.Reading = r
						_ = c.send(message{Type: msgReading, Reading: d})
					}(*m.Sample)
				}
			}
		}
	}()
	go func() {
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				if silent := time.Since(time.Unix(0, lastSeen.Load())); silent > time.Duration(watchdog.Load()) {
					cancel(fmt.Errorf("%w: no message for %v", ErrCoordinatorGone, silent.Round(time.Second)))
					return
				}
			}
		}
	}()
	var req *RunRequest
	select {
	case req = <-runs:
	case <-ctx.Done():
		if sampled.Load() && errors.Is(context.Cause(ctx), ErrCoordinatorGone) {
			return nil // a host's telemetry: the coordinator is done with it
		}
		return context.Cause(ctx)
	}
	step, kinds, err := buildStep(req, o)
	if err != nil {
		return c.send(message{Type: msgError, Error: err.Error(), Usage: true})
	}
	step.ClockOffset = time.Duration(req.ClockOffset)
	if o.ClockSkew != 0 {
		// The part's start as a clock off by ClockSkew records it: the
		// step converts it to the coordinator's clock with the offset.
		run := step.Run
		step.Run = func(ctx context.Context, r bench.StepRun) (*bench.Result, error) {
			res, err := run(ctx, r)
			if res != nil {
				res.StartTime = res.StartTime.Add(o.ClockSkew)
			}
			return res, err
		}
	}
	step.Start = &remoteStart{c: c, starts: starts, now: now}
	step.Output = &outputSender{c: c}
	step.Progress = func(p bench.Progress) { _ = c.send(message{Type: msgProgress, Progress: &p}) }
	step.Sinks = append(step.Sinks, bench.SinkFunc(func(iv *bench.Interval) {
		if d, err := encodeInterval(iv, kinds); err == nil {
			_ = c.send(message{Type: msgInterval, Interval: d})
		}
	}))
	dir, err := os.MkdirTemp(o.TempDir, "starbench-agent-")
	if err != nil {
		return c.send(message{Type: msgError, Error: err.Error()})
	}
	defer os.RemoveAll(dir)
	_, _, runErr := bench.RunStep(ctx, dir, step)
	done := &doneData{Files: map[string][]byte{}}
	if runErr != nil {
		done.Error = runErr.Error()
		if cause := context.Cause(ctx); errors.Is(cause, ErrCoordinatorGone) {
			return cause // nobody to send it to
		}
	}
	for _, name := range []string{results.SummaryFile, results.IntervalsFile, results.LatencyFile, results.OutputFile} {
		if data, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
			done.Files[name] = data
		}
	}
	if err := c.send(message{Type: msgDone, Done: done}); err != nil {
		return err
	}
	// Wait for the coordinator to close, for a while: it has what it needs.
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
	}
	return nil
}

// buildStep makes the part's step from the request: its family's run on
// its endpoints.
func buildStep(req *RunRequest, o ServeOptions) (bench.Step, []string, error) {
	if o.Family == nil {
		return bench.Step{}, nil, fmt.Errorf("this agent knows no workload family")
	}
	f, ok := o.Family(req.Family)
	if !ok {
		return bench.Step{}, nil, fmt.Errorf("this agent (starbench %s) has no workload family %q", o.Version, req.Family)
	}
	v, err := family.DecodeValues(f, f.RunOptions(), req.Values)
	if err != nil {
		return bench.Step{}, nil, fmt.Errorf("%s: %w", req.Family, err)
	}
	r, err := f.Run(v)
	if err != nil {
		return bench.Step{}, nil, fmt.Errorf("%s: %w", req.Family, err)
	}
	if len(req.Endpoints) == 0 {
		return bench.Step{}, nil, fmt.Errorf("no endpoints to connect to")
	}
	rr := &bench.RoundRobin{}
	ps := family.PSMode(f, v)
	for _, e := range req.Endpoints {
		cfg, err := mysql.ParseDSN(e.DSN)
		if err != nil {
			return bench.Step{}, nil, fmt.Errorf("an endpoint's DSN does not parse") // its text holds the password
		}
		rr.Connectors = append(rr.Connectors, &bench.SQLConnector{Config: cfg, PS: ps, Init: e.Init})
	}
	step, err := family.NewStep(f, r, v, rr, req.Seed, req.Target)
	if err == nil && req.Profile != nil {
		var seg bench.Segment
		if so, ok := family.ByRole(f.RunOptions(), family.Segment); ok {
			if seg, err = v.Segment(so.Name); err != nil {
				return step, nil, err
			}
		}
		step = family.WithProfile(step, *req.Profile, seg)
	}
	return step, r.Kinds(), err
}

// encodeInterval is an interval as it is streamed.
func encodeInterval(iv *bench.Interval, kinds []string) (*intervalData, error) {
	d := &intervalData{Row: bench.IntervalRow(iv)}
	for _, h := range bench.IntervalHistograms(iv, kinds) {
		data, err := h.Histogram.Encode(hdr.V2CompressedEncodingCookieBase)
		if err != nil {
			return nil, err
		}
		d.Histograms = append(d.Histograms, histogramData{Start: h.Start, End: h.End, Tag: h.Tag, Data: data})
	}
	return d, nil
}

// decodeInterval reads a streamed interval back.
func decodeInterval(d *intervalData) (results.Interval, []results.LatencyInterval, error) {
	var hs []results.LatencyInterval
	for _, h := range d.Histograms {
		hist, err := hdr.Decode(h.Data)
		if err != nil {
			return d.Row, nil, err
		}
		hs = append(hs, results.LatencyInterval{Start: h.Start, End: h.End, Tag: h.Tag, Histogram: hist})
	}
	return d.Row, hs, nil
}

// remoteStart is the agent's start barrier: it says ready and waits for
// the time to start at.
type remoteStart struct {
	c      *conn
	starts chan int64
	now    func() time.Time
}

func (r *remoteStart) Arrive(ctx context.Context) error {
	if err := r.c.send(message{Type: msgReady}); err != nil {
		return err
	}
	select {
	case at := <-r.starts:
		return bench.SleepUntil(ctx, time.Unix(0, at), r.now)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// outputSender sends the part's text as it is written.
type outputSender struct {
	mu sync.Mutex
	c  *conn
}

func (w *outputSender) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.c.send(message{Type: msgOutput, Text: string(p)}); err != nil {
		return 0, err
	}
	return len(p), nil
}

// allowedCPUs is the CPUs this process may run on, as Linux lists them
// ("0-3"); "" where /proc does not say.
func allowedCPUs() string {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
