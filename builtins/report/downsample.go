package report

import "math"

// downsample picks the points of a line to draw when it has more points
// than its plot has pixels across: the first and the last point, and in
// each pixel column (x floored) the lowest and the highest point, in their
// order. Drawn through them the line covers, column by column, the same
// span of pixels as through every point, so a spike or a dip of a single
// interval still shows; only what lies between the extremes of one column
// is not drawn (and could not be seen). px and py are the points' pixel
// coordinates, px not decreasing; the result is indexes into them, in
// order. The numbers in tables never go through it.
func downsample(px, py []float64) []int {
	n := len(px)
	if n <= 2 {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	out := []int{0}
	add := func(i int) {
		if out[len(out)-1] < i {
			out = append(out, i)
		}
	}
	for start := 0; start < n; {
		col := math.Floor(px[start])
		lo, hi := start, start
		end := start + 1
		for ; end < n && math.Floor(px[end]) == col; end++ {
			// On screen y grows downwards: the lowest value is the largest y.
			if py[end] < py[hi] {
				hi = end
			}
			if py[end] > py[lo] {
				lo = end
			}
		}
		add(min(lo, hi))
		add(max(lo, hi))
		start = end
	}
	add(n - 1)
	return out
}
