package tpch

import (
	"database/sql/driver"
	_ "embed"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"
)

//go:embed answers.txt
var answersText string

// answers are TPC-H's answers at scale factor 1 to the queries as go-tpc
// words them, by query: rows of values as MySQL prints them.
var answers = sync.OnceValue(func() map[string][][]string {
	out := map[string][][]string{}
	query, header := "", false
	for _, line := range strings.Split(answersText, "\n") {
		switch {
		case strings.HasPrefix(line, "#") || line == "":
		case strings.HasPrefix(line, "-- q"):
			query, header = strings.TrimPrefix(line, "-- "), true
			out[query] = [][]string{}
		case header: // the columns' names
			header = false
		default:
			out[query] = append(out[query], strings.Split(line, "|"))
		}
	}
	return out
})

// precision is how a column of an answer is compared, by TPC-H's rules
// for validating query output (clause 2.1.3.5).
type precision byte

const (
	exact   precision = iota // keys, names, dates, counts: equal as text
	sumOf                    // a SUM: within 100 of the answer
	average                  // an AVG or a ratio: rounded to 1/100, within 1% of the answer
)

// columnPrecisions are each query's columns' precisions, a letter a
// column: e exact, s a SUM, a an AVG or ratio (SUM(l_quantity) in Q1 and
// Q18 is exact, by comment 4 of clause 2.1.3.5).
var columnPrecisions = map[string]string{
	"q1": "eeesssaaae", "q2": "eeeeeeee", "q3": "eses", "q4": "ee", "q5": "es",
	"q6": "s", "q7": "eees", "q8": "ea", "q9": "ees", "q10": "eeseeeee",
	"q11": "es", "q12": "eee", "q13": "ee", "q14": "a", "q15": "eeees",
	"q16": "eeee", "q17": "a", "q18": "eeeeee", "q19": "s", "q20": "ee",
	"q21": "ee", "q22": "ees",
}

func precisionOf(query string, column int) precision {
	p := columnPrecisions[query]
	if column >= len(p) {
		return exact
	}
	switch p[column] {
	case 's':
		return sumOf
	case 'a':
		return average
	}
	return exact
}

// CheckError is an answer that is not TPC-H's.
type CheckError struct {
	Query, Reason string
}

func (e *CheckError) Error() string {
	return fmt.Sprintf("check %s: the answer is not TPC-H's at scale factor 1: %s", e.Query, e.Reason)
}

// answerChecker compares one query's result, row by row as it is read,
// with the answer.
type answerChecker struct {
	query string
	want  [][]string
	row   int
}

func newAnswerChecker(query string) *answerChecker {
	return &answerChecker{query: query, want: answers()[query]}
}

// Row compares the next row of the result.
func (c *answerChecker) Row(cols []driver.Value) error {
	if c.row >= len(c.want) {
		c.row++
		return nil // counted, reported by Done
	}
	want := c.want[c.row]
	if len(cols) != len(want) {
		return &CheckError{c.query, fmt.Sprintf("%d columns, the answer has %d", len(cols), len(want))}
	}
	for j, v := range cols {
		got := valueText(v)
		if !matches(precisionOf(c.query, j), want[j], got) {
			return &CheckError{c.query, fmt.Sprintf("row %d column %d is %s, the answer's is %s", c.row+1, j+1, got, want[j])}
		}
	}
	c.row++
	return nil
}

// Done checks that the result had the answer's rows, no more, no fewer.
func (c *answerChecker) Done() error {
	if c.row != len(c.want) {
		return &CheckError{c.query, fmt.Sprintf("%d rows, the answer has %d", c.row, len(c.want))}
	}
	return nil
}

// matches compares a value with the answer's by the column's precision.
func matches(p precision, want, got string) bool {
	if p == exact || want == got {
		return want == got
	}
	w, err1 := strconv.ParseFloat(want, 64)
	g, err2 := strconv.ParseFloat(got, 64)
	if err1 != nil || err2 != nil {
		return false
	}
	if p == sumOf {
		return math.Abs(w-g) <= 100
	}
	return math.Abs(math.Round(g*100)/100-w) <= 0.01*math.Abs(w)
}

// valueText writes a value as MySQL's text protocol would have sent it.
func valueText(v driver.Value) string {
	switch v := v.(type) {
	case nil:
		return `\N`
	case []byte:
		return string(v)
	case string:
		return v
	case int64:
		return strconv.FormatInt(v, 10)
	case uint64:
		return strconv.FormatUint(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case time.Time:
		if v.Hour() == 0 && v.Minute() == 0 && v.Second() == 0 && v.Nanosecond() == 0 {
			return v.Format(time.DateOnly)
		}
		return v.Format(time.DateTime)
	}
	return fmt.Sprint(v)
}
