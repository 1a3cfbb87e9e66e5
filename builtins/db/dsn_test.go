package db

import (
	"strings"
	"testing"
	"time"
)

func TestParseDSNForms(t *testing.T) {
	cases := []struct {
		dsn                          string
		user, pass, net, addr, dbase string
	}{
		{"root:pw@tcp(127.0.0.1:4000)/sbtest", "root", "pw", "tcp", "127.0.0.1:4000", "sbtest"},
		{"mysql://root:pw@127.0.0.1:4000/sbtest", "root", "pw", "tcp", "127.0.0.1:4000", "sbtest"},
		{"mysql://root@localhost/db", "root", "", "tcp", "localhost:3306", "db"},
		{"mysql://u:p%40ss@[::1]:3307/", "u", "p@ss", "tcp", "[::1]:3307", ""},
		{"u:p@ss/w@tcp(h:1)/d", "u", "p@ss/w", "tcp", "h:1", "d"},
		{"root@unix(/tmp/my.sock)/x", "root", "", "unix", "/tmp/my.sock", "x"},
	}
	t.Setenv("MYSQL_PWD", "")
	for _, c := range cases {
		cfg, err := ParseDSN(c.dsn)
		if err != nil {
			t.Errorf("%s: %v", c.dsn, err)
			continue
		}
		if cfg.User != c.user || cfg.Passwd != c.pass || cfg.Net != c.net || cfg.Addr != c.addr || cfg.DBName != c.dbase {
			t.Errorf("%s: got user=%q pass=%q net=%q addr=%q db=%q", c.dsn, cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName)
		}
		if cfg.Timeout != DefaultConnectTimeout {
			t.Errorf("%s: timeout %v", c.dsn, cfg.Timeout)
		}
	}
	cfg, err := ParseDSN("mysql://root:pw@h:1/d?timeout=3s&readTimeout=1s")
	if err != nil || cfg.Timeout != 3*time.Second || cfg.ReadTimeout != time.Second {
		t.Errorf("URL parameters: %+v %v", cfg, err)
	}
}

func TestMySQLPwdFromEnvironment(t *testing.T) {
	t.Setenv("MYSQL_PWD", "from-env")
	cfg, err := ParseDSN("root@tcp(h:1)/d")
	if err != nil || cfg.Passwd != "from-env" {
		t.Fatalf("MYSQL_PWD not used: %+v %v", cfg, err)
	}
	cfg, _ = ParseDSN("root:given@tcp(h:1)/d")
	if cfg.Passwd != "given" {
		t.Errorf("an explicit password must win over MYSQL_PWD")
	}
}

func TestBadDSNErrorsHidePassword(t *testing.T) {
	for _, dsn := range []string{"root:hunter22@tcp(h:1/d", "mysql://root:hunter22@h:1/d?timeout=xyz", "root:hunter22@tcp(h:1)/d?timeout=xyz"} {
		_, err := ParseDSN(dsn)
		if err == nil {
			t.Errorf("%s: want an error", dsn)
			continue
		}
		if strings.Contains(err.Error(), "hunter22") {
			t.Errorf("error shows the password: %v", err)
		}
	}
}

func TestRedacted(t *testing.T) {
	cfg, _ := ParseDSN("root:hunter22@tcp(127.0.0.1:4000)/sbtest")
	got := Redacted(cfg)
	if strings.Contains(got, "hunter22") || !strings.Contains(got, "root:***@tcp(127.0.0.1:4000)/sbtest") {
		t.Errorf("Redacted = %q", got)
	}
	if cfg.Passwd != "hunter22" {
		t.Errorf("Redacted changed the config")
	}
	for in, want := range map[string]string{
		"mysql://root:hunter22@h:1/d": "mysql://root:***@h:1/d",
		"root:hunter22@tcp(h:1/d":     "root:***@tcp(h:1/d",
		"root@tcp(h:1)/d":             "root@tcp(h:1)/d",
	} {
		if got := RedactDSNText(in); got != want {
			t.Errorf("RedactDSNText(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSplitNamedTarget(t *testing.T) {
	for in, want := range map[string][2]string{
		"main=root@tcp(h:1)/d":           {"main", "root@tcp(h:1)/d"},
		"root:pw@tcp(h:1)/d?timeout=5s":  {"", "root:pw@tcp(h:1)/d?timeout=5s"},
		"ref=mysql://root@h:1/d?x=y":     {"ref", "mysql://root@h:1/d?x=y"},
		"sandbox:mariadb":                {"", "sandbox:mariadb"},
		"b=sandbox:mariadb":              {"b", "sandbox:mariadb"},
		"mysql://root@h:1/d?timeout=10s": {"", "mysql://root@h:1/d?timeout=10s"},
	} {
		name, spec := SplitNamedTarget(in)
		if name != want[0] || spec != want[1] {
			t.Errorf("SplitNamedTarget(%q) = %q, %q; want %q", in, name, spec, want)
		}
	}
}
