package mods

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// CacheEnv names the environment variable that moves the per-user module
// cache (default: the user's cache folder, ~/.cache/starbench).
const CacheEnv = "STARBENCH_CACHE"

const hashPrefix = "sha256:"

// Cache is the per-user cache of shared modules: a bare git repository per
// URL (cache/mod/git/KEY) and the extracted tree of every pinned commit
// (cache/mod/tree/KEY/COMMIT). A tree is only trusted after its content
// hash matched the sum file, on every use.
type Cache struct {
	Dir string
}

// DefaultCache is the cache $STARBENCH_CACHE names, else the one in the
// user's cache folder.
func DefaultCache() (*Cache, error) {
	if dir := os.Getenv(CacheEnv); dir != "" {
		return &Cache{Dir: dir}, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return nil, fmt.Errorf("no folder for the module cache (%v): set %s", err, CacheEnv)
	}
	return &Cache{Dir: filepath.Join(base, "starbench")}, nil
}

func urlKey(url string) string {
	sum := sha256.Sum256([]byte(url))
	return hex.EncodeToString(sum[:8])
}

func (c *Cache) gitDir(url string) string {
	return filepath.Join(c.Dir, "mod", "git", urlKey(url))
}

// TreeDir is where the tree of url at commit is (or would be) extracted.
func (c *Cache) TreeDir(url, commit string) string {
	return filepath.Join(c.Dir, "mod", "tree", urlKey(url), commit)
}

// Cached says whether the tree of url at commit is in the cache.
func (c *Cache) Cached(url, commit string) bool {
	_, err := os.Stat(c.TreeDir(url, commit))
	return err == nil
}

// Fetch makes sure the tree of url at commit is in the cache, fetching it
// with git when it is not, and returns its folder. Errors: ErrNoGit, a
// *FetchError.
func (c *Cache) Fetch(ctx context.Context, url, commit string) (string, error) {
	dir := c.TreeDir(url, commit)
	if c.Cached(url, commit) {
		return dir, nil
	}
	g := git{ctx: ctx}
	if err := g.fetchCommit(c.gitDir(url), url, commit); err != nil {
		return "", fetchError(url, commit, err)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".extract-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	if err := g.extract(c.gitDir(url), commit, filepath.Join(tmp, "tree")); err != nil {
		return "", fetchError(url, commit, err)
	}
	if err := os.Rename(filepath.Join(tmp, "tree"), dir); err != nil && !c.Cached(url, commit) {
		return "", err
	}
	return dir, nil
}

// FetchError says why a repository or commit could not be fetched.
type FetchError struct {
	URL, Commit string
	NoCommit    bool // the repository was reached and has no such commit
	Err         error
}

func (e *FetchError) Error() string {
	if e.NoCommit {
		return fmt.Sprintf("commit %s does not exist in %s", e.Commit, e.URL)
	}
	return fmt.Sprintf("cannot fetch %s: %v", e.URL, e.Err)
}

func (e *FetchError) Unwrap() error { return e.Err }

func fetchError(url, commit string, err error) error {
	if errors.Is(err, ErrNoGit) {
		return err
	}
	return &FetchError{URL: url, Commit: commit, NoCommit: errors.Is(err, errNoSuchCommit), Err: err}
}

// LsRemote lists the refs url advertises (annotated tags peeled).
func LsRemote(ctx context.Context, url string) ([]RemoteRef, error) {
	refs, err := git{ctx: ctx}.lsRemote(url)
	if err != nil {
		return nil, fetchError(url, "", err)
	}
	return refs, nil
}

// Resolve turns ref (a tag, a branch, a full ref name, a full commit id,
// or "" for the default branch) into a commit of url, and the full name of
// the ref it came from ("" for a commit given as such).
func Resolve(ctx context.Context, url, ref string) (commit, refName string, err error) {
	if IsCommit(ref) {
		return ref, "", nil
	}
	refs, err := LsRemote(ctx, url)
	if err != nil {
		return "", "", err
	}
	r, ok := resolveRef(refs, ref)
	if !ok {
		if ref == "" {
			return "", "", fmt.Errorf("%s has no default branch (HEAD): give a tag, a branch or a commit (URL@REF)", url)
		}
		return "", "", fmt.Errorf("%s has no tag or branch %q (a commit must be given in full, 40 hex digits)", url, ref)
	}
	if r.Name == "HEAD" && r.Target != "" {
		return r.Commit, r.Target, nil
	}
	if r.Name == "HEAD" {
		return r.Commit, headRef(refs, r.Commit), nil
	}
	return r.Commit, r.Name, nil
}

// TreeHash is the content hash of an extracted tree: the sha256 of a
// sorted listing of every file's sha256 and path, as sha256:<hex>.
func TreeHash(dir string) (string, error) {
	var lines []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		lines = append(lines, hex.EncodeToString(sum[:])+"  "+filepath.ToSlash(rel)+"\n")
		return nil
	})
	if err != nil {
		return "", err
	}
	sort.Strings(lines)
	sum := sha256.Sum256([]byte(strings.Join(lines, "")))
	return hashPrefix + hex.EncodeToString(sum[:]), nil
}
