package tpcc

import (
	"context"
	"fmt"
	"io"

	"github.com/starbench/starbench/builtins/bench"
)

// Cleanup drops the layout's tables (go-tpc's nine and starbench's
// LoadRecord, or BenchmarkSQL's ten) from the database conn's sessions start in, each before the tables it
// may reference (DropOrder), naming the database in every line it prints,
// and returns the tables dropped.
func Cleanup(ctx context.Context, conn bench.Connector, layout Layout, out io.Writer) ([]string, error) {
	s, err := conn.Connect(ctx)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	defer s.Close()
	schema := bench.SchemaOf(conn)
	var dropped []string
	tables := layout.DropOrder()
	if layout == GoTPCLayout {
		tables = append(tables, LoadRecord)
	}
	for _, t := range tables {
		t = layout.Table(t)
		name := bench.Qualified(schema, t)
		fmt.Fprintf(out, "Dropping table '%s'...\n", name)
		if _, err := s.Exec(ctx, "DROP TABLE IF EXISTS "+t); err != nil {
			return dropped, fmt.Errorf("drop %s: %w", name, err)
		}
		dropped = append(dropped, t)
	}
	return dropped, nil
}
