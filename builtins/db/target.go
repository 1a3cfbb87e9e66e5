package db

import (
	"regexp"
	"strings"
)

var targetName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)

// SplitNamedTarget splits "name=SPEC" as given to --target (the text of a
// target value; package targets parses and opens the spec). A value whose
// part before "=" is not a plain name (a DSN's "?param=value") has no name.
func SplitNamedTarget(value string) (name, spec string) {
	if before, after, ok := strings.Cut(value, "="); ok && targetName.MatchString(before) {
		return before, after
	}
	return "", value
}
