// Package stdlib embeds starbench's standard library of .star modules,
// served to plans as load("@stdlib//NAME.star", ...).
package stdlib

import "embed"

// FS holds the modules.
//
//go:embed *.star
var FS embed.FS
