package main

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/starbench/starbench/internal/testutil/gittest"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
	"github.com/starbench/starbench/internal/testutil/sshtest"
	"github.com/starbench/starbench/stdlib"
)

// modEnv is the environment of a test using shared modules: a cache of its
// own, git kept from the user's configuration, no default target.
func modEnv(t *testing.T) []string {
	return append(gittest.Env(), "STARBENCH_CACHE="+filepath.Join(t.TempDir(), "cache"), "STARBENCH_TARGET=")
}

// writePlan writes a plan file into dir and returns its path.
func writePlan(t *testing.T, dir, name, src string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const levelsPlan = `load("@team//matrix.star", "LEVELS")
def main(p):
    print("levels", LEVELS)
`

// A plan loads a shared module at the commit its starbench.mod pins: a new
// commit in the repository changes nothing until 'mod update'; the
// results folder keeps the module's file and says which commit it came
// from; a changed cache is refused.
func TestSharedModulePinnedUntilUpdate(t *testing.T) {
	repo := gittest.New(t)
	c1 := repo.Commit("levels 1 2", map[string]string{"matrix.star": "LEVELS = [1, 2]\n"})
	env := modEnv(t)
	dir := filepath.Join(t.TempDir(), "plans")
	plan := writePlan(t, dir, "plan.star", levelsPlan)

	r := starbench(t, env, "mod", "add", "team", repo.URL(), "--dir", dir)
	expect(t, r, 0, "@team: pinned "+repo.URL()+" at main (commit "+c1+")")
	mod, _ := os.ReadFile(filepath.Join(dir, "starbench.mod"))
	if !strings.Contains(string(mod), "team  "+repo.URL()+"  "+c1+"  refs/heads/main") {
		t.Errorf("starbench.mod:\n%s", mod)
	}
	sum, _ := os.ReadFile(filepath.Join(dir, "starbench.sum"))
	if !strings.Contains(string(sum), repo.URL()+" "+c1+" sha256:") {
		t.Errorf("starbench.sum:\n%s", sum)
	}

	out1 := outDir(t)
	expect(t, starbench(t, env, "run", plan, "--out", out1), 0, "levels [1, 2]")
	m := readManifest(t, out1)
	if len(m.Modules) != 1 || m.Modules[0].Name != "@team" || m.Modules[0].Commit != c1 || m.Modules[0].URL != repo.URL() ||
		!strings.HasPrefix(m.Modules[0].TreeSHA256, "sha256:") || m.Modules[0].PinnedBy != "starbench.mod" {
		t.Errorf("manifest modules: %+v", m.Modules)
	}
	stored := ""
	for _, s := range m.Sources {
		if s.Name == "@team//matrix.star" && s.Module == "@team" {
			stored = s.Stored
		}
	}
	if data, err := os.ReadFile(filepath.Join(out1, filepath.FromSlash(stored))); stored == "" || err != nil || string(data) != "LEVELS = [1, 2]\n" {
		t.Errorf("the module's copy %q: %q %v (sources %+v)", stored, data, err, m.Sources)
	}

	c2 := repo.Commit("levels 3", map[string]string{"matrix.star": "LEVELS = [3]\n"})
	expect(t, starbench(t, env, "run", plan, "--out", outDir(t)), 0, "levels [1, 2]")
	expect(t, starbench(t, env, "mod", "update", "--dir", dir), 0, "@team: main moved from "+c1[:12]+" to "+c2[:12])
	out2 := outDir(t)
	expect(t, starbench(t, env, "run", plan, "--out", out2), 0, "levels [3]")
	if m := readManifest(t, out2); len(m.Modules) != 1 || m.Modules[0].Commit != c2 {
		t.Errorf("after update, manifest modules: %+v", m.Modules)
	}
	expect(t, starbench(t, env, "mod", "verify", "--dir", dir), 0, "@team  "+repo.URL()+" at main ("+c2[:12]+")", " ok")

	// starbench doc reads the pinned module's docstrings.
	repo.Commit("documented", map[string]string{"matrix.star": "\"\"\"The team's matrix.\n\n    load(\"@team//matrix.star\", \"LEVELS\")\n\nLevels for every plan.\n\"\"\"\n" +
		"LEVELS = [3]\n\ndef scaled(levels, factor = 2):\n    \"\"\"Each level times factor.\"\"\"\n    return [l * factor for l in levels]\n\n" +
		"def _hidden():\n    pass\n"})
	expect(t, starbench(t, env, "mod", "update", "team", "--dir", dir), 0, "@team: main moved from "+c2[:12])
	r = starbench(t, env, "doc", "@team//matrix.star", "--dir", dir)
	expect(t, r, 0, "@team//matrix.star\n==================\nThe team's matrix.\n\n    load(\"@team//matrix.star\", \"LEVELS\")",
		"  scaled(levels, factor = 2)\n      Each level times factor.")
	if strings.Contains(r.stdout, "_hidden") {
		t.Errorf("doc shows a private function:\n%s", r.stdout)
	}
	expect(t, starbench(t, env, "doc", "@nope//x.star", "--dir", dir), 2, "@nope is not declared in")
	c2 = readPin(t, dir, "team")

	// Someone edits the cached tree: refused, nothing run.
	cache := strings.TrimPrefix(env[len(env)-2], "STARBENCH_CACHE=")
	trees, _ := filepath.Glob(filepath.Join(cache, "mod", "tree", "*", c2, "matrix.star"))
	if len(trees) != 1 {
		t.Fatalf("cached trees: %v", trees)
	}
	if err := os.WriteFile(trees[0], []byte("LEVELS = [999]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out3 := outDir(t)
	r = starbench(t, env, "run", plan, "--out", out3)
	expect(t, r, 2, "@team: the cached tree of "+repo.URL()+" at "+c2[:12], "does not match its hash in starbench.sum")
	if strings.Contains(r.stdout, "999") {
		t.Errorf("the tampered module ran:\n%s", r.stdout)
	}
	if _, err := os.Stat(out3); !os.IsNotExist(err) {
		t.Errorf("a refused run made its results folder: %v", err)
	}
	expect(t, starbench(t, env, "mod", "verify", "--dir", dir), 2, "does not match its hash")
}

// The bad inputs of shared modules: each one message naming the module and
// what to do, exit 2, nothing run.
func TestSharedModuleBadInput(t *testing.T) {
	repo := gittest.New(t)
	c1 := repo.Commit("one", map[string]string{"matrix.star": "LEVELS = [1]\n"})
	repo.Tag("v1", c1)
	env := modEnv(t)
	dir := filepath.Join(t.TempDir(), "plans")
	plan := writePlan(t, dir, "plan.star", levelsPlan)

	t.Run("undeclared", func(t *testing.T) {
		expect(t, starbench(t, env, "check", plan), 2, "@team is not declared in "+filepath.Join(dir, "starbench.mod"), "starbench mod add team URL[@REF]")
	})
	expect(t, starbench(t, env, "mod", "add", "team", repo.URL()+"@v1", "--dir", dir), 0, "at v1 (commit "+c1+")")

	t.Run("moved tag", func(t *testing.T) {
		c2 := repo.Commit("two", map[string]string{"matrix.star": "LEVELS = [2]\n"})
		repo.Tag("v1", c2)
		cold := append(modEnv(t), gittest.Env()...) // a cache that lacks the tree
		r := starbench(t, cold, "run", plan, "--out", outDir(t))
		expect(t, r, 2, "@team: the tag v1 of "+repo.URL()+" was pinned at "+c1[:12]+" and now names "+c2[:12], "starbench mod update team")
		if strings.Contains(r.stdout, "levels") {
			t.Errorf("a plan ran on a moved tag:\n%s", r.stdout)
		}
		expect(t, starbench(t, env, "mod", "verify", "--dir", dir), 2, "now names "+c2[:12])
		repo.Tag("v1", c1)
	})
	t.Run("no such commit", func(t *testing.T) {
		bad := filepath.Join(t.TempDir(), "plans")
		writePlan(t, bad, "plan.star", levelsPlan)
		missing := strings.Repeat("ab", 20)
		writePlan(t, bad, "starbench.mod", "team "+repo.URL()+" "+missing+"\n")
		r := starbench(t, env, "check", filepath.Join(bad, "plan.star"))
		expect(t, r, 2, "@team: commit "+missing+" does not exist in "+repo.URL(), "starbench mod add")
	})
	t.Run("unreachable", func(t *testing.T) {
		r := starbench(t, env, "mod", "add", "other", "file:///nonexistent/repo.git", "--dir", t.TempDir())
		expect(t, r, 2, "@other: git cannot reach file:///nonexistent/repo.git")
	})
	t.Run("credential in the URL", func(t *testing.T) {
		for url, shown := range map[string]string{
			"https://perf:s3cret@git.example.com/team.git": "https://xxxxx@git.example.com/team.git",
			"https://s3cret@git.example.com/team.git":      "https://xxxxx@git.example.com/team.git",
			"ssh://perf:s3cret@git.example.com/team.git":   "ssh://perf:xxxxx@git.example.com/team.git",
		} {
			r := starbench(t, env, "mod", "add", "team", url+"@v1", "--dir", t.TempDir())
			expect(t, r, 2, "@team: "+shown+" carries a credential", "credential helper")
			if strings.Contains(r.stdout+r.stderr, "s3cret") {
				t.Errorf("the credential was printed:\n%s%s", r.stdout, r.stderr)
			}
		}
		expect(t, starbench(t, env, "check", writePlan(t, t.TempDir(), "plan.star", levelsPlan)), 2) // nothing was written
	})
	t.Run("git missing", func(t *testing.T) {
		cold := append(modEnv(t), "PATH=/nonexistent")
		expect(t, starbench(t, cold, "check", plan), 2, "@team: fetching a shared module needs the git command", "apt-get install git")
	})
	t.Run("one repository, two names, two commits", func(t *testing.T) {
		bad := t.TempDir()
		writePlan(t, bad, "starbench.mod", "team "+repo.URL()+" "+c1+"\n")
		c2 := repo.Git("rev-parse", "main")
		expect(t, starbench(t, env, "mod", "add", "other", repo.URL()+"@"+c2, "--dir", bad), 2,
			"@team and @other pin "+repo.URL()+" at two commits")
		writePlan(t, bad, "starbench.mod", "team "+repo.URL()+" "+c1+"\nother "+repo.URL()+" "+c2+"\n")
		writePlan(t, bad, "plan.star", levelsPlan)
		expect(t, starbench(t, env, "check", filepath.Join(bad, "plan.star")), 2, "starbench.mod:2: @team and @other pin")
	})
	t.Run("doc outside the repository", func(t *testing.T) {
		expect(t, starbench(t, env, "doc", "@team//../../etc/passwd", "--dir", dir), 2, "a module path must stay inside its repository")
	})
	t.Run("bad mod file", func(t *testing.T) {
		bad := t.TempDir()
		writePlan(t, bad, "plan.star", levelsPlan)
		writePlan(t, bad, "starbench.mod", "team "+repo.URL()+" v1\n")
		expect(t, starbench(t, env, "check", filepath.Join(bad, "plan.star")), 2, "starbench.mod:1: @team: \"v1\" is not a full commit id")
	})
}

// Two repositories whose files load each other: the plan's pin wins over
// the module's (the run says so), and the load cycle across them is one
// clear error.
func TestSharedModulesAcrossRepositories(t *testing.T) {
	env := modEnv(t)
	lib := gittest.New(t)
	l1 := lib.Commit("one", map[string]string{"util.star": "def label(x):\n    return \"v1:\" + x\n"})
	l2 := lib.Commit("two", map[string]string{"util.star": "def label(x):\n    return \"v2:\" + x\n"})

	team := gittest.New(t)
	team.Commit("team", map[string]string{
		"matrix.star":   "load(\"@lib//util.star\", \"label\")\nLEVELS = [label(\"a\")]\n",
		"starbench.mod": "lib " + lib.URL() + " " + l1 + "\n",
	})
	dir := filepath.Join(t.TempDir(), "plans")
	plan := writePlan(t, dir, "plan.star", levelsPlan)
	expect(t, starbench(t, env, "mod", "add", "team", team.URL(), "--dir", dir), 0)
	out := outDir(t)
	expect(t, starbench(t, env, "run", plan, "--out", out), 0, `levels ["v1:a"]`)

	// The plan pins lib itself, at another commit: the plan's pin wins.
	expect(t, starbench(t, env, "mod", "add", "shared-lib", lib.URL()+"@"+l2, "--dir", dir), 0)
	out = outDir(t)
	r := starbench(t, env, "run", plan, "--out", out)
	expect(t, r, 0, `levels ["v2:a"]`,
		"note: @team's starbench.mod pins "+lib.URL()+" at "+l1[:12]+" (as @lib); the plan's starbench.mod pins it at "+l2[:12]+" (as @shared-lib), which is used")
	m := readManifest(t, out)
	var got []string
	for _, mod := range m.Modules {
		got = append(got, mod.Name+" "+mod.Commit[:12]+" "+mod.PinnedBy)
		if mod.Name == "@shared-lib" && !strings.Contains(mod.Note, "which is used") {
			t.Errorf("the manifest does not say why: %+v", mod)
		}
	}
	if strings.Join(got, ", ") != "@team "+readPin(t, dir, "team")[:12]+" starbench.mod, @shared-lib "+l2[:12]+" starbench.mod" {
		t.Errorf("manifest modules: %s", strings.Join(got, ", "))
	}

	// lib's newest commit loads team back: a cycle across the two.
	l3 := lib.Commit("cycle", map[string]string{
		"util.star":     "load(\"@team//matrix.star\", \"LEVELS\")\ndef label(x):\n    return x\n",
		"starbench.mod": "team " + team.URL() + " " + readPin(t, dir, "team") + "\n",
	})
	expect(t, starbench(t, env, "mod", "add", "shared-lib", lib.URL()+"@"+l3, "--dir", dir), 0)
	expect(t, starbench(t, env, "check", plan), 2, "load cycle: @team//matrix.star -> @shared-lib//util.star -> @team//matrix.star")
}

// readPin is the commit dir's starbench.mod pins name at.
func readPin(t *testing.T, dir, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "starbench.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 3 && f[0] == name {
			return f[2]
		}
	}
	t.Fatalf("no pin of %s in\n%s", name, data)
	return ""
}

// starbench doc documents the standard library's modules from their
// docstrings: all of them, or one.
func TestDocStdlibModules(t *testing.T) {
	files, err := fs.Glob(stdlib.FS, "*.star")
	if err != nil || len(files) == 0 {
		t.Fatalf("stdlib files: %v %v", files, err)
	}
	r := starbench(t, nil, "doc", "@stdlib")
	expect(t, r, 0)
	for _, f := range files {
		if !strings.Contains(r.stdout, "@stdlib//"+f+"\n===") {
			t.Errorf("doc @stdlib lacks %s", f)
		}
	}
	expect(t, starbench(t, nil, "doc", "@stdlib//datadir.star"), 0,
		"  datadir.restore(snap)\n      Stops, replaces every directory by its copy",
		"\n    datadir.restore(snap)      # before every level")
	expect(t, starbench(t, nil, "doc", "@stdlib//nope.star"), 2, "no module @stdlib//nope.star in the standard library (it has datadir.star")

	// A standard library file by its name, a function by its name or
	// its last part, wherever it is documented.
	expect(t, starbench(t, nil, "doc", "tidb"), 0, "@stdlib//tidb.star\n===", "tidb.set_global(conn, variables)")
	r = starbench(t, nil, "doc", "set_global")
	expect(t, r, 0, "@stdlib//tidb.star", "  tidb.set_global(conn, variables)\n      SET GLOBAL")
	if strings.Contains(r.stdout, "tidb.backup") {
		t.Errorf("doc set_global printed more than set_global:\n%s", r.stdout)
	}
	expect(t, starbench(t, nil, "doc", "conn.dsn"), 0, "  conn.dsn\n      The handle's server as shown")
	expect(t, starbench(t, nil, "doc", "nope"), 2, `no module or function "nope"`, "standard library: datadir.star")
}

// A shared module cloned over ssh:// from the real sshd on loopback, with
// the key held only in ssh-agent: git uses the user's own credentials and
// starbench stores none.
func TestSharedModuleOverSSHWithAgent(t *testing.T) {
	server := sshtest.Start(t)
	agentBin, err := exec.LookPath("ssh-agent")
	if err != nil {
		if sandboxtest.InCI() {
			t.Fatal("CI=true and ssh-agent is needed (Debian: apt-get install openssh-client)")
		}
		t.Skip("skipping: ssh-agent is not installed (Debian: apt-get install openssh-client)")
	}
	sock := filepath.Join(t.TempDir(), "agent.sock")
	agent := exec.Command(agentBin, "-D", "-a", sock)
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { agent.Process.Kill(); agent.Wait() })
	for i := 0; i < 100; i++ {
		if _, err := os.Stat(sock); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	add := exec.Command("ssh-add", server.KeyFile)
	add.Env = append(os.Environ(), "SSH_AUTH_SOCK="+sock)
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("ssh-add: %v\n%s", err, out)
	}
	if err := os.Remove(server.KeyFile); err != nil { // from here on, only the agent holds the key
		t.Fatal(err)
	}

	repo := gittest.New(t)
	c1 := repo.Commit("levels", map[string]string{"matrix.star": "LEVELS = [7]\n"})
	url := fmt.Sprintf("ssh://%s@127.0.0.1:%d%s", server.User, server.Port, repo.Dir)
	sshCommand := "GIT_SSH_COMMAND=ssh -F /dev/null -o BatchMode=yes -o StrictHostKeyChecking=yes -o UserKnownHostsFile=" + server.KnownHosts
	env := append(modEnv(t), sshCommand, "SSH_AUTH_SOCK="+sock)
	dir := filepath.Join(t.TempDir(), "plans")
	plan := writePlan(t, dir, "plan.star", levelsPlan)
	expect(t, starbench(t, env, "mod", "add", "team", url, "--dir", dir), 0, "@team: pinned "+url+" at main (commit "+c1+")")
	out := outDir(t)
	expect(t, starbench(t, env, "run", plan, "--out", out), 0, "levels [7]")
	if m := readManifest(t, out); len(m.Modules) != 1 || m.Modules[0].URL != url || m.Modules[0].Commit != c1 {
		t.Errorf("manifest modules: %+v", m.Modules)
	}

	// Without the agent, a cold cache cannot fetch: the agent was the credential.
	noAgent := append(modEnv(t), sshCommand, "SSH_AUTH_SOCK=")
	expect(t, starbench(t, noAgent, "check", plan), 2, "@team: git cannot reach "+url, "ssh agent, credential helper")
}

// URL@REF splits at an '@' after the URL's last '/' or ':' only.
func TestSplitURLRef(t *testing.T) {
	for spec, want := range map[string][2]string{
		"https://git.example.com/perf/shared.git@v1.2":   {"https://git.example.com/perf/shared.git", "v1.2"},
		"ssh://git@git.example.com:2222/perf/shared.git": {"ssh://git@git.example.com:2222/perf/shared.git", ""},
		"git@git.example.com:perf/shared.git@main":       {"git@git.example.com:perf/shared.git", "main"},
		"git@git.example.com:shared.git":                 {"git@git.example.com:shared.git", ""},
		"file:///srv/git/shared":                         {"file:///srv/git/shared", ""},
	} {
		if url, ref := splitURLRef(spec); url != want[0] || ref != want[1] {
			t.Errorf("splitURLRef(%q) = %q, %q; want %q", spec, url, ref, want)
		}
	}
}
