package results

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// Imported marks a step that `starbench import` made from a published
// report's figures or a peer tool's output, not from a run: where it came
// from and which of the summary's figures the source gave. The others are
// zero in the summary and unknown: readers show them as unknown ("-"),
// not as 0 (see Summary.Known). An imported step has no latency.hlog
// (there are no histograms), so it cannot be merged.
type Imported struct {
	Source string `json:"source"` // the file as named on the command line
	Line   int    `json:"line"`   // the step's first line in it (1-based)
	Format string `json:"format"` // sysbench-1.0, sysbench-1.1, go-tpc, benchmarksql, csv
	// Given are the figures the source printed, Derived those computed
	// from them (tps from a transaction count and a duration), by the
	// Figure names.
	Given   []string `json:"given"`
	Derived []string `json:"derived,omitempty"`
	// Note says what the figures are when they are not the usual ones
	// (the means of interval lines, with no final report).
	Note string `json:"note,omitempty"`
}

// Names of a summary's figures, as Imported lists them and Known takes
// them. Percentiles are "p" + PercentileKey + "_ms" (p95_ms, p99.9_ms).
const (
	FigureThreads    = "threads"
	FigureSeconds    = "seconds"
	FigureEvents     = "events"
	FigureQueries    = "queries"
	FigureReads      = "reads"
	FigureWrites     = "writes"
	FigureOthers     = "others"
	FigureErrors     = "errors"
	FigureReconnects = "reconnects"
	FigureTPS        = "tps"
	FigureQPS        = "qps"
	FigureMinMS      = "min_ms"
	FigureAvgMS      = "avg_ms"
	FigureMaxMS      = "max_ms"
	FigureSumMS      = "sum_ms"
	FigureFairness   = "fairness"
	FigureKinds      = "kinds"
	// A family's metrics are named as in Summary.Metrics (tpmC, tpmTotal,
	// efficiency).
)

// FigurePercentile names percentile p's figure: 95 → "p95_ms".
func FigurePercentile(p float64) string { return "p" + PercentileKey(p) + "_ms" }

// Known reports whether the summary has the figure: every figure of a
// step a run wrote, only the given and derived ones of an imported step.
func (s *Summary) Known(figure string) bool {
	if s.Imported == nil {
		return true
	}
	return slices.Contains(s.Imported.Given, figure) || slices.Contains(s.Imported.Derived, figure)
}

// WriteImportedStep writes an imported step's files into dir (made if
// needed): intervals.csv when it has interval rows, output.txt when it has
// output (the source's lines), then summary.json in this build's format
// version. It writes no latency.hlog: an import has no histograms. The
// summary must say where it came from (Summary.Imported).
func WriteImportedStep(dir string, s Step) error {
	if s.Summary == nil || s.Summary.Imported == nil {
		return fmt.Errorf("results: an imported step's summary must say where it came from")
	}
	if len(s.Latency) > 0 {
		return fmt.Errorf("results: an imported step has no latency histograms")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if len(s.Intervals) > 0 {
		if err := WriteFile(filepath.Join(dir, IntervalsFile), intervalsCSV(s.Intervals)); err != nil {
			return err
		}
	}
	return FinishStep(dir, s.Summary, s.Output)
}
