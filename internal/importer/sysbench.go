package importer

import (
	"fmt"
	"math"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/starbench/starbench/runner/results"
)

// sysbench's output, as 1.0.20 and 1.1 (master) print it (src/sysbench.c
// print_header, print_run_mode and sb_report_cumulative; src/db_driver.c
// db_report_intermediate and db_report_cumulative):
//
//	sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)
//	Running the test with following options:
//	Number of threads: 16
//	Warmup time: 10s                                       (1.1, with --warmup-time)
//	Target transaction rate: 100/sec                       (with --rate)
//	Report intermediate results every 10 second(s)
//	Initializing random number generator from seed (7).
//	[ 10s ] thds: 16 tps: 1234.56 qps: 24691.20 (r/w/o: 17283.84/4938.24/2469.12) lat (ms,95%): 13.46 err/s: 0.00 reconn/s: 0.00
//	SQL statistics:
//	    queries performed:
//	        read:                            ...           (also write, other, total)
//	    transactions:                        N      (X per sec.)   (also queries, ignored errors, reconnects)
//	General statistics:                                    (1.0)
//	    total time:                          10.0012s
//	    total number of events:              N
//	Throughput:                                            (1.1, instead)
//	    events/s (eps):                      X
//	    time elapsed:                        10.0012s
//	    total number of events:              N
//	Latency (ms):
//	         min/avg/max, " 95th percentile:" (or "percentile stats: disabled"), sum
//	Threads fairness:
//	    events (avg/stddev):           X/Y
//	    execution time (avg/stddev):   X/Y
var (
	sbBannerRe        = regexp.MustCompile(`^\s*sysbench (\d+\.\d+[^\s]*) \(using [^)]*\)\s*$`)
	sbIntervalRe      = regexp.MustCompile(`\[ *\d+(?:\.\d+)?s \] thds: `)
	sbIntervalFullRe  = regexp.MustCompile(`\[ *(\d+(?:\.\d+)?)s \] thds: (\d+) tps: ([0-9.]+) qps: ([0-9.]+) \(r/w/o: ([0-9.]+)/([0-9.]+)/([0-9.]+)\) lat \(ms,(\d+)%\): ([0-9.]+) err/s:? ([0-9.]+) reconn/s: ([0-9.]+)$`)
	sbThreadsRe       = regexp.MustCompile(`^Number of threads: (\d+)$`)
	sbEveryRe         = regexp.MustCompile(`^Report intermediate results every (\d+) second`)
	sbWarmupRe        = regexp.MustCompile(`^Warmup time: (\d+)s$`)
	sbRateRe          = regexp.MustCompile(`^Target transaction rate: (\d+)/sec$`)
	sbSeedRe          = regexp.MustCompile(`^Initializing random number generator from seed \((-?\d+)\)`)
	sbKeyRe           = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9 /()%.]*?):\s*(.*)$`)
	sbPerSecRe        = regexp.MustCompile(`^(\d+)\s+\(([0-9.]+) per sec\.\)$`)
	sbPercentileKeyRe = regexp.MustCompile(`^(\d+)th percentile$`)
	sbPairRe          = regexp.MustCompile(`^([0-9.]+)/([0-9.]+)$`)
)

// The final report's sections.
const (
	sbSQL      = "SQL statistics"
	sbGeneral  = "General statistics" // 1.0
	sbThrough  = "Throughput"         // 1.1
	sbLatency  = "Latency (ms)"
	sbFairness = "Threads fairness"
)

// sbRequired are the lines each section must have; "percentile" stands
// for " 95th percentile:" or "percentile stats: disabled".
var sbRequired = map[string][]string{
	sbSQL:      {"read", "write", "other", "total", "transactions", "queries", "ignored errors", "reconnects"},
	sbGeneral:  {"total time", "total number of events"},
	sbThrough:  {"events/s (eps)", "time elapsed", "total number of events"},
	sbLatency:  {"min", "avg", "max", "percentile", "sum"},
	sbFairness: {"events (avg/stddev)", "execution time (avg/stddev)"},
}

func isSysbenchReportTitle(t string) bool {
	switch strings.TrimSuffix(t, ":") {
	case sbSQL, sbGeneral, sbThrough, sbLatency, sbFairness:
		return strings.HasSuffix(t, ":")
	}
	return false
}

// sbValue is a value of the final report and its line.
type sbValue struct {
	text string
	n    int
}

// sbRun is one sysbench run being read.
type sbRun struct {
	first, last  int
	version      string // the banner's
	workload     string // the command line's
	workLine     int
	cmdThreads   int
	cmdLine      int
	threads      int // "Number of threads:"
	threadLine   int
	header       bool
	every        float64
	warmup       float64
	rate         float64
	seed         int64
	intervals    []sbInterval
	reportFirst  int
	section      string
	report       map[string]map[string]sbValue // section -> key -> value
	sectionLines map[string]int
}

type sbInterval struct {
	n          int
	iv         results.Interval
	percentile int
	lat        float64
}

func (r *sbRun) touch(n int) {
	if r.first == 0 {
		r.first = n
	}
	r.last = n
}

// hasOutput: the run printed its header, intervals or report.
func (r *sbRun) hasOutput() bool { return r.header || len(r.intervals) > 0 || r.report != nil }

// parseSysbench reads sysbench runs: each from its command line, banner
// or header (whichever comes first) to the end of its final report.
func parseSysbench(file string, lines []line) ([]*draft, error) {
	var drafts []*draft
	cur := &sbRun{}
	closeRun := func() error {
		if len(cur.intervals) > 0 || cur.report != nil {
			d, err := cur.draft(file)
			if err != nil {
				return err
			}
			drafts = append(drafts, d)
		}
		cur = &sbRun{}
		return nil
	}
	fail := func(n int, format string, args ...any) error {
		return &InputError{File: file, Line: n, Msg: fmt.Sprintf(format, args...)}
	}
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		t := strings.TrimSpace(l.text)
		if m := sbBannerRe.FindStringSubmatch(l.text); m != nil {
			if cur.hasOutput() || cur.version != "" {
				if err := closeRun(); err != nil {
					return nil, err
				}
			}
			cur.version = m[1]
			cur.touch(l.n)
			continue
		}
		if toks, j := commandTokens("sysbench", lines, i); toks != nil {
			if script, command, threads := sysbenchCommand(toks); command != "" {
				if cur.hasOutput() || cur.version != "" || cur.workload != "" {
					if err := closeRun(); err != nil {
						return nil, err
					}
				}
				if command == "run" {
					cur.workload, cur.workLine, cur.cmdThreads, cur.cmdLine = script, l.n, threads, l.n
					cur.touch(l.n)
					cur.last = lines[j].n
				}
				i = j
				continue
			}
		}
		if sbIntervalRe.MatchString(l.text) {
			if cur.report != nil {
				if err := closeRun(); err != nil {
					return nil, err
				}
			}
			iv, err := sysbenchInterval(l)
			if err != nil {
				return nil, fail(l.n, "%v", err)
			}
			cur.intervals = append(cur.intervals, iv)
			cur.touch(l.n)
			continue
		}
		switch {
		case t == "Running the test with following options:":
			if cur.hasOutput() {
				if err := closeRun(); err != nil {
					return nil, err
				}
			}
			cur.header = true
			cur.touch(l.n)
			continue
		case sbThreadsRe.MatchString(t):
			if cur.threads > 0 || len(cur.intervals) > 0 || cur.report != nil {
				if err := closeRun(); err != nil {
					return nil, err
				}
			}
			cur.threads, _ = strconv.Atoi(sbThreadsRe.FindStringSubmatch(t)[1])
			cur.threadLine, cur.header = l.n, true
			cur.touch(l.n)
			continue
		}
		if cur.header && cur.report == nil && len(cur.intervals) == 0 {
			if m := sbEveryRe.FindStringSubmatch(t); m != nil {
				cur.every, _ = strconv.ParseFloat(m[1], 64)
			} else if m := sbWarmupRe.FindStringSubmatch(t); m != nil {
				cur.warmup, _ = strconv.ParseFloat(m[1], 64)
			} else if m := sbRateRe.FindStringSubmatch(t); m != nil {
				cur.rate, _ = strconv.ParseFloat(m[1], 64)
			} else if m := sbSeedRe.FindStringSubmatch(t); m != nil {
				cur.seed, _ = strconv.ParseInt(m[1], 10, 64)
			}
		}
		if isSysbenchReportTitle(t) {
			title := strings.TrimSuffix(t, ":")
			if cur.report != nil {
				if _, seen := cur.report[title]; seen {
					if err := closeRun(); err != nil {
						return nil, err
					}
				}
			}
			if cur.report == nil {
				cur.report, cur.sectionLines, cur.reportFirst = map[string]map[string]sbValue{}, map[string]int{}, l.n
			}
			cur.section = title
			cur.report[title] = map[string]sbValue{}
			cur.sectionLines[title] = l.n
			cur.touch(l.n)
			continue
		}
		if cur.report != nil && cur.section != "" {
			if m := sbKeyRe.FindStringSubmatch(t); m != nil {
				key := m[1]
				if pm := sbPercentileKeyRe.FindStringSubmatch(key); pm != nil {
					key, m[2] = "percentile", pm[1]+" "+m[2]
				} else if key == "percentile stats" {
					key = "percentile"
				}
				if slices.Contains(sbRequired[cur.section], key) {
					cur.report[cur.section][key] = sbValue{m[2], l.n}
					cur.touch(l.n)
				}
			}
		}
	}
	if err := closeRun(); err != nil {
		return nil, err
	}
	return drafts, nil
}

// sysbenchCommand reads a sysbench command line's words: the script (its
// base name without .lua; --test= of the legacy scripts), the command and
// --threads (--num-threads in 1.0's legacy form). No command: not a run.
func sysbenchCommand(toks []string) (script, command string, threads int) {
	for _, tok := range toks {
		if k, v, ok := strings.Cut(tok, "="); ok && strings.HasPrefix(k, "--") {
			switch strings.ReplaceAll(k, "_", "-") {
			case "--threads", "--num-threads":
				threads, _ = strconv.Atoi(v)
			case "--test":
				script = v
			}
			continue
		}
		if strings.HasPrefix(tok, "-") {
			continue
		}
		switch tok {
		case "run", "prepare", "cleanup", "prewarm", "warmup", "help":
			command = tok
			continue
		}
		if script == "" {
			script = tok
		}
	}
	script = strings.TrimSuffix(path.Base(script), ".lua")
	if script == "." || script == "/" {
		script = ""
	}
	return script, command, threads
}

// sysbenchInterval reads an interval line.
func sysbenchInterval(l line) (sbInterval, error) {
	m := sbIntervalFullRe.FindStringSubmatch(l.text)
	if m == nil {
		return sbInterval{}, fmt.Errorf("an interval line that does not read as sysbench's (cut short?): want [ Ns ] thds: N tps: X qps: X (r/w/o: X/X/X) lat (ms,P%%): X err/s: X reconn/s: X")
	}
	f := func(i int) float64 { v, _ := strconv.ParseFloat(m[i], 64); return v }
	threads, _ := strconv.Atoi(m[2])
	pct, _ := strconv.Atoi(m[8])
	iv := results.Interval{Time: f(1), Threads: threads, TPS: f(3), QPS: f(4), ReadsPerS: f(5), WritesPerS: f(6),
		OthersPerS: f(7), ErrorsPerS: f(10), ReconnectsPerS: f(11)}
	switch pct {
	case 50:
		iv.P50 = f(9)
	case 95:
		iv.P95 = f(9)
	case 99:
		iv.P99 = f(9)
	}
	return sbInterval{n: l.n, iv: iv, percentile: pct, lat: f(9)}, nil
}

// draft makes the run's step: the final report's figures, or without
// one, the interval lines'.
func (r *sbRun) draft(file string) (*draft, error) {
	d := &draft{first: r.first, last: r.last, workload: r.workload, workLine: r.workLine,
		threadsHint: `no "Number of threads:" line, no interval lines and no sysbench command line with --threads`}
	d.sum.Workload = results.Meta{Name: "", Version: "sysbench"}
	if r.version != "" {
		d.sum.Workload.Version = "sysbench-" + r.version
	}
	switch {
	case r.threads > 0:
		d.threads, d.threadLine = r.threads, r.threadLine
	case r.cmdThreads > 0:
		d.threads, d.threadLine = r.cmdThreads, r.cmdLine
	default:
		for _, iv := range r.intervals {
			if iv.iv.Threads > d.threads {
				d.threads, d.threadLine = iv.iv.Threads, iv.n
			}
		}
	}
	d.sum.IntervalSeconds, d.sum.WarmupSeconds, d.sum.Rate, d.sum.Seed = r.every, r.warmup, r.rate, r.seed
	prev := 0.0
	for i, iv := range r.intervals {
		row := iv.iv
		dt := row.Time - prev
		if i == 0 && r.every > 0 {
			dt = math.Min(row.Time, r.every)
		}
		if dt > 0 {
			row.Events = int64(math.Round(row.TPS * dt))
		}
		prev = row.Time
		d.intervals = append(d.intervals, row)
	}
	if r.report == nil {
		d.format = "sysbench"
		if r.version != "" {
			d.format = "sysbench-" + majorMinor(r.version)
		}
		r.fromIntervals(d)
		return d, nil
	}
	if err := r.fromReport(file, d); err != nil {
		return nil, err
	}
	return d, nil
}

func majorMinor(v string) string {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return v
	}
	return parts[0] + "." + strings.TrimFunc(parts[1], func(r rune) bool { return r < '0' || r > '9' })
}

// fromIntervals fills the summary from the interval lines alone: tps and
// qps are their means over time, events and errors their sums; the
// latency is unknown (each line printed only its interval's percentile).
func (r *sbRun) fromIntervals(d *draft) {
	var secs, tps, qps, reads, writes, others, errs, reconn float64
	prev := 0.0
	for i, iv := range r.intervals {
		dt := iv.iv.Time - prev
		if i == 0 && r.every > 0 {
			dt = math.Min(iv.iv.Time, r.every)
		}
		prev = iv.iv.Time
		if dt <= 0 {
			continue
		}
		secs += dt
		tps += iv.iv.TPS * dt
		qps += iv.iv.QPS * dt
		reads += iv.iv.ReadsPerS * dt
		writes += iv.iv.WritesPerS * dt
		others += iv.iv.OthersPerS * dt
		errs += iv.iv.ErrorsPerS * dt
		reconn += iv.iv.ReconnectsPerS * dt
	}
	s := &d.sum
	if secs > 0 {
		s.Seconds = secs
		s.TPS, s.QPS = tps/secs, qps/secs
		s.Events = int64(math.Round(tps))
		s.Queries = int64(math.Round(qps))
		s.Reads, s.Writes, s.Others = int64(math.Round(reads)), int64(math.Round(writes)), int64(math.Round(others))
		s.Errors, s.Reconnects = int64(math.Round(errs)), int64(math.Round(reconn))
		d.give(results.FigureSeconds)
		d.derive(results.FigureTPS, results.FigureQPS, results.FigureEvents, results.FigureQueries, results.FigureReads,
			results.FigureWrites, results.FigureOthers, results.FigureErrors, results.FigureReconnects)
	}
	first, last := r.intervals[0].n, r.intervals[len(r.intervals)-1].n
	d.note = fmt.Sprintf("no final report: tps, qps and the rates are the means over time of the %d interval lines (lines %d-%d), "+
		"events, queries and errors their sums, seconds the last line's time; the latency is unknown (each line gives only its interval's %dth percentile)",
		len(r.intervals), first, last, r.intervals[0].percentile)
}

// fromReport fills the summary from the final report, which must be
// whole: every line of its statistics, general statistics (1.0) or
// throughput (1.1) and latency sections, and of the threads fairness
// section when it has one.
func (r *sbRun) fromReport(file string, d *draft) error {
	fail := func(n int, format string, args ...any) error {
		return &InputError{File: file, Line: n, Msg: fmt.Sprintf(format, args...)}
	}
	general, layout := sbGeneral, "sysbench-1.0"
	if _, ok := r.report[sbThrough]; ok {
		general, layout = sbThrough, "sysbench-1.1"
	}
	d.format = layout
	var missing []string
	for _, sec := range []string{sbSQL, general, sbLatency, sbFairness} {
		vals, ok := r.report[sec]
		switch {
		case ok:
		case sec == sbFairness:
			continue
		case sec == sbGeneral && strings.HasPrefix(r.version, "1.0"):
			missing = append(missing, fmt.Sprintf("the %q section", sbGeneral+":"))
			continue
		case sec == sbGeneral && r.version != "":
			missing = append(missing, fmt.Sprintf("the %q section", sbThrough+":"))
			continue
		case sec == sbGeneral:
			missing = append(missing, fmt.Sprintf("the %q (1.0) or %q (1.1) section", sbGeneral+":", sbThrough+":"))
			continue
		default:
			missing = append(missing, fmt.Sprintf("the %q section", sec+":"))
			continue
		}
		var keys []string
		for _, k := range sbRequired[sec] {
			if _, ok := vals[k]; !ok {
				keys = append(keys, strconv.Quote(k+":"))
			}
		}
		if len(keys) > 0 {
			missing = append(missing, fmt.Sprintf("%s in %q", strings.Join(keys, ", "), sec+":"))
		}
	}
	if len(missing) > 0 {
		return fail(r.reportFirst, "sysbench's final report (lines %d-%d) is truncated: it lacks %s", r.reportFirst, r.last, strings.Join(missing, "; "))
	}
	s := &d.sum
	get := func(sec, key string) sbValue { return r.report[sec][key] }
	counts := []struct {
		key string
		dst *int64
		fig string
	}{{"read", &s.Reads, results.FigureReads}, {"write", &s.Writes, results.FigureWrites}, {"other", &s.Others, results.FigureOthers}, {"total", &s.Queries, results.FigureQueries}}
	for _, c := range counts {
		v := get(sbSQL, c.key)
		n, err := count(v.text)
		if err != nil {
			return fail(v.n, "%s: %v", c.key, err)
		}
		*c.dst = n
		d.give(c.fig)
	}
	rates := []struct {
		key      string
		n        *int64
		rate     *float64
		fig, per string
	}{
		{"transactions", &s.Events, &s.TPS, results.FigureEvents, results.FigureTPS},
		{"queries", &s.Queries, &s.QPS, results.FigureQueries, results.FigureQPS},
		{"ignored errors", &s.Errors, nil, results.FigureErrors, ""},
		{"reconnects", &s.Reconnects, nil, results.FigureReconnects, ""},
	}
	for _, c := range rates {
		v := get(sbSQL, c.key)
		m := sbPerSecRe.FindStringSubmatch(v.text)
		if m == nil {
			return fail(v.n, "%s: %q is not N (X per sec.)", c.key, v.text)
		}
		n, _ := strconv.ParseInt(m[1], 10, 64)
		if c.key == "queries" && n != s.Queries {
			return fail(v.n, "queries: %d, but the queries performed total %d", n, s.Queries)
		}
		*c.n = n
		d.give(c.fig)
		if c.rate != nil {
			*c.rate, _ = strconv.ParseFloat(m[2], 64)
			d.give(c.per)
		}
	}
	timeKey := "total time"
	if general == sbThrough {
		timeKey = "time elapsed"
	}
	v := get(general, timeKey)
	secs, err := number(strings.TrimSuffix(v.text, "s"))
	if err != nil {
		return fail(v.n, "%s: %v", timeKey, err)
	}
	s.Seconds = secs
	d.give(results.FigureSeconds)
	v = get(general, "total number of events")
	if n, err := count(v.text); err != nil || n != s.Events {
		return fail(v.n, "total number of events: %q, but the transactions are %d", v.text, s.Events)
	}
	for _, c := range []struct {
		key string
		dst *float64
		fig string
	}{{"min", &s.Latency.MinMS, results.FigureMinMS}, {"avg", &s.Latency.AvgMS, results.FigureAvgMS}, {"max", &s.Latency.MaxMS, results.FigureMaxMS}, {"sum", &s.Latency.SumMS, results.FigureSumMS}} {
		v := get(sbLatency, c.key)
		x, err := number(v.text)
		if err != nil {
			return fail(v.n, "%s: %v", c.key, err)
		}
		*c.dst = x
		d.give(c.fig)
	}
	s.Latency.Percentiles = map[string]float64{}
	v = get(sbLatency, "percentile")
	if p, val, ok := strings.Cut(v.text, " "); ok && v.text != "disabled" {
		pct, _ := strconv.ParseFloat(p, 64)
		x, err := number(val)
		if err != nil {
			return fail(v.n, "%sth percentile: %v", p, err)
		}
		s.Percentile = pct
		s.Latency.Percentiles[results.PercentileKey(pct)] = x
		d.give(results.FigurePercentile(pct))
	}
	if vals, ok := r.report[sbFairness]; ok {
		for _, c := range []struct {
			key      string
			avg, std *float64
		}{{"events (avg/stddev)", &s.Fairness.EventsAvg, &s.Fairness.EventsStddev}, {"execution time (avg/stddev)", &s.Fairness.SecondsAvg, &s.Fairness.SecondsStd}} {
			v := vals[c.key]
			m := sbPairRe.FindStringSubmatch(v.text)
			if m == nil {
				return fail(v.n, "%s: %q is not AVG/STDDEV", c.key, v.text)
			}
			*c.avg, _ = strconv.ParseFloat(m[1], 64)
			*c.std, _ = strconv.ParseFloat(m[2], 64)
		}
		d.give(results.FigureFairness)
	}
	return nil
}
