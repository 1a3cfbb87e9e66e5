//go:build tools

// Package tidbserver only names the command this module builds, so that
// `go mod tidy` keeps its dependencies.
package tidbserver

import _ "github.com/pingcap/tidb/cmd/tidb-server"
