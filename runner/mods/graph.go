package mods

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Graph resolves one run's @NAME loads to pinned trees. The plan's
// starbench.mod (beside the plan) names the modules the plan loads; a
// module's own starbench.mod (at its repository's root) names the modules
// its files load. Every repository is used at one commit per run: the
// plan's pin of a repository wins over a module's pin of it (and the run
// says so); two modules pinning one repository at two commits, which the
// plan does not pin, is an error that asks the plan to choose.
type Graph struct {
	ctx     context.Context
	rootDir string
	cache   *Cache
	read    func(name string) ([]byte, error)
	// Notify, when set, is told of every note as it is made (a module's
	// pin overridden by the plan's).
	Notify func(note string)
	// AddMissingSums records the hash of a tree starbench.sum lacks
	// instead of refusing it ('starbench mod add' and 'mod download' trust
	// what they fetch, as 'go mod download' does); Added lists them.
	AddMissingSums bool
	Added          []string

	rootMod *ModFile
	sum     *SumFile
	repos   map[string]*Repo // by display name (@team)
	byURL   map[string]*Repo
	scopes  map[[2]string]string // (scope, name) -> display name
	order   []string
}

// Repo is one repository a run loads files from, at one commit.
type Repo struct {
	Display  string // "@team": how canonical module names start
	Pin      Pin    // the pin in use (Name is the name it was declared as)
	PinnedBy string // "starbench.mod" (the plan's) or "@x's starbench.mod"
	Hash     string // the tree's hash in starbench.sum
	Note     string // why another pin of the repository was not used
	dir      string // the verified tree, once read from
	mod      *ModFile
	// tagChecked: the repository said the pin's tag still names its commit.
	tagChecked bool
}

// NewGraph makes the resolver of a plan in rootDir. read returns a mod or
// sum file by its canonical name (a path for the plan's, @x//starbench.mod
// for a module's), an error wrapping fs.ErrNotExist when there is none; the
// runner's reader records every file it serves. cache may be nil until a
// tree must be fetched (DefaultCache is used then).
func NewGraph(ctx context.Context, rootDir string, cache *Cache, read func(name string) ([]byte, error)) *Graph {
	return &Graph{ctx: ctx, rootDir: rootDir, cache: cache, read: read,
		repos: map[string]*Repo{}, byURL: map[string]*Repo{}, scopes: map[[2]string]string{}}
}

// RepoOf is the repository part of a canonical module name ("@team" of
// "@team//x.star"), "" for a plan-relative path or a standard library
// name.
func RepoOf(name string) string {
	if !strings.HasPrefix(name, "@") || strings.HasPrefix(name, "@stdlib//") {
		return ""
	}
	repo, _, ok := strings.Cut(name, "//")
	if !ok {
		return ""
	}
	return repo
}

func (g *Graph) modFileName() string { return filepath.Join(g.rootDir, ModFileName) }

func (g *Graph) root() (*ModFile, error) {
	if g.rootMod != nil {
		return g.rootMod, nil
	}
	data, err := g.read(g.modFileName())
	if errors.Is(err, fs.ErrNotExist) {
		g.rootMod = &ModFile{}
		return g.rootMod, nil
	}
	if err != nil {
		return nil, err
	}
	m, err := ParseMod(g.modFileName(), data)
	if err != nil {
		return nil, err
	}
	g.rootMod = m
	return m, nil
}

// Repo returns the display name of the repository @name means in a file
// of scope ("" for the plan's own files, "@x" for module @x's files).
func (g *Graph) Repo(scope, name string) (string, error) {
	if d, ok := g.scopes[[2]string{scope, name}]; ok {
		return d, nil
	}
	root, err := g.root()
	if err != nil {
		return "", err
	}
	if _, err := g.sums(); err != nil {
		return "", err
	}
	var d string
	if scope == "" {
		pin, ok := root.Lookup(name)
		if !ok {
			return "", g.undeclared(name, root)
		}
		d = g.use(pin, "@"+name, ModFileName, "")
	} else {
		d, err = g.moduleRepo(scope, name, root)
		if err != nil {
			return "", err
		}
	}
	g.scopes[[2]string{scope, name}] = d
	return d, nil
}

func (g *Graph) undeclared(name string, root *ModFile) error {
	declared := "it declares none"
	if names := root.Names(); len(names) > 0 {
		declared = "it declares " + strings.Join(names, ", ")
	}
	return fmt.Errorf("@%s is not declared in %s (%s): pin it with 'starbench mod add %s URL[@REF]' in %s",
		name, g.modFileName(), declared, name, displayDir(g.rootDir))
}

func displayDir(dir string) string {
	if dir == "" {
		return "."
	}
	return dir
}

// moduleRepo resolves @name in module scope's files by the module's own
// starbench.mod, the plan's pin of the same repository winning.
func (g *Graph) moduleRepo(scope, name string, root *ModFile) (string, error) {
	parent, err := g.modOf(scope)
	if err != nil {
		return "", err
	}
	pin, ok := parent.mod.Lookup(name)
	if !ok {
		return "", fmt.Errorf("%s loads @%s, which its own %s does not declare (%s at %s): the module's authors must pin it there",
			scope, name, ModFileName, parent.Pin.URL, ShortCommit(parent.Pin.Commit))
	}
	by := scope + "'s " + ModFileName
	for _, rp := range root.Pins {
		if rp.URL != pin.URL {
			continue
		}
		note := ""
		if rp.Commit != pin.Commit {
			note = fmt.Sprintf("%s pins %s at %s (as @%s); the plan's %s pins it at %s (as @%s), which is used",
				by, pin.URL, ShortCommit(pin.Commit), pin.Name, ModFileName, ShortCommit(rp.Commit), rp.Name)
		}
		return g.use(rp, "@"+rp.Name, ModFileName, note), nil
	}
	if other := g.byURL[pin.URL]; other != nil && other.Pin.Commit != pin.Commit {
		return "", fmt.Errorf("%s is pinned at two commits: %s by %s, %s by %s; pin it in the plan's %s to choose one ('starbench mod add %s %s@COMMIT')",
			pin.URL, ShortCommit(other.Pin.Commit), other.PinnedBy, ShortCommit(pin.Commit), by, ModFileName, pin.Name, pin.URL)
	}
	display := "@" + pin.Name
	for n := 2; ; n++ {
		taken := g.repos[display]
		_, rootName := root.Lookup(strings.TrimPrefix(display, "@"))
		if (taken == nil || taken.Pin.URL == pin.URL) && !rootName {
			break
		}
		display = fmt.Sprintf("@%s~%d", pin.Name, n)
	}
	return g.use(pin, display, by, ""), nil
}

// modOf reads module scope's own starbench.mod (none: no pins).
func (g *Graph) modOf(scope string) (*Repo, error) {
	parent := g.repos[scope]
	if parent == nil {
		return nil, fmt.Errorf("%s is not a module of this run", scope)
	}
	if parent.mod != nil {
		return parent, nil
	}
	data, err := g.read(scope + "//" + ModFileName)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		parent.mod = &ModFile{}
	case err != nil:
		return nil, err
	default:
		if parent.mod, err = ParseMod(scope+"//"+ModFileName, data); err != nil {
			return nil, err
		}
	}
	return parent, nil
}

// SetRoot replaces the plan's starbench.mod, for a command that changes
// it and checks the result before writing it.
func (g *Graph) SetRoot(m *ModFile) { g.rootMod = m }

// Sum is the starbench.sum the graph verifies against (with what
// AddMissingSums added).
func (g *Graph) Sum() (*SumFile, error) { return g.sums() }

// LoadAll resolves, fetches and verifies every pin of the plan's
// starbench.mod and, transitively, of its modules' own starbench.mod
// files.
func (g *Graph) LoadAll() error {
	root, err := g.root()
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	var walk func(scope, name string) error
	walk = func(scope, name string) error {
		d, err := g.Repo(scope, name)
		if err != nil {
			return err
		}
		if seen[d] {
			return nil
		}
		seen[d] = true
		if err := g.verify(g.repos[d]); err != nil {
			return err
		}
		r, err := g.modOf(d)
		if err != nil {
			return err
		}
		for _, p := range r.mod.Pins {
			if err := walk(d, p.Name); err != nil {
				return err
			}
		}
		return nil
	}
	for _, p := range root.Pins {
		if err := walk("", p.Name); err != nil {
			return err
		}
	}
	return nil
}

// use registers the repository pin is of under display (once).
func (g *Graph) use(pin Pin, display, by, note string) string {
	if r := g.byURL[pin.URL]; r != nil {
		if note != "" && r.Note == "" {
			r.Note = note
			g.notify(note)
		}
		return r.Display
	}
	r := &Repo{Display: display, Pin: pin, PinnedBy: by, Note: note}
	r.Hash, _ = g.sum.Hash(pin.URL, pin.Commit)
	g.repos[display], g.byURL[pin.URL] = r, r
	g.order = append(g.order, display)
	if note != "" {
		g.notify(note)
	}
	return display
}

func (g *Graph) notify(note string) {
	if g.Notify != nil {
		g.Notify(note)
	}
}

// Read returns the file at rel (slash-separated) of repository repo's
// pinned tree, fetching and verifying the tree on its first use.
func (g *Graph) Read(repo, rel string) ([]byte, error) {
	r := g.repos[repo]
	if r == nil {
		return nil, fmt.Errorf("%s is not a module of this run", repo)
	}
	rel, err := CleanPath(repo, rel)
	if err != nil {
		return nil, err
	}
	if err := g.verify(r); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(filepath.Join(r.dir, filepath.FromSlash(rel)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s//%s: no such file in %s at %s: %w", repo, rel, r.Pin.URL, ShortCommit(r.Pin.Commit), fs.ErrNotExist)
	}
	return data, err
}

// verify fetches r's tree when the cache lacks it (refusing a tag that
// moved away from the pin) and checks its hash against starbench.sum.
func (g *Graph) verify(r *Repo) error {
	if r.dir != "" {
		return nil
	}
	cache, err := g.cacheOrDefault()
	if err != nil {
		return err
	}
	pin := r.Pin
	if !cache.Cached(pin.URL, pin.Commit) {
		dir, err := g.vendored(r)
		if err != nil || dir != "" {
			r.dir = dir
			return err
		}
		if err := g.checkTag(r); err != nil {
			return err
		}
	}
	dir, err := cache.Fetch(g.ctx, pin.URL, pin.Commit)
	if err != nil {
		return ExplainFetch(r.Display, r.PinnedBy, err)
	}
	sum, err := g.sums()
	if err != nil {
		return err
	}
	got, err := TreeHash(dir)
	if err != nil {
		return err
	}
	want, ok := sum.Hash(pin.URL, pin.Commit)
	if !ok && g.AddMissingSums {
		want, ok = got, true
		sum.Add(pin.URL, pin.Commit, want)
		g.Added = append(g.Added, fmt.Sprintf("%s %s at %s %s", r.Display, pin.URL, ShortCommit(pin.Commit), want))
	}
	if !ok {
		return fmt.Errorf("%s: %s has no hash for %s at %s: run 'starbench mod download' in %s to fetch it and record its hash",
			r.Display, filepath.Join(g.rootDir, SumFileName), pin.URL, ShortCommit(pin.Commit), displayDir(g.rootDir))
	}
	if got != want {
		return fmt.Errorf("%s: the cached tree of %s at %s (%s) does not match its hash in %s: the cache was changed after it was fetched; "+
			"remove that folder and run again to fetch it afresh (if a fresh copy does not match either, %s was edited)",
			r.Display, pin.URL, ShortCommit(pin.Commit), dir, SumFileName, SumFileName)
	}
	r.dir, r.Hash = dir, want
	return nil
}

// VendorDir is the folder beside a plan's starbench.mod that may hold a
// copy of a pinned module's tree, VendorDir/NAME, for where its repository
// cannot be reached (offline, or no access): a copy is used only when its
// content hash is the pin's in starbench.sum, so it is the pinned tree.
const VendorDir = "vendor"

// vendored is the folder of r's vendored copy (a pin of the plan's own
// starbench.mod, VendorDir/NAME beside it), "" when there is none; a copy
// that is not the pinned tree is an error saying so.
func (g *Graph) vendored(r *Repo) (string, error) {
	if r.PinnedBy != ModFileName {
		return "", nil
	}
	dir := filepath.Join(g.rootDir, VendorDir, r.Pin.Name)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return "", nil
	}
	sum, err := g.sums()
	if err != nil {
		return "", err
	}
	want, ok := sum.Hash(r.Pin.URL, r.Pin.Commit)
	if !ok {
		return "", fmt.Errorf("%s: %s has no hash for %s at %s, so its copy in %s cannot be checked: run 'starbench mod download' in %s where the repository can be reached",
			r.Display, filepath.Join(g.rootDir, SumFileName), r.Pin.URL, ShortCommit(r.Pin.Commit), dir, displayDir(g.rootDir))
	}
	got, err := TreeHash(dir)
	if err != nil {
		return "", err
	}
	if got != want {
		return "", fmt.Errorf("%s: the copy in %s is not the pinned tree of %s at %s (its hash %s, %s's %s): it was edited, or the pin moved without it; "+
			"copy that commit's files there again, or remove the folder to fetch the repository",
			r.Display, dir, r.Pin.URL, ShortCommit(r.Pin.Commit), got, SumFileName, want)
	}
	r.Hash = want
	return dir, nil
}

// ErrTagMoved is what CheckTag's error wraps when a pinned tag names
// another commit than the pin (or is gone).
var ErrTagMoved = errors.New("a pinned tag moved")

// CheckTag asks the repository whether the tag repository display (a
// name Repo returned) is pinned by still names the pinned commit: nil when
// it does or the pin is not a tag, an error wrapping ErrTagMoved when it
// moved, and the fetch error when the repository cannot be reached. The
// repository is asked once per run.
func (g *Graph) CheckTag(display string) error {
	r := g.repos[display]
	if r == nil {
		return fmt.Errorf("%s is not a module of this run", display)
	}
	return g.checkTag(r)
}

func (g *Graph) checkTag(r *Repo) error {
	if !strings.HasPrefix(r.Pin.Ref, "refs/tags/") || r.tagChecked {
		return nil
	}
	refs, err := LsRemote(g.ctx, r.Pin.URL)
	if err != nil {
		return ExplainFetch(r.Display, r.PinnedBy, err)
	}
	now, ok := resolveRef(refs, r.Pin.Ref)
	if ok && now.Commit == r.Pin.Commit {
		r.tagChecked = true
		return nil
	}
	return movedTagError(r.Display, r.Pin, now.Commit)
}

// movedTagError says that pin's tag no longer names its commit (now: the
// commit it names today, "" when the tag is gone).
func movedTagError(display string, pin Pin, now string) error {
	where := "no longer exists"
	if now != "" {
		where = "now names " + ShortCommit(now)
	}
	return tagMoved(fmt.Sprintf("%s: the tag %s of %s was pinned at %s and %s: someone moved it; ask the repository's owners why, "+
		"then 'starbench mod update %s' to take what it names now, or pin a commit with 'starbench mod add %s %s@COMMIT'",
		display, pin.RefLabel(), pin.URL, ShortCommit(pin.Commit), where, pin.Name, pin.Name, pin.URL))
}

// tagMoved is a moved tag's message; it is an ErrTagMoved.
type tagMoved string

func (e tagMoved) Error() string        { return string(e) }
func (e tagMoved) Is(target error) bool { return target == ErrTagMoved }

// ExplainFetch turns a fetch failure into one message naming the module,
// where it is pinned and what to do.
func ExplainFetch(display, pinnedBy string, err error) error {
	var fe *FetchError
	switch {
	case errors.Is(err, ErrNoGit):
		return fmt.Errorf("%s: %v", display, err)
	case errors.As(err, &fe) && fe.NoCommit:
		return fmt.Errorf("%s: commit %s does not exist in %s (pinned in %s): the pin is wrong or the commit was removed; "+
			"'starbench mod add' pins an existing tag, branch or commit", display, fe.Commit, fe.URL, pinnedBy)
	case errors.As(err, &fe):
		return fmt.Errorf("%s: git cannot reach %s (%v): check the URL in %s and your access to it (ssh agent, credential helper)",
			display, fe.URL, fe.Err, pinnedBy)
	}
	return fmt.Errorf("%s: %w", display, err)
}

func (g *Graph) cacheOrDefault() (*Cache, error) {
	if g.cache == nil {
		c, err := DefaultCache()
		if err != nil {
			return nil, err
		}
		g.cache = c
	}
	return g.cache, nil
}

func (g *Graph) sums() (*SumFile, error) {
	if g.sum != nil {
		return g.sum, nil
	}
	name := filepath.Join(g.rootDir, SumFileName)
	data, err := g.read(name)
	if errors.Is(err, fs.ErrNotExist) {
		data, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	if g.sum, err = ParseSum(name, data); err != nil {
		return nil, err
	}
	return g.sum, nil
}

// Used lists the repositories the run loaded from, in first-use order,
// with their hashes from starbench.sum where it has them.
func (g *Graph) Used() []Repo {
	out := make([]Repo, 0, len(g.order))
	for _, d := range g.order {
		out = append(out, *g.repos[d])
	}
	return out
}

// CleanPath checks a path inside a repository (no escaping its root).
func CleanPath(repo, rel string) (string, error) {
	clean := path.Clean(rel)
	if clean == "." || clean == ".." || strings.HasPrefix(clean, "../") || path.IsAbs(clean) {
		return "", fmt.Errorf("%s//%s: a module path must stay inside its repository", repo, rel)
	}
	return clean, nil
}
