package stdlib_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/starbench/starbench/builtins/db/dbstar"
	"github.com/starbench/starbench/builtins/local/localstar"
	"github.com/starbench/starbench/builtins/ssh/sshstar"
	"github.com/starbench/starbench/builtins/sysbench/sysbenchstar"
	"github.com/starbench/starbench/internal/sandbox"
	"github.com/starbench/starbench/internal/testutil/plantest"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
	"github.com/starbench/starbench/internal/testutil/sshtest"
	"github.com/starbench/starbench/runner"
)

// serverModule is the test's stop and start of a private MariaDB (a clean
// shutdown that keeps the data directory, and a start on it), which a
// TiDB plan's cluster.stop and cluster.start stand for.
func serverModule(m *sandbox.MariaDB) *starlarkstruct.Module {
	return &starlarkstruct.Module{Name: "server", Members: starlark.StringDict{
		"stop": starlark.NewBuiltin("server.stop", func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
			return starlark.None, m.Shutdown()
		}),
		"start": starlark.NewBuiltin("server.start", func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
			return starlark.None, m.Restart(context.Background())
		}),
	}}
}

// A file-level snapshot of a private MariaDB's data directory over the
// real sshd, the code path a TiDB cluster's restore takes: stop, copy,
// start; a write-heavy run changes the tables; restore brings back the
// snapshot's checksums; a restore after which the data differs fails,
// naming the table.
func TestDatadirSnapshotOverSSH(t *testing.T) {
	srv := sshtest.Start(t)
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{})
	dir := t.TempDir()
	modules := starlark.StringDict{"db": dbstar.Module, "local": localstar.Module, "ssh": sshstar.Module,
		"sysbench": sysbenchstar.Module, "server": serverModule(m)}
	plan := filepath.Join(dir, "snapshot.star")
	os.WriteFile(plan, []byte(fmt.Sprintf(`
load("@stdlib//datadir.star", "datadir")
DSN = %q
TABLES = ["sbtest1", "sbtest2"]

def sums():
    return datadir.table_checksums(db.connect(DSN), TABLES)

def main(p):
    host = ssh.host(%q, key_file = %q, known_hosts = %q)
    sysbench.prepare(db.connect(DSN), tables = 2, table_size = 2000)
    snap = datadir.snapshot(places = [(host, %q)], stop = server.stop, start = server.start, checksum = sums)
    print("snapshot", snap.checksums)
    sysbench.run(db.connect(DSN), "oltp_write_only", threads = 2, time = "2s", tables = 2, table_size = 2000)
    after_run = sums()
    print("after the run", after_run)
    if after_run == snap.checksums:
        fail("the write-heavy run changed nothing")
    print("restored", datadir.restore(snap))
    sysbench.run(db.connect(DSN), "oltp_write_only", threads = 2, time = "1s", tables = 2, table_size = 2000)
    print("restored again", datadir.restore(snap))
    # A start that changes the data before the checksums are taken: the
    # restore fails, naming the table.
    restoring = {"now": False}
    bad = datadir.snapshot(places = [(host, %q)], stop = server.stop, checksum = sums,
                           start = lambda: (server.start(), restoring["now"] and db.connect(DSN).exec("UPDATE sbtest2 SET k = k + 1 WHERE id = 7")))
    restoring["now"] = True
    datadir.restore(bad)
`, m.DSN(), srv.User+"@"+srv.Addr, srv.KeyFile, srv.KnownHosts, filepath.Join(m.Dir, "data"), filepath.Join(m.Dir, "data"))), 0o644)
	r := plantest.Evaluate(t, plan, "", modules, runner.Options{Secrets: []string{m.Password()}})
	want := "datadir.restore: the restored data differs from the snapshot in sbtest.sbtest2"
	if r.Err == nil || !strings.Contains(r.Err.Error(), want) {
		t.Fatalf("want the last restore to fail with %q, got %v\n%s", want, r.Err, r.Stdout)
	}
	lines := map[string]string{}
	for _, l := range strings.Split(r.Stdout, "\n") {
		for _, k := range []string{"snapshot", "after the run", "restored again", "restored"} {
			if strings.HasPrefix(l, k+" {") {
				lines[k] = strings.TrimPrefix(l, k+" ")
				break
			}
		}
	}
	if lines["snapshot"] == "" || lines["restored"] != lines["snapshot"] || lines["restored again"] != lines["snapshot"] || lines["after the run"] == lines["snapshot"] {
		t.Errorf("checksums: %v\n%s", lines, r.Stdout)
	}
}
