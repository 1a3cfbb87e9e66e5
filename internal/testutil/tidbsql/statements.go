package tidbsql

import (
	"fmt"
	"strconv"
	"strings"
)

// The TiDB statements the engine cannot parse are recognized here, with a
// small lexer that knows MySQL's quoting and comments, so case, spacing,
// backquotes and comments do not matter.

type tokKind int

const (
	tkWord   tokKind = iota // bare identifier or keyword
	tkQuoted                // `identifier`
	tkString                // 'string' or "string"
	tkNumber
	tkPunct
)

type token struct {
	kind     tokKind
	text     string // value: unquoted, unescaped
	pos, end int    // byte range in the source
}

func lex(src string) ([]token, error) {
	var toks []token
	i := 0
	for i < len(src) {
		ch := src[i]
		switch {
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f':
			i++
		case ch == '#' || (ch == '-' && strings.HasPrefix(src[i:], "--") && (i+2 == len(src) || strings.ContainsRune(" \t\n\r", rune(src[i+2])))):
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case ch == '/' && strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return nil, fmt.Errorf("unterminated comment")
			}
			i += end + 4
		case ch == '`':
			var b strings.Builder
			j := i + 1
			for {
				if j >= len(src) {
					return nil, fmt.Errorf("unterminated quoted identifier")
				}
				if src[j] == '`' {
					if j+1 < len(src) && src[j+1] == '`' {
						b.WriteByte('`')
						j += 2
						continue
					}
					break
				}
				b.WriteByte(src[j])
				j++
			}
			toks = append(toks, token{kind: tkQuoted, text: b.String(), pos: i, end: j + 1})
			i = j + 1
		case ch == '\'' || ch == '"':
			var b strings.Builder
			j := i + 1
			for {
				if j >= len(src) {
					return nil, fmt.Errorf("unterminated string")
				}
				c := src[j]
				if c == '\\' && j+1 < len(src) {
					b.WriteByte(unescape(src[j+1]))
					j += 2
					continue
				}
				if c == ch {
					if j+1 < len(src) && src[j+1] == ch {
						b.WriteByte(ch)
						j += 2
						continue
					}
					break
				}
				b.WriteByte(c)
				j++
			}
			toks = append(toks, token{kind: tkString, text: b.String(), pos: i, end: j + 1})
			i = j + 1
		case isWordByte(ch):
			j := i
			for j < len(src) && (isWordByte(src[j]) || src[j] == '.' && allDigits(src[i:j]) && j+1 < len(src) && isDigit(src[j+1])) {
				j++
			}
			kind := tkWord
			if allDigits(strings.ReplaceAll(src[i:j], ".", "")) {
				kind = tkNumber
			}
			toks = append(toks, token{kind: kind, text: src[i:j], pos: i, end: j})
			i = j
		default:
			toks = append(toks, token{kind: tkPunct, text: string(ch), pos: i, end: i + 1})
			i++
		}
	}
	return toks, nil
}

func unescape(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 't':
		return '\t'
	case 'r':
		return '\r'
	case '0':
		return 0
	}
	return c
}

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || isDigit(c) || c >= 0x80
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// splitFirst cuts a multi-statement query after its first statement.
func splitFirst(src string) (first, rest string) {
	toks, err := lex(src)
	if err != nil {
		return src, ""
	}
	for _, t := range toks {
		if t.kind == tkPunct && t.text == ";" {
			return src[:t.pos], strings.TrimSpace(src[t.end:])
		}
	}
	return src, ""
}

type parser struct {
	src  string
	toks []token
	i    int
}

func (p *parser) peek(n int) *token {
	if p.i+n < len(p.toks) {
		return &p.toks[p.i+n]
	}
	return nil
}

// kw consumes the keywords words if they come next.
func (p *parser) kw(words ...string) bool {
	for n, w := range words {
		t := p.peek(n)
		if t == nil || t.kind != tkWord || !strings.EqualFold(t.text, w) {
			return false
		}
	}
	p.i += len(words)
	return true
}

func (p *parser) punct(s string) bool {
	if t := p.peek(0); t != nil && t.kind == tkPunct && t.text == s {
		p.i++
		return true
	}
	return false
}

// done reports whether only semicolons remain.
func (p *parser) done() bool {
	for _, t := range p.toks[p.i:] {
		if t.kind != tkPunct || t.text != ";" {
			return false
		}
	}
	return true
}

func (p *parser) ident() (string, bool) {
	t := p.peek(0)
	if t == nil || (t.kind != tkWord && t.kind != tkQuoted) {
		return "", false
	}
	p.i++
	return t.text, true
}

func (p *parser) tableName() (tableRef, bool) {
	a, ok := p.ident()
	if !ok {
		return tableRef{}, false
	}
	if p.punct(".") {
		b, ok := p.ident()
		if !ok {
			return tableRef{}, false
		}
		return tableRef{db: a, name: b}, true
	}
	return tableRef{name: a}, true
}

func (p *parser) tableList() ([]tableRef, bool) {
	var out []tableRef
	for {
		t, ok := p.tableName()
		if !ok {
			return nil, false
		}
		out = append(out, t)
		if !p.punct(",") {
			return out, true
		}
	}
}

// rest is the source text from the next token to the end, without trailing
// semicolons.
func (p *parser) rest() string {
	if p.i >= len(p.toks) {
		return ""
	}
	return strings.TrimRight(strings.TrimSpace(p.src[p.toks[p.i].pos:]), "; \t\n\r")
}

// value is an integer literal, optionally signed, or a string holding one.
func (p *parser) value() (int64, bool) {
	neg := false
	if p.punct("-") {
		neg = true
	} else {
		p.punct("+")
	}
	t := p.peek(0)
	if t == nil || (t.kind != tkNumber && t.kind != tkString) {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(t.text), 10, 64)
	if err != nil {
		return 0, false
	}
	p.i++
	if neg {
		n = -n
	}
	return n, true
}

// parenValue is "(value)".
func (p *parser) parenValue() (int64, bool) {
	if !p.punct("(") {
		return 0, false
	}
	v, ok := p.value()
	if !ok || !p.punct(")") {
		return 0, false
	}
	return v, true
}

type tableRef struct{ db, name string }

type varAssign struct {
	global      bool
	name, value string
}

func (t tableRef) String() string {
	if t.db == "" {
		return t.name
	}
	return t.db + "." + t.name
}

type (
	adminChecksum struct{ tables []tableRef }
	splitTable    struct {
		table        tableRef
		index        string
		lower, upper int64
		regions      int64
		by           []int64 // SPLIT TABLE t BY (v), ...
	}
	showConfig struct {
		like  *string
		where string
	}
	// setTiDBVars is SET [GLOBAL|SESSION] of TiDB's own variables
	// (tidb_*), which the engine does not know.
	setTiDBVars struct {
		assigns []varAssign
	}
	brie struct {
		restore bool
		all     bool
		dbs     []string
		tables  []tableRef
		storage string
	}
)

// syntaxError is TiDB's 1064 for a statement that starts like one of the
// TiDB statements but does not parse.
func syntaxError(src string) error {
	near := strings.TrimSpace(src)
	if len(near) > 80 {
		near = near[:80]
	}
	return sqlError(1064, "42000", "You have an error in your SQL syntax; check the manual that corresponds to your TiDB version for the right syntax to use near '%s'", near)
}

// firstWord is a statement's first keyword, upper-cased, found without
// lexing the rest (INSERTs can be megabytes long).
func firstWord(src string) string {
	i := 0
	for i < len(src) {
		switch {
		case strings.ContainsRune(" \t\n\r\f(", rune(src[i])):
			i++
		case strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return ""
			}
			i += end + 4
		case src[i] == '#' || strings.HasPrefix(src[i:], "-- "):
			for i < len(src) && src[i] != '\n' {
				i++
			}
		default:
			j := i
			for j < len(src) && isWordByte(src[j]) {
				j++
			}
			return strings.ToUpper(src[i:j])
		}
	}
	return ""
}

// tidbFirstWords start the statements parseTiDB may answer.
var tidbFirstWords = map[string]bool{"ADMIN": true, "SPLIT": true, "SHOW": true, "SET": true, "BACKUP": true, "RESTORE": true}

// parseTiDB recognizes the TiDB statements the stand-in answers itself. It
// returns nil, nil for anything else.
func parseTiDB(src string) (any, error) {
	if !tidbFirstWords[firstWord(src)] {
		return nil, nil
	}
	toks, err := lex(src)
	if err != nil || len(toks) == 0 {
		return nil, nil
	}
	p := &parser{src: src, toks: toks}
	switch {
	case p.kw("ADMIN", "CHECKSUM", "TABLE"):
		list, ok := p.tableList()
		if !ok || !p.done() {
			return nil, syntaxError(src)
		}
		return &adminChecksum{tables: list}, nil
	case p.kw("SPLIT"):
		return parseSplit(p)
	case p.kw("SHOW", "CONFIG"):
		st := &showConfig{}
		switch {
		case p.done():
		case p.kw("LIKE"):
			t := p.peek(0)
			if t == nil || t.kind != tkString {
				return nil, syntaxError(src)
			}
			p.i++
			s := t.text
			st.like = &s
			if !p.done() {
				return nil, syntaxError(src)
			}
		case p.kw("WHERE"):
			st.where = p.rest()
			if st.where == "" {
				return nil, syntaxError(src)
			}
		default:
			return nil, syntaxError(src)
		}
		return st, nil
	case p.kw("SET"):
		if st := parseSetTiDB(p); st != nil {
			return st, nil
		}
		return nil, nil
	case p.kw("BACKUP"):
		return parseBRIE(p, false)
	case p.kw("RESTORE"):
		return parseBRIE(p, true)
	}
	return nil, nil
}

func parseSplit(p *parser) (any, error) {
	p.kw("PARTITION")
	if !p.kw("TABLE") {
		return nil, sqlError(1105, "HY000", "the TiDB stand-in answers SPLIT TABLE only (not SPLIT REGION)")
	}
	t, ok := p.tableName()
	if !ok {
		return nil, syntaxError(p.src)
	}
	st := &splitTable{table: t}
	if p.kw("PARTITION") {
		return nil, sqlError(1105, "HY000", "the TiDB stand-in does not model partitions")
	}
	if p.kw("INDEX") {
		name, ok := p.ident()
		if !ok {
			return nil, syntaxError(p.src)
		}
		st.index = name
	}
	switch {
	case p.kw("BETWEEN"):
		lo, ok1 := p.parenValue()
		ok2 := p.kw("AND")
		hi, ok3 := p.parenValue()
		ok4 := p.kw("REGIONS")
		n, ok5 := p.value()
		if !(ok1 && ok2 && ok3 && ok4 && ok5) || !p.done() {
			return nil, syntaxError(p.src)
		}
		st.lower, st.upper, st.regions = lo, hi, n
	case p.kw("BY"):
		for {
			v, ok := p.parenValue()
			if !ok {
				return nil, syntaxError(p.src)
			}
			st.by = append(st.by, v)
			if !p.punct(",") {
				break
			}
		}
		if !p.done() {
			return nil, syntaxError(p.src)
		}
	default:
		return nil, syntaxError(p.src)
	}
	return st, nil
}

func parseBRIE(p *parser, restore bool) (any, error) {
	st := &brie{restore: restore}
	switch {
	case p.kw("DATABASE"), p.kw("SCHEMA"):
		if p.punct("*") {
			st.all = true
		} else {
			for {
				name, ok := p.ident()
				if !ok {
					return nil, syntaxError(p.src)
				}
				st.dbs = append(st.dbs, name)
				if !p.punct(",") {
					break
				}
			}
		}
	case p.kw("TABLE"):
		list, ok := p.tableList()
		if !ok {
			return nil, syntaxError(p.src)
		}
		st.tables = list
	default:
		return nil, syntaxError(p.src)
	}
	dir := "TO"
	if restore {
		dir = "FROM"
	}
	if !p.kw(dir) {
		return nil, syntaxError(p.src)
	}
	t := p.peek(0)
	if t == nil || t.kind != tkString {
		return nil, syntaxError(p.src)
	}
	p.i++
	st.storage = t.text
	// Options (RATE_LIMIT, CONCURRENCY, CHECKSUM, SNAPSHOT, ...) change
	// nothing in the model and are accepted as they come.
	return st, nil
}

// isTiDBVariable reports whether a variable is TiDB's own, which the
// engine does not know: tidb_*, and the few without the prefix that
// starbench sets (allow_auto_random_explicit_insert, which conn.snapshot
// sets to copy AUTO_RANDOM columns).
func isTiDBVariable(name string) bool {
	name = strings.ToLower(name)
	return strings.HasPrefix(name, "tidb_") || name == "allow_auto_random_explicit_insert"
}

// parseSetTiDB parses SET statements whose every assignment is to a TiDB
// variable: SET GLOBAL tidb_x = 1, SET @@global.tidb_x = ON, SET tidb_x =
// 'v', .... Anything else is left to the engine.
func parseSetTiDB(p *parser) *setTiDBVars {
	st := &setTiDBVars{}
	for {
		a := varAssign{}
		switch {
		case p.kw("GLOBAL"):
			a.global = true
		case p.kw("SESSION"), p.kw("LOCAL"):
		case p.punct("@"):
			if !p.punct("@") {
				return nil
			}
			if t := p.peek(1); t != nil && t.kind == tkPunct && t.text == "." {
				switch {
				case p.kw("GLOBAL"):
					a.global = true
				case p.kw("SESSION"), p.kw("LOCAL"):
				default:
					return nil
				}
				p.punct(".")
			}
		}
		name, ok := p.ident()
		if !ok || !isTiDBVariable(name) {
			return nil
		}
		a.name = strings.ToLower(name)
		if !p.punct("=") && !(p.punct(":") && p.punct("=")) {
			return nil
		}
		sign := ""
		if p.punct("-") {
			sign = "-"
		}
		t := p.peek(0)
		if t == nil || t.kind == tkPunct {
			return nil
		}
		p.i++
		a.value = sign + t.text
		st.assigns = append(st.assigns, a)
		if p.done() {
			return st
		}
		if !p.punct(",") {
			return nil
		}
	}
}
