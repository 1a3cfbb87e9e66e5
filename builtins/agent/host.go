package agent

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/starbench/starbench/builtins/ssh"
	"github.com/starbench/starbench/builtins/telemetry"
)

// HostSource reads a host over SSH for a plan's telemetry: one agent on
// the host, started at the first reading and kept for the run (not a
// command a sample), which reads the host's /proc when asked; the
// reading's time is moved into this host's clock by the offset measured
// when the agent started. An agent that is lost is started again at the
// next reading.
type HostSource struct {
	name, address string
	connect       func(ctx context.Context) (*ssh.Client, error)
	processes     []string
	binaries      Binaries

	mu   sync.Mutex
	sess *Session
	next int
}

// NewHostSource is a source named name reading the host at address, to
// which connect connects, and the processes of these command names.
func NewHostSource(name, address string, connect func(ctx context.Context) (*ssh.Client, error), processes []string) *HostSource {
	return &HostSource{name: name, address: address, connect: connect, processes: processes, binaries: DefaultBinaries()}
}

func (h *HostSource) Name() string   { return h.name }
func (h *HostSource) Kind() string   { return "host" }
func (h *HostSource) Source() string { return "ssh " + h.address }

// Derive adds the host's figures to a point.
func (h *HostSource) Derive(values map[string]float64) { telemetry.DeriveHost(values) }

// startTimeout bounds starting the agent (installing it included), which
// the first reading of a step waits for.
const startTimeout = 60 * time.Second

// Read reads the host once, starting its agent when it has none.
func (h *HostSource) Read(ctx context.Context) (telemetry.Reading, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.sess == nil {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), startTimeout)
		defer cancel()
		c, err := h.connect(sctx)
		if err != nil {
			return telemetry.Reading{}, fmt.Errorf("host %s: %w", h.address, err)
		}
		sess, err := StartSSH(sctx, c, SSHOptions{Binaries: h.binaries})
		if err != nil {
			return telemetry.Reading{}, err
		}
		sess.keepAlive()
		h.sess = sess
	}
	h.next++
	r, err := h.sess.sample(ctx, h.next, h.processes)
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		h.sess.Close()
		h.sess = nil
	}
	return r, err
}

// Close ends the host's agent.
func (h *HostSource) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.sess != nil {
		h.sess.Close()
		h.sess = nil
	}
	return nil
}

// keepAlive sends the agent a heartbeat every second until the session
// closes, so that an agent kept between steps stays.
func (s *Session) keepAlive() {
	s.beatOnce.Do(func() {
		stop := make(chan struct{})
		s.stopBeat = stop
		go s.heartbeat(stop)
	})
}

// sample asks the agent for a reading of its host, its time in this
// host's clock. The session must not be running a part.
func (s *Session) sample(ctx context.Context, id int, processes []string) (telemetry.Reading, error) {
	if err := s.c.send(message{Type: msgSample, Sample: &sampleRequest{ID: id, Processes: processes}}); err != nil {
		return telemetry.Reading{}, s.gone("while its host was read")
	}
	m, err := s.await(ctx, "while its host was read", func(m message) bool {
		return m.Type == msgReading && m.Reading != nil && m.Reading.ID == id
	})
	switch {
	case err != nil && err == ctx.Err():
		return telemetry.Reading{}, fmt.Errorf("host %s: no reading: %w", s.Host, ctx.Err())
	case err != nil:
		return telemetry.Reading{}, err
	case m.Reading.Error != "":
		return telemetry.Reading{}, fmt.Errorf("host %s: %s", s.Host, m.Reading.Error)
	}
	r := m.Reading.Reading
	r.Time = r.Time.Add(-s.Offset)
	return r, nil
}
