//go:build unix

package atomicfile

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A new file follows the umask, as os.WriteFile's does (os.CreateTemp's
// 0600 made reports unreadable to teammates); a file that exists keeps
// its mode; no temporary file is left.
func TestWriteFileFollowsTheUmask(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := t.TempDir()
	path := filepath.Join(dir, "report.html")
	if err := WriteFile(path, []byte("a")); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %o under umask 022, want 644", st.Mode().Perm())
	}
	syscall.Umask(0o077)
	other := filepath.Join(dir, "manifest.json")
	if err := WriteJSON(other, map[string]int{"a": 1}); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(other); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %o under umask 077, want 600", st.Mode().Perm())
	}
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("b")); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o640 {
		t.Errorf("rewritten: mode %o, want the file's 640", st.Mode().Perm())
	}
	if data, _ := os.ReadFile(path); string(data) != "b" {
		t.Errorf("content %q", data)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("%d files, want 2 (a temporary file left?)", len(entries))
	}
}
