package sysbench

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/bulkload"
)

// What prepare does with tables that already exist.
const (
	IfExistsError = "error" // fail, naming them (sysbench's behaviour)
	IfExistsDrop  = "drop"  // drop and prepare them again
	IfExistsReuse = "reuse" // keep them as they are
)

// syncWriter serialises lines written by parallel threads.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) printf(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprintf(s.w, format, args...)
}

// tablesOf lists the tables a script's prepare and cleanup handle.
func tablesOf(script *Script, o *Options) []int {
	n, first := o.Tables, 1
	switch script.Prepare {
	case PrepareBulk:
		n = o.Threads // bulk_insert: one table per thread
	case PrepareLegacyBulk:
		n, first = o.Threads, 0 // sbtest0..sbtest<threads-1>
	}
	tables := make([]int, n)
	for i := range tables {
		tables[i] = i + first
	}
	return tables
}

// PrepareResult says what prepare did.
type PrepareResult struct {
	Schema   string   `json:"schema,omitempty"` // the database the tables are in
	Tables   []string `json:"tables"`
	Reused   []string `json:"reused,omitempty"`
	Rows     int64    `json:"rows"`
	Seconds  float64  `json:"seconds"`
	RowsPerS float64  `json:"rows_per_s"`
}

// Prepare creates and loads the tables of a script, spreading tables over
// threads as sysbench does (table i by thread (i-1) mod threads).
func Prepare(ctx context.Context, conn bench.Connector, script *Script, o *Options, seed int64, mode PrepareMode, out io.Writer) (*PrepareResult, error) {
	if err := mode.validate(); err != nil {
		return nil, err
	}
	if err := checkSingleTable(script, o); err != nil {
		return nil, err
	}
	tables := tablesOf(script, o)
	existing, err := lookForTables(ctx, conn, tables)
	if err != nil {
		return nil, err
	}
	schema := bench.SchemaOf(conn)
	res := &PrepareResult{Schema: schema}
	skip, err := res.keepOrRefuse(mode.IfExists, existing)
	if err != nil {
		return nil, err
	}
	w := &syncWriter{w: out}
	p := &tablePreparer{
		script: script, o: o, seed: seed, ifExists: mode.IfExists, schema: schema,
		existing: existing, skip: skip, w: w,
		loader: &bulkload.Loader{Method: mode.Load, Fallback: func(reason error) {
			w.printf("Loading rows with INSERT: the server does not accept LOAD DATA LOCAL INFILE (%v)\n", reason)
		}},
	}
	threads := prepareThreads(script, o, len(tables), w)
	start := time.Now()
	err = bulkload.ByThread(ctx, conn, tables, threads, func(s bench.Session, t int, mine []int) error {
		return p.prepareTables(ctx, s, t, mine)
	})
	if err != nil {
		return nil, err
	}
	res.count(tables, p)
	res.Seconds = time.Since(start).Seconds()
	if res.Seconds > 0 {
		res.RowsPerS = float64(res.Rows) / res.Seconds
	}
	return res, nil
}

// lookForTables returns which of the tables already exist, over a
// connection of its own.
func lookForTables(ctx context.Context, conn bench.Connector, tables []int) ([]int, error) {
	admin, err := conn.Connect(ctx)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	existing, err := existingTables(ctx, admin, tables)
	admin.Close()
	return existing, err
}

// keepOrRefuse applies if_exists to the tables that exist: it refuses
// them (error), lists them as reused and returns them as the tables to
// skip (reuse), or leaves them to be dropped (drop).
func (res *PrepareResult) keepOrRefuse(ifExists string, existing []int) (map[int]bool, error) {
	skip := map[int]bool{}
	if len(existing) == 0 {
		return skip, nil
	}
	switch ifExists {
	case IfExistsError:
		return nil, fmt.Errorf("tables already exist: %s (drop them with cleanup, or prepare with if_exists=drop or reuse; on the command line --if-exists=drop)", strings.Join(qualifiedNames(res.Schema, existing), ", "))
	case IfExistsReuse:
		for _, n := range existing {
			skip[n] = true
			res.Reused = append(res.Reused, TableName(n))
		}
	}
	return skip, nil
}

// prepareThreads is how many threads load the tables: the options'
// (one for the legacy prepare), at most one per table. Like sysbench, it
// announces the worker threads when there are more than one before that
// cap.
func prepareThreads(script *Script, o *Options, tables int, w *syncWriter) int {
	threads := o.Threads
	if script.Prepare == PrepareLegacy {
		threads = 1 // the legacy prepare runs in one thread
	}
	if threads > 1 {
		w.printf("Initializing worker threads...\n\n")
	}
	return min(threads, tables)
}

// tablePreparer prepares tables in one Prepare's threads.
type tablePreparer struct {
	script   *Script
	o        *Options
	seed     int64
	ifExists string
	schema   string
	existing []int        // the tables that were there before
	skip     map[int]bool // the tables kept as they are (if_exists=reuse)
	w        *syncWriter
	loader   *bulkload.Loader
	rows     sync.Map // rows loaded (int64), by table number
}

// prepareTables prepares thread t's tables (mine) on its session, with
// the thread's random stream, dropping each first with if_exists=drop.
func (p *tablePreparer) prepareTables(ctx context.Context, s bench.Session, t int, mine []int) error {
	rng := NewRand(bench.WorkerSeed(p.seed, t), p.o)
	for _, n := range mine {
		if p.skip[n] {
			continue
		}
		if p.ifExists == IfExistsDrop {
			if err := p.drop(ctx, s, n); err != nil {
				return err
			}
		}
		loaded, err := prepareTable(ctx, s, p.script, p.o, n, rng, p.w, p.loader)
		if err != nil {
			return err
		}
		p.rows.Store(n, loaded)
	}
	return nil
}

// drop drops table n before it is prepared again (if_exists=drop). The
// statement goes out for every table, so that the stream does not depend
// on what the server held (a rerun sends what the first run sent); the
// line is printed for the tables that were there.
func (p *tablePreparer) drop(ctx context.Context, s bench.Session, n int) error {
	if slices.Contains(p.existing, n) {
		p.w.printf("Dropping table '%s' (if_exists=drop)...\n", bench.Qualified(p.schema, TableName(n)))
	}
	if _, err := s.Exec(ctx, "DROP TABLE IF EXISTS "+TableName(n)); err != nil {
		return fmt.Errorf("drop %s: %w", bench.Qualified(p.schema, TableName(n)), err)
	}
	return nil
}

// count lists the tables prepared (all but the reused ones) and adds up
// the rows loaded into them.
func (res *PrepareResult) count(tables []int, p *tablePreparer) {
	for _, n := range tables {
		if !p.skip[n] {
			res.Tables = append(res.Tables, TableName(n))
		}
		if v, ok := p.rows.Load(n); ok {
			res.Rows += v.(int64)
		}
	}
}

func qualifiedNames(schema string, tables []int) []string {
	out := make([]string, len(tables))
	for i, n := range tables {
		out[i] = bench.Qualified(schema, TableName(n))
	}
	return out
}

// existingTables returns which of the tables exist in the current database.
func existingTables(ctx context.Context, s bench.Session, tables []int) ([]int, error) {
	var found []int
	for _, n := range tables {
		rows, err := s.Query(ctx, fmt.Sprintf("SHOW TABLES LIKE '%s'", TableName(n)))
		if err != nil {
			return nil, fmt.Errorf("look for existing tables: %w", err)
		}
		if rows > 0 {
			found = append(found, n)
		}
	}
	sort.Ints(found)
	return found, nil
}

func prepareTable(ctx context.Context, s bench.Session, script *Script, o *Options, n int, rng *Rand, w *syncWriter, l *bulkload.Loader) (int64, error) {
	w.printf("Creating table 'sbtest%d'...\n", n)
	ddl := CreateTableSQL(o, n)
	switch script.Prepare {
	case PrepareBulk:
		_, err := s.Exec(ctx, BulkTableSQL(n))
		return 0, err
	case PrepareLegacyBulk:
		_, err := s.Exec(ctx, LegacyBulkTableSQL(n))
		return 0, err
	case PrepareLegacy:
		ddl = LegacyCreateTableSQL(o, n)
	}
	if _, err := s.Exec(ctx, ddl); err != nil {
		return 0, fmt.Errorf("create sbtest%d: %w", n, err)
	}
	size := o.TableSize
	if script.EmptyWithoutAutoInc && !o.AutoInc {
		size = 0
	}
	if size > 0 {
		w.printf("Inserting %d records into 'sbtest%d'\n", size, n)
	}
	viaLoadData, err := l.LoadVia(ctx, s, rows(o, n, size, rng))
	if err != nil {
		return 0, err
	}
	if viaLoadData && o.AutoInc && size > 0 {
		// sysbench's INSERTs leave the counter at the rows' end; LOAD DATA
		// leaves it where InnoDB's last reserved block ends (16384 after
		// 10,000 rows), and the insert workloads' ids would start there.
		// (A server that cannot lower it, TiDB, keeps its own with a
		// warning, as it would after sysbench's INSERTs.)
		if _, err := s.Exec(ctx, fmt.Sprintf("ALTER TABLE sbtest%d AUTO_INCREMENT = %d", n, size+1)); err != nil {
			return 0, fmt.Errorf("sbtest%d: set AUTO_INCREMENT after the rows: %w", n, err)
		}
	}
	if o.CreateSecondary {
		if script.Prepare == PrepareLegacy {
			w.printf("Creating secondary indexes on 'sbtest%d'...\n", n)
		} else {
			w.printf("Creating a secondary index on 'sbtest%d'...\n", n)
		}
		if _, err := s.Exec(ctx, CreateIndexSQL(n)); err != nil {
			return 0, fmt.Errorf("index sbtest%d: %w", n, err)
		}
	}
	return size, nil
}

// Cleanup drops the script's tables from the database conn's sessions
// start in, naming it in every line it prints.
func Cleanup(ctx context.Context, conn bench.Connector, script *Script, o *Options, out io.Writer) ([]string, error) {
	if err := checkSingleTable(script, o); err != nil {
		return nil, err
	}
	s, err := conn.Connect(ctx)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	defer s.Close()
	schema := bench.SchemaOf(conn)
	var dropped []string
	for _, n := range tablesOf(script, o) {
		name := bench.Qualified(schema, TableName(n))
		fmt.Fprintf(out, "Dropping table '%s'...\n", name)
		if _, err := s.Exec(ctx, "DROP TABLE IF EXISTS "+TableName(n)); err != nil {
			return dropped, fmt.Errorf("drop %s: %w", name, err)
		}
		dropped = append(dropped, TableName(n))
	}
	return dropped, nil
}

// Prewarm loads the tables into the server's caches: ANALYZE TABLE, then a
// full read of the primary key and of the rows (prewarm in 1.0.20, warmup
// in master), tables spread over threads.
func Prewarm(ctx context.Context, conn bench.Connector, script *Script, o *Options, out io.Writer) error {
	tables := tablesOf(script, o)
	threads := o.Threads
	if threads > len(tables) {
		threads = len(tables)
	}
	w := &syncWriter{w: out}
	if o.Threads > 1 {
		w.printf("Initializing worker threads...\n\n")
	}
	verb := "Prewarming"
	if o.Profile == ProfileMaster {
		verb = "Preloading"
	}
	return bulkload.ByThread(ctx, conn, tables, threads, func(s bench.Session, _ int, mine []int) error {
		for _, q := range []string{"SET tmp_table_size=2*1024*1024*1024", "SET max_heap_table_size=2*1024*1024*1024"} {
			if _, err := s.Exec(ctx, q); err != nil {
				return err
			}
		}
		for _, n := range mine {
			name := TableName(n)
			w.printf("%s table %s\n", verb, name)
			for _, q := range []string{
				"ANALYZE TABLE " + name,
				fmt.Sprintf("SELECT AVG(id) FROM (SELECT * FROM %s FORCE KEY (PRIMARY) LIMIT %d) t", name, o.TableSize),
				fmt.Sprintf("SELECT COUNT(*) FROM (SELECT * FROM %s WHERE k LIKE '%%0%%' LIMIT %d) t", name, o.TableSize),
			} {
				if _, err := s.Query(ctx, q); err != nil {
					return fmt.Errorf("prewarm %s: %w", name, err)
				}
			}
		}
		return nil
	})
}

// RunOptions is what Run needs besides the sysbench options.
type RunOptions struct {
	Seed    int64
	Printer *Printer
	Sinks   []bench.Sink
	// Segment, when not the whole, runs that slice of the load: its share
	// of the threads (keeping their ids and streams), events and rate.
	Segment bench.Segment
	// Start holds the load until the runs it starts with are ready (nil:
	// at once).
	Start bench.StartBarrier
	// Profile is a load profile the run follows in place of its threads
	// (or rate) and time (no stages: steady).
	Profile bench.LoadProfile
}

// Step is the benchmark step of the workload (or of its segment seg) run
// over conn with seed, for bench.RunStep: its text is sysbench's, from the
// banner line on, as a sysbench run's is. The caller adds tags, target,
// output and progress.
func (wl *Workload) Step(conn bench.Connector, seed int64, toolLabel string, seg bench.Segment) bench.Step {
	o := &wl.Options
	return bench.Step{
		Run: func(ctx context.Context, r bench.StepRun) (*bench.Result, error) {
			p := &Printer{W: r.Output, Opts: o, ToolLabel: toolLabel, Segment: seg, Checkpoints: wl.Checkpoints, Validate: wl.Validate}
			p.Banner()
			return Run(ctx, conn, wl, RunOptions{Seed: seed, Printer: p, Sinks: r.Sinks, Segment: seg, Start: r.Start, Profile: r.Profile})
		},
		Workload: wl.Script.Name, Threads: seg.Threads(o.Threads), Total: float64(o.Time),
		Percentile: o.Percentile, Seed: seed, Options: o.Map(), Segment: seg.String(), OpenLoop: o.Rate > 0,
	}
}

// Run runs a script's workload and prints its output in sysbench format.
func Run(ctx context.Context, conn bench.Connector, wl *Workload, ro RunOptions) (*bench.Result, error) {
	o := &wl.Options
	codes, all, err := o.IgnoredErrors()
	if err != nil {
		return nil, err
	}
	seed := ro.Seed
	if o.RandSeed != 0 {
		seed = o.RandSeed
	}
	bo := bench.Options{
		Threads: o.Threads, Time: o.Duration(), Events: o.Events, Seed: seed,
		IgnoreErrors: codes, IgnoreAllErrors: all, IgnoreHint: o.ignoreHint,
		Rate: float64(o.Rate), Warmup: time.Duration(o.WarmupTime) * time.Second,
		ReconnectTimeout: time.Duration(o.ReconnectTimeout) * time.Second,
		Start:            ro.Start,
	}
	bo = bench.WithStages(bo, ro.Profile)
	if bo, err = ro.Segment.Apply(bo); err != nil {
		return nil, err
	}
	if wl.Script.Prepare == PrepareBulk && o.Events == 0 && o.Time == 0 {
		return nil, fmt.Errorf("bulk_insert needs --time or --events")
	}
	sinks := ro.Sinks
	if o.ReportInterval > 0 {
		bo.Interval = time.Duration(o.ReportInterval) * time.Second
		if ro.Printer != nil {
			sinks = append([]bench.Sink{bench.SinkFunc(ro.Printer.Interval)}, sinks...)
		}
	}
	if ro.Printer != nil {
		ro.Printer.RunHeader(seed)
		bo.Started = ro.Printer.ThreadsStarted
		for _, c := range wl.Checkpoints {
			bo.Checkpoints = append(bo.Checkpoints, time.Duration(c)*time.Second)
		}
		bo.Checkpoint = ro.Printer.Checkpoint
	}
	res, err := bench.Run(ctx, wl, conn, bo, sinks...)
	if res != nil && ro.Printer != nil {
		ro.Printer.Report(res)
	}
	return res, err
}
