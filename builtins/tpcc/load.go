package tpcc

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/bulkload"
)

// What Prepare does with tables that already exist.
const (
	IfExistsError = "error" // fail, naming them (go-tpc would load into them and fail on a duplicate key)
	IfExistsDrop  = "drop"  // drop and load them again
	IfExistsReuse = "reuse" // keep them as they are; create and load only the missing ones
)

// LoadOptions say what Prepare loads and how.
type LoadOptions struct {
	Warehouses int    // how many warehouses (go-tpc's --warehouses)
	Threads    int    // connections loading at once; 0 means 1
	Parts      int    // HASH partitions by warehouse (go-tpc's --parts); 0 or 1 means none
	Seed       int64  // the rows are a function of the seed, the warehouse and the load time
	Method     string // bulkload.Auto (""), bulkload.Insert or bulkload.LoadData
	IfExists   string // IfExistsError (""), IfExistsDrop or IfExistsReuse
	Layout     Layout // go-tpc's tables (the default) or BenchmarkSQL's
	// LoadTime is written in c_since, h_date, o_entry_d and ol_delivery_d;
	// zero means when Prepare starts. Repeating it (LoadResult.LoadTime)
	// repeats the database exactly.
	LoadTime time.Time
}

// LoadResult says what Prepare did.
type LoadResult struct {
	Schema    string           `json:"schema,omitempty"` // the database the tables are in
	Tables    []string         `json:"tables"`           // created and loaded
	Reused    []string         `json:"reused,omitempty"` // kept as they were (if_exists=reuse)
	Rows      map[string]int64 `json:"rows"`             // rows loaded, by table
	TotalRows int64            `json:"total_rows"`
	LoadTime  string           `json:"load_time"` // the DATETIME written in the rows
	Seconds   float64          `json:"seconds"`
	RowsPerS  float64          `json:"rows_per_s"`
	// Record is where the load's C constants were recorded (go-tpc's
	// layout: LoadRecord, when the customers were loaded).
	Record string `json:"record,omitempty"`
}

func (o *LoadOptions) check() error {
	if o.Warehouses < 1 || o.Warehouses > genMaxWarehouse {
		return fmt.Errorf("warehouses must be 1..%d, not %d", genMaxWarehouse, o.Warehouses)
	}
	if o.Threads < 0 {
		return fmt.Errorf("threads must be at least 1, not %d", o.Threads)
	}
	if o.Threads == 0 {
		o.Threads = 1
	}
	if o.Parts < 0 {
		return fmt.Errorf("parts must be at least 1, not %d", o.Parts)
	}
	if o.Parts > o.Warehouses {
		return fmt.Errorf("parts (%d) must not exceed warehouses (%d): each partition holds warehouses", o.Parts, o.Warehouses)
	}
	if o.Parts > 1 && o.Layout == BenchmarkSQLLayout {
		return fmt.Errorf("parts: BenchmarkSQL's layout is not partitioned here (its history table is keyed by hist_id alone)")
	}
	switch o.IfExists {
	case "":
		o.IfExists = IfExistsError
	case IfExistsError, IfExistsDrop, IfExistsReuse:
	default:
		return fmt.Errorf("if_exists must be %s, %s or %s, not %q", IfExistsError, IfExistsDrop, IfExistsReuse, o.IfExists)
	}
	return bulkload.CheckMethod(o.Method)
}

// loadJob is a share of the load one thread takes at a time: slices
// first..last of a table group of a warehouse (0: of item).
type loadJob struct {
	group       int // the job's tables: loadGroups[group]
	warehouse   int
	tables      []string
	first, last int
}

// loadGroups are the tables loaded together: item; a warehouse's orders,
// customers and stock (the longest first).
var loadGroups = [][]string{{Item}, {Orders, NewOrder, OrderLine}, {Warehouse, District, Customer, History}, {Stock}}

// loadJobs splits the load into shares of a fraction of a second to a
// second each: every table group of every warehouse in two halves, its
// districts (or items) 1-5 and 6-10; first halves first, so that the last
// jobs are of different tables. Tables in skip are left out.
func loadJobs(warehouses int, skip map[string]bool) []loadJob {
	var jobs []loadJob
	add := func(g, w, first, last int) {
		var mine []string
		for _, t := range loadGroups[g] {
			if !skip[t] && (t != Warehouse || first == 1) { // the warehouse row is in slice 1
				mine = append(mine, t)
			}
		}
		if len(mine) > 0 {
			jobs = append(jobs, loadJob{g, w, mine, first, last})
		}
	}
	for _, half := range [][2]int{{1, Slices / 2}, {Slices/2 + 1, Slices}} {
		add(0, 0, half[0], half[1])
		for w := 1; w <= warehouses; w++ {
			for g := 1; g < len(loadGroups); g++ {
				add(g, w, half[0], half[1])
			}
		}
	}
	return jobs
}

// String says what the job loads, for progress lines.
func (j loadJob) String() string {
	if j.group == 0 || j.tables[0] == Stock {
		what := fmt.Sprintf("items %d-%d", (j.first-1)*genSliceItems+1, j.last*genSliceItems)
		if j.group == 0 {
			return "item: " + what
		}
		return fmt.Sprintf("warehouse %d: stock of %s", j.warehouse, what)
	}
	return fmt.Sprintf("warehouse %d: %s of districts %d-%d", j.warehouse, strings.Join(j.tables, ", "), j.first, j.last)
}

// Prepare creates the nine tables (with their indexes: adding the
// secondary ones after the rows was no faster on MariaDB) in the database
// conn's sessions start in, and loads the initial database of
// o.Warehouses warehouses into them, on o.Threads connections at once, in
// shares of a table group of a warehouse (see loadJobs and runJobs). The
// rows are a function of the seed, the warehouse and the load time (see
// Generator), not of the threads. It prints its progress to out.
func Prepare(ctx context.Context, conn bench.Connector, o LoadOptions, out io.Writer) (*LoadResult, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	if o.LoadTime.IsZero() {
		o.LoadTime = time.Now()
	}
	o.LoadTime = o.LoadTime.Truncate(time.Second)
	start := time.Now()
	w := &loadPrinter{w: out}
	res := &LoadResult{Schema: bench.SchemaOf(conn), Rows: map[string]int64{}, LoadTime: o.LoadTime.Format(time.DateTime)}

	admin, err := conn.Connect(ctx)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	defer admin.Close()
	skip, err := res.keepOrRefuse(ctx, admin, o.Layout, o.IfExists, w)
	if err != nil {
		return nil, err
	}
	schema := Schema{Parts: o.Parts, Layout: o.Layout}
	var created []string // go-tpc's names
	for _, t := range o.Layout.Tables() {
		if skip[t] {
			continue
		}
		ddl, err := schema.CreateTableSQL(t)
		if err != nil {
			return nil, err
		}
		name := bench.Qualified(res.Schema, o.Layout.Table(t))
		w.printf("Creating table '%s'...\n", name)
		if _, err := admin.Exec(ctx, ddl); err != nil {
			return nil, fmt.Errorf("create %s: %w", name, err)
		}
		created = append(created, t)
	}
	for _, t := range created {
		res.Tables = append(res.Tables, o.Layout.Table(t))
	}
	if len(created) == 0 {
		res.Seconds = time.Since(start).Seconds()
		return res, nil
	}

	loader := &bulkload.Loader{Method: o.Method, Fallback: func(reason error) {
		w.printf("Loading rows with INSERT: the server does not accept LOAD DATA LOCAL INFILE (%v)\n", reason)
	}}
	// The customers' last names follow the seed's C_LAST: a go-tpc-layout
	// load of them records it (see LoadRecord), cleared first so that a
	// load that fails keeps no older record.
	record := o.Layout == GoTPCLayout && slices.Contains(created, Customer)
	if record {
		if err := clearLoadRecord(ctx, admin, res.Schema, w); err != nil {
			return nil, err
		}
	}
	jobs := loadJobs(o.Warehouses, skip)
	gen := NewGenerator(o.Seed, o.LoadTime)
	rows := make([]atomic.Int64, len(Tables)) // by position in Tables
	run := func(ctx context.Context, s bench.Session, job loadJob) error {
		w.printf("Loading %s...\n", job)
		for _, t := range job.tables {
			tab, err := gen.Slices(t, job.warehouse, job.first, job.last)
			if err != nil {
				return err
			}
			tab.Name, tab.Insert = o.Layout.Table(t), o.Layout.SQL(tab.Insert)
			if err := loader.Load(ctx, s, tab); err != nil {
				if job.warehouse > 0 {
					return fmt.Errorf("warehouse %d: %w", job.warehouse, err)
				}
				return err
			}
			rows[loadTableIndex(t)].Add(tab.Rows)
		}
		return nil
	}
	if err := runJobs(ctx, conn, jobs, o.Threads, run); err != nil {
		return nil, err
	}
	for _, t := range created {
		if t == BenchmarkSQLConfig {
			n, err := writeBenchmarkSQLConfig(ctx, admin, o.Warehouses, gen.Constants())
			if err != nil {
				return nil, fmt.Errorf("fill %s: %w", bench.Qualified(res.Schema, t), err)
			}
			res.Rows[t], res.TotalRows = n, res.TotalRows+n
			continue
		}
		n := rows[loadTableIndex(t)].Load()
		res.Rows[o.Layout.Table(t)] = n
		res.TotalRows += n
	}
	if record {
		if err := writeLoadRecord(ctx, admin, o.Warehouses, o.Seed, o.LoadTime, gen.Constants()); err != nil {
			return nil, fmt.Errorf("record the load's C constants in %s: %w", bench.Qualified(res.Schema, LoadRecord), err)
		}
		res.Record = bench.Qualified(res.Schema, LoadRecord)
	}
	res.Seconds = time.Since(start).Seconds()
	if res.Seconds > 0 {
		res.RowsPerS = float64(res.TotalRows) / res.Seconds
	}
	return res, nil
}

// runJobs runs the jobs on threads sessions (at most one per job) until
// they are all done or one fails; the first failure stops the others.
// Each thread takes the first job not taken whose table group is loaded
// by fewer than threads/groups other threads (at least one), and waits for
// one when there is none: on MariaDB, two threads appending to the same
// table go slower together than one alone (they contend for the index's
// latches), while threads on different tables add up. With more threads
// than table groups, they share the tables evenly, as a distributed
// database needs.
func runJobs(ctx context.Context, conn bench.Connector, jobs []loadJob, threads int, run func(context.Context, bench.Session, loadJob) error) error {
	if len(jobs) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	q := newJobQueue(jobs, threads)
	defer context.AfterFunc(ctx, q.wake)()
	ids := make([]int, min(threads, len(jobs)))
	for i := range ids {
		ids[i] = i
	}
	err := bulkload.ByThread(ctx, conn, ids, len(ids), func(s bench.Session, _ int, _ []int) error {
		for {
			i, ok := q.take(ctx)
			if !ok {
				return nil
			}
			if err := run(ctx, s, jobs[i]); err != nil {
				cancel(err)
				return err
			}
			q.done(i)
		}
	})
	if cause := context.Cause(ctx); cause != nil && cause != context.Canceled {
		return cause // the first failure, not a thread stopped by it
	}
	return err
}

// jobQueue hands out jobs to runJobs' threads.
type jobQueue struct {
	mu      sync.Mutex
	cond    *sync.Cond
	jobs    []loadJob
	taken   []bool
	left    int
	running map[int]int // threads loading each group
	limit   int         // threads a group may have
}

func newJobQueue(jobs []loadJob, threads int) *jobQueue {
	groups := map[int]bool{}
	for _, j := range jobs {
		groups[j.group] = true
	}
	q := &jobQueue{
		jobs: jobs, taken: make([]bool, len(jobs)), left: len(jobs),
		running: map[int]int{}, limit: max(1, (threads+len(groups)-1)/len(groups)),
	}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// take returns the next job for a thread, false when there is none left or
// ctx is done.
func (q *jobQueue) take(ctx context.Context) (int, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.left > 0 && ctx.Err() == nil {
		for i, j := range q.jobs {
			if !q.taken[i] && q.running[j.group] < q.limit {
				q.taken[i] = true
				q.left--
				q.running[j.group]++
				return i, true
			}
		}
		q.cond.Wait()
	}
	return 0, false
}

func (q *jobQueue) done(i int) {
	q.mu.Lock()
	q.running[q.jobs[i].group]--
	q.mu.Unlock()
	q.cond.Broadcast()
}

func (q *jobQueue) wake() {
	q.mu.Lock()
	q.mu.Unlock()
	q.cond.Broadcast()
}

// keepOrRefuse applies if_exists to the tables that exist: it refuses
// them (error), lists them as reused and returns them as the tables to
// skip (reuse), or drops them (drop).
func (res *LoadResult) keepOrRefuse(ctx context.Context, s bench.Session, layout Layout, ifExists string, w *loadPrinter) (map[string]bool, error) {
	existing, err := existingLoadTables(ctx, s, layout)
	if err != nil {
		return nil, err
	}
	skip := map[string]bool{}
	if len(existing) == 0 {
		return skip, nil
	}
	names := make([]string, len(existing))
	for i, t := range existing {
		names[i] = bench.Qualified(res.Schema, layout.Table(t))
	}
	switch ifExists {
	case IfExistsError:
		return nil, fmt.Errorf("tables already exist: %s (drop them with cleanup, or prepare with if_exists=drop or reuse; on the command line --if-exists=drop)", strings.Join(names, ", "))
	case IfExistsReuse:
		for _, t := range existing {
			skip[t] = true
			res.Reused = append(res.Reused, layout.Table(t))
		}
	case IfExistsDrop:
		for _, t := range layout.DropOrder() { // children first: foreign keys
			i := slices.Index(existing, t)
			if i < 0 {
				continue
			}
			w.printf("Dropping table '%s' (if_exists=drop)...\n", names[i])
			if _, err := s.Exec(ctx, "DROP TABLE IF EXISTS "+layout.Table(t)); err != nil {
				return nil, fmt.Errorf("drop %s: %w", names[i], err)
			}
		}
	}
	return skip, nil
}

// existingLoadTables returns which of the layout's tables exist in the
// current database, by go-tpc's names, in creation order.
func existingLoadTables(ctx context.Context, s bench.Session, layout Layout) ([]string, error) {
	var found []string
	for _, t := range layout.Tables() {
		there, err := tableExists(ctx, s, layout.Table(t))
		if err != nil {
			return nil, fmt.Errorf("look for existing tables: %w", err)
		}
		if there {
			found = append(found, t)
		}
	}
	return found, nil
}

// tableExists says whether the session's database has the table.
func tableExists(ctx context.Context, s bench.Session, table string) (bool, error) {
	n, err := s.Query(ctx, "SELECT 1 FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = '"+table+"'")
	return n > 0, err
}

func loadTableIndex(t string) int {
	for i, name := range Tables {
		if name == t {
			return i
		}
	}
	return -1
}

// writeBenchmarkSQLConfig fills bmsql_config as BenchmarkSQL's loader
// does: the warehouses and the load's NURand constants, which its run
// reads.
func writeBenchmarkSQLConfig(ctx context.Context, s bench.Session, warehouses int, c Constants) (int64, error) {
	q := fmt.Sprintf("INSERT INTO %s (cfg_name, cfg_value) VALUES ('warehouses', '%d'), ('nURandCLast', '%d'), ('nURandCC_ID', '%d'), ('nURandCI_ID', '%d')",
		BenchmarkSQLConfig, warehouses, c.CLast, c.CID, c.OLIID)
	_, err := s.Exec(ctx, q)
	return 4, err
}

// loadPrinter serialises the lines of parallel threads.
type loadPrinter struct {
	mu sync.Mutex
	w  io.Writer
}

func (p *loadPrinter) printf(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, format, args...)
}
