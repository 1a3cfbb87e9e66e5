package ssh

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// File copies run over plain exec channels (no SFTP subsystem needed):
// writes stream into `cat > temp`, are checked with the remote sha256sum
// against the local sha256 and only then moved into place with mv, so the
// remote file is replaced atomically or not at all; reads stream `cat` and
// compare the remote sha256sum with the sha256 of the bytes received.
// Remote paths may start with ~/ for the remote home directory.

const sumMarker = "starbench-sha256:"

// shellSum computes the sha256 of file $1-like expression into $s.
func shellSum(file string) string {
	return `if command -v sha256sum >/dev/null 2>&1; then s=$(sha256sum < ` + file + `) || exit 1; ` +
		`else s=$(shasum -a 256 < ` + file + `) || exit 1; fi; s=${s%% *}; `
}

// remotePath quotes a remote path for the shell, expanding a leading ~/.
func remotePath(p string) string {
	switch {
	case p == "~":
		return `"$HOME"`
	case strings.HasPrefix(p, "~/"):
		return `"$HOME"/` + Quote(p[2:])
	}
	return Quote(p)
}

// WriteFile writes data to the remote path atomically with the given
// permission bits (the parent directory must exist).
func (c *Client) WriteFile(ctx context.Context, path string, data []byte, mode os.FileMode) error {
	sum := sha256.Sum256(data)
	return c.put(ctx, path, bytes.NewReader(data), hex.EncodeToString(sum[:]), mode, "write")
}

// Upload copies the local file to the remote path atomically, keeping its
// permission bits. The file is streamed, not loaded into memory.
func (c *Client) Upload(ctx context.Context, localPath, remotePath string) error {
	f, err := os.Open(localPath)
	if err != nil {
		return fmt.Errorf("ssh upload: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("ssh upload: %w", err)
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("ssh upload: %s is not a regular file", localPath)
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("ssh upload: read %s: %w", localPath, err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("ssh upload: %w", err)
	}
	return c.put(ctx, remotePath, f, hex.EncodeToString(h.Sum(nil)), st.Mode().Perm(), "upload "+localPath+" to")
}

func (c *Client) put(ctx context.Context, path string, r io.Reader, sum string, mode os.FileMode, what string) error {
	var rnd [8]byte
	rand.Read(rnd[:])
	dst := remotePath(path)
	tmp := remotePath(path + ".starbench-tmp-" + hex.EncodeToString(rnd[:]))
	script := `f=` + dst + `; t=` + tmp + `; trap 'rm -f -- "$t"' EXIT; umask 077; ` +
		`cat > "$t" || exit 1; ` + shellSum(`"$t"`) +
		`if [ "$s" != ` + sum + ` ]; then echo "sha256 mismatch: the remote copy has $s, the local data has ` + sum + `" >&2; exit 1; fi; ` +
		fmt.Sprintf(`chmod %04o "$t" && mv -f -- "$t" "$f" || exit 1; trap - EXIT; echo %s"$s"`, mode.Perm(), sumMarker)
	var stdout, stderr limitedBuffer
	code, err := c.exec(ctx, what+" "+strconv.Quote(path), script, 0, r, &stdout, &stderr)
	if err != nil {
		// A killed copy leaves its temp file (its EXIT trap did not run).
		if !errors.Is(err, ErrConnectionLost) {
			c.bestEffort("rm -f -- " + tmp)
		}
		return err
	}
	if code != 0 {
		return fmt.Errorf("ssh %s: %s %s: exit code %d: %s", c.addr, what, path, code, strings.TrimSpace(stderr.String()))
	}
	if got := strings.TrimSpace(stdout.String()); got != sumMarker+sum {
		return fmt.Errorf("ssh %s: %s %s: unexpected confirmation %q (want sha256 %s)", c.addr, what, path, got, sum)
	}
	return nil
}

// ReadFile reads the remote file.
func (c *Client) ReadFile(ctx context.Context, path string) ([]byte, error) {
	var buf bytes.Buffer
	if err := c.get(ctx, path, &buf, "read"); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Download copies the remote file to localPath, streaming into a temporary
// file next to it that is renamed into place once the sha256 matches. The
// local file gets mode 0644.
func (c *Client) Download(ctx context.Context, remotePath, localPath string) (err error) {
	dir, base := filepath.Split(localPath)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".starbench-tmp-*")
	if err != nil {
		return fmt.Errorf("ssh download: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err := c.get(ctx, remotePath, f, "download "+localPath+" from"); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("ssh download: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("ssh download: %w", err)
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		return fmt.Errorf("ssh download: %w", err)
	}
	if err := os.Rename(f.Name(), localPath); err != nil {
		return fmt.Errorf("ssh download: %w", err)
	}
	return nil
}

func (c *Client) get(ctx context.Context, path string, w io.Writer, what string) error {
	script := `f=` + remotePath(path) + `; cat -- "$f" || exit 1; ` + shellSum(`"$f"`) + `echo ` + sumMarker + `"$s" >&2`
	h := sha256.New()
	var stderr limitedBuffer
	cw := &countingWriter{w: io.MultiWriter(w, h)}
	code, err := c.exec(ctx, what+" "+strconv.Quote(path), script, 0, nil, cw, &stderr)
	if err != nil {
		return err
	}
	if cw.err != nil {
		return fmt.Errorf("ssh %s: %s %s: %w", c.addr, what, path, cw.err)
	}
	errText := strings.TrimSpace(stderr.String())
	if code != 0 {
		return fmt.Errorf("ssh %s: %s %s: exit code %d: %s", c.addr, what, path, code, errText)
	}
	remote := ""
	if i := strings.LastIndex(errText, sumMarker); i >= 0 {
		remote = strings.TrimSpace(errText[i+len(sumMarker):])
	}
	local := hex.EncodeToString(h.Sum(nil))
	if remote != local {
		return fmt.Errorf("ssh %s: %s %s: sha256 mismatch: received %d bytes with sha256 %s, the remote file has %q (did it change during the copy?)",
			c.addr, what, path, cw.n, local, remote)
	}
	return nil
}

// countingWriter counts bytes and remembers the first write error (the
// session would otherwise report it only as a copy error).
type countingWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countingWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	if err != nil {
		c.err = err
	}
	return n, err
}

// limitedBuffer keeps the first 1 MiB written to it.
type limitedBuffer struct{ bytes.Buffer }

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := 1<<20 - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}
