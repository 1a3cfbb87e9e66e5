package sysbench

import (
	"context"
	"database/sql/driver"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/starbench/starbench/builtins/bench"
)

// TiDB's AUTO_RANDOM column, as its documentation defines the default
// AUTO_RANDOM(5): the sign bit clear, 5 shard bits below it (bits 58-62),
// and below them the counter TiDB's allocator hands out in increasing
// order. The shard bits spread consecutive rows over the key space (and so
// over TiKV regions) where AUTO_INCREMENT would append them all at its end.
const (
	autoRandomShardBits   = 5
	autoRandomCounterBits = 63 - autoRandomShardBits
	autoRandomCounterMask = int64(1)<<autoRandomCounterBits - 1
)

// autoRandomIDs gives, for runs on MySQL or MariaDB that stand in for a
// TiDB table with an AUTO_RANDOM key (the auto_random_ids option), each
// INSERT the id such a column would: random shard bits (from the worker's
// seeded stream) above a per-table counter shared by the run's workers,
// which goes on from the highest counter the table holds. The counters'
// interleaving follows the workers' timing, as TiDB's allocator's does:
// the ids are not part of the seeded statement stream, their shard bits
// are.
type autoRandomIDs struct {
	once sync.Once
	err  error
	next []atomic.Int64 // per table: the last counter handed out
}

func newAutoRandomIDs(tables int) *autoRandomIDs {
	return &autoRandomIDs{next: make([]atomic.Int64, tables)}
}

// start reads, once per run, each table's highest counter.
func (a *autoRandomIDs) start(ctx context.Context, s bench.Session) error {
	a.once.Do(func() {
		for t := range a.next {
			q := fmt.Sprintf("SELECT COALESCE(MAX(id & %d), 0) FROM sbtest%d", autoRandomCounterMask, t+1)
			st, err := s.Prepare(ctx, q)
			if err != nil {
				a.err = fmt.Errorf("auto_random_ids: %w", err)
				return
			}
			rs, ok := st.(bench.RowStmt)
			if !ok {
				a.err = fmt.Errorf("auto_random_ids: the session cannot read rows")
				return
			}
			var highest int64
			_, err = rs.QueryRows(ctx, func(cols []driver.Value) error {
				highest, err = intOf(cols[0])
				return err
			})
			st.Close()
			if err != nil {
				a.err = fmt.Errorf("auto_random_ids: sbtest%d: %w", t+1, err)
				return
			}
			a.next[t].Store(highest)
		}
	})
	return a.err
}

// id is the next id of table (1-based), with shard bits drawn from rng.
func (a *autoRandomIDs) id(table int, rng *Rand) int64 {
	counter := a.next[table-1].Add(1) & autoRandomCounterMask
	shard := int64(rng.Uint64() >> (64 - autoRandomShardBits))
	return shard<<autoRandomCounterBits | counter
}

// intOf reads an integer column as the driver decodes it.
func intOf(v driver.Value) (int64, error) {
	switch v := v.(type) {
	case int64:
		return v, nil
	case uint64:
		return int64(v), nil
	case []byte:
		var n int64
		_, err := fmt.Sscan(string(v), &n)
		return n, err
	case string:
		var n int64
		_, err := fmt.Sscan(v, &n)
		return n, err
	case nil:
		return 0, nil
	}
	return 0, fmt.Errorf("not an integer: %T", v)
}
