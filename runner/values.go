package runner

import (
	"encoding/base64"
	"fmt"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// ToJSON converts a Starlark value to plain data that encoding/json can
// write: None, bools, ints (int64 when they fit, else their decimal text),
// floats, strings, bytes (as {"base64": ...}), lists, tuples, dicts with
// string keys and structs. Anything else becomes its String() form.
func ToJSON(v starlark.Value) any {
	return toJSONValue(v)
}

func toJSONValue(v starlark.Value) any {
	switch v := v.(type) {
	case nil, starlark.NoneType:
		return nil
	case starlark.Bool:
		return bool(v)
	case starlark.Int:
		if n, ok := v.Int64(); ok {
			return n
		}
		return v.String()
	case starlark.Float:
		return float64(v)
	case starlark.String:
		return string(v)
	case starlark.Bytes:
		return map[string]string{"base64": base64.StdEncoding.EncodeToString([]byte(v))}
	case *starlark.List:
		out := make([]any, v.Len())
		for i := range out {
			out[i] = toJSONValue(v.Index(i))
		}
		return out
	case starlark.Tuple:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = toJSONValue(e)
		}
		return out
	case *starlark.Dict:
		out := make(map[string]any, v.Len())
		for _, item := range v.Items() {
			key, ok := starlark.AsString(item[0])
			if !ok {
				key = item[0].String()
			}
			out[key] = toJSONValue(item[1])
		}
		return out
	case *starlarkstruct.Struct:
		out := make(map[string]any)
		for _, name := range v.AttrNames() {
			attr, _ := v.Attr(name)
			out[name] = toJSONValue(attr)
		}
		return out
	case *paramSpec:
		return toJSONValue(v.def)
	}
	return fmt.Sprint(v)
}
