package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/starbench/starbench/internal/sandbox"
	"github.com/starbench/starbench/internal/testutil/gittest"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
	"github.com/starbench/starbench/runner/results"
)

// The team's settings, in a repository of their own.
const teamSettings = `TABLES = 2
ROWS = 200
WORKLOAD = "oltp_point_select"
`

// A plan loading the shared settings, a file of its own, and the
// standard library.
const teamPlan = `# The team's point-select check.
load("@settings//settings.star", "TABLES", "ROWS", "WORKLOAD")
load("lib/levels.star", "THREADS")
load("@stdlib//helpers.star", "helpers")

params(time = param("1s", help = "duration of each level"))

def main(p):
    conn = db.connect()
    sysbench.prepare(conn, tables = TABLES, table_size = ROWS, if_exists = "drop")
    for t in THREADS:
        r = sysbench.run(conn, WORKLOAD, threads = t, time = p.time, tables = TABLES, table_size = ROWS)
        print("threads %d: %d events" % (t, r.events))
`

// Two teams, two directories and one git repository: team A pins the
// shared settings and bundles its plan; team B, in an empty directory with
// no cache and no git, checks and runs the bundle against its own MariaDB;
// both results folders say which commit of the shared module they used; a
// rerun of B's folder issues the same steps; an edited bundle is refused.
func TestTwoTeamsShareAModuleThroughABundle(t *testing.T) {
	repo := gittest.New(t)
	c1 := repo.Commit("settings", map[string]string{"settings.star": teamSettings})
	repo.Tag("v1", c1)
	repo.Commit("later", map[string]string{"settings.star": strings.Replace(teamSettings, "ROWS = 200", "ROWS = 1", 1)})

	teamA := t.TempDir()
	writePlan(t, filepath.Join(teamA, "lib"), "levels.star", "THREADS = [1, 2]\n")
	plan := writePlan(t, teamA, "bench.star", teamPlan)
	envA := modEnv(t)
	expect(t, starbenchIn(t, teamA, envA, "mod", "add", "settings", repo.URL()+"@v1"), 0, "(commit "+c1+")")
	expect(t, starbenchIn(t, teamA, envA, "bundle", "bench.star", "-p", "time=1s", "-o", "bench.bundle"), 0,
		"bundle bench.bundle: bench.star", "@settings: "+repo.URL()+" at v1 (commit "+c1+")", "parameters: -p time=1s")

	mA := sandboxtest.Fresh(t, sandbox.MariaDBOptions{})
	outA := filepath.Join(teamA, "results-a")
	expect(t, starbenchIn(t, teamA, envA, "run", plan, "--target", mA.DSN(), "--out", outA), 0, "threads 2:")

	// Team B: an empty directory, an empty cache, no git on the PATH.
	teamB := t.TempDir()
	bundle := filepath.Join(teamB, "bench.bundle")
	copyFile(t, filepath.Join(teamA, "bench.bundle"), bundle)
	envB := append(modEnv(t), "PATH=/nonexistent")
	expect(t, starbenchIn(t, teamB, envB, "check", "bench.bundle"), 0, "bench.bundle: OK", "sysbench oltp_point_select", "--table_size=200")
	expect(t, starbenchIn(t, teamB, envB, "params", "bench.bundle"), 0, "The team's point-select check.", `time             duration       = "1s"  (from -p)`)
	mB := sandboxtest.Fresh(t, sandbox.MariaDBOptions{})
	outB := filepath.Join(teamB, "results-b")
	expect(t, starbenchIn(t, teamB, envB, "run", "bench.bundle", "--target", mB.DSN(), "--out", outB), 0, "threads 1:", "threads 2:")

	for _, dir := range []string{outA, outB} {
		m := readManifest(t, dir)
		if len(m.Modules) != 1 || m.Modules[0].Name != "@settings" || m.Modules[0].Commit != c1 || m.Modules[0].URL != repo.URL() || m.Modules[0].TreeSHA256 == "" {
			t.Errorf("%s: modules %+v", dir, m.Modules)
		}
	}
	mB0 := readManifest(t, outB)
	if mB0.From == nil || mB0.From.Kind != "bundle" || mB0.From.Path != "bench.bundle" || len(mB0.From.SHA256) != 64 ||
		strings.Join(mB0.Overrides, " ") != "time=1s" || mB0.Plan != "bench.star" {
		t.Errorf("run from the bundle: from %+v, overrides %v, plan %q", mB0.From, mB0.Overrides, mB0.Plan)
	}

	// The rerun of B's folder, from elsewhere, issues the same steps.
	outB2 := filepath.Join(t.TempDir(), "again")
	expect(t, starbenchIn(t, t.TempDir(), envB, "rerun", outB, "--target", mB.DSN(), "--out", outB2), 0, "repeating "+outB)
	if a, b := stepList(t, outB), stepList(t, outB2); a != b || a == "" {
		t.Errorf("the rerun's steps differ:\n%s\n---\n%s", a, b)
	}
	if a, b := stepList(t, outA), stepList(t, outB); a != b {
		t.Errorf("team B's run from the bundle issued other steps than team A's run of the plan:\n%s\n---\n%s", a, b)
	}

	// A results folder is itself a bundle.
	expect(t, starbenchIn(t, teamB, envB, "check", outA), 0, ": OK")

	// An edited bundle is refused, nothing run.
	edited := filepath.Join(teamB, "edited.bundle")
	editZip(t, bundle, edited, "sources/@settings/settings.star", func(s string) string { return strings.Replace(s, "200", "100000", 1) })
	r := starbenchIn(t, teamB, envB, "run", "edited.bundle", "--target", mB.DSN(), "--out", filepath.Join(teamB, "never"))
	expect(t, r, 2, "edited.bundle: sources/@settings/settings.star does not match its sha256 in bundle.json", "make it again with 'starbench bundle'")
	if _, err := os.Stat(filepath.Join(teamB, "never")); !os.IsNotExist(err) {
		t.Errorf("a refused bundle made a results folder: %v", err)
	}
	expect(t, starbenchIn(t, teamB, envB, "rerun", "bench.bundle"), 2, "bench.bundle was made without --seed")

	// A bundle.json with an empty entry: exit 2, no stack trace.
	broken := filepath.Join(teamB, "broken.bundle")
	editZip(t, bundle, broken, "bundle.json", func(s string) string { return strings.Replace(s, `"sources": [`, `"sources": [null,`, 1) })
	expect(t, starbenchIn(t, teamB, envB, "check", "broken.bundle"), 2, "broken.bundle: bundle.json lists a source without a name")

	// A bundle without a module's file does not take it from elsewhere,
	// even where the cache and git have it.
	partial := filepath.Join(teamA, "partial.bundle")
	rewriteZip(t, filepath.Join(teamA, "bench.bundle"), partial, func(name, data string) (string, bool) {
		if name == "bundle.json" {
			var bm map[string]any
			if err := json.Unmarshal([]byte(data), &bm); err != nil {
				t.Fatal(err)
			}
			var kept []any
			for _, src := range bm["sources"].([]any) {
				if src.(map[string]any)["name"] != "@settings//settings.star" {
					kept = append(kept, src)
				}
			}
			bm["sources"] = kept
			out, _ := json.Marshal(bm)
			return string(out), true
		}
		return data, name != "sources/@settings/settings.star"
	})
	expect(t, starbenchIn(t, teamA, envA, "check", "partial.bundle"), 2, "@settings//settings.star is not in partial.bundle")

	// A bundle made with --seed reruns that run.
	seeded := filepath.Join(teamB, "seeded.bundle")
	expect(t, starbenchIn(t, teamA, envA, "bundle", "bench.star", "-p", "time=1s", "--seed", "42", "-o", seeded), 0, "seed: 42")
	outS := filepath.Join(teamB, "seeded")
	expect(t, starbenchIn(t, teamB, envB, "rerun", "seeded.bundle", "--target", mB.DSN(), "--out", outS), 0, "repeating seeded.bundle")
	if m := readManifest(t, outS); m.Seed != 42 || m.RerunOf == nil || m.RerunOf.Seed != 42 || m.RerunOf.Started.IsZero() || m.From == nil || m.From.Kind != "bundle" {
		t.Errorf("rerun of a seeded bundle: seed %d, rerun_of %+v, from %+v", m.Seed, m.RerunOf, m.From)
	}
}

// stepList is a results folder's steps as the journal started them:
// builtin and text, one per line (a connection's text, which names the
// server, left out).
func stepList(t *testing.T, dir string) string {
	t.Helper()
	recs, err := results.ReadJournal(filepath.Join(dir, results.JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, j := range recs {
		if j.Event == "start" && j.Builtin == "db.connect" {
			b.WriteString(j.ID + " " + j.Builtin + "\n")
		} else if j.Event == "start" {
			b.WriteString(j.ID + " " + j.Builtin + " " + j.Text + "\n")
		}
	}
	return b.String()
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// editZip copies a zip archive, changing one member's content.
func editZip(t *testing.T, from, to, member string, edit func(string) string) {
	t.Helper()
	found := false
	rewriteZip(t, from, to, func(name, data string) (string, bool) {
		if name == member {
			data, found = edit(data), true
		}
		return data, true
	})
	if !found {
		t.Fatalf("no %s in %s", member, from)
	}
}

// rewriteZip copies a zip archive through edit, which returns a member's
// new content and whether to keep it.
func rewriteZip(t *testing.T, from, to string, edit func(name, data string) (string, bool)) {
	t.Helper()
	zr, err := zip.OpenReader(from)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(rc)
		rc.Close()
		content, keep := edit(f.Name, string(data))
		if !keep {
			continue
		}
		w, _ := zw.Create(f.Name)
		w.Write([]byte(content))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
