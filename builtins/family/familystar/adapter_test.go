package familystar_test

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"go.starlark.net/starlark"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/bench/benchstar"
	"github.com/starbench/starbench/builtins/db/dbstar"
	"github.com/starbench/starbench/builtins/family"
	"github.com/starbench/starbench/builtins/family/familystar"
	"github.com/starbench/starbench/internal/testutil/plantest"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
	"github.com/starbench/starbench/runner/results"
)

func TestMain(m *testing.M) { sandboxtest.Main(m) }

// counter is a family written for this test against the contract alone:
// a table of counters, read and bumped. The adapter gives it prepare,
// run, part and cleanup as every family has them.
type counter struct{ bumps *atomic.Int64 }

func (counter) Name() string    { return "counter" }
func (counter) Summary() string { return "Counters, read and bumped." }
func (counter) RunDoc() string  { return "Reads and bumps counters." }
func (counter) RunOptions() []family.Option {
	return []family.Option{
		{Name: "table", Kind: family.String, Positional: true},
		{Name: "threads", Kind: family.Int, Default: int64(1), Role: family.Threads, Check: family.AtLeast(1)},
		{Name: "time", Kind: family.Duration, Default: 10 * time.Second, Role: family.Time},
		{Name: "events", Kind: family.Int, Default: int64(0), Role: family.Events},
		{Name: "seed", Kind: family.Int, Default: int64(0), Role: family.Seed},
		{Name: "tags", Kind: family.Tags, Default: map[string]string{}, Role: family.TagsRole},
		{Name: "segment", Kind: family.String, Default: "", Role: family.Segment},
		{Name: "ignore", Kind: family.Codes, Default: []uint16{}},
	}
}
func (counter) Meta(v family.Values) results.Meta {
	return results.Meta{Name: "counter", Version: "counter-1/" + v.String("table")}
}
func (counter) CommandLine(command string, v family.Values, database string) string {
	return fmt.Sprintf("counter %s %s in %s", command, v.String("table"), database)
}
func (c counter) Run(v family.Values) (family.Run, error) {
	if v.Duration("time") == 0 && v.Int("events") == 0 {
		return nil, fmt.Errorf("give a time or events")
	}
	return &counterRun{c: c, v: v}, nil
}

func (counter) PrepareOptions() []family.Option {
	return []family.Option{{Name: "table", Kind: family.String, Positional: true}, {Name: "rows", Kind: family.Int, Default: int64(10)}}
}
func (counter) Tables(v family.Values) []string { return []string{v.String("table")} }
func (counter) PrepareDoc() string              { return "Makes the counters." }
func (counter) Prepare(ctx context.Context, conn bench.Connector, v family.Values, _ int64, out io.Writer) (*family.Prepared, error) {
	s, err := conn.Connect(ctx)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	table := v.String("table")
	fmt.Fprintf(out, "Creating table '%s.%s'...\n", bench.SchemaOf(conn), table)
	if _, err := s.Exec(ctx, "CREATE TABLE "+table+" (id INT PRIMARY KEY, v INT NOT NULL)"); err != nil {
		return nil, err
	}
	for i := range v.Int("rows") {
		if _, err := s.Exec(ctx, fmt.Sprintf("INSERT INTO %s VALUES (%d, 0)", table, i)); err != nil {
			return nil, err
		}
	}
	return &family.Prepared{Schema: bench.SchemaOf(conn), Tables: []string{table}, Rows: map[string]int64{table: v.Int("rows")}, TotalRows: v.Int("rows")}, nil
}
func (counter) CleanupOptions() []family.Option {
	return []family.Option{{Name: "table", Kind: family.String, Positional: true}}
}
func (counter) CleanupDoc() string { return "Drops the counters." }
func (counter) Cleanup(ctx context.Context, conn bench.Connector, v family.Values, out io.Writer) ([]string, error) {
	s, err := conn.Connect(ctx)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	_, err = s.Exec(ctx, "DROP TABLE "+v.String("table"))
	return []string{v.String("table")}, err
}
func (c counter) Fields(s *results.Summary) map[string]any {
	return map[string]any{"bumps": int64(s.Metrics["bumps"]), "kind_names": []any{"read", "bump"}}
}

type counterRun struct {
	c counter
	v family.Values
}

func (r *counterRun) Label() string   { return fmt.Sprintf("counter-t%d", r.v.Int("threads")) }
func (r *counterRun) Kinds() []string { return []string{"read", "bump"} }
func (r *counterRun) Planned() family.Plan {
	return family.Plan{Threads: int(r.v.Int("threads")), Time: r.v.Duration("time")}
}
func (r *counterRun) Step(conn bench.Connector, seed int64) (bench.Step, error) {
	w := &workload{table: r.v.String("table")}
	seg, _ := bench.ParseSegment(r.v.String("segment"))
	o, err := seg.Apply(bench.Options{Threads: int(r.v.Int("threads")), Time: r.v.Duration("time"), Events: r.v.Int("events"), Seed: seed,
		IgnoreErrors: r.v.Codes("ignore")})
	if err != nil {
		return bench.Step{}, err
	}
	return bench.Step{
		Run: func(ctx context.Context, sr bench.StepRun) (*bench.Result, error) {
			o.Start = sr.Start
			return bench.Run(ctx, w, conn, o, sr.Sinks...)
		},
		Annotate: func(sum *results.Summary, _ *bench.Result) {
			sum.Metrics = map[string]float64{"bumps": float64(w.bumps.Load())}
		},
		Workload: "counter", Threads: o.Threads, Total: o.Time.Seconds(), Percentile: 95, Seed: seed, Segment: seg.String(),
	}, nil
}

type workload struct {
	table string
	bumps atomic.Int64
}

func (w *workload) Meta() results.Meta {
	return results.Meta{Name: "counter", Version: "counter-1/" + w.table}
}
func (w *workload) Kinds() []string { return []string{"read", "bump"} }
func (w *workload) NewWorker(id int, seed uint64) (bench.Worker, error) {
	return &worker{w: w, n: seed | 1}, nil
}

type worker struct {
	w          *workload
	n          uint64
	kind       int
	read, bump bench.Stmt
}

func (k *worker) Prepare(ctx context.Context, s bench.Session) (err error) {
	if k.read, err = s.Prepare(ctx, "SELECT v FROM "+k.w.table+" WHERE id = ?"); err != nil {
		return err
	}
	k.bump, err = s.Prepare(ctx, "UPDATE "+k.w.table+" SET v = v + 1 WHERE id = ?")
	return err
}
func (k *worker) Event(ctx context.Context, _ bench.Session) error {
	k.n = k.n*6364136223846793005 + 1442695040888963407
	id := int64(k.n >> 40 % 10)
	if k.kind = 0; k.n>>62 == 0 {
		k.kind = 1
		k.w.bumps.Add(1)
		_, err := k.bump.Exec(ctx, id)
		return err
	}
	return k.read.Query(ctx, id)
}
func (k *worker) Kind() int { return k.kind }

var counterAdapter = &familystar.Adapter{Family: counter{}}

var modules = starlark.StringDict{"db": dbstar.Module, "bench": benchstar.Module, "counter": counterAdapter.Module()}

// The test family's module, made by the adapter alone, against the
// embedded server and a real MariaDB: prepare, run, part in
// bench.together, segments, cleanup, and one clear message for bad input.
func TestSnippets(t *testing.T) {
	plantest.RunSnippets(t, "../../../testdata/family/*.star", modules)
}

// The documentation is made from the options: positional ones first,
// then each with its default; a part's signature shortened.
func TestDocFromOptions(t *testing.T) {
	d := counterAdapter.Doc()
	var sigs []string
	for _, f := range d.Funcs {
		sigs = append(sigs, f.Signature)
	}
	want := []string{
		`counter.prepare(conn, table, rows=10)`,
		`counter.run(conn, table, threads=1, time="10s", events=0, seed=0, tags={}, segment="", ignore=[])`,
		`counter.part(conn, table, threads=1, time="10s", **run_options)`,
		`counter.cleanup(conn, table)`,
	}
	if strings.Join(sigs, "\n") != strings.Join(want, "\n") || d.Summary != "Counters, read and bumped." {
		t.Errorf("signatures:\n%s\nwant\n%s", strings.Join(sigs, "\n"), strings.Join(want, "\n"))
	}
}

// runOnly is a family without prepare and cleanup: its module has run
// and part only.
type runOnly struct{ counter }

func (runOnly) Name() string { return "runonly" }

func TestExtrasAreOptional(t *testing.T) {
	m := (&familystar.Adapter{Family: struct{ family.Family }{runOnly{}}}).Module()
	var names []string
	for k := range m.Members {
		names = append(names, k)
	}
	if len(names) != 2 || m.Members["run"] == nil || m.Members["part"] == nil {
		t.Errorf("members of a family without prepare and cleanup: %v", names)
	}
}

// A family's options as flags: one flag per option name across commands
// (its help naming the commands that take it when not all do), and the
// keywords of the flags a command line set, in the option's kind.
func TestFlagsFromOptions(t *testing.T) {
	c := counter{}
	fs := pflag.NewFlagSet("counter", pflag.ContinueOnError)
	f := familystar.BindFlags(fs, map[string][]family.Option{"run": c.RunOptions(), "prepare": c.PrepareOptions()}, "seed")
	if err := fs.Parse([]string{"--threads", "3", "--time", "1m30s", "--tags", "a=b", "--ignore", "1062,1213", "--rows", "5"}); err != nil {
		t.Fatal(err)
	}
	if fs.Lookup("seed") != nil || fs.Lookup("table") != nil {
		t.Error("a skipped option or a positional one got a flag")
	}
	if h := fs.Lookup("rows").Usage; h != "prepare: " {
		t.Errorf("--rows help %q: want it to name prepare, its only command", h)
	}
	var got []string
	for _, kv := range f.Kwargs(c.RunOptions(), map[string]starlark.Value{"events": starlark.MakeInt(7)}) {
		got = append(got, fmt.Sprintf("%s=%s", string(kv[0].(starlark.String)), kv[1]))
	}
	want := `threads=3 time="1m30s" tags={"a": "b"} ignore=[1062, 1213] events=7`
	if strings.Join(got, " ") != want {
		t.Errorf("run keywords: %s\nwant %s", strings.Join(got, " "), want)
	}
	if f.Int("threads") != 3 || f.Duration("time") != 90*time.Second || f.Int("rows") != 5 || f.String("segment") != "" {
		t.Errorf("values: threads %d time %v rows %d", f.Int("threads"), f.Duration("time"), f.Int("rows"))
	}
}
