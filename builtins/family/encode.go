package family

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/starbench/starbench/builtins/bench"
)

// ValueCodec is a family whose Value options (a declared mix) can be
// written down and read back, so that its runs can be sent to an agent on
// another host; a family without it runs only where its values were made.
type ValueCodec interface {
	EncodeValue(option string, x any) (json.RawMessage, error)
	DecodeValue(option string, data json.RawMessage) (any, error)
}

// encodedValue is one option's value in EncodeValues' document; the
// option's kind says how to read it.
type encodedValue struct {
	Name  string          `json:"name"`
	Value json.RawMessage `json:"value"`
}

// encodedKeyword is a Rest keyword: its value's Go type is kept, since
// JSON alone cannot tell 1 from 1.0.
type encodedKeyword struct {
	Name string `json:"name"`
	Type string `json:"type"` // bool, int, float, string, list
	// Value is the value; a list's elements are encodedKeywords without
	// names.
	Value json.RawMessage `json:"value"`
}

// EncodeValues writes a call's values (of options opts) as JSON that
// DecodeValues reads back into equal values: what an agent on a client
// host is sent to configure the same run. A Value option needs the family
// to be a ValueCodec.
func EncodeValues(f Family, opts []Option, v Values) (json.RawMessage, error) {
	var out []encodedValue
	for _, o := range opts {
		x, ok := v[o.Name]
		if !ok {
			continue
		}
		var data []byte
		var err error
		switch o.Kind {
		case Duration:
			data, err = json.Marshal(int64(x.(time.Duration)))
		case Rest:
			var kws []encodedKeyword
			for _, kw := range x.([]Keyword) {
				e, kerr := encodeKeyword(kw.Name, kw.Value)
				if kerr != nil {
					return nil, fmt.Errorf("%s: %w", kw.Name, kerr)
				}
				kws = append(kws, e)
			}
			data, err = json.Marshal(kws)
		case Value:
			c, ok := f.(ValueCodec)
			if !ok {
				return nil, fmt.Errorf("%s: a %s option's value cannot be sent to another host", o.Name, f.Name())
			}
			data, err = c.EncodeValue(o.Name, x)
		default:
			data, err = json.Marshal(x)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", o.Name, err)
		}
		out = append(out, encodedValue{Name: o.Name, Value: data})
	}
	return json.Marshal(out)
}

func encodeKeyword(name string, x any) (encodedKeyword, error) {
	e := encodedKeyword{Name: name}
	switch x := x.(type) {
	case bool:
		e.Type = "bool"
	case int64:
		e.Type = "int"
	case float64:
		e.Type = "float"
	case string:
		e.Type = "string"
	case []any:
		var items []encodedKeyword
		for _, item := range x {
			ie, err := encodeKeyword("", item)
			if err != nil {
				return e, err
			}
			items = append(items, ie)
		}
		data, err := json.Marshal(items)
		e.Type, e.Value = "list", data
		return e, err
	default:
		return e, fmt.Errorf("a keyword's value cannot be %T", x)
	}
	data, err := json.Marshal(x)
	e.Value = data
	return e, err
}

func decodeKeyword(e encodedKeyword) (any, error) {
	var err error
	switch e.Type {
	case "bool":
		var b bool
		err = json.Unmarshal(e.Value, &b)
		return b, err
	case "int":
		var n int64
		err = json.Unmarshal(e.Value, &n)
		return n, err
	case "float":
		var f float64
		err = json.Unmarshal(e.Value, &f)
		return f, err
	case "string":
		var s string
		err = json.Unmarshal(e.Value, &s)
		return s, err
	case "list":
		var items []encodedKeyword
		if err := json.Unmarshal(e.Value, &items); err != nil {
			return nil, err
		}
		list := []any{}
		for _, item := range items {
			x, err := decodeKeyword(item)
			if err != nil {
				return nil, err
			}
			list = append(list, x)
		}
		return list, nil
	}
	return nil, fmt.Errorf("unknown keyword type %q", e.Type)
}

// DecodeValues reads what EncodeValues wrote, for options opts, and
// checks the values (Check): an option it does not know is an error.
func DecodeValues(f Family, opts []Option, data json.RawMessage) (Values, error) {
	var in []encodedValue
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, fmt.Errorf("the run's options do not parse: %w", err)
	}
	byName := map[string]Option{}
	for _, o := range opts {
		byName[o.Name] = o
	}
	v := Values{}
	for _, e := range in {
		o, ok := byName[e.Name]
		if !ok {
			return nil, fmt.Errorf("%s has no option %s", f.Name(), e.Name)
		}
		x, err := decodeValue(f, o, e.Value)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", o.Name, err)
		}
		v[o.Name] = x
	}
	if err := Check(opts, v); err != nil {
		return nil, err
	}
	return v, nil
}

func decodeValue(f Family, o Option, data json.RawMessage) (any, error) {
	var err error
	switch o.Kind {
	case Int:
		var n int64
		err = json.Unmarshal(data, &n)
		return n, err
	case Float:
		var x float64
		err = json.Unmarshal(data, &x)
		return x, err
	case String:
		var s string
		err = json.Unmarshal(data, &s)
		return s, err
	case Bool:
		var b bool
		err = json.Unmarshal(data, &b)
		return b, err
	case Duration:
		var n int64
		err = json.Unmarshal(data, &n)
		return time.Duration(n), err
	case Codes:
		codes := []uint16{}
		err = json.Unmarshal(data, &codes)
		return codes, err
	case Ints:
		ints := []int64{}
		err = json.Unmarshal(data, &ints)
		return ints, err
	case Tags:
		tags := map[string]string{}
		err = json.Unmarshal(data, &tags)
		return tags, err
	case Rest:
		var kws []encodedKeyword
		if err := json.Unmarshal(data, &kws); err != nil {
			return nil, err
		}
		var out []Keyword
		for _, e := range kws {
			x, err := decodeKeyword(e)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", e.Name, err)
			}
			out = append(out, Keyword{Name: e.Name, Value: x})
		}
		return out, nil
	case Value:
		c, ok := f.(ValueCodec)
		if !ok {
			return nil, fmt.Errorf("a %s option's value cannot be read on another host", f.Name())
		}
		return c.DecodeValue(o.Name, data)
	}
	return nil, fmt.Errorf("unknown kind of option")
}

// NewStep is the benchmark step of run r, configured by v (of f's run
// options), on conn: with the seed option's value when v has one, else
// seed; with v's tags and target shown as where it runs. The plan's
// adapter and an agent on a client host make a run's step so.
func NewStep(f Family, r Run, v Values, conn bench.Connector, seed int64, target string) (bench.Step, error) {
	opts := f.RunOptions()
	if o, ok := ByRole(opts, Seed); ok {
		if s := v.Int(o.Name); s != 0 {
			seed = s
		}
	}
	step, err := r.Step(conn, seed)
	if err != nil {
		return step, err
	}
	if o, ok := ByRole(opts, TagsRole); ok {
		step.Tags = v.Tags(o.Name)
	}
	step.Target = target
	return step, nil
}

// PSMode is how f's runs configured by v send statements (Sessioner),
// bench.PSAuto for a family that does not say.
func PSMode(f Family, v Values) bench.PSMode {
	if s, ok := f.(Sessioner); ok {
		return s.PSMode(v)
	}
	return bench.PSAuto
}
