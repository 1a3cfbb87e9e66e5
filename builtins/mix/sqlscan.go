package mix

import (
	"strings"
	"unicode"
)

// scanned is what a mix needs to know of a statement's text before it
// runs: how many ? placeholders it has, the tables it names, whether it
// returns rows and, for a SELECT, the names of its result columns.
type scanned struct {
	placeholders int
	tables       []string
	returnsRows  bool
	columns      []string // result column names, lower case ("" where an expression has no name)
}

// token is one lexical token of a statement: a word (identifier or
// keyword, backquotes removed), a placeholder or one punctuation character.
type token struct {
	text   string
	word   bool
	quoted bool // a `quoted` identifier: never a keyword
}

// tokenize splits a statement into tokens, skipping string literals,
// comments and whitespace. It does not check the grammar: the server does.
func tokenize(q string) []token {
	var out []token
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '\'' || c == '"':
			i = skipQuoted(q, i, c)
			out = append(out, token{text: "'"})
		case c == '`':
			end := strings.IndexByte(q[i+1:], '`')
			if end < 0 {
				end = len(q) - i - 1
			}
			out = append(out, token{text: q[i+1 : i+1+end], word: true, quoted: true})
			i += end + 2
		case c == '#' || (c == '-' && strings.HasPrefix(q[i:], "-- ")):
			if nl := strings.IndexByte(q[i:], '\n'); nl >= 0 {
				i += nl + 1
			} else {
				i = len(q)
			}
		case c == '/' && strings.HasPrefix(q[i:], "/*"):
			if end := strings.Index(q[i+2:], "*/"); end >= 0 {
				i += end + 4
			} else {
				i = len(q)
			}
		case isWordByte(c):
			j := i
			for j < len(q) && isWordByte(q[j]) {
				j++
			}
			out = append(out, token{text: q[i:j], word: true})
			i = j
		default:
			out = append(out, token{text: q[i : i+1]})
			i++
		}
	}
	return out
}

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= 0x80 || unicode.IsLetter(rune(c)) || unicode.IsDigit(rune(c))
}

// skipQuoted returns the index after the string literal that starts at i
// with quote q (a doubled quote or a backslash escapes).
func skipQuoted(s string, i int, q byte) int {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case q:
			if j+1 < len(s) && s[j+1] == q {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(s)
}

func (t token) is(keyword string) bool {
	return t.word && !t.quoted && strings.EqualFold(t.text, keyword)
}

// scanSQL reads what a mix checks of a statement at definition time.
func scanSQL(q string) scanned {
	toks := tokenize(q)
	var s scanned
	for _, t := range toks {
		if t.text == "?" && !t.word {
			s.placeholders++
		}
	}
	if len(toks) > 0 {
		for _, kw := range []string{"SELECT", "SHOW", "WITH", "VALUES", "TABLE", "DESCRIBE", "DESC", "EXPLAIN"} {
			if toks[0].is(kw) {
				s.returnsRows = true
			}
		}
		if toks[0].text == "(" {
			s.returnsRows = true
		}
	}
	s.tables = tablesNamed(toks)
	if len(toks) > 0 && toks[0].is("SELECT") {
		s.columns = selectColumns(toks[1:])
	}
	return s
}

// clauseEnds are the keywords that end a FROM list.
var clauseEnds = map[string]bool{"WHERE": true, "GROUP": true, "ORDER": true, "LIMIT": true, "HAVING": true, "SET": true,
	"VALUES": true, "VALUE": true, "SELECT": true, "ON": true, "USING": true, "JOIN": true, "INNER": true, "LEFT": true,
	"RIGHT": true, "CROSS": true, "STRAIGHT_JOIN": true, "NATURAL": true, "FOR": true, "LOCK": true, "UNION": true,
	"WINDOW": true, "PARTITION": true, "USE": true, "FORCE": true, "IGNORE": true, "INTO": true, "RETURNING": true,
	"OUTER": true, "AS": true, "WHEN": true, "PROCEDURE": true}

// tablesNamed lists the tables a statement names after FROM, JOIN, INTO,
// UPDATE and TABLE (the table part of schema.table), in order.
func tablesNamed(toks []token) []string {
	var out []string
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.is("FROM") || t.is("JOIN") || t.is("UPDATE") || t.is("STRAIGHT_JOIN"):
			out = append(out, fromList(toks, i+1)...)
		case t.is("INTO") || (t.is("TABLE") && i == 0):
			if name, _ := tableName(toks, i+1); name != "" {
				out = append(out, name)
			}
		}
	}
	return out
}

// fromList reads "t1 [AS] a, t2 b, ..." from i; a subquery is skipped
// (its own FROM is read by tablesNamed).
func fromList(toks []token, i int) []string {
	var out []string
	for i < len(toks) {
		for i < len(toks) && (toks[i].is("LOW_PRIORITY") || toks[i].is("IGNORE") || toks[i].is("QUICK")) {
			i++
		}
		name, next := tableName(toks, i)
		if name == "" {
			return out
		}
		out = append(out, name)
		i = next
		if i < len(toks) && toks[i].is("AS") {
			i++
		}
		if i < len(toks) && toks[i].word && (toks[i].quoted || !clauseEnds[strings.ToUpper(toks[i].text)]) {
			i++ // an alias
		}
		if i >= len(toks) || toks[i].text != "," {
			return out
		}
		i++
	}
	return out
}

// tableName reads "name" or "schema.name" at i and returns the table part
// and the index after it ("" when there is no name there).
func tableName(toks []token, i int) (string, int) {
	if i >= len(toks) || !toks[i].word || (!toks[i].quoted && clauseEnds[strings.ToUpper(toks[i].text)]) {
		return "", i
	}
	name := toks[i].text
	i++
	for i+1 < len(toks) && toks[i].text == "." && toks[i+1].word {
		name = toks[i+1].text
		i += 2
	}
	return name, i
}

// selectColumns names the result columns of a select list (the tokens
// after SELECT): an alias, else the last part of a column name; an
// expression without an alias has no name here.
func selectColumns(toks []token) []string {
	var cols []string
	depth, start := 0, 0
	end := len(toks)
	for i, t := range toks {
		if t.text == "(" {
			depth++
		} else if t.text == ")" {
			depth--
		} else if depth == 0 && (t.is("FROM") || t.is("INTO") || t.is("WHERE") || t.is("UNION") || t.is("LIMIT") || t.is("ORDER") || t.is("GROUP")) {
			end = i
			break
		}
	}
	depth = 0
	for i := 0; i <= end; i++ {
		if i < end {
			if toks[i].text == "(" {
				depth++
			} else if toks[i].text == ")" {
				depth--
			}
			if depth != 0 || toks[i].text != "," {
				continue
			}
		}
		cols = append(cols, columnName(toks[start:i]))
		start = i + 1
	}
	return cols
}

// columnName is one select item's name.
func columnName(item []token) string {
	for len(item) > 0 && (item[0].is("DISTINCT") || item[0].is("ALL") || item[0].is("SQL_NO_CACHE") || item[0].is("SQL_CALC_FOUND_ROWS")) {
		item = item[1:]
	}
	n := len(item)
	switch {
	case n >= 2 && item[n-2].is("AS") && item[n-1].word:
		return strings.ToLower(item[n-1].text)
	case n == 1 && item[0].word:
		return strings.ToLower(item[0].text)
	case n >= 3 && item[n-2].text == "." && item[n-1].word && allDotted(item):
		return strings.ToLower(item[n-1].text)
	case n >= 2 && item[n-1].word && item[n-2].text == ")": // expr(...) alias
		return strings.ToLower(item[n-1].text)
	case n == 2 && item[0].word && item[1].word: // column alias
		return strings.ToLower(item[1].text)
	}
	return ""
}

// allDotted says whether an item is a.b or a.b.c.
func allDotted(item []token) bool {
	for i, t := range item {
		if (i%2 == 0) != t.word || (i%2 == 1 && t.text != ".") {
			return false
		}
	}
	return true
}
