// Package ssh is starbench's SSH client core: it owns connecting to remote
// hosts (key file, agent and password authentication, known_hosts
// verification with actionable errors, jump hosts, connect timeouts),
// running commands on them (exit codes, line streaming of stdout and
// stderr, environment, timeouts that kill the remote command, detection of
// dropped connections) and copying files over plain exec channels with
// sha256 verification and atomic replacement on both sides.
//
// It is a plain Go library over golang.org/x/crypto/ssh and does not know
// about Starlark; the plan-facing module wraps it.
//
// Remote commands are run by the login shell of the remote user, which must
// be a POSIX shell (sh, bash, dash, zsh, ksh); file copies need cat, mv,
// chmod, rm and sha256sum (or shasum) on the remote host.
package ssh

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	xssh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
)

// DefaultConnectTimeout bounds the TCP connect and SSH handshake of one hop
// when Spec.ConnectTimeout is zero.
const DefaultConnectTimeout = 15 * time.Second

// Keep-alive probing: a connection whose server does not answer a global
// request within keepAliveTimeout is closed (and counts as lost), so that a
// host that vanishes without closing TCP does not hang a run forever.
var (
	keepAliveInterval = 30 * time.Second
	keepAliveTimeout  = 60 * time.Second
)

// ErrConnectionLost is wrapped by errors returned when the SSH connection
// drops (the server side dies, the network goes away) while, or before, an
// operation runs.
var ErrConnectionLost = errors.New("ssh connection lost")

// Spec says how to reach and log in to a host.
type Spec struct {
	User string // "" means the current OS user
	Host string // name or IP address (IPv6 without brackets)
	Port int    // 0 means 22

	// Authentication. Several may be given; they are tried in the order
	// key file, agent, password. When none is given, the agent (if
	// SSH_AUTH_SOCK is set) and the unencrypted default keys
	// ~/.ssh/id_ed25519, id_ecdsa and id_rsa are tried.
	KeyFile     string // private key file; ~ is expanded
	Agent       bool   // use the agent at $SSH_AUTH_SOCK
	PasswordEnv string // name of the environment variable holding the password

	// Host key verification against KnownHosts ("" means ~/.ssh/known_hosts
	// plus /etc/ssh/ssh_known_hosts when it exists), unless
	// InsecureIgnoreHostKey is set.
	KnownHosts            string
	InsecureIgnoreHostKey bool

	// Jump, when set, is a host to connect through (like ssh -J). Its empty
	// KnownHosts, ConnectTimeout and authentication fields (when it has
	// none of KeyFile, Agent, PasswordEnv) are taken from this Spec.
	Jump *Spec

	ConnectTimeout time.Duration // per hop; 0 means DefaultConnectTimeout
}

// ParseAddress parses "user@host:port", "user@host", "host:port", "host",
// "[::1]:22", "user@[::1]" or a bare IPv6 address. The user defaults to the
// current OS user and the port to 22.
func ParseAddress(s string) (userName, host string, port int, err error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", "", 0, errors.New("ssh: empty address")
	}
	rest := s
	if i := strings.LastIndex(rest, "@"); i >= 0 {
		userName, rest = rest[:i], rest[i+1:]
		if userName == "" {
			return "", "", 0, fmt.Errorf("ssh: address %q: empty user before @", s)
		}
	}
	port = 22
	switch {
	case strings.HasPrefix(rest, "["):
		end := strings.Index(rest, "]")
		if end < 0 {
			return "", "", 0, fmt.Errorf("ssh: address %q: missing ]", s)
		}
		host = rest[1:end]
		after := rest[end+1:]
		if after != "" {
			if !strings.HasPrefix(after, ":") {
				return "", "", 0, fmt.Errorf("ssh: address %q: unexpected %q after ]", s, after)
			}
			if port, err = parsePort(s, after[1:]); err != nil {
				return "", "", 0, err
			}
		}
	case strings.Count(rest, ":") == 1:
		i := strings.Index(rest, ":")
		host = rest[:i]
		if port, err = parsePort(s, rest[i+1:]); err != nil {
			return "", "", 0, err
		}
	default: // a name, an IPv4 address or a bare IPv6 address
		host = rest
	}
	if host == "" {
		return "", "", 0, fmt.Errorf("ssh: address %q: empty host", s)
	}
	if strings.ContainsAny(host, " \t\n/@") {
		return "", "", 0, fmt.Errorf("ssh: address %q: invalid host %q", s, host)
	}
	if userName == "" {
		if userName, err = currentUser(); err != nil {
			return "", "", 0, err
		}
	}
	return userName, host, port, nil
}

func parsePort(addr, p string) (int, error) {
	n, err := strconv.Atoi(p)
	if err != nil || n < 1 || n > 65535 {
		return 0, fmt.Errorf("ssh: address %q: invalid port %q (want 1-65535)", addr, p)
	}
	return n, nil
}

func currentUser() (string, error) {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username, nil
	}
	if u := os.Getenv("USER"); u != "" {
		return u, nil
	}
	return "", errors.New("ssh: cannot determine the current user; give one as user@host")
}

// expandHome expands a leading ~ or ~user.
func expandHome(p string) (string, error) {
	if !strings.HasPrefix(p, "~") {
		return p, nil
	}
	name, rest, _ := strings.Cut(p[1:], "/")
	var home string
	if name == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("expand %q: %w", p, err)
		}
		home = h
	} else {
		u, err := user.Lookup(name)
		if err != nil {
			return "", fmt.Errorf("expand %q: %w", p, err)
		}
		home = u.HomeDir
	}
	return filepath.Join(home, rest), nil
}

// Client is a connection to one host. It is safe for concurrent use: each
// Run and file operation opens its own session.
type Client struct {
	conn   *xssh.Client
	jump   *Client
	closer []func() error // agent connections
	addr   string         // host:port
	user   string

	dead     chan struct{} // closed when the connection is gone
	deadErr  error         // why, set before dead is closed
	closing  chan struct{}
	closeMu  sync.Mutex
	closed   bool
	closeErr error
}

// Addr returns the "host:port" the client is connected to.
func (c *Client) Addr() string { return c.addr }

// User returns the user the client is logged in as.
func (c *Client) User() string { return c.user }

// Close closes the connection (and the jump host connection, if any).
func (c *Client) Close() error {
	c.closeMu.Lock()
	defer c.closeMu.Unlock()
	if c.closed {
		return c.closeErr
	}
	c.closed = true
	close(c.closing)
	err := c.conn.Close()
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	for _, f := range c.closer {
		f()
	}
	if c.jump != nil {
		if jerr := c.jump.Close(); err == nil {
			err = jerr
		}
	}
	c.closeErr = err
	return err
}

// Alive reports whether the connection is still up.
func (c *Client) Alive() bool {
	select {
	case <-c.dead:
		return false
	default:
		return true
	}
}

// lost reports whether the connection has dropped, waiting up to grace for
// the transport to notice.
func (c *Client) lost(grace time.Duration) bool {
	select {
	case <-c.dead:
	default:
		if grace <= 0 {
			return false
		}
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-c.dead:
		case <-t.C:
			return false
		}
	}
	select {
	case <-c.closing:
		return false // closed by us, not lost
	default:
		return true
	}
}

func (c *Client) lostError(what string) error {
	cause := c.deadErr
	msg := fmt.Sprintf("%v: the connection to %s dropped %s (the server closed it, died or became unreachable)", ErrConnectionLost, c.addr, what)
	if cause != nil && !errors.Is(cause, net.ErrClosed) {
		msg += ": " + cause.Error()
	}
	return &lostError{msg: msg}
}

type lostError struct{ msg string }

func (e *lostError) Error() string        { return e.msg }
func (e *lostError) Is(target error) bool { return target == ErrConnectionLost }

func (c *Client) watch() {
	err := c.conn.Wait()
	c.deadErr = err
	close(c.dead)
}

func (c *Client) keepAlive() {
	t := time.NewTicker(keepAliveInterval)
	defer t.Stop()
	for {
		select {
		case <-c.dead:
			return
		case <-c.closing:
			return
		case <-t.C:
		}
		replied := make(chan struct{})
		go func() {
			c.conn.SendRequest("keepalive@openssh.com", true, nil)
			close(replied)
		}()
		select {
		case <-replied:
		case <-c.dead:
			return
		case <-c.closing:
			return
		case <-time.After(keepAliveTimeout):
			c.conn.Close() // no answer: treat as lost
			return
		}
	}
}

// resolved is a Spec with defaults applied.
type resolved struct {
	Spec
	addr string
}

func resolve(spec Spec) (resolved, error) {
	if spec.Host == "" {
		return resolved{}, errors.New("ssh: no host given")
	}
	if spec.User == "" {
		u, err := currentUser()
		if err != nil {
			return resolved{}, err
		}
		spec.User = u
	}
	if spec.Port == 0 {
		spec.Port = 22
	}
	if spec.Port < 0 || spec.Port > 65535 {
		return resolved{}, fmt.Errorf("ssh: invalid port %d", spec.Port)
	}
	if spec.ConnectTimeout <= 0 {
		spec.ConnectTimeout = DefaultConnectTimeout
	}
	return resolved{Spec: spec, addr: net.JoinHostPort(spec.Host, strconv.Itoa(spec.Port))}, nil
}

// Dial connects and authenticates to spec's host, through spec.Jump when
// set. Each hop's TCP connect and handshake are bounded by its
// ConnectTimeout and by ctx; once connected, ctx no longer matters.
func Dial(ctx context.Context, spec Spec) (*Client, error) {
	r, err := resolve(spec)
	if err != nil {
		return nil, err
	}
	var jump *Client
	if spec.Jump != nil {
		j := *spec.Jump
		if j.KnownHosts == "" {
			j.KnownHosts = spec.KnownHosts
		}
		if j.ConnectTimeout == 0 {
			j.ConnectTimeout = spec.ConnectTimeout
		}
		if j.KeyFile == "" && !j.Agent && j.PasswordEnv == "" {
			j.KeyFile, j.Agent, j.PasswordEnv = spec.KeyFile, spec.Agent, spec.PasswordEnv
		}
		jump, err = Dial(ctx, j)
		if err != nil {
			return nil, fmt.Errorf("ssh: connect to %s via jump host: %w", r.addr, err)
		}
	}
	c, err := dialHop(ctx, r, jump)
	if err != nil {
		if jump != nil {
			jump.Close()
			return nil, fmt.Errorf("%w (via jump host %s)", err, jump.addr)
		}
		return nil, err
	}
	return c, nil
}

// dialHop connects and authenticates to r's host, directly or through
// jump, within r.ConnectTimeout and ctx.
func dialHop(ctx context.Context, r resolved, jump *Client) (*Client, error) {
	auths, closers, err := authMethods(r.Spec)
	if err != nil {
		return nil, fmt.Errorf("ssh: connect to %s@%s: %w", r.User, r.addr, err)
	}
	h := &hopDial{r: r, jump: jump, closers: closers}
	hk, err := newHostKeyChecker(r.Spec, r.addr)
	if err != nil {
		h.closeAll()
		return nil, err
	}
	cfg := &xssh.ClientConfig{
		User:              r.User,
		Auth:              auths,
		HostKeyCallback:   hk.callback,
		HostKeyAlgorithms: hk.algorithms,
		Timeout:           r.ConnectTimeout,
	}
	hctx, cancel := context.WithTimeout(ctx, r.ConnectTimeout)
	defer cancel()
	h.ctx, h.hctx = ctx, hctx
	conn, err := h.connect()
	if err != nil {
		return nil, err
	}
	sshConn, err := h.handshake(conn, cfg, hk)
	if err != nil {
		return nil, err
	}
	c := &Client{
		conn:    sshConn,
		jump:    jump,
		closer:  closers,
		addr:    r.addr,
		user:    r.User,
		dead:    make(chan struct{}),
		closing: make(chan struct{}),
	}
	go c.watch()
	go c.keepAlive()
	return c, nil
}

// hopDial is one attempt of dialHop: the hop, the jump host it goes
// through (nil for none), what releases its authentication methods, and
// its contexts. It lives only as long as the attempt.
type hopDial struct {
	r       resolved
	jump    *Client
	closers []func() error  // release the agent connections
	ctx     context.Context // the caller's (set once the attempt starts)
	hctx    context.Context // ctx bounded by the hop's connect timeout
}

// closeAll releases the authentication methods.
func (h *hopDial) closeAll() {
	for _, f := range h.closers {
		f()
	}
}

// fail releases the authentication methods and returns err, or rather
// the caller's context's error or the connect timeout when one of those
// ended the attempt.
func (h *hopDial) fail(err error) error {
	h.closeAll()
	if h.ctx.Err() != nil {
		return fmt.Errorf("ssh: connect to %s: %w", h.r.addr, h.ctx.Err())
	}
	if h.hctx.Err() != nil {
		return fmt.Errorf("ssh: connect to %s: timed out after %v (connect timeout)", h.r.addr, h.r.ConnectTimeout)
	}
	return err
}

// connect opens the TCP connection to the hop: through the jump host
// when there is one, else directly.
func (h *hopDial) connect() (net.Conn, error) {
	r := h.r
	if h.jump != nil {
		conn, err := h.jump.conn.DialContext(h.hctx, "tcp", r.addr)
		if err != nil {
			return nil, h.fail(fmt.Errorf("ssh: jump host %s could not open a connection to %s: %w", h.jump.addr, r.addr, err))
		}
		return conn, nil
	}
	var d net.Dialer
	conn, err := d.DialContext(h.hctx, "tcp", r.addr)
	if err != nil {
		return nil, h.fail(fmt.Errorf("ssh: connect to %s: %w", r.addr, err))
	}
	return conn, nil
}

// handshake runs the SSH handshake and authentication on conn, aborting
// it when hctx ends: closing the connection makes NewClientConn return.
// (Channel connections through a jump host do not support deadlines.) A
// rejected host key is reported as hk's error; a refused login with what
// was tried.
func (h *hopDial) handshake(conn net.Conn, cfg *xssh.ClientConfig, hk *hostKeyChecker) (*xssh.Client, error) {
	r := h.r
	done := make(chan struct{})
	aborted := make(chan bool, 1)
	go func() {
		select {
		case <-h.hctx.Done():
			conn.Close()
			aborted <- true
		case <-done:
			aborted <- false
		}
	}()
	sc, chans, reqs, err := xssh.NewClientConn(conn, r.addr, cfg)
	close(done)
	if <-aborted {
		if err == nil {
			sc.Close()
		}
		return nil, h.fail(fmt.Errorf("ssh: connect to %s: handshake aborted", r.addr))
	}
	if err != nil {
		conn.Close()
		h.closeAll()
		if hk.err != nil {
			return nil, hk.err
		}
		return nil, fmt.Errorf("ssh: connect to %s@%s: %w", r.User, r.addr, explainAuth(err, r.Spec))
	}
	return xssh.NewClient(sc, chans, reqs), nil
}

func explainAuth(err error, spec Spec) error {
	if !strings.Contains(err.Error(), "unable to authenticate") {
		return err
	}
	var tried []string
	if spec.KeyFile != "" {
		tried = append(tried, "key file "+spec.KeyFile)
	}
	if spec.Agent {
		tried = append(tried, "the SSH agent")
	}
	if spec.PasswordEnv != "" {
		tried = append(tried, "the password from $"+spec.PasswordEnv)
	}
	if len(tried) == 0 {
		tried = append(tried, "the default keys and agent")
	}
	return fmt.Errorf("%w (authentication as %q was refused; tried %s)", err, spec.User, strings.Join(tried, ", "))
}

// authMethods builds the authentication methods for spec. The closers
// release agent connections.
func authMethods(spec Spec) ([]xssh.AuthMethod, []func() error, error) {
	var (
		methods []xssh.AuthMethod
		closers []func() error
	)
	fail := func(err error) ([]xssh.AuthMethod, []func() error, error) {
		for _, f := range closers {
			f()
		}
		return nil, nil, err
	}
	explicit := spec.KeyFile != "" || spec.Agent || spec.PasswordEnv != ""
	if spec.KeyFile != "" {
		signer, err := loadKey(spec.KeyFile)
		if err != nil {
			return fail(err)
		}
		methods = append(methods, xssh.PublicKeys(signer))
	}
	if spec.Agent || !explicit {
		m, closer, err := agentAuth(spec.Agent)
		if err != nil {
			return fail(err)
		}
		if m != nil {
			closers = append(closers, closer)
			methods = append(methods, m)
		}
	}
	if spec.PasswordEnv != "" {
		pw, err := passwordAuth(spec.PasswordEnv)
		if err != nil {
			return fail(err)
		}
		methods = append(methods, pw...)
	}
	if !explicit {
		if m := defaultKeysAuth(); m != nil {
			methods = append(methods, m)
		}
		if len(methods) == 0 {
			return fail(errors.New("no authentication method: give a key file, the agent or a password environment variable (no agent at SSH_AUTH_SOCK and no unencrypted ~/.ssh/id_ed25519, id_ecdsa or id_rsa)"))
		}
	}
	return methods, closers, nil
}

// agentAuth connects to the SSH agent at $SSH_AUTH_SOCK and returns its
// keys as a method, with what closes the agent connection. Without a
// reachable agent it returns no method, and an error only when the agent
// was asked for (required).
func agentAuth(required bool) (xssh.AuthMethod, func() error, error) {
	sock := os.Getenv("SSH_AUTH_SOCK")
	switch {
	case sock == "" && required:
		return nil, nil, errors.New("agent authentication was asked for but SSH_AUTH_SOCK is not set (start ssh-agent and ssh-add your key)")
	case sock != "":
		conn, err := net.Dial("unix", sock)
		if err != nil {
			if required {
				return nil, nil, fmt.Errorf("connect to the SSH agent at SSH_AUTH_SOCK=%s: %w", sock, err)
			}
			return nil, nil, nil
		}
		return xssh.PublicKeysCallback(agent.NewClient(conn).Signers), conn.Close, nil
	}
	return nil, nil, nil
}

// passwordAuth answers password and keyboard-interactive prompts with the
// password in the environment variable env, which must be set and not
// empty.
func passwordAuth(env string) ([]xssh.AuthMethod, error) {
	pw, ok := os.LookupEnv(env)
	if !ok || pw == "" {
		return nil, fmt.Errorf("password authentication was asked for but the environment variable %s is not set or empty", env)
	}
	return []xssh.AuthMethod{
		xssh.Password(pw),
		xssh.KeyboardInteractive(func(_, _ string, questions []string, _ []bool) ([]string, error) {
			answers := make([]string, len(questions))
			for i := range answers {
				answers[i] = pw
			}
			return answers, nil
		}),
	}, nil
}

// defaultKeysAuth offers the default keys (~/.ssh/id_ed25519, id_ecdsa
// and id_rsa) that exist and load without a passphrase; nil when none
// does.
func defaultKeysAuth() xssh.AuthMethod {
	var signers []xssh.Signer
	for _, name := range []string{"id_ed25519", "id_ecdsa", "id_rsa"} {
		p, err := expandHome("~/.ssh/" + name)
		if err != nil {
			continue
		}
		if s, err := loadKey(p); err == nil {
			signers = append(signers, s)
		}
	}
	if len(signers) == 0 {
		return nil
	}
	return xssh.PublicKeys(signers...)
}

func loadKey(path string) (xssh.Signer, error) {
	p, err := expandHome(path)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("read private key: %w", err)
	}
	signer, err := xssh.ParsePrivateKey(data)
	if err != nil {
		var pm *xssh.PassphraseMissingError
		if errors.As(err, &pm) {
			return nil, fmt.Errorf("private key %s is protected by a passphrase: load it into ssh-agent (ssh-add %s) and use the agent", p, p)
		}
		return nil, fmt.Errorf("parse private key %s: %w", p, err)
	}
	return signer, nil
}
