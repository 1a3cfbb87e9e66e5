package results_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/starbench/starbench/runner/results"
)

// fixtures holds a results folder of every format version (its README
// lists them).
const fixtures = "../../testdata/results"

// Every writer says its format version: WriteStep's and FinishStep's
// summary.json and WriteManifest's manifest.json, which read back with it.
func TestWritersSayTheFormatVersion(t *testing.T) {
	dir := t.TempDir()
	step := filepath.Join(dir, "step")
	h := hdr.New(1, 3600e6, 3)
	h.RecordValue(100)
	sum := &results.Summary{Workload: results.Meta{Name: "w"}, Threads: 1, Started: time.Now().UTC()}
	if err := results.WriteStep(step, results.Step{Summary: sum, Latency: []results.LatencyInterval{{End: time.Second, Histogram: h}}}); err != nil {
		t.Fatal(err)
	}
	merged := filepath.Join(dir, "merged")
	os.MkdirAll(merged, 0o755)
	if err := results.FinishStep(merged, &results.Summary{Workload: results.Meta{Name: "w"}, Threads: 2}, nil); err != nil {
		t.Fatal(err)
	}
	if err := results.WriteManifest(dir, &results.Manifest{Tool: results.Tool("v1")}, nil); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`"format": %d`, results.FormatVersion)
	for _, f := range []string{filepath.Join(step, results.SummaryFile), filepath.Join(merged, results.SummaryFile), filepath.Join(dir, results.ManifestFile)} {
		if data, _ := os.ReadFile(f); !strings.Contains(string(data), want) {
			t.Errorf("%s lacks %s:\n%s", f, want, data)
		}
	}
	if s, err := results.ReadSummary(step); err != nil || s.Format != results.FormatVersion {
		t.Errorf("summary read back: format %v, %v", s, err)
	}
	if m, err := results.ReadManifest(dir); err != nil || m.Format != results.FormatVersion {
		t.Errorf("manifest read back: %v, %v", m, err)
	}
}

// A manifest or summary of a later format version is refused, naming the
// build that wrote it when the file says, before its fields are read (a
// later version's may not fit): ErrNewerFormat, not ErrNotResults.
func TestNewerFormatIsRefused(t *testing.T) {
	newer := results.FormatVersion + 1
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, results.ManifestFile),
		fmt.Appendf(nil, `{"format": %d, "tool": {"name": "starbench", "version": "v9.1.0"}, "targets": ["a list now"]}`, newer), 0o644)
	_, err := results.ReadManifest(dir)
	wantMsg := fmt.Sprintf("manifest.json was written by starbench v9.1.0, format %d; this build reads up to format %d: update starbench", newer, results.FormatVersion)
	if !errors.Is(err, results.ErrNewerFormat) || errors.Is(err, results.ErrNotResults) || !strings.Contains(err.Error(), wantMsg) {
		t.Errorf("newer manifest: %v", err)
	}
	os.WriteFile(filepath.Join(dir, results.ManifestFile), fmt.Appendf(nil, `{"format": %d, "tool": {"name": "other"}}`, newer), 0o644)
	if _, err := results.ReadManifest(dir); !errors.Is(err, results.ErrNotResults) || !strings.Contains(err.Error(), "not written by starbench") {
		t.Errorf("another tool's manifest: %v", err)
	}

	os.WriteFile(filepath.Join(dir, results.SummaryFile), fmt.Appendf(nil, `{"format": %d, "workload": "now a string", "threads": 1}`, newer), 0o644)
	_, err = results.ReadSummary(dir)
	wantMsg = fmt.Sprintf("summary.json was written by a newer starbench, format %d; this build reads up to format %d: update starbench", newer, results.FormatVersion)
	if !errors.Is(err, results.ErrNewerFormat) || !strings.Contains(err.Error(), wantMsg) {
		t.Errorf("newer summary: %v", err)
	}
	if _, err := results.Merge(filepath.Join(dir, "merged"), []results.MergePart{{Name: "a", Dir: dir}}, results.MergeOptions{}); !errors.Is(err, results.ErrNewerFormat) {
		t.Errorf("merge of a newer part: %v", err)
	}
	if err := results.CheckMerge([]results.MergePart{{Name: "a", Dir: dir}}, results.MergeOptions{}); !errors.Is(err, results.ErrNewerFormat) {
		t.Errorf("check of a newer part: %v", err)
	}
}

// oldLatencyLog writes latency.hlog as starbench wrote it before 340c228
// (format versions 1 to 3): BaseTime stated in whole seconds, timestamps
// counted from the step's start to the millisecond.
func oldLatencyLog(t *testing.T, dir string, start time.Time, ivs []results.LatencyInterval) {
	t.Helper()
	var buf bytes.Buffer
	lw := hdr.NewHistogramLogWriter(&buf)
	startMS := start.UnixMilli()
	lw.OutputLogFormatVersion()
	lw.OutputComment("[starbench w latencies in microseconds]")
	lw.OutputStartTime(startMS)
	lw.SetBaseTime(startMS)
	lw.OutputBaseTime(startMS)
	lw.OutputLegend()
	for _, iv := range ivs {
		iv.Histogram.SetTag(iv.Tag)
		iv.Histogram.SetStartTimeMs(startMS + iv.Start.Milliseconds())
		iv.Histogram.SetEndTimeMs(startMS + iv.End.Milliseconds())
		if err := lw.OutputIntervalHistogram(iv.Histogram); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, results.LatencyFile), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// startsOf lists the untagged intervals' starts and ends, in ms.
func startsOf(lat []results.LatencyInterval) [][2]int64 {
	var out [][2]int64
	for _, l := range lat {
		if l.Tag == "" {
			out = append(out, [2]int64{l.Start.Milliseconds(), l.End.Milliseconds()})
		}
	}
	return out
}

// A latency.hlog of format version 1 to 3, whose timestamps count from the
// step's start while its BaseTime says the whole second, is read with its
// intervals where they were (read as written they were up to 1 s early);
// one of version 4, without a version as well, and one of this version
// are read as they say. Merge reads them alike.
func TestOldLatencyLogsReadWhereTheyWere(t *testing.T) {
	started := time.Date(2026, 12, 1, 12, 0, 0, 520_000_000, time.UTC)
	ivs := func() []results.LatencyInterval {
		var out []results.LatencyInterval
		for i, end := range []time.Duration{time.Second, 2 * time.Second, 2500 * time.Millisecond} {
			h, k := hdr.New(1, 3600e6, 3), hdr.New(1, 3600e6, 3)
			h.RecordValue(int64(100 * (i + 1)))
			k.RecordValue(int64(100 * (i + 1)))
			start := time.Duration(i) * time.Second
			out = append(out, results.LatencyInterval{Start: start, End: end, Histogram: h},
				results.LatencyInterval{Start: start, End: end, Tag: results.KindTag("new_order"), Histogram: k})
		}
		return out
	}
	want := [][2]int64{{0, 1000}, {1000, 2000}, {2000, 2500}}
	rows := []results.Interval{{Time: 1, Threads: 1, Events: 1}, {Time: 2, Threads: 1, Events: 1}}
	sum := &results.Summary{Workload: results.Meta{Name: "w"}, Threads: 1, Started: started, Events: 3}

	old := filepath.Join(t.TempDir(), "old")
	if err := results.WriteStep(old, results.Step{Summary: sum, Intervals: rows, Latency: ivs()}); err != nil {
		t.Fatal(err)
	}
	oldLatencyLog(t, old, started, ivs())
	writeFormat(t, old, 0) // a folder of version 1 to 3 says no version
	oldSum, _ := results.ReadSummary(old)
	lat, err := results.ReadLatency(old, oldSum)
	if got := startsOf(lat); err != nil || fmt.Sprint(got) != fmt.Sprint(want) || len(lat) != 6 || lat[1].Tag != "kind:new_order" {
		t.Errorf("version 1-3 log read back at %v (%v), want %v", got, err, want)
	}

	v4 := filepath.Join(t.TempDir(), "v4")
	if err := results.WriteStep(v4, results.Step{Summary: sum, Intervals: rows, Latency: ivs()}); err != nil {
		t.Fatal(err)
	}
	newSum, _ := results.ReadSummary(v4)
	lat, err = results.ReadLatency(v4, newSum)
	if got := startsOf(lat); err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("version %d log read back at %v (%v), want %v", results.FormatVersion, got, err, want)
	}
	writeFormat(t, v4, 0) // version 4 wrote today's log without a version
	v4Sum, _ := results.ReadSummary(v4)
	lat, err = results.ReadLatency(v4, v4Sum)
	if got := startsOf(lat); err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("version 4 log read back at %v (%v), want %v", got, err, want)
	}

	// Merge reads them as ReadLatency does: every part's rows are found at
	// their intervals' ends, the old part's one second later than the new.
	later := filepath.Join(t.TempDir(), "later")
	laterSum := *sum
	laterSum.Started = started.Add(time.Second)
	if err := results.WriteStep(later, results.Step{Summary: &laterSum, Intervals: rows, Latency: ivs()}); err != nil {
		t.Fatal(err)
	}
	oldLatencyLog(t, later, laterSum.Started, ivs())
	writeFormat(t, later, 0)
	out := filepath.Join(t.TempDir(), "merged")
	merged, err := results.Merge(out, []results.MergePart{{Name: "v4", Dir: v4}, {Name: "old", Dir: later}}, results.MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := results.FinishStep(out, merged, nil); err != nil {
		t.Fatal(err)
	}
	got, _ := results.ReadIntervals(out)
	if fmt.Sprint(intervalEvents(got)) != "[1@1 2@2 1@3]" {
		t.Errorf("merged rows (events@s) %v, want [1@1 2@2 1@3]", intervalEvents(got))
	}
}

// writeFormat rewrites a step folder's summary with the format version
// given (0: none, as versions 1 to 4 wrote it).
func writeFormat(t *testing.T, dir string, format int) {
	t.Helper()
	path := filepath.Join(dir, results.SummaryFile)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "format")
	if format != 0 {
		m["format"] = format
	}
	data, _ = json.MarshalIndent(m, "", "  ")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func intervalEvents(rows []results.Interval) []string {
	var out []string
	for _, r := range rows {
		out = append(out, fmt.Sprintf("%d@%g", r.Events, math.Round(r.Time)))
	}
	return out
}

// The kept folders' latency logs read with their intervals where their
// intervals.csv rows say they ended, in every version; version 3's merged
// log (its first interval before zero, its rows lost when it was written)
// reads from 0 on, a second an interval.
func TestKeptLatencyLogsReadWhereTheyWere(t *testing.T) {
	for _, dir := range []string{"format2/cli-a", "format2/cli-b", "format2/mixed/steps/4-tpcc-t1",
		"format3/merged/parts/1-cli", "format3/mixed/steps/7-together/parts/2-tpcc-t1", "format4/cli", "format4/merged"} {
		dir = filepath.Join(fixtures, dir)
		sum, err := results.ReadSummary(dir)
		if err != nil {
			t.Fatal(err)
		}
		lat, err := results.ReadLatency(dir, sum)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := results.ReadIntervals(dir)
		if err != nil || len(rows) < 2 {
			t.Fatalf("%s: %d rows, %v", dir, len(rows), err)
		}
		ends := map[int64]bool{}
		for _, l := range lat {
			ends[l.End.Milliseconds()] = true
		}
		for _, r := range rows {
			ms, found := int64(math.Round(r.Time*1000)), false
			for d := int64(-3); d <= 3; d++ {
				found = found || ends[ms+d]
			}
			if !found {
				t.Errorf("%s: no logged interval ends at %.3f s (intervals %v)", dir, r.Time, startsOf(lat))
			}
		}
	}
	dir := filepath.Join(fixtures, "format3/merged")
	data, _ := os.ReadFile(filepath.Join(dir, results.LatencyFile))
	if !strings.Contains(string(data), "\n-0.") {
		t.Fatalf("%s/%s has no interval before zero: not the log this test is about", dir, results.LatencyFile)
	}
	sum, _ := results.ReadSummary(dir)
	lat, err := results.ReadLatency(dir, sum)
	if got := startsOf(lat); err != nil || fmt.Sprint(got) != "[[0 1000] [999 2000] [2000 2000]]" {
		t.Errorf("version 3 merged log read at %v (%v)", got, err)
	}
}

// For a log of this version ReadLatency gives the times and tags
// hdrhistogram-go's log reader gives, and its histograms.
func TestReadLatencyReadsAsTheLibrary(t *testing.T) {
	dir := t.TempDir()
	started := time.Date(2026, 12, 1, 12, 0, 0, 987_654_321, time.UTC)
	var ivs []results.LatencyInterval
	for i := range 4 {
		h := hdr.New(1, 3600e6, 3)
		for v := range 50 {
			h.RecordValue(int64(100 + v*(i+1)*37))
		}
		tag := ""
		if i%2 == 1 {
			tag = results.ServiceTag
		}
		ivs = append(ivs, results.LatencyInterval{Start: time.Duration(i/2) * 1500 * time.Millisecond,
			End: time.Duration(i/2+1) * 1500 * time.Millisecond, Tag: tag, Histogram: h})
	}
	sum := &results.Summary{Workload: results.Meta{Name: "w"}, Threads: 1, Started: started}
	if err := results.WriteStep(dir, results.Step{Summary: sum, Latency: ivs}); err != nil {
		t.Fatal(err)
	}
	lat, err := results.ReadLatency(dir, sum)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(filepath.Join(dir, results.LatencyFile))
	defer f.Close()
	r := hdr.NewHistogramLogReader(f)
	for i := 0; ; i++ {
		h, err := r.NextIntervalHistogram()
		if err == io.EOF || (err == nil && h == nil) {
			if i != len(lat) {
				t.Errorf("the library read %d histograms, ReadLatency %d", i, len(lat))
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if i >= len(lat) {
			t.Fatalf("ReadLatency read %d histograms, the library more", len(lat))
		}
		l := lat[i]
		base := started.UnixMilli()
		if l.Start.Milliseconds() != h.StartTimeMs()-base || l.End.Milliseconds() != h.EndTimeMs()-base || l.Tag != h.Tag() ||
			l.Histogram.StartTimeMs() != h.StartTimeMs() || !l.Histogram.Equals(h) {
			t.Errorf("interval %d: %v-%v %q, the library's %d-%d %q", i, l.Start, l.End, l.Tag, h.StartTimeMs()-base, h.EndTimeMs()-base, h.Tag())
		}
	}
}

// Parts written by format versions 2 and 3 (two CLI runs at once, two
// segments) merge with every row of their intervals.csv in the merged one:
// read as written, their logged intervals ended up to 1 s before their
// rows, and none was found.
func TestKeptPartsMergeWithEveryRow(t *testing.T) {
	for _, parts := range [][]string{{"format2/cli-a", "format2/cli-b"}, {"format3/merged/parts/1-cli", "format3/merged/parts/2-seg2"}} {
		var mp []results.MergePart
		var events int64
		for _, p := range parts {
			dir := filepath.Join(fixtures, p)
			mp = append(mp, results.MergePart{Name: filepath.Base(p), Dir: dir})
			events += csvEvents(t, dir)
		}
		out := filepath.Join(t.TempDir(), "merged")
		sum, err := results.Merge(out, mp, results.MergeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := csvEvents(t, out); got != events || events == 0 {
			t.Errorf("%v: merged intervals.csv has %d events, the parts' %d", parts, got, events)
		}
		if sum.Events < events {
			t.Errorf("%v: merged summary %d events, fewer than the rows' %d", parts, sum.Events, events)
		}
	}
}

// csvEvents adds up the events of a step folder's intervals.csv.
func csvEvents(t *testing.T, dir string) int64 {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, results.IntervalsFile))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, rec := range recs[1:] {
		v, _ := strconv.ParseInt(rec[2], 10, 64)
		n += v
	}
	return n
}
