package familystar

import (
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"go.starlark.net/starlark"

	"github.com/starbench/starbench/builtins/family"
)

// Flags are a family's options as a command line's flags (report_interval
// as --report-interval), so that a family's command takes what its plan
// builtins take, with the same defaults and help, and hands the flags a
// command line set to the builtin as its keywords.
type Flags struct {
	fs    *pflag.FlagSet
	opts  map[string]family.Option
	value map[string]any // pointers the flags write to, by option name
}

// FlagName is an option's flag: its name with dashes.
func FlagName(option string) string { return strings.ReplaceAll(option, "_", "-") }

// BindFlags binds a flag to fs for each option of the commands' (an
// option that several commands share once), leaving out those named in
// skip, the positional ones (a command's arguments) and the family
// values (a declared mix) a flag cannot give. A
// flag's help says which commands take it when not all of them do.
func BindFlags(fs *pflag.FlagSet, commands map[string][]family.Option, skip ...string) *Flags {
	f := &Flags{fs: fs, opts: map[string]family.Option{}, value: map[string]any{}}
	takers := map[string][]string{}
	var order []string
	var names []string
	for c := range commands {
		names = append(names, c)
	}
	sort.Strings(names)
	for _, c := range names {
		for _, o := range commands[c] {
			if o.Kind == family.Value || o.Positional || slices.Contains(skip, o.Name) {
				continue
			}
			if _, seen := f.opts[o.Name]; !seen {
				f.opts[o.Name] = o
				order = append(order, o.Name)
			}
			takers[o.Name] = append(takers[o.Name], c)
		}
	}
	for _, name := range order {
		o := f.opts[name]
		help := o.Help
		if len(takers[name]) < len(commands) {
			help = strings.Join(takers[name], ", ") + ": " + help
		}
		f.bind(o, help)
	}
	return f
}

func (f *Flags) bind(o family.Option, help string) {
	flag := FlagName(o.Name)
	switch o.Kind {
	case family.Int:
		d, _ := o.Default.(int64)
		f.value[o.Name] = f.fs.Int64(flag, d, help)
	case family.Float:
		d, _ := o.Default.(float64)
		f.value[o.Name] = f.fs.Float64(flag, d, help)
	case family.String:
		d, _ := o.Default.(string)
		f.value[o.Name] = f.fs.String(flag, d, help)
	case family.Bool:
		d, _ := o.Default.(bool)
		f.value[o.Name] = f.fs.Bool(flag, d, help)
	case family.Duration:
		d, _ := o.Default.(time.Duration)
		f.value[o.Name] = f.fs.Duration(flag, d, help)
	case family.Codes, family.Ints:
		f.value[o.Name] = f.fs.Int64Slice(flag, nil, help)
	case family.Tags:
		f.value[o.Name] = f.fs.StringToString(flag, nil, help)
	}
}

// Value is an option's value on the command line: the flag's, or its
// default.
func (f *Flags) Value(name string) any {
	switch p := f.value[name].(type) {
	case *int64:
		return *p
	case *float64:
		return *p
	case *string:
		return *p
	case *bool:
		return *p
	case *time.Duration:
		return *p
	case *[]int64:
		return *p
	case *map[string]string:
		return *p
	}
	return nil
}

// Int is an Int option's value on the command line.
func (f *Flags) Int(name string) int64 { n, _ := f.Value(name).(int64); return n }

// Duration is a Duration option's value on the command line.
func (f *Flags) Duration(name string) time.Duration { d, _ := f.Value(name).(time.Duration); return d }

// String is a String option's value on the command line.
func (f *Flags) String(name string) string { s, _ := f.Value(name).(string); return s }

// Float is a Float option's value on the command line.
func (f *Flags) Float(name string) float64 { x, _ := f.Value(name).(float64); return x }

// Kwargs are the keyword arguments of opts' options whose flags the
// command line set, in opts' order, plus set (keywords the command adds,
// which take precedence).
func (f *Flags) Kwargs(opts []family.Option, set map[string]starlark.Value) []starlark.Tuple {
	var out []starlark.Tuple
	for _, o := range opts {
		if _, ok := set[o.Name]; ok {
			continue
		}
		if _, bound := f.opts[o.Name]; !bound || !f.fs.Changed(FlagName(o.Name)) {
			continue
		}
		out = append(out, starlark.Tuple{starlark.String(o.Name), starlarkOf(f.Value(o.Name))})
	}
	for _, o := range opts {
		if v, ok := set[o.Name]; ok {
			out = append(out, starlark.Tuple{starlark.String(o.Name), v})
		}
	}
	return out
}
