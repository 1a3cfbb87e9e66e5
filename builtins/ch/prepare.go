package ch

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/family"
	"github.com/starbench/starbench/builtins/tpcc"
	"github.com/starbench/starbench/builtins/tpch"
)

// Tables are the tables CH-benCHmark adds to TPC-C's, made and filled as
// TPC-H's at scale factor 1 (25 nations, 5 regions, 10,000 suppliers).
var Tables = []string{"nation", "region", "supplier"}

// View is the view Q15 reads, made by prepare as go-tpc makes it.
const View = "revenue1"

const viewDDL = `create view revenue1 (supplier_no, total_revenue) as (
    select	mod((s_w_id * s_i_id),10000) as supplier_no,
              sum(ol_amount) as total_revenue
    from	order_line, stock
    where ol_i_id = s_i_id and ol_supply_w_id = s_w_id
      and ol_delivery_d >= '2007-01-02 00:00:00.000000'
    group by mod((s_w_id * s_i_id),10000))`

// PrepareOptions control Prepare.
type PrepareOptions struct {
	IfExists string // tpch.IfExistsError (""), IfExistsDrop or IfExistsReuse, for the three tables and the view
	Method   string // bulkload's: Auto (""), Insert or LoadData
}

// Prepare adds CH-benCHmark's tables and view to the TPC-C tables in
// conn's database, as go-tpc's ch prepare does: nation, region and
// supplier with TPC-H's rows at scale factor 1, then the view revenue1.
// The TPC-C tables must be there (the view reads order_line and stock).
func Prepare(ctx context.Context, conn bench.Connector, o PrepareOptions, out io.Writer) (*family.Prepared, error) {
	schema := bench.SchemaOf(conn)
	if err := tpcc.VerifyLoaded(ctx, conn, tpcc.GoTPCLayout, 1); err != nil {
		return nil, fmt.Errorf("CH-benCHmark adds to TPC-C's tables, which are not ready in %s: %w (load them first: tpcc.prepare, or starbench tpcc prepare)",
			orCurrent(schema), err)
	}
	s, err := conn.Connect(ctx)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	defer s.Close()
	viewThere, err := viewExists(ctx, s)
	if err != nil {
		return nil, err
	}
	if viewThere {
		switch o.IfExists {
		case "", tpch.IfExistsError:
			return nil, fmt.Errorf("view %s already exists (drop it with cleanup, or prepare with if_exists=\"drop\" or \"reuse\")", bench.Qualified(schema, View))
		case tpch.IfExistsDrop:
			fmt.Fprintf(out, "Dropping view '%s' (if_exists=drop)...\n", bench.Qualified(schema, View))
			if _, err := s.Exec(ctx, "DROP VIEW IF EXISTS "+View); err != nil {
				return nil, fmt.Errorf("drop view %s: %w", bench.Qualified(schema, View), err)
			}
		}
	}
	res, err := tpch.Prepare(ctx, conn, tpch.PrepareOptions{ScaleFactor: 1, Threads: 1, IfExists: o.IfExists, Method: o.Method, Tables: Tables}, out)
	if err != nil {
		return nil, err
	}
	if viewThere && o.IfExists == tpch.IfExistsReuse {
		res.Reused = append(res.Reused, View)
		return res, nil
	}
	fmt.Fprintf(out, "Creating view '%s'...\n", bench.Qualified(schema, View))
	if _, err := s.Exec(ctx, viewDDL); err != nil {
		return nil, fmt.Errorf("create view %s: %w", bench.Qualified(schema, View), err)
	}
	res.Tables = append(res.Tables, View)
	return res, nil
}

// viewExists says whether revenue1 is in s's database.
func viewExists(ctx context.Context, s bench.Session) (bool, error) {
	n, err := s.Query(ctx, "SHOW FULL TABLES LIKE '"+View+"'")
	if err != nil {
		return false, fmt.Errorf("look for view %s: %w", View, err)
	}
	return n > 0, nil
}

// Cleanup drops what Prepare made that is in conn's database (the view,
// then the three tables; TPC-C's are tpcc's to drop), naming each as
// schema.table on out, and returns their names.
func Cleanup(ctx context.Context, conn bench.Connector, out io.Writer) ([]string, error) {
	s, err := conn.Connect(ctx)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	defer s.Close()
	var dropped []string
	there, err := viewExists(ctx, s)
	if err != nil {
		return nil, err
	}
	if there {
		fmt.Fprintf(out, "Dropping view '%s'...\n", bench.Qualified(bench.SchemaOf(conn), View))
		if _, err := s.Exec(ctx, "DROP VIEW IF EXISTS "+View); err != nil {
			return nil, fmt.Errorf("drop view %s: %w", bench.Qualified(bench.SchemaOf(conn), View), err)
		}
		dropped = append(dropped, View)
	}
	tables, err := tpch.CleanupTables(ctx, conn, Tables, out)
	return append(dropped, tables...), err
}

func orCurrent(schema string) string {
	if strings.TrimSpace(schema) == "" {
		return "the current database"
	}
	return schema
}
