package stdlib_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"go.starlark.net/starlark"

	"github.com/starbench/starbench/builtins"
	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/mix"
	"github.com/starbench/starbench/builtins/mix/mixstar"
	"github.com/starbench/starbench/internal/sandbox"
	"github.com/starbench/starbench/internal/testutil/goycsbtest"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
	"github.com/starbench/starbench/runner"
	"github.com/starbench/starbench/stdlib"
)

var setFieldRe = regexp.MustCompile(`SET field\d+=`)

// ycsbWorkload evaluates stdlib/ycsb.star and returns workload name's mix.
func ycsbWorkload(t *testing.T, name string) *mix.Mix {
	t.Helper()
	src, err := stdlib.FS.ReadFile("ycsb.star")
	if err != nil {
		t.Fatal(err)
	}
	thread := &starlark.Thread{Name: "ycsb"}
	globals, err := starlark.ExecFile(thread, "ycsb.star", src, starlark.StringDict{"mix": mixstar.Module})
	if err != nil {
		t.Fatal(err)
	}
	v, err := starlark.Call(thread, globals["workload"], starlark.Tuple{starlark.String(name)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return v.(*mixstar.Value).Mix
}

// keyRecorder is a connector whose sessions answer nothing (the engine's
// dry sessions) and keep the first argument of every read by its
// statement: what a workload asked for, without a server.
type keyRecorder struct {
	mu    sync.Mutex
	reads map[string]int // key -> reads
}

func (k *keyRecorder) Connect(ctx context.Context) (bench.Session, error) {
	s, err := bench.DryConnector{}.Connect(ctx)
	return &recordingSession{Session: s, k: k}, err
}

type recordingSession struct {
	bench.Session
	k *keyRecorder
}

func (s *recordingSession) Prepare(ctx context.Context, q string) (bench.Stmt, error) {
	st, err := s.Session.Prepare(ctx, q)
	if !strings.Contains(q, "WHERE YCSB_KEY = ?") || !strings.HasPrefix(q, "SELECT") {
		return st, err
	}
	return &recordingStmt{Stmt: st, k: s.k}, err
}

type recordingStmt struct {
	bench.Stmt
	k *keyRecorder
}

func (s *recordingStmt) Query(ctx context.Context, args ...any) error {
	s.k.mu.Lock()
	s.k.reads[string(args[0].([]byte))]++
	s.k.mu.Unlock()
	return s.Stmt.Query(ctx, args...)
}

// goYCSBHash is go-ycsb's util.Hash64, from the standard library's FNV:
// FNV-1a over the big-endian bytes, made non-negative.
func goYCSBHash(n int64) int64 {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(n))
	h := fnv.New64a()
	h.Write(b[:])
	v := int64(h.Sum64())
	if v < 0 {
		return -v
	}
	return v
}

// YCSB's workloads A to F draw their operations in their files'
// proportions: each within 3 standard deviations of its expected count
// over 100,000 operations (the engine on sessions that answer nothing).
// Workload A's keys follow YCSB's scrambled zipfian over the 1000 records
// (a chi-square against its probabilities), named "user" + go-ycsb's hash.
func TestYCSBProportionsAndKeys(t *testing.T) {
	const n = 100_000
	want := map[string]map[string]float64{
		"a": {"read": 0.5, "update": 0.5}, "b": {"read": 0.95, "update": 0.05}, "c": {"read": 1},
		"d": {"read": 0.95, "insert": 0.05}, "e": {"scan": 0.95, "insert": 0.05}, "f": {"read": 0.5, "read_modify_write": 0.5},
	}
	for _, w := range []string{"a", "b", "c", "d", "e", "f"} {
		m := ycsbWorkload(t, w)
		rec := &keyRecorder{reads: map[string]int{}}
		step := m.Step(rec, mix.RunOptions{Threads: 2, Events: n, Seed: 42})
		res, err := step.Run(context.Background(), bench.StepRun{Output: io.Discard})
		if err != nil {
			t.Fatalf("workload %s: %v", w, err)
		}
		if len(res.Kinds) != len(want[w]) {
			t.Errorf("workload %s: kinds %v", w, m.Kinds())
		}
		for _, k := range res.Kinds {
			p := want[w][k.Name]
			exp, sd := n*p, math.Sqrt(n*p*(1-p))
			if math.Abs(float64(k.Events)-exp) > 3*sd+1e-9 {
				t.Errorf("workload %s: %s %d of %d, want %.0f ± %.0f", w, k.Name, k.Events, n, exp, 3*sd)
			}
		}
		if w == "a" {
			checkScrambledZipfianKeys(t, rec.reads, 1000)
		}
	}
}

// checkScrambledZipfianKeys compares the reads of each record with YCSB's
// scrambled zipfian: value v of a zipfian over 10^10 items (theta 0.99,
// Gray et al.'s method with YCSB's zeta) becomes record hash(v) mod
// records. The first million values are mapped one by one; the rest,
// 1.5% of the draws, spread evenly.
func checkScrambledZipfianKeys(t *testing.T, reads map[string]int, records int64) {
	t.Helper()
	byKey := map[string]int64{}
	for r := range records {
		byKey[fmt.Sprintf("user%d", goYCSBHash(r))] = r
	}
	counts := make([]float64, records)
	total := 0.0
	for key, c := range reads {
		r, ok := byKey[key]
		if !ok {
			t.Fatalf("read of %q, not a loaded record's key", key)
		}
		counts[r] += float64(c)
		total += float64(c)
	}
	const items, theta, zetan = 1e10, 0.99, 26.46902820178302
	zeta2 := 1 + math.Pow(2, -theta)
	eta := (1 - math.Pow(2/items, 1-theta)) / (1 - zeta2/zetan)
	cdf := func(v float64) float64 {
		switch {
		case v < 0:
			return 0
		case v < 1:
			return 1 / zetan
		case v < 2:
			return (1 + math.Pow(0.5, theta)) / zetan
		}
		return math.Max((1+math.Pow(0.5, theta))/zetan, (math.Pow((v+1)/items, 1-theta)-1+eta)/eta)
	}
	p := make([]float64, records)
	const mapped = 1_000_000
	for v := range int64(mapped) {
		p[goYCSBHash(v)%records] += cdf(float64(v)) - cdf(float64(v-1))
	}
	rest := (1 - cdf(mapped-1)) / float64(records)
	x := 0.0
	for r := range p {
		e := total * (p[r] + rest)
		x += (counts[r] - e) * (counts[r] - e) / e
	}
	df := float64(records - 1)
	bound := df * math.Pow(1-2/(9*df)+3.09*math.Sqrt(2/(9*df)), 3)
	if x > bound {
		top := make([]int, records)
		for i := range top {
			top[i] = i
		}
		sort.Slice(top, func(a, b int) bool { return counts[top[a]] > counts[top[b]] })
		t.Errorf("chi-square %.0f over %.0f degrees of freedom (bound %.0f); most read records %v", x, df, bound, top[:5])
	}
}

// The workloads send go-ycsb v1.0.3's statements (its db/mysql/db.go),
// one operation each, on go-ycsb's table; the load gives it its records.
func TestYCSBStatementsAsGoYCSB(t *testing.T) {
	srv := sandboxtest.StartLogging(t)
	dir := t.TempDir()
	fields := "field0,field1,field2,field3,field4,field5,field6,field7,field8,field9"
	read := "SELECT " + fields + " FROM usertable FORCE INDEX(`PRIMARY`) WHERE YCSB_KEY = ?"
	update := "UPDATE usertable SET field?= ? WHERE YCSB_KEY = ?"
	insert := "INSERT IGNORE INTO usertable (YCSB_KEY ,field0 ,field1 ,field2 ,field3 ,field4 ,field5 ,field6 ,field7 ,field8 ,field9) VALUES (? ,? ,? ,? ,? ,? ,? ,? ,? ,? ,?)"
	scan := "SELECT " + fields + " FROM usertable FORCE INDEX(`PRIMARY`) WHERE YCSB_KEY >= ? LIMIT ?"
	want := map[string][]string{"a": {read, update}, "b": {read, update}, "c": {read}, "d": {read, insert}, "e": {scan, insert}, "f": {read, update}}
	for i, w := range []string{"a", "b", "c", "d", "e", "f"} {
		plan := filepath.Join(dir, w+".star")
		src := fmt.Sprintf("load(\"@stdlib//ycsb.star\", \"workload\")\n\ndef main(p):\n    conn = db.connect()\n    m = workload(%q)\n"+
			"    loaded = mix.prepare(conn, m, threads = 2)\n    print(\"loaded\", loaded.rows[\"usertable\"])\n"+
			"    mix.run(conn, m, threads = 1, time = 0, events = 400)\n    mix.cleanup(conn, m)\n", w)
		if err := os.WriteFile(plan, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		log := srv.Capture(t, func() {
			_, err := runner.Evaluate(context.Background(), runner.Options{PlanFile: plan, Predeclared: builtins.Predeclared(), Stdlib: stdlib.FS,
				Targets: map[string]string{runner.DefaultTarget: srv.DSN()}, Secrets: []string{srv.Password()},
				OutDir: filepath.Join(dir, fmt.Sprintf("out%d", i)), Stdout: &out, Stderr: &out})
			if err != nil {
				t.Fatalf("workload %s: %v\n%s", w, err, out.String())
			}
		})
		if !strings.Contains(out.String(), "loaded 1000") {
			t.Errorf("workload %s: %s", w, out.String())
		}
		got := map[string]bool{}
		for _, l := range log {
			if l.Command == "Prepare" && strings.Contains(l.Text, "usertable") {
				got[setFieldRe.ReplaceAllString(l.Text, "SET field?=")] = true
			}
		}
		var gotList []string
		for s := range got {
			gotList = append(gotList, s)
		}
		sort.Strings(gotList)
		wantList := append([]string(nil), want[w]...)
		sort.Strings(wantList)
		if strings.Join(gotList, "\n") != strings.Join(wantList, "\n") {
			t.Errorf("workload %s prepared:\n%s\nwant go-ycsb's:\n%s", w, strings.Join(gotList, "\n"), strings.Join(wantList, "\n"))
		}
	}
}

// Both ways with go-ycsb, the peer: the same records (key names and field
// sizes) from both loads; workload A's prepared statements, and its reads
// and updates in their proportions, from both runs of 2,000 operations
// (go-ycsb given YCSB's zipfian: its own workload files say uniform);
// and starbench's workload A run on go-ycsb's records finds the row of
// every update.
func TestYCSBAgainstGoYCSB(t *testing.T) {
	checkYCSBAgainstGoYCSB(t, goycsbtest.Binary(t), sandboxtest.StartLogging(t))
}

// The same on a real TiDB: go-ycsb's mysql driver and starbench's send the
// same statements there, and load the same records into the same table,
// its primary key clustered.
func TestYCSBAgainstGoYCSBOnTiDB(t *testing.T) {
	srv := sandboxtest.StartTiDBLogging(t, sandbox.TiDBOptions{})
	// Not TiDB's default: a VARCHAR primary key is clustered only when
	// the table says so, as go-ycsb's tables do.
	srv.Exec(t, "SET GLOBAL tidb_enable_clustered_index = 'INT_ONLY'")
	checkYCSBAgainstGoYCSB(t, goycsbtest.Binary(t), srv)
}

func checkYCSBAgainstGoYCSB(t *testing.T, bin string, srv sandboxtest.Logging) {
	srv.Exec(t, "CREATE DATABASE theirs")
	srv.Exec(t, "CREATE DATABASE ours")
	workloadA := goycsbtest.Workload(t, "workloada")
	goycsbtest.Run(t, bin, srv, "theirs", "load", workloadA, "threadcount=2")

	cfg := srv.Config().Clone()
	cfg.DBName = "ours"
	dir := t.TempDir()
	evaluate := func(name, body string) string {
		t.Helper()
		plan := filepath.Join(dir, name+".star")
		src := "load(\"@stdlib//ycsb.star\", \"workload\")\n\ndef main(p):\n    conn = db.connect()\n    a = workload(\"a\")\n" + body
		if err := os.WriteFile(plan, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		_, err := runner.Evaluate(context.Background(), runner.Options{PlanFile: plan, Predeclared: builtins.Predeclared(), Stdlib: stdlib.FS,
			Targets: map[string]string{runner.DefaultTarget: cfg.FormatDSN()}, Secrets: []string{srv.Password()},
			OutDir: filepath.Join(dir, name), Stdout: &out, Stderr: &out})
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out.String())
		}
		return out.String()
	}
	evaluate("prepare", "    mix.prepare(conn, a, threads = 2)\n")
	one := func(q string) string {
		t.Helper()
		rs, err := srv.AdminConn().Query(context.Background(), q)
		if err != nil || len(rs.Rows) != 1 {
			t.Fatalf("%s: %v", q, err)
		}
		return fmt.Sprint(rs.Rows[0]...)
	}
	if got := one("SELECT COUNT(*), SUM(CHAR_LENGTH(o.FIELD0) = CHAR_LENGTH(t.FIELD9)) FROM ours.usertable o JOIN theirs.usertable t USING (YCSB_KEY)"); got != "1000 1000" {
		t.Errorf("records both tools loaded under the same key, with fields of the same size: %s, want 1000 and 1000", got)
	}

	// The same table (on TiDB, a clustered primary key as go-ycsb's
	// tidb.cluster_index makes it).
	showCreate := func(schema string) string {
		t.Helper()
		rs, err := srv.AdminConn().Query(context.Background(), "SHOW CREATE TABLE "+schema+".usertable")
		if err != nil || len(rs.Rows) != 1 {
			t.Fatalf("SHOW CREATE TABLE %s.usertable: %v", schema, err)
		}
		return fmt.Sprint(rs.Rows[0][1])
	}
	if o, th := showCreate("ours"), showCreate("theirs"); o != th {
		t.Errorf("the tables differ:\nstarbench %s\ngo-ycsb   %s", o, th)
	}

	shapes := func(log []sandboxtest.Logged) (prepared []string, executed map[string]int) {
		seen := map[string]bool{}
		executed = map[string]int{}
		for _, l := range log {
			if !strings.Contains(l.Text, "usertable") {
				continue
			}
			s := setFieldRe.ReplaceAllString(l.Text, "SET field?=")
			switch l.Command {
			case "Prepare":
				if !seen[s] {
					seen[s] = true
					prepared = append(prepared, s)
				}
			case "Execute":
				executed[strings.Fields(s)[0]]++ // SELECT or UPDATE
			}
		}
		sort.Strings(prepared)
		return prepared, executed
	}
	const ops = 2000
	theirs := srv.Capture(t, func() {
		goycsbtest.Run(t, bin, srv, "theirs", "run", workloadA, "threadcount=1", fmt.Sprintf("operationcount=%d", ops), "requestdistribution=zipfian")
	})
	ours := srv.Capture(t, func() {
		evaluate("run", fmt.Sprintf("    mix.run(conn, a, threads = 1, time = 0, events = %d)\n", ops))
	})
	theirPrepared, theirExecuted := shapes(theirs)
	ourPrepared, ourExecuted := shapes(ours)
	if strings.Join(ourPrepared, "\n") != strings.Join(theirPrepared, "\n") {
		t.Errorf("prepared statements:\nstarbench %q\ngo-ycsb   %q", ourPrepared, theirPrepared)
	}
	for tool, ex := range map[string]map[string]int{"starbench": ourExecuted, "go-ycsb": theirExecuted} {
		sd := math.Sqrt(ops * 0.25)
		if ex["SELECT"]+ex["UPDATE"] != ops || math.Abs(float64(ex["SELECT"])-ops/2) > 3*sd {
			t.Errorf("%s executed %v: want %d operations, half of them reads ± %.0f", tool, ex, ops, 3*sd)
		}
	}

	out := evaluate("theirs", "    conn.exec(\"USE theirs\")\n    r = mix.run(conn, a, threads = 2, time = 0, events = 1000)\n"+
		"    print(\"updates\", r.transactions[\"update\"].count, \"writes\", r.writes)\n")
	var updates, writes int
	if _, err := fmt.Sscanf(out[strings.Index(out, "updates "):], "updates %d writes %d", &updates, &writes); err != nil || updates < 400 || writes != updates {
		t.Errorf("on go-ycsb's records: %d updates, %d of them found their row (%v)", updates, writes, err)
	}
}
