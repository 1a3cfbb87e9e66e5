package tpcc

import (
	"context"
	"fmt"
	"time"

	"github.com/starbench/starbench/builtins/bench"
)

// LoadRecord is starbench's own table beside go-tpc's nine: the load's
// NURand constants, seed and load time, which go-tpc's tables do not keep
// and a run needs for clause 2.1.6.1 (its C_LAST is drawn at a distance
// from the load's). It has bmsql_config's shape (cfg_name, cfg_value);
// go-tpc's check and cleanup never look at it. BenchmarkSQL's layout
// keeps the same constants in bmsql_config instead.
const LoadRecord = "starbench_tpcc_load"

const loadRecordDDL = "CREATE TABLE IF NOT EXISTS " + LoadRecord + ` (
  cfg_name VARCHAR(30) NOT NULL,
  cfg_value VARCHAR(50),
  PRIMARY KEY (cfg_name)
)`

// LoadConstants are the load's C constants as a run found them: Known
// says whether the tables keep them (bmsql_config, or LoadRecord written
// by the load of the customer table now there); From says where they were
// read, or why they are not known.
type LoadConstants struct {
	Constants
	Known bool
	From  string
}

// clearLoadRecord empties (creating it when missing) the record of a
// go-tpc-layout load about to load the customer table, so that a load
// that fails midway leaves no record of an older one.
func clearLoadRecord(ctx context.Context, s bench.Session, schema string, w *loadPrinter) error {
	there, err := tableExists(ctx, s, LoadRecord)
	if err != nil {
		return fmt.Errorf("look for %s: %w", bench.Qualified(schema, LoadRecord), err)
	}
	if !there {
		w.printf("Creating table '%s' (starbench's record of the load's C constants)...\n", bench.Qualified(schema, LoadRecord))
		if _, err := s.Exec(ctx, loadRecordDDL); err != nil {
			return fmt.Errorf("create %s: %w", bench.Qualified(schema, LoadRecord), err)
		}
		return nil
	}
	w.printf("Emptying table '%s' (the record of an earlier load)...\n", bench.Qualified(schema, LoadRecord))
	if _, err := s.Exec(ctx, "DELETE FROM "+LoadRecord); err != nil {
		return fmt.Errorf("empty %s: %w", bench.Qualified(schema, LoadRecord), err)
	}
	return nil
}

// writeLoadRecord records a finished load's constants, seed and load time
// in LoadRecord (emptied by clearLoadRecord).
func writeLoadRecord(ctx context.Context, s bench.Session, warehouses int, seed int64, loadTime time.Time, c Constants) error {
	q := fmt.Sprintf("INSERT INTO %s (cfg_name, cfg_value) VALUES ('warehouses', '%d'), ('nURandCLast', '%d'), ('nURandCC_ID', '%d'), ('nURandCI_ID', '%d'), ('seed', '%d'), ('load_time', '%s')",
		LoadRecord, warehouses, c.CLast, c.CID, c.OLIID, seed, loadTime.Format(time.DateTime))
	_, err := s.Exec(ctx, q)
	return err
}

// readLoadRecord reads a go-tpc-layout load's constants from LoadRecord.
// They are known only when the record is whole and its load time is the
// c_since of customer (1, 1, 1): a load by go-tpc (or any other tool)
// after starbench's leaves an older record behind, whose constants are
// not those of the rows now there.
func readLoadRecord(ctx context.Context, s bench.Session, schema string) (LoadConstants, error) {
	unknown := LoadConstants{From: "go-tpc's tables do not keep it: they were not loaded by starbench's prepare, which records it in " + bench.Qualified(schema, LoadRecord)}
	there, err := tableExists(ctx, s, LoadRecord)
	if err != nil {
		return LoadConstants{}, fmt.Errorf("look for %s: %w", bench.Qualified(schema, LoadRecord), err)
	}
	if !there {
		return unknown, nil
	}
	row, err := queryInts(ctx, s, "SELECT "+constantColumns+", "+
		"SUM(cfg_name IN ('nURandCLast', 'nURandCC_ID', 'nURandCI_ID', 'load_time')), "+
		"(SELECT COUNT(*) FROM "+Customer+" WHERE c_w_id = 1 AND c_d_id = 1 AND c_id = 1 AND c_since = (SELECT cfg_value FROM "+LoadRecord+" WHERE cfg_name = 'load_time')) "+
		"FROM "+LoadRecord)
	if err != nil {
		return LoadConstants{}, fmt.Errorf("read the load's C constants from %s: %w", bench.Qualified(schema, LoadRecord), err)
	}
	switch {
	case row[3] != 4 || row[0] < 0 || row[0] > 255:
		unknown.From = bench.Qualified(schema, LoadRecord) + " is not whole: the load that wrote it did not finish"
		return unknown, nil
	case row[4] != 1:
		unknown.From = bench.Qualified(schema, LoadRecord) + " is of an earlier load: the customers were loaded again since, by another tool"
		return unknown, nil
	}
	return LoadConstants{Constants: Constants{CLast: int(row[0]), CID: int(row[1]), OLIID: int(row[2])}, Known: true,
		From: bench.Qualified(schema, LoadRecord)}, nil
}
