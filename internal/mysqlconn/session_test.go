package mysqlconn_test

import (
	"context"
	"errors"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/internal/mysqlconn"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
)

func TestMain(m *testing.M) { sandboxtest.Main(m) }

// connector opens the engine's sessions (bench.SQLConnector, on this
// package) on the shared server.
func connector(t *testing.T) *bench.SQLConnector {
	return bench.NewSQLConnector(sandboxtest.Shared(t).Config(), bench.PSAuto)
}

// A prepared statement's Query reads its whole result (here ~200 KB) so
// the session can go on, and reports an error the server sends after
// some of the rows, in both prepared-statement modes (bench.PSAuto, and
// bench.PSDisable's TextStatements).
func TestStatementQueryReadsTheWholeResult(t *testing.T) {
	const rows = "SELECT seq, REPEAT('x', 100) FROM seq_1_to_2000 WHERE seq >= ?"
	// The subquery returns two rows at seq 1500: MariaDB has sent rows by then.
	const failing = "SELECT seq, IF(seq = 1500, (SELECT 1 UNION SELECT 2), seq) FROM seq_1_to_2000 WHERE seq >= ?"
	cfg := sandboxtest.Shared(t).Config()
	for _, ps := range []struct {
		name string
		o    mysqlconn.Options
	}{{"auto", mysqlconn.Options{}}, {"disable", mysqlconn.Options{TextStatements: true}}} {
		t.Run(ps.name, func(t *testing.T) {
			ctx := context.Background()
			s, err := mysqlconn.Open(ctx, cfg, ps.o)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			st, err := s.Prepare(ctx, rows)
			if err != nil {
				t.Fatal(err)
			}
			bad, err := s.Prepare(ctx, failing)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 3; i++ {
				if err := st.Query(ctx, 1); err != nil {
					t.Fatalf("query %d: %v", i+1, err)
				}
				if n, err := s.Query(ctx, "SELECT 1 UNION SELECT 2"); n != 2 || err != nil {
					t.Fatalf("after query %d the session read %d rows, %v; want 2", i+1, n, err)
				}
			}
			var me *mysql.MySQLError
			if err := bad.Query(ctx, 1); !errors.As(err, &me) || me.Number != 1242 {
				t.Fatalf("a query failing after 1499 rows: %v; want error 1242", err)
			}
			if n, err := s.Query(ctx, "SELECT 1"); n != 1 || err != nil {
				t.Fatalf("after the failed query the session read %d rows, %v", n, err)
			}
		})
	}
}
