package runner

import (
	"fmt"
	"strconv"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// Param is one parameter a plan declares with params(). Overrides come from
// the command line as text (-p name=value) and are parsed by Kind.
type Param struct {
	Name    string
	Kind    string // int, float, bool, string, duration
	List    bool   // a comma-separated list of Kind on the command line
	Default starlark.Value
	Help    string
	Value   starlark.Value // resolved value handed to main
	Set     bool           // Value came from the command line
}

// TypeName is the parameter's type as users write it: "int", "list[int]".
func (p *Param) TypeName() string {
	if p.List {
		return "list[" + p.Kind + "]"
	}
	return p.Kind
}

var paramKinds = []string{"int", "float", "bool", "string", "duration"}

// paramSpec is what param(...) returns: a default with help text and an
// optional explicit type.
type paramSpec struct {
	def      starlark.Value
	help     string
	typeName string
}

func (s *paramSpec) String() string        { return fmt.Sprintf("param(%s)", s.def) }
func (s *paramSpec) Type() string          { return "param" }
func (s *paramSpec) Freeze()               { s.def.Freeze() }
func (s *paramSpec) Truth() starlark.Bool  { return true }
func (s *paramSpec) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable: param") }

func paramBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	spec := &paramSpec{def: starlark.None}
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "default?", &spec.def, "help?", &spec.help, "type?", &spec.typeName); err != nil {
		return nil, err
	}
	return spec, nil
}

// declareParam builds a Param from a params() keyword, inferring its type
// from the default unless type= names it.
func declareParam(name string, v starlark.Value) (*Param, error) {
	p := &Param{Name: name, Default: v}
	typeName := ""
	if spec, ok := v.(*paramSpec); ok {
		p.Default, p.Help, typeName = spec.def, spec.help, spec.typeName
	}
	if typeName != "" {
		kind, list, ok := parseTypeName(typeName)
		if !ok {
			return nil, fmt.Errorf("parameter %s: unknown type %q (want one of %s, or list[...] of them)", name, typeName, strings.Join(paramKinds, ", "))
		}
		p.Kind, p.List = kind, list
	} else {
		kind, list, err := inferKind(p.Default)
		if err != nil {
			return nil, fmt.Errorf("parameter %s: %v", name, err)
		}
		p.Kind, p.List = kind, list
	}
	if p.Default == starlark.None && p.List {
		p.Default = starlark.NewList(nil)
	}
	if err := checkValue(p, p.Default); err != nil {
		return nil, fmt.Errorf("parameter %s: default %v", name, err)
	}
	p.Value = p.Default
	return p, nil
}

func parseTypeName(s string) (kind string, list bool, ok bool) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "list[") && strings.HasSuffix(s, "]") {
		s, list = s[len("list["):len(s)-1], true
	}
	for _, k := range paramKinds {
		if s == k {
			return k, list, true
		}
	}
	return "", false, false
}

func inferKind(v starlark.Value) (string, bool, error) {
	switch v := v.(type) {
	case starlark.Bool:
		return "bool", false, nil
	case starlark.Int:
		return "int", false, nil
	case starlark.Float:
		return "float", false, nil
	case starlark.String:
		if looksLikeDuration(string(v)) {
			return "duration", false, nil
		}
		return "string", false, nil
	case *starlark.List, starlark.Tuple:
		seq := v.(starlark.Indexable)
		if seq.Len() == 0 {
			return "", false, fmt.Errorf("an empty list default needs type=, e.g. param([], type=\"list[int]\")")
		}
		kind, nested, err := inferKind(seq.Index(0))
		if err != nil || nested {
			return "", false, fmt.Errorf("list elements must be int, float, bool, string or duration")
		}
		return kind, true, nil
	case starlark.NoneType:
		return "", false, fmt.Errorf("a None default needs type=, e.g. param(None, type=\"string\")")
	}
	return "", false, fmt.Errorf("unsupported default of type %s (want int, float, bool, string, duration or a list of them)", v.Type())
}

// checkValue verifies that v (a default) has the parameter's type.
func checkValue(p *Param, v starlark.Value) error {
	if v == starlark.None {
		return nil
	}
	if p.List {
		seq, ok := v.(starlark.Indexable)
		if !ok {
			return fmt.Errorf("is %s, want %s", v.Type(), p.TypeName())
		}
		for i := 0; i < seq.Len(); i++ {
			if err := checkScalar(p.Kind, seq.Index(i)); err != nil {
				return fmt.Errorf("element %d %v", i, err)
			}
		}
		return nil
	}
	return checkScalar(p.Kind, v)
}

func checkScalar(kind string, v starlark.Value) error {
	ok := false
	switch kind {
	case "int":
		_, ok = v.(starlark.Int)
	case "float":
		switch v.(type) {
		case starlark.Float, starlark.Int:
			ok = true
		}
	case "bool":
		_, ok = v.(starlark.Bool)
	case "string":
		_, ok = v.(starlark.String)
	case "duration":
		_, err := DurationOf(v)
		ok = err == nil
	}
	if !ok {
		return fmt.Errorf("is %s %s, want %s", v.Type(), v, kind)
	}
	return nil
}

// parseOverride converts command-line text to a value of the parameter's type.
func parseOverride(p *Param, text string) (starlark.Value, error) {
	if !p.List {
		return parseScalar(p.Kind, text)
	}
	var elems []starlark.Value
	if strings.TrimSpace(text) != "" {
		for _, part := range strings.Split(text, ",") {
			v, err := parseScalar(p.Kind, strings.TrimSpace(part))
			if err != nil {
				return nil, err
			}
			elems = append(elems, v)
		}
	}
	return starlark.NewList(elems), nil
}

func parseScalar(kind, text string) (starlark.Value, error) {
	switch kind {
	case "int":
		n, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not an int", text)
		}
		return starlark.MakeInt64(n), nil
	case "float":
		f, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a float", text)
		}
		return starlark.Float(f), nil
	case "bool":
		switch strings.ToLower(strings.TrimSpace(text)) {
		case "true", "1", "yes", "on":
			return starlark.True, nil
		case "false", "0", "no", "off":
			return starlark.False, nil
		}
		return nil, fmt.Errorf("%q is not a bool (true/false)", text)
	case "duration":
		if _, err := ParseDuration(text); err != nil {
			return nil, err
		}
		if secs, err := strconv.ParseFloat(strings.TrimSpace(text), 64); err == nil {
			// A bare number counts seconds; written plainly ("300s", not
			// "1e3s" or "0x1p4s") so that it reads back as a duration.
			return starlark.String(strconv.FormatFloat(secs, 'f', -1, 64) + "s"), nil
		}
		return starlark.String(strings.TrimSpace(text)), nil
	default:
		return starlark.String(text), nil
	}
}

// ParamSet is the declared parameters of a plan in declaration order.
type ParamSet struct {
	Params []*Param
}

func (ps *ParamSet) lookup(name string) *Param {
	for _, p := range ps.Params {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// apply parses "name=value" overrides into the parameters.
func (ps *ParamSet) apply(overrides []string) error {
	for _, o := range overrides {
		name, text, ok := strings.Cut(o, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return usageErrorf("-p %q: want name=value\n%s", o, ps.describe())
		}
		p := ps.lookup(name)
		if p == nil {
			return usageErrorf("unknown parameter %q\n%s", name, ps.describe())
		}
		v, err := parseOverride(p, text)
		if err != nil {
			return usageErrorf("parameter %s (%s): %v\n%s", name, p.TypeName(), err, ps.describe())
		}
		p.Value, p.Set = v, true
	}
	return nil
}

// describe lists the valid parameters for usage errors.
func (ps *ParamSet) describe() string {
	if len(ps.Params) == 0 {
		return "this plan declares no parameters"
	}
	var b strings.Builder
	b.WriteString("valid parameters:")
	for _, p := range ps.Params {
		fmt.Fprintf(&b, "\n  %-16s %-14s default %s", p.Name, p.TypeName(), p.Default)
		if p.Help != "" {
			fmt.Fprintf(&b, "  %s", p.Help)
		}
	}
	return b.String()
}

// Struct is the value main(p) receives: one attribute per parameter.
func (ps *ParamSet) Struct() *starlarkstruct.Struct {
	d := make(starlark.StringDict, len(ps.Params))
	for _, p := range ps.Params {
		d[p.Name] = p.Value
	}
	return starlarkstruct.FromStringDict(starlark.String("params"), d)
}

// Resolved maps each parameter name to its final value as JSON-able data
// for the manifest.
func (ps *ParamSet) Resolved() map[string]any {
	out := make(map[string]any, len(ps.Params))
	for _, p := range ps.Params {
		out[p.Name] = toJSONValue(p.Value)
	}
	return out
}
