package importer

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/starbench/starbench/runner/results"
)

// go-tpc v1.0.7's output (pkg/measurement/hist.go Summary, tpcc/workload.go
// outputRtMeasurement and OutputStats): every --interval a [Current] line
// per transaction kind that ran, sorted by name, with its figures over the
// interval; at the end the same as [Summary] lines over the run, then the
// tpmC line. A kind with failures has a NAME_ERR twin with Takes, Count
// and TPM only. starbench's own TPC-C output adds a tpmTotal line.
//
//	[Current] NEW_ORDER - Takes(s): 10.0, Count: 1234, TPM: 7404.0, Sum(ms): 1234.5, Avg(ms): 1.0, 50th(ms): 0.9, 90th(ms): 1.5, 95th(ms): 2.0, 99th(ms): 3.1, 99.9th(ms): 8.4, Max(ms): 12.6
//	[Summary] NEW_ORDER_ERR - Takes(s): 60.0, Count: 2, TPM: 2.0
//	tpmC: 7404.0, efficiency: 5757.4%
//	tpmTotal: 16452.3
var (
	goTPCLineRe  = regexp.MustCompile(`^\[(Current|Summary)\] (\S+)\s+- (Takes\(s\):.*)$`)
	goTPCStartRe = regexp.MustCompile(`^\[(Current|Summary)\] \S+\s+- `)
	goTPCWaitRe  = regexp.MustCompile(`^\[(Current|Summary)\] \S+\s+- [0-9.]+s$`) // --wait's wait times
	goTPCTpmCRe  = regexp.MustCompile(`^tpmC: ([0-9.]+), efficiency: ([0-9.]+)%$`)
	goTPCTotalRe = regexp.MustCompile(`^tpmTotal: ([0-9.]+)$`)
)

// tpccKinds is TPC-C's order of transactions (starbench's TPC-C steps').
var tpccKinds = []string{"new_order", "payment", "order_status", "delivery", "stock_level"}

// goTPCFields are a line's figures, in go-tpc's order.
var goTPCFields = []string{"Takes(s)", "Count", "TPM", "Sum(ms)", "Avg(ms)", "50th(ms)", "90th(ms)", "95th(ms)", "99th(ms)", "99.9th(ms)", "Max(ms)"}

// goTPCKind is one [Current] or [Summary] line.
type goTPCKind struct {
	n      int
	name   string // lower case, without _err
	err    bool   // a NAME_ERR line
	fields map[string]float64
}

// goTPCRun is one go-tpc run being read.
type goTPCRun struct {
	first, last int
	threads     int // the command line's -T (1 when it has none)
	cmdLine     int
	warehouses  int
	blocks      [][]goTPCKind // [Current] lines, an interval each
	block       []goTPCKind
	summary     []goTPCKind
	tpmC, eff   float64
	tpmTotal    float64
	tpmCLine    int
	totalLine   int
}

func (r *goTPCRun) touch(n int) {
	if r.first == 0 {
		r.first = n
	}
	r.last = n
}

func (r *goTPCRun) hasOutput() bool {
	return len(r.blocks) > 0 || len(r.block) > 0 || len(r.summary) > 0 || r.tpmCLine > 0
}

func (r *goTPCRun) endBlock() {
	if len(r.block) > 0 {
		r.blocks = append(r.blocks, r.block)
		r.block = nil
	}
}

func hasKind(lines []goTPCKind, k goTPCKind) bool {
	for _, x := range lines {
		if x.name == k.name && x.err == k.err {
			return true
		}
	}
	return false
}

// parseGoTPC reads go-tpc runs: each from its command line or first
// [Current] line to its tpmC line.
func parseGoTPC(file string, lines []line) ([]*draft, error) {
	var drafts []*draft
	cur := &goTPCRun{}
	closeRun := func() {
		cur.endBlock()
		if len(cur.blocks) > 0 || len(cur.summary) > 0 {
			drafts = append(drafts, cur.draft())
		}
		cur = &goTPCRun{}
	}
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		t := strings.TrimSpace(l.text)
		if toks, j := commandTokens("go-tpc", lines, i); toks != nil {
			if threads, warehouses, ok := goTPCCommand(toks); ok {
				closeRun()
				cur.threads, cur.warehouses, cur.cmdLine = threads, warehouses, l.n
				cur.touch(l.n)
				cur.last = lines[j].n
				i = j
				continue
			}
		}
		switch {
		case goTPCWaitRe.MatchString(t):
			continue
		case goTPCStartRe.MatchString(t):
			k, summary, err := goTPCLine(l.n, t)
			if err != nil {
				return nil, &InputError{File: file, Line: l.n, Msg: err.Error()}
			}
			if !summary {
				if len(cur.summary) > 0 || cur.tpmCLine > 0 {
					closeRun()
				}
				if hasKind(cur.block, k) {
					cur.endBlock()
				}
				cur.block = append(cur.block, k)
			} else {
				cur.endBlock()
				if hasKind(cur.summary, k) || cur.tpmCLine > 0 {
					closeRun()
				}
				cur.summary = append(cur.summary, k)
			}
			cur.touch(l.n)
		case goTPCTpmCRe.MatchString(t):
			if cur.tpmCLine > 0 {
				closeRun()
			}
			m := goTPCTpmCRe.FindStringSubmatch(t)
			cur.tpmC, _ = strconv.ParseFloat(m[1], 64)
			cur.eff, _ = strconv.ParseFloat(m[2], 64)
			cur.tpmCLine = l.n
			cur.touch(l.n)
		case goTPCTotalRe.MatchString(t) && cur.hasOutput():
			cur.tpmTotal, _ = strconv.ParseFloat(goTPCTotalRe.FindStringSubmatch(t)[1], 64)
			cur.totalLine = l.n
			cur.touch(l.n)
		}
	}
	closeRun()
	return drafts, nil
}

// goTPCCommand reads a go-tpc command line: "tpcc ... run" with its
// threads (-T, --threads; go-tpc's default is 1) and --warehouses.
func goTPCCommand(toks []string) (threads, warehouses int, ok bool) {
	var words []string
	threads = 1
	for i := 0; i < len(toks); i++ {
		tok := toks[i]
		if !strings.HasPrefix(tok, "-") {
			words = append(words, tok)
			continue
		}
		name, val, hasVal := strings.Cut(tok, "=")
		if name == "-T" || name == "--threads" || name == "--warehouses" {
			if !hasVal && i+1 < len(toks) {
				i++
				val = toks[i]
			}
		} else if strings.HasPrefix(tok, "-T") && len(tok) > 2 && !strings.HasPrefix(tok, "--") {
			name, val = "-T", tok[2:]
		} else {
			// Another flag: its value is the next word unless it is a
			// boolean flag; go-tpc's command words are known, so a value
			// word is simply not one of them.
			continue
		}
		n, _ := strconv.Atoi(val)
		if name == "--warehouses" {
			warehouses = n
		} else {
			threads = n
		}
	}
	return threads, warehouses, slices.Contains(words, "tpcc") && slices.Contains(words, "run")
}

// goTPCLine reads a [Current] or [Summary] line's figures.
func goTPCLine(n int, t string) (goTPCKind, bool, error) {
	m := goTPCLineRe.FindStringSubmatch(t)
	if m == nil {
		return goTPCKind{}, false, fmt.Errorf("a go-tpc line that does not read (cut short?): want [Current|Summary] KIND - Takes(s): X, Count: N, TPM: X, ...")
	}
	k := goTPCKind{n: n, name: strings.ToLower(m[2]), fields: map[string]float64{}}
	if strings.HasSuffix(k.name, "_err") {
		k.name, k.err = strings.TrimSuffix(k.name, "_err"), true
	}
	for _, part := range strings.Split(m[3], ", ") {
		key, val, ok := strings.Cut(part, ": ")
		if !ok || !slices.Contains(goTPCFields, key) {
			return k, false, fmt.Errorf("[%s] %s: %q does not read as go-tpc's NAME: VALUE", m[1], m[2], part)
		}
		v, err := number(val)
		if err != nil {
			return k, false, fmt.Errorf("[%s] %s: %s %v", m[1], m[2], key, err)
		}
		k.fields[key] = v
	}
	want := goTPCFields
	if k.err {
		want = goTPCFields[:3]
	}
	for _, f := range want {
		if _, ok := k.fields[f]; !ok {
			return k, false, fmt.Errorf("[%s] %s lacks %s (cut short?)", m[1], m[2], f)
		}
	}
	return k, m[1] == "Summary", nil
}

// kindOrder puts kinds in TPC-C's order, others after in their order.
func kindOrder(names []string) []string {
	var out []string
	for _, k := range tpccKinds {
		if slices.Contains(names, k) {
			out = append(out, k)
		}
	}
	for _, k := range names {
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// draft makes the run's step: its [Summary] lines' figures, or without
// them the sums of its [Current] lines.
func (r *goTPCRun) draft() *draft {
	d := &draft{first: r.first, last: r.last, workload: "tpcc", workLine: r.first, format: "go-tpc",
		threadsHint: "go-tpc does not print it, and no go-tpc command line came before the output"}
	if r.cmdLine > 0 && r.threads > 0 {
		d.threads, d.threadLine = r.threads, r.cmdLine
	}
	d.sum.Workload = results.Meta{Name: "tpcc", Version: "go-tpc"}
	if r.warehouses > 0 {
		d.sum.Options = map[string]any{"warehouses": r.warehouses}
	}
	elapsed := 0.0
	for _, b := range r.blocks {
		iv := results.Interval{Threads: d.threads}
		takes := 0.0
		var errs int64
		for _, k := range b {
			takes = math.Max(takes, k.fields["Takes(s)"])
			if k.err {
				errs += int64(k.fields["Count"])
				continue
			}
			iv.Events += int64(k.fields["Count"])
			iv.Max = math.Max(iv.Max, k.fields["Max(ms)"])
		}
		elapsed += takes
		iv.Time = elapsed
		if takes > 0 {
			iv.TPS = float64(iv.Events) / takes
			iv.ErrorsPerS = float64(errs) / takes
		}
		d.intervals = append(d.intervals, iv)
	}
	lines := r.summary
	if len(lines) == 0 {
		// No [Summary]: the sums of the intervals.
		sums := map[string]*goTPCKind{}
		var names []string
		for _, b := range r.blocks {
			for _, k := range b {
				key := k.name
				if k.err {
					key += "_err"
				}
				s, ok := sums[key]
				if !ok {
					s = &goTPCKind{name: k.name, err: k.err, fields: map[string]float64{}}
					sums[key] = s
					names = append(names, key)
				}
				s.fields["Count"] += k.fields["Count"]
				s.fields["Sum(ms)"] += k.fields["Sum(ms)"]
				s.fields["Max(ms)"] = math.Max(s.fields["Max(ms)"], k.fields["Max(ms)"])
			}
		}
		for _, key := range names {
			s := sums[key]
			s.fields["Takes(s)"] = elapsed
			if elapsed > 0 {
				s.fields["TPM"] = s.fields["Count"] / elapsed * 60
			}
			lines = append(lines, *s)
		}
		d.note = fmt.Sprintf("no [Summary] lines: the figures are the sums of the %d intervals' [Current] lines (lines %d-%d); the kinds' percentiles are unknown",
			len(r.blocks), r.blocks[0][0].n, r.blocks[len(r.blocks)-1][len(r.blocks[len(r.blocks)-1])-1].n)
	}
	summarized := len(r.summary) > 0
	s := &d.sum
	var names []string
	for _, k := range lines {
		if !slices.Contains(names, k.name) {
			names = append(names, k.name)
		}
	}
	var tpmTotal float64
	for _, name := range kindOrder(names) {
		ks := results.KindSummary{Name: name, Latency: results.LatencySummary{Percentiles: map[string]float64{}}}
		for _, k := range lines {
			if k.name != name {
				continue
			}
			s.Seconds = math.Max(s.Seconds, k.fields["Takes(s)"])
			if k.err {
				ks.Errors = int64(k.fields["Count"])
				continue
			}
			ks.Events = int64(k.fields["Count"])
			ks.PerMinute = k.fields["TPM"]
			ks.Latency.SumMS = k.fields["Sum(ms)"]
			ks.Latency.MaxMS = k.fields["Max(ms)"]
			if ks.Events > 0 {
				ks.Latency.AvgMS = ks.Latency.SumMS / float64(ks.Events)
			}
			if summarized {
				ks.Latency.AvgMS = k.fields["Avg(ms)"]
				for _, p := range []struct {
					field string
					pct   float64
				}{{"50th(ms)", 50}, {"90th(ms)", 90}, {"95th(ms)", 95}, {"99th(ms)", 99}, {"99.9th(ms)", 99.9}} {
					ks.Latency.Percentiles[results.PercentileKey(p.pct)] = k.fields[p.field]
				}
			}
		}
		s.Events += ks.Events
		s.Errors += ks.Errors
		s.Latency.SumMS += ks.Latency.SumMS
		s.Latency.MaxMS = math.Max(s.Latency.MaxMS, ks.Latency.MaxMS)
		tpmTotal += ks.PerMinute
		s.Kinds = append(s.Kinds, ks)
	}
	if s.Events > 0 {
		s.Latency.AvgMS = s.Latency.SumMS / float64(s.Events)
	}
	if s.Seconds > 0 {
		s.TPS = float64(s.Events) / s.Seconds
	}
	s.Metrics = map[string]float64{}
	if summarized {
		d.give(results.FigureSeconds, results.FigureKinds)
		d.derive(results.FigureEvents, results.FigureErrors, results.FigureTPS, results.FigureAvgMS, results.FigureMaxMS, results.FigureSumMS)
	} else {
		d.derive(results.FigureSeconds, results.FigureKinds, results.FigureEvents, results.FigureErrors, results.FigureTPS,
			results.FigureAvgMS, results.FigureMaxMS, results.FigureSumMS)
	}
	switch {
	case r.tpmCLine > 0:
		s.Metrics["tpmC"], s.Metrics["efficiency"] = r.tpmC, r.eff
		d.give("tpmC", "efficiency")
	case summarized || len(r.blocks) > 0:
		for _, ks := range s.Kinds {
			if ks.Name == "new_order" && s.Seconds > 0 {
				s.Metrics["tpmC"] = float64(ks.Events) / s.Seconds * 60
				d.derive("tpmC")
			}
		}
	}
	if r.totalLine > 0 {
		s.Metrics["tpmTotal"] = r.tpmTotal
		d.give("tpmTotal")
	} else {
		s.Metrics["tpmTotal"] = tpmTotal
		d.derive("tpmTotal")
	}
	return d
}
