package runner

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"go.starlark.net/starlark"
)

// Duration is a time span given to a builtin either as a string with a unit
// ("300s", "5m", "1h30m") or as a number of seconds (300, 0.5). It implements
// starlark.Unpacker so builtins can take it through starlark.UnpackArgs.
type Duration struct {
	time.Duration
}

// Unpack implements starlark.Unpacker.
func (d *Duration) Unpack(v starlark.Value) error {
	parsed, err := DurationOf(v)
	if err != nil {
		return err
	}
	d.Duration = parsed
	return nil
}

// DurationOf converts a Starlark string or number of seconds to a duration.
func DurationOf(v starlark.Value) (time.Duration, error) {
	switch v := v.(type) {
	case starlark.String:
		return ParseDuration(string(v))
	case starlark.Int:
		secs, ok := v.Int64()
		if !ok || secs < 0 || secs > math.MaxInt64/int64(time.Second) {
			return 0, fmt.Errorf("duration %v seconds is out of range", v)
		}
		return time.Duration(secs) * time.Second, nil
	case starlark.Float:
		// float64(math.MaxInt64) is 2^63: a product that reaches it would
		// wrap around to a negative duration.
		ns := float64(v) * float64(time.Second)
		if v < 0 || math.IsNaN(float64(v)) || ns >= float64(math.MaxInt64) {
			return 0, fmt.Errorf("duration %v seconds is out of range", v)
		}
		return time.Duration(ns), nil
	}
	return 0, fmt.Errorf("want a duration (a string like \"300s\" or a number of seconds), got %s", v.Type())
}

// ParseDuration accepts Go duration syntax ("300s", "1h30m") and a bare
// number, which counts seconds. Negative durations are rejected.
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if secs, err := strconv.ParseFloat(s, 64); err == nil {
		return DurationOf(starlark.Float(secs))
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q: want a number of seconds or a value with a unit such as 300s, 5m, 1h30m", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("invalid duration %q: negative", s)
	}
	return d, nil
}

// looksLikeDuration reports whether a string literal is clearly meant as a
// duration: it parses as one and carries a unit.
func looksLikeDuration(s string) bool {
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return false
	}
	_, err := ParseDuration(s)
	return err == nil
}

// StringList is a Starlark list of strings, for builtins that return names.
func StringList(ss []string) *starlark.List {
	vals := make([]starlark.Value, len(ss))
	for i, s := range ss {
		vals[i] = starlark.String(s)
	}
	return starlark.NewList(vals)
}

// StringsOf reads a list or tuple of strings, or one string, as Go
// strings; None (or nil) is none.
func StringsOf(v starlark.Value) ([]string, error) {
	if v == nil || v == starlark.None {
		return nil, nil
	}
	if s, ok := starlark.AsString(v); ok {
		return []string{s}, nil
	}
	iterable, ok := v.(starlark.Iterable)
	if !ok {
		return nil, fmt.Errorf("want a string or a list of strings, got %s", v.Type())
	}
	var out []string
	iter := iterable.Iterate()
	defer iter.Done()
	var e starlark.Value
	for iter.Next(&e) {
		s, ok := starlark.AsString(e)
		if !ok {
			return nil, fmt.Errorf("want strings, got a %s", e.Type())
		}
		out = append(out, s)
	}
	return out, nil
}
