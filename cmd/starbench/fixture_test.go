package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/starbench/starbench/runner"
	"github.com/starbench/starbench/runner/results"
)

// testdata/results keeps a results folder of every format version, written
// by the starbench of that version, with what it printed for them (its
// README lists the versions, the commits and the commands).
const (
	v1Plan = "testdata/results/before-results-package"
	v1CLI  = "testdata/results/before-results-package-cli"
)

// version n's folder named name.
func fixture(n int, name string) string { return fmt.Sprintf("testdata/results/format%d/%s", n, name) }

// oldRender is one thing an old version printed for its folders.
type oldRender struct {
	format int      // the folders' format version
	args   []string // starbench's arguments, run from the repository root
	want   string   // the file holding what that version printed
	// added are the JSON members a report gained after that version,
	// as paths of object keys ("benchmarks.parts": every benchmark's
	// parts, 4c72d23), left out of this build's output to compare.
	added []string
}

func oldRenders() []oldRender {
	md := []string{"--format", "markdown"}
	report := func(n int, dir string, extra ...string) oldRender {
		args := append(append([]string{"report", dir}, extra...), md...)
		want := dir + "/report.md"
		if len(extra) > 0 {
			want = dir + "/report-parts.md"
		}
		return oldRender{format: n, args: args, want: want}
	}
	compare := func(n int, dir string) oldRender {
		return oldRender{format: n, args: append([]string{"compare", dir, "--by", "version", "--baseline", "a"}, md...), want: dir + "/compare.md"}
	}
	jsonReport := func(n int, want string, dirs ...string) oldRender {
		return oldRender{format: n, args: append(append([]string{"report"}, dirs...), "--format", "json"), want: want}
	}
	r := []oldRender{
		report(1, v1Plan), report(1, v1CLI), compare(1, v1Plan),
		jsonReport(1, "testdata/results/before-results-package.report.json", v1Plan, v1CLI),
		report(2, fixture(2, "plan")), report(2, fixture(2, "mixed")), report(2, fixture(2, "cli-a")), report(2, fixture(2, "cli-b")),
		compare(2, fixture(2, "plan")),
		{format: 2, args: append([]string{"compare", fixture(2, "cli-a"), fixture(2, "cli-b")}, md...), want: fixture(2, "compare-cli.md")},
		jsonReport(2, fixture(2, "report.json"), fixture(2, "plan"), fixture(2, "mixed"), fixture(2, "cli-a"), fixture(2, "cli-b")),
	}
	for n := 3; n <= 4; n++ {
		j := jsonReport(n, fixture(n, "report.json"), fixture(n, "plan"), fixture(n, "mixed"), fixture(n, "cli"), fixture(n, "merged"))
		if n == 3 {
			j.added = []string{"benchmarks.parts"} // version 3's JSON report had no parts
		}
		r = append(r, report(n, fixture(n, "plan")), report(n, fixture(n, "mixed")), report(n, fixture(n, "cli")),
			report(n, fixture(n, "merged")), compare(n, fixture(n, "plan")), j)
		if n >= 4 { // report --parts came after version 3
			r = append(r, report(n, fixture(n, "mixed"), "--parts"), report(n, fixture(n, "merged"), "--parts"))
		}
	}
	return r
}

// Results folders of every format version still read, and render exactly
// as the version that wrote them rendered them (a JSON report less what
// reports gained since): report in Markdown and JSON, and compare.
func TestOldResultsFoldersRenderTheSame(t *testing.T) {
	seen := map[int]bool{}
	for _, r := range oldRenders() {
		seen[r.format] = true
		t.Run(strings.TrimPrefix(r.want, "testdata/results/"), func(t *testing.T) {
			data, err := os.ReadFile("../../" + r.want)
			if err != nil {
				t.Fatal(err)
			}
			res := starbench(t, nil, r.args...)
			got, want := res.stdout, string(data)
			if len(r.added) > 0 {
				if canonicalJSON(t, want, r.added) != canonicalJSON(t, want, nil) {
					t.Fatalf("%s has the members %v: they are not additions since", r.want, r.added)
				}
				got, want = canonicalJSON(t, got, r.added), canonicalJSON(t, want, nil)
			}
			if res.code != 0 || got != want {
				t.Errorf("starbench %s: exit %d; output differs from %s:\n%s\nstderr: %s", strings.Join(r.args, " "), res.code, r.want, res.stdout, res.stderr)
			}
		})
	}
	for n := 1; n < results.FormatVersion; n++ {
		if !seen[n] {
			t.Errorf("no folder of format version %d in testdata/results", n)
		}
	}
}

// canonicalJSON is a JSON document with the members at paths removed,
// indented with its object keys sorted and its numbers as written.
func canonicalJSON(t *testing.T, doc string, paths []string) string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%v in:\n%s", err, doc)
	}
	for _, p := range paths {
		removeMember(v, strings.Split(p, "."))
	}
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// removeMember deletes the member at path from every object it reaches
// (arrays are gone through).
func removeMember(v any, path []string) {
	switch v := v.(type) {
	case []any:
		for _, e := range v {
			removeMember(e, path)
		}
	case map[string]any:
		if len(path) == 1 {
			delete(v, path[0])
		} else if next, ok := v[path[0]]; ok {
			removeMember(next, path[1:])
		}
	}
}

// This build merges parts an old version wrote (two runs at once, the
// segments of one load, a together step's parts): counts summed, every
// interval row of the parts in the merged intervals.csv (found at the
// end of its interval in the part's latency.hlog, however that version
// counted its times), the parts copied as they were, the merged step in
// this format version; a version 4 merge is repeated byte for byte.
func TestOldResultsFoldersMerge(t *testing.T) {
	for _, c := range []struct {
		parts  []string
		force  bool
		sameAs string // a merge of the same parts by the version that wrote them, where it was right
	}{
		{parts: []string{v1CLI, v1CLI}},
		{parts: []string{v1Plan + "/steps/3-oltp_point_select-t1", v1Plan + "/steps/9-oltp_point_select-t1"}},
		{parts: []string{fixture(2, "cli-a"), fixture(2, "cli-b")}},
		{parts: []string{fixture(3, "merged/parts/1-cli"), fixture(3, "merged/parts/2-seg2")}},
		{parts: []string{fixture(3, "mixed/steps/7-together/parts/1-oltp_point_select-t1"), fixture(3, "mixed/steps/7-together/parts/2-tpcc-t1")}, force: true},
		{parts: []string{fixture(4, "merged/parts/1-cli"), fixture(4, "merged/parts/2-seg2")}, sameAs: fixture(4, "merged")},
		{parts: []string{fixture(4, "mixed/steps/7-together/parts/1-oltp_point_select-t1"), fixture(4, "mixed/steps/7-together/parts/2-tpcc-t1")},
			force: true, sameAs: fixture(4, "mixed/steps/7-together")},
	} {
		out := outDir(t)
		args := append(append([]string{"merge"}, c.parts...), "-o", out)
		if c.force {
			args = append(args, "--force")
		}
		expect(t, starbench(t, nil, args...), 0, fmt.Sprintf("merged %d parts", len(c.parts)))
		merged, err := results.ReadSummary(out)
		if err != nil {
			t.Fatal(err)
		}
		var events, rowEvents int64
		for k, p := range c.parts {
			src := filepath.Join("../..", p)
			s, err := results.ReadSummary(src)
			if err != nil {
				t.Fatal(err)
			}
			events += s.Events
			rowEvents += rowsEvents(t, src)
			copied := filepath.Join(out, results.PartDir(k+1, partName(p)), results.SummaryFile)
			if a, b := readFile(t, filepath.Join(src, results.SummaryFile)), readFile(t, copied); a != b {
				t.Errorf("%s: part %d's summary changed when copied:\n%s", p, k+1, b)
			}
		}
		if merged.Format != results.FormatVersion || merged.Events != events {
			t.Errorf("%v: merged summary format %d, %d events; want %d, %d", c.parts, merged.Format, merged.Events, results.FormatVersion, events)
		}
		if got := rowsEvents(t, out); got != rowEvents {
			t.Errorf("%v: merged intervals.csv has %d events, the parts' rows %d", c.parts, got, rowEvents)
		}
		if c.sameAs != "" {
			for _, f := range []string{results.IntervalsFile, results.LatencyFile} {
				if readFile(t, filepath.Join(out, f)) != readFile(t, filepath.Join("../..", c.sameAs, f)) {
					t.Errorf("%v: merged %s differs from %s's", c.parts, f, c.sameAs)
				}
			}
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// rowsEvents adds up the events of a step folder's intervals.csv rows.
func rowsEvents(t *testing.T, dir string) int64 {
	t.Helper()
	rows, err := results.ReadIntervals(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, r := range rows {
		n += r.Events
	}
	return n
}

// A plan's folder of every format version reruns (its plan copy, params
// and seed, on the targets given again) and records which run it repeats;
// a folder that cannot (a command line's, a merge's: no plan copy; a plan
// copy gone) says why, exit 2.
func TestOldResultsFoldersRerun(t *testing.T) {
	for _, dir := range []string{v1Plan, fixture(2, "plan"), fixture(3, "plan"), fixture(4, "plan")} {
		out := outDir(t)
		expect(t, starbench(t, nil, "rerun", dir, "--target", "a=embedded", "--target", "b=embedded", "--out", out), 0, "repeating "+dir)
		old, m := readManifest(t, filepath.Join("../..", dir)), readManifest(t, out)
		if m.RerunOf == nil || m.RerunOf.Dir != dir || m.Seed != old.Seed || m.Format != results.FormatVersion {
			t.Errorf("rerun of %s: manifest rerun_of %+v, seed %d (was %d), format %d", dir, m.RerunOf, m.Seed, old.Seed, m.Format)
		}
		if got, want := len(benchmarkSteps(t, out)), len(benchmarkSteps(t, filepath.Join("../..", dir))); got != want || got == 0 {
			t.Errorf("rerun of %s: %d benchmark steps, the run had %d", dir, got, want)
		}
	}
	for n := 2; n <= 4; n++ {
		dir := filepath.Join("../..", fixture(n, "mixed"))
		rec, err := runner.LoadRecorded(dir)
		if err != nil || rec.Completed() == 0 || rec.Manifest.Plan != "testdata/plans/fixture-mixed.star" {
			t.Errorf("%s read for a rerun: %v", dir, err)
		}
	}
	for _, dir := range []string{v1CLI, fixture(2, "cli-a"), fixture(3, "cli"), fixture(3, "merged"), fixture(4, "cli"), fixture(4, "merged")} {
		expect(t, starbench(t, nil, "rerun", dir, "--out", outDir(t)), 2, dir+" was not written by 'starbench run' (no plan sources in its manifest)")
	}
	gone := filepath.Join(t.TempDir(), "plan")
	copyDir(t, filepath.Join("../..", v1Plan), gone)
	os.Remove(filepath.Join(gone, "sources", "matrix.star"))
	expect(t, starbench(t, nil, "rerun", gone, "--target", "a=embedded", "--target", "b=embedded", "--out", outDir(t)), 2,
		"the copy of testdata/plans/matrix.star is missing")
}

// A folder of a newer format version than this build reads is refused,
// naming the version that wrote it, exit 2: report, compare, merge and
// rerun; merge leaves no folder.
func TestNewerResultsFormatIsRefused(t *testing.T) {
	newer := results.FormatVersion + 1
	dir := filepath.Join(t.TempDir(), "cli")
	copyDir(t, filepath.Join("../..", fixture(4, "cli")), dir)
	setJSON := func(file string, set map[string]any) {
		t.Helper()
		path := filepath.Join(dir, file)
		var m map[string]any
		if err := json.Unmarshal([]byte(readFile(t, path)), &m); err != nil {
			t.Fatal(err)
		}
		for k, v := range set {
			m[k] = v
		}
		data, _ := json.MarshalIndent(m, "", "  ")
		os.WriteFile(path, data, 0o644)
	}
	original := readFile(t, filepath.Join(dir, results.ManifestFile))
	setJSON(results.ManifestFile, map[string]any{"format": newer, "tool": map[string]any{"name": "starbench", "version": "v9.1.0"}})
	msg := fmt.Sprintf("manifest.json was written by starbench v9.1.0, format %d; this build reads up to format %d: update starbench", newer, results.FormatVersion)
	expect(t, starbench(t, nil, "report", dir), 2, msg)
	expect(t, starbench(t, nil, "compare", dir, fixture(4, "cli")), 2, msg)
	expect(t, starbench(t, nil, "rerun", dir, "--out", outDir(t)), 2, msg)

	os.WriteFile(filepath.Join(dir, results.ManifestFile), []byte(original), 0o644)
	setJSON(results.SummaryFile, map[string]any{"format": newer})
	msg = fmt.Sprintf("summary.json was written by a newer starbench, format %d; this build reads up to format %d: update starbench", newer, results.FormatVersion)
	expect(t, starbench(t, nil, "report", dir), 2, msg)
	out := outDir(t)
	expect(t, starbench(t, nil, "merge", dir, fixture(4, "cli"), "-o", out), 2, msg)
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused merge left %s (%v)", out, err)
	}
}
