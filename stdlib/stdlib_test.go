package stdlib_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/starbench/starbench/runner"
	"github.com/starbench/starbench/stdlib"
)

func TestHelpers(t *testing.T) {
	plan := `
load("@stdlib//helpers.star", "helpers")
def main(p):
    print(helpers.batches([1, 2, 3, 4, 5], 2))
    print(helpers.insert_values("t", ["a", "b", "c"], [[1, "it's", None], [2, "x\\y", True]]))
    print(helpers.table([[1, "long value"], [22, "v"]], columns = ["id", "name"]))
    print(helpers.fixed(3.14159), helpers.fixed(2, 3), helpers.fixed(-0.005, 1), helpers.fixed(1234.5678, 0), helpers.fixed(-2.5, 2))
`
	dir := t.TempDir()
	path := filepath.Join(dir, "plan.star")
	os.WriteFile(path, []byte(plan), 0o644)
	var out bytes.Buffer
	_, err := runner.Evaluate(context.Background(), runner.Options{PlanFile: path, Stdlib: stdlib.FS, DryRun: true, Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatal(err)
	}
	want := `[[1, 2], [3, 4], [5]]
INSERT INTO t (a, b, c) VALUES (1, 'it\'s', NULL), (2, 'x\\y', 1)
id  name
--  ----------
1   long value
22  v
3.14 2.000 0.0 1235 -2.50
`
	if out.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", out.String(), want)
	}
}

// helpers.scaled: the plan's values at scale full, the scale's values in
// their place at another, and errors naming what is wrong.
func TestHelpersScaled(t *testing.T) {
	plan := `
load("@stdlib//helpers.star", "helpers")
params(scale = "full", tables = 16, time = "300s", threads = [150, 300])
def main(p):
    s = helpers.scaled(p, small = {"tables": 2, "threads": [1, 2]})
    print(s.scale, s.tables, s.time, s.threads)
`
	dir := t.TempDir()
	path := filepath.Join(dir, "plan.star")
	os.WriteFile(path, []byte(plan), 0o644)
	run := func(params ...string) (string, error) {
		var out bytes.Buffer
		_, err := runner.Evaluate(context.Background(), runner.Options{PlanFile: path, Params: params, Stdlib: stdlib.FS, DryRun: true, Stdout: &out, Stderr: &out})
		return out.String(), err
	}
	if out, err := run(); err != nil || out != "full 16 300s [150, 300]\n" {
		t.Errorf("full: %q %v", out, err)
	}
	if out, err := run("scale=small", "time=9s"); err != nil || out != "small 2 9s [1, 2]\n" {
		t.Errorf("small: %q %v", out, err)
	}
	if _, err := run("scale=huge"); err == nil || !strings.Contains(err.Error(), `scale: "huge" is not one of full, small`) {
		t.Errorf("an unknown scale: %v", err)
	}
	os.WriteFile(path, []byte(strings.Replace(plan, `"tables": 2`, `"tabels": 2`, 1)), 0o644)
	if _, err := run("scale=small"); err == nil || !strings.Contains(err.Error(), `scale small: "tabels" is not a parameter of the plan`) {
		t.Errorf("a misspelt parameter: %v", err)
	}
}
