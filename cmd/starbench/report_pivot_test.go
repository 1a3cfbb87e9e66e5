package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/starbench/starbench/runner/results"
)

// pivotFolders writes a results folder shaped as seed 004's run (three
// cases, two rounds, tags case and round) and one of published figures
// as `starbench import` makes it (tps of the incr case's rounds, tagged
// source=published).
func pivotFolders(t *testing.T) (run, pub string) {
	t.Helper()
	manifest := func(dir string, imported bool) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		m := &results.Manifest{Tool: results.ToolInfo{Name: results.ToolName, Version: "dev"}, Plan: "seed004_tidb_insert_hotspot.star",
			Started: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC), Status: results.StatusCompleted, Imported: imported}
		if err := results.WriteManifest(dir, m, nil); err != nil {
			t.Fatal(err)
		}
	}
	run = filepath.Join(t.TempDir(), "seed004")
	manifest(run, false)
	id := 0
	for round := 1; round <= 2; round++ {
		for c, name := range []string{"incr", "rand", "split"} {
			id++
			tps := 7000 - 400*float64(c) + 100*float64(round)
			sum := &results.Summary{Workload: results.Meta{Name: "oltp_legacy/insert"}, Threads: 50, Seconds: 600, Events: int64(tps * 600),
				TPS: tps, QPS: tps, Status: results.StatusCompleted,
				Latency: results.LatencySummary{MinMS: 1, AvgMS: 50000 / tps, MaxMS: 90, Percentiles: map[string]float64{"95": 12, "99": 20}},
				Tags:    map[string]string{"case": name, "round": strconv.Itoa(round)}}
			if err := results.WriteStep(results.StepDir(run, strconv.Itoa(id), "insert-t50"), results.Step{Summary: sum}); err != nil {
				t.Fatal(err)
			}
		}
	}
	pub = filepath.Join(t.TempDir(), "published004")
	manifest(pub, true)
	for round, tps := range []float64{7183.80, 7651.24} {
		sum := &results.Summary{Workload: results.Meta{Name: "oltp_legacy/insert"}, Threads: 50, TPS: tps, Status: results.StatusCompleted,
			Tags:     map[string]string{"case": "incr", "round": strconv.Itoa(round + 1), "source": "published"},
			Imported: &results.Imported{Source: "published.csv", Line: round + 2, Format: "csv", Given: []string{"threads", "tps"}}}
		if err := results.WriteImportedStep(results.StepDir(pub, strconv.Itoa(round+1), "imported"), results.Step{Summary: sum}); err != nil {
			t.Fatal(err)
		}
	}
	return run, pub
}

func TestReportPivotFlags(t *testing.T) {
	run, pub := pivotFolders(t)
	r := starbench(t, nil, "report", run, "--rows", "round", "--columns", "case", "--metrics", "tps,avg", "--mean")
	expect(t, r, 0, "tps, avg by round per case\nround  incr tps  incr avg ms  rand tps  rand avg ms  split tps  split avg ms\n",
		"\n1      7,100.00         7.04  6,700.00         7.46   6,300.00          7.94\n",
		"\nmean   7,150.00         6.99  6,750.00         7.41   6,350.00          7.87\n")

	// Beside the published figures, with changes against incr.
	r = starbench(t, nil, "report", run, pub, "--rows", "round", "--columns", "case,source", "--metrics", "tps", "--baseline", "incr", "--mean", "--format", "markdown")
	expect(t, r, 0, "| round | incr tps | incr published tps | rand tps | split tps | rand tps vs incr | split tps vs incr |",
		"| 1 | 7,100.00 | 7,183.80 | 6,700.00 | 6,300.00 | -5.63 % | -11.27 % |", "| mean | 7,150.00 | 7,417.52 |")

	r = starbench(t, nil, "report", run, "--split", "case", "--rows", "round", "--metrics", "tps,p99", "--format", "csv")
	recs, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if r.code != 0 || err != nil || len(recs) != 1+3*2*2 || strings.Join(recs[0], ",") != "case,round,metric,kind,value,n,vs,given,within_noise" ||
		strings.Join(recs[1], ",") != "incr,1,tps,value,7100,1,,false,false" {
		t.Errorf("csv (exit %d, %v):\n%s%s", r.code, err, r.stdout, r.stderr)
	}

	r = starbench(t, nil, "report", run, "--columns", "case", "--format", "json")
	var cells []struct {
		Column []struct{ Name, Value string } `json:"column"`
		Metric string                         `json:"metric"`
		Value  *float64                       `json:"value"`
		N      int                            `json:"n"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &cells); err != nil || len(cells) != 3 || cells[1].Column[0].Value != "rand" ||
		cells[1].Metric != "tps" || *cells[1].Value != 6750 || cells[1].N != 2 {
		t.Errorf("json (%v): %s", err, r.stdout)
	}

	html := filepath.Join(t.TempDir(), "table.html")
	expect(t, starbench(t, nil, "report", run, "--rows", "round", "--columns", "case", "--format", "html", "-o", html), 0, "wrote "+html)
	data, err := os.ReadFile(html)
	if err != nil || !strings.Contains(string(data), `<table class="pivot">`) || !strings.Contains(string(data), `<th rowspan="2" scope="col">round</th><th scope="col">incr</th>`) {
		t.Errorf("html (%v):\n%s", err, data)
	}

	// Bad input: one line, exit 2.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--rows", "rund"}, `starbench: bad table: no step has the tag "rund" (there are: case, round, threads, workload)`},
		{[]string{"--rows", "round", "--metrics", "speed"}, `starbench: --metrics: unknown metric "speed" (want tps, qps, min, avg, p95, p99, max, qphh, answers_checked, efficiency, geomean_s, power, qph, retries, tpmc, tpmtotal)`},
		{[]string{"--columns", "case", "--baseline", "inc"}, `starbench: bad table: baseline "inc" is not a value of case (values: incr, rand, split)`},
		{[]string{"--rows", "round", "--parts"}, "--parts does not go with a report-shaped table"},
		{[]string{"--columns", "case", "--mean"}, "starbench: bad table: mean needs rows"},
		{[]string{"--rows", "round"}, `starbench: bad table: the cell (round=1) holds steps that differ in tag case ("incr" and "rand"), not repeats: put case in split, rows or columns`},
		{[]string{"--rows", "round", "--format", "pdf"}, `unknown --format "pdf"`},
	} {
		r := starbench(t, nil, append([]string{"report", run}, c.args...)...)
		expect(t, r, 2, c.want)
		if r.stdout != "" || strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 {
			t.Errorf("%v: more than one line:\nstdout:\n%s\nstderr:\n%s", c.args, r.stdout, r.stderr)
		}
	}

	expect(t, starbench(t, nil, "report", "--help"), 0, "--rows round --columns case --metrics tps,avg --mean",
		"--split workload --rows threads \\\n      --columns version,source --metrics qps,p95 --baseline v5.1.1 --mean", "--per-server")
}
