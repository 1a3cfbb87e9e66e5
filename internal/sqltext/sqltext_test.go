package sqltext

import "testing"

func TestQuoting(t *testing.T) {
	if got := QuoteString("it's a \\ test\n"); got != `'it\'s a \\ test\n'` {
		t.Errorf("QuoteString = %s", got)
	}
	if got := QuoteTableName("sb.t`1"); got != "`sb`.`t``1`" {
		t.Errorf("QuoteTableName = %s", got)
	}
}
