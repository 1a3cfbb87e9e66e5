package targets

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

func TestTargets(t *testing.T) {
	for spec, kind := range map[string]string{
		"":                       KindEmbedded,
		"embedded":               KindEmbedded,
		"sandbox:mariadb":        KindSandbox,
		"root@tcp(h:1)/d?x=y":    KindDSN,
		"mysql://root@h:1/d?a=b": KindDSN,
	} {
		got, err := Parse(spec)
		if err != nil || got.Kind != kind {
			t.Errorf("Parse(%q) = %+v, %v; want %s", spec, got, err, kind)
		}
	}
	if _, err := Parse("sandbox:oracle"); err == nil || !strings.Contains(err.Error(), "mariadb") {
		t.Errorf("unknown sandbox engine: %v", err)
	}
}

type given map[string]string

func (g given) Target(name string) (string, bool) { s, ok := g[name]; return s, ok }
func (g given) TargetNames() []string {
	var names []string
	for n := range g {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Resolve picks the target a plan means: the default, the only one, a
// named one, or a spec written in the plan; a missing name says how to
// give it.
func TestResolve(t *testing.T) {
	str := func(s string) *string { return &s }
	dsn := "root@tcp(127.0.0.1:4000)/sbtest"
	for _, c := range []struct {
		given given
		arg   *string
		want  string // Name|Spec|Kind|Literal|Key, or the error
	}{
		{given{}, nil, "default|embedded|embedded|false|default"},
		{given{"default": dsn, "b": "embedded"}, nil, "default|" + dsn + "|dsn|false|default"},
		{given{"only": dsn}, nil, "only|" + dsn + "|dsn|false|only"},
		{given{"a": dsn, "b": dsn}, nil, `several targets were given (a, b); name one, e.g. db.connect("a")`},
		{given{"b": "sandbox:mariadb"}, str("b"), "b|sandbox:mariadb|sandbox|false|b"},
		{given{}, str(dsn), "|" + dsn + "|dsn|true|tcp(127.0.0.1:4000)"},
		{given{}, str("embedded"), "|embedded|embedded|true|embedded"},
		{given{}, str("ref"), `no target named "ref": give it on the command line with --target ref=DSN`},
		{given{"a": dsn}, str("ref"), `no target named "ref" (given: a); add --target ref=DSN`},
		{given{}, str("sandbox:oracle"), `unknown sandbox engine "oracle" (available: mariadb, tidb)`},
	} {
		r, err := Resolve(c.given, c.arg)
		got := fmt.Sprintf("%s|%s|%s|%v|%s", r.Name, r.Spec, r.Target.Kind, r.Literal, r.Key())
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("Resolve(%v, %v) = %s, want %s", c.given, c.arg, got, c.want)
		}
	}
}

// In a dry run a name no --target gave is a placeholder, so that check
// and --dry-run need no server; everything else resolves as in a run.
func TestResolveDry(t *testing.T) {
	str := func(s string) *string { return &s }
	dsn := "root@tcp(127.0.0.1:4000)/sbtest"
	for _, c := range []struct {
		given given
		arg   *string
		want  string
	}{
		{given{}, str("tidb1"), "tidb1|tidb1 (not given)|not-given|false|tidb1"},
		{given{"a": dsn}, str("tidb1"), "tidb1|tidb1 (not given)|not-given|false|tidb1"},
		{given{"tidb1": dsn}, str("tidb1"), "tidb1|" + dsn + "|dsn|false|tidb1"},
		{given{}, nil, "default|embedded|embedded|false|default"},
		{given{}, str("sandbox:oracle"), `unknown sandbox engine "oracle" (available: mariadb, tidb)`},
	} {
		r, err := ResolveDry(c.given, c.arg)
		got := fmt.Sprintf("%s|%s|%s|%v|%s", r.Name, r.Spec, r.Target.Kind, r.Literal, r.Key())
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("ResolveDry(%v, %v) = %s, want %s", c.given, c.arg, got, c.want)
		}
	}
}
