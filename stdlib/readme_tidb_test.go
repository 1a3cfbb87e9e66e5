package stdlib_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"github.com/starbench/starbench/builtins/db/dbstar"
	"github.com/starbench/starbench/builtins/local/localstar"
	"github.com/starbench/starbench/builtins/ssh/sshstar"
	"github.com/starbench/starbench/builtins/sysbench/sysbenchstar"
	"github.com/starbench/starbench/builtins/yamlstar"
	"github.com/starbench/starbench/internal/testutil/plantest"
	"github.com/starbench/starbench/internal/testutil/sshtest"
	"github.com/starbench/starbench/internal/testutil/tidbsql"
	"github.com/starbench/starbench/internal/testutil/tiupstub"
	"github.com/starbench/starbench/runner"
)

// readmeBlock returns the README's Python block that starts with first.
func readmeBlock(t *testing.T, first string) string {
	t.Helper()
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "```python\n"+first)
	block, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatalf("README has no python block starting with %q", first)
	}
	return first + block
}

// The README's TiDB procedure runs as written, with its addresses (and its
// sizes, so that it takes seconds) substituted: deploy through the real
// sshd with the tiup stand-in, connect to the TiDB SQL stand-in, prepare,
// snapshot, restore before every level (both with their default
// parallelism, several tables at once), run, destroy.
func TestReadmeTiDBProcedureRuns(t *testing.T) {
	const first = `load("@stdlib//tidb.star", "tidb")`
	src := readmeBlock(t, first)
	s := sshtest.Start(t)
	stub := tiupstub.New(t)
	sql := tidbsql.Start(t, tidbsql.Options{})
	host, port, _ := strings.Cut(sql.Addr(), ":")
	for _, r := range []struct{ old, new string }{
		{`ssh.host("tidb@10.0.1.1", key_file = "~/.ssh/id_rsa")`, fmt.Sprintf("ssh.host(%q, key_file = %q, known_hosts = %q)", s.User+"@"+s.Addr, s.KeyFile, s.KnownHosts)},
		{`tidb = ["10.0.1.2", "10.0.1.3"]`, fmt.Sprintf(`tidb = [{"host": %q, "port": %s}]`, host, port)},
		{`tikv = ["10.0.1.4", "10.0.1.5", "10.0.1.6"]`, `tikv = [{"host": "127.0.0.1", "port": 20160, "status_port": 20180}, {"host": "127.0.0.1", "port": 20161, "status_port": 20181}, {"host": "127.0.0.1", "port": 20162, "status_port": 20182}]`},
		{`identity_file = "~/.ssh/id_rsa")`, fmt.Sprintf(`identity_file = %q, tiup = %q)`, s.KeyFile, stub.Tiup)},
		{`tables = 16, table_size = 1000000, threads = 16`, `tables = 2, table_size = 200, threads = 2`},
		{`for t in [150, 300, 600]:`, `for t in [1, 2]:`},
		{`threads = t, time = "300s", tables = 16, table_size = 1000000`, `threads = t, time = "1s", tables = 2, table_size = 200`},
	} {
		if !strings.Contains(src, r.old) {
			t.Fatalf("the README's TiDB example no longer has %q; update this test with it", r.old)
		}
		src = strings.Replace(src, r.old, r.new, 1)
	}
	plan := filepath.Join(t.TempDir(), "readme.star")
	os.WriteFile(plan, []byte(src), 0o644)
	modules := starlark.StringDict{"db": dbstar.Module, "ssh": sshstar.Module, "local": localstar.Module, "sysbench": sysbenchstar.Module, "yaml": yamlstar.Module}
	r := plantest.Evaluate(t, plan, "", modules, runner.Options{})
	if r.Err != nil {
		t.Fatalf("%s\n%s", plantest.Backtrace(r.Err), r.Stdout)
	}
	if stub.Deployed("sb") {
		t.Error("the cluster is still deployed after destroy")
	}
	// The cluster's configuration after deploy, in the results folder.
	for _, f := range []string{"1-deploy-topology.yaml", "1-deploy-display.json", "1-deploy-show-config.yaml", "1-deploy-show-config.tsv"} {
		data, err := os.ReadFile(filepath.Join(r.Res.Dir, "files", "tidb", "sb", f))
		if err != nil || len(data) == 0 {
			t.Errorf("%s: %v (%d bytes)", f, err, len(data))
		}
	}
	runs, _ := filepath.Glob(filepath.Join(r.Res.Dir, "steps", "*-oltp_update_index-t*", "summary.json"))
	if len(runs) != 2 {
		t.Errorf("%d sysbench runs in the results folder, want 2: %v", len(runs), runs)
	}
}
