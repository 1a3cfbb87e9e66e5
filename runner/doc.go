// Package runner evaluates starbench plans: Starlark programs that script a
// database benchmark from deployment to report.
//
// The runner owns everything a plan needs that is not about a database or a
// host: typed parameters (params/param), load() of plan-relative files and of
// the embedded standard library, cancellation, steps and their journal
// records, dry-run placeholders, resume, and filling in the run's results
// folder and manifest (whose format package results owns). Builtin modules (SQL,
// SSH, workloads) are handed in as predeclared values; they record their I/O
// as steps through Call and hand the manifest what belongs there (targets,
// banners) through RecordTarget and Banner. The runner never imports them.
package runner
