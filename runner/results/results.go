// Package results owns the results folder: what a run leaves on disk, how
// it is written and how it is read back. Nothing else names, writes or
// parses these files; the runner, the workload families, the CLI and the
// reports all go through this package. It is public because a workload is:
// a family written outside this module names its Meta, adds to a step's
// Summary and declares its metrics (DeclareMetric) with these types.
//
//	DIR/manifest.json        Manifest: tool, plan and sources, params, seed, host, targets, status
//	DIR/journal.jsonl        JournalRecord lines: each step's start and end, the run's status
//	DIR/output.log           everything the run printed, with times
//	DIR/sources/...          a copy of the plan and every file it loaded
//	DIR/steps/<id>-<name>/   one folder per benchmark step (a CLI run writes these files in DIR):
//	    summary.json         Summary: counts, rates, latency percentiles, options, tags, status
//	    intervals.csv        Interval rows, one per report interval
//	    latency.hlog         the interval latency histograms, HdrHistogram log format, µs
//	                         (kinds' tagged kind:NAME, service times under a rate tagged service)
//	    output.txt           what the step printed, in sysbench's layout
//	    parts/<k>-<name>/    a merged step's parts (bench.together, starbench merge), each a step folder
//	    telemetry/<name>.jsonl  TelemetryPoint lines: a watched source's series (Summary.Telemetry)
//	DIR/steps/<id>.json      a step result too large for its journal line
//	DIR/files/...            what the plan saved (save()), listed in the manifest's files
//	DIR/report.md, .html     the reports written at the end of a run
//
// A folder `starbench import` made from published figures or a peer
// tool's output has the same layout without a journal: its manifest says
// imported, sources/ holds the imported files, and each step's summary
// says where it came from and which figures it has (Imported); its steps
// have no latency.hlog.
//
// Every file is written whole to a temporary name and renamed into place
// (the journal and the telemetry series are appended one whole line at a
// time), so a crash never
// leaves a half-written summary or manifest.
//
// manifest.json and every summary.json say the format version they were
// written in (FormatVersion, whose doc lists the versions). The readers
// read every earlier version, a folder without a version by what it
// contains, and refuse a later one (NewerFormatError).
package results

import "errors"

// Names of the files and folders in a results folder.
const (
	ManifestFile     = "manifest.json"
	JournalFile      = "journal.jsonl"
	LogFile          = "output.log"
	SourcesDir       = "sources"
	StepsDir         = "steps"
	SummaryFile      = "summary.json"
	IntervalsFile    = "intervals.csv"
	LatencyFile      = "latency.hlog"
	OutputFile       = "output.txt"
	ReportMarkdown   = "report.md"
	ReportHTML       = "report.html"
	DefaultRootDir   = "results"
	timeLayoutInName = "20060102T150405Z"
)

// Statuses of a run (manifest, journal) and of a benchmark step (summary).
const (
	StatusRunning     = "running"
	StatusCompleted   = "completed"
	StatusFailed      = "failed"
	StatusInterrupted = "interrupted"
)

// ErrNotResults marks a folder that is not a starbench results folder, or
// a missing or truncated one.
var ErrNotResults = errors.New("not a starbench results folder")
