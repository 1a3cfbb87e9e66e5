package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

const fuzzJournalPath = "results/x/journal.jsonl"

var damagedJournal = regexp.MustCompile(`^` + regexp.QuoteMeta(fuzzJournalPath) + `:([0-9]+): the journal is damaged: `)

// FuzzReadJournal: on any bytes the journal reader returns records or an
// error, never panics. An error is one line that names the file and the
// damaged line, and every line before that one reads on its own. Records
// come one per complete line (none skipped), each with an event, and
// written out again they read back the same. Cutting a readable journal
// anywhere (a crash mid-write) leaves a readable journal whose records are
// the first ones of the whole.
func FuzzReadJournal(f *testing.F) {
	f.Add([]byte(`{"event":"run","time":"2026-11-30T10:15:00Z","status":"running"}`+"\n"), uint16(30))
	f.Fuzz(func(t *testing.T, data []byte, cut uint16) {
		recs, err := parseJournal(fuzzJournalPath, data)
		if err != nil {
			msg := err.Error()
			m := damagedJournal.FindStringSubmatch(msg)
			if m == nil || strings.Contains(msg, "\n") {
				t.Fatalf("the error for a damaged journal must be one line naming the file and the line: %q", msg)
			}
			var line int
			fmt.Sscan(m[1], &line)
			lines := bytes.SplitAfter(data, []byte("\n"))
			if line < 1 || line > len(lines) || !bytes.HasSuffix(lines[line-1], []byte("\n")) {
				t.Fatalf("error names line %d of %d lines, not a complete one: %q", line, len(lines), msg)
			}
			before := bytes.Join(lines[:line-1], nil)
			if prefix, err := parseJournal(fuzzJournalPath, before); err != nil || len(prefix) != line-1 {
				t.Fatalf("error names line %d, but the lines before it give %d records, %v", line, len(prefix), err)
			}
			return
		}
		if complete := bytes.Count(data, []byte("\n")); len(recs) != complete {
			t.Fatalf("%d complete lines gave %d records", complete, len(recs))
		}
		var again bytes.Buffer
		for i, rec := range recs {
			if rec.Event == "" {
				t.Fatalf("record %d has no event: %+v", i+1, rec)
			}
			line, err := json.Marshal(rec)
			if err != nil {
				t.Fatalf("record %d does not write out: %v", i+1, err)
			}
			again.Write(line)
			again.WriteByte('\n')
		}
		reread, err := parseJournal(fuzzJournalPath, again.Bytes())
		if err != nil || len(reread) != len(recs) {
			t.Fatalf("records written out again read back as %d records, %v", len(reread), err)
		}
		for i := range recs {
			a, _ := json.Marshal(recs[i])
			b, _ := json.Marshal(reread[i])
			if !bytes.Equal(a, b) {
				t.Fatalf("record %d changed on the way round:\n%s\n%s", i+1, a, b)
			}
		}
		if len(data) == 0 {
			return
		}
		k := int(cut) % (len(data) + 1)
		head, err := parseJournal(fuzzJournalPath, data[:k])
		if err != nil {
			t.Fatalf("a readable journal cut at byte %d is refused: %v", k, err)
		}
		if want := bytes.Count(data[:k], []byte("\n")); len(head) != want {
			t.Fatalf("the journal cut at byte %d gives %d records, want %d", k, len(head), want)
		}
		for i := range head {
			a, _ := json.Marshal(head[i])
			b, _ := json.Marshal(recs[i])
			if !bytes.Equal(a, b) {
				t.Fatalf("record %d differs once the journal is cut at byte %d", i+1, k)
			}
		}
	})
}
