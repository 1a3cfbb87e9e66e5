package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
	"go.starlark.net/syntax"

	"github.com/starbench/starbench/runner/results"
)

// probe is a test module whose calls are real runner steps: probe.act(name,
// value) records a step returning value; probe.tree(n) runs n Go-level
// child steps; probe.wait() blocks until the run is cancelled.
var probe = &starlarkstruct.Module{Name: "probe", Members: starlark.StringDict{
	"act": starlark.NewBuiltin("probe.act", func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var name string
		var value starlark.Value = starlark.None
		if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "value?", &value); err != nil {
			return nil, err
		}
		return HostOf(thread).Step(StepInfo{Builtin: "probe.act", Text: "act " + name, Args: map[string]any{"name": name}}, Action{
			Run: func(s *Step) (Outcome, error) {
				if name == "fail" {
					return Outcome{}, errors.New("probe.act: asked to fail")
				}
				return Outcome{Value: value, Record: ToJSON(value)}, nil
			},
			Placeholder: func(s *Step) starlark.Value { return &probeValue{step: s} },
		})
	}),
	"tree": starlark.NewBuiltin("probe.tree", func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var n int
		if err := starlark.UnpackArgs(b.Name(), args, kwargs, "n", &n); err != nil {
			return nil, err
		}
		return HostOf(thread).Step(StepInfo{Builtin: "probe.tree", Text: "tree"}, Action{
			Run: func(s *Step) (Outcome, error) {
				for i := 0; i < n; i++ {
					if err := s.Child(StepInfo{Builtin: "probe.leaf"}).Execute(func(*Step) (any, error) { return i, nil }); err != nil {
						return Outcome{}, err
					}
				}
				return Outcome{Value: starlark.MakeInt(n)}, nil
			},
		})
	}),
	"known": starlark.NewBuiltin("probe.known", func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var value starlark.Bool
		if err := starlark.UnpackArgs(b.Name(), args, kwargs, "value", &value); err != nil {
			return nil, err
		}
		return HostOf(thread).Step(StepInfo{Builtin: "probe.known", Text: "known"}, Action{
			Run:         func(s *Step) (Outcome, error) { return Outcome{Value: value, Record: bool(value)}, nil },
			Placeholder: func(s *Step) starlark.Value { return s.Unknown("value", "ask for it with require") },
		})
	}),
	"wait": starlark.NewBuiltin("probe.wait", func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		return HostOf(thread).Step(StepInfo{Builtin: "probe.wait"}, Action{
			Run: func(s *Step) (Outcome, error) {
				select {
				case <-s.Context().Done():
					return Outcome{}, s.Context().Err()
				case <-time.After(20 * time.Second):
					return Outcome{}, errors.New("probe.wait: not cancelled within 20s")
				}
			},
		})
	}),
}}

// probeValue is a dry-run placeholder that notes when the plan tests it.
type probeValue struct{ step *Step }

func (p *probeValue) String() string        { return "<placeholder>" }
func (p *probeValue) Type() string          { return "probe_value" }
func (p *probeValue) Freeze()               {}
func (p *probeValue) Hash() (uint32, error) { return 0, nil }
func (p *probeValue) Truth() starlark.Bool {
	p.step.NotePlaceholder("tested the truth of")
	return false
}

type planRun struct {
	res    *Result
	err    error
	stdout string
	stderr string
}

// evalPlan writes files into a temp folder and evaluates "plan.star".
func evalPlan(t *testing.T, files map[string]string, opts Options) planRun {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var stdout, stderr bytes.Buffer
	opts.PlanFile = filepath.Join(dir, "plan.star")
	opts.Predeclared = starlark.StringDict{"probe": probe}
	opts.Stdout, opts.Stderr = &stdout, &stderr
	if opts.OutDir == "" && !opts.DryRun {
		opts.OutDir = filepath.Join(dir, "out")
	}
	if opts.Stdlib == nil {
		opts.Stdlib = fstest.MapFS{"util.star": {Data: []byte("def twice(x):\n    return 2 * x\n")}}
	}
	ctx := context.Background()
	res, err := Evaluate(ctx, opts)
	return planRun{res: res, err: err, stdout: stdout.String(), stderr: stderr.String()}
}

func readManifest(t *testing.T, dir string) results.Manifest {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, results.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	var m results.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("manifest is not valid JSON: %v\n%s", err, data)
	}
	return m
}

func TestParamsDefaultsAndOverrides(t *testing.T) {
	plan := `
params(
    threads = [1, 2],
    tables = param(4, help = "tables"),
    ratio = 0.5,
    verbose = False,
    name = "sbtest",
    time = "300s",
    tags = param([], type = "list[string]"),
)
def main(p):
    print(p.threads, p.tables, p.ratio, p.verbose, p.name, p.time, p.tags)
`
	r := evalPlan(t, map[string]string{"plan.star": plan}, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if got, want := strings.TrimSpace(r.stdout), `[1, 2] 4 0.5 False sbtest 300s []`; got != want {
		t.Errorf("defaults: got %q, want %q", got, want)
	}
	r = evalPlan(t, map[string]string{"plan.star": plan}, Options{Params: []string{
		"threads=150,300,600", "tables=16", "ratio=2", "verbose=true", "name=x=y", "time=5m", "tags=a,b",
	}})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if got, want := strings.TrimSpace(r.stdout), `[150, 300, 600] 16 2.0 True x=y 5m ["a", "b"]`; got != want {
		t.Errorf("overrides: got %q, want %q", got, want)
	}
	m := readManifest(t, r.res.Dir)
	if m.ParamTypes["threads"] != "list[int]" || m.ParamTypes["time"] != "duration" || m.ParamTypes["ratio"] != "float" {
		t.Errorf("param types in manifest: %v", m.ParamTypes)
	}
	if m.Params["tables"] != float64(16) {
		t.Errorf("manifest params: %v", m.Params)
	}
}

func TestParamsBadOverrides(t *testing.T) {
	plan := "params(threads = [1], time = \"60s\", n = 3)\ndef main(p):\n    probe.act(\"x\")\n"
	cases := []struct {
		override string
		want     string
	}{
		{"nope=1", `unknown parameter "nope"`},
		{"n=three", `parameter n (int): "three" is not an int`},
		{"threads=1,x", `parameter threads (list[int]): "x" is not an int`},
		{"time=soon", `parameter time (duration): invalid duration "soon"`},
		{"justaname", `want name=value`},
	}
	for _, c := range cases {
		r := evalPlan(t, map[string]string{"plan.star": plan}, Options{Params: []string{c.override}})
		var usage *UsageError
		if !errors.As(r.err, &usage) {
			t.Fatalf("-p %s: want a UsageError, got %v", c.override, r.err)
		}
		for _, want := range []string{c.want, "valid parameters:", "threads", "list[int]", "duration"} {
			if !strings.Contains(usage.Msg, want) {
				t.Errorf("-p %s: message lacks %q:\n%s", c.override, want, usage.Msg)
			}
		}
		if r.res.Dir != "" {
			t.Errorf("-p %s: a results folder was made for a usage error: %s", c.override, r.res.Dir)
		}
	}
	r := evalPlan(t, map[string]string{"plan.star": "def main(p):\n    pass\n"}, Options{Params: []string{"x=1"}})
	var usage *UsageError
	if !errors.As(r.err, &usage) || !strings.Contains(usage.Msg, "declares no parameters") {
		t.Errorf("override on a plan without params: %v", r.err)
	}
}

func TestParamDeclarationErrors(t *testing.T) {
	for src, want := range map[string]string{
		"params(t = [])":                           "needs type=",
		"params(t = None)":                         "needs type=",
		"params(t = param(1, type = \"weird\"))":   "unknown type",
		"params(t = param(\"x\", type = \"int\"))": "default is string",
		"params(t = {})":                           "unsupported default",
		"params(1)":                                "declared by keyword",
		"params(a = 1)\nparams(b = 2)":             "called twice",
	} {
		r := evalPlan(t, map[string]string{"plan.star": src + "\ndef main(p):\n    pass\n"}, Options{})
		if r.err == nil || !strings.Contains(r.err.Error(), want) {
			t.Errorf("%s: want error containing %q, got %v", src, want, r.err)
		}
	}
}

func TestSyntaxErrorIsPlanError(t *testing.T) {
	r := evalPlan(t, map[string]string{"plan.star": "def main(p):\n    x = (1,\n"}, Options{})
	var planErr *PlanError
	if !errors.As(r.err, &planErr) {
		t.Fatalf("want PlanError, got %T %v", r.err, r.err)
	}
	var syn syntax.Error
	if !errors.As(r.err, &syn) || syn.Pos.Line != 3 || !strings.HasSuffix(syn.Pos.Filename(), "plan.star") {
		t.Fatalf("want a syntax error at plan.star:3, got %v", r.err)
	}
	if r.res.Dir != "" {
		t.Errorf("a syntax error made a results folder")
	}
	r = evalPlan(t, map[string]string{"plan.star": "def main(p):\n    undefined_name()\n"}, Options{})
	if !errors.As(r.err, &planErr) || !strings.Contains(r.err.Error(), "plan.star:2:5: undefined: undefined_name") {
		t.Errorf("resolve error: %v", r.err)
	}
	r = evalPlan(t, map[string]string{"plan.star": "x = 1\n"}, Options{})
	if !errors.As(r.err, &planErr) || !strings.Contains(r.err.Error(), "no main(p)") {
		t.Errorf("missing main: %v", r.err)
	}
}

func TestRuntimeErrorKeepsBacktraceAndFailsRun(t *testing.T) {
	plan := "def helper():\n    probe.act(\"fail\")\n\ndef main(p):\n    probe.act(\"ok\", 1)\n    helper()\n"
	r := evalPlan(t, map[string]string{"plan.star": plan}, Options{})
	var evalErr *starlark.EvalError
	if !errors.As(r.err, &evalErr) {
		t.Fatalf("want EvalError, got %T %v", r.err, r.err)
	}
	bt := evalErr.Backtrace()
	for _, want := range []string{"plan.star:6:11: in main", "plan.star:2:14: in helper", "asked to fail"} {
		if !strings.Contains(bt, want) {
			t.Errorf("backtrace lacks %q:\n%s", want, bt)
		}
	}
	m := readManifest(t, r.res.Dir)
	if m.Status != results.StatusFailed || !strings.Contains(m.Error, "asked to fail") {
		t.Errorf("manifest status %q error %q", m.Status, m.Error)
	}
	recs, err := results.ReadJournal(filepath.Join(r.res.Dir, results.JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	var outcomes []string
	for _, rec := range recs {
		if rec.Event == "end" {
			outcomes = append(outcomes, rec.ID+":"+rec.Outcome)
		}
	}
	if strings.Join(outcomes, " ") != "1:ok 2:error" {
		t.Errorf("journal outcomes: %v", outcomes)
	}
}

func TestJournalRecordsHierarchicalSteps(t *testing.T) {
	plan := `
def main(p):
    probe.act("a", {"k": [1, 2]})
    probe.tree(3)
    probe.act("big", "x" * 40000)
`
	r := evalPlan(t, map[string]string{"plan.star": plan}, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	recs, err := results.ReadJournal(filepath.Join(r.res.Dir, results.JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	ends := map[string]results.JournalRecord{}
	for _, rec := range recs {
		switch rec.Event {
		case "start":
			ids = append(ids, rec.ID)
			if rec.Hash == "" || rec.Time.IsZero() {
				t.Errorf("start record %s lacks hash or time", rec.ID)
			}
		case "end":
			ends[rec.ID] = rec
		}
	}
	if got := strings.Join(ids, " "); got != "1 2 2.1 2.2 2.3 3" {
		t.Errorf("step ids: %s", got)
	}
	if got := string(ends["1"].Result); got != `{"k":[1,2]}` {
		t.Errorf("inline result: %s", got)
	}
	if got := string(ends["2.3"].Result); got != "2" {
		t.Errorf("child result: %s", got)
	}
	big := ends["3"]
	if big.Result != nil || big.ResultFile != "steps/3.json" {
		t.Fatalf("large result should be in a file: %+v", big)
	}
	data, err := os.ReadFile(filepath.Join(r.res.Dir, big.ResultFile))
	if err != nil || len(data) < 40000 {
		t.Errorf("result file: %d bytes, %v", len(data), err)
	}
	if first, last := recs[0], recs[len(recs)-1]; first.Event != "run" || last.Event != "run" || last.Status != results.StatusCompleted {
		t.Errorf("run records: first %+v last %+v", first, last)
	}
	if recs[1].Pos == "" || !strings.HasSuffix(recs[1].Pos, "plan.star:3:14") {
		t.Errorf("step position: %q", recs[1].Pos)
	}
}

func TestSameArgumentsSameHash(t *testing.T) {
	plan := "def main(p):\n    probe.act(\"a\")\n    probe.act(\"a\")\n    probe.act(\"b\")\n"
	r := evalPlan(t, map[string]string{"plan.star": plan}, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	recs, _ := results.ReadJournal(filepath.Join(r.res.Dir, results.JournalFile))
	var hashes []string
	for _, rec := range recs {
		if rec.Event == "start" {
			hashes = append(hashes, rec.Hash)
		}
	}
	if len(hashes) != 3 || hashes[0] != hashes[1] || hashes[0] == hashes[2] {
		t.Errorf("hashes: %v", hashes)
	}
}

func TestLoadStdlibRelativeCacheAndManifest(t *testing.T) {
	files := map[string]string{
		"plan.star": `
load("@stdlib//util.star", "twice")
load("lib/a.star", "a")
load("lib/b.star", "b")
def main(p):
    print(twice(a), b)
`,
		"lib/a.star":      "load(\"common.star\", \"count\")\na = count\n",
		"lib/b.star":      "load(\"common.star\", \"count\")\nb = count\n",
		"lib/common.star": "print(\"common loaded\")\ncount = 21\n",
	}
	r := evalPlan(t, files, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if strings.Count(r.stdout, "common loaded") != 1 {
		t.Errorf("common.star should run once:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "42 21") {
		t.Errorf("output: %s", r.stdout)
	}
	m := readManifest(t, r.res.Dir)
	stored := map[string]bool{}
	for _, src := range m.Sources {
		if len(src.SHA256) != 64 {
			t.Errorf("%s: sha256 %q", src.Name, src.SHA256)
		}
		data, err := os.ReadFile(filepath.Join(r.res.Dir, src.Stored))
		if err != nil || len(data) != src.Bytes {
			t.Errorf("%s: copy %s: %v", src.Name, src.Stored, err)
		}
		stored[src.Stored] = true
	}
	for _, want := range []string{"sources/plan.star", "sources/@stdlib/util.star", "sources/lib/a.star", "sources/lib/b.star", "sources/lib/common.star"} {
		if !stored[want] {
			t.Errorf("manifest lacks %s: %v", want, stored)
		}
	}
}

func TestLoadCycleAndMissingModule(t *testing.T) {
	files := map[string]string{
		"plan.star": "load(\"x.star\", \"x\")\ndef main(p):\n    pass\n",
		"x.star":    "load(\"y.star\", \"y\")\nx = 1\n",
		"y.star":    "load(\"x.star\", \"x\")\ny = 1\n",
	}
	r := evalPlan(t, files, Options{})
	var planErr *PlanError
	if !errors.As(r.err, &planErr) || !strings.Contains(r.err.Error(), "load cycle") {
		t.Fatalf("want load cycle PlanError, got %v", r.err)
	}
	if !strings.Contains(r.err.Error(), "x.star -> ") {
		t.Errorf("cycle message should name the chain: %v", r.err)
	}
	r = evalPlan(t, map[string]string{"plan.star": "load(\"@stdlib//nope.star\", \"x\")\ndef main(p):\n    pass\n"}, Options{})
	if !errors.As(r.err, &planErr) || !strings.Contains(r.err.Error(), "no such module in the standard library (it has util.star)") {
		t.Errorf("missing stdlib module: %v", r.err)
	}
	r = evalPlan(t, map[string]string{"plan.star": "load(\"@other//x.star\", \"x\")\ndef main(p):\n    pass\n"}, Options{})
	if !errors.As(r.err, &planErr) || !strings.Contains(r.err.Error(), "@other is not declared in") {
		t.Errorf("unknown repository: %v", r.err)
	}
}

func TestDryRunListsStepsAndNotesPlaceholders(t *testing.T) {
	plan := `
def main(p):
    v = probe.act("first")
    if v:
        probe.act("only-when-true")
    probe.tree(2)
`
	r := evalPlan(t, map[string]string{"plan.star": plan}, Options{DryRun: true})
	if r.err != nil {
		t.Fatal(r.err)
	}
	var got []string
	for _, s := range r.res.Steps {
		got = append(got, s.ID+" "+s.Text)
	}
	if strings.Join(got, "|") != "1 act first|2 tree" {
		t.Errorf("steps: %v", got)
	}
	if len(r.res.Notes) != 1 || !strings.Contains(r.res.Notes[0], "plan.star:4:") || !strings.Contains(r.res.Notes[0], "step 1 (probe.act)") {
		t.Errorf("notes: %v", r.res.Notes)
	}
	if r.res.Dir != "" {
		t.Errorf("dry-run wrote %s", r.res.Dir)
	}
}

func TestCancellationStopsRunAndKeepsValidFiles(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.star")
	os.WriteFile(plan, []byte("def main(p):\n    probe.act(\"a\")\n    probe.wait()\n    probe.act(\"never\")\n"), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	var stdout bytes.Buffer
	res, err := Evaluate(ctx, Options{PlanFile: plan, OutDir: filepath.Join(dir, "out"), Predeclared: starlark.StringDict{"probe": probe}, Stdout: &stdout, Stderr: &stdout})
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("want ErrInterrupted, got %v", err)
	}
	m := readManifest(t, res.Dir)
	if m.Status != results.StatusInterrupted || m.Ended == nil {
		t.Errorf("manifest: status %q ended %v", m.Status, m.Ended)
	}
	recs, err := results.ReadJournal(filepath.Join(res.Dir, results.JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	last := recs[len(recs)-1]
	if last.Event != "run" || last.Status != results.StatusInterrupted {
		t.Errorf("last journal record: %+v", last)
	}
	for _, rec := range recs {
		if rec.Event == "end" && rec.ID == "2" && rec.Outcome != "cancelled" {
			t.Errorf("waiting step outcome: %q", rec.Outcome)
		}
		if strings.Contains(rec.Text, "never") {
			t.Errorf("a step after the interrupt ran: %+v", rec)
		}
	}
}

func TestSecretsAreRedacted(t *testing.T) {
	// The secret reaches the plan only through -p, as a password from the
	// command line or the environment would.
	plan := "params(pw = \"\")\ndef main(p):\n    probe.act(p.pw, p.pw)\n    print(\"the password is \" + p.pw)\n    fail(p.pw)\n"
	r := evalPlan(t, map[string]string{"plan.star": plan}, Options{
		Params: []string{"pw=pw-s3cr3t"}, Secrets: []string{"pw-s3cr3t"},
		CommandLine: []string{"starbench", "--target", "root:pw-s3cr3t@tcp(x)/"},
	})
	if r.err == nil {
		t.Fatal("plan should fail")
	}
	if strings.Contains(r.stdout, "pw-s3cr3t") || !strings.Contains(r.stdout, "the password is ***") {
		t.Errorf("stdout not redacted: %q", r.stdout)
	}
	if got := r.res.Redact(r.err.Error()); strings.Contains(got, "pw-s3cr3t") {
		t.Errorf("error not redacted: %q", got)
	}
	filepath.Walk(r.res.Dir, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		data, _ := os.ReadFile(path)
		if bytes.Contains(data, []byte("pw-s3cr3t")) {
			t.Errorf("%s contains the secret", path)
		}
		return nil
	})
}

func TestDurations(t *testing.T) {
	for in, want := range map[starlark.Value]time.Duration{
		starlark.String("300s"):  300 * time.Second,
		starlark.String("5m"):    5 * time.Minute,
		starlark.String("1h30m"): 90 * time.Minute,
		starlark.String("2.5"):   2500 * time.Millisecond,
		starlark.MakeInt(300):    300 * time.Second,
		starlark.Float(0.25):     250 * time.Millisecond,
	} {
		got, err := DurationOf(in)
		if err != nil || got != want {
			t.Errorf("DurationOf(%v) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []starlark.Value{starlark.String("soon"), starlark.String("-5s"), starlark.MakeInt(-1), starlark.True} {
		if _, err := DurationOf(bad); err == nil {
			t.Errorf("DurationOf(%v) should fail", bad)
		}
	}
}

func TestOutDirMustBeNew(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "keep.txt"), []byte("x"), 0o644)
	r := evalPlan(t, map[string]string{"plan.star": "def main(p):\n    pass\n"}, Options{OutDir: dir})
	var usage *UsageError
	if !errors.As(r.err, &usage) {
		t.Fatalf("want UsageError for a non-empty --out, got %v", r.err)
	}
}

// Without --out a run gets ResultsRoot/<UTC start time>-<plan name>, with
// -2, -3, ... when that folder exists already.
func TestDefaultResultsFolderName(t *testing.T) {
	const layout = "20060102T150405Z"
	nameRe := regexp.MustCompile(`^(\d{8}T\d{6}Z)-my-plan(?:-(\d+))?$`)
	dir := t.TempDir()
	plan := filepath.Join(dir, "my-plan.star")
	if err := os.WriteFile(plan, []byte("def main(p):\n    pass\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// evaluate runs the plan without OutDir (evalPlan would set one) and
	// returns its folder's time stamp and -N suffix (1 without).
	evaluate := func(root string) (time.Time, int) {
		t.Helper()
		var sink bytes.Buffer
		before := time.Now().UTC().Truncate(time.Second)
		res, err := Evaluate(context.Background(), Options{PlanFile: plan, ResultsRoot: root, Stdout: &sink, Stderr: &sink})
		after := time.Now().UTC()
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Dir(res.Dir) != root {
			t.Fatalf("folder %s is not in %s", res.Dir, root)
		}
		m := nameRe.FindStringSubmatch(filepath.Base(res.Dir))
		if m == nil {
			t.Fatalf("folder name %s, want <%s>-my-plan[-N]", filepath.Base(res.Dir), layout)
		}
		at, err := time.Parse(layout, m[1])
		if err != nil || at.Before(before) || at.After(after) {
			t.Fatalf("folder name %s: time %s (%v), want between %s and %s", filepath.Base(res.Dir), m[1], err, before.Format(layout), after.Format(layout))
		}
		if _, err := os.Stat(filepath.Join(res.Dir, results.ManifestFile)); err != nil {
			t.Errorf("the run's folder has no manifest: %v", err)
		}
		n := 1
		if m[2] != "" {
			n, _ = strconv.Atoi(m[2])
			if n < 2 {
				t.Errorf("folder name %s: suffix -%s", filepath.Base(res.Dir), m[2])
			}
		}
		return at, n
	}

	root := t.TempDir()
	at1, n1 := evaluate(root)
	at2, n2 := evaluate(root)
	if n1 != 1 {
		t.Errorf("the first run in an empty root got the suffix -%d", n1)
	}
	// The second run starts in the same second (then it needs -2) or later.
	if at2.Before(at1) || at2.Equal(at1) && n2 != 2 || at2.After(at1) && n2 != 1 {
		t.Errorf("second run: %s suffix %d after %s suffix %d", at2.Format(layout), n2, at1.Format(layout), n1)
	}

	// Folders for every second of the next minute exist already: the run
	// takes the next free name for its second.
	root = t.TempDir()
	now := time.Now().UTC()
	for i := range 60 {
		if err := os.Mkdir(filepath.Join(root, now.Add(time.Duration(i)*time.Second).Format(layout)+"-my-plan"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if _, n := evaluate(root); n != 2 {
		t.Errorf("run beside an existing folder of its second got the suffix -%d, want -2", n)
	}
}

// A builtin that runs plan callbacks on threads of its own: probe.each(fn, n)
// calls fn(i) on n threads at once.
var probeEach = starlark.NewBuiltin("probe.each", func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var fn starlark.Callable
	var n int
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "fn", &fn, "n", &n); err != nil {
		return nil, err
	}
	return HostOf(thread).Step(StepInfo{Builtin: "probe.each"}, Action{
		Run: func(s *Step) (Outcome, error) {
			threads := make([]*starlark.Thread, n)
			for i := range threads {
				t, err := HostOf(thread).Spawn(fmt.Sprintf("worker-%d", i))
				if err != nil {
					return Outcome{}, err
				}
				threads[i] = t
			}
			errs := make(chan error, n)
			for i, t := range threads {
				go func(i int, t *starlark.Thread) {
					_, err := starlark.Call(t, fn, starlark.Tuple{starlark.MakeInt(i)}, nil)
					errs <- err
				}(i, t)
			}
			for range threads {
				if err := <-errs; err != nil {
					return Outcome{}, err
				}
			}
			return Outcome{}, nil
		},
	})
})

func TestStepsOnOtherThreadsGetChildIDs(t *testing.T) {
	probe.Members["each"] = probeEach
	defer delete(probe.Members, "each")
	plan := `
def work(i):
    probe.act("w%d-a" % i)
    probe.act("w%d-b" % i)

def main(p):
    probe.act("first")
    probe.each(work, 3)
    probe.act("last")
`
	r := evalPlan(t, map[string]string{"plan.star": plan}, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	recs, _ := results.ReadJournal(filepath.Join(r.res.Dir, results.JournalFile))
	byText := map[string]string{}
	for _, rec := range recs {
		if rec.Event == "start" {
			byText[rec.Text] = rec.ID
		}
	}
	for i := 0; i < 3; i++ {
		for k, suffix := range []string{"a", "b"} {
			text := fmt.Sprintf("act w%d-%s", i, suffix)
			want := fmt.Sprintf("2.t%d.%d", i+1, k+1)
			if byText[text] != want {
				t.Errorf("%s: id %q, want %q", text, byText[text], want)
			}
		}
	}
	if byText["act first"] != "1" || byText["act last"] != "3" {
		t.Errorf("ids around the threads: %v", byText)
	}
}

// A dry run that tests a value only a real run knows stops with the plan
// line that tested it (exit 2), instead of silently taking one branch;
// carrying and printing it is fine, and a real run takes the branch.
func TestDryRunStopsWhereAnUnknownIsTested(t *testing.T) {
	files := map[string]string{
		"plan.star": `
load("lib.star", "passed")
def main(p):
    v = probe.known(True)
    print("got", v)
    kept = [v]
    if passed(v):
        probe.act("when-true")
    probe.act("after")
`,
		"lib.star": "def passed(v):\n    return not not v\n",
	}
	r := evalPlan(t, files, Options{DryRun: true})
	var planErr *PlanError
	if !errors.As(r.err, &planErr) {
		t.Fatalf("want a PlanError, got %v", r.err)
	}
	msg := r.err.Error()
	if !regexp.MustCompile(`^\S*lib\.star:2:\d+: `).MatchString(msg) ||
		!strings.Contains(msg, "probe.known(...).value is known only in a real run (step 1)") || !strings.Contains(msg, "ask for it with require") {
		t.Errorf("error %q: want lib.star:2: and what is unknown", msg)
	}
	if !strings.Contains(r.stdout, "got <probe.known(...).value: known only in a real run>") {
		t.Errorf("print of the placeholder: %q", r.stdout)
	}
	var got []string
	for _, s := range r.res.Steps {
		got = append(got, s.Text)
	}
	if strings.Join(got, "|") != "known" {
		t.Errorf("the dry run went on after the test: steps %v", got)
	}
	r = evalPlan(t, files, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if m := readManifest(t, r.res.Dir); m.Steps != 3 {
		t.Errorf("the real run took %d steps, want 3 (known, when-true, after)", m.Steps)
	}
}

// dry_run() is for the standard library's modules only: a plan cannot
// branch on it, so check shows the steps a real run takes.
func TestDryRunIsKnownToTheStdlibOnly(t *testing.T) {
	stdlib := fstest.MapFS{"mode.star": {Data: []byte("def mode():\n    return \"dry\" if dry_run() else \"real\"\n")}}
	plan := "load(\"@stdlib//mode.star\", \"mode\")\ndef main(p):\n    print(\"mode\", mode())\n"
	for _, dry := range []bool{true, false} {
		r := evalPlan(t, map[string]string{"plan.star": plan}, Options{DryRun: dry, Stdlib: stdlib})
		want := map[bool]string{true: "mode dry", false: "mode real"}[dry]
		if r.err != nil || !strings.Contains(r.stdout, want) {
			t.Errorf("dry run %v: %v, output %q, want %q", dry, r.err, r.stdout, want)
		}
	}
	r := evalPlan(t, map[string]string{"plan.star": "def main(p):\n    if dry_run():\n        pass\n"}, Options{DryRun: true})
	var planErr *PlanError
	if !errors.As(r.err, &planErr) || !strings.Contains(r.err.Error(), "undefined: dry_run") {
		t.Errorf("a plan calling dry_run(): %v", r.err)
	}
	r = evalPlan(t, map[string]string{"plan.star": "load(\"lib.star\", \"x\")\ndef main(p):\n    pass\n", "lib.star": "x = dry_run()\n"}, Options{DryRun: true})
	if !errors.As(r.err, &planErr) || !strings.Contains(r.err.Error(), "undefined: dry_run") {
		t.Errorf("a plan's own module calling dry_run(): %v", r.err)
	}
}
