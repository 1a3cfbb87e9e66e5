// Package mods owns pinned shared modules: the starbench.mod file that
// names the git repositories a plan loads as @NAME//path.star and the
// commit each is pinned at, the starbench.sum file with the content hash of
// every pinned tree, the per-user cache those trees are fetched into with
// git, and the resolution of a load to one pinned tree (the plan's own
// pins winning over its modules' pins of the same repository).
//
// It is a core: it knows nothing of Starlark; the runner's loader asks it
// for module files by repository and path.
package mods

import (
	"bufio"
	"bytes"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"
)

// ModFileName and SumFileName are the files beside a plan (and at the root
// of a shared module's repository) that declare and verify its pins.
const (
	ModFileName = "starbench.mod"
	SumFileName = "starbench.sum"
)

// Pin is one line of starbench.mod: a shared module's name, its git URL,
// the commit it is pinned at, and the tag or branch the commit was resolved
// from ("" when a commit was given).
type Pin struct {
	Name   string
	URL    string
	Commit string
	Ref    string // refs/tags/v1.2, refs/heads/main, or ""
}

// RefLabel is the pin's ref as a user writes it: v1.2, main, or the short
// commit when it was pinned by commit.
func (p Pin) RefLabel() string {
	if p.Ref == "" {
		return ShortCommit(p.Commit)
	}
	return strings.TrimPrefix(strings.TrimPrefix(p.Ref, "refs/tags/"), "refs/heads/")
}

// ModFile is a parsed starbench.mod: its pins in file order.
type ModFile struct {
	Pins []Pin
}

// Lookup returns the pin called name.
func (m *ModFile) Lookup(name string) (Pin, bool) {
	if m == nil {
		return Pin{}, false
	}
	for _, p := range m.Pins {
		if p.Name == name {
			return p, true
		}
	}
	return Pin{}, false
}

// Names lists the declared names, for messages.
func (m *ModFile) Names() []string {
	var names []string
	if m != nil {
		for _, p := range m.Pins {
			names = append(names, "@"+p.Name)
		}
	}
	return names
}

// Set adds or replaces the pin of the same name.
func (m *ModFile) Set(p Pin) {
	for i := range m.Pins {
		if m.Pins[i].Name == p.Name {
			m.Pins[i] = p
			return
		}
	}
	m.Pins = append(m.Pins, p)
}

var (
	namePattern   = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.-]*$`)
	commitPattern = regexp.MustCompile(`^[0-9a-f]{40}$`)
)

// CheckName refuses a module name load() could not use, and "stdlib",
// which is the built-in standard library's.
func CheckName(name string) error {
	if !namePattern.MatchString(name) {
		return fmt.Errorf("module name %q: use a letter, then letters, digits, '_', '.' or '-'", name)
	}
	if name == "stdlib" {
		return fmt.Errorf("module name %q is the built-in standard library's; choose another", name)
	}
	return nil
}

// CheckURL refuses a URL that carries a password or token: starbench.mod
// is committed beside plans and starbench never stores a credential.
func CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return nil
	}
	_, hasPassword := u.User.Password()
	web := u.Scheme == "http" || u.Scheme == "https"
	if hasPassword || web {
		// On http(s) a user name alone is often a token; ssh's is a login.
		shown := u.Redacted()
		if web {
			u.User = url.User("xxxxx")
			shown = u.String()
		}
		return fmt.Errorf("%s carries a credential: starbench.mod is shared with the plans and starbench stores no credential; "+
			"give the URL without it and give git the credential instead (a credential helper, an ssh key in ssh-agent)", shown)
	}
	return nil
}

// IsCommit says whether s is a full (40 hex digit) commit id.
func IsCommit(s string) bool { return commitPattern.MatchString(s) }

// ShortCommit is a commit's first 12 hex digits, as messages show it.
func ShortCommit(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

// ParseMod reads starbench.mod: one pin per line, NAME URL COMMIT [REF];
// '#' starts a comment. file names the file in errors (file:line: ...).
func ParseMod(file string, data []byte) (*ModFile, error) {
	m := &ModFile{}
	err := eachLine(data, func(n int, line string, fields []string) error {
		if len(fields) < 3 || len(fields) > 4 {
			return fmt.Errorf("%s:%d: want NAME URL COMMIT [REF], got %q", file, n, line)
		}
		p := Pin{Name: fields[0], URL: fields[1], Commit: fields[2]}
		if len(fields) == 4 {
			p.Ref = fields[3]
		}
		if err := CheckName(p.Name); err != nil {
			return fmt.Errorf("%s:%d: %v", file, n, err)
		}
		if err := CheckURL(p.URL); err != nil {
			return fmt.Errorf("%s:%d: @%s: %v", file, n, p.Name, err)
		}
		if !IsCommit(p.Commit) {
			return fmt.Errorf("%s:%d: @%s: %q is not a full commit id (40 hex digits); 'starbench mod add %s %s@REF' resolves a tag or branch to one",
				file, n, p.Name, p.Commit, p.Name, p.URL)
		}
		if p.Ref != "" && !strings.HasPrefix(p.Ref, "refs/") {
			return fmt.Errorf("%s:%d: @%s: the ref %q is not a full ref name (refs/tags/... or refs/heads/...)", file, n, p.Name, p.Ref)
		}
		if _, dup := m.Lookup(p.Name); dup {
			return fmt.Errorf("%s:%d: @%s is declared twice", file, n, p.Name)
		}
		for _, earlier := range m.Pins {
			if err := twoCommits(earlier, p); err != nil {
				return fmt.Errorf("%s:%d: %v", file, n, err)
			}
		}
		m.Pins = append(m.Pins, p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// Check refuses one repository pinned at two commits under two names:
// a run uses one commit of a repository, so which one would depend on
// which name a plan loaded first.
func (m *ModFile) Check() error {
	for i, a := range m.Pins {
		for _, b := range m.Pins[:i] {
			if err := twoCommits(b, a); err != nil {
				return err
			}
		}
	}
	return nil
}

// twoCommits refuses b when it pins a's repository at another commit.
func twoCommits(a, b Pin) error {
	if a.URL == b.URL && a.Commit != b.Commit {
		return fmt.Errorf("@%s and @%s pin %s at two commits (%s, %s): a run uses one commit of a repository; pin both names at one commit, or keep one name",
			a.Name, b.Name, b.URL, ShortCommit(a.Commit), ShortCommit(b.Commit))
	}
	return nil
}

// eachLine calls fn with every line of data that is not blank once its
// '#' comment is taken off (n counts from 1).
func eachLine(data []byte, fn func(n int, line string, fields []string) error) error {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		if fields := strings.Fields(line); len(fields) > 0 {
			if err := fn(n, strings.TrimSpace(line), fields); err != nil {
				return err
			}
		}
	}
	return sc.Err()
}

const modHeader = `# Shared modules the plans in this folder load as @NAME//path.star: NAME URL COMMIT [REF].
# 'starbench mod add NAME URL[@REF]' pins one; 'starbench mod update [NAME]' moves a pin to
# where its tag or branch is now; 'starbench mod verify' checks the cached trees.
`

// Format writes starbench.mod, aligned, with a header saying what it is.
func (m *ModFile) Format() []byte {
	var b bytes.Buffer
	b.WriteString(modHeader)
	wName, wURL := 0, 0
	for _, p := range m.Pins {
		wName, wURL = max(wName, len(p.Name)), max(wURL, len(p.URL))
	}
	for _, p := range m.Pins {
		line := fmt.Sprintf("%-*s  %-*s  %s  %s", wName, p.Name, wURL, p.URL, p.Commit, p.Ref)
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	return b.Bytes()
}

// SumFile is a parsed starbench.sum: the content hash of each pinned
// tree, by repository URL and commit.
type SumFile struct {
	hashes map[sumKey]string
}

type sumKey struct{ url, commit string }

// Hash returns the recorded hash of url at commit.
func (s *SumFile) Hash(url, commit string) (string, bool) {
	if s == nil {
		return "", false
	}
	h, ok := s.hashes[sumKey{url, commit}]
	return h, ok
}

// Add records a hash; it reports whether the file changed.
func (s *SumFile) Add(url, commit, hash string) bool {
	if s.hashes == nil {
		s.hashes = map[sumKey]string{}
	}
	k := sumKey{url, commit}
	if s.hashes[k] == hash {
		return false
	}
	s.hashes[k] = hash
	return true
}

// ParseSum reads starbench.sum: URL COMMIT HASH per line.
func ParseSum(file string, data []byte) (*SumFile, error) {
	s := &SumFile{hashes: map[sumKey]string{}}
	err := eachLine(data, func(n int, line string, fields []string) error {
		if len(fields) != 3 || !IsCommit(fields[1]) || !strings.HasPrefix(fields[2], hashPrefix) {
			return fmt.Errorf("%s:%d: want URL COMMIT %s<hex>, got %q", file, n, hashPrefix, line)
		}
		k := sumKey{fields[0], fields[1]}
		if old, dup := s.hashes[k]; dup && old != fields[2] {
			return fmt.Errorf("%s:%d: %s at %s has two different hashes", file, n, fields[0], ShortCommit(fields[1]))
		}
		s.hashes[k] = fields[2]
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Format writes starbench.sum, sorted.
func (s *SumFile) Format() []byte {
	keys := make([]sumKey, 0, len(s.hashes))
	for k := range s.hashes {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].url != keys[j].url {
			return keys[i].url < keys[j].url
		}
		return keys[i].commit < keys[j].commit
	})
	var b bytes.Buffer
	b.WriteString("# The content hash of every pinned module tree (URL COMMIT HASH), checked on every use.\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "%s %s %s\n", k.url, k.commit, s.hashes[k])
	}
	return b.Bytes()
}
