package redact_test

import (
	"strings"
	"testing"

	"github.com/starbench/starbench/internal/redact"
)

// Names that hold the secret stay readable.
func TestNamesStayReadable(t *testing.T) {
	s := redact.New("sbtest")
	for _, text := range []string{
		"ANALYZE TABLE other_db.sbtest1: Table 'other_db.sbtest1' doesn't exist",
		"Table 'sbtest.sbtest1' doesn't exist",
		"Creating table 'sbtest12'...",
		"user sbtest_user, schema s_sbtest, table `sbtest-archive`, $sbtest, sbtest$1",
		"prepare: sbtest1, sbtest2",
	} {
		if got := s.Redact(text); got != text {
			t.Errorf("Redact(%q) = %q, want it unchanged", text, got)
		}
	}
}

// A secret never survives where it stands as a value.
func TestSecretsNeverSurvive(t *testing.T) {
	cases := []struct{ secret, text, want string }{
		{"sbtest", "root:sbtest@tcp(127.0.0.1:3306)/db", "root:***@tcp(127.0.0.1:3306)/db"},
		{"sbtest", "mysql://root:sbtest@127.0.0.1:3306/db", "mysql://root:***@127.0.0.1:3306/db"},
		{"sbtest", "sysbench --mysql-password=sbtest run", "sysbench --mysql-password=*** run"},
		{"sbtest", "mysql -uroot -psbtest -h 127.0.0.1", "mysql -uroot -p*** -h 127.0.0.1"},
		{"sbtest", "MYSQL_PWD=sbtest tiup bench", "MYSQL_PWD=*** tiup bench"},
		{"sbtest", `{"password":"sbtest"}`, `{"password":"***"}`},
		{"sbtest", "CREATE USER u IDENTIFIED BY 'sbtest'", "CREATE USER u IDENTIFIED BY '***'"},
		{"sbtest", "the password is sbtest.", "the password is ***."},
		{"sbtest", "sbtest", "***"},
		{"sbtest", "(sbtest)\tsbtest\nsbtest", "(***)\t***\n***"},
		{"sbtest", "password: sbtest, sbtest1", "password: ***, sbtest1"},
		{`pa"ss\word`, `{"pw":"pa\"ss\\word"}`, `{"pw":"***"}`},
		{"p@ss w", "mysql://u:p%40ss+w@h/db mysql://u:p%40ss%20w@h/db", "mysql://u:***@h/db mysql://u:***@h/db"},
		{"-secret-", "x-secret-y", "x***y"}, // no name character at its edges: masked anywhere
		{"Pässwörd", "pw=Pässwörd", "pw=***"},
		{"s3cr3t", "s3cr3ts3cr3t s3cr3t", "s3cr3ts3cr3t ***"},
	}
	for _, c := range cases {
		got := redact.New(c.secret).Redact(c.text)
		if got != c.want {
			t.Errorf("secret %q: Redact(%q) = %q, want %q", c.secret, c.text, got, c.want)
		}
	}
}

// With several secrets, one inside another is masked as the longer one.
func TestLongestSecretFirst(t *testing.T) {
	s := redact.New("abc", "abcdef")
	if got := s.Redact("pw=abcdef pw=abc"); got != "pw=*** pw=***" {
		t.Errorf("got %q", got)
	}
	if got := (*redact.Set)(nil).Redact("abc"); got != "abc" {
		t.Errorf("a nil set changed the text: %q", got)
	}
	if strings.Contains(redact.New("").Redact("a b"), redact.Mark) {
		t.Error("an empty secret masked something")
	}
}
