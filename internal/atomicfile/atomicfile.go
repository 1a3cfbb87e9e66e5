// Package atomicfile writes files so that readers see the old content or
// the new, never a part: write a temporary file beside the target, sync it,
// rename it into place. The results folder (package results) and files plans
// write (local.write_file) are written this way.
package atomicfile

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// WriteFile writes data to path atomically. A new file's mode is 0666
// less the process's umask (0644 under the usual 022), as os.WriteFile's
// would be, so that teammates and a web server can read a report; a file
// that exists keeps its mode. Nothing written this way holds a secret
// (results are redacted).
func WriteFile(path string, data []byte) error {
	tmp, err := CreateTemp(path)
	if err != nil {
		return err
	}
	if st, err := os.Stat(path); err == nil {
		if err := tmp.Chmod(st.Mode().Perm()); err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			return fmt.Errorf("write %s: %w", path, err)
		}
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

// CreateTemp creates a new file beside path, hidden and named after it,
// with mode 0666 less the umask (os.CreateTemp's are 0600 whatever the
// umask).
func CreateTemp(path string) (*os.File, error) {
	var err error
	for range 100 {
		var b [6]byte
		if _, err = rand.Read(b[:]); err != nil {
			return nil, err
		}
		name := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp-"+hex.EncodeToString(b[:]))
		var f *os.File
		f, err = os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if !errors.Is(err, os.ErrExist) {
			return f, err
		}
	}
	return nil, err
}
