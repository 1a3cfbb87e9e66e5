package importer

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/starbench/starbench/runner/results"
)

// Folder is an import's results folder: the files imported, in order,
// with the format each was read in, and every file's steps in order.
type Folder struct {
	Tool        results.ToolInfo
	CommandLine []string
	Sources     []Source
	Formats     []Format // Sources[i]'s
	Steps       []Step
	Redact      func(string) string // applied to the manifest's text; nil: none
}

// Write writes the folder into dir, new or empty (results.Create made
// it): the sources' copies under sources/, a step folder per step
// (steps/<n>-<workload>-t<threads>/, without latency.hlog), then
// manifest.json, which marks it imported. It leaves what it wrote when it
// fails: the caller removes the folder.
func (f *Folder) Write(dir string) error {
	now := time.Now().UTC()
	m := results.Manifest{
		Tool:        f.Tool,
		Plan:        "import of " + strings.Join(f.names(), " "),
		CommandLine: f.CommandLine,
		Targets:     map[string]any{},
		Started:     now,
		Ended:       &now,
		Status:      results.StatusCompleted,
		Steps:       len(f.Steps),
		Imported:    true,
	}
	used := map[string]bool{}
	for i, src := range f.Sources {
		base := filepath.Base(src.Name)
		stored := base
		for k := 2; used[stored]; k++ {
			stored = strconv.Itoa(k) + "-" + base
		}
		used[stored] = true
		rel := path.Join(results.SourcesDir, stored)
		if err := os.MkdirAll(filepath.Join(dir, results.SourcesDir), 0o755); err != nil {
			return err
		}
		if err := results.WriteFile(filepath.Join(dir, filepath.FromSlash(rel)), src.Data); err != nil {
			return err
		}
		sum := sha256.Sum256(src.Data)
		m.Sources = append(m.Sources, &results.SourceFile{Name: src.Name, Stored: rel, SHA256: hex.EncodeToString(sum[:]), Bytes: len(src.Data)})
		n := 0
		for _, s := range f.Steps {
			if s.Summary.Imported.Source == src.Name {
				n++
			}
		}
		m.Banners = append(m.Banners, fmt.Sprintf("imported from %s (%s, %s): a report's figures or a peer tool's output, not a starbench run; "+
			"a figure it does not give is unknown (-)", src.Name, f.Formats[i], Plural(n, "step")))
	}
	seen := map[string]bool{}
	for _, s := range f.Steps {
		imp := s.Summary.Imported
		if note := imp.Source + ": " + imp.Note; imp.Note != "" && !seen[note] {
			seen[note] = true
			m.Banners = append(m.Banners, note)
		}
	}
	for i, s := range f.Steps {
		label := fmt.Sprintf("%s-t%d", safeLabel(s.Summary.Workload.Name), s.Summary.Threads)
		if err := results.WriteImportedStep(results.StepDir(dir, strconv.Itoa(i+1), label), results.Step{
			Summary: s.Summary, Intervals: s.Intervals, Output: s.Output}); err != nil {
			return err
		}
	}
	return results.WriteManifest(dir, &m, f.Redact)
}

func (f *Folder) names() []string {
	out := make([]string, len(f.Sources))
	for i, s := range f.Sources {
		out[i] = s.Name
	}
	return out
}

// safeLabel keeps a workload's name usable in a folder name.
func safeLabel(name string) string {
	out := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, name)
	if len(out) > 60 {
		out = out[:60]
	}
	if out = strings.Trim(out, "."); out == "" {
		out = "step"
	}
	return out
}

// Plural is "1 step", "2 steps".
func Plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}
