package bench

import (
	"context"
	"database/sql/driver"
)

// DryConnector's sessions send nothing: every statement succeeds at once
// with no rows and nothing affected, as sysbench's --mysql-dry-run
// pretends every client call succeeded. A run on it measures the client
// alone; prepare and cleanup print what they would do and change nothing.
type DryConnector struct{}

// Connect implements Connector without connecting.
func (DryConnector) Connect(context.Context) (Session, error) { return drySession{}, nil }

type drySession struct{}

func (drySession) Prepare(context.Context, string) (Stmt, error) { return dryStmt{}, nil }
func (drySession) Exec(context.Context, string) (int64, error)   { return 0, nil }
func (drySession) Query(context.Context, string) (int64, error)  { return 0, nil }
func (drySession) Close() error                                  { return nil }
func (dryStmt) Exec(context.Context, ...any) (int64, error)      { return 0, nil }
func (dryStmt) Query(context.Context, ...any) error              { return nil }
func (dryStmt) Close() error                                     { return nil }
func (dryStmt) QueryRows(context.Context, func([]driver.Value) error, ...any) (int64, error) {
	return 0, nil
}

type dryStmt struct{}
