package benchtest

import (
	"context"
	"database/sql"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
)

// The responder answers go-sql-driver: a text query, a prepared SELECT
// with one row, a prepared UPDATE.
func TestResponderAnswersTheDriver(t *testing.T) {
	r, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	db, err := sql.Open("mysql", "root@tcp("+r.Addr()+")/sbtest?timeout=2s&readTimeout=2s")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := db.ExecContext(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	st, err := db.PrepareContext(ctx, "SELECT c FROM sbtest1 WHERE id=?")
	if err != nil {
		t.Fatal(err)
	}
	var c string
	if err := st.QueryRowContext(ctx, 5).Scan(&c); err != nil || c != value {
		t.Fatalf("row %q, %v", c, err)
	}
	up, err := db.PrepareContext(ctx, "UPDATE sbtest1 SET k=k+1 WHERE id=?")
	if err != nil {
		t.Fatal(err)
	}
	res, err := up.ExecContext(ctx, 7)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Errorf("affected %d", n)
	}
}
