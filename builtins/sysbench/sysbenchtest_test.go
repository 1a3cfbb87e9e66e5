package sysbench_test

import (
	"os/exec"
	"regexp"
	"testing"

	"github.com/starbench/starbench/internal/testutil/sandboxtest"
)

func TestMain(m *testing.M) { sandboxtest.Main(m) }

// requireSysbench stops a test that needs Debian's sysbench when it is
// missing: a failure in CI, a skip elsewhere.
func requireSysbench(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("sysbench")
	if err != nil {
		if sandboxtest.InCI() {
			t.Fatalf("CI=true and Debian's sysbench is needed for the compatibility tests: %v", err)
		}
		t.Skip("skipping: sysbench is not installed (sudo apt-get install -y sysbench)")
	}
	return path
}

func regexpMatch(pattern, s string) bool { return regexp.MustCompile(pattern).MatchString(s) }
