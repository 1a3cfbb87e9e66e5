// Package cli is the contract between the starbench command and the
// command lines of the workload families (`starbench sysbench ...`, next
// `starbench tpcc ...`): what a family's subcommand gets from the command
// (Env), and how it says that its command line was wrong (UsageError, exit
// code 2). The registry (package builtins) lists each family's Command;
// cmd/starbench makes them subcommands.
package cli

import (
	"context"
	"fmt"
	"io"
)

// Env is what the starbench command hands a family's subcommand.
type Env struct {
	Stdout, Stderr io.Writer
	ToolVersion    string
	// AddSecrets registers passwords: from then on Redact masks them, and
	// so does everything the command prints.
	AddSecrets func(secrets ...string)
	// Redact masks the secrets registered so far.
	Redact func(string) string
	// WriteReports writes report.md and report.html into a finished
	// results folder (a failure is printed, not returned).
	WriteReports func(dir string)
	// Help prints the subcommand's --help (a family parses its own
	// arguments, --help among them).
	Help func() error
}

// Command is a family's subcommand: its help, and Run, which gets the
// arguments as typed (the family parses its own command line, as its
// peer tool does).
type Command struct {
	Use, Short, Long, Example string
	Run                       func(ctx context.Context, env *Env, args []string) error
}

// UsageError is a bad command line: the command prints it and exits 2.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Usagef makes a UsageError.
func Usagef(format string, args ...any) error { return &UsageError{fmt.Sprintf(format, args...)} }
