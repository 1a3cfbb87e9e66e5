package reportstar_test

import (
	"bytes"
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"github.com/starbench/starbench/builtins/db/dbstar"
	"github.com/starbench/starbench/builtins/report/reportstar"
	"github.com/starbench/starbench/builtins/sysbench/sysbenchstar"
	"github.com/starbench/starbench/internal/testutil/plantest"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
	"github.com/starbench/starbench/runner"
	"github.com/starbench/starbench/runner/results"
)

func TestMain(m *testing.M) { sandboxtest.Main(m) }

// The report snippets make their benchmark steps with db and sysbench,
// then report on them.
func TestSnippets(t *testing.T) {
	plantest.RunSnippets(t, "../../../testdata/report/*.star", starlark.StringDict{
		"db": dbstar.Module, "sysbench": sysbenchstar.Module, "report": reportstar.Module,
	})
}

// writePublished writes a results folder as `starbench import` makes
// one of a report's figures: tps per version and threads, and a
// headline change of p95 (threads not given: imported with --threads).
func writePublished(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "published")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	m := &results.Manifest{Tool: results.ToolInfo{Name: results.ToolName, Version: "dev"}, Plan: "import", Status: results.StatusCompleted, Imported: true}
	if err := results.WriteManifest(dir, m, nil); err != nil {
		t.Fatal(err)
	}
	type row struct {
		version string
		threads int
		given   []string
		tps     float64
		metrics map[string]float64
	}
	for i, r := range []row{
		{"a", 1, []string{"threads", "tps"}, 1000, nil}, {"a", 2, []string{"threads", "tps"}, 1100, nil},
		{"b", 1, []string{"threads", "tps"}, 1200, nil}, {"b", 2, []string{"threads", "tps"}, 1300, nil},
		{"b", 1, []string{"change_p95"}, 0, map[string]float64{"change_p95": -10}},
	} {
		sum := &results.Summary{Workload: results.Meta{Name: "oltp_point_select"}, Threads: r.threads, TPS: r.tps, Metrics: r.metrics,
			Tags: map[string]string{"version": r.version, "source": "published"}, Status: results.StatusCompleted,
			Imported: &results.Imported{Source: "published.csv", Line: i + 2, Format: "csv", Given: r.given}}
		if err := results.WriteImportedStep(results.StepDir(dir, strconv.Itoa(i+1), "imported"), results.Step{Summary: sum}); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

var modules = starlark.StringDict{"db": dbstar.Module, "sysbench": sysbenchstar.Module, "report": reportstar.Module}

// report.table beside an imported folder: the plan asserts the cells;
// the table is printed and written as NAME.md, NAME.csv and NAME.html.
// A dry run prints nothing and writes nothing; an include that is not a
// results folder is bad input at the call.
func TestTableBesidePublishedFigures(t *testing.T) {
	const plan = "../../../testdata/report/plans/published.star"
	pub := writePublished(t)
	r := plantest.Evaluate(t, plan, "embedded", modules, runner.Options{Params: []string{"published=" + pub}})
	if r.Err != nil {
		t.Fatalf("%s\noutput:\n%s", plantest.Backtrace(r.Err), r.Stdout)
	}
	if !strings.Contains(r.Stdout, "tps, p95 by threads per version, source\nthreads ") ||
		!strings.Contains(r.Stdout, "b published p95 ms vs a published") || !strings.Contains(r.Stdout, "   mean  ") {
		t.Errorf("the printed table:\n%s", r.Stdout)
	}
	for _, f := range []string{"vs_published.md", "vs_published.csv", "vs_published.html"} {
		data, err := os.ReadFile(filepath.Join(r.Res.Dir, f))
		if err != nil || len(data) < 200 {
			t.Errorf("%s: %d bytes, %v", f, len(data), err)
		}
	}
	data, _ := os.ReadFile(filepath.Join(r.Res.Dir, "vs_published.csv"))
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil || strings.Join(recs[0], ",") != "threads,version,source,metric,kind,value,n,vs,given,within_noise" || len(recs) != 1+3*(4*2+2*2) {
		t.Errorf("csv: %d records, %v\n%s", len(recs), err, data)
	}

	dry := plantest.Evaluate(t, plan, "", modules, runner.Options{DryRun: true, Params: []string{"published=" + pub}})
	if dry.Err == nil || !strings.Contains(dry.Err.Error(), "one cell 1 b published tps value: got 0, want 1") {
		// The plan's asserts fail on the placeholder (an empty list), after the step is listed.
		t.Errorf("dry run: %v", dry.Err)
	}
	listed := false
	for _, s := range dry.Res.Steps {
		listed = listed || (s.Builtin == "report.table" && s.Text == "write vs_published.md, vs_published.csv, vs_published.html: tps, p95 by threads per version, source")
	}
	if !listed || strings.Contains(dry.Stdout, "by threads per version") || dry.Res.Dir != "" {
		t.Errorf("dry run: listed %v, dir %q, printed:\n%s", listed, dry.Res.Dir, dry.Stdout)
	}

	// Bad input is the plan's (exit 2), at the call: a missing include,
	// a tag no step has.
	bad := plantest.Evaluate(t, plan, "embedded", modules, runner.Options{Params: []string{"published=" + filepath.Join(t.TempDir(), "none")}})
	var usage *runner.UsageError
	if !errors.As(bad.Err, &usage) || !strings.Contains(usage.Msg, "published.star:19:") ||
		!strings.Contains(usage.Msg, "report.table: include: not a starbench results folder") {
		t.Errorf("a missing include: %v", bad.Err)
	}
	bad = plantest.Evaluate(t, "../../../testdata/report/error_table_tag.star", "embedded", modules, runner.Options{})
	if !errors.As(bad.Err, &usage) || !strings.HasSuffix(strings.SplitN(usage.Msg, ": ", 2)[0], "error_table_tag.star:9:17") {
		t.Errorf("a tag no step has: %T %v", bad.Err, bad.Err)
	}
}

// report.table(published = FILE) reads a CSV of a report's figures beside
// the plan, recorded with its sources (sha256, a copy), shows it as the
// contender "published" beside the run's steps ("rerun"), and keeps it as
// a results folder of its own in the run's; a missing file stops the run
// at the call, in a dry run too.
func TestTablePublishedBesideThePlan(t *testing.T) {
	const plan = "../../../testdata/report/plans/published_csv.star"
	r := plantest.Evaluate(t, plan, "embedded", modules, runner.Options{})
	if r.Err != nil {
		t.Fatalf("%s\noutput:\n%s", plantest.Backtrace(r.Err), r.Stdout)
	}
	if !strings.Contains(r.Stdout, "tps, avg by threads per source") || !strings.Contains(r.Stdout, "published tps") || !strings.Contains(r.Stdout, "rerun tps") {
		t.Errorf("the printed table:\n%s", r.Stdout)
	}
	m, err := results.ReadManifest(r.Res.Dir)
	if err != nil {
		t.Fatal(err)
	}
	var recorded *results.SourceFile
	for _, s := range m.Sources {
		if strings.HasSuffix(s.Name, "published_csv.csv") {
			recorded = s
		}
	}
	if recorded == nil || len(recorded.SHA256) != 64 {
		t.Fatalf("the CSV is not among the run's sources: %+v", m.Sources)
	}
	if data, err := os.ReadFile(filepath.Join(r.Res.Dir, filepath.FromSlash(recorded.Stored))); err != nil || !strings.Contains(string(data), "1500") {
		t.Errorf("the CSV's copy %s: %v", recorded.Stored, err)
	}
	pm, err := results.ReadManifest(filepath.Join(r.Res.Dir, "seed-published"))
	if err != nil || !pm.Imported {
		t.Errorf("seed-published/ is not an imported results folder: %v %+v", err, pm)
	}

	missing := runner.Options{Params: []string{"published=nowhere.csv"}}
	for _, dry := range []bool{false, true} {
		missing.DryRun = dry
		bad := plantest.Evaluate(t, plan, "embedded", modules, missing)
		var usage *runner.UsageError
		if !errors.As(bad.Err, &usage) || !strings.Contains(usage.Msg, "published_csv.star:19:") || !strings.Contains(usage.Msg, "nowhere.csv") {
			t.Errorf("dry run %v, a missing file: %v", dry, bad.Err)
		}
	}
}
