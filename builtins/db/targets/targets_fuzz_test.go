package targets

import (
	"strings"
	"testing"

	"github.com/starbench/starbench/builtins/db"
)

// FuzzTarget: a --target value splits into an optional name and a spec
// that together give the value back; a spec that parses is one of the
// three kinds, a DSN target's DSN parses (and is the spec) and a sandbox
// names a known engine; one that does not parse says why.
func FuzzTarget(f *testing.F) {
	for _, s := range []string{"embedded", "sandbox:mariadb", "main=root:pw@tcp(10.0.1.5:4000)/sbtest", "ref=mysql://root@10.0.1.6:3306/sbtest", "root:pw@tcp(h:1)/d?timeout=5s"} {
		f.Add(s)
	}
	f.Setenv("MYSQL_PWD", "")
	f.Fuzz(func(t *testing.T, value string) {
		name, spec := db.SplitNamedTarget(value)
		if name == "" && spec != value {
			t.Fatalf("db.SplitNamedTarget(%q) = %q, %q: an unnamed spec must be the whole value", value, name, spec)
		}
		if name != "" && name+"="+spec != value {
			t.Fatalf("db.SplitNamedTarget(%q) = %q, %q", value, name, spec)
		}
		target, err := Parse(spec)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("Parse(%q): empty error", spec)
			}
			return
		}
		switch target.Kind {
		case KindEmbedded:
		case KindDSN:
			if _, err := db.ParseDSN(target.DSN); err != nil || target.DSN != strings.TrimSpace(spec) {
				t.Fatalf("Parse(%q) = %+v, whose DSN does not parse: %v", spec, target, err)
			}
		case KindSandbox:
			known := false
			for _, e := range SandboxEngines {
				known = known || e == target.Engine
			}
			if !known {
				t.Fatalf("Parse(%q) = %+v: unknown engine", spec, target)
			}
		default:
			t.Fatalf("Parse(%q) = %+v: unknown kind", spec, target)
		}
	})
}
