package mysqlconn

import "testing"

func TestInterpolate(t *testing.T) {
	got, err := Interpolate("UPDATE t SET c=? WHERE id=? AND x=?", []any{"it's \\ fine", int64(-5), nil})
	if err != nil || got != `UPDATE t SET c='it\'s \\ fine' WHERE id=-5 AND x=NULL` {
		t.Errorf("Interpolate = %q, %v", got, err)
	}
	if _, err := Interpolate("SELECT ?", nil); err == nil {
		t.Errorf("missing argument accepted")
	}
	if _, err := Interpolate("SELECT 1", []any{1}); err == nil {
		t.Errorf("extra argument accepted")
	}
}
