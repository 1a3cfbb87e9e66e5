package targets

import (
	"fmt"
	"sort"
	"strings"

	"github.com/starbench/starbench/builtins/db"
)

// Target kinds: a server reached by DSN, the in-process embedded server, or
// a throwaway server started for the run.
const (
	KindDSN      = "dsn"
	KindEmbedded = "embedded"
	KindSandbox  = "sandbox"
	// KindNotGiven is a named target a dry run was not given: a placeholder
	// in its step list (check and --dry-run need no server), never opened.
	KindNotGiven = "not-given"
)

// SandboxEngines lists the engines sandbox:ENGINE can start.
var SandboxEngines = []string{"mariadb", "tidb"}

// Target is a parsed target spec.
type Target struct {
	Kind   string
	DSN    string // for KindDSN
	Engine string // for KindSandbox
}

// Parse reads a target spec: "embedded" (or ""), "sandbox:ENGINE" or a
// DSN in either form.
func Parse(spec string) (Target, error) {
	spec = strings.TrimSpace(spec)
	switch {
	case spec == "" || spec == KindEmbedded:
		return Target{Kind: KindEmbedded}, nil
	case strings.HasPrefix(spec, "sandbox:"):
		engine := strings.TrimPrefix(spec, "sandbox:")
		for _, e := range SandboxEngines {
			if engine == e {
				return Target{Kind: KindSandbox, Engine: engine}, nil
			}
		}
		return Target{}, fmt.Errorf("unknown sandbox engine %q (available: %s)", engine, strings.Join(SandboxEngines, ", "))
	}
	if _, err := db.ParseDSN(spec); err != nil {
		return Target{}, err
	}
	return Target{Kind: KindDSN, DSN: spec}, nil
}

// Given is the targets of a run, by name (--target NAME=SPEC, or the
// default one): runner.RunInfo is one.
type Given interface {
	Target(name string) (string, bool)
	TargetNames() []string // sorted
}

// DefaultName is the name of the target given without one.
const DefaultName = "default"

// Resolved is what a plan's target argument names.
type Resolved struct {
	Name    string // target name, "" for a spec written in the plan
	Spec    string
	Target  Target
	Literal bool // written in the plan, not given on the command line
}

// Key identifies the target in the manifest and among the servers a run
// started: its name, or for a DSN written in the plan its endpoint.
func (r Resolved) Key() string {
	if r.Name != "" {
		return r.Name
	}
	if r.Target.Kind == KindDSN {
		if cfg, err := db.ParseDSN(r.Spec); err == nil {
			return db.Endpoint(cfg)
		}
	}
	return r.Spec
}

// Resolve says which target a plan means. With arg nil it is the default
// target: the one named "default", else the only one given, else the
// embedded server. Otherwise arg is a target's name, or a spec written in
// the plan (a DSN, "embedded", "sandbox:ENGINE"); a plain name that no
// --target gave is an error saying how to give it.
func Resolve(given Given, arg *string) (Resolved, error) {
	return resolve(given, arg, false)
}

// ResolveDry is Resolve for a dry run: a plain name that no --target gave
// is a placeholder of KindNotGiven (shown as "NAME (not given)"), so that
// a plan checks without its servers.
func ResolveDry(given Given, arg *string) (Resolved, error) {
	return resolve(given, arg, true)
}

func resolve(given Given, arg *string, dry bool) (Resolved, error) {
	var r Resolved
	names := given.TargetNames()
	switch {
	case arg == nil:
		switch {
		case contains(names, DefaultName):
			r.Name = DefaultName
		case len(names) == 1:
			r.Name = names[0]
		case len(names) > 1:
			return r, fmt.Errorf("several targets were given (%s); name one, e.g. db.connect(%q)", strings.Join(names, ", "), names[0])
		default:
			r.Name, r.Spec = DefaultName, KindEmbedded
		}
		if r.Spec == "" {
			r.Spec, _ = given.Target(r.Name)
		}
	default:
		s := *arg
		if spec, ok := given.Target(s); ok {
			r.Name, r.Spec = s, spec
		} else if name, _ := db.SplitNamedTarget(s + "="); name != "" && s != KindEmbedded {
			if dry {
				return Resolved{Name: s, Spec: s + " (not given)", Target: Target{Kind: KindNotGiven}}, nil
			}
			if len(names) == 0 {
				return r, fmt.Errorf("no target named %q: give it on the command line with --target %s=DSN", s, s)
			}
			return r, fmt.Errorf("no target named %q (given: %s); add --target %s=DSN", s, strings.Join(names, ", "), s)
		} else {
			r.Spec, r.Literal = s, true
		}
	}
	t, err := Parse(r.Spec)
	if err != nil {
		return r, err
	}
	r.Target = t
	return r, nil
}

func contains(sorted []string, s string) bool {
	i := sort.SearchStrings(sorted, s)
	return i < len(sorted) && sorted[i] == s
}
