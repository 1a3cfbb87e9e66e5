package results

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// PartsDir is the folder, inside a merged step's folder, of its parts:
// parts/<k>-<name>/, each a whole step folder.
const PartsDir = "parts"

// ErrCannotMerge marks parts that cannot be merged into one honest result
// (different report intervals or durations, different workloads without
// force): bad input, exit 2 on the command line.
var ErrCannotMerge = errors.New("cannot merge")

// MergePart is one part to merge: a step folder and the part's name.
type MergePart struct {
	Name string
	Dir  string
}

// MergeOptions control Merge.
type MergeOptions struct {
	// Force merges parts of different workloads (a together step of a
	// sysbench and a TPC-C load, say), whose counts then add events of
	// different kinds.
	Force bool
}

// Merge merges the parts' step folders exactly into the step folder dir
// (made if needed): counts, errors by code and by kind summed; latency
// percentiles read off one histogram holding every part's recorded
// latencies (the HdrHistogram merge of their latency.hlog), with the
// exact minimum, maximum and sum; rates summed; intervals aligned on the
// parts' common clock, each part's interval going into the merged interval
// its start is nearest to.
//
// Merge streams: it reads the parts' latency.hlog and intervals.csv
// interval by interval, all on the common clock at once, and writes dir's
// intervals.csv and latency.hlog as each merged interval completes,
// keeping only running totals and one histogram per tag of the whole
// step, so that its time grows with the intervals and its memory does
// not. It returns the merged summary, listing the parts (Dir as PartDir
// gives it), for the caller to complete and write with FinishStep: until
// then dir has no summary.json and is not a step's result.
//
// Parts whose report intervals or planned durations differ, or whose
// workloads differ without opts.Force, are an error wrapping
// ErrCannotMerge (see CheckMerge); a part whose files do not parse, or
// whose latency.hlog goes back in time, one wrapping ErrNotResults. On
// an error dir holds nothing Merge wrote (it may have made dir itself).
func Merge(dir string, parts []MergePart, opts MergeOptions) (*Summary, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("%w: no parts", ErrCannotMerge)
	}
	in, err := readMergeSummaries(parts)
	if err != nil {
		return nil, err
	}
	pool := &histPool{}
	done := make(chan struct{}) // closed when Merge returns: the parts' readers stop
	streams := make([]*partStream, 0, len(in))
	defer func() {
		close(done)
		for _, p := range streams {
			p.close()
		}
	}()
	for _, m := range in {
		p, err := openPartStream(m, pool, done)
		if err != nil {
			return nil, err
		}
		streams = append(streams, p)
		if err := p.advance(); err != nil {
			return nil, err
		}
		if !p.has && m.sum.Events > 0 {
			return nil, fmt.Errorf("%w: %s has no %s: its latencies cannot be merged", ErrNotResults, p.dir, LatencyFile)
		}
	}
	if err := checkMergeable(in, opts); err != nil {
		return nil, err
	}
	sum := mergeSummary(in, opts)
	for i, p := range streams {
		p.offset = in[i].sum.Started.Sub(sum.Started)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	out, err := createStepStream(dir, sum.Workload.Name, sum.Started)
	if err != nil {
		return nil, err
	}
	defer out.abort()
	totals := map[string]*hdr.Histogram{"": nil}
	if sum.ServiceLatency != nil {
		totals[ServiceTag] = nil
	}
	for _, k := range sum.Kinds {
		totals[KindTag(k.Name)] = nil
	}
	if err := mergeIntervals(streams, sum, out, totals, pool); err != nil {
		return nil, err
	}
	if err := out.commit(); err != nil {
		return nil, err
	}
	for k := range sum.Parts {
		sum.Parts[k].Dir = PartDir(k+1, parts[k].Name)
	}
	extra := extraPercentile(sum)
	sum.Latency = LatencyOf(totals[""], sum.Latency.MinMS, sum.Latency.MaxMS, sum.Latency.SumMS, sum.Events, extra...)
	if sum.ServiceLatency != nil {
		svc := LatencySummary{Percentiles: PercentilesOf(nil, append(append([]float64(nil), SummaryPercentiles...), extra...))}
		if h := totals[ServiceTag]; h != nil && h.TotalCount() > 0 {
			svc = LatencySummary{MinMS: float64(h.Min()) / 1000, MaxMS: float64(h.Max()) / 1000, AvgMS: h.Mean() / 1000,
				Percentiles: PercentilesOf(h, append(append([]float64(nil), SummaryPercentiles...), extra...))}
		}
		sum.ServiceLatency = &svc
	}
	for i := range sum.Kinds {
		k := &sum.Kinds[i]
		k.Latency = LatencyOf(totals[KindTag(k.Name)], k.Latency.MinMS, k.Latency.MaxMS, k.Latency.SumMS, k.Events, extra...)
	}
	partSums := make([]*Summary, len(in))
	for i, m := range in {
		partSums[i] = m.sum
	}
	deriveMetrics(sum, partSums)
	return sum, nil
}

// CheckMerge reads the parts' summaries and refuses, as Merge would, parts
// that cannot be merged into one honest result (ErrCannotMerge) or are not
// step folders (ErrNotResults): for a caller that makes the merged
// folder, to refuse before it does.
func CheckMerge(parts []MergePart, opts MergeOptions) error {
	if len(parts) == 0 {
		return fmt.Errorf("%w: no parts", ErrCannotMerge)
	}
	in, err := readMergeSummaries(parts)
	if err != nil {
		return err
	}
	return checkMergeable(in, opts)
}

// FinishStep writes the files of a step folder that Merge leaves to its
// caller: output.txt (when output is not nil), then summary.json in this
// build's format version (it sets sum.Format), which makes the folder a
// step's result.
func FinishStep(dir string, sum *Summary, output []byte) error {
	if output != nil {
		if err := WriteFile(filepath.Join(dir, OutputFile), output); err != nil {
			return err
		}
	}
	sum.Format = FormatVersion
	return WriteJSON(filepath.Join(dir, SummaryFile), sum)
}

// PartDir is part k's folder (1-based) inside a merged step's folder.
func PartDir(k int, name string) string {
	return filepath.Join(PartsDir, fmt.Sprintf("%d-%s", k, SafeName(name)))
}

// SafeName keeps a name usable as a file or folder name: letters, digits,
// '-', '_' and '.', anything else '_', at most 60 bytes, no leading or
// trailing dot.
func SafeName(name string) string {
	name = strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, name)
	if len(name) > 60 {
		name = name[:60]
	}
	return strings.Trim(name, ".")
}

// extraPercentile is the merged summary's report percentile, when it has one.
func extraPercentile(s *Summary) []float64 {
	if s.Percentile > 0 {
		return []float64{s.Percentile}
	}
	return nil
}

// mergeInput is one part's summary.
type mergeInput struct {
	part MergePart
	sum  *Summary
}

func readMergeSummaries(parts []MergePart) ([]*mergeInput, error) {
	in := make([]*mergeInput, len(parts))
	for i, p := range parts {
		sum, err := ReadSummary(p.Dir)
		if err != nil {
			return nil, err
		}
		if sum.Imported != nil {
			return nil, fmt.Errorf("%w: %s was imported from %s (starbench import): published figures have no latency histograms to merge",
				ErrCannotMerge, p.Dir, sum.Imported.Source)
		}
		in[i] = &mergeInput{part: p, sum: sum}
	}
	return in, nil
}

// checkMergeable refuses parts that would not merge into one honest result.
func checkMergeable(in []*mergeInput, opts MergeOptions) error {
	first := in[0]
	name := func(m *mergeInput) string { return fmt.Sprintf("%s (%s)", m.part.Name, m.part.Dir) }
	for _, p := range in[1:] {
		a, b := first.sum, p.sum
		if a.IntervalSeconds != b.IntervalSeconds {
			return fmt.Errorf("%w: %s reports every %gs, %s every %gs: give the parts one report interval",
				ErrCannotMerge, name(first), a.IntervalSeconds, name(p), b.IntervalSeconds)
		}
		if a.PlannedSeconds != b.PlannedSeconds {
			return fmt.Errorf("%w: %s was planned for %gs, %s for %gs: give the parts one duration",
				ErrCannotMerge, name(first), a.PlannedSeconds, name(p), b.PlannedSeconds)
		}
		if a.Workload != b.Workload && !opts.Force {
			return fmt.Errorf("%w: %s ran %s %s, %s ran %s %s: merging different workloads adds unlike events (--force merges them anyway)",
				ErrCannotMerge, name(first), a.Workload.Name, a.Workload.Version, name(p), b.Workload.Name, b.Workload.Version)
		}
	}
	seen := map[string]*mergeInput{}
	for _, p := range in {
		if p.sum.Segment == "" {
			continue
		}
		key := fmt.Sprintf("%s seed %d", p.sum.Segment, p.sum.Seed)
		if q, ok := seen[key]; ok {
			return fmt.Errorf("%w: %s and %s are both segment %s of one load (seed %d)", ErrCannotMerge, q.part.Dir, p.part.Dir, p.sum.Segment, p.sum.Seed)
		}
		seen[key] = p
	}
	return checkOverlap(in, name)
}

// overlapSlack is how far apart the clocks of the machines segments run
// on may be: what checkOverlap forgives.
const overlapSlack = time.Second

// checkOverlap refuses parts that did not run at the same time: the
// latest start must come before the earliest end by at least half of the
// shortest part's run, less overlapSlack (a segment that started when the
// others were nearly done is not part of their load).
func checkOverlap(in []*mergeInput, name func(*mergeInput) string) error {
	var latest, earliest, shortest *mergeInput
	end := func(m *mergeInput) time.Time {
		return m.sum.Started.Add(time.Duration(m.sum.Seconds * float64(time.Second)))
	}
	for _, m := range in {
		if m.sum.Started.IsZero() || m.sum.Seconds <= 0 {
			continue
		}
		if latest == nil || m.sum.Started.After(latest.sum.Started) {
			latest = m
		}
		if earliest == nil || end(m).Before(end(earliest)) {
			earliest = m
		}
		if shortest == nil || m.sum.Seconds < shortest.sum.Seconds {
			shortest = m
		}
	}
	if latest == nil || latest == earliest {
		return nil
	}
	overlap := end(earliest).Sub(latest.sum.Started).Seconds()
	if overlap >= shortest.sum.Seconds/2-overlapSlack.Seconds() {
		return nil
	}
	span := func(m *mergeInput) string {
		return m.sum.Started.UTC().Format("15:04:05.000") + "–" + end(m).UTC().Format("15:04:05.000")
	}
	return fmt.Errorf("%w: the parts did not run at the same time: %s ran %s UTC, %s ran %s UTC (they overlap %.1fs of %.1fs): "+
		"start the segments together (--start-barrier or --start-at)", ErrCannotMerge, name(latest), span(latest), name(earliest), span(earliest),
		max(overlap, 0), shortest.sum.Seconds)
}

// mergeSummary adds up the parts' summaries; the latency percentiles are
// filled in from the merged histograms afterwards.
func mergeSummary(in []*mergeInput, opts MergeOptions) *Summary {
	s := &Summary{ErrorsByCode: map[string]int64{}, Status: StatusCompleted, Percentile: in[0].sum.Percentile,
		IntervalSeconds: in[0].sum.IntervalSeconds, PlannedSeconds: in[0].sum.PlannedSeconds}
	var workloads, versions, targets, stopped []string
	var threads float64
	var eventsSum, eventsSq, secsSum, secsSq float64 // fairness: pooled over every thread
	kinds := map[string]int{}
	s.Latency.MinMS = math.Inf(1)
	for i, m := range in {
		p := m.sum
		workloads = appendNew(workloads, p.Workload.Name)
		versions = appendNew(versions, p.Workload.Version)
		if p.Target != "" {
			targets = appendNew(targets, p.Target)
		}
		stopped = appendNew(stopped, p.Stopped)
		if i == 0 || p.Started.Before(s.Started) {
			s.Started = p.Started
		}
		s.Threads += p.Threads
		s.Seconds = math.Max(s.Seconds, p.Seconds)
		s.Events += p.Events
		s.Queries += p.Queries
		s.Reads += p.Reads
		s.Writes += p.Writes
		s.Others += p.Others
		s.Errors += p.Errors
		s.Reconnects += p.Reconnects
		s.TPS += p.TPS
		s.QPS += p.QPS
		s.Rate += p.Rate
		s.Late += p.Late
		s.Dropped += p.Dropped
		s.WarmupSeconds = math.Max(s.WarmupSeconds, p.WarmupSeconds)
		for code, n := range p.ErrorsByCode {
			s.ErrorsByCode[code] += n
		}
		for kind, n := range p.ErrorsByKind {
			if s.ErrorsByKind == nil {
				s.ErrorsByKind = map[string]int64{}
			}
			s.ErrorsByKind[kind] += n
		}
		mergeExtremes(&s.Latency, p.Latency, p.Events)
		if p.ServiceLatency != nil {
			s.ServiceLatency = &LatencySummary{}
		}
		for _, k := range p.Kinds {
			j, ok := kinds[k.Name]
			if !ok {
				j = len(s.Kinds)
				kinds[k.Name] = j
				s.Kinds = append(s.Kinds, KindSummary{Name: k.Name, Latency: LatencySummary{MinMS: math.Inf(1)}})
			}
			sk := &s.Kinds[j]
			sk.Events += k.Events
			sk.Errors += k.Errors
			sk.PerMinute += k.PerMinute
			mergeExtremes(&sk.Latency, k.Latency, k.Events)
		}
		for name, v := range p.Metrics {
			if !mergesBySum(name) { // as its family declared it (DeclareMetric)
				continue
			}
			if s.Metrics == nil {
				s.Metrics = map[string]float64{}
			}
			s.Metrics[name] += v
		}
		n := float64(p.Threads)
		threads += n
		f := p.Fairness
		eventsSum += n * f.EventsAvg
		eventsSq += n * (f.EventsStddev*f.EventsStddev + f.EventsAvg*f.EventsAvg)
		secsSum += n * f.SecondsAvg
		secsSq += n * (f.SecondsStd*f.SecondsStd + f.SecondsAvg*f.SecondsAvg)
		part := Part{Name: m.part.Name, Workload: p.Workload.Name, Target: p.Target, Segment: p.Segment, Status: p.Status, Error: p.Error}
		if p.Client != nil {
			part.Client = p.Client.Host
		}
		s.Parts = append(s.Parts, part)
		switch {
		case p.Status == StatusFailed:
			s.Status = StatusFailed
		case p.Status == StatusInterrupted && s.Status != StatusFailed:
			s.Status = StatusInterrupted
		}
	}
	noInf(&s.Latency)
	for i := range s.Kinds {
		noInf(&s.Kinds[i].Latency)
	}
	s.Workload = Meta{Name: strings.Join(workloads, "+"), Version: strings.Join(versions, "+")}
	s.Target = strings.Join(targets, ", ")
	s.Stopped = strings.Join(stopped, "+")
	s.Tags = commonTags(in)
	s.Settings = commonSettings(in)
	if len(in) > 0 && sameSeed(in) {
		s.Seed = in[0].sum.Seed
	}
	if segs := segmentsOf(in); segs != "" {
		s.Segment = segs
	}
	var failed []string
	for _, p := range s.Parts {
		if p.Error != "" {
			failed = append(failed, fmt.Sprintf("part %s: %s", p.Name, p.Error))
		}
	}
	s.Error = strings.Join(failed, "; ")
	if threads > 0 {
		ea, ta := eventsSum/threads, secsSum/threads
		s.Fairness = Fairness{EventsAvg: ea, EventsStddev: math.Sqrt(math.Max(0, eventsSq/threads-ea*ea)),
			SecondsAvg: ta, SecondsStd: math.Sqrt(math.Max(0, secsSq/threads-ta*ta))}
	}
	return s
}

// mergeExtremes folds a part's exact minimum, maximum and sum into dst
// (whose minimum starts at +Inf: see noInf).
func mergeExtremes(dst *LatencySummary, part LatencySummary, events int64) {
	if events == 0 {
		return
	}
	dst.MinMS = math.Min(dst.MinMS, part.MinMS)
	dst.MaxMS = math.Max(dst.MaxMS, part.MaxMS)
	dst.SumMS += part.SumMS
}

// noInf makes the minimum of a latency no part contributed to 0.
func noInf(l *LatencySummary) {
	if math.IsInf(l.MinMS, 1) {
		l.MinMS = 0
	}
}

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// commonTags are the tags every part has with the same value.
func commonTags(in []*mergeInput) map[string]string {
	tags := map[string]string{}
	for k, v := range in[0].sum.Tags {
		same := true
		for _, m := range in[1:] {
			if m.sum.Tags[k] != v {
				same = false
			}
		}
		if same {
			tags[k] = v
		}
	}
	if len(tags) == 0 {
		return nil
	}
	return tags
}

// commonSettings are the parts' server settings when they all ran with
// the same (nil otherwise: each part's summary keeps its own).
func commonSettings(in []*mergeInput) *ServerSettings {
	if len(in) == 0 {
		return nil
	}
	for _, m := range in[1:] {
		if !reflect.DeepEqual(m.sum.Settings, in[0].sum.Settings) {
			return nil
		}
	}
	return in[0].sum.Settings
}

func sameSeed(in []*mergeInput) bool {
	for _, m := range in[1:] {
		if m.sum.Seed != in[0].sum.Seed {
			return false
		}
	}
	return true
}

// segmentsOf is "n" when the parts are segments of one load of n
// segments (by seed), else "".
func segmentsOf(in []*mergeInput) string {
	n := ""
	for _, m := range in {
		_, of, ok := strings.Cut(m.sum.Segment, "/")
		if !ok || (n != "" && of != n) {
			return ""
		}
		n = of
	}
	if !sameSeed(in) {
		return ""
	}
	return fmt.Sprintf("%d of %s", len(in), n)
}

// partStream is one part read as a stream: its latency.hlog read and
// decoded ahead by a goroutine of its own, its intervals.csv rows read as
// far as the histograms' ends.
type partStream struct {
	dir     string
	offset  time.Duration // its start on the common clock
	log     *hlogReader
	rows    *rowReader
	pool    *histPool
	entries chan logEntry
	read    chan struct{} // closed when the reader has stopped
	// The interval histogram read ahead (has: there is one), and for an
	// untagged one, the merged interval it goes into.
	has        bool
	tag        string
	start, end time.Duration
	hist       *sparseHist
	k          int
}

// logEntry is an interval histogram read, or the error that ended the
// reading.
type logEntry struct {
	tag        string
	start, end time.Duration
	hist       *sparseHist
	err        error
}

// openPartStream opens a part's files and starts reading its histograms
// (until the end, an error or done).
func openPartStream(m *mergeInput, pool *histPool, done <-chan struct{}) (*partStream, error) {
	p := &partStream{dir: m.part.Dir, pool: pool, entries: make(chan logEntry, 256), read: make(chan struct{})}
	var err error
	if p.rows, err = openRows(p.dir); err != nil {
		return nil, err
	}
	if p.log, err = openHlog(p.dir, m.sum, newHistCodec()); err != nil {
		p.rows.close()
		return nil, err
	}
	go p.readLog(done)
	return p, nil
}

// readLog decodes the part's interval histograms ahead of the merge.
func (p *partStream) readLog(done <-chan struct{}) {
	defer close(p.read)
	defer close(p.entries)
	for {
		h := p.pool.get()
		tag, start, end, ok, err := p.log.next(h)
		e := logEntry{tag: tag, start: start, end: end, hist: h, err: err}
		if err != nil || !ok {
			p.pool.put(h)
			e.hist = nil
		}
		if !ok && err == nil {
			return
		}
		select {
		case p.entries <- e:
		case <-done:
			p.pool.put(e.hist)
			return
		}
		if err != nil {
			return
		}
	}
}

// advance takes the part's next interval histogram.
func (p *partStream) advance() error {
	e, ok := <-p.entries
	p.has, p.hist = false, nil
	if e.err != nil {
		return fmt.Errorf("%w: %s/%s: %v", ErrNotResults, p.dir, LatencyFile, e.err)
	}
	if ok {
		p.has, p.tag, p.start, p.end, p.hist = true, e.tag, e.start, e.end, e.hist
	}
	return nil
}

// close closes the part's files once its reader has stopped (the caller
// has closed done).
func (p *partStream) close() {
	<-p.read
	p.log.close()
	p.rows.close()
}

// bucketOf places the untagged interval read ahead: the merged interval
// its start on the common clock is nearest to.
func (p *partStream) bucketOf(length time.Duration) int {
	return int(math.Round(float64(p.offset+p.start) / float64(length)))
}

// bucket is one merged interval: the parts' intervals whose start is
// nearest to its start on the common clock, their histograms by tag (in
// the order first seen, "" first) and their rows summed; then its lines
// of latency.hlog, encoded by one of the encoders.
type bucket struct {
	start, end time.Duration // on the common clock
	tags       []string
	hists      []*sparseHist
	row        Interval
	hasRow     bool
	lines      []byte
	err        error
	encoded    chan struct{}
}

// mergeIntervals merges the parts' intervals on the clock of the earliest
// start, handing each merged interval to be written when every part has
// gone past it, and adds its histograms to totals (the tags asked for, by
// tag, made from the first of each).
func mergeIntervals(ps []*partStream, sum *Summary, out *stepStream, totals map[string]*hdr.Histogram, pool *histPool) (err error) {
	length := time.Duration(sum.IntervalSeconds * float64(time.Second))
	if length <= 0 {
		length = time.Second
		for _, p := range ps {
			if p.has && p.end > p.start { // the part's first interval histogram
				length = p.end - p.start
				break
			}
		}
	}
	// A tagged histogram belongs to the untagged one before it: those
	// before a part's first have none.
	for _, p := range ps {
		for p.has && p.tag != "" {
			pool.put(p.hist)
			if err := p.advance(); err != nil {
				return err
			}
		}
		if p.has {
			p.k = p.bucketOf(length)
		}
	}
	w := startBucketWriter(out, pool)
	defer func() {
		if werr := w.close(); err == nil {
			err = werr
		}
	}()
	var m merger
	for {
		k, any := 0, false
		for _, p := range ps {
			if p.has && (!any || p.k < k) {
				k, any = p.k, true
			}
		}
		if !any {
			return nil
		}
		b := w.bucket()
		for _, p := range ps {
			for p.has && p.k == k {
				start, end := p.offset+p.start, p.offset+p.end
				if len(b.tags) == 0 {
					b.start, b.end = start, end
				}
				b.start, b.end = min(b.start, start), max(b.end, end)
				row, ok, err := p.rows.at(p.end)
				if err != nil {
					return fmt.Errorf("%w: %s/%s: %v", ErrNotResults, p.dir, IntervalsFile, err)
				}
				if ok {
					b.addRow(row)
				}
				b.add("", p.hist, &m, pool)
				if err := p.advance(); err != nil {
					return err
				}
				for p.has && p.tag != "" {
					b.add(p.tag, p.hist, &m, pool)
					if err := p.advance(); err != nil {
						return err
					}
				}
				if p.has {
					if p.k = p.bucketOf(length); p.k < k {
						return fmt.Errorf("%w: %s/%s: the interval at %v starts before the one before it", ErrNotResults, p.dir, LatencyFile, p.start)
					}
				}
			}
		}
		if err := b.finish(out, totals); err != nil {
			return err
		}
		if err := w.write(b); err != nil {
			return err
		}
	}
}

// add merges a part's interval histogram into the bucket's; the first of
// a tag becomes the bucket's own.
func (b *bucket) add(tag string, h *sparseHist, m *merger, pool *histPool) {
	for i, t := range b.tags {
		if t == tag {
			m.merge(b.hists[i], h)
			pool.put(h)
			return
		}
	}
	b.tags, b.hists = append(b.tags, tag), append(b.hists, h)
}

func (b *bucket) addRow(r Interval) {
	b.hasRow = true
	t := &b.row
	t.Threads += r.Threads
	t.Events += r.Events
	t.TPS += r.TPS
	t.QPS += r.QPS
	t.ReadsPerS += r.ReadsPerS
	t.WritesPerS += r.WritesPerS
	t.OthersPerS += r.OthersPerS
	t.ErrorsPerS += r.ErrorsPerS
	t.ReconnectsPerS += r.ReconnectsPerS
	t.Target += r.Target // the parts' shares of the load offered
	t.Stage = max(t.Stage, r.Stage)
}

// finish completes the merged interval's row (its time and latency
// percentiles) and adds its histograms to the totals asked for.
func (b *bucket) finish(out *stepStream, totals map[string]*hdr.Histogram) error {
	for i, tag := range b.tags {
		if err := out.checkTag(tag); err != nil {
			return err
		}
		h := b.hists[i]
		if t, ok := totals[tag]; ok {
			if t == nil {
				t = hdr.New(h.g.lowest, h.g.highest, int(h.g.sig))
				totals[tag] = t
			}
			h.mergeInto(t)
		}
	}
	if b.hasRow {
		b.row.Time = b.end.Seconds()
		if h := b.hists[0]; h.total > 0 { // the untagged histogram, always first
			at := func(q float64) float64 { return float64(h.valueAtPercentile(q)) / 1000 }
			b.row.P50, b.row.P95, b.row.P99, b.row.Max = at(50), at(95), at(99), float64(h.maxValue())/1000
		}
	}
	return nil
}

// bucketWriter encodes merged intervals' histograms on every CPU and
// writes the intervals in order, a bounded number of them in flight.
type bucketWriter struct {
	out     *stepStream
	pool    *histPool
	todo    chan *bucket // to encode
	order   chan *bucket // to write, in order
	free    chan *bucket
	written chan struct{} // closed when the writer has stopped
	encoded sync.WaitGroup
	failed  atomic.Pointer[error]
}

func startBucketWriter(out *stepStream, pool *histPool) *bucketWriter {
	const inFlight = 64
	w := &bucketWriter{out: out, pool: pool, todo: make(chan *bucket, inFlight), order: make(chan *bucket, inFlight),
		free: make(chan *bucket, inFlight+2), written: make(chan struct{})}
	for range runtime.GOMAXPROCS(0) {
		w.encoded.Add(1)
		go w.encode()
	}
	go w.writeAll()
	return w
}

// bucket is an empty bucket to fill.
func (w *bucketWriter) bucket() *bucket {
	select {
	case b := <-w.free:
		return b
	default:
		return &bucket{encoded: make(chan struct{}, 1)}
	}
}

// write hands a finished bucket over to be encoded and written; an error
// is the writer's, when it has failed.
func (w *bucketWriter) write(b *bucket) error {
	if err := w.failed.Load(); err != nil {
		w.recycle(b)
		return *err
	}
	w.order <- b
	w.todo <- b
	return nil
}

func (w *bucketWriter) encode() {
	defer w.encoded.Done()
	c := newHistCodec()
	for b := range w.todo {
		lines := b.lines[:0]
		for i, tag := range b.tags {
			if lines, b.err = w.out.appendInterval(lines, c, tag, b.start, b.end, b.hists[i]); b.err != nil {
				break
			}
		}
		b.lines = lines
		b.encoded <- struct{}{}
	}
}

func (w *bucketWriter) writeAll() {
	defer close(w.written)
	for b := range w.order {
		<-b.encoded
		err := b.err
		if err == nil && w.failed.Load() == nil {
			if err = w.out.write(b.lines); err == nil && b.hasRow {
				err = w.out.row(b.row)
			}
		}
		if err != nil {
			w.failed.CompareAndSwap(nil, &err)
		}
		w.recycle(b)
	}
}

// recycle returns a written bucket's histograms to the pool, and the
// bucket to be filled again.
func (w *bucketWriter) recycle(b *bucket) {
	for _, h := range b.hists {
		w.pool.put(h)
	}
	b.tags, b.hists, b.row, b.hasRow, b.err = b.tags[:0], b.hists[:0], Interval{}, false, nil
	select {
	case w.free <- b:
	default:
	}
}

// close waits for every bucket handed over to be written and returns the
// first error.
func (w *bucketWriter) close() error {
	close(w.todo)
	close(w.order)
	w.encoded.Wait()
	<-w.written
	if err := w.failed.Load(); err != nil {
		return *err
	}
	return nil
}

// histPool keeps the sparse histograms a merge is done with, for the next
// intervals read.
type histPool struct {
	mu   sync.Mutex
	free []*sparseHist
}

func (p *histPool) get() *sparseHist {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.free); n > 0 {
		h := p.free[n-1]
		p.free = p.free[:n-1]
		return h
	}
	return &sparseHist{}
}

func (p *histPool) put(h *sparseHist) {
	if h != nil {
		p.mu.Lock()
		p.free = append(p.free, h)
		p.mu.Unlock()
	}
}

// CopyStep copies a step folder's files (not its parts) into dst, each
// as a stream.
func CopyStep(src, dst string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	for _, name := range []string{IntervalsFile, LatencyFile, OutputFile, SummaryFile} { // the summary last
		err := copyFile(filepath.Join(src, name), filepath.Join(dst, name))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
	}
	return nil
}
