package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/starbench/starbench/internal/importer"
	"github.com/starbench/starbench/runner/results"
)

// importFlags are import's flags.
type importFlags struct {
	out, format, workload string
	tags                  []string
	threads               int
}

func (a *app) importCommand() *cobra.Command {
	var f importFlags
	cmd := &cobra.Command{
		Use:   "import FILE... [--tags k=v]... [-o DIR] [--format auto|sysbench|go-tpc|benchmarksql|csv] [--workload NAME] [--threads N]",
		Short: "Make a results folder of a report's published figures or a peer tool's raw output, to compare a rerun with",
		Long: `Import reads what a published benchmark report gives and writes it as a results folder, so that
'starbench report' and 'starbench compare' set a rerun beside it:

  sysbench   raw sysbench 1.0 or 1.1 output as reports paste it: interval lines
             ([ 10s ] thds: 16 tps: ...) and the final report (SQL statistics, General
             statistics or Throughput, Latency, Threads fairness), or only one of them; several
             runs in one file are a step each. The workload comes from a sysbench command line
             in the file (a prompt line "$ sysbench oltp_read_write ... run") or --workload; the
             threads from "Number of threads:", the command line, the interval lines' thds or
             --threads. Without a final report the figures are the interval lines' (said so in
             the folder) and the latency is unknown.
  go-tpc     go-tpc's [Current] and [Summary] lines and "tpmC: X, efficiency: Y%": the kinds of
             transaction and tpmC as a TPC-C step has them. go-tpc does not print its threads:
             a go-tpc command line in the file, or --threads.
  benchmarksql
             BenchmarkSQL's result lines (Measured tpmC (NewOrders) = ..., Measured tpmTOTAL,
             Session Start/End, Transaction Count); the terminals from "Term-00, terminals=N"
             or --threads.
  csv        a header row and a row per step: threads, tps, qps, min_ms, avg_ms, max_ms,
             p95_ms, p99_ms, tpmc, errors, ... are figures (lat_p95_ms, latency_avg_ms and
             the like too), workload names the step's workload, any other column is a tag
             (version, case, round, setup). Lines starting with # are comments, kept as notes.

--format auto (the default) tells them apart. Each step gets the tags of its row plus --tags
(repeatable, k=v or k=v,k2=v2; --tags threads=N and --tags workload=NAME stand for --threads and
--workload). A figure the source does not give is unknown: reports show it as "-", not 0, and the
step's summary.json lists the figures given ("imported") and the file and line it came from.
The files are copied into the folder's sources/ with their sha256. There are no latency
histograms and no plan: 'starbench merge' and 'starbench rerun' refuse an imported folder.

An unknown format, a truncated report, a CSV without a figure column, a value that is not a
number, or a missing file exits 2 naming the file and the line, and writes nothing.`,
		Example: `  starbench import published.csv --tags source=published -o results/published
  starbench import sysbench-16t.txt sysbench-32t.txt --workload oltp_read_write --tags version=v5.1.1 -o results/v511
  starbench import go-tpc.log --threads 64 --tags source=published -o results/tpcc-published
  starbench compare results/published results/20261130T101500Z-seed003 --by source --baseline published`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("import needs at least one file\nRun 'starbench import --help' for usage.")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return a.importFiles(args, &f) },
	}
	cmd.Flags().StringVarP(&f.out, "output", "o", "", "the results folder (new or empty; default results/<UTC time>-import)")
	cmd.Flags().StringVar(&f.format, "format", "auto", "auto, sysbench, go-tpc, benchmarksql or csv")
	cmd.Flags().StringArrayVar(&f.tags, "tags", nil, "k=v tags for every step (repeatable; k=v,k2=v2)")
	cmd.Flags().StringVar(&f.workload, "workload", "", "the workload of steps whose file names none (e.g. oltp_read_write)")
	cmd.Flags().IntVar(&f.threads, "threads", 0, "the threads of steps whose file does not say")
	return cmd
}

// importFiles is import's action: every file is read and parsed before
// anything is written, and a failure on the way leaves no folder.
func (a *app) importFiles(files []string, f *importFlags) error {
	format, err := importer.ParseFormat(f.format)
	if err != nil {
		return usagef("import: --format: %v", err)
	}
	if f.threads < 0 {
		return usagef("import: --threads %d: want a number of threads above 0", f.threads)
	}
	tags, err := parseTags(f.tags)
	if err != nil {
		return err
	}
	opts := importer.Options{Format: format, Workload: f.workload, Threads: f.threads, Tags: tags}
	folder := importer.Folder{Tool: results.Tool(toolVersion()), CommandLine: os.Args, Redact: a.redact}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return usagef("import: %s: no such file", name)
			}
			return usagef("import: %v", err)
		}
		src := importer.Source{Name: name, Data: data}
		steps, got, err := importer.Parse(src, opts)
		if err != nil {
			return usagef("import: %v", err)
		}
		folder.Sources = append(folder.Sources, src)
		folder.Formats = append(folder.Formats, got)
		folder.Steps = append(folder.Steps, steps...)
	}

	_, statErr := os.Stat(f.out)
	existed := f.out != "" && statErr == nil
	dir, err := results.Create(f.out, "", "import", time.Now())
	if errors.Is(err, results.ErrNotEmpty) {
		return usagef("import: -o %s exists and is not empty", f.out)
	}
	if err != nil {
		return err
	}
	if err := folder.Write(dir); err != nil {
		removeImport(dir, existed)
		return fmt.Errorf("import: writing %s: %w", dir, err)
	}
	a.writeRunReports(dir)
	for i, s := range folder.Steps {
		fmt.Fprintf(a.stdout, "%d  %s\n", i+1, describeImported(s.Summary))
	}
	fmt.Fprintf(a.stderr, "results: %s (imported %s from %s)\n", dir, importer.Plural(len(folder.Steps), "step"), importer.Plural(len(files), "file"))
	return nil
}

// removeImport removes what a failed import wrote: the folder, or its
// content when it was there (empty) before.
func removeImport(dir string, existed bool) {
	if !existed {
		os.RemoveAll(dir)
		return
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		os.RemoveAll(dir + string(os.PathSeparator) + e.Name())
	}
}

// parseTags reads --tags values: k=v, or several as k=v,k2=v2.
func parseTags(values []string) (map[string]string, error) {
	tags := map[string]string{}
	for _, v := range values {
		for _, kv := range strings.Split(v, ",") {
			k, val, ok := strings.Cut(kv, "=")
			k, val = strings.TrimSpace(k), strings.TrimSpace(val)
			if !ok || k == "" {
				return nil, usagef("import: --tags %q: want k=v (e.g. --tags source=published)", v)
			}
			if prev, dup := tags[k]; dup && prev != val {
				return nil, usagef("import: --tags gives %s twice (%s and %s)", k, prev, val)
			}
			tags[k] = val
		}
	}
	return tags, nil
}

// describeImported is a step's line in import's output: what it is,
// where it came from and the figures it has.
func describeImported(s *results.Summary) string {
	var tags []string
	for k, v := range s.Tags {
		tags = append(tags, k+"="+v)
	}
	sort.Strings(tags)
	what := fmt.Sprintf("%s t%d", s.Workload.Name, s.Threads)
	if len(tags) > 0 {
		what += " " + strings.Join(tags, ",")
	}
	imp := s.Imported
	line := fmt.Sprintf("%s  from %s:%d (%s): %s", what, imp.Source, imp.Line, imp.Format, strings.Join(imp.Given, " "))
	if len(imp.Derived) > 0 {
		line += "; derived: " + strings.Join(imp.Derived, " ")
	}
	return line
}
