package results

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/starbench/starbench/internal/atomicfile"
)

// The streams a merge reads and writes: a part's latency.hlog read one
// interval histogram at a time, its intervals.csv rows read as far as the
// histograms have reached, and the merged step's two files written as
// each merged interval completes.

// The histogram log's lines, as hdrhistogram-go's log reader matches them.
var (
	hlogStartTime = regexp.MustCompile(`#\[StartTime: ([\d\.]*)`)
	hlogBaseTime  = regexp.MustCompile(`#\[BaseTime: ([\d\.]*)`)
	hlogInterval  = regexp.MustCompile(`([\d\.]*),([\d\.]*),([\d\.]*),(.*)`)
	hlogBadTag    = regexp.MustCompile(".[, \\r\\n].")
)

// hlogReader reads a latency.hlog's interval histograms in order, with the
// times and tags hdr.HistogramLogReader gives them, in the step's time.
//
// A log of format version 1 to 3 (before 340c228) counted its timestamps
// from the step's start, not from the whole second its BaseTime states:
// read as the library reads it, each interval was up to 1 s early. And
// version 3's merges, reading their parts so, wrote a merged log whose
// intervals were early by the parts' fraction of a second, the first one
// before the log's zero (a negative timestamp, whose sign the library's
// reader drops). Such a log is known by its first interval, which began
// at the step's start: at timestamp 0, or below it, where a log of
// version 4 or later has the start's milliseconds past its whole second.
// A log without a format version (its summary's Format is 0) whose first
// timestamp is at or below 0 is read from its first interval: that
// interval begins at the step's start, and the others keep their distance
// from it, to the millisecond. That places a version 1 to 3 step's
// intervals exactly where they were, and a version 3 merge's on the
// whole seconds of its parts' starts.
type hlogReader struct {
	f        *os.File
	r        *bufio.Reader
	long     []byte
	tag      []byte
	codec    *histCodec
	tags     map[string]string
	base     int64 // the step's start (ms since the epoch): times count from it
	startSec float64
	baseSec  float64
	sawStart bool
	sawBase  bool
	// legacy: the log has no format version, and its first interval
	// decides how its timestamps count; fromFirst: they count from that
	// interval's timestamp, first.
	legacy, decided, fromFirst bool
	first                      float64
}

// openHlog opens the latency.hlog of the step folder dir, whose summary is
// sum; a folder without one has none (nil).
func openHlog(dir string, sum *Summary, codec *histCodec) (*hlogReader, error) {
	f, err := os.Open(filepath.Join(dir, LatencyFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &hlogReader{f: f, r: bufio.NewReaderSize(f, 64<<10), codec: codec, tags: map[string]string{},
		base: sum.Started.UnixMilli(), legacy: sum.Format < hlogClockVersion}, nil
}

// hlogClockVersion is the first format version that says it counts its
// latency.hlog timestamps from BaseTime (version 4 did, but said no
// version).
const hlogClockVersion = 5

func (r *hlogReader) close() {
	if r != nil {
		r.f.Close()
	}
}

// line is the next line with its newline, as bufio.Reader.ReadString
// gives it, without copying one that fits the buffer.
func (r *hlogReader) line() ([]byte, error) {
	b, err := r.r.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		return b, err
	}
	r.long = append(r.long[:0], b...)
	for err == bufio.ErrBufferFull {
		b, err = r.r.ReadSlice('\n')
		r.long = append(r.long, b...)
	}
	return r.long, err
}

// next reads the next interval histogram into h: ok is false at the end.
func (r *hlogReader) next(h *sparseHist) (tag string, start, end time.Duration, ok bool, err error) {
	tag, start, end, payload, ok, err := r.nextLine()
	if !ok || err != nil {
		return "", 0, 0, ok, err
	}
	if err := r.codec.decode(payload, h); err != nil {
		return "", 0, 0, false, err
	}
	return tag, start, end, true, nil
}

// nextLine reads the next interval histogram's line: its tag, times and
// encoded histogram (valid until the next read); ok is false at the end.
func (r *hlogReader) nextLine() (tag string, start, end time.Duration, payload []byte, ok bool, err error) {
	if r == nil {
		return "", 0, 0, nil, false, nil
	}
	r.tag = r.tag[:0] // kept over the lines skipped, as the library's reader keeps it
	for {
		line, err := r.line()
		if err != nil {
			if err != io.EOF || len(line) == 0 {
				if err == io.EOF {
					err = nil
				}
				return "", 0, 0, nil, false, err
			}
		}
		if line[0] == '#' {
			if m := hlogStartTime.FindSubmatch(line); m != nil {
				if r.startSec, err = strconv.ParseFloat(string(m[1]), 64); err != nil {
					return "", 0, 0, nil, false, err
				}
				r.sawStart = true
			} else if m := hlogBaseTime.FindSubmatch(line); m != nil {
				if r.baseSec, err = strconv.ParseFloat(string(m[1]), 64); err != nil {
					return "", 0, 0, nil, false, err
				}
				r.sawBase = true
			}
			continue
		}
		if bytes.HasPrefix(line, []byte("Tag=")) {
			comma := bytes.IndexByte(line, ',')
			if comma < 0 {
				continue
			}
			r.tag, line = append(r.tag[:0], line[4:comma]...), line[comma+1:]
		}
		// Only a version 3 merge wrote a timestamp below zero.
		negative := r.legacy && len(line) > 1 && line[0] == '-' && line[1] >= '0' && line[1] <= '9'
		if negative {
			line = line[1:]
		}
		fields, payload, ok := intervalFields(line)
		if !ok {
			continue
		}
		at, err := strconv.ParseFloat(string(fields[0]), 64)
		if err != nil {
			return "", 0, 0, nil, false, err
		}
		if negative {
			at = -at
		}
		length, err := strconv.ParseFloat(string(fields[1]), 64)
		if err != nil {
			return "", 0, 0, nil, false, err
		}
		if r.legacy && !r.decided {
			r.decided, r.fromFirst, r.first = true, at <= 0, at
		}
		if !r.sawStart {
			r.startSec, r.sawStart = at, true
		}
		if !r.sawBase {
			// Timestamps more than a year before the start time are relative to it.
			if at < r.startSec-365*24*3600.0 {
				r.baseSec = r.startSec
			} else {
				r.baseSec = 0
			}
			r.sawBase = true
		}
		abs := at + r.baseSec
		absEnd := abs + length
		if abs < 0 { // before the reader's range
			continue
		}
		tag, ok := r.tags[string(r.tag)]
		if !ok {
			tag = string(r.tag)
			r.tags[tag] = tag
		}
		if r.fromFirst {
			start = time.Duration(math.Round((at-r.first)*1000)) * time.Millisecond
			end = time.Duration(math.Round((at+length-r.first)*1000)) * time.Millisecond
		} else {
			start = time.Duration(int64(abs*1000.0)-r.base) * time.Millisecond
			end = time.Duration(int64(absEnd*1000.0)-r.base) * time.Millisecond
		}
		return tag, start, end, payload, true, nil
	}
}

// intervalFields splits an interval line as the log reader's pattern
// matches it: start, length, max and the histogram up to the line's end.
func intervalFields(line []byte) ([3][]byte, []byte, bool) {
	var f [3][]byte
	rest := line
	for i := range f {
		j := 0
		for j < len(rest) && (rest[j] >= '0' && rest[j] <= '9' || rest[j] == '.') {
			j++
		}
		if j == len(rest) || rest[j] != ',' {
			return regexFields(line)
		}
		f[i], rest = rest[:j], rest[j+1:]
	}
	if nl := bytes.IndexByte(rest, '\n'); nl >= 0 {
		rest = rest[:nl]
	}
	return f, rest, true
}

// regexFields matches what the plain split does not (the pattern is not
// anchored).
func regexFields(line []byte) ([3][]byte, []byte, bool) {
	m := hlogInterval.FindSubmatch(line)
	if m == nil {
		return [3][]byte{}, nil, false
	}
	return [3][]byte{m[1], m[2], m[3]}, m[4], true
}

// rowReader finds a part's intervals.csv rows by their interval's end
// (at), reading the file only as far as the ends asked for when its rows
// are in time order, as starbench writes them: it keeps the rows read and
// not yet taken, nothing else. Rows out of time order (a merged folder's,
// when its parts stopped apart) are read whole first. Either way a row
// is found as if every row had been read first, the last of two at one
// millisecond standing.
type rowReader struct {
	f       *os.File
	cr      *csv.Reader
	col     map[string]int
	kept    map[int64]Interval
	ahead   Interval // the first row not yet kept
	aheadMS int64
	hasNext bool
	done    bool
}

func msOf(r Interval) int64 { return int64(math.Round(r.Time * 1000)) }

// openRows opens dir's intervals.csv, checking it whole first (a file
// that does not parse is refused before anything is merged, as
// ReadIntervals refuses it).
func openRows(dir string) (*rowReader, error) {
	path := filepath.Join(dir, IntervalsFile)
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return &rowReader{done: true, kept: map[int64]Interval{}}, nil
	}
	if err != nil {
		return nil, err
	}
	bad := func(err error) (*rowReader, error) {
		f.Close()
		return nil, fmt.Errorf("%w: %s/%s: %v", ErrNotResults, dir, IntervalsFile, err)
	}
	rr := &rowReader{f: f, kept: map[int64]Interval{}}
	// First pass: the file parses, and its rows are in time order or not.
	cr := csv.NewReader(bufio.NewReaderSize(f, 64<<10))
	cr.ReuseRecord = true
	sorted, last, first := true, int64(0), true
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return bad(err)
		}
		if rr.col == nil {
			rr.col = map[string]int{}
			for i, name := range rec {
				rr.col[name] = i
			}
			continue
		}
		ms := msOf(intervalOf(rr.col, rec))
		if !first && ms < last {
			sorted = false
		}
		first, last = false, ms
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return bad(err)
	}
	rr.cr = csv.NewReader(bufio.NewReaderSize(f, 64<<10))
	rr.cr.ReuseRecord = true
	if rr.col == nil { // an empty file: no rows
		rr.close()
		rr.done = true
		return rr, nil
	}
	if _, err := rr.cr.Read(); err != nil { // the header
		return bad(err)
	}
	if !sorted {
		for !rr.done {
			if err := rr.read(); err != nil {
				return bad(err)
			}
			if rr.hasNext {
				rr.kept[rr.aheadMS], rr.hasNext = rr.ahead, false
			}
		}
	}
	return rr, nil
}

// read reads the next row ahead (none at the end of the file).
func (rr *rowReader) read() error {
	rec, err := rr.cr.Read()
	if err == io.EOF {
		rr.done = true
		rr.close()
		return nil
	}
	if err != nil {
		return err
	}
	rr.ahead = intervalOf(rr.col, rec)
	rr.aheadMS, rr.hasNext = msOf(rr.ahead), true
	return nil
}

func (rr *rowReader) close() {
	if rr != nil && rr.f != nil {
		rr.f.Close()
		rr.f = nil
	}
}

// at takes the row of the interval ending at end, each row once: the
// nearest within 3 ms, since the row's time is rounded to the
// millisecond and the log's end truncated to it twice (when written, and
// when read back through floating-point seconds), so the two may differ
// by 2 ms.
func (rr *rowReader) at(end time.Duration) (Interval, bool, error) {
	ms := end.Milliseconds()
	for !rr.done {
		if !rr.hasNext {
			if err := rr.read(); err != nil {
				return Interval{}, false, err
			}
			continue
		}
		if rr.aheadMS > ms+3 {
			break
		}
		rr.kept[rr.aheadMS], rr.hasNext = rr.ahead, false
	}
	for _, k := range [...]int64{ms, ms + 1, ms - 1, ms + 2, ms - 2, ms + 3, ms - 3} {
		if r, ok := rr.kept[k]; ok {
			delete(rr.kept, k)
			return r, true, nil
		}
	}
	return Interval{}, false, nil
}

// atomicStream is a file of a results folder written as a stream: to a
// temporary name beside it, renamed into place when whole (as WriteFile
// writes a file at once).
type atomicStream struct {
	path string
	f    *os.File
	w    *bufio.Writer
}

func createStream(path string) (*atomicStream, error) {
	f, err := atomicfile.CreateTemp(path) // 0666 less the umask, as the folder's other files
	if err != nil {
		return nil, err
	}
	return &atomicStream{path: path, f: f, w: bufio.NewWriterSize(f, 256<<10)}, nil
}

func (s *atomicStream) commit() error {
	err := s.w.Flush()
	if err == nil {
		err = s.f.Sync()
	}
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(s.f.Name(), s.path)
	}
	if err != nil {
		os.Remove(s.f.Name())
		return fmt.Errorf("write %s: %w", s.path, err)
	}
	return nil
}

func (s *atomicStream) abort() {
	s.f.Close()
	os.Remove(s.f.Name())
}

// stepStream writes a step's intervals.csv and latency.hlog interval by
// interval, in the layout WriteStep gives them.
type stepStream struct {
	rows, log *atomicStream
	cw        *csv.Writer
	startMS   int64
	baseMS    int64
	codec     *histCodec
	line      []byte
	tagErr    map[string]error
	done      bool
	header    bool // intervals.csv's header is written
}

func createStepStream(dir, workload string, started time.Time) (*stepStream, error) {
	rows, err := createStream(filepath.Join(dir, IntervalsFile))
	if err != nil {
		return nil, err
	}
	log, err := createStream(filepath.Join(dir, LatencyFile))
	if err != nil {
		rows.abort()
		return nil, err
	}
	s := &stepStream{rows: rows, log: log, cw: csv.NewWriter(rows.w), codec: newHistCodec(), tagErr: map[string]error{}}
	lw, startMS, err := beginLatencyLog(log.w, workload, started)
	if err != nil {
		s.abort()
		return nil, err
	}
	s.startMS, s.baseMS = startMS, lw.BaseTime()
	return s, nil
}

// row writes a merged row, after the header its first row says (a load
// profile's stage columns or not).
func (s *stepStream) row(iv Interval) error {
	if !s.header {
		if err := s.cw.Write(intervalHeader(iv)); err != nil {
			return err
		}
		s.header = true
	}
	return s.cw.Write(iv.fields())
}

// interval writes an interval histogram line (see appendInterval).
func (s *stepStream) interval(tag string, start, end time.Duration, h *sparseHist) error {
	if err := s.checkTag(tag); err != nil {
		return err
	}
	b, err := s.appendInterval(s.line[:0], s.codec, tag, start, end, h)
	if err != nil {
		return err
	}
	s.line = b
	return s.write(b)
}

// write writes interval lines to the log.
func (s *stepStream) write(lines []byte) error {
	_, err := s.log.w.Write(lines)
	return err
}

// checkTag refuses a tag the library's log writer refuses.
func (s *stepStream) checkTag(tag string) error {
	if tag == "" {
		return nil
	}
	err, ok := s.tagErr[tag]
	if !ok {
		if hlogBadTag.MatchString(tag) {
			err = fmt.Errorf("tag string cannot contain commas, spaces, or line breaks. used tag: %s", tag)
		}
		s.tagErr[tag] = err
	}
	return err
}

// appendInterval appends an interval histogram line as the library's log
// writer writes it (OutputIntervalHistogram, after latencyLog stamps its
// times), the histogram encoded with c. The tag is checked already
// (checkTag); it only reads s, so encoders may call it at once.
func (s *stepStream) appendInterval(b []byte, c *histCodec, tag string, start, end time.Duration, h *sparseHist) ([]byte, error) {
	if tag != "" {
		b = append(append(append(b, "Tag="...), tag...), ',')
	}
	from := (float64(s.startMS+start.Milliseconds()) - float64(s.baseMS)) / 1000.0
	to := (float64(s.startMS+end.Milliseconds()) - float64(s.baseMS)) / 1000.0
	b = strconv.AppendFloat(b, from, 'f', 6, 64)
	b = append(b, ',')
	b = strconv.AppendFloat(b, to-from, 'f', 6, 64)
	b = append(b, ',')
	b = strconv.AppendFloat(b, float64(h.maxValue())/hdr.MsToNsRatio, 'f', 6, 64)
	b = append(b, ',')
	b, err := c.appendEncoded(b, h)
	if err != nil {
		return b, err
	}
	return append(b, '\n'), nil
}

// commit renames both files into place: intervals.csv, then latency.hlog.
func (s *stepStream) commit() error {
	s.done = true
	if !s.header { // no row: the header alone
		_ = s.cw.Write(IntervalColumns)
		s.header = true
	}
	s.cw.Flush()
	if err := s.cw.Error(); err != nil {
		s.rows.abort()
		s.log.abort()
		return err
	}
	if err := s.rows.commit(); err != nil {
		s.log.abort()
		return err
	}
	return s.log.commit()
}

// abort removes what was written (nothing once committed).
func (s *stepStream) abort() {
	if !s.done {
		s.done = true
		s.rows.abort()
		s.log.abort()
	}
}

// copyFile copies src to dst as a stream, dst written atomically.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := createStream(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out.w, in); err != nil {
		out.abort()
		return err
	}
	return out.commit()
}
