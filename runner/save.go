package runner

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"go.starlark.net/starlark"

	"github.com/starbench/starbench/runner/results"
)

// saveBuiltin is save(name, content): a step that writes content into
// the results folder as files/NAME (passwords masked) and lists it in the
// manifest, so that a rerun can compare what a plan recorded (topologies,
// server configurations) with the first run's.
func saveBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name, content string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "content", &content); err != nil {
		return nil, err
	}
	clean, err := savedName(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	stored := path.Join(results.SavedDir, clean)
	info := StepInfo{Builtin: "save", Text: stored, Args: map[string]any{"name": clean, "bytes": len(content)}, Detail: content}
	return call(thread, info, Action{
		Run: func(s *Step) (Outcome, error) {
			if err := s.run.saveFile(s.id, clean, content); err != nil {
				return Outcome{}, fmt.Errorf("%s: %w", b.Name(), err)
			}
			return Outcome{Value: starlark.String(stored), Record: stored}, nil
		},
		Placeholder: func(*Step) starlark.Value { return starlark.String(stored) },
		Replay: func(_ *Step, raw json.RawMessage) (starlark.Value, error) {
			return starlark.String(stored), nil
		},
	})
}

// savedName checks a save() name: a relative path of plain names, no
// "..", no empty parts.
func savedName(name string) (string, error) {
	if name == "" || strings.HasPrefix(name, "/") || strings.Contains(name, "\\") {
		return "", fmt.Errorf("name %q: want a relative path such as \"tidb/topology.yaml\"", name)
	}
	for _, part := range strings.Split(name, "/") {
		if part == "" || part == "." || part == ".." {
			return "", fmt.Errorf("name %q: want a relative path of plain names (no empty parts, . or ..)", name)
		}
	}
	return name, nil
}

// saveFile writes a saved file (masked) and lists it in the manifest,
// replacing an earlier file of the same name.
func (r *Run) saveFile(step, name, content string) error {
	if err := r.ensureDir(); err != nil {
		return err
	}
	f, err := results.SaveFile(r.dir, step, name, []byte(r.redact(content)))
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	replaced := false
	for i, old := range r.manifest.Files {
		if old.Name == name {
			r.manifest.Files[i], replaced = f, true
		}
	}
	if !replaced {
		r.manifest.Files = append(r.manifest.Files, f)
	}
	return r.writeManifestLocked()
}
