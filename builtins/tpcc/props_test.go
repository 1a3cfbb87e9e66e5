package tpcc

import (
	"strings"
	"testing"
	"time"
)

// Seed 002's props.mysql, as BenchmarkSQL users write it.
const seed002Props = `db=mysql
driver=com.mysql.jdbc.Driver
conn=jdbc:mysql://10.0.1.5:4000/tpcc?useSSL=false&useServerPrepStmts=true&useConfigs=maxPerformance
user=root
password=

warehouses=5000
loadWorkers=32

terminals=1000
//To run specified transactions per terminal- runMins must equal zero
runTxnsPerTerminal=0
//To run for specified minutes- runTxnsPerTerminal must equal zero
runMins=10
//Number of total transactions per minute
limitTxnsPerMin=0

//Set to true to run in 4.x compatible mode. Set to false to use the
//entire configured database evenly.
terminalWarehouseFixed=true

//The following five values must add up to 100
newOrderWeight=45
paymentWeight=43
orderStatusWeight=4
deliveryWeight=4
stockLevelWeight=4

// Directory name to create for collecting detailed result data.
resultDirectory=my_result_%tY-%tm-%td_%tH%tM%tS
osCollectorScript=./misc/os_collector_linux.py
osCollectorInterval=1
terminalz=3
`

func TestReadProps(t *testing.T) {
	p, err := ReadProps(strings.NewReader(seed002Props), "props.mysql")
	if err != nil {
		t.Fatal(err)
	}
	if p.Host != "10.0.1.5" || p.Port != 4000 || p.DB != "tpcc" || p.User != "root" || p.Warehouses != 5000 ||
		p.LoadWorkers != 32 || p.Terminals != 1000 || p.RunTime != 10*time.Minute || p.Weights != DefaultWeights {
		t.Errorf("props %+v", p)
	}
	if strings.Join(p.Ignored, " ") != "db driver limitTxnsPerMin osCollectorInterval osCollectorScript resultDirectory terminalWarehouseFixed" {
		t.Errorf("ignored %v", p.Ignored)
	}
	if len(p.Warnings) != 1 || p.Warnings[0] != `props.mysql:33: unknown key "terminalz" (did you mean "terminals"?)` {
		t.Errorf("warnings %v", p.Warnings)
	}
	for change, want := range map[string]string{
		"runTxnsPerTerminal=0":        "", // as given
		"runTxnsPerTerminal=5":        "give one of runMins and runTxnsPerTerminal",
		"paymentWeight=42":            "the five weights add up to 99, not 100",
		"warehouses=0":                "warehouses must be at least 1",
		"conn=jdbc:postgresql://h/db": `is not a MySQL JDBC URL`,
	} {
		key, _, _ := strings.Cut(change, "=")
		var lines []string
		for _, l := range strings.Split(seed002Props, "\n") {
			if strings.HasPrefix(l, key+"=") {
				l = change
			}
			lines = append(lines, l)
		}
		_, err := ReadProps(strings.NewReader(strings.Join(lines, "\n")), "p")
		if (want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), want)) {
			t.Errorf("%s: %v, want %q", change, err, want)
		}
	}
}
