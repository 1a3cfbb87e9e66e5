// Package regex stands in for github.com/dolthub/go-icu-regex inside
// starbench (see the replace directive in starbench's go.mod).
//
// go-mysql-server, starbench's embedded server, runs MySQL's REGEXP
// functions on ICU compiled to WebAssembly, and that package compiles the
// module when the program starts: about half a second of CPU and wall time
// on every starbench command, including the ones that never start the
// embedded server, and a sizeable share of a short benchmark's client CPU.
// This package offers the same API on Go's regexp (RE2) instead. The
// embedded server is for the quickstart and quick tests, so the differences
// (RE2 has no back-references or look-around; positions count runes) do not
// matter there; real MySQL and TiDB servers are unaffected.
package regex

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"
	"unicode/utf8"
)

// Regex is a compiled pattern and the text it is matched against, the
// interface go-mysql-server uses. Positions and occurrences start at 1.
type Regex interface {
	// SetRegexString compiles the pattern; it must come first.
	SetRegexString(ctx context.Context, regexStr string, flags RegexFlags) error
	// SetMatchString sets the text that later calls search.
	SetMatchString(ctx context.Context, matchStr string) error
	// IndexOf returns the position of the occurrence-th match at or after
	// start (of its end when endIndex), or 0 when there is none.
	IndexOf(ctx context.Context, start int, occurrence int, endIndex bool) (int, error)
	// Matches reports whether the pattern matches at or after start.
	Matches(ctx context.Context, start int, occurrence int) (bool, error)
	// Replace replaces the occurrence-th match at or after position (every
	// match there when occurrence is 0) with replacementStr, in which $1
	// and ${name} refer to groups.
	Replace(ctx context.Context, replacementStr string, position int, occurrence int) (string, error)
	// Substring returns the occurrence-th match at or after start.
	Substring(ctx context.Context, start int, occurrence int) (string, bool, error)
	// StringBufferSize returns the buffer size given to CreateRegex.
	StringBufferSize() uint32
	// Close releases the Regex.
	Close() error
}

var (
	// ErrRegexNotYetSet is returned when a Regex is used before its pattern is set.
	ErrRegexNotYetSet = errors.New("SetRegexString must be called before any other function")
	// ErrMatchNotYetSet is returned when a Regex is used before its text is set.
	ErrMatchNotYetSet = errors.New("SetMatchString must be called as there is nothing to match against")
	// ErrInvalidRegex is returned for a pattern that does not compile.
	ErrInvalidRegex = errors.New("the given regular expression is invalid")
)

// ShouldPanic is kept for API compatibility; nothing here leaks.
var ShouldPanic = true

var leakHandler atomic.Value

// SetRegexLeakHandler is kept for API compatibility: a Regex here holds no
// resources outside the Go heap, so the handler is never called.
func SetRegexLeakHandler(handler func()) { leakHandler.Store(handler) }

// RegexFlags change how a pattern matches; combine them with |. The values
// are ICU's, as go-mysql-server passes them.
type RegexFlags uint32

// The flags go-mysql-server sets (from MySQL's match_type letters i, m, n,
// u) and the rest of ICU's, which are accepted and ignored.
const (
	RegexFlags_None                     RegexFlags = 0
	RegexFlags_Unix_Lines               RegexFlags = 1
	RegexFlags_Case_Insensitive         RegexFlags = 2
	RegexFlags_Comments                 RegexFlags = 4
	RegexFlags_Multiline                RegexFlags = 8
	RegexFlags_Literal                  RegexFlags = 16
	RegexFlags_Dot_All                  RegexFlags = 32
	RegexFlags_Unicode_Word             RegexFlags = 256
	RegexFlags_Error_On_Unknown_Escapes RegexFlags = 512
)

// CreateRegex returns an empty Regex.
func CreateRegex(stringBufferInBytes uint32) Regex {
	return &goRegex{bufferSize: stringBufferInBytes}
}

type goRegex struct {
	re         *regexp.Regexp
	text       string
	textSet    bool
	bufferSize uint32
}

func (r *goRegex) SetRegexString(_ context.Context, pattern string, flags RegexFlags) error {
	if flags&RegexFlags_Literal != 0 {
		pattern = regexp.QuoteMeta(pattern)
	}
	var prefix strings.Builder
	for _, f := range []struct {
		flag   RegexFlags
		letter string
	}{{RegexFlags_Case_Insensitive, "i"}, {RegexFlags_Multiline, "m"}, {RegexFlags_Dot_All, "s"}} {
		if flags&f.flag != 0 {
			prefix.WriteString(f.letter)
		}
	}
	if prefix.Len() > 0 {
		pattern = "(?" + prefix.String() + ")" + pattern
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidRegex, err)
	}
	r.re, r.textSet = re, false
	return nil
}

func (r *goRegex) SetMatchString(_ context.Context, text string) error {
	if r.re == nil {
		return ErrRegexNotYetSet
	}
	r.text, r.textSet = text, true
	return nil
}

// matches returns the byte offset where searching starts (from a 1-based
// rune position) and the byte ranges of the matches from there.
func (r *goRegex) matches(start int) (int, [][]int, error) {
	if r.re == nil {
		return 0, nil, ErrRegexNotYetSet
	}
	if !r.textSet {
		return 0, nil, ErrMatchNotYetSet
	}
	from := byteOffset(r.text, start)
	found := r.re.FindAllStringSubmatchIndex(r.text[from:], -1)
	for _, m := range found {
		for i := range m {
			if m[i] >= 0 {
				m[i] += from
			}
		}
	}
	return from, found, nil
}

// nth picks the occurrence-th match (the first for occurrence < 1).
func nth(found [][]int, occurrence int) []int {
	occurrence = max(occurrence, 1)
	if occurrence > len(found) {
		return nil
	}
	return found[occurrence-1]
}

func (r *goRegex) IndexOf(_ context.Context, start, occurrence int, endIndex bool) (int, error) {
	_, found, err := r.matches(start)
	m := nth(found, occurrence)
	if err != nil || m == nil {
		return 0, err
	}
	at := m[0]
	if endIndex {
		at = m[1]
	}
	return utf8.RuneCountInString(r.text[:at]) + 1, nil
}

func (r *goRegex) Matches(_ context.Context, start, occurrence int) (bool, error) {
	_, found, err := r.matches(start)
	return err == nil && nth(found, occurrence) != nil, err
}

func (r *goRegex) Replace(_ context.Context, repl string, position, occurrence int) (string, error) {
	from, found, err := r.matches(position)
	if err != nil {
		return "", err
	}
	var out []byte
	out = append(out, r.text[:from]...)
	last := from
	for i, m := range found {
		if occurrence > 0 && i+1 != occurrence {
			continue
		}
		out = append(out, r.text[last:m[0]]...)
		out = r.re.ExpandString(out, repl, r.text, m)
		last = m[1]
	}
	out = append(out, r.text[last:]...)
	return string(out), nil
}

func (r *goRegex) Substring(_ context.Context, start, occurrence int) (string, bool, error) {
	_, found, err := r.matches(start)
	m := nth(found, occurrence)
	if err != nil || m == nil {
		return "", false, err
	}
	return r.text[m[0]:m[1]], true, nil
}

func (r *goRegex) StringBufferSize() uint32 { return r.bufferSize }

func (r *goRegex) Close() error {
	r.re, r.text, r.textSet = nil, "", false
	return nil
}

// byteOffset converts a 1-based rune position to a byte offset in s
// (positions before the start count as 1, past the end as the end).
func byteOffset(s string, position int) int {
	if position <= 1 {
		return 0
	}
	runes := 0
	for i := range s {
		if runes == position-1 {
			return i
		}
		runes++
	}
	return len(s)
}
