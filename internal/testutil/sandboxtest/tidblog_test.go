package sandboxtest

import (
	"os"
	"testing"
)

// Lines of a real tidb-server's general log (a sysbench event and a
// mysql client's query, TiDB at commit ec8b81b98edc) read back as the
// statements that were sent.
func TestParseTiDBGeneralLog(t *testing.T) {
	data, err := os.ReadFile("testdata/tidb-general.log")
	if err != nil {
		t.Fatal(err)
	}
	got := parseTiDBGeneralLog(data, "")
	want := []Logged{
		{"Prepare", "SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ?"},
		{"Execute", "SELECT c FROM sbtest1 WHERE id BETWEEN 20 AND 119"},
		{"Prepare", "UPDATE sbtest1 SET c=? WHERE id=?"},
		{"Execute", "UPDATE sbtest1 SET c='98105255540-11802702970-93271979742-79737957131-05199421602-14989207102-20036299671-57259515448-31335359279-20913174596' WHERE id=26"},
		{"Query", "COMMIT"},
		{"Query", `select 'it''s', "a\"b" from dual`},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d statements, want %d: %q", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("statement %d: %q, want %q", i, got[i], want[i])
		}
	}
	// A connection's second execution of a text has no Prepare before it.
	twice := append(append([]byte(nil), data...), data...)
	if n := len(parseTiDBGeneralLog(twice, "")); n != 2*len(want)-2 {
		t.Errorf("the lines twice: %d statements, want %d", n, 2*len(want)-2)
	}
	if n := len(parseTiDBGeneralLog(data, "2097158")); n != 1 {
		t.Errorf("with connection 2097158 left out: %d statements, want 1", n)
	}
}
