package tpch

import (
	_ "embed"
	"fmt"
	"strings"
	"sync"
)

//go:embed queries.sql
var queriesSQL string

// QueryNames are the 22 queries' names, in order.
var QueryNames = func() []string {
	var names []string
	for i := 1; i <= 22; i++ {
		names = append(names, fmt.Sprintf("q%d", i))
	}
	return names
}()

// queryTexts are the queries' texts by name, as go-tpc sends them.
var queryTexts = sync.OnceValue(func() map[string]string { return SplitQueries(queriesSQL) })

// SplitQueries reads a file of the 22 queries, each after a line
// "-- qN", into their texts by name. The files are embedded: one that
// lacks a query is a build error.
func SplitQueries(file string) map[string]string {
	out := map[string]string{}
	rest := file
	for i, name := range QueryNames {
		marker := "-- " + name + "\n"
		at := strings.Index(rest, marker)
		if at < 0 {
			panic("tpch: a query file lacks " + name)
		}
		rest = rest[at+len(marker):]
		end := len(rest)
		if i+1 < len(QueryNames) {
			end = strings.Index(rest, "\n-- "+QueryNames[i+1]+"\n") + 1
		}
		out[name] = rest[:end]
	}
	return out
}

// placeholder is where go-tpc's --use-explain puts EXPLAIN ANALYZE.
const placeholder = "/*PLACEHOLDER*/"

// Statements are a query's statements as go-tpc's text has them: one,
// but for Q15's view, made before its query and dropped after it. With
// explain, the query's statement is EXPLAIN ANALYZE'd.
func Statements(name string, explain bool) ([]string, error) {
	text, ok := queryTexts()[name]
	if !ok {
		return nil, fmt.Errorf("no query %q: TPC-H's are q1 ... q22", name)
	}
	if explain {
		text = strings.Replace(text, placeholder, "explain analyze", 1)
	}
	return splitStatements(text), nil
}

// splitStatements splits a query's text at its semicolons.
func splitStatements(text string) []string {
	var stmts []string
	for _, s := range strings.SplitAfter(text, ";\n") {
		if strings.TrimSpace(s) != "" {
			stmts = append(stmts, s)
		}
	}
	return stmts
}

// ParseQueries reads a --queries list ("q1,q3,q22"): names TPC-H has, in
// the order given.
func ParseQueries(list string) ([]string, error) {
	var names []string
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		if _, ok := queryTexts()[n]; !ok {
			return nil, fmt.Errorf("no query %q in --queries: TPC-H's are q1 ... q22", n)
		}
		names = append(names, n)
	}
	return names, nil
}
