package readfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte(strings.Repeat("x", 1<<20)), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := Bounded(path, 1<<20, "a config file"); err != nil || len(b) != 1<<20 {
		t.Errorf("a file of exactly the bound: %d bytes, %v", len(b), err)
	}
	if _, err := Bounded(path, 1<<20-1, "a config file"); err == nil || !strings.HasSuffix(err.Error(), "is over 0 MiB: not a config file") {
		t.Errorf("a file over the bound: %v", err)
	}
	if _, err := Bounded("/dev/zero", 1<<20, "a PEM file"); err == nil || err.Error() != "/dev/zero is over 1 MiB: not a PEM file" {
		t.Errorf("/dev/zero: %v", err)
	}
	if _, err := Bounded(filepath.Join(t.TempDir(), "none"), 1, "a file"); !os.IsNotExist(err) {
		t.Errorf("a missing file: %v", err)
	}
}
