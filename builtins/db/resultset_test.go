package db_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/starbench/starbench/builtins/db"
)

// A result set written to the journal reads back with the Go types Query
// gave (a resumed run replays conn.query from it).
func TestResultSetJSONRoundTrip(t *testing.T) {
	rs := &db.ResultSet{
		Columns: []string{"id", "big", "price", "ratio", "name", "blob", "none"},
		Types:   []string{"BIGINT", "UNSIGNED BIGINT", "DECIMAL", "DOUBLE", "VARCHAR", "BLOB", "INT"},
		Rows: [][]any{
			{int64(-7), uint64(1<<63 + 5), 12.5, 2.0, "x'y", []byte{0, 1, 255}, nil},
			{int64(1 << 53), int64(3), int64(40), 0.25, "", []byte{}, nil},
		},
	}
	data, err := json.Marshal(rs)
	if err != nil {
		t.Fatal(err)
	}
	var back db.ResultSet
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&back, rs) {
		t.Errorf("read back %#v\nwrote %#v", back, rs)
	}
	if err := json.Unmarshal([]byte(`{"columns":["b"],"types":["BLOB"],"rows":[["not base64!"]]}`), &back); err == nil {
		t.Error("a binary value that is not base64 read back")
	}
}
