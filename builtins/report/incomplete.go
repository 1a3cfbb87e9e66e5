package report

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/starbench/starbench/runner/results"
)

// Incomplete is a run, or a benchmark step of one, that did not run to
// its end: it failed, was interrupted, or never ended (its status is
// still "running": the process was killed). Its figures are what ran
// before it stopped; a report shows them marked, and a comparison's
// --fail-if gate does not pass on them unless they are allowed by name.
type Incomplete struct {
	Contender string `json:"contender,omitempty"`
	Folder    string `json:"folder"`         // the run's results folder
	Step      string `json:"step,omitempty"` // "": the run; else the step's id ("(the run's only step)" for a CLI run)
	Status    string `json:"status"`
	Error     string `json:"error,omitempty"` // the error's last line
	// Allowed: named by CompareOptions.AllowIncomplete, so compared and
	// gated like a completed one (still marked).
	Allowed bool `json:"allowed,omitempty"`
}

// Describe says what did not complete and what its figures are.
func (i Incomplete) Describe() string {
	what := fmt.Sprintf("the run in %s", i.Folder)
	if i.Step != "" {
		what = fmt.Sprintf("step %s of %s", i.Step, i.Folder)
	}
	status := i.Status
	if status == results.StatusRunning {
		status = "never ended (its status is still running: killed, or still going)"
	}
	s := what + " " + status
	if i.Error != "" {
		s += ": " + i.Error
	}
	if i.Step != "" {
		return s + "; its figures are what ran before it stopped"
	}
	return s
}

// Completed reports whether the step ran to its end (a summary older
// than the status field counts as completed).
func (b *Benchmark) Completed() bool {
	return b.Summary.Status == "" || b.Summary.Status == results.StatusCompleted
}

// completed reports whether the run ended completed (a manifest without
// a status, as a test's, counts as completed). The run a plan's report
// step reads while it goes on (Live) has not ended and is not counted as
// incomplete.
func (r *Run) completed() bool {
	return r.Live || r.Manifest.Status == "" || r.Manifest.Status == results.StatusCompleted
}

// IncompleteOf lists the runs that did not complete and the benchmark
// steps that did not, in order: each run before its steps.
func IncompleteOf(runs []*Run) []Incomplete {
	var out []Incomplete
	for _, r := range runs {
		out = append(out, incompleteOf(r, r.Benchmarks, "")...)
	}
	return out
}

// incompleteOf lists run r (when it did not complete) and those of
// benchmarks (of r) that did not, for contender.
func incompleteOf(r *Run, benchmarks []*Benchmark, contender string) []Incomplete {
	var out []Incomplete
	if !r.completed() {
		out = append(out, Incomplete{Contender: contender, Folder: r.Dir, Status: r.Manifest.Status, Error: lastErrorLine(r.Manifest.Error)})
	}
	for _, b := range benchmarks {
		if b.Run != r || b.Completed() {
			continue
		}
		step := b.Step
		if step == "" {
			step = "(the run's only step)"
		}
		out = append(out, Incomplete{Contender: contender, Folder: r.Dir, Step: step, Status: b.Summary.Status, Error: lastErrorLine(b.Summary.Error)})
	}
	return out
}

// incompleteMark follows a figure of a step that did not complete.
const incompleteMark = " !"

// incompleteLegend explains incompleteMark.
const incompleteLegend = "!: the step did not run to its end (it failed or was interrupted); its figures are what ran before it stopped."

// anyIncomplete reports whether a group's steps include one that did not
// complete.
func (g *Group) anyIncomplete() bool {
	for _, b := range g.Benchmarks {
		if !b.Completed() {
			return true
		}
	}
	return false
}

// lastErrorLine is the line of a (possibly multi-line, traceback) error
// that says what went wrong: the last one that is not blank.
func lastErrorLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	line := strings.TrimSpace(lines[len(lines)-1])
	const max = 240
	if len(line) > max {
		line = line[:max] + "..."
	}
	return line
}

// allowedBy reports whether name (a contender, a folder as given, or a
// folder's base name) allows inc.
func (inc Incomplete) allowedBy(names []string) bool {
	for _, n := range names {
		if n == inc.Contender || filepath.Clean(n) == filepath.Clean(inc.Folder) || n == filepath.Base(inc.Folder) {
			return true
		}
	}
	return false
}

// WriteIncomplete lists what did not complete, a line each, after
// "warning: ".
func WriteIncomplete(w io.Writer, list []Incomplete) {
	for _, inc := range list {
		fmt.Fprintf(w, "warning: %s\n", inc.Describe())
	}
}
