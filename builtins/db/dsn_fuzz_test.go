package db

import (
	"regexp"
	"strings"
	"testing"
)

// FuzzParseDSN: a DSN that parses (either form) formats back to a
// go-sql-driver DSN that parses to the same configuration (formatting is a
// fixed point), and its redacted display is itself a DSN and does not
// depend on the password. (That it is a valid --target is FuzzTarget's, in
// package targets.)
func FuzzParseDSN(f *testing.F) {
	for _, s := range []string{
		"root:pw@tcp(127.0.0.1:4000)/sbtest",
		"mysql://root:pw@127.0.0.1:4000/sbtest",
		"mysql://root:pw@127.0.0.1:4000/sbtest?timeout=5s",
		"root@unix(/tmp/my.sock)/x",
	} {
		f.Add(s)
	}
	f.Setenv("MYSQL_PWD", "")
	f.Fuzz(func(t *testing.T, dsn string) {
		cfg, err := ParseDSN(dsn)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("ParseDSN(%q): empty error", dsn)
			}
			return
		}
		text := cfg.FormatDSN()
		again, err := ParseDSN(text)
		if err != nil {
			t.Fatalf("ParseDSN(%q) formats as %q, which does not parse: %v", dsn, text, err)
		}
		if again.User != cfg.User || again.Net != cfg.Net || again.Addr != cfg.Addr || again.DBName != cfg.DBName || again.Timeout != cfg.Timeout {
			t.Fatalf("ParseDSN(%q) formats as %q, which parses to another server: %+v vs %+v", dsn, text, again, cfg)
		}
		if cfg.User != "" && again.Passwd != cfg.Passwd {
			t.Fatalf("ParseDSN(%q) formats as %q, which parses to another password", dsn, text)
		}
		if twice := again.FormatDSN(); twice != text {
			t.Fatalf("ParseDSN(%q): formatting is not stable: %q then %q", dsn, text, twice)
		}
		shown := Redacted(cfg)
		if _, err := ParseDSN(shown); err != nil {
			t.Fatalf("ParseDSN(%q): the redacted display %q does not parse: %v", dsn, shown, err)
		}
		if cfg.Passwd != "" {
			other := cfg.Clone()
			other.Passwd = "a-different-password"
			if Redacted(other) != shown {
				t.Fatalf("ParseDSN(%q): the redacted display depends on the password: %q vs %q", dsn, shown, Redacted(other))
			}
		}
	})
}

var plainUser = regexp.MustCompile(`^[A-Za-z0-9_.-]*$`)

// FuzzDSNSecret: for "user:Hunter2<mid>Secret@rest" (either form, mid
// without "@"), neither half of the password shows in ParseDSN's error
// (which is targets.Parse's for a DSN), in the redacted display of what parses, or in
// RedactDSNText of the --target value (named or not).
func FuzzDSNSecret(f *testing.F) {
	for _, c := range []struct {
		user, mid, rest string
		url             bool
	}{
		{"root", "", "tcp(127.0.0.1:4000)/sbtest", false},
		{"root", "", "127.0.0.1:4000/sbtest", true},
	} {
		f.Add(c.user, c.mid, c.rest, c.url)
	}
	f.Setenv("MYSQL_PWD", "")
	f.Fuzz(func(t *testing.T, user, mid, rest string, url bool) {
		if !plainUser.MatchString(user) || strings.Contains(mid, "@") {
			return
		}
		for _, s := range []string{user, mid, rest} {
			if strings.Contains(s, "Hunter2") || strings.Contains(s, "Secret") {
				return
			}
		}
		dsn := user + ":Hunter2" + mid + "Secret@" + rest
		if url {
			dsn = "mysql://" + dsn
		}
		leaks := func(s string) bool { return strings.Contains(s, "Hunter2") || strings.Contains(s, "Secret") }
		for _, shown := range []string{RedactDSNText(dsn), RedactDSNText("main=" + dsn)} {
			if leaks(shown) {
				t.Fatalf("RedactDSNText shows the password: %q", shown)
			}
		}
		cfg, err := ParseDSN(dsn)
		if err != nil {
			if leaks(err.Error()) {
				t.Fatalf("ParseDSN(%q): the error shows the password: %v", dsn, err)
			}
		} else if shown := Redacted(cfg); leaks(shown) {
			t.Fatalf("ParseDSN(%q): the redacted display shows the password: %q", dsn, shown)
		}
	})
}
