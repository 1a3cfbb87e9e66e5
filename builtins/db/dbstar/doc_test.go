package dbstar

import (
	"sort"
	"strings"
	"testing"
)

// Every function and method has a reference entry, and every entry names
// something that exists.
func TestDocCoversEveryBuiltin(t *testing.T) {
	want := map[string]bool{}
	for name := range Module.Members {
		want["db."+name] = true
	}
	for name := range connMethods {
		want["conn."+name] = true
	}
	attrs := map[string]bool{}
	for _, name := range connAttrs {
		want["conn."+name] = true
		attrs["conn."+name] = true
	}
	for _, f := range Doc.Funcs {
		if !want[f.Name] {
			t.Errorf("doc entry %s names no builtin", f.Name)
		}
		signature := strings.HasPrefix(f.Signature, f.Name+"(")
		if attrs[f.Name] {
			signature = f.Signature == f.Name // an attribute is shown as read
		}
		if !signature || f.Doc == "" {
			t.Errorf("doc entry %s: signature %q, doc %q", f.Name, f.Signature, f.Doc)
		}
		delete(want, f.Name)
	}
	var missing []string
	for name := range want {
		missing = append(missing, name)
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("undocumented: %v", missing)
	}
}
