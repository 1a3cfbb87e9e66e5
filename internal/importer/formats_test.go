package importer_test

import (
	"errors"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/starbench/starbench/internal/importer"
	"github.com/starbench/starbench/runner/results"
)

func parse(t *testing.T, name string, data []byte, opts importer.Options) ([]importer.Step, importer.Format) {
	t.Helper()
	steps, format, err := importer.Parse(importer.Source{Name: name, Data: data}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return steps, format
}

// testdata/sysbench-1.1.txt is sysbench 1.1 (master) output written to
// its source's format strings (src/sysbench.c, src/db_driver.c of
// akopytov/sysbench): what 1.1 prints differently from 1.0.20 is the
// banner's version, "Warmup time:", and a "Throughput:" section (events/s,
// time elapsed, total number of events) instead of "General statistics:".
func TestImportSysbench11(t *testing.T) {
	steps, format := parse(t, "sysbench-1.1.txt", readFixture(t, "sysbench-1.1.txt"), importer.Options{})
	if format != importer.FormatSysbench || len(steps) != 1 {
		t.Fatalf("format %s, %d steps", format, len(steps))
	}
	s := steps[0].Summary
	want := map[string]any{
		"workload": "oltp_read_only", "version": "sysbench-1.1.0-ead2689", "format": "sysbench-1.1", "threads": 8,
		"warmup": 5.0, "interval": 5.0, "seconds": 10.0021, "events": int64(41540), "tps": 4153.13, "queries": int64(664640),
		"qps": 66450.05, "reads": int64(581560), "others": int64(83080), "min": 0.91, "avg": 1.93, "max": 31.47, "p95": 2.43,
		"sum": 80171.62, "fairness": 5192.5, "intervals": 2, "iv2 tps": 4187.62, "iv2 p95": 2.39, "iv2 time": 10.0,
	}
	got := map[string]any{
		"workload": s.Workload.Name, "version": s.Workload.Version, "format": s.Imported.Format, "threads": s.Threads,
		"warmup": s.WarmupSeconds, "interval": s.IntervalSeconds, "seconds": s.Seconds, "events": s.Events, "tps": s.TPS, "queries": s.Queries,
		"qps": s.QPS, "reads": s.Reads, "others": s.Others, "min": s.Latency.MinMS, "avg": s.Latency.AvgMS, "max": s.Latency.MaxMS,
		"p95": s.Latency.Percentiles["95"], "sum": s.Latency.SumMS, "fairness": s.Fairness.EventsAvg, "intervals": len(steps[0].Intervals),
		"iv2 tps": steps[0].Intervals[1].TPS, "iv2 p95": steps[0].Intervals[1].P95, "iv2 time": steps[0].Intervals[1].Time,
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %v, want %v", k, got[k], w)
		}
	}
	// The same report with 1.0's "General statistics:" reads the same.
	as10 := strings.Replace(string(readFixture(t, "sysbench-1.1.txt")), "Throughput:\n    events/s (eps):                      4153.1278\n    time elapsed:                        10.0021s",
		"General statistics:\n    total time:                          10.0021s", 1)
	steps10, _ := parse(t, "as-1.0.txt", []byte(as10), importer.Options{})
	if s10 := steps10[0].Summary; s10.Imported.Format != "sysbench-1.0" || s10.Seconds != s.Seconds || s10.TPS != s.TPS {
		t.Errorf("as 1.0: %+v, seconds %v", s10.Imported, s10.Seconds)
	}
}

// testdata/benchmarksql-5.0.log is BenchmarkSQL 5.0's output written to
// the format of pingcap/benchmarksql's src/client/jTPCC.java (the
// properties getProp logs, endReport's result lines, the status line
// rewritten with backspaces) behind run/log4j.properties' console layout.
func TestImportBenchmarkSQL(t *testing.T) {
	data := readFixture(t, "benchmarksql-5.0.log")
	steps, format := parse(t, "bsql.log", data, importer.Options{Tags: map[string]string{"source": "published"}})
	if format != importer.FormatBenchmarkSQL || len(steps) != 1 {
		t.Fatalf("format %s, %d steps", format, len(steps))
	}
	s := steps[0].Summary
	if s.Workload.Name != "tpcc" || s.Workload.Version != "benchmarksql-5.0" || s.Threads != 16 || s.Events != 240021 || s.Seconds != 300 ||
		s.Metrics["tpmC"] != 21632.85 || s.Metrics["tpmTotal"] != 48004.4 || !near(s.TPS, 48004.4/60) ||
		!near(s.Metrics["efficiency"], 100*21632.85/(12.86*10)) || s.Options["warehouses"] != 10 || s.Tags["source"] != "published" {
		t.Errorf("summary %+v", s)
	}
	if !reflect.DeepEqual(s.Imported.Given, []string{"threads", "events", "tpmC", "tpmTotal"}) ||
		!reflect.DeepEqual(s.Imported.Derived, []string{"seconds", "tps", "efficiency"}) || s.Known("p95_ms") {
		t.Errorf("imported %+v", s.Imported)
	}
	// A log line right after the status line's backspaces, on its line.
	glued := regexp.MustCompile(`\x08\n(.*Term-00, \n)*`).ReplaceAllString(string(data), "\x08")
	if glued == string(data) {
		t.Fatal("the fixture has no status line to glue to")
	}
	if steps, _ := parse(t, "bsql.log", []byte(glued), importer.Options{}); steps[0].Summary.Metrics["tpmC"] != 21632.85 {
		t.Errorf("glued: %+v", steps[0].Summary)
	}
	// Two runs in one log are two steps.
	steps, _ = parse(t, "bsql.log", append(append([]byte{}, data...), data...), importer.Options{})
	if len(steps) != 2 || steps[1].Summary.Imported.Line != 48 || steps[1].Summary.Threads != 16 {
		t.Errorf("two runs: %d steps", len(steps))
	}
	// Without the terminals line the thread count must be given.
	noTerm := strings.Replace(string(data), "Term-00, terminals=16\n", "", 1)
	if _, _, err := importer.Parse(importer.Source{Name: "bsql.log", Data: []byte(noTerm)}, importer.Options{}); err == nil ||
		!strings.Contains(err.Error(), `bsql.log:3: the file does not say how many threads ran (no "Term-00, terminals=N" line): give --threads N`) {
		t.Errorf("no terminals: %v", err)
	}
}

// A CSV of published figures: a step per row, figure columns by name and
// alias, the other columns tags, an empty cell an unknown figure, the
// comments the folder's notes.
func TestImportCSV(t *testing.T) {
	steps, format := parse(t, "published.csv", readFixture(t, "published.csv"), importer.Options{Tags: map[string]string{"source": "published"}})
	if format != importer.FormatCSV || len(steps) != 4 {
		t.Fatalf("format %s, %d steps", format, len(steps))
	}
	first := steps[0].Summary
	if first.Workload.Name != "oltp_point_select" || first.Threads != 300 || first.QPS != 271540.61 || first.Latency.AvgMS != 1.10 ||
		first.Latency.Percentiles["95"] != 1.55 || first.Errors != 0 || first.Imported.Line != 4 ||
		!reflect.DeepEqual(first.Tags, map[string]string{"Version": "v6.1.0", "setup": "3x3", "source": "published"}) {
		t.Errorf("row 1: %+v", first)
	}
	if !reflect.DeepEqual(first.Imported.Given, []string{"threads", "qps", "errors", "avg_ms", "p95_ms"}) || first.Known("tps") || first.Known("p99_ms") {
		t.Errorf("row 1 gives %v", first.Imported.Given)
	}
	if !strings.HasPrefix(first.Imported.Note, "source: TiDB v6.1.0 vs v6.5.0, sysbench, 3 TiDB + 3 TiKV") || steps[0].Output != nil {
		t.Errorf("note %q, output %q", first.Imported.Note, steps[0].Output)
	}
	third := steps[2].Summary
	if third.TPS != 2312.66 || third.Latency.Percentiles["99"] != 211.6 || third.Known("errors") || third.Percentile != 95 {
		t.Errorf("row 3: %+v", third)
	}
	// Semicolons, no workload column: --workload names it; no threads
	// column: --threads.
	steps, _ = parse(t, "semi.txt", []byte("version;tps;p99_ms\nv1;100.5;12\nv2;110;11.5\n"), importer.Options{Workload: "oltp_insert", Threads: 64, Format: importer.FormatCSV})
	if len(steps) != 2 || steps[1].Summary.TPS != 110 || steps[1].Summary.Workload.Name != "oltp_insert" || steps[1].Summary.Threads != 64 ||
		steps[1].Summary.Tags["version"] != "v2" {
		t.Errorf("semicolons: %+v", steps)
	}
	// A change a report gives without its figures (seed 002's +36 %
	// tpmC), on the row of the contender that changed.
	steps, _ = parse(t, "chg.csv", []byte("version,workload,change_tpmc,change_p99\nv5.0.0,tpcc,+36%,-4.5\n"), importer.Options{Threads: 1})
	if s := steps[0].Summary; s.Metrics["change_tpmc"] != 36 || s.Metrics["change_p99"] != -4.5 || !s.Known("change_tpmc") || s.Known("tpmC") || s.Known("threads") {
		t.Errorf("changes: %+v", s)
	}
	// A TPC-C table.
	steps, _ = parse(t, "tpcc.csv", []byte("workload,terminals,tpmC,efficiency\ntpcc,64,43108.2,33.5%\n"), importer.Options{})
	if s := steps[0].Summary; s.Metrics["tpmC"] != 43108.2 || s.Metrics["efficiency"] != 33.5 || s.Threads != 64 || !s.Known("tpmC") {
		t.Errorf("tpcc row: %+v", s)
	}
}

// Bad input: one message naming the file and the line.
func TestImportBadInput(t *testing.T) {
	sb11 := string(readFixture(t, "sysbench-1.1.txt"))
	cases := []struct {
		name, file, data string
		opts             importer.Options
		want             string
	}{
		{"unknown format", "notes.txt", "We ran the benchmark twice.\nIt went well.\n", importer.Options{},
			"notes.txt: unknown format: not sysbench, go-tpc or BenchmarkSQL output, nor a CSV with a header row (give --format if it is one of them)"},
		{"no figure column", "tags.csv", "# a comment\nversion,workload,threads\nv1,oltp_insert,16\n", importer.Options{},
			"tags.csv:2: the CSV has no figure column (its columns version, workload, threads would all be tags): want at least one of tps, qps"},
		{"not a number", "bad.csv", "version,threads,tps\nv1,16,1234.5\nv2,16,12o4.5\n", importer.Options{Workload: "w"},
			`bad.csv:3: column tps: "12o4.5" is not a number`},
		{"negative", "bad.csv", "version,threads,tps\nv1,16,-3\n", importer.Options{Workload: "w"},
			`bad.csv:2: column tps: "-3" is not a number`},
		{"threads not a count", "bad.csv", "threads,tps\n16.5,3\n", importer.Options{Workload: "w"},
			`bad.csv:2: column threads: "16.5" is not a thread count`},
		{"field count", "bad.csv", "version,threads,tps\nv1,16,1,2\n", importer.Options{Workload: "w"},
			"bad.csv:2: this row has another number of fields than the header"},
		{"empty row", "bad.csv", "version,threads,tps\nv1,16,\n", importer.Options{Workload: "w"},
			"bad.csv:2: the row gives no figure (every figure column is empty)"},
		{"csv no threads", "bad.csv", "version,tps\nv1,5\n", importer.Options{Workload: "w"},
			"bad.csv:2: the file does not say how many threads ran (no threads column, or it is empty in this row): give --threads N or --tags threads=N"},
		{"truncated sysbench", "sb.txt", sb11[:strings.Index(sb11, "Latency (ms):")], importer.Options{},
			`sb.txt:19: sysbench's final report (lines 19-33) is truncated: it lacks the "Latency (ms):" section`},
		{"truncated in a section", "sb.txt", sb11[:strings.Index(sb11, "    ignored errors:")], importer.Options{},
			`sb.txt:19: sysbench's final report (lines 19-26) is truncated: it lacks "ignored errors:", "reconnects:" in "SQL statistics:"; the "Throughput:" section; the "Latency (ms):" section`},
		{"interval cut short", "sb.txt", "[ 10s ] thds: 16 tps: 1234.56 qps: 24691.20 (r/w/o: 17283.84/4938.24/2469.12) lat (ms,95%): 13.\n", importer.Options{},
			"sb.txt:1: an interval line that does not read as sysbench's (cut short?)"},
		{"no workload", "sb.txt", strings.SplitN(sb11, "\n", 2)[1], importer.Options{},
			"sb.txt:1: the output does not name its workload (no command line before it): give --workload NAME"},
		{"threads disagree", "sb.txt", sb11, importer.Options{Threads: 16},
			"sb.txt:5: the file says 8 threads, --threads says 16"},
		{"workload disagrees", "sb.txt", sb11, importer.Options{Workload: "oltp_read_write"},
			"sb.txt:1: the file names the workload oltp_read_only, --workload says oltp_read_write"},
		{"tag disagrees", "p.csv", "version,threads,tps,workload\nv1,2,3,w\n", importer.Options{Tags: map[string]string{"version": "v2"}},
			"p.csv:2: the file's version is v1, --tags says version=v2"},
		{"go-tpc cut short", "tpcc.log", "[Summary] NEW_ORDER - Takes(s): 60.0, Count: 1234, TPM: 1234.0, Sum(ms): 4", importer.Options{Threads: 4},
			"tpcc.log:1: [Summary] NEW_ORDER lacks Avg(ms) (cut short?)"},
		{"benchmarksql truncated", "b.log", "Term-00, terminals=4\nTerm-00, Measured tpmC (NewOrders) = 12.5\nTerm-00, Measured tpmTOTAL = 30.1\n", importer.Options{},
			`b.log:2: BenchmarkSQL's result lines (from line 2) are truncated: they lack "Session Start = ", "Session End = ", "Transaction Count = "`},
		{"sysbench format, none there", "x.txt", "hello\n", importer.Options{Format: importer.FormatSysbench},
			"x.txt: no benchmark result found: no sysbench interval lines ([ 10s ] thds: ...) or final report (SQL statistics: ...)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := importer.Parse(importer.Source{Name: c.file, Data: []byte(c.data)}, c.opts)
			var ie *importer.InputError
			if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("got  %v\nwant %s", err, c.want)
			}
		})
	}
}

func TestDetect(t *testing.T) {
	for name, want := range map[string]importer.Format{
		"sysbench-1.1.txt": importer.FormatSysbench, "benchmarksql-5.0.log": importer.FormatBenchmarkSQL, "published.csv": importer.FormatCSV,
	} {
		if _, got := parse(t, name, readFixture(t, name), importer.Options{}); got != want {
			t.Errorf("%s: %s, want %s", name, got, want)
		}
		if name == "published.csv" {
			continue
		}
		if _, got := parse(t, "x.log", readFixture(t, name), importer.Options{}); got != want {
			t.Errorf("%s named x.log: %s, want %s", name, got, want)
		}
	}
	// A CSV without the .csv name is known by its header.
	if _, got := parse(t, "figures.txt", []byte("# c\nthreads,qps\n4,100\n"), importer.Options{Workload: "w"}); got != importer.FormatCSV {
		t.Errorf("csv by content: %s", got)
	}
	if _, err := importer.ParseFormat("yaml"); err == nil || !strings.Contains(err.Error(), `unknown format "yaml" (want auto, sysbench, go-tpc, benchmarksql, csv)`) {
		t.Errorf("ParseFormat: %v", err)
	}
}

// FuzzParse: any input either imports into steps that have a workload, a
// thread count and a source line inside the file, or is refused with an
// InputError on one line that names the file and a line inside it.
func FuzzParse(f *testing.F) {
	f.Add("[ 1s ] thds: 2 tps: 3.00 qps: 4.00 (r/w/o: 1.00/2.00/1.00) lat (ms,95%): 0.04 err/s: 0.00 reconn/s: 0.00\n", "")
	f.Add("SQL statistics:\n    queries performed:\n        read: 1\n", "sysbench")
	f.Add("[Summary] NEW_ORDER - Takes(s): 1.0, Count: 3, TPM: 180.0\ntpmC: 180.0, efficiency: 1.0%\n", "go-tpc")
	f.Add("Term-00, terminals=2\nMeasured tpmC (NewOrders) = 1\nMeasured tpmTOTAL = 2\nSession Start     = 2021-01-01 00:00:00\nSession End       = 2021-01-01 00:01:00\nTransaction Count = 3\n", "")
	f.Add("threads,tps,version\n1,2,a\n", "csv")
	f.Fuzz(func(t *testing.T, data, format string) {
		fm, err := importer.ParseFormat(format)
		if err != nil {
			fm = importer.FormatAuto
		}
		nlines := strings.Count(data, "\n") + 1
		steps, _, err := importer.Parse(importer.Source{Name: "f.txt", Data: []byte(data)}, importer.Options{Format: fm, Workload: "w", Threads: 1})
		if err != nil {
			var ie *importer.InputError
			if !errors.As(err, &ie) || ie.File != "f.txt" || ie.Line < 0 || ie.Line > nlines || strings.Contains(err.Error(), "\n") {
				t.Fatalf("refusal %#v: %v", err, err)
			}
			return
		}
		for _, s := range steps {
			if s.Summary.Workload.Name == "" || s.Summary.Threads <= 0 || s.Summary.Imported.Line < 1 || s.Summary.Imported.Line > nlines {
				t.Fatalf("step %+v", s.Summary)
			}
		}
	})
}

// A report's headline change (seed 002's "+36 % tpmC") belongs to no
// thread level: a CSV row that gives only change_<metric> figures needs no
// threads (they stay unknown); a row with any other figure still does.
func TestImportCSVHeadlineChange(t *testing.T) {
	steps, _ := parse(t, "headline.csv", []byte("workload,version,change_tpmc\ntpcc,v5.0.0,+36\n"), importer.Options{})
	s := steps[0].Summary
	if len(steps) != 1 || s.Metrics["change_tpmc"] != 36 || s.Threads != 0 || s.Known(results.FigureThreads) {
		t.Errorf("headline: %+v", s)
	}
	_, _, err := importer.Parse(importer.Source{Name: "mixed.csv", Data: []byte("workload,version,change_tpmc,tpmc\ntpcc,v5.0.0,36,1000\n")}, importer.Options{})
	if err == nil || !strings.Contains(err.Error(), "mixed.csv:2: the file does not say how many threads ran") {
		t.Errorf("a row with a tpmC and no threads: %v", err)
	}
}
