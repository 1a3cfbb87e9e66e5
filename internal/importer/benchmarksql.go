package importer

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/starbench/starbench/runner/results"
)

// BenchmarkSQL 5.0's result lines (src/client/jTPCC.java of
// pingcap/benchmarksql: the properties it logs with getProp, and
// endReport), each logged as "Term-00, ..." behind log4j's prefix
// ("12:44:21,447 [Thread-3] INFO   jTPCC : "):
//
//	Term-00,      BenchmarkSQL v5.0
//	Term-00, warehouses=10
//	Term-00, terminals=16
//	Term-00, runMins=5
//	Term-00, Measured tpmC (NewOrders) = 21632.85
//	Term-00, Measured tpmTOTAL = 48003.41
//	Term-00, Session Start     = 2021-06-07 10:01:02
//	Term-00, Session End       = 2021-06-07 10:06:03
//	Term-00, Transaction Count = 240021
//
// While it runs, it rewrites one status line in place with backspaces
// ("Running Average tpmTOTAL: ..."): in a captured file those are one
// long line, which a log line may follow, so the patterns are found
// anywhere in a line.
var (
	bsqlBannerRe     = regexp.MustCompile(`Term-00,\s+BenchmarkSQL v(\S+)`)
	bsqlTerminalsRe  = regexp.MustCompile(`Term-00, terminals=(\d+)`)
	bsqlWarehousesRe = regexp.MustCompile(`Term-00, warehouses=(\d+)`)
	bsqlRunMinsRe    = regexp.MustCompile(`Term-00, runMins=(\d+)`)
	bsqlTpmCRe       = regexp.MustCompile(`Measured tpmC \(NewOrders\) = (\S+)`)
	bsqlTpmTotalRe   = regexp.MustCompile(`Measured tpmTOTAL = (\S+)`)
	bsqlStartRe      = regexp.MustCompile(`Session Start\s*= (.+)$`)
	bsqlEndRe        = regexp.MustCompile(`Session End\s*= (.+)$`)
	bsqlCountRe      = regexp.MustCompile(`Transaction Count = (\S+)`)
)

// bsqlTimeLayout is jTPCCConfig.dateFormat's ("yyyy-MM-dd HH:mm:ss").
const bsqlTimeLayout = "2006-01-02 15:04:05"

type bsqlValue struct {
	text string
	n    int
}

type bsqlRun struct {
	first, last int
	version     string
	terminals   int
	termLine    int
	warehouses  int
	runMins     int
	vals        map[string]bsqlValue
}

func (r *bsqlRun) touch(n int) {
	if r.first == 0 {
		r.first = n
	}
	r.last = n
}

// bsqlResults are the result lines, in the order endReport logs them.
var bsqlResults = []struct {
	key string
	re  *regexp.Regexp
}{
	{"Measured tpmC (NewOrders)", bsqlTpmCRe}, {"Measured tpmTOTAL", bsqlTpmTotalRe},
	{"Session Start", bsqlStartRe}, {"Session End", bsqlEndRe}, {"Transaction Count", bsqlCountRe},
}

// parseBenchmarkSQL reads BenchmarkSQL runs: each from its banner (or
// first property line) to its Transaction Count line.
func parseBenchmarkSQL(file string, lines []line) ([]*draft, error) {
	var drafts []*draft
	cur := &bsqlRun{vals: map[string]bsqlValue{}}
	closeRun := func() error {
		if len(cur.vals) > 0 {
			d, err := cur.draft(file)
			if err != nil {
				return err
			}
			drafts = append(drafts, d)
		}
		cur = &bsqlRun{vals: map[string]bsqlValue{}}
		return nil
	}
	for _, l := range lines {
		t := l.text
		if m := bsqlBannerRe.FindStringSubmatch(t); m != nil {
			if err := closeRun(); err != nil {
				return nil, err
			}
			cur.version = m[1]
			cur.touch(l.n)
			continue
		}
		// A property line after a run's results begins the next run.
		if props := []*regexp.Regexp{bsqlTerminalsRe, bsqlWarehousesRe, bsqlRunMinsRe}; matchesAny(props, t) && len(cur.vals) > 0 {
			if err := closeRun(); err != nil {
				return nil, err
			}
		}
		if m := bsqlTerminalsRe.FindStringSubmatch(t); m != nil {
			cur.terminals, _ = strconv.Atoi(m[1])
			cur.termLine = l.n
			cur.touch(l.n)
			continue
		}
		if m := bsqlWarehousesRe.FindStringSubmatch(t); m != nil {
			cur.warehouses, _ = strconv.Atoi(m[1])
			cur.touch(l.n)
			continue
		}
		if m := bsqlRunMinsRe.FindStringSubmatch(t); m != nil {
			cur.runMins, _ = strconv.Atoi(m[1])
			cur.touch(l.n)
			continue
		}
		for _, res := range bsqlResults {
			if m := res.re.FindStringSubmatch(t); m != nil {
				if _, seen := cur.vals[res.key]; seen {
					if err := closeRun(); err != nil {
						return nil, err
					}
				}
				cur.vals[res.key] = bsqlValue{strings.TrimSpace(m[1]), l.n}
				cur.touch(l.n)
			}
		}
	}
	if err := closeRun(); err != nil {
		return nil, err
	}
	return drafts, nil
}

func matchesAny(res []*regexp.Regexp, t string) bool {
	for _, re := range res {
		if re.MatchString(t) {
			return true
		}
	}
	return false
}

// draft makes the run's step: tpmC and tpmTOTAL as printed, the events
// its transaction count, the duration from its session's start and end
// (whole seconds), tps from tpmTOTAL.
func (r *bsqlRun) draft(file string) (*draft, error) {
	fail := func(n int, format string, args ...any) (*draft, error) {
		return nil, &InputError{File: file, Line: n, Msg: fmt.Sprintf(format, args...)}
	}
	var missing []string
	first := 0
	for _, res := range bsqlResults {
		v, ok := r.vals[res.key]
		if !ok {
			missing = append(missing, strconv.Quote(res.key+" = "))
		} else if first == 0 || v.n < first {
			first = v.n
		}
	}
	if len(missing) > 0 {
		return fail(first, "BenchmarkSQL's result lines (from line %d) are truncated: they lack %s", first, strings.Join(missing, ", "))
	}
	d := &draft{first: r.first, last: r.last, workload: "tpcc", workLine: first, format: "benchmarksql",
		threadsHint: `no "Term-00, terminals=N" line`}
	if r.terminals > 0 {
		d.threads, d.threadLine = r.terminals, r.termLine
	}
	d.sum.Workload = results.Meta{Name: "tpcc", Version: "benchmarksql"}
	if r.version != "" {
		d.sum.Workload.Version = "benchmarksql-" + r.version
	}
	opts := map[string]any{}
	if r.warehouses > 0 {
		opts["warehouses"] = r.warehouses
	}
	if r.runMins > 0 {
		opts["run_mins"] = r.runMins
	}
	if len(opts) > 0 {
		d.sum.Options = opts
	}
	s := &d.sum
	s.Metrics = map[string]float64{}
	for _, m := range []struct{ key, metric string }{{"Measured tpmC (NewOrders)", "tpmC"}, {"Measured tpmTOTAL", "tpmTotal"}} {
		v := r.vals[m.key]
		x, err := number(v.text)
		if err != nil {
			return fail(v.n, "%s: %v", m.key, err)
		}
		s.Metrics[m.metric] = x
		d.give(m.metric)
	}
	v := r.vals["Transaction Count"]
	n, err := count(v.text)
	if err != nil {
		return fail(v.n, "Transaction Count: %v", err)
	}
	s.Events = n
	d.give(results.FigureEvents)
	var times [2]time.Time
	for i, key := range []string{"Session Start", "Session End"} {
		v := r.vals[key]
		t, err := time.Parse(bsqlTimeLayout, v.text)
		if err != nil {
			return fail(v.n, "%s: %q is not a time as BenchmarkSQL prints it (%s)", key, v.text, "yyyy-MM-dd HH:mm:ss")
		}
		times[i] = t
	}
	if secs := times[1].Sub(times[0]).Seconds(); secs > 0 {
		s.Seconds = secs
		d.derive(results.FigureSeconds)
	}
	s.TPS = s.Metrics["tpmTotal"] / 60
	d.derive(results.FigureTPS)
	if r.warehouses > 0 {
		s.Metrics["efficiency"] = 100 * s.Metrics["tpmC"] / (12.86 * float64(r.warehouses))
		d.derive("efficiency")
	}
	return d, nil
}
