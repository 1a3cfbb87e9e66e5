package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// inlineResultLimit is the largest step result kept inside a journal line;
// larger results go to steps/<id>.json beside the journal.
const inlineResultLimit = 16 << 10

// HandleSpec is what a step returned that stands for an open resource (a
// connection, a host): enough to open it again when a run resumes.
type HandleSpec struct {
	Kind string `json:"kind"`
	ID   string `json:"id"`
	Spec any    `json:"spec"`
}

// JournalRecord is one line of journal.jsonl. A step writes a "start"
// record when it begins and an "end" record when it finishes; the run itself
// writes "run" records when it starts and ends.
type JournalRecord struct {
	Event   string         `json:"event"` // start, end, run
	ID      string         `json:"id,omitempty"`
	Builtin string         `json:"builtin,omitempty"`
	Args    map[string]any `json:"args,omitempty"`
	Hash    string         `json:"hash,omitempty"`
	Text    string         `json:"text,omitempty"`
	Handle  string         `json:"handle,omitempty"` // the handle the step acts on
	Pos     string         `json:"pos,omitempty"`    // plan position of the call
	Time    time.Time      `json:"time"`

	Outcome    string          `json:"outcome,omitempty"` // ok, error, cancelled
	Error      string          `json:"error,omitempty"`
	DurationMS float64         `json:"duration_ms,omitempty"`
	Result     json.RawMessage `json:"result,omitempty"`
	ResultFile string          `json:"result_file,omitempty"`
	Returns    *HandleSpec     `json:"returns,omitempty"` // the handle a step returned

	Status string `json:"status,omitempty"` // run records: running, completed, failed, interrupted
}

// Journal appends records to journal.jsonl. Every record is one write(2)
// of a whole line, with redact applied; a synced write is followed by
// fsync, so a killed process leaves a journal whose every line is
// complete. Safe for concurrent use.
type Journal struct {
	mu     sync.Mutex
	dir    string
	file   *os.File
	redact func(string) string
}

// OpenJournal opens DIR/journal.jsonl for appending (a resumed run adds
// to its journal), creating it when needed.
func OpenJournal(dir string, redact func(string) string) (*Journal, error) {
	path := filepath.Join(dir, JournalFile)
	if err := dropPartialLine(path); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	return &Journal{dir: dir, file: f, redact: redact}, nil
}

// dropPartialLine cuts a final line that lacks its newline (a write cut
// short by a crash, which ReadJournal ignores), so that the records a
// resumed run appends start on a line of their own instead of completing
// it into a damaged line.
func dropPartialLine(path string) error {
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(data) == 0 || data[len(data)-1] == '\n' {
		return nil
	}
	return os.Truncate(path, int64(bytes.LastIndexByte(data, '\n')+1))
}

// Write appends rec; a result larger than 16 KiB is moved into
// steps/<id>.json first (ResultFile names it).
func (j *Journal) Write(rec *JournalRecord, sync bool) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.file == nil {
		return fmt.Errorf("journal is closed")
	}
	if len(rec.Result) > inlineResultLimit {
		name := filepath.Join(StepsDir, rec.ID+".json")
		if err := os.MkdirAll(filepath.Join(j.dir, StepsDir), 0o755); err != nil {
			return err
		}
		if err := WriteFile(filepath.Join(j.dir, name), []byte(j.redact(string(rec.Result)))); err != nil {
			return err
		}
		rec.Result, rec.ResultFile = nil, name
	}
	line, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("journal record for step %s: %w", rec.ID, err)
	}
	line = append([]byte(j.redact(string(line))), '\n')
	if _, err := j.file.Write(line); err != nil {
		return fmt.Errorf("append to journal: %w", err)
	}
	if sync {
		return j.file.Sync()
	}
	return nil
}

// Close syncs and closes the journal.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.file == nil {
		return nil
	}
	err := j.file.Sync()
	if cerr := j.file.Close(); err == nil {
		err = cerr
	}
	j.file = nil
	return err
}

// ReadJournal parses a journal file. A final line without its newline (a
// write cut short by a crash) is ignored; any other bad line is an error
// that names the file and the line and says the journal is damaged.
func ReadJournal(path string) ([]JournalRecord, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseJournal(path, data)
}

func parseJournal(path string, data []byte) ([]JournalRecord, error) {
	var recs []JournalRecord
	for lineNo, start := 1, 0; start < len(data); lineNo++ {
		end := bytes.IndexByte(data[start:], '\n')
		if end < 0 {
			break // incomplete last line
		}
		end += start
		var rec JournalRecord
		if err := json.Unmarshal(data[start:end], &rec); err != nil {
			return nil, fmt.Errorf("%s:%d: the journal is damaged: the line is not a journal record (%v)", path, lineNo, err)
		}
		if rec.Event == "" {
			return nil, fmt.Errorf("%s:%d: the journal is damaged: the line is not a journal record (no event)", path, lineNo)
		}
		recs = append(recs, rec)
		start = end + 1
	}
	return recs, nil
}
