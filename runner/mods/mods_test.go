package mods

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/starbench/starbench/internal/testutil/gittest"
)

// starbench.mod reads back what Format writes; each malformed line is one
// error naming the file and line.
func TestModFileRoundTripAndErrors(t *testing.T) {
	c := strings.Repeat("a1", 20)
	m := &ModFile{}
	m.Set(Pin{Name: "team", URL: "https://git.example.com/team.git", Commit: c, Ref: "refs/tags/v1"})
	m.Set(Pin{Name: "lib", URL: "ssh://git@git.example.com/lib.git", Commit: c})
	m.Set(Pin{Name: "team", URL: "https://git.example.com/team.git", Commit: c, Ref: "refs/heads/main"})
	back, err := ParseMod("starbench.mod", m.Format())
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Pins) != 2 || back.Pins[0].Ref != "refs/heads/main" || back.Pins[1] != m.Pins[1] {
		t.Errorf("round trip: %+v\n%s", back.Pins, m.Format())
	}
	if got := back.Pins[0].RefLabel() + " " + back.Pins[1].RefLabel(); got != "main "+c[:12] {
		t.Errorf("ref labels: %s", got)
	}
	for src, want := range map[string]string{
		"team url":                       "starbench.mod:1: want NAME URL COMMIT [REF]",
		"team url v1":                    `starbench.mod:1: @team: "v1" is not a full commit id`,
		"# c\nstdlib url " + c:           `starbench.mod:2: module name "stdlib" is the built-in standard library's`,
		"1team url " + c:                 `module name "1team": use a letter`,
		"team url " + c + " v1":          `@team: the ref "v1" is not a full ref name`,
		"a u " + c + "\na u " + c + "\n": "starbench.mod:2: @a is declared twice",
		"a u " + c + "\nb u " + strings.Repeat("c3", 20): "starbench.mod:2: @a and @b pin u at two commits",
	} {
		if _, err := ParseMod("starbench.mod", []byte(src)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseMod(%q): %v, want %q", src, err, want)
		}
	}
}

func TestSumFileRoundTripAndErrors(t *testing.T) {
	c := strings.Repeat("b2", 20)
	s := &SumFile{}
	if !s.Add("u2", c, "sha256:2") || !s.Add("u1", c, "sha256:1") || s.Add("u1", c, "sha256:1") {
		t.Error("Add does not say whether the file changed")
	}
	back, err := ParseSum("starbench.sum", s.Format())
	if err != nil {
		t.Fatal(err)
	}
	if h, ok := back.Hash("u1", c); !ok || h != "sha256:1" {
		t.Errorf("hash u1: %q %v", h, ok)
	}
	if !strings.Contains(string(s.Format()), "u1 "+c+" sha256:1\nu2 ") {
		t.Errorf("not sorted:\n%s", s.Format())
	}
	if _, err := ParseSum("starbench.sum", []byte("u1 "+c+" sha256:1\nu1 "+c+" sha256:9\n")); err == nil || !strings.Contains(err.Error(), "starbench.sum:2: u1 at "+c[:12]+" has two different hashes") {
		t.Errorf("conflicting hashes: %v", err)
	}
	if _, err := ParseSum("starbench.sum", []byte("u1 "+c+" md5:1\n")); err == nil || !strings.Contains(err.Error(), "starbench.sum:1: want URL COMMIT sha256:<hex>") {
		t.Errorf("bad line: %v", err)
	}
}

// The tree hash covers every file's content and path, and nothing else.
func TestTreeHash(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644)
	}
	write("a.star", "A = 1\n")
	write("lib/b.star", "B = 2\n")
	h1, err := TreeHash(dir)
	if err != nil || !strings.HasPrefix(h1, "sha256:") {
		t.Fatal(h1, err)
	}
	os.Chtimes(filepath.Join(dir, "a.star"), testTime, testTime)
	if h, _ := TreeHash(dir); h != h1 {
		t.Error("the hash depends on file times")
	}
	write("a.star", "A = 2\n")
	h2, _ := TreeHash(dir)
	write("a.star", "A = 1\n")
	os.Rename(filepath.Join(dir, "lib/b.star"), filepath.Join(dir, "lib/c.star"))
	h3, _ := TreeHash(dir)
	if h2 == h1 || h3 == h1 || h2 == h3 {
		t.Errorf("a changed content or name keeps the hash: %s %s %s", h1, h2, h3)
	}
}

// Refs resolve as git names them: a tag before a branch of the same
// name, annotated tags peeled, the default branch, a full commit as it is.
func TestResolve(t *testing.T) {
	repo := gittest.New(t)
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	c1 := repo.Commit("one", map[string]string{"a.star": "A = 1\n"})
	repo.Git("tag", "-a", "-m", "annotated", "v1", c1)
	c2 := repo.Commit("two", map[string]string{"a.star": "A = 2\n"})
	repo.Git("branch", "v1x", c1)
	repo.Git("branch", "v1", c2) // a branch named as a tag: the tag wins
	ctx := context.Background()
	for ref, want := range map[string][2]string{
		"":             {c2, "refs/heads/main"},
		"main":         {c2, "refs/heads/main"},
		"v1":           {c1, "refs/tags/v1"},
		"v1x":          {c1, "refs/heads/v1x"},
		"refs/tags/v1": {c1, "refs/tags/v1"},
		c1:             {c1, ""},
	} {
		commit, name, err := Resolve(ctx, repo.URL(), ref)
		if err != nil || commit != want[0] || name != want[1] {
			t.Errorf("Resolve(%q) = %s %s %v, want %v", ref, commit, name, err, want)
		}
	}
	if _, _, err := Resolve(ctx, repo.URL(), "nope"); err == nil || !strings.Contains(err.Error(), `has no tag or branch "nope"`) {
		t.Errorf("a missing ref: %v", err)
	}
}

var testTime = time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)

// A pin whose repository cannot be reached is read from its vendored copy
// beside starbench.mod when the copy's hash is the pin's in starbench.sum;
// an edited copy is refused, naming both hashes, and nothing is fetched.
func TestVendoredCopyStandsInForTheRepository(t *testing.T) {
	root := t.TempDir()
	commit := strings.Repeat("d4", 20)
	url := "https://git.example.invalid/team.git"
	vendor := filepath.Join(root, VendorDir, "team")
	os.MkdirAll(vendor, 0o755)
	os.WriteFile(filepath.Join(vendor, "settings.star"), []byte("A = 1\n"), 0o644)
	hash, err := TreeHash(vendor)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, ModFileName), []byte("team "+url+" "+commit+" refs/tags/v1\n"), 0o644)
	os.WriteFile(filepath.Join(root, SumFileName), []byte(url+" "+commit+" "+hash+"\n"), 0o644)
	read := func(name string) ([]byte, error) { return os.ReadFile(name) }
	load := func() ([]byte, error) {
		g := NewGraph(context.Background(), root, &Cache{Dir: t.TempDir()}, read)
		if _, err := g.Repo("", "team"); err != nil {
			return nil, err
		}
		return g.Read("@team", "settings.star")
	}
	if data, err := load(); err != nil || string(data) != "A = 1\n" {
		t.Fatalf("the vendored copy: %q, %v", data, err)
	}
	os.WriteFile(filepath.Join(vendor, "settings.star"), []byte("A = 2\n"), 0o644)
	if _, err := load(); err == nil || !strings.Contains(err.Error(), "is not the pinned tree of "+url+" at "+commit[:12]) || !strings.Contains(err.Error(), hash) {
		t.Errorf("an edited copy: %v", err)
	}
}
