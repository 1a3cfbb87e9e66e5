package goycsb

import (
	"os"
	"path/filepath"
	"testing"
)

// go-ycsb's order: later -P files win over earlier ones, -p over files,
// --threads, --target N and --table over the properties; unset
// proportions keep go-ycsb's defaults.
func TestPropertiesInGoYCSBsOrder(t *testing.T) {
	dir := t.TempDir()
	first, second := filepath.Join(dir, "workloadc"), filepath.Join(dir, "workloadb")
	os.WriteFile(first, []byte("recordcount=10\noperationcount=20\nthreadcount=3\nreadproportion=1\n"), 0o644)
	os.WriteFile(second, []byte("recordcount=30\ntable=t1\n"), 0o644)
	cl, err := Parse([]string{"run", "tidb", "-P", first + "," + second, "-p", "operationcount=40", "-p", "table=t2", "--table", "t3", "--target", "100", "--threads", "2"})
	if err != nil {
		t.Fatal(err)
	}
	w, err := cl.Read()
	if err != nil {
		t.Fatal(err)
	}
	if w.RecordCount != 30 || w.OperationCount != 40 || w.Threads != 2 || w.Rate != 100 || w.MixName != "ycsb_b" || w.Conn != nil {
		t.Errorf("records %d, operations %d, threads %d, rate %v, mix %s, conn %v", w.RecordCount, w.OperationCount, w.Threads, w.Rate, w.MixName, w.Conn)
	}
	args := map[string]any{}
	for _, a := range w.Core {
		args[a.Name] = a.Value
	}
	p := args["proportions"].(map[string]float64)
	if args["table"] != "t3" || args["record_count"] != int64(30) || p["read"] != 1 || p["update"] != 0.05 {
		t.Errorf("core arguments %v", args)
	}
	if cl.ServerTarget() != "" {
		t.Errorf("--target 100 is a rate, not a server")
	}
	cl, _ = Parse([]string{"load", "mysql", "-p", "recordcount=1", "-p", "mysql.port=4000", "--target", "sandbox:tidb"})
	if w, err := cl.Read(); err != nil || w.Conn.Addr != "127.0.0.1:4000" || w.Conn.DBName != "test" || w.Conn.User != "root" || cl.ServerTarget() != "sandbox:tidb" {
		t.Errorf("mysql.port alone: %v, %v; server %q", w, err, cl.ServerTarget())
	}
}
