// Package ch is CH-benCHmark as go-tpc v1.0.7 runs it: TPC-C's
// transactions and 22 analytical queries (TPC-H's, rewritten for TPC-C's
// tables and three of TPC-H's: nation, region, supplier) at once, as one
// load whose threads are either transactional or analytical. The TPC-C
// side is builtins/tpcc's workload, the query stream builtins/tpch's, the
// extra tables its generator's. It has no Starlark in it.
package ch
