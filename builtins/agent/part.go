package agent

import (
	"context"
	"fmt"
	"io"

	"github.com/go-sql-driver/mysql"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/ssh"
	"github.com/starbench/starbench/runner/results"
)

// Part is a part of a step that an agent runs: on a client host over SSH
// (Connect set) or on this host, bound to CPUs or a NUMA node.
type Part struct {
	// Connect returns the connection to the client host (nil: this host).
	Connect func(ctx context.Context) (*ssh.Client, error)
	// Address names the client host before it is connected.
	Address   string
	Placement Placement
	Request   RunRequest
	Binaries  Binaries
}

// Endpoints makes a request's endpoints from connection configurations
// and their session settings. A configuration with a TLS setup cannot be
// sent (its certificates are files on this host): an error wrapping
// ErrBadInput.
func Endpoints(cfgs []*mysql.Config, init []string) ([]Endpoint, error) {
	var out []Endpoint
	for _, cfg := range cfgs {
		if cfg.TLS != nil {
			return nil, bench.BadInput(fmt.Errorf("a part on another host cannot connect with TLS yet (its certificates are files on this host): " +
				"connect without tls= for this part"))
		}
		out = append(out, Endpoint{DSN: cfg.FormatDSN(), Init: init})
	}
	return out, nil
}

// Where names where the part runs, for step lists and messages.
func (p *Part) Where() string {
	where := "this host"
	if p.Connect != nil {
		where = "client host " + p.Address
	}
	if p.Placement.Bound() {
		where += " (" + p.Placement.String() + ")"
	}
	return where
}

// Run is the step's Remote (bench.Step): it starts the agent, says on the
// step's output where it runs and how its clock stands, runs the part and
// ends the agent.
func (p *Part) Run(ctx context.Context, dir string, s bench.Step) (*results.Summary, error) {
	var out io.Writer = io.Discard
	if s.Output != nil {
		out = s.Output
	}
	logLine := func(line string) { fmt.Fprintln(out, line) }
	var sess *Session
	var err error
	if p.Connect == nil {
		sess, err = StartLocal(ctx, LocalOptions{Binary: p.Binaries.Self, Placement: p.Placement})
	} else {
		var c *ssh.Client
		if c, err = p.Connect(ctx); err != nil {
			return nil, fmt.Errorf("client host %s: %w", p.Address, err)
		}
		sess, err = StartSSH(ctx, c, SSHOptions{Binaries: p.Binaries, Placement: p.Placement, Log: logLine})
	}
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	logLine(fmt.Sprintf("agent on %s: starbench %s (%s/%s), clock offset %+.3f ms (round trip %.3f ms)",
		sess.where(), sess.Version, sess.OS, sess.Arch, float64(sess.Offset.Microseconds())/1000, float64(sess.RTT.Microseconds())/1000))
	return sess.RunPart(ctx, dir, p.Request, s)
}
