// Package redact keeps secrets (passwords from --target, the environment,
// a sandbox or a plan) out of everything starbench prints or stores,
// without garbling the names around them.
//
// A secret is masked ("***") wherever it stands as a value of its own: at
// the start or end of the text or beside punctuation, as it stands in
// DSNs (user:SECRET@tcp), URLs, option values (--password=SECRET),
// environment assignments (MYSQL_PWD=SECRET), JSON strings and quoted SQL
// (IDENTIFIED BY 'SECRET'), and glued to the short option -p (-pSECRET).
// It is left alone where it is only part of a longer name: run on with
// letters, digits, _ or $, or joined by . or - to one (the password sbtest
// leaves sbtest1, sbtest_user and other_db.sbtest1 readable). A secret is
// also looked for in its JSON-escaped and URL-escaped forms.
package redact

import (
	"encoding/json"
	"net/url"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Mark replaces a secret.
const Mark = "***"

// Set is the secrets of a run; safe for concurrent use.
type Set struct {
	mu    sync.RWMutex
	forms []string // every form of every secret, longest first
}

// New returns a set holding the given secrets ("" is ignored).
func New(secrets ...string) *Set {
	s := &Set{}
	for _, secret := range secrets {
		s.Add(secret)
	}
	return s
}

// Add registers a secret, with its escaped forms.
func (s *Set) Add(secret string) {
	if secret == "" {
		return
	}
	userinfo := strings.TrimPrefix(url.UserPassword("", secret).String(), ":")
	forms := []string{secret, url.QueryEscape(secret), url.PathEscape(secret), userinfo}
	if quoted, err := json.Marshal(secret); err == nil {
		forms = append(forms, string(quoted[1:len(quoted)-1]))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range forms {
		if !contains(s.forms, f) {
			s.forms = append(s.forms, f)
		}
	}
	// Longest first, so a secret that contains another is masked whole.
	sort.SliceStable(s.forms, func(i, j int) bool { return len(s.forms[i]) > len(s.forms[j]) })
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// Redact returns text with every secret masked (see the package comment).
func (s *Set) Redact(text string) string {
	if s == nil {
		return text
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, f := range s.forms {
		text = mask(text, f)
	}
	return text
}

// mask replaces the occurrences of secret in text that stand alone.
func mask(text, secret string) string {
	var b strings.Builder
	copied, from := 0, 0
	for {
		i := strings.Index(text[from:], secret)
		if i < 0 {
			break
		}
		i += from
		j := i + len(secret)
		if !partOfName(text, i, j, secret) || afterShortOption(text, i) {
			b.WriteString(text[copied:i])
			b.WriteString(Mark)
			copied, from = j, j
			continue
		}
		from = i + 1
	}
	if copied == 0 {
		return text
	}
	b.WriteString(text[copied:])
	return b.String()
}

// partOfName reports whether the occurrence text[i:j] of secret runs on
// into a longer name on either side.
func partOfName(text string, i, j int, secret string) bool {
	first, _ := utf8.DecodeRuneInString(secret)
	last, _ := utf8.DecodeLastRuneInString(secret)
	return (isNameRune(first) && nameBefore(text[:i])) || (isNameRune(last) && nameAfter(text[j:]))
}

func isNameRune(r rune) bool {
	return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// nameBefore reports whether before ends in a name character, or in . or -
// joined to one (other_db.SECRET).
func nameBefore(before string) bool {
	r, size := utf8.DecodeLastRuneInString(before)
	if isNameRune(r) {
		return true
	}
	if r == '.' || r == '-' {
		r2, _ := utf8.DecodeLastRuneInString(before[:len(before)-size])
		return isNameRune(r2)
	}
	return false
}

// nameAfter is nameBefore's mirror (SECRET1, SECRET.table).
func nameAfter(after string) bool {
	r, size := utf8.DecodeRuneInString(after)
	if isNameRune(r) {
		return true
	}
	if r == '.' || r == '-' {
		r2, _ := utf8.DecodeRuneInString(after[size:])
		return isNameRune(r2)
	}
	return false
}

// afterShortOption reports whether text[i:] follows a short -p option, as
// in "mysql -uroot -pSECRET".
func afterShortOption(text string, i int) bool {
	if !strings.HasSuffix(text[:i], "-p") {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(text[:i-2])
	return i == 2 || !isNameRune(r) && r != '-'
}
