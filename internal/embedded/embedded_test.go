//go:build !slim

package embedded_test

import (
	"database/sql"
	"fmt"
	"sync"
	"testing"

	_ "github.com/go-sql-driver/mysql"

	"github.com/starbench/starbench/internal/embedded"
)

// Several ANALYZE TABLE at once, while other sessions query, must neither
// crash the process (go-mysql-server's statistics maps have no lock of their
// own) nor fail.
func TestConcurrentAnalyze(t *testing.T) {
	srv, err := embedded.Start("sbtest")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	pool, err := sql.Open("mysql", "root@tcp("+srv.Addr()+")/sbtest")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	const tables = 4
	for i := 1; i <= tables; i++ {
		if _, err := pool.Exec(fmt.Sprintf("CREATE TABLE t%d (id INT PRIMARY KEY, k INT, c INT, d INT, KEY k (k), KEY kc (k, c), KEY dc (d, c))", i)); err != nil {
			t.Fatal(err)
		}
		for j := 0; j < 50; j++ {
			if _, err := pool.Exec(fmt.Sprintf("INSERT INTO t%d VALUES (?, ?, ?, ?)", i), j, j%7, j%3, j%5); err != nil {
				t.Fatal(err)
			}
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 2*tables)
	for i := 1; i <= tables; i++ {
		wg.Add(2)
		go func(table string) {
			defer wg.Done()
			for round := 0; round < 100; round++ {
				if _, err := pool.Exec("ANALYZE TABLE " + table); err != nil {
					errs <- err
					return
				}
			}
		}(fmt.Sprintf("t%d", i))
		go func(table string) {
			defer wg.Done()
			for round := 0; round < 20; round++ {
				var n int
				if err := pool.QueryRow("SELECT COUNT(*) FROM " + table + " WHERE k = 3").Scan(&n); err != nil {
					errs <- err
					return
				}
				if n != 7 {
					errs <- fmt.Errorf("%s: %d rows with k = 3, want 7", table, n)
					return
				}
			}
		}(fmt.Sprintf("t%d", i))
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
