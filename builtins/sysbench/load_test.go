package sysbench_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/builtins/sysbench"
	"github.com/starbench/starbench/internal/sandbox"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
)

// LOAD DATA LOCAL INFILE and sysbench's INSERTs load the same rows for a
// seed; where the server refuses LOAD DATA, auto falls back to INSERT and
// load-data fails.
func TestLoadMethodsGiveTheSameRows(t *testing.T) {
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{})
	ctx := context.Background()
	admin, err := db.Open(ctx, m.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	query := func(q string) string {
		t.Helper()
		rs, err := admin.Query(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		var b strings.Builder
		for _, row := range rs.Rows {
			for _, v := range row {
				if bs, ok := v.([]byte); ok {
					v = string(bs)
				}
				fmt.Fprintf(&b, "%v ", v)
			}
		}
		return b.String()
	}
	script, _ := sysbench.LookupScript("oltp_read_write")
	conn := bench.NewSQLConnector(m.Config(), bench.PSAuto)
	prepare := func(o sysbench.Options, load string) (string, error) {
		var out bytes.Buffer
		_, err := sysbench.Prepare(ctx, conn, script, &o, 7, sysbench.PrepareMode{IfExists: sysbench.IfExistsDrop, Load: load}, &out)
		return out.String(), err
	}
	for _, autoInc := range []bool{true, false} {
		o := sysbench.Defaults(sysbench.Profile1020)
		o.Tables, o.TableSize, o.Threads, o.AutoInc = 2, 3000, 2, autoInc
		checksums := map[string]string{}
		for _, load := range []string{sysbench.LoadInsert, sysbench.LoadData, sysbench.LoadAuto} {
			before := query("SHOW GLOBAL STATUS LIKE 'Com_load'")
			if _, err := prepare(o, load); err != nil {
				t.Fatalf("auto_inc=%v %s: %v", autoInc, load, err)
			}
			loads := query("SHOW GLOBAL STATUS LIKE 'Com_load'") != before
			if loads != (load != sysbench.LoadInsert) {
				t.Errorf("auto_inc=%v %s: LOAD DATA used: %v", autoInc, load, loads)
			}
			checksums[load] = query("CHECKSUM TABLE sbtest1, sbtest2")
		}
		if checksums[sysbench.LoadInsert] != checksums[sysbench.LoadData] || checksums[sysbench.LoadData] != checksums[sysbench.LoadAuto] {
			t.Errorf("auto_inc=%v: tables differ by load method: %v", autoInc, checksums)
		}
		if n := query("SELECT COUNT(*), MIN(id), MAX(id) FROM sbtest2"); n != "3000 1 3000 " {
			t.Errorf("rows: %s", n)
		}
	}

	// A server that refuses LOAD DATA LOCAL.
	if _, err := admin.Exec(ctx, "SET GLOBAL local_infile = 0"); err != nil {
		t.Fatal(err)
	}
	o := sysbench.Defaults(sysbench.Profile1020)
	o.Tables, o.TableSize, o.Threads = 2, 3000, 2
	if _, err := prepare(o, sysbench.LoadInsert); err != nil {
		t.Fatal(err)
	}
	want := query("CHECKSUM TABLE sbtest1, sbtest2")
	out, err := prepare(o, sysbench.LoadAuto)
	if err != nil {
		t.Fatalf("auto on a refusing server: %v", err)
	}
	if strings.Count(out, "does not accept LOAD DATA LOCAL INFILE") != 1 {
		t.Errorf("expected one notice of the fallback:\n%s", out)
	}
	if got := query("CHECKSUM TABLE sbtest1, sbtest2"); got != want {
		t.Errorf("fallback rows differ: %s vs %s", got, want)
	}
	if _, err := prepare(o, sysbench.LoadData); err == nil || !strings.Contains(err.Error(), "load sbtest") {
		t.Errorf("load-data on a refusing server: %v", err)
	}
	if _, err := prepare(o, "fast"); err == nil || !strings.Contains(err.Error(), `load must be auto, insert or load-data, not "fast"`) {
		t.Errorf("bad method: %v", err)
	}
}
