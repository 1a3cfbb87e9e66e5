package main

import (
	"os"
	"testing"
)

// Results folders written before the results package (testdata/results)
// still read, and render exactly as the version that wrote them rendered
// them: the results format and the report and compare output unchanged.
func TestOldResultsFoldersRenderTheSame(t *testing.T) {
	const plan, cli = "testdata/results/before-results-package", "testdata/results/before-results-package-cli"
	same := func(r cliResult, want string) {
		t.Helper()
		data, err := os.ReadFile("../../" + want)
		if err != nil {
			t.Fatal(err)
		}
		if r.code != 0 || r.stdout != string(data) {
			t.Errorf("exit %d; output differs from %s:\n%s\nstderr: %s", r.code, want, r.stdout, r.stderr)
		}
	}
	same(starbench(t, nil, "report", plan, "--format", "markdown"), plan+"/report.md")
	same(starbench(t, nil, "report", cli, "--format", "markdown"), cli+"/report.md")
	same(starbench(t, nil, "compare", plan, "--by", "version", "--baseline", "a", "--format", "markdown"), plan+"/compare.md")
	same(starbench(t, nil, "report", plan, cli, "--format", "json"), "testdata/results/before-results-package.report.json")
}
