package tpcc

import (
	"strings"
	"testing"
	"time"
)

// go-tpc's command lines as reports print them parse as go-tpc reads them.
func TestParseCommandLine(t *testing.T) {
	cl, err := ParseCommandLine(strings.Fields("tpcc -H 10.0.1.5 -P 4000 -U root -p secret -D tpcc --warehouses 4 -T 16 run --time 5m --interval 10s --max-procs 8 --silence -t 2 --isolation 2"))
	if err != nil {
		t.Fatal(err)
	}
	if cl.Command != "run" || cl.Host != "10.0.1.5" || cl.Port != 4000 || cl.Password != "secret" || cl.DB != "tpcc" ||
		cl.Warehouses != 4 || cl.Threads != 16 || cl.Time != 5*time.Minute || cl.Interval != 10*time.Second || !cl.MySQLGiven ||
		IsolationLevels[cl.Isolation] != "READ COMMITTED" {
		t.Errorf("parsed %+v", cl)
	}
	cl, err = ParseCommandLine(strings.Fields("prepare --warehouses 2 -T 2 --no-check --target sandbox:mariadb --dropdata"))
	if err != nil || cl.Command != "prepare" || !cl.NoCheck || !cl.DropData || cl.Target != "sandbox:mariadb" || cl.MySQLGiven {
		t.Errorf("prepare: %+v %v", cl, err)
	}
	for line, want := range map[string]Layout{
		"check":                                 GoTPCLayout,
		"--props p.mysql check":                 BenchmarkSQLLayout,
		"--props p.mysql --layout go-tpc check": GoTPCLayout,
		"--layout benchmarksql check":           BenchmarkSQLLayout,
	} {
		if cl, err := ParseCommandLine(strings.Fields(line)); err != nil {
			t.Errorf("%q: %v", line, err)
		} else if cl.Layout != want {
			t.Errorf("%q: layout %v, want %v", line, cl.Layout, want)
		}
	}
	for line, want := range map[string]string{
		"check --layout hammerdb":                                `--layout must be "go-tpc" or "benchmarksql", not "hammerdb"`,
		"prepare --layout benchmarksql --warehouses 2 --parts 2": "--parts: BenchmarkSQL's layout is not partitioned here",
		"run --time 10s --warehouses 0":                          "--warehouses must be at least 1",
		"run --warehouses 2 --parts 3 --time 1s":                 "--parts must be between 1 and --warehouses (2)",
		"run":                                                    "run needs --time or --count",
		"prepare --bogus":                                        "unknown flag: --bogus",
		"load":                                                   `unknown command "load"`,
		"prepare run":                                            "want one command",
		"check -H h --target embedded":                           "give either --target or -H",
		"run --time 1s --isolation 3":                            "--isolation must be 0 (the server's), 1",
		"prepare --load-method fast":                             "--load-method must be auto, insert or load-data",
	} {
		if _, err := ParseCommandLine(strings.Fields(line)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", line, err, want)
		}
	}
}
