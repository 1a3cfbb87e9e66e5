package yamlstar

import (
	"strings"
	"testing"

	"go.starlark.net/starlark"
)

func callDecode(text string) (starlark.Value, error) {
	return starlark.Call(&starlark.Thread{Name: "fuzz"}, Module.Members["decode"], starlark.Tuple{starlark.String(text)}, nil)
}

// stringKeys reports whether every dict in v has only string keys (the
// values yaml.encode writes back as they are).
func stringKeys(v starlark.Value) bool {
	switch v := v.(type) {
	case *starlark.List:
		for i := 0; i < v.Len(); i++ {
			if !stringKeys(v.Index(i)) {
				return false
			}
		}
	case *starlark.Dict:
		for _, kv := range v.Items() {
			if _, ok := kv[0].(starlark.String); !ok || !stringKeys(kv[1]) {
				return false
			}
		}
	}
	return true
}

// FuzzDecode: yaml.decode on any text returns a value or an error — never
// a panic, a stack overflow or an endless expansion of aliases — and a
// value encodes to YAML that decodes to an equal value (when its dict keys
// are strings: other keys are written as their text).
func FuzzDecode(f *testing.F) {
	for _, s := range []string{"a: 1\nb: [x, y]\n", "global:\n  user: tidb\n", "- 1\n- 2.5\n- true\n- null\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		v, err := callDecode(text)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "yaml.decode: ") {
				t.Fatalf("decode(%q): error does not name yaml.decode: %v", text, err)
			}
			return
		}
		out, err := Encode(v)
		if err != nil {
			t.Fatalf("decode(%q) = %v, which does not encode: %v", text, v, err)
		}
		if !stringKeys(v) {
			return
		}
		again, err := callDecode(out)
		if err != nil {
			t.Fatalf("decode(%q) = %v, encoded as %q, does not decode: %v", text, v, out, err)
		}
		// Nesting is no deeper than the text is long; starlark.Equal alone
		// stops at depth 10 and would call deep lists unequal.
		if eq, err := starlark.EqualDepth(v, again, len(text)+2); err != nil || !eq {
			t.Fatalf("decode(%q) = %v; encoded as %q it decodes to %v", text, v, out, again)
		}
	})
}
