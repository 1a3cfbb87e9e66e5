package ch

import (
	_ "embed"
	"sync"

	"github.com/starbench/starbench/builtins/tpch"
)

//go:embed queries.sql
var queriesSQL string

// queryTexts are the 22 queries' texts by name, as go-tpc sends them.
var queryTexts = sync.OnceValue(func() map[string]string { return tpch.SplitQueries(queriesSQL) })
