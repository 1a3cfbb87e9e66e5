package results

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/starbench/starbench/internal/atomicfile"
)

// ErrNotEmpty is returned (wrapped) by Create for an --out folder that
// already holds something: results are never written over.
var ErrNotEmpty = errors.New("exists and is not empty")

// Create makes the folder of a new run. With out set it is that folder,
// which must be new or empty; otherwise it is ROOT/<UTC time>-<name>
// (root "" is DefaultRootDir), with -2, -3, ... added when that name is
// taken, made atomically so that two runs never share a folder.
func Create(out, root, name string, now time.Time) (string, error) {
	if out != "" {
		if entries, err := os.ReadDir(out); err == nil && len(entries) > 0 {
			return "", fmt.Errorf("%s %w", out, ErrNotEmpty)
		}
		return out, os.MkdirAll(out, 0o755)
	}
	if root == "" {
		root = DefaultRootDir
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", err
	}
	base := now.UTC().Format(timeLayoutInName) + "-" + name
	for i := 1; ; i++ {
		dir := filepath.Join(root, base)
		if i > 1 {
			dir = filepath.Join(root, fmt.Sprintf("%s-%d", base, i))
		}
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			return dir, nil
		}
		if !errors.Is(err, fs.ErrExist) || i > 100 {
			return "", err
		}
	}
}

// StepDir is the folder of benchmark step id, labelled for people
// (steps/12-oltp_point_select-t16).
func StepDir(runDir, id, label string) string {
	return filepath.Join(runDir, StepsDir, id+"-"+label)
}

// DrawSeed returns a random run seed below 2^53 (it survives a round trip
// through JSON numbers and Starlark floats).
func DrawSeed() int64 {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return time.Now().UnixNano() & (1<<53 - 1)
	}
	return int64(binary.LittleEndian.Uint64(b[:]) & (1<<53 - 1))
}

// WriteFile writes a file of a results folder atomically: readers see the
// old content or the new, never a part.
func WriteFile(path string, data []byte) error { return atomicfile.WriteFile(path, data) }

// WriteJSON writes v as indented JSON with a final newline, atomically.
func WriteJSON(path string, v any) error { return atomicfile.WriteJSON(path, v) }
