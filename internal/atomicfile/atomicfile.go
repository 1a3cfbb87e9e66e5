// Package atomicfile writes files so that readers see the old content or
// the new, never a part: write a temporary file beside the target, sync it,
// rename it into place. The results folder (package results) and files plans
// write (local.write_file) are written this way.
package atomicfile

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// WriteFile writes data to path atomically.
func WriteFile(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	serr := tmp.Sync()
	cerr := tmp.Close()
	for _, err := range []error{werr, serr, cerr} {
		if err != nil {
			os.Remove(tmp.Name())
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// WriteJSON writes v as indented JSON with a final newline.
func WriteJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return WriteFile(path, append(data, '\n'))
}
