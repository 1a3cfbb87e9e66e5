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
	if !p.WarehouseFixed || p.TxnsPerMin != 0 {
		t.Errorf("terminalWarehouseFixed %v, limitTxnsPerMin %d", p.WarehouseFixed, p.TxnsPerMin)
	}
	if strings.Join(p.Notes, "; ") != "useServerPrepStmts=true: what starbench does anyway (server-side prepared statements, reconnecting); useConfigs=maxPerformance, useSSL=false: the Java driver's own settings, without effect here" {
		t.Errorf("notes %q", p.Notes)
	}
	if strings.Join(p.Ignored, " ") != "db driver osCollectorInterval osCollectorScript resultDirectory" {
		t.Errorf("ignored %v", p.Ignored)
	}
	if len(p.Warnings) != 1 || p.Warnings[0] != `props.mysql:33: unknown key "terminalz" (did you mean "terminals"?)` {
		t.Errorf("warnings %v", p.Warnings)
	}
	for change, want := range map[string]string{
		"runTxnsPerTerminal=0":                                  "", // as given
		"runTxnsPerTerminal=5":                                  "give one of runMins and runTxnsPerTerminal",
		"paymentWeight=42":                                      "the five weights add up to 99, not 100",
		"warehouses=0":                                          "warehouses must be at least 1",
		"conn=jdbc:postgresql://h/db":                           `is not a MySQL JDBC URL`,
		"runMins=0.5":                                           `runMins = "0.5" is not a whole number (BenchmarkSQL reads it as an integer)`,
		"limitTxnsPerMin=1e3":                                   `limitTxnsPerMin = "1e3" is not a whole number`,
		"conn=jdbc:mysql://h:4000/tpcc?useSSL=true":             "useSSL=true asks for TLS",
		"conn=jdbc:mysql://h:4000/tpcc?useCursorFetch=true":     "unknown JDBC parameters useCursorFetch",
		"conn=jdbc:mysql://h:4000/tpcc?sessionVariables=a":      `sessionVariables "a": want name=value`,
		"conn=jdbc:mysql://h:4000/tpcc?useSSL=false&useFoo=bar": "unknown JDBC parameters useFoo",
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

// Java's .properties syntax, as BenchmarkSQL reads its props file: ":" and
// " " as separators, "!" and "#" comments, a value going on over lines
// ending in a backslash; "//" lines (BenchmarkSQL's sample comments) left
// out; the JDBC URL's session variables and connect timeout taken, the
// rate limit and the fixed warehouses read.
func TestReadPropsJavaSyntax(t *testing.T) {
	text := "! a comment\n# another\n// and BenchmarkSQL's\n" +
		"conn: jdbc:mysql://10.0.1.5:4000/tpcc?useSSL=false&\\\n" +
		"      sessionVariables=tidb_txn_mode=pessimistic,autocommit=1&connectTimeout=5000\n" +
		"user root\n" +
		"password = p\\=w\n" +
		"warehouses=4\nterminals=8\nrunTxnsPerTerminal=0\nrunMins=2\n" +
		"terminalWarehouseFixed = TRUE\nlimitTxnsPerMin = 1200\n"
	p, err := ReadProps(strings.NewReader(text), "props.mysql")
	if err != nil {
		t.Fatal(err)
	}
	if p.Host != "10.0.1.5" || p.User != "root" || p.Password != "p=w" || p.Warehouses != 4 || p.RunTime != 2*time.Minute ||
		!p.WarehouseFixed || p.TxnsPerMin != 1200 || p.ConnectTimeout != 5*time.Second ||
		p.Params["tidb_txn_mode"] != "pessimistic" || p.Params["autocommit"] != "1" || len(p.Warnings) != 0 {
		t.Errorf("props %+v", p)
	}
}
