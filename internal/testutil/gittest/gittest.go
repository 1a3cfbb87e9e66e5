// Package gittest makes local git repositories for tests of shared
// modules: real repositories made with the git command, reached by
// file:// URLs (no network), with fixed authors and dates so that the same
// files always make the same commit.
package gittest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/starbench/starbench/internal/testutil/sandboxtest"
)

// Missing says how to get git.
const Missing = "the git command is not installed (Debian: apt-get install git)"

// Require stops the test when git is missing: it fails in CI and skips
// elsewhere.
func Require(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if sandboxtest.InCI() {
			t.Fatalf("CI=true and git is needed: %s", Missing)
		}
		t.Skipf("skipping: %s", Missing)
	}
}

// Env keeps git away from the user's and the system's configuration, so
// that commits are reproducible and nothing signs or rewrites them.
func Env() []string {
	return []string{
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=starbench tests", "GIT_AUTHOR_EMAIL=tests@starbench.invalid",
		"GIT_COMMITTER_NAME=starbench tests", "GIT_COMMITTER_EMAIL=tests@starbench.invalid",
		"GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z",
	}
}

// Repo is a work tree with its repository.
type Repo struct {
	t   testing.TB
	Dir string
}

// New makes an empty repository (default branch main) in a temporary
// folder.
func New(t testing.TB) *Repo {
	t.Helper()
	return At(t, filepath.Join(t.TempDir(), "repo"))
}

// At makes an empty repository (default branch main) in dir.
func At(t testing.TB, dir string) *Repo {
	t.Helper()
	Require(t)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r := &Repo{t: t, Dir: dir}
	r.Git("init", "-q", "-b", "main")
	return r
}

// URL is the repository's file:// URL.
func (r *Repo) URL() string { return "file://" + r.Dir }

// Git runs git in the work tree and returns its trimmed output.
func (r *Repo) Git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.Dir
	cmd.Env = append(os.Environ(), Env()...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// Commit writes files (path: content; "" deletes) and commits them all,
// returning the commit id.
func (r *Repo) Commit(msg string, files map[string]string) string {
	r.t.Helper()
	for name, content := range files {
		path := filepath.Join(r.Dir, filepath.FromSlash(name))
		if content == "" {
			os.Remove(path)
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
	r.Git("add", "-A")
	r.Git("commit", "-q", "--allow-empty", "-m", msg)
	return r.Git("rev-parse", "HEAD")
}

// Tag points tag at commit (moving it if it exists).
func (r *Repo) Tag(tag, commit string) {
	r.t.Helper()
	r.Git("tag", "-f", tag, commit)
}
