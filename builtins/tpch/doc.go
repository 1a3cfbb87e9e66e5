// Package tpch is TPC-H as go-tpc v1.0.7 runs it: its data generator,
// which makes dbgen's rows (go-tpc ports dbgen) from the same random
// streams, distributions and 300 MB text pool, so that a scale factor
// gives the same rows here as there; the load through the shared bulk
// loader; the 22 queries as a stream of kinds of event; the answers at
// scale factor 1 and their check; and the family and command line on
// the contract. It has no Starlark in it.
package tpch
