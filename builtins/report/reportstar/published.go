package reportstar

import (
	"errors"
	"fmt"
	"os"

	"go.starlark.net/starlark"

	"github.com/starbench/starbench/internal/importer"
	"github.com/starbench/starbench/runner"
	"github.com/starbench/starbench/runner/results"
)

// The tag report.table(published=) sets apart a report's figures (source
// "published") from the run's own steps (source "rerun").
const (
	sourceTag       = "source"
	sourcePublished = "published"
	sourceRerun     = "rerun"
)

// publishedFigures are the files of a report's figures a plan ships
// beside it (CSVs, or a peer's raw output), read and parsed.
type publishedFigures struct {
	folder importer.Folder
}

// readPublished reads the plan's files of published figures (recorded
// with its sources) and parses them as `starbench import --tags
// source=published` would; nil when there are none.
func readPublished(thread *starlark.Thread, files []string) (*publishedFigures, error) {
	if len(files) == 0 {
		return nil, nil
	}
	run := runner.HostOf(thread).Run()
	pub := &publishedFigures{}
	for _, f := range files {
		data, name, err := run.ReadPlanFile(f)
		if err != nil {
			var pathErr *os.PathError
			if errors.As(err, &pathErr) {
				return nil, fmt.Errorf("cannot read %s: %w", f, pathErr.Err)
			}
			return nil, err
		}
		src := importer.Source{Name: name, Data: data}
		steps, format, err := importer.Parse(src, importer.Options{Tags: map[string]string{sourceTag: sourcePublished}})
		if err != nil {
			return nil, err
		}
		pub.folder.Sources = append(pub.folder.Sources, src)
		pub.folder.Formats = append(pub.folder.Formats, format)
		pub.folder.Steps = append(pub.folder.Steps, steps...)
	}
	return pub, nil
}

// names are the files, as recorded, for the step's arguments.
func (p *publishedFigures) names() []string {
	if p == nil {
		return nil
	}
	var out []string
	for _, s := range p.folder.Sources {
		out = append(out, s.Name)
	}
	return out
}

// write makes the figures a results folder of their own inside the run's
// (NAME-published/), as `starbench import` would, by the run's build:
// report and compare read it beside the run later too.
func (p *publishedFigures) write(dir string, tool results.ToolInfo, redact func(string) string) error {
	if err := os.RemoveAll(dir); err != nil { // a table written again replaces it
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	p.folder.Tool, p.folder.Redact = tool, redact
	return p.folder.Write(dir)
}
