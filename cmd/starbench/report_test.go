package main

import (
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/internal/sandbox"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
	"github.com/starbench/starbench/runner/results"
)

// matrixRun runs testdata/plans/matrix.star: two versions (b through a
// slowed proxy) x two workloads x three thread counts x two rounds.
func matrixRun(t *testing.T) string {
	m := sandboxtest.Shared(t)
	fast := m.Config()
	slow := m.Config()
	slow.Addr, _ = sandboxtest.Proxy(t, fast.Addr, 500*time.Microsecond)
	out := outDir(t)
	r := starbench(t, nil, "run", "testdata/plans/matrix.star", "--out", out, "--target", "a="+fast.FormatDSN(), "--target", "b="+slow.FormatDSN())
	expect(t, r, 0, "results: "+out+" (completed)", "| workload | threads | tags | a | b | vs a |")
	return out
}

func TestReportsOfAMatrixRun(t *testing.T) {
	out := matrixRun(t)
	for _, f := range []string{"report.md", "report.html", "compare.md", "compare.html"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() < 200 {
			t.Errorf("%s: %v", f, err)
		}
	}
	r := starbench(t, nil, "report", out, "--format", "markdown")
	expect(t, r, 0, "### oltp_point_select", "### oltp_read_only", "| version | threads | runs | tps cv | tps | qps | avg ms | p95 ms | p99 ms | min ms | max ms | errors |")
	if n := strings.Count(r.stdout, "\n| a | "); n != 6 {
		t.Errorf("%d rows for version a, want 6 (2 workloads x 3 threads):\n%s", n, r.stdout)
	}
	t.Logf("report --format markdown:\n%s", r.stdout)

	r = starbench(t, nil, "report", out, "--format", "csv")
	recs, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if err != nil || len(recs) != 1+24 || recs[0][2] != "workload" {
		t.Errorf("csv: %d records, %v", len(recs), err)
	}
	r = starbench(t, nil, "report", out, "--format", "json")
	var doc struct {
		Benchmarks []json.RawMessage `json:"benchmarks"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || len(doc.Benchmarks) != 24 {
		t.Errorf("json: %d benchmarks, %v", len(doc.Benchmarks), err)
	}

	// The slowed version is a regression beyond noise; the threshold fails.
	r = starbench(t, nil, "compare", out, "--by", "version", "--baseline", "a", "--fail-if", "tps<-50%", "--fail-if", "p99>+5000%")
	// Every step of b is about 85% slower. Steps last a second each: with
	// 200-event steps (a few ms for a) CI once saw a's two rounds differ so
	// much (cv up to 64%) that all six drops counted as noise.
	expect(t, r, 3, "threshold tps<-50% crossed: ", ", b -", "% vs a (beyond noise)", "(n=2)")
	t.Logf("compare:\n%s", r.stdout)
	r = starbench(t, nil, "compare", out, "--by", "version", "--metric", "p99", "--format", "markdown")
	expect(t, r, 0, "p99 by version, baseline a", "| oltp_read_only | 4 |")

	htmlFile := filepath.Join(t.TempDir(), "compare.html")
	expect(t, starbench(t, nil, "compare", out, "--by", "version", "--format", "html", "-o", htmlFile), 0, "wrote "+htmlFile)
	checkInBrowser(t, htmlFile, 1)
	checkInBrowser(t, filepath.Join(out, "report.html"), 2*2)
}

// A rerun of the same thing is not a regression. Steps run for a second,
// three times: with 200-event steps (a few ms) and two rounds, CI once saw
// one run's steps come out 56% slower than the other's and cross the gate.
func TestCompareRerunPassesThresholds(t *testing.T) {
	m := sandboxtest.Shared(t)
	target := "a=" + m.DSN()
	var dirs []string
	for i := 0; i < 2; i++ {
		out := outDir(t)
		r := starbench(t, nil, "run", "testdata/plans/matrix.star", "--out", out, "--target", target,
			"-p", "versions=a", "-p", "workloads=oltp_point_select", "-p", "threads=1,2", "-p", "rounds=3")
		expect(t, r, 0, "(completed)")
		dirs = append(dirs, out)
	}
	r := starbench(t, nil, append(append([]string{"compare"}, dirs...), "--fail-if", "tps<-50%", "--fail-if", "p99>+200%")...)
	expect(t, r, 0, "oltp_point_select", "vs out", "(n=3)")
	t.Logf("compare:\n%s", r.stdout)
}

// A candidate run that lost a workload (a crash, an edited plan) does not
// pass a --fail-if gate: the missing step is a row with "-" and fails the
// comparison with exit 3, naming it.
func TestCompareFailsOnAMissingStep(t *testing.T) {
	base, candidate := outDir(t), outDir(t)
	for _, r := range []struct{ dir, workloads string }{{base, "oltp_point_select,oltp_read_only"}, {candidate, "oltp_point_select"}} {
		expect(t, starbench(t, nil, "run", "testdata/plans/matrix.star", "--out", r.dir, "--target", "a=embedded",
			"-p", "versions=a", "-p", "workloads="+r.workloads, "-p", "threads=1", "-p", "rounds=1",
			"-p", "time=0", "-p", "events=20", "-p", "table_size=50"), 0, "(completed)")
	}
	r := starbench(t, nil, "compare", base, candidate, "--fail-if", "tps<-99%")
	expect(t, r, 3, "missing step: oltp_read_only t1 version=a, out#2 has none (out has; tps<-99% cannot pass without it)",
		"-: the contender has no such step")
	if !strings.Contains(r.stdout, "oltp_read_only") {
		t.Errorf("the missing step has no row:\n%s", r.stdout)
	}
	// Without a gate it is a row, and not an error.
	expect(t, starbench(t, nil, "compare", base, candidate), 0, "oltp_read_only")
}

func TestReportBadInput(t *testing.T) {
	dir := t.TempDir()
	expect(t, starbench(t, nil, "report", filepath.Join(dir, "missing")), 2, "not a starbench results folder", "missing")
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"tool": {"name": "starb`), 0o644)
	expect(t, starbench(t, nil, "report", dir), 2, "manifest.json does not parse (truncated?)")
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"tool": {"name": "other"}}`), 0o644)
	expect(t, starbench(t, nil, "report", dir), 2, "was not written by starbench")
	empty := t.TempDir()
	expect(t, starbench(t, nil, "report", empty), 2, "has no manifest.json")
	expect(t, starbench(t, nil, "report", empty, "--format", "pdf"), 2)
	expect(t, starbench(t, nil, "compare", "plans", "--fail-if", "tps<<5"), 2, "does not parse")
	expect(t, starbench(t, nil, "compare", "plans", "--metric", "speed"), 2, "unknown metric")
	expect(t, starbench(t, nil, "report"), 2, "needs at least one results folder")

	// Two real runs with nothing in common: another workload at another
	// thread count (each run prepares its tables on its own embedded server).
	a, b := outDir(t), outDir(t)
	for _, r := range []struct{ dir, workload, threads string }{{a, "oltp_point_select", "1"}, {b, "oltp_read_only", "2"}} {
		expect(t, starbench(t, nil, "run", "testdata/plans/matrix.star", "--out", r.dir, "--target", "a=embedded",
			"-p", "versions=a", "-p", "workloads="+r.workload, "-p", "threads="+r.threads, "-p", "rounds=1",
			"-p", "time=0", "-p", "events=20", "-p", "table_size=50"), 0, "results: "+r.dir+" (completed)")
		steps, err := filepath.Glob(filepath.Join(r.dir, "steps", "*", "summary.json"))
		if err != nil || len(steps) != 1 {
			t.Fatalf("%s: benchmark steps %v %v, want one", r.dir, steps, err)
		}
	}
	r := starbench(t, nil, "compare", a, b)
	expect(t, r, 2, "starbench: nothing to compare: no workload, threads and tags in common between out and out#2")
	if r.stdout != "" {
		t.Errorf("compare printed a table for runs with nothing in common:\n%s", r.stdout)
	}
	// A folder with a manifest but no benchmark step adds no contender.
	stepless := filepath.Join(t.TempDir(), "stepless")
	os.MkdirAll(stepless, 0o755)
	os.WriteFile(filepath.Join(stepless, "manifest.json"), []byte(`{"tool": {"name": "starbench"}, "plan": "x"}`), 0o644)
	expect(t, starbench(t, nil, "compare", stepless, stepless), 2, "starbench: nothing to compare: the folders hold no benchmark steps")
	expect(t, starbench(t, nil, "compare", stepless, a), 2, "starbench: nothing to compare: only one contender (out)")
}

// browserPage is a page open in headless Chromium, for a test to look at
// through JavaScript; the browser's console errors, exceptions and error
// log entries are collected as problems.
type browserPage struct {
	t        *testing.T
	file     string
	ctx      context.Context
	mu       sync.Mutex
	problems []string
}

// openInBrowser opens a file in headless Chromium (Debian's chromium; CI
// fails without it, elsewhere the test is skipped). The browser closes
// when the test ends.
func openInBrowser(t *testing.T, file string) *browserPage {
	t.Helper()
	chrome, err := exec.LookPath("chromium")
	if err != nil {
		if sandboxtest.InCI() {
			t.Fatalf("CI=true and Debian's chromium is needed for the browser test: %v", err)
		}
		t.Skip("skipping the browser check: install Debian's chromium (sudo apt-get install -y chromium)")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:0:0],
		chromedp.ExecPath(chrome), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("no-default-browser-check", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1300, 900))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	tctx, cancelT := context.WithTimeout(ctx, 120*time.Second)
	t.Cleanup(func() { cancelT(); cancelC(); cancelA() })
	p := &browserPage{t: t, file: file, ctx: tctx}
	if err := chromedp.Listen(ctx, func(ev any) {
		p.mu.Lock()
		defer p.mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning {
				p.problems = append(p.problems, "console "+string(e.Type))
			}
		case *runtime.EventExceptionThrown:
			p.problems = append(p.problems, "exception: "+e.ExceptionDetails.Text)
		case *log.EventEntryAdded:
			if e.Entry.Level == log.EntryLevelError {
				p.problems = append(p.problems, "log: "+e.Entry.Text)
			}
		}
	}); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	if _, err := chromedp.Call(ctx, log.Enable, cdp.Empty{}); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	abs, _ := filepath.Abs(file)
	if err := chromedp.Do(tctx, chromedp.Navigate("file://"+abs), chromedp.WaitReady("body")); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	return p
}

// evalIn evaluates a JavaScript expression in the page; its value comes
// back through JSON into a T.
func evalIn[T any](p *browserPage, js string) T {
	p.t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[T](js))
	if err != nil {
		p.t.Fatalf("chromium: %s: %v", p.file, err)
	}
	return v
}

// layoutProblems lists what overlaps on a page of charts: two legend
// entries of a chart (each the box around its line swatch and its label),
// two texts of a chart's SVG (tick labels, axis titles, the note), a text
// outside its SVG (clipped), a legend entry outside its chart. Boxes come
// from the browser's layout (getBoundingClientRect): the fonts are what
// Chromium draws with.
func layoutProblems(p *browserPage) []string {
	p.t.Helper()
	return evalIn[[]string](p, `(() => {
		const problems = [];
		const eps = 0.5;
		const overlap = (a, b) => a.left < b.right - eps && b.left < a.right - eps && a.top < b.bottom - eps && b.top < a.bottom - eps;
		const inside = (a, b) => a.left >= b.left - eps && a.right <= b.right + eps && a.top >= b.top - eps && a.bottom <= b.bottom + eps;
		const union = rects => rects.reduce((u, r) => ({left: Math.min(u.left, r.left), right: Math.max(u.right, r.right),
			top: Math.min(u.top, r.top), bottom: Math.max(u.bottom, r.bottom)}));
		const show = r => "[" + [r.left, r.top, r.right, r.bottom].map(v => v.toFixed(1)).join(" ") + "]";
		document.querySelectorAll("figure.chart").forEach((fig, n) => {
			const name = "chart " + (n + 1) + " (" + fig.querySelector("figcaption").textContent + ")";
			const figBox = fig.getBoundingClientRect();
			const entries = Array.from(fig.querySelectorAll("ul.legend > li")).map(li =>
				({text: li.textContent, box: union(Array.from(li.children).map(c => c.getBoundingClientRect()))}));
			entries.forEach((a, i) => {
				if (!inside(a.box, figBox)) problems.push(name + ": legend entry " + JSON.stringify(a.text) + " " + show(a.box) + " outside its chart " + show(figBox));
				entries.slice(i + 1).forEach(b => {
					if (overlap(a.box, b.box)) problems.push(name + ": legend entries " + JSON.stringify(a.text) + " " + show(a.box) + " and " + JSON.stringify(b.text) + " " + show(b.box) + " overlap");
				});
			});
			const svg = fig.querySelector("svg.chart");
			const svgBox = svg.getBoundingClientRect();
			const texts = Array.from(svg.querySelectorAll("text")).filter(t => t.textContent.trim() !== "").map(t =>
				({text: t.getAttribute("class") + " " + JSON.stringify(t.textContent), box: t.getBoundingClientRect()}));
			texts.forEach((a, i) => {
				if (!inside(a.box, svgBox)) problems.push(name + ": " + a.text + " " + show(a.box) + " is cut off by its chart " + show(svgBox));
				texts.slice(i + 1).forEach(b => {
					if (overlap(a.box, b.box)) problems.push(name + ": " + a.text + " " + show(a.box) + " and " + b.text + " " + show(b.box) + " overlap");
				});
			});
		});
		return problems;
	})()`)
}

// checkInBrowser opens a report in headless Chromium: no console errors,
// at least minCharts charts, each with drawn lines, no legend entries or
// axis labels overlapping (layoutProblems), and a screenshot.
func checkInBrowser(t *testing.T, file string, minCharts int) {
	t.Helper()
	p := openInBrowser(t, file)
	charts := evalIn[int](p, `document.querySelectorAll("svg.chart").length`)
	drawn := evalIn[int](p, `Array.from(document.querySelectorAll("svg.chart")).filter(svg => {
			const plot = svg.querySelector("g.plot");
			if (!plot) return false;
			const box = plot.getBBox();
			const lines = Array.from(plot.querySelectorAll("path")).filter(p => p.getTotalLength() > 0 || p.parentNode.querySelectorAll("circle").length > 0);
			return box.width > 0 && box.height > 0 && lines.length > 0;
		}).length`)
	for _, problem := range layoutProblems(p) {
		t.Errorf("%s: %s", filepath.Base(file), problem)
	}
	png, err := chromedp.Run(p.ctx, chromedp.FullScreenshot(80))
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	// STARBENCH_TEST_SCREENSHOTS=DIR keeps the screenshots (JPEG) and the
	// pages, to look at.
	shot := filepath.Join(t.TempDir(), "report.jpg")
	if keep := os.Getenv("STARBENCH_TEST_SCREENSHOTS"); keep != "" {
		name := filepath.Join(keep, t.Name()+"-"+strings.TrimSuffix(filepath.Base(file), ".html"))
		shot = name + ".jpg"
		if data, err := os.ReadFile(file); err == nil {
			os.WriteFile(name+".html", data, 0o644)
		}
	}
	os.WriteFile(shot, png, 0o644)
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.problems) > 0 {
		t.Errorf("%s: browser reported %v", file, p.problems)
	}
	if charts < minCharts || drawn != charts {
		t.Errorf("%s: %d charts, %d with drawn plot areas (want at least %d, all drawn)", file, charts, drawn, minCharts)
	}
	if len(png) < 20<<10 {
		t.Errorf("screenshot is only %d bytes", len(png))
	}
	t.Logf("%s: %d charts drawn; screenshot %s (%d bytes)", filepath.Base(file), charts, shot, len(png))
}

// report and compare mark the knee of each thread sweep, by the default
// rule or --knee's, when a sweep has one and the levels and repeats to
// show it; a rule that does not parse exits 2.
func TestReportKnees(t *testing.T) {
	dir := "testdata/results/before-results-package"
	// version a: 1 → 2 threads adds 3.4% of tps while p95 grows 10.7%:
	// no knee by the default rule, so no section.
	if r := starbench(t, nil, "report", dir); r.code != 0 || strings.Contains(r.stdout, "Knees") {
		t.Errorf("exit %d; a knee section without a knee:\n%s", r.code, r.stdout)
	}
	// By a looser rule 1 → 2 threads turns, but two levels cannot show a
	// knee: none is claimed, and the line says why.
	r := starbench(t, nil, "report", dir, "--knee", "tps<5%,p95>5%")
	expect(t, r, 0, "oltp_point_select version=a: no knee claimed: 1 thread to 2 meets the rule, from 2 levels and 2 and 2 runs of the two",
		"oltp_point_select version=b: no knee up to 2 threads")
	if strings.Contains(r.stdout, "knee at") {
		t.Errorf("a knee claimed from two levels:\n%s", r.stdout)
	}
	expect(t, starbench(t, nil, "compare", dir, "--by", "version", "--knee", "p95>5%,tps<5%"), 0, "a: oltp_point_select: no knee claimed")
	expect(t, starbench(t, nil, "report", dir, "--knee", "tps>5%,p95>5%"), 2, "--knee: knee rule \"tps>5%,p95>5%\"")
}

// Each benchmark step records the server settings it started with where
// they are not those the manifest snapshot at the first connect holds: a
// global set between two phases, and the handle's session statements;
// compare shows the difference between the phases.
func TestStepsRecordTheirServerSettings(t *testing.T) {
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{})
	out := outDir(t)
	expect(t, starbench(t, nil, "run", "testdata/plans/settings_phases.star", "--out", out, "--target", m.DSN()), 0, "(completed)")
	man := readManifest(t, out)
	was := man.Target("default").Variables["max_connections"]
	if was == "" || was == "321" {
		t.Fatalf("the manifest's max_connections is %q: the snapshot is not of the first connect", was)
	}
	paths, _ := filepath.Glob(filepath.Join(out, results.StepsDir, "*oltp_point_select*", results.SummaryFile))
	phases := map[string]*results.ServerSettings{}
	for _, p := range paths {
		sum, err := results.ReadSummary(filepath.Dir(p))
		if err != nil {
			t.Fatal(err)
		}
		phases[sum.Tags["phase"]] = sum.Settings
	}
	if before := phases["before"]; before == nil || len(before.Globals) != 0 || len(before.Session) != 0 || before.Error != "" {
		t.Errorf("the first phase's settings: %+v, want read and none changed", before)
	}
	after := phases["after"]
	if after == nil || len(after.Globals) != 1 || after.Globals["max_connections"] != (results.SettingChange{Was: was, Now: "321"}) ||
		!slices.Equal(after.Session, []string{"SET SESSION sql_mode = 'ANSI_QUOTES'"}) {
		t.Errorf("the second phase's settings: %+v, want max_connections %s -> 321 and the session's sql_mode", after, was)
	}
	expect(t, starbench(t, nil, "compare", out, "--by", "phase"), 0, "server settings that differ between the contenders",
		"max_connections  "+was+" ", " 321", "session          (none)", "SET SESSION sql_mode = 'ANSI_QUOTES'")
	expect(t, starbench(t, nil, "compare", out, "--by", "phase", "--format", "json"), 0, `"setting": "max_connections"`)
}

// A --fail-if gate does not pass a contender whose run failed: its step
// stopped after a few events (its tps may look fine) and the gate fails
// with exit 3 naming it, unless --allow-incomplete names it; the table
// marks its figure and a warning says what stopped it. A gate on a metric
// no step has (tpmc on a mix) is refused with exit 2, naming those there
// are.
func TestCompareGateRefusesAFailedRun(t *testing.T) {
	good, bad := outDir(t), outDir(t)
	expect(t, starbench(t, nil, "run", "testdata/plans/fails_midway.star", "--out", good), 0, "(completed)")
	expect(t, starbench(t, nil, "run", "testdata/plans/fails_midway.star", "--out", bad, "-p", "fail_after=20"), 1, "no_such_table", "(failed)")
	r := starbench(t, nil, "compare", good, bad, "--fail-if", "tps<-50%")
	expect(t, r, 3, "warning: the run in "+bad+" failed: ", "warning: step 3 of "+bad+" failed: ", " !  ",
		"incomplete: step 3 of "+bad+" failed", "tps<-50% cannot pass on it (--allow-incomplete out#2 gates on its figures anyway)")
	expect(t, starbench(t, nil, "compare", good, bad, "--fail-if", "tps<-50%", "--allow-incomplete", bad), 0, "warning: step 3 of "+bad+" failed")
	expect(t, starbench(t, nil, "report", bad), 0, " !  ", "!: the step did not run to its end", "warning: step 3 of "+bad+" failed",
		"0 (+1146 stopped it)")
	if sum, err := results.ReadSummary(filepath.Join(bad, results.StepsDir, "3-reads-t1")); err != nil || sum.StopError == nil ||
		sum.StopError.Code != "1146" || sum.Errors != 0 || sum.Events != 20 {
		t.Errorf("the failed step's summary: %+v %v", sum, err)
	}
	expect(t, starbench(t, nil, "compare", good, good, "--fail-if", "tpmc<-5%"), 2,
		"--fail-if 'tpmc<-5%': no compared step has tpmc, so the gate would pass without comparing anything (theirs: tps, qps, min, avg, p95, p99, max, retries)")
	expect(t, starbench(t, nil, "compare", good, good, "--metric", "tpmc"), 2, "--metric tpmc: no compared step has it")
}

// Every file of a results folder (the manifest, the reports, a plan's own
// compare files, the journal, each step's) is written with 0666 less the
// umask, as the journal always was: teammates and a web server can read
// them. Nothing in the folder holds a secret.
func TestResultsFilesFollowTheUmask(t *testing.T) {
	mask := syscall.Umask(0o022) // read it; the value is put back at once
	syscall.Umask(mask)
	want := os.FileMode(0o666) &^ os.FileMode(mask)
	out := outDir(t)
	expect(t, starbench(t, nil, "run", "testdata/plans/matrix.star", "--out", out, "--target", "a=embedded", "--target", "b=embedded",
		"-p", "workloads=oltp_point_select", "-p", "threads=1", "-p", "rounds=1", "-p", "time=0", "-p", "events=20", "-p", "table_size=50"), 0, "(completed)")
	n := 0
	err := filepath.WalkDir(out, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		if st, err := os.Stat(path); err != nil || st.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v (umask %03o) %v", path, st.Mode().Perm(), want, mask, err)
		}
		return nil
	})
	if err != nil || n < 10 {
		t.Errorf("%d files, %v", n, err)
	}
	for _, f := range []string{"manifest.json", "report.html", "compare.html", "journal.jsonl"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
}

// starbench version and every manifest name the build: the commit when
// Go stamped one, and always the binary's sha256 (a run by another build
// is told apart even when both say "dev").
func TestVersionAndManifestRecordTheBuild(t *testing.T) {
	data, err := os.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	want := hex.EncodeToString(sum[:])
	expect(t, starbench(t, nil, "version"), 0, "starbench ", "commit:  ", "binary:  sha256 "+want)
	out := outDir(t)
	expect(t, starbench(t, nil, "run", "testdata/plans/connect_only.star", "--out", out), 0, "(completed)")
	if m := readManifest(t, out); m.Tool.BinarySHA256 != want || m.Tool.GoVersion == "" {
		t.Errorf("manifest tool %+v, want the binary's sha256 %s", m.Tool, want)
	}
}

// db.connect names a database the server does not know: without create it
// fails saying how to go on; with create=True it creates that database
// (only it) and says so.
func TestConnectCreatesTheDatabaseItNames(t *testing.T) {
	m := sandboxtest.Shared(t)
	name := fmt.Sprintf("sb_new_%d", time.Now().UnixNano())
	cfg := m.Config()
	cfg.DBName = name
	plan := filepath.Join(t.TempDir(), "create.star")
	os.WriteFile(plan, []byte("params(create = False)\n\ndef main(p):\n    conn = db.connect(create = p.create)\n"+
		"    print(\"in %s\" % conn.query(\"SELECT DATABASE() AS d\")[0].d)\n"), 0o644)
	expect(t, starbench(t, nil, "run", plan, "--out", outDir(t), "--target", cfg.FormatDSN()), 1,
		"Unknown database '"+name+"'", "create it with CREATE DATABASE `"+name+"`, or connect with db.connect(..., create=True)")
	r := starbench(t, nil, "run", plan, "--out", outDir(t), "--target", cfg.FormatDSN(), "-p", "create=true")
	expect(t, r, 0, "db.connect: database "+name+" did not exist on ", "created it (create=True)", "in "+name)
	admin, err := db.Open(context.Background(), m.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	admin.Exec(context.Background(), "DROP DATABASE `"+name+"`")
}
