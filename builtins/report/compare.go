package report

import (
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// CompareOptions say what to compare.
type CompareOptions struct {
	// By is the tag whose values are the contenders; "" makes each
	// results folder a contender.
	By string
	// Baseline is the contender the others are compared with; "" is the
	// first one found.
	Baseline   string
	Metric     Metric
	Thresholds []Threshold
	// Parts also compares the parts of merged steps: part k of a step
	// with part k of the same step of the other contenders, a row after
	// the step's. Thresholds apply to the steps, not to their parts.
	Parts bool
	// Knee is the rule each contender's thread sweeps' knees are found
	// by (nil: DefaultKneeRule).
	Knee *KneeRule
	// AllowIncomplete names the contenders (or results folders) whose
	// runs or steps did not complete that Thresholds may gate on their
	// figures; any other one that did not complete fails the thresholds.
	AllowIncomplete []string
}

// Threshold is a --fail-if condition such as tps<-5% or p99>+10%.
type Threshold struct {
	Metric  Metric
	Less    bool    // "<": fail when the change is below Percent
	Percent float64 // signed percent
	Text    string
}

var thresholdRe = regexp.MustCompile(`^\s*([a-z0-9]+)\s*([<>])\s*([+-]?\d+(?:\.\d+)?)\s*%\s*$`)

// ParseThreshold reads "tps<-5%" or "p99>+10%".
func ParseThreshold(s string) (Threshold, error) {
	m := thresholdRe.FindStringSubmatch(s)
	if m == nil {
		return Threshold{}, fmt.Errorf("threshold %q does not parse: want METRIC<PERCENT%% or METRIC>PERCENT%%, e.g. 'tps<-5%%' or 'p99>+10%%'", s)
	}
	metric, err := ParseMetric(m[1])
	if err != nil {
		return Threshold{}, fmt.Errorf("threshold %q: %w", s, err)
	}
	pct, err := strconv.ParseFloat(m[3], 64)
	if err != nil { // out of range: ±Inf would cross nothing or everything
		return Threshold{}, fmt.Errorf("threshold %q: the percent %s is out of range", s, m[3])
	}
	if pct == 0 {
		pct = 0 // -0% is 0%: no negative zero to print as "+-0"
	}
	return Threshold{Metric: metric, Less: m[2] == "<", Percent: pct, Text: strings.TrimSpace(s)}, nil
}

// crossed reports whether a change (percent) crosses the threshold.
func (t Threshold) crossed(change float64) bool {
	if t.Less {
		return change < t.Percent
	}
	return change > t.Percent
}

// Cell is one contender's numbers for one key.
type Cell struct {
	Contender   string  `json:"contender"`
	Present     bool    `json:"present"`
	Stats       Stats   `json:"stats"`
	Change      float64 `json:"change_pct"`  // vs the baseline, percent
	Significant bool    `json:"significant"` // beyond run-to-run noise (or no noise estimate)
	// Unknown: the contender has the step but not the figure (an imported
	// step whose source does not give it); it is not compared.
	Unknown bool `json:"unknown,omitempty"`
	// Incomplete: one of the steps did not run to its end.
	Incomplete bool `json:"incomplete,omitempty"`
}

// Row compares the contenders on one key.
type Row struct {
	Key  Key    `json:"-"`
	Name string `json:"key"`
	// Part labels a row of parts (Key.Part > 0) after the baseline's
	// part: its number and name.
	Part  string `json:"part,omitempty"`
	Cells []Cell `json:"cells"`
}

// Violation is a threshold crossed by a contender on a key, or (Missing)
// a step of the baseline that a contender does not have at all, which no
// threshold can pass: a run that lost a workload did not hold its speed.
type Violation struct {
	Threshold string  `json:"threshold"`
	Key       string  `json:"key"`
	Contender string  `json:"contender"`
	Change    float64 `json:"change_pct"`
	Noise     string  `json:"noise"` // "beyond noise", "single samples", "missing" or "incomplete"
	Missing   bool    `json:"missing,omitempty"`
	// Incomplete is set on a violation for a run or step of a contender
	// that did not complete (not allowed by name): what it was.
	Incomplete *Incomplete `json:"incomplete,omitempty"`
}

// Describe says what was crossed, for a baseline.
func (v Violation) Describe(baseline string) string {
	if v.Incomplete != nil {
		return fmt.Sprintf("incomplete: %s; %s cannot pass on it (--allow-incomplete %s gates on its figures anyway)",
			v.Incomplete.Describe(), v.Threshold, v.Contender)
	}
	if v.Missing {
		return fmt.Sprintf("missing step: %s, %s has none (%s has; %s cannot pass without it)", v.Key, v.Contender, baseline, v.Threshold)
	}
	return fmt.Sprintf("threshold %s crossed: %s, %s %+.2f%% vs %s (%s)", v.Threshold, v.Key, v.Contender, v.Change, baseline, v.Noise)
}

// Comparison is the result of Compare.
type Comparison struct {
	By         string      `json:"by"`
	Baseline   string      `json:"baseline"`
	Metric     Metric      `json:"metric"`
	Contenders []string    `json:"contenders"`
	Rows       []Row       `json:"rows"`
	Violations []Violation `json:"violations"`
	// Resources are the resource figures beside the changed steps
	// (addResources).
	Resources []ResourceRow `json:"resources,omitempty"`
	// Settings are the server settings that differ between the
	// contenders, by step (addSettings).
	Settings []SettingRow `json:"settings,omitempty"`
	// Knees are each contender's knees of its thread sweeps, by KneeRule.
	Knees    []Knee   `json:"knees,omitempty"`
	KneeRule KneeRule `json:"-"`
	// Incomplete are the compared runs and steps that did not complete,
	// by contender: their figures are marked in the table.
	Incomplete []Incomplete `json:"incomplete,omitempty"`
	groups     map[string]map[Key]*Group
}

// ErrNothingToCompare is returned when the folders share no step.
var ErrNothingToCompare = fmt.Errorf("nothing to compare")

// Compare matches benchmark steps of runs by workload, threads and tags
// (apart from round and the By tag) and compares every contender with
// the baseline. Repeats give mean, stddev, CV and a 95% interval, and a
// change within noise is marked as such.
func Compare(runs []*Run, opts CompareOptions) (*Comparison, error) {
	if opts.Metric == "" {
		opts.Metric = MetricTPS
	}
	c := &Comparison{By: opts.By, Metric: opts.Metric, groups: map[string]map[Key]*Group{}}
	byContender := c.assignContenders(runs)
	if len(c.Contenders) == 0 {
		if opts.By != "" {
			return nil, fmt.Errorf("%w: no benchmark step has the tag %q (tags found: %s)", ErrNothingToCompare, opts.By, strings.Join(tagNames(Benchmarks(runs)), ", "))
		}
		return nil, fmt.Errorf("%w: the folders hold no benchmark steps", ErrNothingToCompare)
	}
	if err := c.setBaseline(opts.Baseline, byContender); err != nil {
		return nil, err
	}
	keys := c.groupSteps(byContender, opts.Parts)
	if err := c.addRows(keys, opts.Metric); err != nil {
		return nil, err
	}
	if err := c.checkMetrics(byContender, opts.Metric, opts.Thresholds); err != nil {
		return nil, err
	}
	c.checkThresholds(keys, opts.Thresholds)
	c.missingSteps(opts.Thresholds)
	c.incompleteRuns(runs, byContender, opts)
	c.addResources()
	c.addSettings()
	c.KneeRule = ReportOptions{Knee: opts.Knee}.kneeRule()
	for _, name := range c.Contenders {
		for _, k := range Knees(byContender[name], c.KneeRule, c.By) {
			k.Contender = name
			c.Knees = append(c.Knees, k)
		}
	}
	return c, nil
}

// assignContenders sorts the runs' benchmark steps by contender: the run
// (by its label) or, with By, the step's value of that tag (a step
// without it takes no part). It lists the contenders in c in order of
// appearance.
func (c *Comparison) assignContenders(runs []*Run) map[string][]*Benchmark {
	byContender := map[string][]*Benchmark{}
	names := runLabels(runs)
	for i, r := range runs {
		for _, b := range r.Benchmarks {
			contender := names[i]
			if c.By != "" {
				v, ok := b.Summary.Tags[c.By]
				if !ok {
					continue
				}
				contender = v
			}
			if _, seen := byContender[contender]; !seen {
				c.Contenders = append(c.Contenders, contender)
			}
			byContender[contender] = append(byContender[contender], b)
		}
	}
	return byContender
}

// setBaseline makes baseline (or, when "", the first contender) the
// baseline and puts it first among the contenders, the others in order
// of appearance. The baseline must be a contender, and have another to
// compare with.
func (c *Comparison) setBaseline(baseline string, byContender map[string][]*Benchmark) error {
	c.Baseline = baseline
	if c.Baseline == "" {
		c.Baseline = c.Contenders[0]
	}
	if _, ok := byContender[c.Baseline]; !ok {
		return fmt.Errorf("%w: baseline %q is not among the contenders (%s)", ErrNothingToCompare, c.Baseline, strings.Join(c.Contenders, ", "))
	}
	sort.SliceStable(c.Contenders, func(i, j int) bool { return c.Contenders[i] == c.Baseline && c.Contenders[j] != c.Baseline })
	if len(c.Contenders) < 2 {
		return fmt.Errorf("%w: only one contender (%s); give more folders or --by a tag with several values", ErrNothingToCompare, c.Baseline)
	}
	return nil
}

// groupSteps groups each contender's steps by key (repeats together) and
// returns every key found, in order of appearance, baseline first. With
// parts, the parts that ran of each step follow it, keyed by the step
// and their number.
func (c *Comparison) groupSteps(byContender map[string][]*Benchmark, parts bool) []Key {
	var keys []Key
	seen := map[Key]bool{}
	add := func(name string, g *Group) {
		c.groups[name][g.Key] = g
		if !seen[g.Key] {
			seen[g.Key] = true
			keys = append(keys, g.Key)
		}
	}
	for _, name := range c.Contenders {
		c.groups[name] = map[Key]*Group{}
		for _, g := range Groups(byContender[name], c.By) {
			add(name, g)
			if !parts {
				continue
			}
			for _, pg := range g.PartGroups() {
				if len(pg.Benchmarks) > 0 {
					add(name, pg)
				}
			}
		}
	}
	return keys
}

// addRows adds a row on metric m for every step of the baseline, also
// one that no other contender has: what a run lost shows ("-") instead
// of vanishing. At least one step must be shared.
func (c *Comparison) addRows(keys []Key, m Metric) error {
	shared := false
	for _, k := range keys {
		if c.groups[c.Baseline][k] == nil {
			continue
		}
		for _, name := range c.Contenders[1:] {
			shared = shared || (k.Part == 0 && c.groups[name][k] != nil)
		}
		c.Rows = append(c.Rows, c.row(k, m))
	}
	if !shared {
		return fmt.Errorf("%w: no workload, threads and tags in common between %s", ErrNothingToCompare, strings.Join(c.Contenders, " and "))
	}
	return nil
}

// checkThresholds adds a violation for every contender that crosses a
// threshold on a step of the baseline: with repeats on both sides only
// when the change is beyond noise.
func (c *Comparison) checkThresholds(keys []Key, thresholds []Threshold) {
	for _, t := range thresholds {
		for _, k := range keys {
			if c.groups[c.Baseline][k] == nil || k.Part > 0 {
				continue
			}
			r := c.row(k, t.Metric)
			if r.Cells[0].Unknown {
				continue // the baseline has no such figure: nothing to gate on
			}
			base := r.Cells[0].Stats
			for _, cell := range r.Cells[1:] {
				if v, ok := crossing(t, k, base, cell); ok {
					c.Violations = append(c.Violations, v)
				}
			}
		}
	}
}

// crossing returns the violation when cell crosses t on key k against
// the baseline's stats, and false when it does not or only within noise.
func crossing(t Threshold, k Key, base Stats, cell Cell) (Violation, bool) {
	if !cell.Present || cell.Unknown || !t.crossed(cell.Change) {
		return Violation{}, false
	}
	v := Violation{Threshold: t.Text, Key: k.String(), Contender: cell.Contender, Change: cell.Change}
	switch {
	case base.N >= 2 && cell.Stats.N >= 2 && !cell.Significant:
		return Violation{}, false // within noise
	case base.N >= 2 && cell.Stats.N >= 2:
		v.Noise = "beyond noise"
	default:
		v.Noise = "single samples"
	}
	return v, true
}

// missingSteps adds a violation for every step of the baseline that a
// contender lacks, once, when there are thresholds to pass.
func (c *Comparison) missingSteps(thresholds []Threshold) {
	if len(thresholds) == 0 {
		return
	}
	var texts []string
	for _, t := range thresholds {
		texts = append(texts, t.Text)
	}
	for _, r := range c.Rows {
		if r.Key.Part > 0 {
			continue
		}
		for _, cell := range r.Cells[1:] {
			if !cell.Present {
				c.Violations = append(c.Violations, Violation{Threshold: strings.Join(texts, ", "), Key: r.Name,
					Contender: cell.Contender, Noise: "missing", Missing: true})
			}
		}
	}
}

func (c *Comparison) row(k Key, m Metric) Row {
	r := Row{Key: k, Name: k.String()}
	if k.Part > 0 {
		r.Part = c.groups[c.Baseline][k].partLabel()
	}
	baseGroup := c.groups[c.Baseline][k]
	base, baseKnown := baseGroup.Stats(m), baseGroup.Known(m)
	for _, name := range c.Contenders {
		g := c.groups[name][k]
		cell := Cell{Contender: name, Present: g != nil, Incomplete: g != nil && g.anyIncomplete()}
		if g != nil && !g.Known(m) {
			cell.Unknown = true
		} else if g != nil {
			cell.Stats = g.Stats(m)
			if base.Mean != 0 && baseKnown {
				cell.Change = (cell.Stats.Mean - base.Mean) / base.Mean * 100
			}
			cell.Significant = name != c.Baseline && baseKnown && Significant(base, cell.Stats)
		}
		r.Cells = append(r.Cells, cell)
	}
	return r
}

// runLabels names each run for comparisons without --by: its folder name,
// made unique.
func runLabels(runs []*Run) []string {
	out := make([]string, len(runs))
	count := map[string]int{}
	for i, r := range runs {
		name := r.Name
		count[name]++
		if count[name] > 1 {
			name = fmt.Sprintf("%s#%d", name, count[name])
		}
		out[i] = name
	}
	return out
}

// HasRepeats reports whether any cell has more than one sample.
func (c *Comparison) HasRepeats() bool {
	for _, r := range c.Rows {
		for _, cell := range r.Cells {
			if cell.Stats.N > 1 {
				return true
			}
		}
	}
	return false
}

// Table renders the comparison as a table: one row per key, per contender
// its value (mean ± 95% interval with repeats) and the change vs the
// baseline; "~" marks a change within noise.
func (c *Comparison) Table() Table {
	t := Table{Title: fmt.Sprintf("%s by %s, baseline %s", c.Metric, c.byLabel(), c.Baseline)}
	t.Columns = []string{"workload", "threads", "tags"}
	t.Numeric = []bool{false, true, false}
	parts := false
	for _, r := range c.Rows {
		parts = parts || r.Key.Part > 0
	}
	if parts {
		t.Columns = append(t.Columns, "part")
		t.Numeric = append(t.Numeric, false)
	}
	for i, name := range c.Contenders {
		t.Columns = append(t.Columns, name)
		t.Numeric = append(t.Numeric, true)
		if i > 0 {
			t.Columns = append(t.Columns, "vs "+c.Baseline)
			t.Numeric = append(t.Numeric, true)
		}
	}
	for _, r := range c.Rows {
		row := []string{r.Key.Workload, strconv.Itoa(r.Key.Threads), r.Key.Tags}
		if r.Key.Part > 0 { // the baseline's part: its own workload and threads
			first := c.groups[c.Baseline][r.Key].Benchmarks[0]
			row = []string{first.Workload(), strconv.Itoa(first.Threads()), r.Key.Tags}
		}
		if parts {
			row = append(row, r.Part)
		}
		for i, cell := range r.Cells {
			if !cell.Present || cell.Unknown {
				row = append(row, "-")
				if i > 0 {
					row = append(row, "-")
				}
				continue
			}
			v := num(cell.Stats.Mean)
			if cell.Stats.N > 1 {
				v += fmt.Sprintf(" ±%.1f%% (n=%d)", (cell.Stats.CIHigh-cell.Stats.Mean)/cell.Stats.Mean*100, cell.Stats.N)
			}
			if cell.Incomplete {
				v += incompleteMark
			}
			row = append(row, v)
			if i > 0 {
				ch := fmt.Sprintf("%+.2f%%", cell.Change)
				if !cell.Significant {
					ch += " ~"
				}
				if r.Cells[0].Unknown {
					ch = "-"
				}
				row = append(row, ch)
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

func (c *Comparison) byLabel() string {
	if c.By == "" {
		return "results folder"
	}
	return c.By
}

// Legend explains the marks of Table.
func (c *Comparison) Legend() string {
	legend := "One sample per contender: changes are compared directly, without a noise estimate (repeat steps with the round tag to get one)."
	if c.HasRepeats() {
		legend = "Values are means; ±: 95% confidence interval of the mean. ~: the change is within run-to-run noise (Welch's t-test, 95%)."
	}
	missingPart, unknown := false, false
	for _, r := range c.Rows {
		for _, cell := range r.Cells {
			unknown = unknown || cell.Unknown
		}
	}
	if unknown {
		legend += " -: a figure an imported folder's source does not give (unknown, not compared)."
	}
	for _, r := range c.Rows {
		for _, cell := range r.Cells {
			if cell.Incomplete && !strings.Contains(legend, incompleteLegend) {
				legend += " " + incompleteLegend
			}
		}
	}
	for _, r := range c.Rows {
		for _, cell := range r.Cells {
			switch {
			case cell.Present:
			case r.Key.Part == 0:
				return legend + " -: the contender has no such step (with --fail-if, a missing step fails the comparison)."
			default:
				missingPart = true
			}
		}
	}
	if missingPart {
		return legend + " -: the contender has no such part, or it did not start (--fail-if gates the steps, not their parts)."
	}
	return legend
}

// WriteViolations lists crossed thresholds.
func (c *Comparison) WriteViolations(w io.Writer) {
	for _, v := range c.Violations {
		fmt.Fprintln(w, v.Describe(c.Baseline))
	}
}

// ErrNoSuchMetric is returned when the compared metric, or a threshold's,
// is a figure none of the compared steps has (a typo, or tpmc on sysbench
// steps): a gate on it would pass without comparing anything.
var ErrNoSuchMetric = fmt.Errorf("no such metric")

// checkMetrics refuses a metric, or a threshold's, that no compared step
// has, naming those they have.
func (c *Comparison) checkMetrics(byContender map[string][]*Benchmark, metric Metric, thresholds []Threshold) error {
	has := map[Metric]bool{}
	var all []*Benchmark
	for _, name := range c.Contenders {
		all = append(all, byContender[name]...)
	}
	for _, m := range Metrics() {
		for _, b := range all {
			if _, ok := b.Figure(m); ok {
				has[m] = true
				break
			}
		}
	}
	var theirs []string
	for _, m := range Metrics() {
		if has[m] {
			theirs = append(theirs, string(m))
		}
	}
	if !has[metric] {
		return fmt.Errorf("%w: --metric %s: no compared step has it (theirs: %s)", ErrNoSuchMetric, metric, strings.Join(theirs, ", "))
	}
	for _, t := range thresholds {
		if !has[t.Metric] {
			return fmt.Errorf("%w: --fail-if '%s': no compared step has %s, so the gate would pass without comparing anything (theirs: %s)",
				ErrNoSuchMetric, t.Text, t.Metric, strings.Join(theirs, ", "))
		}
	}
	return nil
}

// incompleteRuns lists, by contender, the runs and steps compared that did
// not complete, and with thresholds adds a violation for each one not
// allowed by opts.AllowIncomplete: a failed run holds no speed to pass a
// gate on.
func (c *Comparison) incompleteRuns(runs []*Run, byContender map[string][]*Benchmark, opts CompareOptions) {
	var texts []string
	for _, t := range opts.Thresholds {
		texts = append(texts, t.Text)
	}
	for _, name := range c.Contenders {
		for _, r := range runs {
			var mine []*Benchmark
			for _, b := range byContender[name] {
				if b.Run == r {
					mine = append(mine, b)
				}
			}
			if len(mine) == 0 {
				continue
			}
			for _, inc := range incompleteOf(r, mine, name) {
				inc.Allowed = inc.allowedBy(opts.AllowIncomplete)
				c.Incomplete = append(c.Incomplete, inc)
				if len(texts) > 0 && !inc.Allowed {
					inc := inc
					c.Violations = append(c.Violations, Violation{Threshold: strings.Join(texts, ", "), Key: inc.Step, Contender: name,
						Noise: "incomplete", Incomplete: &inc})
				}
			}
		}
	}
}
