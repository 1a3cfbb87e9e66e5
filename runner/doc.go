// Package runner evaluates starbench plans: Starlark programs that script a
// database benchmark from deployment to report.
//
// The runner owns everything a plan needs that is not about a database or a
// host: typed parameters (params/param), load() of plan-relative files and of
// the embedded standard library, cancellation, the step journal, dry-run
// placeholders, the results directory and its manifest. Builtin modules (SQL,
// SSH, workloads) are handed in as predeclared values; they record their I/O
// as steps through Call and hand the manifest what belongs there (targets,
// banners) through RecordTarget and Banner. The runner never imports them.
package runner
