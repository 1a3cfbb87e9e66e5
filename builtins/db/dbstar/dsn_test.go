package dbstar_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/internal/sandbox"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
	"github.com/starbench/starbench/runner"
)

// Two DSNs written in a plan for the same server, with different users
// and databases, each connect as they say: the run opens the server once,
// but not with the first DSN's user and database for both.
func TestTwoDSNsOfOneServer(t *testing.T) {
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{})
	c, err := db.Open(context.Background(), m.Config())
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"CREATE DATABASE other", "CREATE USER 'second'@'%' IDENTIFIED BY 'second-pw'", "GRANT ALL ON *.* TO 'second'@'%'"} {
		if _, err := c.Exec(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
	c.Close()
	plan := writePlan(t, fmt.Sprintf(`
def main(p):
    a = db.connect(%q)
    b = db.connect("second:second-pw@tcp(%s)/other")
    for conn in [a, b]:
        r = conn.query("SELECT DATABASE() AS d, CURRENT_USER() AS u")[0]
        print(r.d, r.u)
`, m.DSN(), m.Config().Addr))
	r := evaluate(t, plan, "", runner.Options{Secrets: []string{m.Password(), "second-pw"}})
	if r.Err != nil {
		t.Fatal(backtrace(r.Err))
	}
	if want := "sbtest root@127.0.0.1\nother second@%\n"; !strings.Contains(r.Stdout, want) {
		t.Errorf("got:\n%s\nwant:\n%s", r.Stdout, want)
	}
}
