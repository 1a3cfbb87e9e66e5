// Package yamlstar is the predeclared `yaml` module: YAML text from
// Starlark values (dict order kept, for configs such as tiup topologies)
// and back, over go.yaml.in/yaml/v3.
package yamlstar

import (
	"fmt"
	"math"
	"math/big"
	"strconv"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
	"go.yaml.in/yaml/v3"

	"github.com/starbench/starbench/runner"
)

// Module is the predeclared `yaml` module.
var Module = &starlarkstruct.Module{
	Name: "yaml",
	Members: starlark.StringDict{
		"encode": starlark.NewBuiltin("yaml.encode", encode),
		"decode": starlark.NewBuiltin("yaml.decode", decode),
	},
}

// Doc documents the module for `starbench doc`.
var Doc = runner.ModuleDoc{
	Name:    "yaml",
	Summary: "YAML for configuration files (tiup topologies, server configs).",
	Funcs: []runner.FuncDoc{
		{Name: "yaml.encode", Signature: "yaml.encode(value)",
			Doc: "Returns YAML text for dicts, lists, strings, numbers, bools, None and structs; dict keys keep their order."},
		{Name: "yaml.decode", Signature: "yaml.decode(text)", Doc: "Parses YAML text into dicts, lists and scalars."},
	},
}

func encode(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var v starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "value", &v); err != nil {
		return nil, err
	}
	node, err := toNode(v, "value")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	out, err := yaml.Marshal(node)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return starlark.String(out), nil
}

// Encode is yaml.encode for Go callers.
func Encode(v starlark.Value) (string, error) {
	node, err := toNode(v, "value")
	if err != nil {
		return "", err
	}
	out, err := yaml.Marshal(node)
	return string(out), err
}

func scalar(tag, value string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: value}
}

func toNode(v starlark.Value, path string) (*yaml.Node, error) {
	switch v := v.(type) {
	case starlark.NoneType:
		return scalar("!!null", "null"), nil
	case starlark.Bool:
		return scalar("!!bool", strconv.FormatBool(bool(v))), nil
	case starlark.Int:
		return scalar("!!int", v.String()), nil
	case starlark.Float:
		switch f := float64(v); {
		case math.IsInf(f, 1):
			return scalar("!!float", ".inf"), nil // YAML's spelling; Go's "+Inf" does not read back
		case math.IsInf(f, -1):
			return scalar("!!float", "-.inf"), nil
		case math.IsNaN(f):
			return scalar("!!float", ".nan"), nil
		}
		return scalar("!!float", strconv.FormatFloat(float64(v), 'g', -1, 64)), nil
	case starlark.String:
		return scalar("!!str", string(v)), nil
	case *starlark.List, starlark.Tuple:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		iter := starlark.Iterate(v)
		defer iter.Done()
		var e starlark.Value
		for i := 0; iter.Next(&e); i++ {
			c, err := toNode(e, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, c)
		}
		return n, nil
	case *starlark.Dict:
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		for _, kv := range v.Items() {
			k, ok := starlark.AsString(kv[0])
			if !ok {
				k = kv[0].String()
			}
			c, err := toNode(kv[1], path+"."+k)
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, scalar("!!str", k), c)
		}
		return n, nil
	case *starlarkstruct.Struct:
		d := starlark.NewDict(0)
		for _, name := range v.AttrNames() {
			a, _ := v.Attr(name)
			_ = d.SetKey(starlark.String(name), a)
		}
		return toNode(d, path)
	}
	return nil, fmt.Errorf("%s: cannot write a %s as YAML", path, v.Type())
}

func decode(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var text string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "text", &text); err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	if len(doc.Content) == 0 {
		return starlark.None, nil
	}
	v, err := (&decoder{expanding: map[*yaml.Node]bool{}}).fromNode(doc.Content[0])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return v, nil
}

// maxAliasValues bounds the values that aliases may expand to: a few
// nested anchors can otherwise stand for billions ("billion laughs").
const maxAliasValues = 1 << 20

// decoder turns YAML nodes into Starlark values, expanding aliases.
type decoder struct {
	expanding map[*yaml.Node]bool // anchored nodes being expanded for an alias
	depth     int                 // aliases being expanded
	expanded  int                 // values built inside alias expansions
}

func (dec *decoder) fromNode(n *yaml.Node) (starlark.Value, error) {
	if dec.depth > 0 {
		if dec.expanded++; dec.expanded > maxAliasValues {
			return nil, fmt.Errorf("aliases expand to more than %d values", maxAliasValues)
		}
	}
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias == nil || dec.expanding[n.Alias] {
			return nil, fmt.Errorf("line %d: alias *%s refers to itself", n.Line, n.Value)
		}
		dec.expanding[n.Alias] = true
		dec.depth++
		v, err := dec.fromNode(n.Alias)
		dec.depth--
		delete(dec.expanding, n.Alias)
		return v, err
	case yaml.SequenceNode:
		var vals []starlark.Value
		for _, c := range n.Content {
			v, err := dec.fromNode(c)
			if err != nil {
				return nil, err
			}
			vals = append(vals, v)
		}
		return starlark.NewList(vals), nil
	case yaml.MappingNode:
		d := starlark.NewDict(len(n.Content) / 2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, err := dec.fromNode(n.Content[i])
			if err != nil {
				return nil, err
			}
			v, err := dec.fromNode(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			// YAML forbids a key twice in one mapping; taking the last
			// would lose a setting of a topology without a word.
			if _, found, _ := d.Get(k); found {
				return nil, fmt.Errorf("line %d: the key %s appears twice in one mapping", n.Content[i].Line, k)
			}
			if err := d.SetKey(k, v); err != nil {
				return nil, err
			}
		}
		return d, nil
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return starlark.None, nil
		case "!!bool":
			var b bool
			err := n.Decode(&b)
			return starlark.Bool(b), err
		case "!!int":
			i, ok := new(big.Int).SetString(n.Value, 0)
			if !ok {
				return starlark.String(n.Value), nil
			}
			return starlark.MakeBigInt(i), nil
		case "!!float":
			var f float64
			err := n.Decode(&f)
			return starlark.Float(f), err
		}
		return starlark.String(n.Value), nil
	}
	return nil, fmt.Errorf("unsupported YAML node kind %v", n.Kind)
}
