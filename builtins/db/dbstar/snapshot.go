package dbstar

import (
	"encoding/json"
	"fmt"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/starbench/starbench/builtins/db/snapshot"
	"github.com/starbench/starbench/runner"
)

// Snapshot is the value conn.snapshot returns and conn.restore takes.
type Snapshot struct {
	snap        *snapshot.Snapshot
	placeholder bool
}

var _ starlark.HasAttrs = (*Snapshot)(nil)

func (s *Snapshot) String() string {
	return fmt.Sprintf("<snapshot of %s in %s: %d tables>", s.snap.Schema, s.snap.Store, len(s.snap.Tables))
}
func (s *Snapshot) Type() string          { return "db.snapshot" }
func (s *Snapshot) Freeze()               {}
func (s *Snapshot) Truth() starlark.Bool  { return true }
func (s *Snapshot) Hash() (uint32, error) { return starlark.String(s.snap.Store).Hash() }

func (s *Snapshot) Attr(name string) (starlark.Value, error) {
	switch name {
	case "schema":
		return starlark.String(s.snap.Schema), nil
	case "store":
		return starlark.String(s.snap.Store), nil
	case "engine":
		return starlark.String(s.snap.Engine), nil
	case "tables":
		var names []string
		for _, t := range s.snap.Tables {
			names = append(names, t.Name)
		}
		return runner.StringList(names), nil
	case "checksums", "rows":
		d := starlark.NewDict(len(s.snap.Tables))
		for _, t := range s.snap.Tables {
			var v starlark.Value = starlark.String(t.Checksum)
			if name == "rows" {
				v = starlark.MakeInt64(t.Rows)
			}
			_ = d.SetKey(starlark.String(t.Name), v)
		}
		return d, nil
	case "seconds":
		return starlark.Float(s.snap.Seconds), nil
	case "placeholder":
		return starlark.Bool(s.placeholder), nil
	}
	return nil, nil
}

func (s *Snapshot) AttrNames() []string {
	return []string{"checksums", "engine", "placeholder", "rows", "schema", "seconds", "store", "tables"}
}

// snapshotMethod is conn.snapshot(schema=None, store=None, parallel=4).
func (c *Conn) snapshotMethod(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var schema, store string
	parallel := 4
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "schema?", &schema, "store?", &store, "parallel?", &parallel); err != nil {
		return nil, err
	}
	shown := schema
	if shown == "" {
		shown = "the current database"
	}
	info := runner.StepInfo{Builtin: "db.snapshot", Handle: c.id, Text: "snapshot " + shown + " (CREATE TABLE ... LIKE, INSERT ... SELECT, CHECKSUM TABLE)",
		Args: map[string]any{"schema": schema, "store": store, "parallel": parallel}}
	return runner.HostOf(thread).Step(info, runner.Action{
		Run: func(s *runner.Step) (runner.Outcome, error) {
			conn, err := c.live(s.Context(), b.Name())
			if err != nil {
				return runner.Outcome{}, err
			}
			name := schema
			if name == "" {
				if name, err = conn.CurrentDatabase(s.Context()); err != nil || name == "" {
					return runner.Outcome{}, fmt.Errorf("%s: no schema given and the connection has no current database", b.Name())
				}
			}
			snap, err := snapshot.Take(s.Context(), conn, name, store, snapshot.Options{Parallel: parallel})
			if err != nil {
				return runner.Outcome{}, fmt.Errorf("%s: %w", b.Name(), err)
			}
			return runner.Outcome{Value: &Snapshot{snap: snap}, Record: snap}, nil
		},
		Placeholder: func(*runner.Step) starlark.Value {
			name := schema
			if name == "" {
				name = "sbtest"
			}
			return &Snapshot{snap: &snapshot.Snapshot{Schema: name, Store: snapshot.StoreName(name)}, placeholder: true}
		},
		Replay: func(_ *runner.Step, raw json.RawMessage) (starlark.Value, error) {
			var snap snapshot.Snapshot
			if err := json.Unmarshal(raw, &snap); err != nil {
				return nil, err
			}
			return &Snapshot{snap: &snap}, nil
		},
	})
}

// restoreMethod is conn.restore(snapshot, parallel=4).
func (c *Conn) restoreMethod(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var snapVal starlark.Value
	parallel := 4
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "snapshot", &snapVal, "parallel?", &parallel); err != nil {
		return nil, err
	}
	sv, ok := snapVal.(*Snapshot)
	if !ok {
		return nil, fmt.Errorf("%s: want a snapshot from conn.snapshot(), got %s", b.Name(), snapVal.Type())
	}
	checksums := map[string]string{}
	for _, t := range sv.snap.Tables {
		checksums[t.Name] = t.Checksum
	}
	info := runner.StepInfo{Builtin: "db.restore", Handle: c.id,
		Text: fmt.Sprintf("restore %s from %s (verify checksums)", sv.snap.Schema, sv.snap.Store),
		Args: map[string]any{"schema": sv.snap.Schema, "store": sv.snap.Store, "checksums": checksums, "parallel": parallel}}
	return runner.HostOf(thread).Step(info, runner.Action{
		Run: func(s *runner.Step) (runner.Outcome, error) {
			conn, err := c.live(s.Context(), b.Name())
			if err != nil {
				return runner.Outcome{}, err
			}
			res, err := snapshot.Restore(s.Context(), conn, sv.snap, snapshot.Options{Parallel: parallel})
			if err != nil {
				return runner.Outcome{}, fmt.Errorf("%s: %w", b.Name(), err)
			}
			return runner.Outcome{Value: restoreValue(res), Record: res}, nil
		},
		Placeholder: func(*runner.Step) starlark.Value { return restoreValue(&snapshot.Result{}) },
		Replay: func(_ *runner.Step, raw json.RawMessage) (starlark.Value, error) {
			var res snapshot.Result
			if err := json.Unmarshal(raw, &res); err != nil {
				return nil, err
			}
			return restoreValue(&res), nil
		},
	})
}

func restoreValue(r *snapshot.Result) starlark.Value {
	return starlarkstruct.FromStringDict(starlark.String("restore_result"), starlark.StringDict{
		"restored": runner.StringList(r.Restored), "dropped": runner.StringList(r.Dropped), "seconds": starlark.Float(r.Seconds),
	})
}
