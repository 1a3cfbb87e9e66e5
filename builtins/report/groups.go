package report

import (
	"fmt"
	"sort"
	"strings"
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
}

func (k Key) String() string {
	s := fmt.Sprintf("%s t%d", k.Workload, k.Threads)
	if k.Tags != "" {
		s += " " + k.Tags
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
}

// Stats summarises a metric over the group's repeats.
func (g *Group) Stats(m Metric) Stats {
	vals := make([]float64, len(g.Benchmarks))
	for i, b := range g.Benchmarks {
		vals[i] = b.Value(m)
	}
	return StatsOf(vals)
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
