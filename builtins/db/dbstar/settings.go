package dbstar

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/runner"
	"github.com/starbench/starbench/runner/results"
)

// driftingGlobals are global variables a server changes by itself as it
// works (MariaDB's GTID positions move with every write), which are no
// setting of the run's.
var driftingGlobals = []string{"gtid_binlog_pos", "gtid_binlog_state", "gtid_current_pos", "gtid_slave_pos", "gtid_executed", "gtid_purged"}

// StepSettings reads the server settings a benchmark step on the handle
// starts with, against what the manifest recorded of its target at the
// run's first connect (see results.ServerSettings): the globals on a
// connection of its own (the handle's may be busy, and keeps its session),
// and the handle's session statements. Errors are kept in the result, not
// returned: a step runs whether they could be read or not.
func (c *Conn) StepSettings(ctx context.Context, info runner.RunInfo) *results.ServerSettings {
	out := &results.ServerSettings{}
	cfgs, session := c.Endpoints()
	for _, stmt := range session {
		out.Session = append(out.Session, info.Redact(stmt))
	}
	if len(cfgs) == 0 {
		out.Error = fmt.Sprintf("connection %s is closed", c.id)
		return out
	}
	was := info.RecordedTarget(c.target).Variables
	if was == nil {
		out.Error = "the manifest holds no global variables of target " + c.target + " to compare with"
		return out
	}
	conn, err := db.Open(ctx, cfgs[0])
	if err != nil {
		out.Error = info.Redact(err.Error())
		return out
	}
	defer conn.Close()
	now, err := conn.Variables(ctx, "")
	if err != nil {
		out.Error = info.Redact(err.Error())
		return out
	}
	out.Globals = globalsChanged(was, now)
	return out
}

// globalsChanged are the variables whose value in now is not the one in
// was (a variable only one of them has counts, with "" for the other),
// but those the server moves by itself.
func globalsChanged(was, now map[string]string) map[string]results.SettingChange {
	changed := map[string]results.SettingChange{}
	note := func(name string) {
		if slices.Contains(driftingGlobals, strings.ToLower(name)) {
			return
		}
		if a, b := was[name], now[name]; a != b {
			changed[name] = results.SettingChange{Was: a, Now: b}
		}
	}
	for name := range was {
		note(name)
	}
	for name := range now {
		if _, ok := was[name]; !ok {
			note(name)
		}
	}
	if len(changed) == 0 {
		return nil
	}
	return changed
}
