// Package readfile reads the small files a user names on a command line
// (a config file, a certificate) with a bound on their size, so that a
// device or a large file named by mistake is an error, not a hang.
package readfile

import (
	"fmt"
	"io"
	"os"
)

// Bounded reads path whole when it holds at most limit bytes; a larger
// file is an error saying it is not what (e.g. "a config file").
func Bounded(path string, limit int64, what string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s is over %d MiB: not %s", path, limit>>20, what)
	}
	return data, nil
}
