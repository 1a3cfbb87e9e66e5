package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/starbench/starbench/runner/results"
)

func (a *app) mergeCommand() *cobra.Command {
	var out string
	var force bool
	cmd := &cobra.Command{
		Use:   "merge DIR... [-o OUT] [--force]",
		Short: "Merge the results of loads run at once (segments, several machines) exactly into one result",
		Long: `Merge reads the results folders of loads that ran at the same time (the segments of one load
run with --segment i/n on several machines, or any starbench runs started together) and writes
one results folder that report and compare read as one benchmark:

  counts, errors by code and by statement kind: summed
  latency percentiles: read off one histogram of every part's recorded latencies (the
    HdrHistogram merge of their latency.hlog), min, max and average exact
  rates: summed; intervals aligned on the parts' common clock (each part's interval goes
    into the merged interval its start is nearest to)
  threads fairness: pooled over every part's threads

Each DIR is a folder with a summary.json (a 'starbench sysbench|tpcc ... run' folder), a
plan's results folder with exactly one benchmark step, or a folder of such folders (the one the
pods of 'starbench k8s job' share: its seg-1, seg-2, ... in order). The results folders of one
plan's segments ('starbench run --segment i/n', several benchmark steps each) merge step by step
into one results folder with the plan's steps. The parts are copied into
OUT/parts/<k>-<name>/ so the merged folder keeps them; 'starbench report --parts' lists them.

Refused with exit 2: parts with different report intervals or planned durations, the same
segment twice, parts that did not run at the same time (the latest start must come before the
earliest end by half of the shortest run), and parts of different workloads unless --force.`,
		Example: `  starbench sysbench oltp_point_select --threads=150 --time=300 --rand-seed=7 --segment=1/3 ... run --out seg1
  (segments 2/3 and 3/3 on other machines)
  starbench merge seg1 seg2 seg3 -o merged
  starbench report merged --parts`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("merge needs at least one results folder\nRun 'starbench merge --help' for usage.")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return a.merge(args, out, force) },
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "the merged results folder (new or empty; default results/<UTC time>-merge)")
	cmd.Flags().BoolVar(&force, "force", false, "merge parts of different workloads")
	return cmd
}

func (a *app) merge(dirs []string, out string, force bool) error {
	dirs = segmentFolders(dirs)
	if runs, ok := multiStepRuns(dirs); ok {
		return a.mergeRuns(dirs, runs, out, force)
	}
	parts := make([]results.MergePart, len(dirs))
	for i, d := range dirs {
		step, err := stepFolderOf(d)
		if err != nil {
			return err
		}
		parts[i] = results.MergePart{Name: partName(d), Dir: step}
	}
	opts := results.MergeOptions{Force: force}
	if err := results.CheckMerge(parts, opts); err != nil {
		return mergeInputError(err)
	}
	_, statErr := os.Stat(out)
	existed := out != "" && statErr == nil
	dir, err := results.Create(out, "", "merge", time.Now())
	if errors.Is(err, results.ErrNotEmpty) {
		return usagef("merge: -o %s exists and is not empty", out)
	}
	if err != nil {
		return err
	}
	sum, err := mergeStep(dir, parts, opts, dirs)
	if err != nil {
		if !existed {
			os.RemoveAll(dir)
		}
		return err
	}
	if err := a.writeMergeManifest(dir, dirs, sum, sum.Started, sum.Status, sum.Error); err != nil {
		return err
	}
	a.writeRunReports(dir)
	fmt.Fprintf(a.stdout, "merged %d parts: %d threads, %d events, %.2f tps, p99 %.2f ms\n",
		len(parts), sum.Threads, sum.Events, sum.TPS, sum.Latency.Percentiles["99"])
	fmt.Fprintf(a.stderr, "results: %s (%s)\n", dir, sum.Status)
	return nil
}

// mergeInputError is a merge refused for its input: exit 2.
func mergeInputError(err error) error {
	if errors.Is(err, results.ErrCannotMerge) || errors.Is(err, results.ErrNotResults) || errors.Is(err, results.ErrNewerFormat) {
		return usagef("merge: %v", err)
	}
	return err
}

// mergeStep merges parts into the step folder dir, copies them under its
// parts/ and writes its summary. The merge streams into the folder; one
// refused on the way (a part's files that do not parse) is an error
// before anything is kept.
func mergeStep(dir string, parts []results.MergePart, opts results.MergeOptions, from []string) (*results.Summary, error) {
	sum, err := results.Merge(dir, parts, opts)
	if err != nil {
		return nil, mergeInputError(err)
	}
	for k, p := range parts {
		if err := results.CopyStep(p.Dir, filepath.Join(dir, results.PartDir(k+1, p.Name))); err != nil {
			return nil, err
		}
	}
	if err := results.FinishStep(dir, sum, []byte(fmt.Sprintf("merged %d folders: %s\n", len(from), strings.Join(from, " ")))); err != nil {
		return nil, err
	}
	return sum, nil
}

// writeMergeManifest writes a merged folder's manifest.
func (a *app) writeMergeManifest(dir string, from []string, sum *results.Summary, started time.Time, status, errText string) error {
	now := time.Now().UTC()
	m := results.Manifest{
		Tool:        results.Tool(toolVersion()),
		Plan:        "merge of " + strings.Join(from, " "),
		CommandLine: os.Args,
		Seed:        sum.Seed,
		Host:        results.ReadHostInfo(),
		Targets:     map[string]any{"default": map[string]any{"endpoints": sum.Target}},
		Started:     started,
		Ended:       &now,
		Status:      status,
		Error:       errText,
	}
	return results.WriteManifest(dir, &m, a.redact)
}

// multiStepRuns reports whether dirs are the results folders of one
// plan's segments (run --segment): each with the same benchmark steps,
// more than one. It returns each folder's step folders, in order.
func multiStepRuns(dirs []string) ([][]string, bool) {
	if len(dirs) < 2 {
		return nil, false
	}
	var runs [][]string
	for _, d := range dirs {
		steps := results.StepDirs(d)
		if len(steps) < 2 || steps[0] == d {
			return nil, false
		}
		runs = append(runs, steps)
	}
	return runs, true
}

// mergeRuns merges the segments of a plan's run step by step into one
// results folder with the same steps, each the exact merge of the
// segments' (their folders kept under its parts/).
func (a *app) mergeRuns(dirs []string, runs [][]string, out string, force bool) error {
	names := make([]string, len(runs[0]))
	for k, step := range runs[0] {
		names[k], _ = filepath.Rel(dirs[0], step)
	}
	opts := results.MergeOptions{Force: force}
	parts := make([][]results.MergePart, len(names))
	for i, steps := range runs {
		if len(steps) != len(names) {
			return usagef("merge: %s has %d benchmark steps, %s %d: merge the segments of one plan's run", dirs[i], len(steps), dirs[0], len(names))
		}
		for k, step := range steps {
			if rel, _ := filepath.Rel(dirs[i], step); rel != names[k] {
				return usagef("merge: step %d is %s in %s and %s in %s: merge the segments of one plan's run", k+1, names[k], dirs[0], rel, dirs[i])
			}
			parts[k] = append(parts[k], results.MergePart{Name: partName(dirs[i]), Dir: step})
		}
	}
	for k := range names {
		if err := results.CheckMerge(parts[k], opts); err != nil {
			return mergeInputError(fmt.Errorf("step %s: %w", names[k], err))
		}
	}
	dir, err := results.Create(out, "", "merge", time.Now())
	if errors.Is(err, results.ErrNotEmpty) {
		return usagef("merge: -o %s exists and is not empty", out)
	}
	if err != nil {
		return err
	}
	status, errText := results.StatusCompleted, ""
	var first *results.Summary
	for k, name := range names {
		sum, err := mergeStep(filepath.Join(dir, name), parts[k], opts, dirs)
		if err != nil {
			return fmt.Errorf("step %s: %w", name, err)
		}
		if first == nil {
			first = sum
		}
		if sum.Status != results.StatusCompleted && status == results.StatusCompleted {
			status, errText = sum.Status, sum.Error
		}
		fmt.Fprintf(a.stdout, "%s: merged %d parts: %d threads, %d events, %.2f tps, p99 %.2f ms\n",
			name, len(parts[k]), sum.Threads, sum.Events, sum.TPS, sum.Latency.Percentiles["99"])
	}
	if err := a.writeMergeManifest(dir, dirs, first, first.Started, status, errText); err != nil {
		return err
	}
	a.writeRunReports(dir)
	fmt.Fprintf(a.stderr, "results: %s (%s)\n", dir, status)
	return nil
}

// stepFolderOf is the benchmark step folder a merge argument names: the
// folder itself when it holds a summary, else its one benchmark step.
func stepFolderOf(dir string) (string, error) {
	if m, err := results.ReadManifest(dir); err == nil && m.Imported {
		return "", usagef("merge: %s was made by 'starbench import': published figures have no latency histograms to merge", dir)
	}
	steps := results.StepDirs(dir)
	switch {
	case len(steps) == 0:
		if _, err := os.Stat(dir); err != nil {
			return "", usagef("merge: %v", err)
		}
		return "", usagef("merge: %s holds no benchmark result (no summary.json)", dir)
	case steps[0] == dir:
		return dir, nil
	case len(steps) > 1:
		return "", usagef("merge: %s holds %d benchmark steps; name the one to merge, e.g. %s", dir, len(steps), steps[0])
	}
	return steps[0], nil
}

// segmentFolders replaces a folder that holds no result but folders that
// do (the folder the segments of a Kubernetes Indexed Job share: seg-1,
// seg-2, ...) by those, in order; other folders stay as they are.
func segmentFolders(dirs []string) []string {
	var out []string
	for _, d := range dirs {
		if len(results.StepDirs(d)) > 0 {
			out = append(out, d)
			continue
		}
		entries, err := os.ReadDir(d)
		if err != nil {
			out = append(out, d)
			continue
		}
		var inner []string
		for _, e := range entries {
			if sub := filepath.Join(d, e.Name()); e.IsDir() && len(results.StepDirs(sub)) > 0 {
				inner = append(inner, sub)
			}
		}
		if len(inner) == 0 {
			out = append(out, d)
			continue
		}
		sort.Slice(inner, func(i, j int) bool { return naturalLess(filepath.Base(inner[i]), filepath.Base(inner[j])) })
		out = append(out, inner...)
	}
	return out
}

// naturalLess orders names with numbers by their value: seg-2 before seg-10.
func naturalLess(a, b string) bool {
	ta, na := splitNumber(a)
	tb, nb := splitNumber(b)
	if ta != tb || na < 0 || nb < 0 {
		return a < b
	}
	return na < nb
}

func splitNumber(s string) (string, int) {
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	n, err := strconv.Atoi(s[i:])
	if err != nil {
		return s, -1
	}
	return s[:i], n
}

// folderTime is the UTC time at the start of a results folder's name.
var folderTime = regexp.MustCompile(`^\d{8}T\d{6}Z-`)

// partName names a part after its folder, without the time.
func partName(dir string) string {
	return folderTime.ReplaceAllString(filepath.Base(filepath.Clean(dir)), "")
}
