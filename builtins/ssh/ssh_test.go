package ssh_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	xssh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/starbench/starbench/builtins/ssh"
	"github.com/starbench/starbench/internal/testutil/sshtest"
)

func dial(t *testing.T, spec ssh.Spec) *ssh.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := ssh.Dial(ctx, spec)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func run(t *testing.T, c *ssh.Client, cmd string, o ssh.RunOptions) *ssh.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := c.Run(ctx, cmd, o)
	if err != nil {
		t.Fatalf("run %q: %v", cmd, err)
	}
	return res
}

func TestParseAddress(t *testing.T) {
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		in, user, host string
		port           int
	}{
		{"bench@db1:2222", "bench", "db1", 2222},
		{"db1", me.Username, "db1", 22},
		{"db1:23", me.Username, "db1", 23},
		{"bench@10.0.0.5", "bench", "10.0.0.5", 22},
		{"user@[::1]:22", "user", "::1", 22},
		{"[fe80::1]:2200", me.Username, "fe80::1", 2200},
		{"[::1]", me.Username, "::1", 22},
		{"::1", me.Username, "::1", 22},
		{"a@b@host", "a@b", "host", 22},
	} {
		u, h, p, err := ssh.ParseAddress(tc.in)
		if err != nil || u != tc.user || h != tc.host || p != tc.port {
			t.Errorf("ParseAddress(%q) = %q, %q, %d, %v; want %q, %q, %d", tc.in, u, h, p, err, tc.user, tc.host, tc.port)
		}
	}
	for _, bad := range []string{"", "@host", "user@", "host:0", "host:70000", "host:x", "[::1", "[::1]x", "user@:22"} {
		if _, _, _, err := ssh.ParseAddress(bad); err == nil {
			t.Errorf("ParseAddress(%q): no error", bad)
		}
	}
}

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"":          "''",
		"plain":     "plain",
		"/a/b-c.d":  "/a/b-c.d",
		"a b":       "'a b'",
		"it's":      `'it'\''s'`,
		"$HOME":     "'$HOME'",
		"a\nb":      "'a\nb'",
		"'":         `''\'''`,
		"--x=1,2:3": "--x=1,2:3",
	} {
		if got := ssh.Quote(in); got != want {
			t.Errorf("Quote(%q) = %s; want %s", in, got, want)
		}
	}
	if got := ssh.QuoteArgs("echo", "a b", "c"); got != "echo 'a b' c" {
		t.Errorf("QuoteArgs = %s", got)
	}
}

// tricky values for quoting and environment round trips.
var tricky = []string{
	"", "plain", "with space", "  leading and trailing  ", "it's", "'", "''", `"double"`,
	"$HOME", "${PATH}", "`id`", "$(id)", "a\nb\n", "tab\there", `back\slash\n`, "*", "?", "[a]",
	"!bang", "semi;colon", "pipe|amp&", "<redir>", "#hash", "~tilde", "é ünïcödé ✓", "-n", "--",
	"percent %s %d",
}

func TestQuoteRoundTrip(t *testing.T) {
	srv := sshtest.Start(t)
	c := dial(t, srv.Spec())
	// printf is exact; echo in dash interprets backslashes and -n.
	res := run(t, c, "printf '%s\\0' "+ssh.QuoteArgs(tricky...), ssh.RunOptions{})
	got := strings.Split(res.Stdout, "\x00")
	got = got[:len(got)-1]
	if len(got) != len(tricky) {
		t.Fatalf("got %d args, want %d: %q", len(got), len(tricky), got)
	}
	for i := range tricky {
		if got[i] != tricky[i] {
			t.Errorf("arg %d: got %q, want %q", i, got[i], tricky[i])
		}
	}
	// echo with the values echo prints literally.
	for _, v := range []string{"it's a 'test'", "$HOME and `id` and $(id)", "two\nlines", "  spaced  ", "a;b|c&d"} {
		res := run(t, c, "echo "+ssh.Quote(v), ssh.RunOptions{})
		if res.Stdout != v+"\n" {
			t.Errorf("echo %s: got %q, want %q", ssh.Quote(v), res.Stdout, v+"\n")
		}
	}
}

func TestRunExitCodesAndStreams(t *testing.T) {
	srv := sshtest.Start(t)
	c := dial(t, srv.Spec())
	if c.Addr() != srv.Addr {
		t.Errorf("Addr = %q, want %q", c.Addr(), srv.Addr)
	}

	res := run(t, c, "echo hello", ssh.RunOptions{})
	if res.ExitCode != 0 || res.Stdout != "hello\n" || res.Stderr != "" {
		t.Errorf("echo: %+v", res)
	}
	res = run(t, c, "echo out; echo err >&2; exit 3", ssh.RunOptions{})
	if res.ExitCode != 3 || res.Stdout != "out\n" || res.Stderr != "err\n" {
		t.Errorf("exit 3: %+v", res)
	}
	res = run(t, c, "kill -TERM $$", ssh.RunOptions{})
	if res.ExitCode != 128+15 {
		t.Errorf("killed by TERM: exit code %d, want 143", res.ExitCode)
	}
	res = run(t, c, "cat; echo done", ssh.RunOptions{Stdin: strings.NewReader("from stdin\n")})
	if res.Stdout != "from stdin\ndone\n" {
		t.Errorf("stdin: %q", res.Stdout)
	}

	// Lines arrive while the command runs, each stream in order.
	type line struct {
		s  string
		at time.Time
	}
	var mu sync.Mutex
	var outs, errs []line
	start := time.Now()
	res = run(t, c, "echo out1; echo err1 >&2; sleep 1; echo out2; printf 'err2-no-newline' >&2", ssh.RunOptions{
		OnStdout: func(s string) { mu.Lock(); outs = append(outs, line{s, time.Now()}); mu.Unlock() },
		OnStderr: func(s string) { mu.Lock(); errs = append(errs, line{s, time.Now()}); mu.Unlock() },
	})
	end := time.Now()
	if res.Stdout != "out1\nout2\n" || res.Stderr != "err1\nerr2-no-newline" {
		t.Errorf("collected: %+v", res)
	}
	if len(outs) != 2 || outs[0].s != "out1" || outs[1].s != "out2" {
		t.Fatalf("stdout lines: %+v", outs)
	}
	if len(errs) != 2 || errs[0].s != "err1" || errs[1].s != "err2-no-newline" {
		t.Fatalf("stderr lines: %+v", errs)
	}
	if end.Sub(outs[0].at) < 700*time.Millisecond || end.Sub(errs[0].at) < 700*time.Millisecond {
		t.Errorf("first lines were not streamed: out1 at %v, err1 at %v, run ended at %v",
			outs[0].at.Sub(start), errs[0].at.Sub(start), end.Sub(start))
	}
}

func TestRunOutputCap(t *testing.T) {
	srv := sshtest.Start(t)
	c := dial(t, srv.Spec())
	lines := 0
	// 20 MiB of 1 KiB lines: head -c from /dev/zero, turned into lines.
	res := run(t, c, "head -c 20971520 /dev/zero | tr '\\0' 'x' | fold -w 1023", ssh.RunOptions{
		OnStdout: func(string) { lines++ },
	})
	if !res.StdoutTruncated || !strings.Contains(res.Stdout, "output truncated") || len(res.Stdout) > ssh.MaxCollected+100 {
		t.Errorf("truncated=%v len=%d", res.StdoutTruncated, len(res.Stdout))
	}
	if want := 20 << 10 * 1024 / 1023; lines < want {
		t.Errorf("callback saw %d lines, want at least %d", lines, want)
	}
}

func TestRunEnv(t *testing.T) {
	srv := sshtest.Start(t)
	c := dial(t, srv.Spec())
	env := map[string]string{}
	var names []string
	for i, v := range tricky {
		k := fmt.Sprintf("SB_VAR_%d", i)
		env[k] = v
		names = append(names, `"$`+k+`"`)
	}
	res := run(t, c, "printf '%s\\0' "+strings.Join(names, " "), ssh.RunOptions{Env: env})
	got := strings.Split(res.Stdout, "\x00")
	for i, v := range tricky {
		if i >= len(got) || got[i] != v {
			t.Errorf("SB_VAR_%d: got %q, want %q", i, got[min(i, len(got)-1)], v)
		}
	}
	// The variables are exported, not just set.
	res = run(t, c, "sh -c 'printf %s \"$SB_X\"'", ssh.RunOptions{Env: map[string]string{"SB_X": "it's exported"}})
	if res.Stdout != "it's exported" {
		t.Errorf("exported: %q", res.Stdout)
	}
	if _, err := c.Run(context.Background(), "true", ssh.RunOptions{Env: map[string]string{"BAD-NAME": "x"}}); err == nil {
		t.Error("invalid env name: no error")
	}
}

func TestRunTimeoutKillsCommand(t *testing.T) {
	srv := sshtest.Start(t)
	c := dial(t, srv.Spec())
	for _, cmd := range []string{
		"sleep 31",                          // the shell may exec sleep
		"echo started; sleep 32; echo late", // sleep is a child of the shell
	} {
		start := time.Now()
		res, err := c.Run(context.Background(), cmd, ssh.RunOptions{Timeout: time.Second, Env: map[string]string{"SB_SECRET": "hunter2"}})
		took := time.Since(start)
		if err == nil || !strings.Contains(err.Error(), "timed out after 1s") {
			t.Fatalf("%s: err = %v", cmd, err)
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%s: the error shows an environment value: %v", cmd, err)
		}
		if took > 5*time.Second {
			t.Errorf("%s: returned after %v", cmd, took)
		}
		if res == nil || strings.Contains(res.Stdout, "late") {
			t.Errorf("%s: result %+v", cmd, res)
		}
		t.Logf("%s: returned after %v: %v", cmd, took, err)
	}
	// The sleeps are gone ([3] keeps pgrep from matching its own shell).
	deadline := time.Now().Add(5 * time.Second)
	for {
		res := run(t, c, "pgrep -a -f 'sleep 3[12]'", ssh.RunOptions{})
		if res.ExitCode == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("remote sleep still running: %s", res.Stdout)
		}
		time.Sleep(100 * time.Millisecond)
	}

	// Cancelling the context also kills the command.
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	var once sync.Once
	go func() { <-started; cancel() }()
	res, err := c.Run(ctx, "echo started; sleep 33", ssh.RunOptions{OnStdout: func(string) { once.Do(func() { close(started) }) }})
	if !errors.Is(err, context.Canceled) || res.Stdout != "started\n" {
		t.Fatalf("cancel: %v, %+v", err, res)
	}
	deadline = time.Now().Add(5 * time.Second)
	for run(t, c, "pgrep -f 'sleep 3[3]'", ssh.RunOptions{}).ExitCode != 1 {
		if time.Now().After(deadline) {
			t.Fatal("remote sleep still running after cancel")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestUploadDownload50MB(t *testing.T) {
	srv := sshtest.Start(t)
	c := dial(t, srv.Spec())
	dir := t.TempDir()
	src := filepath.Join(dir, "src.bin")
	data := make([]byte, 50<<20)
	rand.Read(data)
	if err := os.WriteFile(src, data, 0o640); err != nil {
		t.Fatal(err)
	}
	want := sha256.Sum256(data)
	data = nil

	remote := filepath.Join(srv.Dir, "remote.bin")
	ctx := context.Background()
	start := time.Now()
	if err := c.Upload(ctx, src, remote); err != nil {
		t.Fatalf("upload: %v", err)
	}
	t.Logf("upload 50 MiB: %v", time.Since(start))
	res := run(t, c, "sha256sum "+ssh.Quote(remote)+"; stat -c %a "+ssh.Quote(remote), ssh.RunOptions{})
	if !strings.HasPrefix(res.Stdout, fmt.Sprintf("%x ", want)) || !strings.HasSuffix(res.Stdout, "\n640\n") {
		t.Errorf("remote file: %q, want sha256 %x and mode 640", res.Stdout, want)
	}
	if res := run(t, c, "ls "+ssh.Quote(srv.Dir), ssh.RunOptions{}); strings.Contains(res.Stdout, "starbench-tmp") {
		t.Errorf("temp file left behind: %s", res.Stdout)
	}
	interruptedUpload(t, srv, c, src, remote+".2")

	dst := filepath.Join(dir, "dst.bin")
	start = time.Now()
	if err := c.Download(ctx, remote, dst); err != nil {
		t.Fatalf("download: %v", err)
	}
	t.Logf("download 50 MiB: %v", time.Since(start))
	f, err := os.Open(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	if got := h.Sum(nil); !bytes.Equal(got, want[:]) {
		t.Errorf("downloaded sha256 %x, want %x", got, want)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("local dir has %d entries, want 2 (a temp file left behind?)", len(entries))
	}

	// Errors name the path and say what went wrong.
	err = c.Download(ctx, filepath.Join(srv.Dir, "missing"), filepath.Join(dir, "x"))
	if err == nil || !strings.Contains(err.Error(), "No such file") {
		t.Errorf("download of a missing file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); !os.IsNotExist(err) {
		t.Errorf("failed download left %s", filepath.Join(dir, "x"))
	}
	err = c.Upload(ctx, src, filepath.Join(srv.Dir, "no-such-dir", "f"))
	if err == nil || !strings.Contains(err.Error(), "no-such-dir") {
		t.Errorf("upload into a missing directory: %v", err)
	}
}

// interruptedUpload cancels an upload of src to remote while it is
// provably under way, and checks that it returns the context's error and
// leaves neither the file, nor its temp file, nor a process behind. No
// clock decides when: the upload goes through a gate that holds its bytes
// once 16 MiB have passed (the server's channel window is far smaller, so
// by then the remote cat has written most of them to the temp file); the
// remote cat is stopped (SIGSTOP), so the upload cannot complete; then the
// gate opens and the context is cancelled.
func interruptedUpload(t *testing.T, srv *sshtest.Server, c *ssh.Client, src, remote string) {
	t.Helper()
	g := newGate(t, srv.Addr, 16<<20)
	spec := srv.Spec()
	spec.Port = g.port
	spec.KnownHosts = filepath.Join(t.TempDir(), "known_hosts")
	line := knownhosts.Line([]string{knownhosts.Normalize(g.addr)}, srv.HostKey) + "\n"
	if err := os.WriteFile(spec.KnownHosts, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	gc := dial(t, spec)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- gc.Upload(ctx, src, remote) }()
	select {
	case <-g.held:
	case err := <-done:
		t.Fatalf("the upload ended before 16 MiB went through: %v", err)
	case <-time.After(2 * time.Minute): // only against a hang
		t.Fatal("16 MiB of the upload did not go through in 2 minutes")
	}

	// The remote shell copying the upload (its command line holds the temp
	// path; the brackets keep pgrep from matching its own shell) and its cat.
	base := filepath.Base(remote)
	pattern := ssh.Quote(strings.ReplaceAll(base, ".", "[.]") + "[.]starbench-tmp-")
	tmps := ssh.Quote(filepath.Dir(remote)) + "/" + ssh.Quote(base) + ".starbench-tmp-*"
	res := run(t, c, "p=$(pgrep -d, -f "+pattern+") && pkill -STOP -x -P \"$p\" cat && stat -c %s "+tmps, ssh.RunOptions{})
	size, err := strconv.ParseInt(strings.TrimSpace(res.Stdout), 10, 64)
	if res.ExitCode != 0 || err != nil || size <= 0 || size >= 50<<20 {
		g.open()
		t.Fatalf("want the upload's cat stopped and one partial temp file: exit code %d, %q %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	g.open()
	cancel()
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute): // only against a hang
		t.Fatal("the upload did not return within 2 minutes of its cancellation")
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("interrupted upload: %v, want context.Canceled", err)
	}
	res = run(t, c, "ls -a "+ssh.Quote(filepath.Dir(remote))+"; pgrep -a -f "+pattern, ssh.RunOptions{})
	if strings.Contains(res.Stdout, "starbench-tmp") || strings.Contains(res.Stdout, base+"\n") {
		t.Errorf("the upload cancelled with %d bytes in its temp file left files or processes:\n%s", size, res.Stdout)
	}
	t.Logf("upload cancelled with %d bytes in its temp file: %v", size, err)
}

// gate relays one TCP connection to target and holds what the client
// sends once limit bytes have gone through, until open is called.
type gate struct {
	addr string
	port int
	held chan struct{} // closed when the limit is reached
	open func()
}

func newGate(t *testing.T, target string, limit int64) *gate {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	resume := make(chan struct{})
	var once sync.Once
	g := &gate{addr: ln.Addr().String(), port: ln.Addr().(*net.TCPAddr).Port, held: make(chan struct{}),
		open: func() { once.Do(func() { close(resume) }) }}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		g.open()
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		client, err := ln.Accept()
		if err != nil {
			return
		}
		server, err := net.Dial("tcp", target)
		if err != nil {
			client.Close()
			return
		}
		mu.Lock()
		conns = append(conns, client, server)
		mu.Unlock()
		wg.Add(1)
		go func() { defer wg.Done(); io.Copy(client, server); client.Close() }()
		var sent int64
		buf := make([]byte, 32<<10)
		for {
			n, err := client.Read(buf)
			if n > 0 {
				if _, err := server.Write(buf[:n]); err != nil {
					break
				}
				if sent < limit && sent+int64(n) >= limit {
					close(g.held)
					<-resume
				}
				sent += int64(n)
			}
			if err != nil {
				break
			}
		}
		server.Close()
	}()
	return g
}

func TestWriteReadFile(t *testing.T) {
	srv := sshtest.Start(t)
	c := dial(t, srv.Spec())
	ctx := context.Background()
	path := filepath.Join(srv.Dir, "it's a file.cnf")
	data := []byte("[mysqld]\nmax_connections = 2000\n\x00binary\xff'$HOME\n")
	if err := c.WriteFile(ctx, path, data, 0o600); err != nil {
		t.Fatalf("write: %v", err)
	}
	got, err := c.ReadFile(ctx, path)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	if !bytes.Equal(got, data) {
		t.Errorf("read %q, want %q", got, data)
	}
	if res := run(t, c, "stat -c %a "+ssh.Quote(path), ssh.RunOptions{}); res.Stdout != "600\n" {
		t.Errorf("mode: %q, want 600", res.Stdout)
	}
	// Overwrite with another mode; empty content.
	if err := c.WriteFile(ctx, path, nil, 0o755); err != nil {
		t.Fatalf("overwrite: %v", err)
	}
	if got, err := c.ReadFile(ctx, path); err != nil || len(got) != 0 {
		t.Errorf("read empty: %q, %v", got, err)
	}
	if res := run(t, c, "stat -c %a "+ssh.Quote(path), ssh.RunOptions{}); res.Stdout != "755\n" {
		t.Errorf("mode: %q, want 755", res.Stdout)
	}
	// ~/ means the remote home directory.
	name := fmt.Sprintf("starbench-sshtest-%d", time.Now().UnixNano())
	if err := c.WriteFile(ctx, "~/"+name, []byte("home"), 0o644); err != nil {
		t.Fatalf("write ~/: %v", err)
	}
	defer run(t, c, "rm -f ~/"+name, ssh.RunOptions{})
	if res := run(t, c, "cat ~/"+name, ssh.RunOptions{}); res.Stdout != "home" {
		t.Errorf("~/ file: %q", res.Stdout)
	}
	if _, err := c.ReadFile(ctx, filepath.Join(srv.Dir, "missing")); err == nil || !strings.Contains(err.Error(), "No such file") {
		t.Errorf("read missing: %v", err)
	}
}

func TestHostKeyVerification(t *testing.T) {
	srv := sshtest.Start(t)
	ctx := context.Background()
	dir := t.TempDir()

	// Another key recorded for [127.0.0.1]:port.
	pub, _, _ := ed25519.GenerateKey(nil)
	other, _ := xssh.NewPublicKey(pub)
	wrong := filepath.Join(dir, "known_hosts_wrong")
	os.WriteFile(wrong, []byte(knownhosts.Line([]string{knownhosts.Normalize(srv.Addr)}, other)+"\n"), 0o600)
	spec := srv.Spec()
	spec.KnownHosts = wrong
	_, err := ssh.Dial(ctx, spec)
	var hke *ssh.HostKeyError
	if !errors.As(err, &hke) || hke.Unknown {
		t.Fatalf("wrong key: %v", err)
	}
	for _, want := range []string{"HOST KEY MISMATCH", "[127.0.0.1]:" + fmt.Sprint(srv.Port), wrong, "ssh-keygen -R", xssh.FingerprintSHA256(srv.HostKey), xssh.FingerprintSHA256(other)} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("mismatch error lacks %q: %v", want, err)
		}
	}
	t.Logf("mismatch: %v", err)

	// Unknown host.
	empty := filepath.Join(dir, "known_hosts_empty")
	os.WriteFile(empty, nil, 0o600)
	spec.KnownHosts = empty
	_, err = ssh.Dial(ctx, spec)
	if !errors.As(err, &hke) || !hke.Unknown || !strings.Contains(err.Error(), "ssh-keyscan -p "+fmt.Sprint(srv.Port)+" 127.0.0.1 >> "+empty) {
		t.Errorf("unknown host: %v", err)
	}
	t.Logf("unknown: %v", err)

	// Missing known_hosts file.
	spec.KnownHosts = filepath.Join(dir, "nope")
	if _, err = ssh.Dial(ctx, spec); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("missing known_hosts: %v", err)
	}

	// InsecureIgnoreHostKey connects anyway.
	spec.KnownHosts = wrong
	spec.InsecureIgnoreHostKey = true
	c := dial(t, spec)
	if res := run(t, c, "echo ok", ssh.RunOptions{}); res.Stdout != "ok\n" {
		t.Errorf("insecure: %+v", res)
	}

	// A known_hosts with an RSA key and the right ed25519 key: the
	// handshake asks for the ed25519 key.
	mixed := filepath.Join(dir, "known_hosts_mixed")
	os.WriteFile(mixed, []byte(knownhosts.Line([]string{"[127.0.0.1]:1"}, other)+"\n"+
		knownhosts.Line([]string{knownhosts.Normalize(srv.Addr)}, srv.HostKey)+"\n"), 0o600)
	spec = srv.Spec()
	spec.KnownHosts = mixed
	dial(t, spec)
}

func TestAuth(t *testing.T) {
	srv := sshtest.Start(t)
	ctx := context.Background()

	// Password from an unset variable: a clear error before connecting.
	spec := srv.Spec()
	spec.KeyFile = ""
	spec.PasswordEnv = "SB_TEST_NO_SUCH_PASSWORD"
	if _, err := ssh.Dial(ctx, spec); err == nil || !strings.Contains(err.Error(), "SB_TEST_NO_SUCH_PASSWORD") {
		t.Errorf("unset password variable: %v", err)
	}
	// A refused password does not show up in the error.
	t.Setenv("SB_TEST_PASSWORD", "s3cret-Pa55")
	spec.PasswordEnv = "SB_TEST_PASSWORD"
	_, err := ssh.Dial(ctx, spec)
	if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "refused") {
		t.Errorf("refused password: %v", err)
	}

	// Agent holding the client key.
	keyPEM, _ := os.ReadFile(srv.KeyFile)
	raw, err := xssh.ParseRawPrivateKey(keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	ring := agent.NewKeyring()
	if err := ring.Add(agent.AddedKey{PrivateKey: raw}); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "agent.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			go func() { agent.ServeAgent(ring, conn); conn.Close() }()
		}
	}()
	t.Setenv("SSH_AUTH_SOCK", sock)
	spec = srv.Spec()
	spec.KeyFile = ""
	spec.Agent = true
	c := dial(t, spec)
	if res := run(t, c, "echo agent", ssh.RunOptions{}); res.Stdout != "agent\n" {
		t.Errorf("agent: %+v", res)
	}

	// A key the server does not know.
	_, priv, _ := ed25519.GenerateKey(nil)
	block, _ := xssh.MarshalPrivateKey(priv, "")
	other := filepath.Join(t.TempDir(), "other_key")
	os.WriteFile(other, pem.EncodeToMemory(block), 0o600)
	spec = srv.Spec()
	spec.KeyFile = other
	if _, err := ssh.Dial(ctx, spec); err == nil || !strings.Contains(err.Error(), "refused") || !strings.Contains(err.Error(), other) {
		t.Errorf("unknown key: %v", err)
	}
}

func TestConnectTimeout(t *testing.T) {
	// A server that accepts TCP and never speaks.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var conns []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	defer func() {
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	}()
	port := l.Addr().(*net.TCPAddr).Port
	spec := ssh.Spec{Host: "127.0.0.1", Port: port, InsecureIgnoreHostKey: true, KeyFile: writeTempKey(t), ConnectTimeout: 500 * time.Millisecond}
	start := time.Now()
	_, err = ssh.Dial(context.Background(), spec)
	if err == nil || !strings.Contains(err.Error(), "timed out after 500ms") || time.Since(start) > 3*time.Second {
		t.Errorf("connect timeout: %v after %v", err, time.Since(start))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	spec.ConnectTimeout = 0
	start = time.Now()
	_, err = ssh.Dial(ctx, spec)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 3*time.Second {
		t.Errorf("ctx deadline: %v after %v", err, time.Since(start))
	}
}

func writeTempKey(t *testing.T) string {
	_, priv, _ := ed25519.GenerateKey(nil)
	block, err := xssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "key")
	os.WriteFile(p, pem.EncodeToMemory(block), 0o600)
	return p
}

func TestConnectionLost(t *testing.T) {
	srv := sshtest.Start(t)
	c := dial(t, srv.Spec())
	started := make(chan struct{})
	var once sync.Once
	type outcome struct {
		res *ssh.Result
		err error
		at  time.Time
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := c.Run(context.Background(), "echo started; sleep 30; echo late", ssh.RunOptions{
			Timeout:  60 * time.Second,
			OnStdout: func(string) { once.Do(func() { close(started) }) },
		})
		done <- outcome{res, err, time.Now()}
	}()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("command did not start")
	}
	killed := time.Now()
	if n := srv.KillSessions(); n == 0 {
		t.Fatal("KillSessions killed nothing")
	}
	var o outcome
	select {
	case o = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return within 10s of the connection dropping")
	}
	if !errors.Is(o.err, ssh.ErrConnectionLost) {
		t.Fatalf("err = %v (result %+v), want ErrConnectionLost", o.err, o.res)
	}
	if took := o.at.Sub(killed); took > 5*time.Second {
		t.Errorf("noticed after %v", took)
	}
	t.Logf("after %v: %v", o.at.Sub(killed), o.err)
	// The client stays lost; later calls say so at once.
	_, err := c.Run(context.Background(), "true", ssh.RunOptions{})
	if !errors.Is(err, ssh.ErrConnectionLost) {
		t.Errorf("run after loss: %v", err)
	}
	if err := c.WriteFile(context.Background(), "/tmp/x", []byte("x"), 0o644); !errors.Is(err, ssh.ErrConnectionLost) {
		t.Errorf("write after loss: %v", err)
	}
	c.Close()
	// The server still takes new connections.
	c2 := dial(t, srv.Spec())
	if res := run(t, c2, "echo again", ssh.RunOptions{}); res.Stdout != "again\n" {
		t.Errorf("reconnect: %+v", res)
	}
}

func TestJumpHost(t *testing.T) {
	a := sshtest.Start(t)
	b := sshtest.Start(t)
	spec := b.Spec()
	jump := a.Spec()
	spec.Jump = &jump
	c := dial(t, spec)
	res := run(t, c, "echo via jump; echo $SSH_CONNECTION", ssh.RunOptions{})
	if !strings.HasPrefix(res.Stdout, "via jump\n") {
		t.Fatalf("through jump: %+v", res)
	}
	if !strings.Contains(a.Log(), fmt.Sprintf("target 127.0.0.1 port %d", b.Port)) {
		t.Errorf("A's log does not show the forwarded connection to port %d:\n%s", b.Port, a.Log())
	}
	// File copies work through the jump host too.
	if err := c.WriteFile(context.Background(), filepath.Join(b.Dir, "via-jump"), []byte("x"), 0o644); err != nil {
		t.Errorf("write through jump: %v", err)
	}
	c.Close()

	// A wrong known_hosts for the target is reported as such, through the jump.
	spec.KnownHosts = a.KnownHosts
	_, err := ssh.Dial(context.Background(), spec)
	var hke *ssh.HostKeyError
	if !errors.As(err, &hke) || !strings.Contains(err.Error(), "via jump host "+a.Addr) {
		t.Errorf("target key unknown through jump: %v", err)
	}
}
