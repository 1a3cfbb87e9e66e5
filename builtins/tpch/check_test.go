package tpch

import (
	"database/sql/driver"
	"strings"
	"testing"
	"time"
)

// The answers file holds every query's answer with the columns each
// query's precisions list; the checker takes a right answer (values as the
// driver hands them: decimals as text, counts as integers, dates as
// times) and names the first wrong value, a missing row and an extra one.
func TestAnswerChecker(t *testing.T) {
	for _, q := range QueryNames {
		rows := answers()[q]
		if len(rows) == 0 {
			t.Fatalf("%s: no answer", q)
		}
		if n := len(columnPrecisions[q]); n != len(rows[0]) {
			t.Errorf("%s: %d precisions for %d columns", q, n, len(rows[0]))
		}
	}
	if n := len(answers()["q16"]); n != 18333 { // go-tpc's q16.out: 18,334 lines with its header
		t.Errorf("q16: %d rows, want 18,333", n)
	}
	// Q18's first row, as MariaDB's rows come: a date, integers, decimals.
	date, _ := time.Parse(time.DateOnly, "1994-04-07")
	row := func(price string) []driver.Value {
		return []driver.Value{[]byte("Customer#000128120"), int64(128120), int64(4722021), date, []byte(price), []byte("323.00")}
	}
	c := newAnswerChecker("q18")
	if err := c.Row(row("544089.09")); err != nil {
		t.Fatalf("the answer's first row: %v", err)
	}
	if err := c.Done(); err == nil || !strings.Contains(err.Error(), "1 rows, the answer has 9") {
		t.Errorf("a short answer: %v", err)
	}
	c = newAnswerChecker("q18")
	if err := c.Row(row("544089.10")); err == nil || !strings.Contains(err.Error(), "row 1 column 5 is 544089.10, the answer's is 544089.09") {
		t.Errorf("a price off by a cent (exact): %v", err)
	}
	// Q6's revenue is a SUM: within 100 passes, beyond it fails.
	for sum, ok := range map[string]bool{"123141078.2283": true, "123141178.00": true, "123141179.00": false} {
		c := newAnswerChecker("q6")
		err := c.Row([]driver.Value{[]byte(sum)})
		if err == nil {
			err = c.Done()
		}
		if (err == nil) != ok {
			t.Errorf("q6 revenue %s: %v", sum, err)
		}
	}
	// Q14's ratio: within 1% once rounded to 1/100.
	for ratio, ok := range map[string]bool{"16.5793993672": true, "16.70": true, "16.80": false, "16.38": false} {
		c := newAnswerChecker("q14")
		if err := c.Row([]driver.Value{[]byte(ratio)}); (err == nil) != ok {
			t.Errorf("q14 ratio %s: %v", ratio, err)
		}
	}
	c = newAnswerChecker("q6")
	_ = c.Row([]driver.Value{[]byte("123141078.2283")})
	_ = c.Row([]driver.Value{[]byte("1")})
	if err := c.Done(); err == nil || !strings.Contains(err.Error(), "2 rows, the answer has 1") {
		t.Errorf("an extra row: %v", err)
	}
}
