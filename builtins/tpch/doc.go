// Package tpch is TPC-H as go-tpc v1.0.7 runs it: for now its data
// generator, which makes dbgen's rows (go-tpc ports dbgen) from the same
// random streams, distributions and 300 MB text pool, so that a scale
// factor gives the same rows here as there. It has no Starlark in it.
package tpch
