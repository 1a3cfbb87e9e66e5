package builtins_test

import (
	"sort"
	"strings"
	"testing"

	"github.com/starbench/starbench/builtins"
)

// Every module documents exactly its members (module.fn entries; methods
// of the values they return are documented as conn.x, host.x, ...), and
// every workload family's command is named after its module.
func TestRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, e := range builtins.Modules {
		name := e.Module.Name
		if seen[name] || e.Doc.Name != name {
			t.Errorf("module %q: listed twice or documented as %q", name, e.Doc.Name)
		}
		seen[name] = true
		var members, documented []string
		for m := range e.Module.Members {
			members = append(members, name+"."+m)
		}
		for _, f := range e.Doc.Funcs {
			if strings.HasPrefix(f.Name, name+".") {
				documented = append(documented, f.Name)
			}
			if f.Signature == "" || f.Doc == "" {
				t.Errorf("%s has no signature or no text", f.Name)
			}
		}
		sort.Strings(members)
		sort.Strings(documented)
		if strings.Join(members, " ") != strings.Join(documented, " ") {
			t.Errorf("module %s: members %v, documented %v", name, members, documented)
		}
	}
	families := builtins.Families()
	if len(families) == 0 {
		t.Fatal("no workload family is registered")
	}
	for _, f := range families {
		if first, _, _ := strings.Cut(f.Command.Use, " "); first != f.Module.Name || f.Command.Run == nil || f.Command.Short == "" {
			t.Errorf("family %s: command %q (run set: %v)", f.Module.Name, f.Command.Use, f.Command.Run != nil)
		}
		// An agent finds the family its part names.
		if got, ok := builtins.FamilyNamed(f.Module.Name); f.Family == nil || !ok || got.Name() != f.Module.Name {
			t.Errorf("family %s: its Go value is %v, found by name: %v", f.Module.Name, f.Family, ok)
		}
	}
}
