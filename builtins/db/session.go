package db

import (
	"regexp"
	"slices"
	"strings"
)

// Session is the state of a connection's session that every connection
// opened on its behalf must start with, so that a workload, a copy or an
// ANALYZE acts where the connection's own statements act: the current
// database and the session settings, in the order they were made.
//
// It is learnt from the statements the connection runs (Note), not asked
// of the server: the DSN's database (or database=) to begin with, then
// every USE; every SET of a session variable, user variable, NAMES or
// CHARACTER SET. The same rule then holds in a dry run, where nothing is
// connected, and when a resumed run replays the statements it recorded.
type Session struct {
	Database string   `json:"database,omitempty"`
	Settings []string `json:"settings,omitempty"`
}

// Clone returns a copy that shares nothing with s.
func (s Session) Clone() Session {
	return Session{Database: s.Database, Settings: slices.Clone(s.Settings)}
}

// Note records what a statement that ran on the session changed: USE sets
// the database, a session SET is added to the settings (an identical
// earlier one moves to the end, so a plan that repeats a SET in a loop does
// not grow the list). It reports whether the statement was one of those.
func (s *Session) Note(sql string) bool {
	if name, ok := UseTarget(sql); ok {
		s.Database = name
		return true
	}
	if !IsSessionSetting(sql) {
		return false
	}
	stmt := strings.TrimSpace(sql)
	s.Settings = slices.DeleteFunc(s.Settings, func(e string) bool { return e == stmt })
	s.Settings = append(s.Settings, stmt)
	return true
}

// IsSessionStatement reports whether sql changes what Session holds: a USE
// or a session SET.
func IsSessionStatement(sql string) bool {
	_, use := UseTarget(sql)
	return use || IsSessionSetting(sql)
}

var useStatement = regexp.MustCompile("(?is)^\\s*USE\\s+(`(?:[^`]|``)+`|[^\\s;`]+)\\s*;?\\s*$")

// UseTarget returns the database a USE statement selects.
func UseTarget(sql string) (string, bool) {
	m := useStatement.FindStringSubmatch(sql)
	if m == nil {
		return "", false
	}
	name := m[1]
	if strings.HasPrefix(name, "`") {
		name = strings.ReplaceAll(name[1:len(name)-1], "``", "`")
	}
	return name, true
}

// sessionSetting matches SET statements whose effect lasts for the
// session: SET SESSION/LOCAL, @@SESSION./@@LOCAL./@@name, @user variables,
// NAMES, CHARACTER SET and the bare SET name = value.
var sessionSetting = regexp.MustCompile(`(?is)^\s*SET\s+(?:SESSION\s|LOCAL\s|@|NAMES\s|CHARACTER\s+SET\s|CHARSET\s|[a-z_][a-z0-9_]*\s*(?::=|=))`)

// IsSessionSetting reports whether sql is a SET whose effect lasts for the
// session (not SET GLOBAL or PERSIST, nor SET TRANSACTION, which lasts for
// the next transaction only, nor SET PASSWORD).
func IsSessionSetting(sql string) bool {
	fields := strings.Fields(strings.ToUpper(sql))
	if len(fields) < 2 || fields[0] != "SET" {
		return false
	}
	switch second := fields[1]; {
	case second == "GLOBAL", second == "PERSIST", second == "PERSIST_ONLY", second == "TRANSACTION", second == "PASSWORD",
		strings.HasPrefix(second, "@@GLOBAL."), strings.HasPrefix(second, "@@PERSIST"):
		return false
	}
	return sessionSetting.MatchString(sql)
}

// serverSetting matches statements that set server state, which a restart,
// a redeploy or a change made behind the plan's back can undo: SET GLOBAL,
// PERSIST and PERSIST_ONLY in either form, and TiDB's SET CONFIG.
var serverSetting = regexp.MustCompile(`(?is)^\s*SET\s+(?:GLOBAL\s|PERSIST\s|PERSIST_ONLY\s|@@(?:GLOBAL|PERSIST|PERSIST_ONLY)\.|CONFIG\s)`)

// stateRead matches statements that read server or session state rather
// than data: system variables (@@name, SHOW VARIABLES, the *_VARIABLES
// tables), TiDB's SHOW CONFIG, and the server's version.
var stateRead = regexp.MustCompile(`(?is)@@|^\s*SHOW\s+(?:GLOBAL\s+|SESSION\s+|LOCAL\s+)?VARIABLES\b|^\s*SHOW\s+CONFIG\b|\b(?:GLOBAL|SESSION)_VARIABLES\b|\b(?:tidb_)?version\s*\(\s*\)`)

// IsStateStatement reports whether sql sets server state (SET GLOBAL, SET
// CONFIG) or reads server or session state (variables, SHOW CONFIG, the
// version): a resumed run runs such a step again instead of replaying it
// (runner.StepInfo.State). Session settings (SET SESSION, USE) are not:
// a resumed connection applies them again anyway.
func IsStateStatement(sql string) bool {
	return serverSetting.MatchString(sql) || stateRead.MatchString(sql)
}
