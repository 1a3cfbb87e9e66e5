package results

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
)

// CapacityFile is what a capacity search (bench.capacity) writes in its
// step folder: the question, the answer and every probe, each probe's
// own step folder under ProbesDir.
const (
	CapacityFile = "capacity.json"
	ProbesDir    = "probes"
)

// Capacity is a capacity search: the highest load (a rate, or threads)
// whose probe held the SLO.
type Capacity struct {
	Name     string `json:"name"`
	Dir      string `json:"dir,omitempty"` // the search's step folder, relative to the results folder
	Workload string `json:"workload"`
	Family   string `json:"family"`
	Target   string `json:"target,omitempty"`
	// Threads are the threads that served a rate (open loop).
	Threads int               `json:"threads,omitempty"`
	Tags    map[string]string `json:"tags,omitempty"`
	// Over is "rate" (open loop, events per second) or "threads" (closed
	// loop).
	Over string `json:"over"`
	// SLO is the objective by bound (p99_ms, max_ms, errors_pct, ...),
	// SLOText as said to users ("p99 ≤ 50ms, errors ≤ 0.1%").
	SLO         map[string]float64 `json:"slo"`
	SLOText     string             `json:"slo_text"`
	Lo          float64            `json:"lo"`
	Hi          float64            `json:"hi"`
	Precision   float64            `json:"precision"`
	StepSeconds float64            `json:"step_seconds"`
	// Found: the answer lies within the range (Bound "within"); otherwise
	// Bound is "below" (the lowest load broke the SLO, Answer 0) or
	// "above" (the highest held it, Answer the highest).
	Found  bool    `json:"found"`
	Bound  string  `json:"bound"`
	Answer float64 `json:"answer"`
	// AnswerTPS is the events per second the answer's probe served.
	AnswerTPS float64         `json:"answer_tps"`
	Probes    []CapacityProbe `json:"probes"`
}

// CapacityProbe is one probe of a search: its load, what it measured and
// whether it held the SLO (the bounds it broke otherwise).
type CapacityProbe struct {
	Probe     int                `json:"probe"`
	Load      float64            `json:"load"`
	Dir       string             `json:"dir"` // the probe's step folder, relative to the search's
	TPS       float64            `json:"tps"`
	Latency   map[string]float64 `json:"latency_ms"` // p50 ... p9999, avg, max
	ErrorsPct float64            `json:"errors_pct"`
	Holds     bool               `json:"holds"`
	Broken    []string           `json:"broken,omitempty"`
	Replayed  bool               `json:"replayed,omitempty"` // taken up from the run a resume continued
}

// Unit is what the search's loads count.
func (c *Capacity) Unit() string {
	if c.Over == "threads" {
		return "threads"
	}
	return "events/s"
}

// Describe says the answer in one line.
func (c *Capacity) Describe() string {
	n := len(c.Probes)
	what := c.Workload
	if c.Threads > 0 {
		what = fmt.Sprintf("%s (%d threads)", c.Workload, c.Threads)
	}
	plural := "s"
	if n == 1 {
		plural = ""
	}
	switch c.Bound {
	case "below":
		return fmt.Sprintf("capacity of %s: not found within the bounds: the SLO (%s) breaks at the lowest %s asked, %s (%d probe%s)",
			what, c.SLOText, c.Unit(), FormatLoad(c.Lo), n, plural)
	case "above":
		return fmt.Sprintf("capacity of %s: not found within the bounds: the SLO (%s) holds at the highest %s asked, %s: the capacity is above it (%d probe%s)",
			what, c.SLOText, c.Unit(), FormatLoad(c.Hi), n, plural)
	}
	return fmt.Sprintf("capacity of %s: %s %s (%.2f tps) with %s, within %s%% (%d probe%s)", what, FormatLoad(c.Answer), c.Unit(),
		c.AnswerTPS, c.SLOText, FormatLoad(c.Precision*100), n, plural)
}

// FormatLoad writes a load: whole numbers as such, others to a tenth.
func FormatLoad(x float64) string {
	if x == math.Trunc(x) {
		return strconv.FormatFloat(x, 'f', 0, 64)
	}
	return strconv.FormatFloat(x, 'f', 1, 64)
}

// SortedProbes are the probes by load (the order a chart draws them).
func (c *Capacity) SortedProbes() []CapacityProbe {
	out := append([]CapacityProbe(nil), c.Probes...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Load < out[j].Load })
	return out
}

// WriteCapacity writes a search's capacity.json into its step folder.
func WriteCapacity(dir string, c *Capacity) error {
	return WriteJSON(filepath.Join(dir, CapacityFile), c)
}

// ReadCapacity reads a search's capacity.json.
func ReadCapacity(dir string) (*Capacity, error) {
	data, err := os.ReadFile(filepath.Join(dir, CapacityFile))
	if err != nil {
		return nil, err
	}
	var c Capacity
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, CapacityFile), err)
	}
	return &c, nil
}

// CapacityDirs are the step folders of a results folder that hold a
// capacity search, in step order.
func CapacityDirs(dir string) []string {
	found, _ := filepath.Glob(filepath.Join(dir, StepsDir, "*", CapacityFile))
	var out []string
	for _, f := range found {
		out = append(out, filepath.Dir(f))
	}
	sort.SliceStable(out, func(i, j int) bool { return StepLess(StepID(out[i]), StepID(out[j])) })
	return out
}
