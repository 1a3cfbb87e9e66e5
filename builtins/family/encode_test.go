package family_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/starbench/starbench/builtins/family"
	"github.com/starbench/starbench/builtins/mix"
	"github.com/starbench/starbench/builtins/sysbench"
	"github.com/starbench/starbench/builtins/tpcc"
)

// A run's values survive the trip to an agent: every kind, the keywords
// of an open set with their Go types (1 is not 1.0), and a family value
// that cannot travel is refused by name.
func TestValuesTravel(t *testing.T) {
	cases := []struct {
		f family.Family
		v family.Values
	}{
		{sysbench.Family{}, family.Values{"workload": "oltp_read_write", "profile": "master", "tags": map[string]string{"v": "1"},
			"threads": int64(8), "time": 30 * time.Second, "rand_seed": int64(7), "segment": "2/3",
			"options": []family.Keyword{{Name: "table_size", Value: int64(1000)}, {Name: "rand_pareto_h", Value: 0.3},
				{Name: "skip_trx", Value: true}, {Name: "rand_type", Value: "zipfian"}, {Name: "mysql_ignore_errors", Value: []any{int64(1213), "1205"}}}}},
		{tpcc.Family{}, family.Defaults(tpcc.Family{}.RunOptions())},
	}
	for _, c := range cases {
		opts := c.f.RunOptions()
		data, err := family.EncodeValues(c.f, opts, c.v)
		if err != nil {
			t.Fatalf("%s: %v", c.f.Name(), err)
		}
		back, err := family.DecodeValues(c.f, opts, data)
		if err != nil {
			t.Fatalf("%s: %v\n%s", c.f.Name(), err, data)
		}
		if !reflect.DeepEqual(back, c.v) {
			t.Errorf("%s: values came back as\n%#v\nwant\n%#v", c.f.Name(), back, c.v)
		}
	}
	if _, err := family.DecodeValues(sysbench.Family{}, sysbench.Family{}.RunOptions(), []byte(`[{"name":"nope","value":1}]`)); err == nil ||
		!strings.Contains(err.Error(), "sysbench has no option nope") {
		t.Errorf("an unknown option: %v", err)
	}
	m := mix.Family{}
	v := family.Values{"mix": &mix.Mix{}}
	if _, err := family.EncodeValues(m, m.RunOptions(), v); err == nil || !strings.Contains(err.Error(), "cannot be sent to another host") {
		t.Errorf("a declared mix: %v", err)
	}
}
