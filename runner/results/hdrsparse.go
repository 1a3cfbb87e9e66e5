package results

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// This file holds the interval histograms of a merge as sparse counts: a
// latency.hlog interval holds a few hundred populated buckets of the
// tens of thousands a dense hdr.Histogram allocates (184 KB at
// 1 µs–1 h, 3 digits), and decoding, merging and encoding them densely
// is what made a merge cost its time and memory. sparseHist answers what
// the merge asks of a dense histogram (merge, Max, ValueAtPercentile,
// the V2 encoding) with the same results: the bucket geometry below is
// HdrHistogram's, computed as hdrhistogram-go computes it, and
// hdrsparse_test.go checks each answer against the library's.

// The V2 format's framing: a cookie's low bits carry flags (a writer
// sets 0x10; readers ignore 0xf0), a LEB128 value takes at most 9 bytes.
const (
	v2CookieFlags  = 0x10
	v2CookieIgnore = 0xf0
	maxLEB128Bytes = 9
)

// histGeom is a histogram's bucket geometry: how a value maps to a flat
// counts index and back.
type histGeom struct {
	lowest, highest int64
	sig             int32
	unitMag         int64
	subHalfMag      int32
	subCount        int32
	subHalf         int32
	subMask         int64
	countsLen       int32
}

// newHistGeom is the geometry a V2 header declares, taken as the library's
// decoder takes it: significant digits 0–5, a lowest value below 1 read
// as 1, geometry that does not fit 64 bits refused.
func newHistGeom(lowest, highest int64, sig int32) (*histGeom, error) {
	if sig < 0 || sig > 5 {
		return nil, fmt.Errorf("significant digits must be between 0 and 5, got %d", sig)
	}
	if lowest < 1 {
		lowest = 1
	}
	// Unit resolution up to 2×10^sig, in a power-of-two sub-bucket count.
	subCountMag := int32(math.Ceil(math.Log2(2 * math.Pow10(int(sig)))))
	subHalfMag := max(subCountMag, 1) - 1
	unitMag := max(int32(math.Floor(math.Log2(float64(lowest)))), 0)
	if unitMag+subHalfMag > 61 {
		return nil, fmt.Errorf("lowest value %d is too large for %d significant digits", lowest, sig)
	}
	subCount := int32(1) << (subHalfMag + 1)
	g := &histGeom{lowest: lowest, highest: highest, sig: sig, unitMag: int64(unitMag), subHalfMag: subHalfMag,
		subCount: subCount, subHalf: subCount / 2, subMask: int64(subCount-1) << uint(unitMag)}
	// Buckets: at least one, doubling the smallest untrackable value until
	// it passes highest (the last bucket may reach past MaxInt64).
	buckets := int32(1)
	for untrackable := int64(subCount) << uint(unitMag); untrackable <= highest; untrackable <<= 1 {
		if untrackable > math.MaxInt64/2 {
			buckets++
			break
		}
		buckets++
	}
	g.countsLen = (buckets + 1) * g.subHalf
	return g, nil
}

func (g *histGeom) bucketOf(v int64) int32 {
	return int32(int64(64-bits.LeadingZeros64(uint64(v|g.subMask))) - g.unitMag - int64(g.subHalfMag+1))
}

func (g *histGeom) subBucketOf(v int64, bucket int32) int32 {
	return int32(v >> uint(int64(bucket)+g.unitMag))
}

func (g *histGeom) valueAt(bucket, sub int32) int64 {
	return int64(sub) << uint(int64(bucket)+g.unitMag)
}

// indexOf is the flat counts index of value v (possibly past countsLen).
func (g *histGeom) indexOf(v int64) int {
	b := g.bucketOf(v)
	return int(((b + 1) << uint(g.subHalfMag)) + g.subBucketOf(v, b) - g.subHalf)
}

// valueOf is the lowest value of flat counts index i.
func (g *histGeom) valueOf(i int32) int64 {
	b := (i >> uint(g.subHalfMag)) - 1
	sub := (i & (g.subHalf - 1)) + g.subHalf
	if b < 0 {
		sub -= g.subHalf
		b = 0
	}
	return g.valueAt(b, sub)
}

func (g *histGeom) lowestEquivalent(v int64) int64 {
	b := g.bucketOf(v)
	return g.valueAt(b, g.subBucketOf(v, b))
}

func (g *histGeom) highestEquivalent(v int64) int64 {
	b := g.bucketOf(v)
	sub := g.subBucketOf(v, b)
	size := b
	if sub >= g.subCount {
		size++
	}
	return g.valueAt(b, sub) + int64(1)<<uint(g.unitMag+int64(size)) - 1
}

// geomKey identifies a geometry, so that every histogram of one shares it.
type geomKey struct {
	lowest, highest int64
	sig             int32
}

// sparseHist is an interval histogram as its populated buckets: flat
// counts indexes ascending, each with its count (never 0).
type sparseHist struct {
	g     *histGeom
	ratio float64 // the V2 header's integer-to-double conversion ratio, written back as read
	idx   []int32
	cnt   []int64
	total int64
}

func (h *sparseHist) reset(g *histGeom, ratio float64) {
	h.g, h.ratio = g, ratio
	h.idx, h.cnt, h.total = h.idx[:0], h.cnt[:0], 0
}

// maxValue is Histogram.Max: the highest value equivalent to the highest
// populated bucket's.
func (h *sparseHist) maxValue() int64 {
	var top int64
	if n := len(h.idx); n > 0 {
		top = h.g.highestEquivalent(h.g.valueOf(h.idx[n-1]))
	}
	return h.g.highestEquivalent(top)
}

// valueAtPercentile is Histogram.ValueAtPercentile.
func (h *sparseHist) valueAtPercentile(p float64) int64 {
	if h.total == 0 {
		return 0
	}
	p = min(max(p, 0), 100)
	rank := p/100*float64(h.total) + 0.5
	var want int64
	switch {
	case !(rank >= 1):
		want = 1
	case rank >= float64(h.total):
		want = h.total
	default:
		want = int64(rank)
	}
	var v, seen int64
	for k, c := range h.cnt {
		seen += c
		if seen >= want {
			v = h.g.valueOf(h.idx[k])
			break
		}
	}
	if p == 0 {
		return h.g.lowestEquivalent(v)
	}
	return h.g.highestEquivalent(v)
}

// mergeInto is Histogram.Merge(h) into a dense histogram: every populated
// bucket recorded at its lowest value, what does not fit dropped.
func (h *sparseHist) mergeInto(dst *hdr.Histogram) {
	for k, i := range h.idx {
		_ = dst.RecordValues(h.g.valueOf(i), h.cnt[k]) // out of range: dropped, as Merge drops it
	}
}

// merger merges sparse histograms with the scratch space reused.
type merger struct {
	idx []int32
	cnt []int64
}

// merge adds from into h as Histogram.Merge does: each of from's buckets
// recorded at its lowest value in h's geometry, a count outside h's range
// or past its total's int64 range dropped.
func (m *merger) merge(h, from *sparseHist) {
	m.idx, m.cnt = m.idx[:0], m.cnt[:0]
	same := *h.g == *from.g
	a, total := 0, h.total
	for k, fi := range from.idx {
		c := from.cnt[k]
		i := fi
		if !same {
			j := h.g.indexOf(from.g.valueOf(fi))
			if j < 0 || j >= int(h.g.countsLen) {
				continue
			}
			i = int32(j)
		}
		if c > math.MaxInt64-total {
			continue
		}
		total += c
		for a < len(h.idx) && h.idx[a] < i {
			m.idx, m.cnt = append(m.idx, h.idx[a]), append(m.cnt, h.cnt[a])
			a++
		}
		switch {
		case a < len(h.idx) && h.idx[a] == i:
			m.idx, m.cnt = append(m.idx, i), append(m.cnt, h.cnt[a]+c)
			a++
		case len(m.idx) > 0 && m.idx[len(m.idx)-1] == i: // two of from's buckets in one of h's
			m.cnt[len(m.cnt)-1] += c
		default:
			m.idx, m.cnt = append(m.idx, i), append(m.cnt, c)
		}
	}
	m.idx, m.cnt = append(m.idx, h.idx[a:]...), append(m.cnt, h.cnt[a:]...)
	h.idx, m.idx = m.idx, h.idx
	h.cnt, m.cnt = m.cnt, h.cnt
	h.total = total
}

// histCodec decodes and encodes V2 compressed histograms (base64, as in a
// histogram log line), reusing its zlib reader and writer and buffers: a
// fresh zlib writer at the best compression, as the library makes one per
// histogram, costs more than everything else a merge does.
type histCodec struct {
	geoms   map[geomKey]*histGeom
	raw     []byte
	inner   []byte
	src     bytes.Reader
	zr      io.ReadCloser
	zw      *zlib.Writer
	zbuf    bytes.Buffer
	payload []byte
}

func newHistCodec() *histCodec { return &histCodec{geoms: map[geomKey]*histGeom{}} }

func (c *histCodec) geom(lowest, highest int64, sig int32) (*histGeom, error) {
	k := geomKey{lowest, highest, sig}
	if g, ok := c.geoms[k]; ok {
		return g, nil
	}
	g, err := newHistGeom(lowest, highest, sig)
	if err != nil {
		return nil, err
	}
	c.geoms[k] = g
	return g, nil
}

// decode reads a base64 V2 compressed histogram into h, accepting what
// hdr.Decode accepts (the normalizing index offset ignored, as there).
func (c *histCodec) decode(text []byte, h *sparseHist) error {
	if n := base64.StdEncoding.DecodedLen(len(text)); cap(c.raw) < n {
		c.raw = make([]byte, n)
	}
	n, err := base64.StdEncoding.Decode(c.raw[:cap(c.raw)], text)
	if err != nil {
		return err
	}
	raw := c.raw[:n]
	if len(raw) < 8 {
		return fmt.Errorf("encoded histogram too short: got %d bytes, need at least 8", len(raw))
	}
	if cookie := int32(binary.BigEndian.Uint32(raw)) &^ v2CookieIgnore; cookie != hdr.V2CompressedEncodingCookieBase {
		return fmt.Errorf("encoding not supported, only V2 is supported: cookie %d", cookie)
	}
	clen := int32(binary.BigEndian.Uint32(raw[4:]))
	if clen < 0 || int(clen) > len(raw)-8 {
		return fmt.Errorf("compressed length %d of %d bytes", clen, len(raw)-8)
	}
	c.src.Reset(raw[8 : 8+clen])
	if c.zr == nil {
		if c.zr, err = zlib.NewReader(&c.src); err != nil {
			c.zr = nil
			return err
		}
	} else if err := c.zr.(zlib.Resetter).Reset(&c.src, nil); err != nil {
		return err
	}
	if cap(c.inner) < hdr.ENCODING_HEADER_SIZE {
		c.inner = make([]byte, hdr.ENCODING_HEADER_SIZE, 1024)
	}
	head := c.inner[:hdr.ENCODING_HEADER_SIZE]
	if k, err := io.ReadFull(c.zr, head); err != nil {
		if err != io.EOF && err != io.ErrUnexpectedEOF {
			return err
		}
		return fmt.Errorf("decompressed histogram truncated: got %d bytes, need at least %d", k, hdr.ENCODING_HEADER_SIZE)
	}
	if cookie := int32(binary.BigEndian.Uint32(head)) &^ v2CookieIgnore; cookie != hdr.V2EncodingCookieBase {
		return fmt.Errorf("encoding not supported, only V2 is supported: cookie %d", cookie)
	}
	payloadLen := int32(binary.BigEndian.Uint32(head[4:]))
	sig := int32(binary.BigEndian.Uint32(head[12:]))
	lowest := int64(binary.BigEndian.Uint64(head[16:]))
	highest := int64(binary.BigEndian.Uint64(head[24:]))
	ratio := math.Float64frombits(binary.BigEndian.Uint64(head[32:]))
	if payloadLen < 0 {
		return fmt.Errorf("negative payload length %d", payloadLen)
	}
	g, err := c.geom(lowest, highest, sig)
	if err != nil {
		return fmt.Errorf("corrupt histogram header: %w", err)
	}
	if int64(payloadLen) > int64(g.countsLen)*maxLEB128Bytes {
		return fmt.Errorf("payload length %d exceeds the maximum for %d counts", payloadLen, g.countsLen)
	}
	// Read one byte past the payload: reaching EOF checks the zlib checksum
	// and that nothing trails.
	want := int(payloadLen) + 1
	if cap(c.payload) < want {
		c.payload = make([]byte, want)
	}
	buf := c.payload[:want]
	got := 0
	for got < want {
		k, err := c.zr.Read(buf[got:])
		got += k
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	if got != int(payloadLen) {
		return fmt.Errorf("payload length %d, read %d", payloadLen, got)
	}
	h.reset(g, ratio)
	return h.fill(buf[:got])
}

// fill reads a V2 payload: ZigZag LEB128 counts, a negative one a run of
// that many empty buckets.
func (h *sparseHist) fill(payload []byte) error {
	countsLen := int64(h.g.countsLen)
	var at int64
	for len(payload) > 0 {
		v, n, err := readZigZag(payload)
		if err != nil {
			return err
		}
		payload = payload[n:]
		if v < 0 {
			zeros := -v
			if zeros <= 0 || zeros > countsLen-at {
				return fmt.Errorf("corrupt histogram payload: %d empty buckets at %d of %d", zeros, at, countsLen)
			}
			at += zeros
			continue
		}
		if at >= countsLen {
			return fmt.Errorf("corrupt histogram payload: bucket %d of %d", at, countsLen)
		}
		if v > math.MaxInt64-h.total {
			return fmt.Errorf("corrupt histogram payload: counts sum past MaxInt64 at bucket %d", at)
		}
		if v > 0 {
			h.idx, h.cnt = append(h.idx, int32(at)), append(h.cnt, v)
			h.total += v
		}
		at++
	}
	return nil
}

var errTruncatedLEB128 = errors.New("truncated compressed histogram payload")

// readZigZag reads one ZigZag LEB128 value of at most 9 bytes (the ninth
// holds 8 bits).
func readZigZag(b []byte) (int64, int, error) {
	var u uint64
	n := 0
	for shift := uint(0); ; shift += 7 {
		if n >= len(b) {
			return 0, 0, errTruncatedLEB128
		}
		c := b[n]
		n++
		if n == maxLEB128Bytes {
			u |= uint64(c) << 56
			break
		}
		u |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			break
		}
	}
	return int64(u>>1) ^ -int64(u&1), n, nil
}

func appendZigZag(b []byte, v int64) []byte {
	u := uint64(v<<1) ^ uint64(v>>63)
	for n := 1; n < maxLEB128Bytes; n++ {
		if u>>7 == 0 {
			return append(b, byte(u))
		}
		b = append(b, byte(u)|0x80)
		u >>= 7
	}
	return append(b, byte(u))
}

// appendEncoded appends h's base64 V2 compressed encoding to dst, the
// bytes hdr.Histogram.Encode(V2CompressedEncodingCookieBase) gives for the
// same histogram.
func (c *histCodec) appendEncoded(dst []byte, h *sparseHist) ([]byte, error) {
	limit := int32(h.g.indexOf(h.maxValue()) + 1)
	p := c.payload[:0]
	gap := func(at, to int32) {
		switch n := int64(to - at); {
		case n == 1:
			p = appendZigZag(p, 0)
		case n > 1:
			p = appendZigZag(p, -n)
		}
	}
	var at int32
	for k, i := range h.idx {
		if i >= limit {
			break
		}
		gap(at, i)
		p = appendZigZag(p, h.cnt[k])
		at = i + 1
	}
	gap(at, limit)
	c.payload = p
	ratio := h.ratio
	if ratio == 0 {
		ratio = 1
	}
	inner := c.inner[:0]
	inner = binary.BigEndian.AppendUint32(inner, uint32(hdr.V2EncodingCookieBase|v2CookieFlags))
	inner = binary.BigEndian.AppendUint32(inner, uint32(len(p)))
	inner = binary.BigEndian.AppendUint32(inner, 0) // normalizing index offset
	inner = binary.BigEndian.AppendUint32(inner, uint32(h.g.sig))
	inner = binary.BigEndian.AppendUint64(inner, uint64(h.g.lowest))
	inner = binary.BigEndian.AppendUint64(inner, uint64(h.g.highest))
	inner = binary.BigEndian.AppendUint64(inner, math.Float64bits(ratio))
	inner = append(inner, p...)
	c.inner = inner
	c.zbuf.Reset()
	c.zbuf.Write(make([]byte, 8)) // cookie and length, filled in below
	if c.zw == nil {
		var err error
		if c.zw, err = zlib.NewWriterLevel(&c.zbuf, zlib.BestCompression); err != nil {
			return dst, err
		}
	} else {
		c.zw.Reset(&c.zbuf)
	}
	if _, err := c.zw.Write(inner); err != nil {
		return dst, err
	}
	if err := c.zw.Close(); err != nil {
		return dst, err
	}
	out := c.zbuf.Bytes()
	binary.BigEndian.PutUint32(out, uint32(hdr.V2CompressedEncodingCookieBase|v2CookieFlags))
	binary.BigEndian.PutUint32(out[4:], uint32(len(out)-8))
	return base64.StdEncoding.AppendEncode(dst, out), nil
}
