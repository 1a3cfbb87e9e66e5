// Package sysbench is the sysbench workload family's core, without
// Starlark: sysbench 1.0.20's scripts (oltp_*, select_random_*, bulk_insert,
// the legacy insert and bulk_insert) as bench.Workload values that send
// the same statements sysbench sends, its options and command lines
// (ParseCommandLine accepts them as reports print them), its random
// numbers (rand.go), prepare/prewarm/cleanup, and its text output
// (Printer). Plans reach it through sysbenchstar; a Go program can use it
// directly with a bench.Connector.
package sysbench

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/runner/results"
)

// stmtKind names oltp_common's prepared statements.
type stmtKind int

const (
	pointSelect stmtKind = iota
	simpleRange
	sumRange
	orderRange
	distinctRange
	indexUpdate
	nonIndexUpdate
	deleteRow
	insertRow
	numKinds
)

var stmtSQL = [numKinds]string{
	pointSelect:    "SELECT c FROM sbtest%d WHERE id=?",
	simpleRange:    "SELECT c FROM sbtest%d WHERE id BETWEEN ? AND ?",
	sumRange:       "SELECT SUM(k) FROM sbtest%d WHERE id BETWEEN ? AND ?",
	orderRange:     "SELECT c FROM sbtest%d WHERE id BETWEEN ? AND ? ORDER BY c",
	distinctRange:  "SELECT DISTINCT c FROM sbtest%d WHERE id BETWEEN ? AND ? ORDER BY c",
	indexUpdate:    "UPDATE sbtest%d SET k=k+1 WHERE id=?",
	nonIndexUpdate: "UPDATE sbtest%d SET c=? WHERE id=?",
	deleteRow:      "DELETE FROM sbtest%d WHERE id=?",
	insertRow:      "INSERT INTO sbtest%d (id, k, c, pad) VALUES (?, ?, ?, ?)",
}

// PrepareStyle says what a script's prepare command does.
type PrepareStyle int

const (
	// PrepareOLTP creates and loads the sbtest tables (oltp_common).
	PrepareOLTP PrepareStyle = iota
	// PrepareOLTPSingle is PrepareOLTP restricted to one table.
	PrepareOLTPSingle
	// PrepareBulk creates one empty (id, k) table per thread (bulk_insert).
	PrepareBulk
	// PrepareLegacy creates and loads oltp_legacy/common.lua's tables
	// (unsigned columns, MAX_ROWS), one table after another.
	PrepareLegacy
	// PrepareLegacyBulk creates oltp_legacy/bulk_insert.lua's tables
	// sbtest0..sbtest<threads-1>.
	PrepareLegacyBulk
)

// Script is one sysbench workload script.
type Script struct {
	Name    string
	Doc     string
	Prepare PrepareStyle
	// EmptyWithoutAutoInc: prepare loads no rows when auto_inc is off
	// (oltp_insert, whose client ids would collide with loaded rows).
	EmptyWithoutAutoInc bool
	statements          func(o *Options) []stmtKind
	trx                 func(o *Options) bool
	event               func(w *oltpWorker, ctx context.Context, s bench.Session) error
	setup               func(w *oltpWorker, ctx context.Context, s bench.Session) error
}

func rangeKinds(o *Options) []stmtKind {
	if !o.RangeSelects {
		return nil
	}
	return []stmtKind{simpleRange, sumRange, orderRange, distinctRange}
}

func inTrx(o *Options) bool { return !o.SkipTrx }
func noTrx(*Options) bool   { return false }

var scripts = []*Script{
	{Name: "oltp_point_select", Doc: "one point SELECT per event, no transaction",
		statements: func(*Options) []stmtKind { return []stmtKind{pointSelect} }, trx: noTrx,
		event: func(w *oltpWorker, ctx context.Context, s bench.Session) error { return w.pointSelects(ctx, 1) }},
	{Name: "oltp_read_only", Doc: "BEGIN, point SELECTs, range SELECTs, COMMIT",
		statements: func(o *Options) []stmtKind { return append([]stmtKind{pointSelect}, rangeKinds(o)...) }, trx: inTrx,
		event: func(w *oltpWorker, ctx context.Context, s bench.Session) error {
			return w.transaction(ctx, func() error { return w.readPart(ctx) })
		}},
	{Name: "oltp_read_write", Doc: "oltp_read_only's statements plus index and non-index UPDATE, DELETE and INSERT in one transaction",
		statements: func(o *Options) []stmtKind {
			return append(append([]stmtKind{pointSelect}, rangeKinds(o)...), indexUpdate, nonIndexUpdate, deleteRow, insertRow)
		}, trx: inTrx,
		event: func(w *oltpWorker, ctx context.Context, s bench.Session) error {
			return w.transaction(ctx, func() error {
				if err := w.readPart(ctx); err != nil {
					return err
				}
				return w.writePart(ctx)
			})
		}},
	{Name: "oltp_write_only", Doc: "BEGIN, index and non-index UPDATE, DELETE + INSERT, COMMIT",
		statements: func(*Options) []stmtKind { return []stmtKind{indexUpdate, nonIndexUpdate, deleteRow, insertRow} }, trx: inTrx,
		event: func(w *oltpWorker, ctx context.Context, s bench.Session) error {
			return w.transaction(ctx, func() error { return w.writePart(ctx) })
		}},
	{Name: "oltp_update_index", Doc: "UPDATE of the indexed column k, autocommit",
		statements: func(*Options) []stmtKind { return []stmtKind{indexUpdate} }, trx: noTrx,
		event: func(w *oltpWorker, ctx context.Context, s bench.Session) error { return w.indexUpdates(ctx) }},
	{Name: "oltp_update_non_index", Doc: "UPDATE of the non-indexed column c, autocommit",
		statements: func(*Options) []stmtKind { return []stmtKind{nonIndexUpdate} }, trx: noTrx,
		event: func(w *oltpWorker, ctx context.Context, s bench.Session) error { return w.nonIndexUpdates(ctx) }},
	{Name: "oltp_delete", Doc: "one DELETE by id, autocommit",
		statements: func(*Options) []stmtKind { return []stmtKind{deleteRow} }, trx: noTrx,
		event: func(w *oltpWorker, ctx context.Context, s bench.Session) error {
			t := w.table()
			_, err := w.stmts[t][deleteRow].Exec(ctx, w.params(w.id64())...)
			return err
		}},
	{Name: "oltp_insert", Doc: "one INSERT sent as text, autocommit", EmptyWithoutAutoInc: true,
		statements: func(*Options) []stmtKind { return nil }, trx: noTrx,
		event: func(w *oltpWorker, ctx context.Context, s bench.Session) error {
			return w.textInsert(ctx, s, w.table()+1)
		}},
	{Name: "select_random_points", Doc: "SELECT with an IN() list of random k values on sbtest1", Prepare: PrepareOLTPSingle,
		statements: func(*Options) []stmtKind { return nil }, trx: noTrx,
		setup: func(w *oltpWorker, ctx context.Context, s bench.Session) error {
			q := "SELECT id, k, c, pad FROM sbtest1 WHERE k IN (" + strings.TrimSuffix(strings.Repeat("?, ", w.o.RandomPoints), ", ") + ")"
			return w.prepareSingle(ctx, s, q)
		},
		event: func(w *oltpWorker, ctx context.Context, s bench.Session) error {
			lo, hi := w.threadSegment()
			for i := range w.args {
				w.args[i] = w.rng.Default(lo, hi)
			}
			return w.single.Query(ctx, w.args...)
		}},
	{Name: "select_random_ranges", Doc: "SELECT count(k) over OR'ed random k ranges on sbtest1", Prepare: PrepareOLTPSingle,
		statements: func(*Options) []stmtKind { return nil }, trx: noTrx,
		setup: func(w *oltpWorker, ctx context.Context, s bench.Session) error {
			q := "SELECT count(k) FROM sbtest1 WHERE " + strings.TrimSuffix(strings.Repeat("k BETWEEN ? AND ? OR ", w.o.NumberOfRanges), " OR ")
			return w.prepareSingle(ctx, s, q)
		},
		event: func(w *oltpWorker, ctx context.Context, s bench.Session) error {
			lo, hi := w.threadSegment()
			for i := 0; i < len(w.args); i += 2 {
				v := w.rng.Default(lo, hi)
				w.args[i], w.args[i+1] = v, v+w.o.Delta
			}
			return w.single.Query(ctx, w.args...)
		}},
	{Name: "bulk_insert", Doc: "multi-row INSERTs of (id, k) into one table per thread", Prepare: PrepareBulk,
		statements: func(*Options) []stmtKind { return nil }, trx: noTrx,
		event: func(w *oltpWorker, ctx context.Context, s bench.Session) error {
			return w.bulk.add(ctx, s)
		}},
	{Name: "oltp_legacy/insert", Doc: "sysbench 0.5's insert.lua: one INSERT sent as text (id 0 with auto_inc, else a unique uint32)", Prepare: PrepareLegacy,
		statements: func(*Options) []stmtKind { return nil }, trx: noTrx,
		event: func(w *oltpWorker, ctx context.Context, s bench.Session) error {
			return w.textInsert(ctx, s, w.table()+1)
		}},
	{Name: "oltp_legacy/bulk_insert", Doc: "sysbench 0.5's bulk_insert.lua: multi-row INSERTs into sbtest<thread id>", Prepare: PrepareLegacyBulk,
		statements: func(*Options) []stmtKind { return nil }, trx: noTrx,
		event: func(w *oltpWorker, ctx context.Context, s bench.Session) error {
			return w.bulk.add(ctx, s)
		}},
}

// Scripts lists the workloads by name.
func Scripts() []*Script {
	out := append([]*Script(nil), scripts...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// LookupScript finds a script by name or by path: "oltp_read_write",
// "/usr/share/sysbench/oltp_read_write.lua" and "oltp_common" (for prepare
// and cleanup) are recognised by their base name; paths under oltp_legacy/
// name the legacy scripts.
func LookupScript(name string) (*Script, error) {
	base := strings.TrimSuffix(path.Base(name), ".lua")
	legacy := strings.Contains(name, "oltp_legacy/")
	if legacy {
		base = "oltp_legacy/" + base
	}
	if base == "oltp_common" {
		base = "oltp_read_write"
	}
	for _, s := range scripts {
		if s.Name == base {
			return s, nil
		}
	}
	var names []string
	for _, s := range Scripts() {
		names = append(names, s.Name)
	}
	return nil, fmt.Errorf("unknown workload %q (known: %s)", name, strings.Join(names, ", "))
}

// checkSingleTable refuses --tables > 1 for the scripts that work on one
// table, in prepare and cleanup (sysbench's assertion).
func checkSingleTable(s *Script, o *Options) error {
	if s.Prepare == PrepareOLTPSingle && o.Tables != 1 {
		return fmt.Errorf("%s: this benchmark does not support --tables > 1 (got %d)", s.Name, o.Tables)
	}
	return nil
}

// Workload binds a script to options; it implements bench.Workload.
type Workload struct {
	Script  *Script
	Options Options
	// Checkpoints and Validate are the command line's
	// --report-checkpoints (seconds) and --validate: what a run prints,
	// not what it sends.
	Checkpoints []int
	Validate    bool
	ids         *autoRandomIDs // with auto_random_ids: the run's counters
}

// NewWorkload validates the options for a script.
func NewWorkload(script string, o Options) (*Workload, error) {
	s, err := LookupScript(script)
	if err != nil {
		return nil, err
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	// Scripts on one table (select_random_*) refuse --tables > 1 only in
	// prepare and cleanup, as sysbench's do (checkSingleTable): their run
	// uses sbtest1 whatever --tables says, so one --tables serves a whole
	// report's workloads.
	wl := &Workload{Script: s, Options: o}
	if o.AutoRandomIDs {
		wl.ids = newAutoRandomIDs(max(o.Tables, 1))
	}
	return wl, nil
}

// StatementGeneration versions how events are generated; it changes when
// the statement stream for a given seed changes.
const StatementGeneration = "1"

// Meta implements bench.Workload.
func (wl *Workload) Meta() results.Meta {
	return results.Meta{Name: wl.Script.Name, Version: "sysbench-" + wl.Options.Profile + "/gen" + StatementGeneration}
}

// NewWorker implements bench.Workload.
func (wl *Workload) NewWorker(id int, seed uint64) (bench.Worker, error) {
	o := wl.Options
	rng := NewRand(seed, &o)
	rng.SetUniqueStripe(id, o.Threads)
	return &oltpWorker{o: &o, script: wl.Script, id: id, rng: rng, ids: wl.ids}, nil
}

// oltpWorker runs one thread of a script.
type oltpWorker struct {
	o      *Options
	script *Script
	id     int
	rng    *Rand
	stmts  [][numKinds]bench.Stmt // [table index][kind]
	begin  bench.Stmt
	commit bench.Stmt
	single bench.Stmt // select_random_* statement
	args   []any
	argv   [4]any // arguments of the oltp statements, reused (see params)
	bulk   bulkBuffer
	ids    *autoRandomIDs // auto_random_ids' counters, shared by the run's workers
}

// params puts a statement's arguments in the worker's reused array: a
// variadic call through an interface would allocate a slice per query.
func (w *oltpWorker) params(args ...any) []any {
	n := copy(w.argv[:], args)
	return w.argv[:n]
}

// Prepare implements bench.Worker: it prepares the script's statements.
func (w *oltpWorker) Prepare(ctx context.Context, s bench.Session) error {
	w.stmts = make([][numKinds]bench.Stmt, w.o.Tables)
	if w.script.trx(w.o) {
		var err error
		if w.begin, err = s.Prepare(ctx, "BEGIN"); err != nil {
			return err
		}
		if w.commit, err = s.Prepare(ctx, "COMMIT"); err != nil {
			return err
		}
	}
	for _, kind := range w.script.statements(w.o) {
		for t := 0; t < w.o.Tables; t++ {
			st, err := s.Prepare(ctx, fmt.Sprintf(stmtSQL[kind], t+1))
			if err != nil {
				return err
			}
			w.stmts[t][kind] = st
		}
	}
	switch w.script.Prepare {
	case PrepareBulk:
		w.bulk = bulkBuffer{header: fmt.Sprintf("INSERT INTO sbtest%d VALUES", w.id+1)}
	case PrepareLegacyBulk:
		w.bulk = bulkBuffer{header: fmt.Sprintf("INSERT INTO sbtest%d VALUES", w.id)}
	}
	if w.ids != nil {
		if err := w.ids.start(ctx, s); err != nil {
			return err
		}
	}
	if w.script.setup != nil {
		return w.script.setup(w, ctx, s)
	}
	return nil
}

// Event implements bench.Worker.
func (w *oltpWorker) Event(ctx context.Context, s bench.Session) error {
	return w.script.event(w, ctx, s)
}

// Finish implements bench.Finisher: bulk_insert sends what it buffered.
func (w *oltpWorker) Finish(ctx context.Context, s bench.Session) error {
	return w.bulk.flush(ctx, s)
}

func (w *oltpWorker) prepareSingle(ctx context.Context, s bench.Session, q string) error {
	st, err := s.Prepare(ctx, q)
	if err != nil {
		return err
	}
	w.single = st
	n := strings.Count(q, "?")
	w.args = make([]any, n)
	return nil
}

// table picks a table index uniformly, as get_table_num() does.
func (w *oltpWorker) table() int { return int(w.rng.Uniform(1, int64(w.o.Tables))) - 1 }

func (w *oltpWorker) id64() int64 { return w.rng.Default(1, w.o.TableSize) }

// threadSegment is the k range of this thread in select_random_*: the
// table split into one segment per thread.
func (w *oltpWorker) threadSegment() (int64, int64) {
	rlen := w.o.TableSize / int64(w.o.Threads)
	lo := rlen * int64(w.id%w.o.Threads)
	return lo, lo + rlen
}

func (w *oltpWorker) transaction(ctx context.Context, body func() error) error {
	if w.begin != nil {
		if _, err := w.begin.Exec(ctx); err != nil {
			return err
		}
	}
	if err := body(); err != nil {
		return err
	}
	if w.commit != nil {
		_, err := w.commit.Exec(ctx)
		return err
	}
	return nil
}

func (w *oltpWorker) pointSelects(ctx context.Context, n int) error {
	t := w.table()
	for i := 0; i < n; i++ {
		if err := w.stmts[t][pointSelect].Query(ctx, w.params(w.id64())...); err != nil {
			return err
		}
	}
	return nil
}

func (w *oltpWorker) ranges(ctx context.Context, kind stmtKind, n int) error {
	t := w.table()
	for i := 0; i < n; i++ {
		id := w.id64()
		if err := w.stmts[t][kind].Query(ctx, w.params(id, id+w.o.RangeSize-1)...); err != nil {
			return err
		}
	}
	return nil
}

func (w *oltpWorker) readPart(ctx context.Context) error {
	if err := w.pointSelects(ctx, w.o.PointSelects); err != nil {
		return err
	}
	if !w.o.RangeSelects {
		return nil
	}
	for _, r := range []struct {
		kind stmtKind
		n    int
	}{{simpleRange, w.o.SimpleRanges}, {sumRange, w.o.SumRanges}, {orderRange, w.o.OrderRanges}, {distinctRange, w.o.DistinctRanges}} {
		if err := w.ranges(ctx, r.kind, r.n); err != nil {
			return err
		}
	}
	return nil
}

func (w *oltpWorker) indexUpdates(ctx context.Context) error {
	t := w.table()
	for i := 0; i < w.o.IndexUpdates; i++ {
		if _, err := w.stmts[t][indexUpdate].Exec(ctx, w.params(w.id64())...); err != nil {
			return err
		}
	}
	return nil
}

func (w *oltpWorker) nonIndexUpdates(ctx context.Context) error {
	t := w.table()
	for i := 0; i < w.o.NonIndexUpdates; i++ {
		c := w.rng.String(CTemplate)
		if _, err := w.stmts[t][nonIndexUpdate].Exec(ctx, w.params(c, w.id64())...); err != nil {
			return err
		}
	}
	return nil
}

func (w *oltpWorker) deleteInserts(ctx context.Context) error {
	t := w.table()
	for i := 0; i < w.o.DeleteInserts; i++ {
		id := w.id64()
		k := w.id64()
		c := w.rng.String(CTemplate)
		pad := w.rng.String(PadTemplate)
		if _, err := w.stmts[t][deleteRow].Exec(ctx, w.params(id)...); err != nil {
			return err
		}
		if _, err := w.stmts[t][insertRow].Exec(ctx, w.params(id, k, c, pad)...); err != nil {
			return err
		}
	}
	return nil
}

func (w *oltpWorker) writePart(ctx context.Context) error {
	if err := w.indexUpdates(ctx); err != nil {
		return err
	}
	if err := w.nonIndexUpdates(ctx); err != nil {
		return err
	}
	return w.deleteInserts(ctx)
}

// textInsert is oltp_insert's event: an INSERT with its values written
// in, id 0 (AUTO_INCREMENT) or a unique client id (a signed INT for
// oltp_insert, an unsigned one for the legacy script).
func (w *oltpWorker) textInsert(ctx context.Context, s bench.Session, table int) error {
	k := w.id64()
	c := w.rng.String(CTemplate)
	pad := w.rng.String(PadTemplate)
	var id int64
	switch {
	case w.ids != nil:
		id = w.ids.id(table, w.rng)
	case !w.o.AutoInc:
		id = int64(w.rng.Unique())
		if w.script.Prepare != PrepareLegacy {
			id -= 2147483648
		}
	}
	_, err := s.Exec(ctx, fmt.Sprintf("INSERT INTO sbtest%d (id, k, c, pad) VALUES (%d, %d, '%s', '%s')", table, id, k, c, pad))
	return err
}

// bulkBufferLimit is the size at which a buffered multi-row INSERT is sent.
const bulkBufferLimit = 16 << 10

// bulkBuffer builds bulk_insert's multi-row INSERTs: each event adds a row
// (n, n); a statement is sent when the buffer is full and at the end.
type bulkBuffer struct {
	header string
	buf    strings.Builder
	n      int64
}

func (b *bulkBuffer) add(ctx context.Context, s bench.Session) error {
	b.n++
	if b.buf.Len() == 0 {
		b.buf.WriteString(b.header)
	} else {
		b.buf.WriteByte(',')
	}
	fmt.Fprintf(&b.buf, "(%d,%d)", b.n, b.n)
	if b.buf.Len() >= bulkBufferLimit {
		return b.flush(ctx, s)
	}
	return nil
}

func (b *bulkBuffer) flush(ctx context.Context, s bench.Session) error {
	if b.buf.Len() == 0 {
		return nil
	}
	q := b.buf.String()
	b.buf.Reset()
	_, err := s.Exec(ctx, q)
	return err
}
