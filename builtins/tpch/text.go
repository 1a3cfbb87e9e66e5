package tpch

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

//go:embed dists.tsv
var distsTSV string

// dist is a weighted list of tokens: each token's weight added to those
// before it, a draw in [1, total] picking the first whose sum reaches it.
type dist struct {
	tokens []string
	cum    []int64
}

// dists are dbgen's distributions by name, read once.
var dists = sync.OnceValue(func() map[string]*dist {
	out := map[string]*dist{}
	for _, line := range strings.Split(distsTSV, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			panic(fmt.Sprintf("tpch: dists.tsv: bad line %q", line)) // an embedded file: a build error
		}
		w, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			panic(fmt.Sprintf("tpch: dists.tsv: bad weight in %q", line))
		}
		d := out[f[0]]
		if d == nil {
			d = &dist{}
			out[f[0]] = d
		}
		total := int64(0)
		if n := len(d.cum); n > 0 {
			total = d.cum[n-1]
		}
		d.tokens, d.cum = append(d.tokens, f[1]), append(d.cum, total+w)
	}
	return out
})

// pick draws a token of d from stream s (dbgen's pick_str).
func (g *Generator) pick(d *dist, s int) string {
	j := g.random(1, d.cum[len(d.cum)-1], s)
	i := 0
	for d.cum[i] < j {
		i++
	}
	return d.tokens[i]
}

// pickIndex is pick's position.
func (g *Generator) pickIndex(d *dist, s int) int {
	j := g.random(1, d.cum[len(d.cum)-1], s)
	i := 0
	for d.cum[i] < j {
		i++
	}
	return i
}

// phrase writes a phrase of grammar rule d (np or vp): each symbol a word
// of its distribution, a punctuation mark after it where the rule has one,
// then a space.
func (g *Generator) phrase(b *strings.Builder, rule *dist, words map[byte]*dist, s int) {
	for _, sym := range strings.Split(g.pick(rule, s), " ") {
		b.WriteString(g.pick(words[sym[0]], s))
		if len(sym) > 1 {
			b.WriteByte(sym[1])
		}
		b.WriteByte(' ')
	}
}

// sentence is one sentence of the text grammar (dbgen's txt_sentence).
func (g *Generator) sentence(b *strings.Builder, s int) {
	d := dists()
	np := map[byte]*dist{'A': d["articles"], 'J': d["adjectives"], 'D': d["adverbs"], 'N': d["nouns"]}
	vp := map[byte]*dist{'D': d["adverbs"], 'V': d["verbs"], 'X': d["auxillaries"]}
	for _, sym := range strings.Split(g.pick(d["grammar"], s), " ") {
		switch sym[0] {
		case 'V':
			g.phrase(b, d["vp"], vp, s)
		case 'N':
			g.phrase(b, d["np"], np, s)
		case 'P':
			b.WriteString(g.pick(d["prepositions"], s))
			b.WriteString(" the ")
			g.phrase(b, d["np"], np, s)
		case 'T':
			// The terminator replaces the phrase's trailing space.
			text := b.String()
			b.Reset()
			b.WriteString(text[:len(text)-1])
			b.WriteString(g.pick(d["terminators"], s))
		}
		if len(sym) > 1 {
			b.WriteByte(sym[1])
		}
	}
}

// textPoolSize is the size of the text comments are cut from (dbgen's
// 300 MB).
const textPoolSize = 300 << 20

// textPoolStream is the stream the pool's sentences draw from.
const textPoolStream = 5

// textPool is the text pool, made once and shared by every generator (it
// depends on no scale factor: its stream serves nothing else).
var textPool = sync.OnceValue(func() []byte {
	g := &Generator{streams: streamTable}
	return g.makeTextPool()
})

// makeTextPool fills the text pool with sentences, a space after each,
// the last cut at the pool's end.
func (g *Generator) makeTextPool() []byte {
	pool := make([]byte, 0, textPoolSize)
	var b strings.Builder
	for len(pool) < textPoolSize {
		b.Reset()
		g.sentence(&b, textPoolStream)
		s := b.String()
		if need := textPoolSize - len(pool); need >= len(s)+1 {
			pool = append(append(pool, s...), ' ')
		} else {
			pool = append(pool, s[:need]...)
		}
	}
	return pool
}

// text is a comment of average length avg: a random cut of the pool.
func (g *Generator) text(avg int, s int) string {
	lo, hi := int64(float64(avg)*0.4), int64(float64(avg)*1.6)
	off := g.random(0, textPoolSize-hi, s)
	n := g.random(lo, hi, s)
	return string(g.pool[off : off+n])
}
