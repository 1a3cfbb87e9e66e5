package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/starbench/starbench/runner/results"
)

// RoundTag is the reserved tag that numbers repeats of the same step.
const RoundTag = "round"

// Key identifies what a benchmark measured, apart from repeats: the
// workload, the threads and the tags except round (and except the ones a
// comparison splits by).
type Key struct {
	Workload string
	Threads  int
	Tags     string // "k=v,k=v" sorted; "" when none
	// Part is k for the k-th parts of the steps of the key without it
	// (see PartGroups); 0 for the steps themselves.
	Part int
}

func (k Key) String() string {
	s := fmt.Sprintf("%s t%d", k.Workload, k.Threads)
	if k.Tags != "" {
		s += " " + k.Tags
	}
	if k.Part > 0 {
		s += fmt.Sprintf(" part %d", k.Part)
	}
	return s
}

func keyOf(b *Benchmark, exclude map[string]bool) Key {
	var parts []string
	for name, v := range b.Summary.Tags {
		if name == RoundTag || exclude[name] {
			continue
		}
		parts = append(parts, name+"="+v)
	}
	sort.Strings(parts)
	return Key{Workload: b.Workload(), Threads: b.Threads(), Tags: strings.Join(parts, ",")}
}

// Group is the repeats of one Key.
type Group struct {
	Key        Key
	Tags       map[string]string
	Benchmarks []*Benchmark
	// parts are, for a group of parts, every one of them, also those
	// that did not start (which Benchmarks leaves out).
	parts []*Benchmark
}

// Stats summarises a metric over the group's repeats.
func (g *Group) Stats(m Metric) Stats {
	vals := make([]float64, len(g.Benchmarks))
	for i, b := range g.Benchmarks {
		vals[i] = b.Value(m)
	}
	return StatsOf(vals)
}

// Known reports whether every repeat has metric m (see Benchmark.Known).
func (g *Group) Known(m Metric) bool {
	for _, b := range g.Benchmarks {
		if _, ok := b.Figure(m); !ok {
			return false
		}
	}
	return true
}

// knows reports whether every repeat has the summary's figure.
func (g *Group) knows(figure string) bool {
	for _, b := range g.Benchmarks {
		if !b.Summary.Known(figure) {
			return false
		}
	}
	return true
}

// Errors is the total of ignored errors over the repeats.
func (g *Group) Errors() int64 {
	var n int64
	for _, b := range g.Benchmarks {
		n += b.Summary.Errors
	}
	return n
}

// MinLatency and MaxLatency are over all repeats.
func (g *Group) MinLatency() float64 {
	m := 0.0
	for i, b := range g.Benchmarks {
		if v := b.Summary.Latency.MinMS; i == 0 || v < m {
			m = v
		}
	}
	return m
}

// Groups collects benchmarks by key, in order of first appearance.
func Groups(benchmarks []*Benchmark, exclude ...string) []*Group {
	ex := map[string]bool{}
	for _, e := range exclude {
		ex[e] = true
	}
	index := map[Key]*Group{}
	var out []*Group
	for _, b := range benchmarks {
		k := keyOf(b, ex)
		g, ok := index[k]
		if !ok {
			g = &Group{Key: k, Tags: map[string]string{}}
			for name, v := range b.Summary.Tags {
				if name != RoundTag && !ex[name] {
					g.Tags[name] = v
				}
			}
			index[k] = g
			out = append(out, g)
		}
		g.Benchmarks = append(g.Benchmarks, b)
	}
	return out
}

// PartGroups are the parts of a group of merged steps: for k = 1, 2, ...
// the k-th part of each of its benchmarks (repeats of the part, as the
// benchmarks are repeats of the step), keyed as the group with Part k.
// A group's Benchmarks are the parts that ran; a part no benchmark ran
// has none. A group without parts has no part groups.
func (g *Group) PartGroups() []*Group {
	n := 0
	for _, b := range g.Benchmarks {
		n = max(n, len(b.Parts))
	}
	out := make([]*Group, n)
	for k := range out {
		pg := &Group{Key: g.Key, Tags: g.Tags}
		pg.Key.Part = k + 1
		for _, b := range g.Benchmarks {
			if k >= len(b.Parts) {
				continue
			}
			pg.parts = append(pg.parts, b.Parts[k])
			if b.Parts[k].Part.Ran {
				pg.Benchmarks = append(pg.Benchmarks, b.Parts[k])
			}
		}
		out[k] = pg
	}
	return out
}

// partLabel names a group of parts after its first part, and when none
// of them ran, says why: "2 tpcc-w10 (failed: did not start)".
func (g *Group) partLabel() string {
	if len(g.Benchmarks) > 0 {
		return g.Benchmarks[0].PartLabel()
	}
	if len(g.parts) == 0 {
		return ""
	}
	p := g.parts[0]
	why := p.Part.Entry.Error
	if why == "" {
		why = "no " + results.SummaryFile
	}
	status := p.Part.Entry.Status
	if status == "" {
		status = "not run"
	}
	return fmt.Sprintf("%s (%s: %s)", p.PartLabel(), status, strings.Join(strings.Fields(why), " "))
}

// tagNames lists the tags (except round) that benchmarks carry.
func tagNames(benchmarks []*Benchmark) []string {
	seen := map[string]bool{}
	for _, b := range benchmarks {
		for name := range b.Summary.Tags {
			if name != RoundTag {
				seen[name] = true
			}
		}
	}
	var names []string
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// workloads lists workloads in order of first appearance.
func workloads(benchmarks []*Benchmark) []string {
	seen := map[string]bool{}
	var out []string
	for _, b := range benchmarks {
		if !seen[b.Workload()] {
			seen[b.Workload()] = true
			out = append(out, b.Workload())
		}
	}
	return out
}
