package bench

import "strconv"

func trimFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
