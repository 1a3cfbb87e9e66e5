package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/starbench/starbench/runner/results"
)

// Recorded is a run read back from its results folder, to resume it in
// place or repeat it into a new folder.
type Recorded struct {
	Dir      string
	Manifest results.Manifest
	Journal  []results.JournalRecord
	sources  map[string][]byte // by the name the plan loaded them with
	// sealed: the plan's files come from here only (a bundle, or a results
	// folder run as one); bundleSHA256 is a bundle file's, and
	// bundleSeeded says it was made with --seed (Manifest.Seed).
	sealed       bool
	bundleSHA256 string
	bundleSeeded bool
}

// Sources are the recorded copies of the plan and what it loaded, by name.
func (rec *Recorded) Sources() map[string][]byte { return rec.sources }

// LoadRecorded reads a results folder's manifest, journal and the copies
// of the plan and modules it loaded. A folder that lacks them is a
// *UsageError naming what is missing.
func LoadRecorded(dir string) (*Recorded, error) {
	rec := &Recorded{Dir: dir, sources: map[string][]byte{}}
	m, err := results.ReadManifest(dir)
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	rec.Manifest = *m
	if m.Imported {
		return nil, usageErrorf("%s was made by 'starbench import' from published figures or a peer tool's output: it has no plan to run again (run the report's plan, then 'starbench compare %s NEW')", dir, dir)
	}
	if len(rec.Manifest.Sources) == 0 {
		return nil, usageErrorf("%s was not written by 'starbench run' (no plan sources in its manifest)", dir)
	}
	for _, src := range rec.Manifest.Sources {
		content, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(src.Stored)))
		if err != nil {
			return nil, usageErrorf("%s: the copy of %s is missing: %v", dir, src.Name, err)
		}
		sum := sha256.Sum256(content)
		if hex.EncodeToString(sum[:]) != src.SHA256 {
			return nil, usageErrorf("%s: the copy of %s (%s) does not match its sha256 in the manifest", dir, src.Name, src.Stored)
		}
		if _, seen := rec.sources[src.Name]; !seen {
			rec.sources[src.Name] = content
		}
	}
	if _, ok := rec.sources[rec.Manifest.Plan]; !ok {
		return nil, usageErrorf("%s: the manifest lists no copy of the plan %s", dir, rec.Manifest.Plan)
	}
	rec.Journal, err = results.ReadJournal(filepath.Join(dir, results.JournalFile))
	if err != nil && !os.IsNotExist(err) {
		return nil, usageErrorf("%v", err) // names the file (and the damaged line)
	}
	return rec, nil
}

// Completed counts the steps the journal records as done.
func (rec *Recorded) Completed() int {
	n := 0
	for _, j := range rec.Journal {
		if j.Event == "end" && j.Outcome == "ok" {
			n++
		}
	}
	return n
}

// InMemoryTargets names the recorded targets whose data is gone with the
// run (the embedded server, sandboxes): such a run cannot be resumed.
func (rec *Recorded) InMemoryTargets() []string {
	var names []string
	for name := range rec.Manifest.Targets {
		if kind := rec.Manifest.Target(name).Kind; kind == "embedded" || kind == "sandbox" {
			names = append(names, fmt.Sprintf("%s (%s)", name, kind))
		}
	}
	sort.Strings(names)
	return names
}

// DivergenceError says where a resumed plan stops matching its journal.
type DivergenceError struct {
	Step    string
	Builtin string // both sides', when they are the same builtin
	Journal string // what the journal recorded there
	Plan    string // what the plan does now
}

func (e *DivergenceError) Error() string {
	advice := "resume with the plan as it was, or start a new run"
	if e.Builtin == "db.connect" {
		// The connection's text names its target: the one given now differs.
		advice = "give the run's target again with --target (the same NAME=, a password in the DSN or MYSQL_PWD: " +
			"passwords are not recorded); 'starbench run --resume --help' says more"
	}
	return fmt.Sprintf("resume: the plan diverges from the journal at step %s: the journal has %s, the plan now runs %s; %s",
		e.Step, e.Journal, e.Plan, advice)
}

// replay is the state of a resumed run: which steps completed, and
// whether the plan is still replaying them.
type replay struct {
	mu       sync.Mutex
	active   bool
	ends     map[string]results.JournalRecord
	starts   map[string]results.JournalRecord
	dir      string
	replayed int
	again    int // completed state steps run again
	fromStep string
}

func newReplay(rec *Recorded) *replay {
	rp := &replay{active: true, ends: map[string]results.JournalRecord{}, starts: map[string]results.JournalRecord{}, dir: rec.Dir}
	for _, j := range rec.Journal {
		switch j.Event {
		case "start":
			rp.starts[j.ID] = j
		case "end":
			rp.ends[j.ID] = j
		}
	}
	return rp
}

func describeStep(builtin, text, pos string) string {
	first, _, _ := strings.Cut(text, "\n")
	if len(first) > 100 {
		first = first[:100] + "…"
	}
	s := builtin
	if first != "" {
		s += fmt.Sprintf(" %q", first)
	}
	if pos != "" {
		s += " at " + pos
	}
	return s
}

// lookup decides what a step does on resume: replay its recorded result
// (record non-nil), run for real, or fail with a divergence.
func (rp *replay) lookup(id string, info StepInfo, hash, pos string) (record *results.JournalRecord, err error) {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	if !rp.active {
		return nil, nil
	}
	end, done := rp.ends[id]
	if done && end.Outcome == "ok" {
		if end.Builtin != info.Builtin || end.Hash != hash {
			start := rp.starts[id]
			e := &DivergenceError{Step: id, Journal: describeStep(start.Builtin, start.Text, start.Pos), Plan: describeStep(info.Builtin, info.Text, pos)}
			if end.Builtin == info.Builtin {
				e.Builtin = info.Builtin
			}
			return nil, e
		}
		return &end, nil
	}
	// Not completed (it failed, was cancelled or was cut off): it runs for
	// real, as edited or not, and so does everything after it.
	rp.active = false // the first step not completed: live from here on
	rp.fromStep = id
	return nil, nil
}

// completedChild is the end record of child step id when it completed
// with hash in the run being resumed, under a parent that started there
// with parentHash; nil otherwise.
func (rp *replay) completedChild(id, hash, parentID, parentHash string) *results.JournalRecord {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	end, done := rp.ends[id]
	if !done || end.Outcome != "ok" || end.Hash != hash || rp.starts[parentID].Hash != parentHash {
		return nil
	}
	return &end
}

// result loads a completed step's recorded result.
func (rp *replay) result(end *results.JournalRecord) (json.RawMessage, error) {
	if end.ResultFile == "" {
		return end.Result, nil
	}
	return os.ReadFile(filepath.Join(rp.dir, end.ResultFile))
}

// isActive reports whether the resume is still replaying.
func (rp *replay) isActive() bool {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	return rp.active
}

// finishReplay ends the replay: the plan ran past its last completed step.
func (rp *replay) finishReplay() {
	rp.mu.Lock()
	rp.active = false
	rp.mu.Unlock()
}

// ranAgain notes a completed state step (StepInfo.State) the resume ran
// again, and says so when what it read now differs from what the run
// recorded: the server's state changed since.
func (rp *replay) ranAgain(s *Step, recorded *results.JournalRecord, now json.RawMessage, w io.Writer) {
	rp.mu.Lock()
	rp.again++
	rp.mu.Unlock()
	old, err := rp.result(recorded)
	if err != nil || len(old) == 0 && len(now) == 0 {
		return
	}
	if diff := jsonDifference(old, now); diff != "" {
		fmt.Fprintf(w, "resume: step %s (%s) ran again and found the server's state changed since the run recorded it: %s\n",
			s.id, describeStep(s.info.Builtin, s.info.Text, s.pos), s.run.redact(diff))
	}
}

// jsonDifference says how two JSON results differ ("" when equal): for
// objects the keys whose values differ (up to five), else both values,
// shortened.
func jsonDifference(old, now json.RawMessage) string {
	var a, b any
	if json.Unmarshal(old, &a) != nil || json.Unmarshal(now, &b) != nil {
		return ""
	}
	if reflect.DeepEqual(a, b) {
		return ""
	}
	short := func(v any) string {
		data, _ := json.Marshal(v)
		if len(data) > 80 {
			return string(data[:80]) + "…"
		}
		return string(data)
	}
	am, okA := a.(map[string]any)
	bm, okB := b.(map[string]any)
	if !okA || !okB {
		return fmt.Sprintf("recorded %s, now %s", short(a), short(b))
	}
	keys := map[string]bool{}
	for k := range am {
		keys[k] = true
	}
	for k := range bm {
		keys[k] = true
	}
	var names []string
	for k := range keys {
		if !reflect.DeepEqual(am[k], bm[k]) {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	var parts []string
	for i, k := range names {
		if i == 5 {
			parts = append(parts, fmt.Sprintf("and %d more", len(names)-5))
			break
		}
		parts = append(parts, fmt.Sprintf("%s recorded %s, now %s", k, short(am[k]), short(bm[k])))
	}
	return strings.Join(parts, "; ")
}
