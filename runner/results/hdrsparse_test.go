package results

import (
	"bytes"
	"math/rand/v2"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// testGeoms are the geometries the sparse histograms are checked in: the
// one starbench records in, a coarser and a finer one, one whose lowest
// value is not 1 (a unit magnitude above 0), and one of 1 digit.
var testGeoms = [][3]int64{{1, 3600e6, 3}, {1, 60e6, 2}, {1, 3600e6, 4}, {1000, 3600e9, 3}, {1, 1e6, 1}}

// denseSample records n values spread over a geometry's range, as
// latencies spread (many small, a few large).
func denseSample(rng *rand.Rand, g [3]int64, n int) *hdr.Histogram {
	h := hdr.New(g[0], g[1], int(g[2]))
	for range n {
		v := int64(rng.ExpFloat64() * float64(g[0]*200))
		if rng.IntN(20) == 0 {
			v = rng.Int64N(g[1])
		}
		_ = h.RecordValues(v, int64(1+rng.IntN(3)))
	}
	return h
}

func encodeDense(t testing.TB, h *hdr.Histogram) []byte {
	t.Helper()
	b, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func decodeSparse(t testing.TB, c *histCodec, text []byte) *sparseHist {
	t.Helper()
	h := &sparseHist{}
	if err := c.decode(text, h); err != nil {
		t.Fatal(err)
	}
	return h
}

// Every flat index maps to a value that maps back to it.
func TestHistGeomIndexRoundTrip(t *testing.T) {
	for _, g := range testGeoms {
		geom, err := newHistGeom(g[0], g[1], int32(g[2]))
		if err != nil {
			t.Fatal(err)
		}
		for i := range geom.countsLen {
			if j := geom.indexOf(geom.valueOf(i)); j != int(i) {
				t.Fatalf("%v: index %d → value %d → index %d", g, i, geom.valueOf(i), j)
			}
		}
	}
}

// A histogram decoded sparse answers as the dense one does: the same V2
// bytes when encoded again, the same Max and percentiles, the same total.
func TestSparseHistAnswersAsDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	c := newHistCodec()
	for _, g := range testGeoms {
		for n := range []int{0, 1, 2, 5, 80, 3000} {
			d := denseSample(rng, g, []int{0, 1, 2, 5, 80, 3000}[n])
			text := encodeDense(t, d)
			s := decodeSparse(t, c, text)
			again, err := c.appendEncoded(nil, s)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again, text) {
				t.Errorf("%v, %d values: sparse encoding differs from the dense one", g, d.TotalCount())
			}
			if s.total != d.TotalCount() || s.maxValue() != d.Max() {
				t.Errorf("%v: total %d max %d, dense %d %d", g, s.total, s.maxValue(), d.TotalCount(), d.Max())
			}
			for _, p := range []float64{0, 1, 25, 50, 90, 95, 99, 99.9, 99.99, 100} {
				if got, want := s.valueAtPercentile(p), d.ValueAtPercentile(p); got != want {
					t.Errorf("%v, %d values: p%v %d, dense %d", g, d.TotalCount(), p, got, want)
				}
			}
		}
	}
}

// Merging sparse histograms, in one geometry or two, gives what the dense
// Merge gives (values out of the destination's range dropped), and so
// does merging a sparse one into a dense total.
func TestSparseMergeAsDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	c := newHistCodec()
	var m merger
	for _, gd := range testGeoms {
		for _, gs := range testGeoms {
			dst, src := denseSample(rng, gd, 200), denseSample(rng, gs, 300)
			sd, ss := decodeSparse(t, c, encodeDense(t, dst)), decodeSparse(t, c, encodeDense(t, src))
			total := hdr.New(gd[0], gd[1], int(gd[2]))
			ss.mergeInto(total)
			sd.mergeInto(total)
			m.merge(sd, ss)
			dst.Merge(src)
			got, err := c.appendEncoded(nil, sd)
			if err != nil {
				t.Fatal(err)
			}
			if want := encodeDense(t, dst); !bytes.Equal(got, want) || sd.total != dst.TotalCount() {
				t.Errorf("merge of %v into %v: %d values, dense %d", gs, gd, sd.total, dst.TotalCount())
			}
			if !total.Equals(dst) {
				t.Errorf("merge of %v into a dense %v differs from the dense merge", gs, gd)
			}
		}
	}
}

// Bad encodings are errors, not panics or histograms.
func TestSparseDecodeRefusesBadInput(t *testing.T) {
	c := newHistCodec()
	good := encodeDense(t, denseSample(rand.New(rand.NewPCG(1, 2)), testGeoms[0], 50))
	for name, text := range map[string][]byte{
		"not base64": []byte("HISTF%%%%"),
		"short":      []byte("AAAA"),
		"truncated":  good[:len(good)/2],
		"bad cookie": append([]byte("A"), good[1:]...),
	} {
		if err := c.decode(text, &sparseHist{}); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
	if err := c.decode(good, &sparseHist{}); err != nil {
		t.Errorf("the good one after the bad: %v", err)
	}
}
