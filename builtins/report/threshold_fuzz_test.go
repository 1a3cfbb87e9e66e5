package report

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// formatThreshold prints a threshold canonically: metric, operator and a
// signed percent ("tps<-5%").
func formatThreshold(t Threshold) string {
	op := ">"
	if t.Less {
		op = "<"
	}
	pct := strconv.FormatFloat(t.Percent, 'f', -1, 64)
	if t.Percent >= 0 {
		pct = "+" + pct
	}
	return string(t.Metric) + op + pct + "%"
}

// FuzzParseThreshold: a --fail-if threshold that parses names a known
// metric and a finite percent, keeps its text (trimmed), and both that text
// and the threshold printed canonically parse to the same threshold. A
// refusal is one line that quotes the input.
func FuzzParseThreshold(f *testing.F) {
	for _, s := range []string{"tps<-5%", "p99>+10%", "qps < -2.5 %", "avg>0%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		th, err := ParseThreshold(s)
		if err != nil {
			if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, strconv.Quote(s)) {
				t.Fatalf("ParseThreshold(%q): want one line quoting the input, got %q", s, msg)
			}
			return
		}
		if _, err := ParseMetric(string(th.Metric)); err != nil {
			t.Fatalf("ParseThreshold(%q) = %+v: %v", s, th, err)
		}
		if math.IsNaN(th.Percent) || math.IsInf(th.Percent, 0) {
			t.Fatalf("ParseThreshold(%q) = %+v: the percent is not a number", s, th)
		}
		if th.Text != strings.TrimSpace(s) {
			t.Fatalf("ParseThreshold(%q).Text = %q", s, th.Text)
		}
		for _, text := range []string{th.Text, formatThreshold(th)} {
			again, err := ParseThreshold(text)
			if err != nil {
				t.Fatalf("ParseThreshold(%q) = %+v, printed as %q, does not parse: %v", s, th, text, err)
			}
			if again.Metric != th.Metric || again.Less != th.Less || again.Percent != th.Percent {
				t.Fatalf("ParseThreshold(%q) = %+v, printed as %q, parses to %+v", s, th, text, again)
			}
		}
	})
}
