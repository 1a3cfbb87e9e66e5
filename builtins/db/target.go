package db

import (
	"fmt"
	"regexp"
	"strings"
)

// Target kinds: a server reached by DSN, the in-process embedded server, or
// a throwaway server started for the run.
const (
	TargetDSN      = "dsn"
	TargetEmbedded = "embedded"
	TargetSandbox  = "sandbox"
)

// SandboxEngines lists the engines --target sandbox:ENGINE can start.
var SandboxEngines = []string{"mariadb"}

// Target is a parsed --target value.
type Target struct {
	Kind   string
	DSN    string // for TargetDSN
	Engine string // for TargetSandbox
}

// ParseTarget reads a target spec: "embedded", "sandbox:mariadb" or a DSN.
func ParseTarget(spec string) (Target, error) {
	spec = strings.TrimSpace(spec)
	switch {
	case spec == "" || spec == TargetEmbedded:
		return Target{Kind: TargetEmbedded}, nil
	case strings.HasPrefix(spec, "sandbox:"):
		engine := strings.TrimPrefix(spec, "sandbox:")
		for _, e := range SandboxEngines {
			if engine == e {
				return Target{Kind: TargetSandbox, Engine: engine}, nil
			}
		}
		return Target{}, fmt.Errorf("unknown sandbox engine %q (available: %s)", engine, strings.Join(SandboxEngines, ", "))
	}
	if _, err := ParseDSN(spec); err != nil {
		return Target{}, err
	}
	return Target{Kind: TargetDSN, DSN: spec}, nil
}

var targetName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)

// SplitNamedTarget splits "name=SPEC" as given to --target. A value whose
// part before "=" is not a plain name (a DSN's "?param=value") has no name.
func SplitNamedTarget(value string) (name, spec string) {
	if before, after, ok := strings.Cut(value, "="); ok && targetName.MatchString(before) {
		return before, after
	}
	return "", value
}
