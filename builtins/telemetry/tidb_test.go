package telemetry

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/starbench/starbench/internal/testutil/sandboxtest"
)

// The TiDB series of PrometheusMetrics are in a real tidb-server's
// exposition (its status port's /metrics, about 6,000 tidb_* series in
// this version), each checked against a scrape; the ones a TiDB server
// does not export (TiKV's, PD's, the exporters') are not TiDB's. Reading
// the defaults twice around a client's queries, the server's query count
// grows and its query latency histogram has quantiles.
func TestTiDBDefaultsAgainstARealStatusPort(t *testing.T) {
	srv := sandboxtest.SharedTiDB(t)
	src, err := NewPrometheus("tidb", srv.StatusURL()+"/metrics", nil)
	if err != nil {
		t.Fatal(err)
	}
	reading, err := src.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, m := range []map[string]float64{reading.Counters, reading.Gauges} {
		for k := range m {
			have[strings.SplitN(k, "{", 2)[0]] = true
		}
	}
	for k := range reading.Histograms {
		have[strings.SplitN(k, "{", 2)[0]] = true
	}
	for _, m := range PrometheusMetrics {
		name := strings.Fields(strings.SplitN(m, "{", 2)[0])[0]
		if tidbServes := strings.HasPrefix(name, "tidb_") || strings.HasPrefix(name, "process_"); tidbServes != have[name] {
			t.Errorf("%s: in the TiDB server's exposition %v, a default TiDB series %v", name, have[name], tidbServes)
		}
	}

	db, err := sql.Open("mysql", srv.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const queries = 200
	var r rater
	r.next(reading)
	for i := 0; i < queries; i++ {
		var one int
		if err := db.QueryRow("SELECT 1").Scan(&one); err != nil {
			t.Fatal(err)
		}
	}
	second, err := src.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	v, ok := r.next(second)
	if !ok {
		t.Fatal("no point from two readings")
	}
	if got := r.totals["tidb_server_query_total"]; got < queries {
		t.Errorf("the server counted %v queries, the client sent %d: %v", got, queries, v)
	}
	quantiles := 0
	for k := range v {
		if strings.HasPrefix(k, "tidb_server_handle_query_duration_seconds") && strings.Contains(k, "p9") {
			quantiles++
		}
	}
	if quantiles == 0 {
		t.Errorf("no quantile of TiDB's query latency: %v", v)
	}
}

// The status source takes its TiDB branch on a real TiDB: TiDBStatus's
// variables are in its SHOW GLOBAL STATUS, and MySQL's are not (TiDB's
// rates are on its status port).
func TestStatusOnARealTiDB(t *testing.T) {
	srv := sandboxtest.SharedTiDB(t)
	connector, err := mysql.NewConnector(srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	src := NewStatus("status", "tidb", sql.OpenDB(connector), nil)
	defer src.Close()
	reading, err := src.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range TiDBStatus {
		_, c := reading.Counters[name]
		_, g := reading.Gauges[name]
		if !c && !g {
			t.Errorf("%s is not in the real TiDB's status: %+v", name, reading)
		}
	}
	if _, ok := reading.Counters["Com_select"]; ok {
		t.Errorf("MySQL's variables read from TiDB: %+v", reading)
	}
}
