package report

import (
	"slices"
	"sort"
	"strconv"
	"strings"
)

// SettingRow is a server setting whose value differs between the
// contenders at a step: a global variable some compared step found
// changed from its run's start (results.ServerSettings), or the
// statements the steps' sessions started with ("session"). Values are by
// contender, in Contenders' order: the distinct values of its repeats,
// " | " between them; "?" where its steps did not record the setting, ""
// where it has no such step.
type SettingRow struct {
	Key     Key      `json:"-"`
	Name    string   `json:"key"`
	Setting string   `json:"setting"`
	Values  []string `json:"values"`
}

// sessionSetting names the session statements among the settings.
const sessionSetting = "session"

// addSettings lists, for every step of the comparison, the settings whose
// values differ between the contenders that have the step.
func (c *Comparison) addSettings() {
	tv := targetVariables{}
	for _, r := range c.Rows {
		if r.Key.Part > 0 {
			continue
		}
		groups := make([][]*Benchmark, len(c.Contenders))
		names := map[string]bool{}
		for i, name := range c.Contenders {
			g := c.groups[name][r.Key]
			if g == nil {
				continue
			}
			groups[i] = g.Benchmarks
			for _, b := range g.Benchmarks {
				if s := b.Summary.Settings; s != nil {
					for n := range s.Globals {
						names[n] = true
					}
					if len(s.Session) > 0 {
						names[sessionSetting] = true
					}
				}
			}
		}
		sorted := make([]string, 0, len(names))
		for n := range names {
			sorted = append(sorted, n)
		}
		sort.Strings(sorted)
		for _, n := range sorted {
			row := SettingRow{Key: r.Key, Name: r.Name, Setting: n}
			distinct := map[string]bool{}
			for _, bs := range groups {
				v := settingValues(bs, n, tv)
				row.Values = append(row.Values, v)
				if len(bs) > 0 {
					distinct[v] = true
				}
			}
			if len(distinct) > 1 {
				c.Settings = append(c.Settings, row)
			}
		}
	}
}

// settingValues are the distinct values of a setting over a contender's
// repeats of a step, " | " between them ("" without a step).
func settingValues(bs []*Benchmark, name string, tv targetVariables) string {
	var vals []string
	for _, b := range bs {
		v := settingValue(b, name, tv)
		if !slices.Contains(vals, v) {
			vals = append(vals, v)
		}
	}
	return strings.Join(vals, " | ")
}

// settingValue is a setting's value in a step: the session statements
// ("(none)" when there were none), or the global's value when the step
// started, which is its run's recorded value unless the step found it
// changed; "?" when the step or its manifest did not record it.
func settingValue(b *Benchmark, name string, tv targetVariables) string {
	s := b.Summary.Settings
	if s == nil {
		return "?"
	}
	if name == sessionSetting {
		if len(s.Session) == 0 {
			return "(none)"
		}
		return strings.Join(s.Session, "; ")
	}
	if s.Error != "" {
		return "?"
	}
	if ch, ok := s.Globals[name]; ok {
		return ch.Now
	}
	if v, ok := tv.of(b.Run, b.Summary.Target)[name]; ok {
		return v
	}
	return "?"
}

// targetVariables are, by run, the global variables its manifest recorded
// of each target, by the target's DSN: read from a manifest once.
type targetVariables map[*Run]map[string]map[string]string

// of are those of the target whose DSN is dsn in run r (nil: none).
func (tv targetVariables) of(r *Run, dsn string) map[string]string {
	if r == nil {
		return nil
	}
	byDSN, ok := tv[r]
	if !ok {
		byDSN = map[string]map[string]string{}
		for key := range r.Manifest.Targets {
			if t := r.Manifest.Target(key); t.Variables != nil {
				byDSN[t.DSN] = t.Variables
			}
		}
		tv[r] = byDSN
	}
	return byDSN[dsn]
}

// SettingsTable lists the settings that differ between the contenders, a
// row each under its step; ok is false when none do.
func (c *Comparison) SettingsTable() (Table, bool) {
	if len(c.Settings) == 0 {
		return Table{}, false
	}
	t := Table{Title: "server settings that differ between the contenders (the globals a step found changed from its run's start, and the session statements)",
		Columns: []string{"workload", "threads", "tags", "setting"}, Numeric: []bool{false, true, false, false}}
	for _, name := range c.Contenders {
		t.Columns, t.Numeric = append(t.Columns, name), append(t.Numeric, false)
	}
	var last Key
	for i, r := range c.Settings {
		head := []string{"", "", ""}
		if i == 0 || r.Key != last {
			head = []string{r.Key.Workload, strconv.Itoa(r.Key.Threads), r.Key.Tags}
		}
		last = r.Key
		values := make([]string, len(r.Values))
		for k, v := range r.Values {
			values[k] = v
			if v == "" {
				values[k] = "-"
			}
		}
		t.Rows = append(t.Rows, append(append(head, r.Setting), values...))
	}
	return t, true
}
