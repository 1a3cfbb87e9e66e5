package mods

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ErrNoGit is returned when a module must be fetched and the git command
// is not installed.
var ErrNoGit = errors.New("fetching a shared module needs the git command, which is not installed here (Debian: apt-get install git)")

// git runs the git command. Credentials are the user's own (ssh agent,
// credential helper, GIT_SSH_COMMAND): starbench passes its environment
// through and never stores one; GIT_TERMINAL_PROMPT=0 keeps git from
// waiting on a password prompt in the middle of a run.
type git struct {
	ctx context.Context
}

func (g git) run(dir string, stdout io.Writer, args ...string) error {
	path, err := exec.LookPath("git")
	if err != nil {
		return ErrNoGit
	}
	cmd := exec.CommandContext(g.ctx, path, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return &gitError{args: args, msg: msg}
	}
	return nil
}

// gitError is a failed git command with what git said.
type gitError struct {
	args []string
	msg  string
}

func (e *gitError) Error() string {
	return fmt.Sprintf("git %s: %s", e.args[0], lastLines(e.msg, 3))
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " / ")
}

// RemoteRef is a ref a repository advertises.
type RemoteRef struct {
	Name   string // refs/tags/v1.2, refs/heads/main, HEAD
	Commit string // the commit it names (peeled for annotated tags)
	Target string // for HEAD: the branch it points at, when the server says
}

// lsRemote lists a repository's refs, annotated tags peeled to their
// commits.
func (g git) lsRemote(url string) ([]RemoteRef, error) {
	var out bytes.Buffer
	if err := g.run("", &out, "ls-remote", "--symref", "--", url); err != nil {
		return nil, err
	}
	var refs []RemoteRef
	index := map[string]int{}
	symrefs := map[string]string{}
	for _, line := range strings.Split(out.String(), "\n") {
		commit, name, ok := strings.Cut(strings.TrimSpace(line), "\t")
		if !ok {
			continue
		}
		if target, sym := strings.CutPrefix(commit, "ref: "); sym {
			symrefs[name] = target
			continue
		}
		if base, peeled := strings.CutSuffix(name, "^{}"); peeled {
			if i, seen := index[base]; seen {
				refs[i].Commit = commit
			}
			continue
		}
		index[name] = len(refs)
		refs = append(refs, RemoteRef{Name: name, Commit: commit, Target: symrefs[name]})
	}
	return refs, nil
}

// resolveRef finds what ref (a tag, a branch, a full ref name, or "" for
// the default branch) names in refs.
func resolveRef(refs []RemoteRef, ref string) (RemoteRef, bool) {
	var candidates []string
	switch {
	case ref == "":
		candidates = []string{"HEAD"}
	case strings.HasPrefix(ref, "refs/"):
		candidates = []string{ref}
	default:
		candidates = []string{"refs/tags/" + ref, "refs/heads/" + ref}
	}
	for _, c := range candidates {
		for _, r := range refs {
			if r.Name == c {
				return r, true
			}
		}
	}
	return RemoteRef{}, false
}

// headRef is the branch HEAD points at (refs/heads/main) when ls-remote
// shows exactly one branch at HEAD's commit.
func headRef(refs []RemoteRef, head string) string {
	var match []string
	for _, r := range refs {
		if strings.HasPrefix(r.Name, "refs/heads/") && r.Commit == head {
			match = append(match, r.Name)
		}
	}
	if len(match) == 1 {
		return match[0]
	}
	return ""
}

// hasCommit says whether the bare repository at dir holds commit.
func (g git) hasCommit(dir, commit string) bool {
	return g.run(dir, io.Discard, "cat-file", "-e", commit+"^{commit}") == nil
}

// fetchCommit brings commit from url into the bare repository at dir,
// creating it. It asks for the commit itself first and, when the server
// refuses that, for every branch and tag.
func (g git) fetchCommit(dir, url, commit string) error {
	if _, err := os.Stat(filepath.Join(dir, "HEAD")); err != nil {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := g.run(dir, io.Discard, "init", "-q", "--bare"); err != nil {
			return err
		}
	}
	if g.hasCommit(dir, commit) {
		return nil
	}
	byID := g.run(dir, io.Discard, "fetch", "-q", "--no-tags", "--", url, commit)
	if byID == nil && g.hasCommit(dir, commit) {
		return nil
	}
	all := g.run(dir, io.Discard, "fetch", "-q", "--", url, "+refs/heads/*:refs/remotes/origin/*", "+refs/tags/*:refs/tags/*")
	if g.hasCommit(dir, commit) {
		return nil
	}
	if all != nil {
		return all // the repository cannot be reached at all
	}
	return errNoSuchCommit
}

var errNoSuchCommit = errors.New("no such commit")

// extract writes the tree of commit into dest (which must not exist) from
// git archive's tar stream: regular files and folders only.
func (g git) extract(repoDir, commit, dest string) error {
	var archive bytes.Buffer
	if err := g.run(repoDir, &archive, "archive", "--format=tar", commit); err != nil {
		return err
	}
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return err
	}
	tr := tar.NewReader(&archive)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.FromSlash(h.Name)
		if !filepath.IsLocal(name) {
			return fmt.Errorf("git archive: unsafe path %q", h.Name)
		}
		target := filepath.Join(dest, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			data, err := io.ReadAll(tr)
			if err != nil {
				return err
			}
			if err := os.WriteFile(target, data, 0o644); err != nil {
				return err
			}
		}
	}
}
