package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/starbench/starbench/internal/testutil/gittest"
)

// perfTeamURL is the repository plans/shared/starbench.mod pins: it
// stands for a team's own, and tests point it at a file:// repository of
// plans/shared/vendor/perf_team/.
const perfTeamURL = "https://git.example.com/perf-team/shared.git"

// perfTeamRepo makes the perf team's repository from plans/shared/vendor/perf_team
// (one commit, fixed author and date: the same files make the same
// commit) and returns the environment that points perfTeamURL at it.
func perfTeamRepo(t *testing.T) (commit string, env []string) {
	t.Helper()
	repo := gittest.New(t)
	files := map[string]string{}
	src := "../../plans/shared/vendor/perf_team"
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = string(data)
	}
	commit = repo.Commit("The performance team's TiDB settings", files)
	repo.Tag("v1", commit)
	env = append(modEnv(t), "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=url."+repo.URL()+".insteadOf", "GIT_CONFIG_VALUE_0="+perfTeamURL)
	return commit, env
}

// Seed 003 split into the team's shared settings (a pinned module) and a
// plan that loads them: the example checks offline against the repository
// its test makes, issues exactly the steps of the seed plan that loads the
// same settings by path, and a bundle of it runs the same elsewhere.
func TestSeed003SharedSettingsExample(t *testing.T) {
	commit, env := perfTeamRepo(t)
	pinned := readPin(t, "../../plans/shared", "perf_team")
	if pinned != commit {
		t.Fatalf("plans/shared/starbench.mod pins perf_team at %s, but plans/shared/vendor/perf_team/ makes commit %s: after changing those files, "+
			"pin the new commit (in plans/shared/starbench.mod and starbench.sum) as this test's repository makes it", pinned, commit)
	}
	r := starbench(t, env, "check", "plans/shared/seed003_pinned.star", "--verbose")
	expect(t, r, 0, "plans/shared/seed003_pinned.star: OK", "| SET GLOBAL tidb_enable_1pc = 1;", "|         raftstore.apply-pool-size: 3")
	byPath := starbench(t, env, "check", "plans/seed003_tidb_v520_vs_v511.star", "--verbose")
	expect(t, byPath, 0)
	if a, b := stepsOf(r.stdout), stepsOf(byPath.stdout); a != b || !strings.Contains(a, "536 steps") {
		t.Errorf("the example's steps differ from the seed plan's:\n%s\n---\n%s", a, b)
	}
	expect(t, starbench(t, env, "mod", "verify", "--dir", "plans/shared"), 0, "@perf_team  "+perfTeamURL+" at v1 ("+commit[:12]+")", " ok")

	bundle := filepath.Join(t.TempDir(), "seed003-small.bundle")
	expect(t, starbench(t, env, "bundle", "plans/shared/seed003_pinned.star", "-p", "scale=small", "-o", bundle), 0,
		"@perf_team: "+perfTeamURL+" at v1 (commit "+commit+")")
	elsewhere := append(modEnv(t), "PATH=/nonexistent")
	fromBundle := starbenchIn(t, t.TempDir(), elsewhere, "check", bundle)
	expect(t, fromBundle, 0, "seed003-small.bundle: OK")
	small := starbench(t, env, "check", "plans/seed003_tidb_v520_vs_v511.star", "-p", "scale=small")
	if a, b := stepsOf(fromBundle.stdout), stepsOf(small.stdout); a != b || !strings.Contains(a, " steps; nothing was executed") {
		t.Errorf("the bundle's steps differ from the seed plan's:\n%s\n---\n%s", a, b)
	}
}

var positions = regexp.MustCompile(`\([^()]*\.star:\d+:\d+\)|seed -?\d+|@?[\w./-]*\.star:\d+:\d+`)

// stepsOf is a check's step list and notes, without the plan positions
// and the seed.
func stepsOf(out string) string {
	_, steps, _ := strings.Cut(out, "dry run (")
	steps = strings.TrimSpace(steps)
	if i := strings.LastIndex(steps, "\n"); i >= 0 && strings.HasSuffix(steps, ": OK") {
		steps = steps[:i]
	}
	return positions.ReplaceAllString(steps, "")
}
