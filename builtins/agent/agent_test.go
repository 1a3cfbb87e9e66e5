package agent

import (
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/family"
)

// pipeAgent runs serve as an agent in this process, on pipes.
type pipeAgent struct {
	inR     *io.PipeReader
	inW     *io.PipeWriter
	outR    *io.PipeReader
	outW    *io.PipeWriter
	done    chan struct{}
	err     error
	stopped bool
}

func startPipeAgent(serve func(in io.Reader, out io.Writer) error) *pipeAgent {
	p := &pipeAgent{done: make(chan struct{})}
	p.inR, p.inW = io.Pipe()
	p.outR, p.outW = io.Pipe()
	go func() {
		p.err = serve(p.inR, p.outW)
		p.outW.Close()
		close(p.done)
	}()
	return p
}

func (p *pipeAgent) Stdin() io.WriteCloser { return p.inW }
func (p *pipeAgent) Stdout() io.Reader     { return p.outR }
func (p *pipeAgent) Done() <-chan struct{} { return p.done }
func (p *pipeAgent) Wait() (int, error)    { <-p.done; return 0, p.err }
func (p *pipeAgent) Kill()                 { p.inR.CloseWithError(errors.New("killed")); <-p.done }

func serveWith(o ServeOptions) func(in io.Reader, out io.Writer) error {
	return func(in io.Reader, out io.Writer) error { return Serve(context.Background(), in, out, o) }
}

// The offset measured is the agent's clock's lead; a family the agent
// lacks is the plan's error; closing the session ends the agent.
func TestSessionAgainstServe(t *testing.T) {
	proc := startPipeAgent(serveWith(ServeOptions{Version: "test", ClockSkew: 2 * time.Second,
		Family: func(string) (family.Family, bool) { return nil, false }}))
	s, err := Open(context.Background(), proc, "pipe", "", &tail{})
	if err != nil {
		t.Fatal(err)
	}
	if d := s.Offset - 2*time.Second; d.Abs() > 20*time.Millisecond || s.Version != "test" {
		t.Errorf("offset %v (want 2s), version %q", s.Offset, s.Version)
	}
	_, err = s.RunPart(context.Background(), t.TempDir(), RunRequest{Family: "nope"}, bench.Step{})
	if err == nil || !errors.Is(err, bench.ErrBadInput) || !strings.Contains(err.Error(), `agent on pipe: this agent (starbench test) has no workload family "nope"`) {
		t.Errorf("unknown family: %v", err)
	}
	s.Close()
	select {
	case <-proc.done:
	case <-time.After(5 * time.Second):
		t.Error("the agent did not end when its stdin closed")
	}
}

// An agent of another protocol version is refused, naming both.
func TestProtocolMismatch(t *testing.T) {
	proc := startPipeAgent(func(in io.Reader, out io.Writer) error {
		_, err := io.WriteString(out, `{"type":"hello","hello":{"protocol":99,"version":"v9"}}`+"\n")
		io.Copy(io.Discard, in)
		return err
	})
	_, err := Open(context.Background(), proc, "pipe", "", &tail{})
	if err == nil || !strings.Contains(err.Error(), "agent on pipe speaks protocol 99 (starbench v9), this coordinator "+strconv.Itoa(ProtocolVersion)) {
		t.Errorf("got %v", err)
	}
}

// An agent that hears nothing for its watchdog's time stops by itself.
func TestWatchdog(t *testing.T) {
	in, _ := io.Pipe()
	out, outW := io.Pipe()
	go io.Copy(io.Discard, out)
	done := make(chan error, 1)
	go func() {
		done <- Serve(context.Background(), in, outW, ServeOptions{Watchdog: 300 * time.Millisecond})
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrCoordinatorGone) || !strings.Contains(err.Error(), "no message for") {
			t.Errorf("got %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the watchdog did not fire")
	}
}
