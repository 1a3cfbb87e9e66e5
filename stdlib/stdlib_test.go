package stdlib_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
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
