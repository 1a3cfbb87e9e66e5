package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/starbench/starbench/runner"
)

// ttyProgress is the live view of a run on a terminal: one status line,
// redrawn in place, with the plan's step n/m and name, the running
// workload's elapsed/remaining time, current tps and p99 with a sparkline,
// and errors. Plan output scrolls above it; each finished benchmark leaves
// one summary line.
type ttyProgress struct {
	mu     sync.Mutex
	w      io.Writer
	width  int
	total  int
	n      int
	id     string
	what   string
	bench  *runner.BenchmarkStatus
	spark  []float64
	drawn  bool
	redact func(string) string
}

func newTTYProgress(w io.Writer, total int, redact func(string) string) *ttyProgress {
	width := 100
	if f, ok := w.(*os.File); ok {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 20 {
			width = cols
		}
	}
	return &ttyProgress{w: w, width: width, total: total, redact: redact}
}

func (p *ttyProgress) clear() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
		p.drawn = false
	}
}

// Line implements runner.Progress.
func (p *ttyProgress) Line(text string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	fmt.Fprintln(p.w, text)
	p.draw()
}

// StepStarted implements runner.Progress.
func (p *ttyProgress) StepStarted(n int, id, builtin, text string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n, p.id, p.bench, p.spark = n, id, nil, nil
	first, _, _ := strings.Cut(text, "\n")
	p.what = strings.TrimSpace(builtin + " " + first)
	p.clear()
	p.draw()
}

// StepEnded implements runner.Progress.
func (p *ttyProgress) StepEnded(id, outcome string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	if p.bench != nil && id == p.id {
		b := p.bench
		fmt.Fprintf(p.w, "step %s %s: %s at %d threads: %.2f tps, p99 %.2f ms, %d errors [%s]%s\n",
			id, outcome, b.Workload, b.Threads, b.TPS, b.P99MS, b.Errors, sparkline(p.spark), partsTPS(b))
		p.bench = nil
	}
	p.draw()
}

// Benchmark implements runner.Progress.
func (p *ttyProgress) Benchmark(b runner.BenchmarkStatus) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.bench = &b
	if !b.Final {
		p.spark = append(p.spark, b.TPS)
		if len(p.spark) > 24 {
			p.spark = p.spark[len(p.spark)-24:]
		}
	}
	p.clear()
	p.draw()
}

// finish removes the status line.
func (p *ttyProgress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
}

func (p *ttyProgress) draw() {
	if p.n == 0 {
		return
	}
	total := "?"
	if p.total > 0 {
		total = fmt.Sprint(max(p.total, p.n))
	}
	line := fmt.Sprintf("step %d/%s %s", p.n, total, p.what)
	if b := p.bench; b != nil {
		remaining := ""
		if b.TotalS > 0 {
			remaining = fmt.Sprintf(", %.0fs left", max(0, b.TotalS-b.ElapsedS))
		}
		line = fmt.Sprintf("step %d/%s %s t%d | %.0fs%s | tps %.1f p99 %.2fms %s | err %d%s",
			p.n, total, b.Workload, b.Threads, b.ElapsedS, remaining, b.TPS, b.P99MS, sparkline(p.spark), b.Errors, partsTPS(b))
	}
	line = p.redact(line)
	if utf8.RuneCountInString(line) > p.width-1 {
		line = string([]rune(line)[:p.width-2]) + "…"
	}
	fmt.Fprint(p.w, line)
	p.drawn = true
}

// partsTPS is " | parts " and each part's tps joined by "/" for a step
// of several loads run at once (with the client host an agent runs it
// on), "" for one load.
func partsTPS(b *runner.BenchmarkStatus) string {
	if len(b.Parts) == 0 {
		return ""
	}
	tps := make([]string, len(b.Parts))
	for i, part := range b.Parts {
		tps[i] = fmt.Sprintf("%.0f", part.TPS)
		if part.Client != "" {
			tps[i] += " " + strings.TrimPrefix(part.Client, "ssh ")
		}
	}
	return " | parts " + strings.Join(tps, "/")
}

// sparkline draws values as block characters scaled to their maximum.
func sparkline(values []float64) string {
	const blocks = "▁▂▃▄▅▆▇█"
	runes := []rune(blocks)
	top := 0.0
	for _, v := range values {
		top = max(top, v)
	}
	var b strings.Builder
	for _, v := range values {
		i := 0
		if top > 0 {
			i = int(v / top * float64(len(runes)-1))
		}
		b.WriteRune(runes[i])
	}
	return b.String()
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
