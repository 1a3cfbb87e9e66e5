// Package agent runs a part of a benchmark step on another host: the
// agent (`starbench agent`, Serve) and the coordinator's side of it
// (Session), which talk a small versioned protocol of JSON lines over the
// agent's stdin and stdout, and the ways to start an agent: over SSH, with
// the coordinator's own binary uploaded to the host's per-user cache when
// the host lacks it (StartSSH), or as a child process on this host, to
// bind it to CPUs or a NUMA node (StartLocal).
//
// A session goes: the agent says hello (protocol, version, OS and CPU);
// the coordinator measures the clock offset (pings, the reply with the
// shortest round trip) and sends the part to run (its family's options,
// the endpoints with their passwords, the seed); the agent connects and
// prepares, says ready, and is sent the time to start at, in its own
// clock; it streams its text, progress and every interval's histograms,
// and at the end sends its step folder's files, written with times in the
// coordinator's clock, which the coordinator keeps as the part's folder
// for the exact merge. The coordinator sends a heartbeat every second: an
// agent stops its load and exits when its stdin closes, when it is told
// to stop, or when no message came for its watchdog's time, so that no
// agent outlives its coordinator. An agent can also read its host for a
// plan's telemetry (HostSource): it is then kept for the run, sent a
// sample request a reading and a heartbeat every second between them.
// Nothing here imports Starlark.
package agent

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/telemetry"
	"github.com/starbench/starbench/runner/results"
)

// ProtocolVersion is the version of the messages below; a coordinator and
// an agent of different versions refuse each other.
const ProtocolVersion = 3

// Message types.
const (
	msgHello     = "hello"     // agent: who it is
	msgPing      = "ping"      // coordinator: clock probe
	msgPong      = "pong"      // agent: its clock at the probe
	msgRun       = "run"       // coordinator: the part to run
	msgReady     = "ready"     // agent: connected and prepared
	msgStart     = "start"     // coordinator: start at this time (agent's clock)
	msgOutput    = "output"    // agent: lines of the part's text
	msgProgress  = "progress"  // agent: live progress
	msgInterval  = "interval"  // agent: one interval's row and histograms
	msgDone      = "done"      // agent: the step folder's files and the run's error
	msgError     = "error"     // agent: the part could not run
	msgHeartbeat = "heartbeat" // coordinator: still here
	msgStop      = "stop"      // coordinator: stop the load now
	msgSample    = "sample"    // coordinator: read the host (telemetry)
	msgReading   = "reading"   // agent: the host's reading
)

// message is one line of the protocol; Type says which fields are set.
type message struct {
	Type     string          `json:"type"`
	Hello    *hello          `json:"hello,omitempty"`
	Clock    *clockProbe     `json:"clock,omitempty"`
	Run      *RunRequest     `json:"run,omitempty"`
	StartAt  int64           `json:"start_at,omitempty"` // unix ns, agent's clock
	Text     string          `json:"text,omitempty"`
	Progress *bench.Progress `json:"progress,omitempty"`
	Interval *intervalData   `json:"interval,omitempty"`
	Done     *doneData       `json:"done,omitempty"`
	Error    string          `json:"error,omitempty"`
	Sample   *sampleRequest  `json:"sample,omitempty"`
	Reading  *readingData    `json:"reading,omitempty"`
	// Usage marks an error as the plan's (exit 2): an option the agent's
	// family refuses.
	Usage bool `json:"usage,omitempty"`
}

type hello struct {
	Protocol int    `json:"protocol"`
	Version  string `json:"version"`
	OS       string `json:"os"`
	Arch     string `json:"arch"`
	PID      int    `json:"pid"`
	Hostname string `json:"hostname"`
	CPUs     string `json:"cpus,omitempty"` // the CPUs it may run on (Linux's Cpus_allowed_list)
}

type clockProbe struct {
	ID    int   `json:"id"`
	Agent int64 `json:"agent,omitempty"` // unix ns, agent's clock
}

// RunRequest is the part an agent runs: a family's run, configured by its
// encoded option values, on endpoints, with the step's seed.
type RunRequest struct {
	Family    string          `json:"family"`
	Values    json.RawMessage `json:"values"` // family.EncodeValues
	Seed      int64           `json:"seed"`
	Endpoints []Endpoint      `json:"endpoints"`
	Target    string          `json:"target"` // the endpoints as shown (password masked)
	// Profile, when set, is the load profile the part follows (stages=,
	// rate_stages=, phases=).
	Profile *bench.LoadProfile `json:"profile,omitempty"`
	// ClockOffset is how far the agent's clock is ahead of the
	// coordinator's (ns), as the coordinator measured it.
	ClockOffset int64 `json:"clock_offset"`
	// Watchdog is how long the agent waits for a message before it takes
	// its coordinator for gone (ns).
	Watchdog int64 `json:"watchdog"`
}

// Endpoint is a server the part connects to: its DSN (with the password:
// it travels on the agent's stdin only) and the session settings run on
// every new connection.
type Endpoint struct {
	DSN  string   `json:"dsn"`
	Init []string `json:"init,omitempty"`
}

// sampleRequest asks the agent to read its host: its CPU, memory, disk
// and network, and the processes of these command names.
type sampleRequest struct {
	ID        int      `json:"id"`
	Processes []string `json:"processes,omitempty"`
}

// readingData is the agent's reading of its host (its time in the
// agent's clock), or why it could not read.
type readingData struct {
	ID      int               `json:"id"`
	Reading telemetry.Reading `json:"reading"`
	Error   string            `json:"error,omitempty"`
}

// intervalData is one interval as the part's folder keeps it.
type intervalData struct {
	Row        results.Interval `json:"row"`
	Histograms []histogramData  `json:"histograms"`
}

type histogramData struct {
	Start time.Duration `json:"start"`
	End   time.Duration `json:"end"`
	Tag   string        `json:"tag,omitempty"`
	Data  []byte        `json:"data"` // HdrHistogram's compressed encoding
}

// doneData is the part's step folder: its files by name, and the run's
// error.
type doneData struct {
	Files map[string][]byte `json:"files"`
	Error string            `json:"error,omitempty"`
}

// maxLine bounds one protocol line: a step folder's files at the end of a
// long run with many kinds are the largest.
const maxLine = 1 << 30

// conn reads and writes messages; writes are safe from several
// goroutines.
type conn struct {
	mu  sync.Mutex
	w   io.Writer
	enc *json.Encoder
	r   *bufio.Reader
}

func newConn(r io.Reader, w io.Writer) *conn {
	return &conn{w: w, enc: json.NewEncoder(w), r: bufio.NewReaderSize(r, 64<<10)}
}

func (c *conn) send(m message) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.enc.Encode(m)
}

// errLineTooLong is a protocol line longer than maxLine.
var errLineTooLong = errors.New("a protocol line is too long")

// receive reads the next message; io.EOF when the other side closed.
func (c *conn) receive() (message, error) {
	var line []byte
	for {
		chunk, isPrefix, err := c.r.ReadLine()
		if err != nil {
			if err == io.EOF && len(line) > 0 {
				err = io.ErrUnexpectedEOF
			}
			return message{}, err
		}
		line = append(line, chunk...)
		if len(line) > maxLine {
			return message{}, errLineTooLong
		}
		if !isPrefix {
			break
		}
	}
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		return message{}, fmt.Errorf("a protocol line does not parse (%.60q): %w", line, err)
	}
	return m, nil
}
