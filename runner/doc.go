// Package runner evaluates starbench plans: Starlark programs that script a
// database benchmark from deployment to report.
//
// The runner owns everything a plan needs that is not about a database or a
// host: typed parameters (params/param), load() of plan-relative files and of
// the embedded standard library, cancellation, steps and their journal
// records, dry-run placeholders, resume, and filling in the run's results
// folder and manifest (whose format package results owns). Builtin modules
// (SQL, SSH, workloads) are handed in as predeclared values and reach the
// run through one interface, Host (host.go): they record their I/O as steps
// (Host.Step), tell the user things (Host.Out), keep per-run state and hand
// the manifest what belongs there (Host.Run: targets, secrets). The runner
// never imports them. moduledoc.go holds the types their reference
// (`starbench doc`) is written in.
package runner
