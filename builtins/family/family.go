// Package family is the contract a workload family implements: a Go
// value that names the family, declares its options and turns values of
// them into what the engine runs, with prepare and cleanup as optional
// extras (cockroach pkg/workload's shape: one small interface, extras as
// interfaces of their own). The generic adapter, builtins/family/familystar,
// gives a family its plan builtins (run, part, prepare, cleanup), their
// documentation, dry-run listing, resume, segments and the result fields
// every family shares; reports and compare read its steps like any other.
// Nothing here imports Starlark: a Go program may implement a family
// without it.
package family

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/runner/results"
)

// Family is a workload family.
type Family interface {
	// Name is the family's module and command name ("mix").
	Name() string
	// Summary is a paragraph on the family, for its documentation.
	Summary() string
	// RunOptions are the options of a run, in the order the documentation
	// lists them (positional ones first).
	RunOptions() []Option
	// Run is a run configured by v, which holds a checked value for every
	// option of RunOptions the caller gave, its default for the others,
	// and nothing for an option without a default the caller left out.
	Run(v Values) (Run, error)
	// RunDoc says what a run does and returns, for the documentation.
	RunDoc() string
	// Meta names the workload values of a call's options give (of run,
	// prepare or cleanup) and versions its statement stream.
	Meta(v Values) results.Meta
	// CommandLine is the command line equivalent to a call (command is
	// "run", "prepare" or "cleanup") in database: the family's peer's
	// where it has one, for step lists and the journal.
	CommandLine(command string, v Values, database string) string
}

// Run is a configured run of a family.
type Run interface {
	// Label names the run's step folder ("shop-t16").
	Label() string
	// Planned is what the run will do, for progress, dry runs and
	// bench.together: threads, duration (0: bounded by events) and report
	// interval (0: none).
	Planned() Plan
	// Kinds are the kinds of event the run counts apart (nil: none).
	Kinds() []string
	// Step is the run's benchmark step on conn with the run seed seed,
	// for bench.RunStep.
	Step(conn bench.Connector, seed int64) (bench.Step, error)
}

// Plan is a run's threads, duration and report interval.
type Plan struct {
	Threads        int
	Time, Interval time.Duration
}

// Keyword is a keyword argument an option of kind Rest collects: its name
// and value (bool, int64, float64, string, or []any of these).
type Keyword struct {
	Name  string
	Value any
}

// Sessioner is a family that says how its statements reach the server
// (sysbench's db_ps_mode); the others' use bench.PSAuto.
type Sessioner interface {
	PSMode(v Values) bench.PSMode
}

// Signer is a family that writes a call's signature for the
// documentation itself (one whose open set of options the generated one
// would not show); command is "run", "part", "prepare" or "cleanup".
type Signer interface {
	Signature(command string) string
}

// PreparedReplayer is a family whose prepare keeps its own record in the
// journal (Prepared.Record) and reads it back on resume.
type PreparedReplayer interface {
	ReplayPrepared(raw []byte) (*Prepared, error)
}

// Preparer is a family that creates and loads its tables.
type Preparer interface {
	PrepareOptions() []Option
	// Tables are the tables a prepare with v creates.
	Tables(v Values) []string
	// Prepare creates and loads the tables on conn, printing what it does
	// to out; seed is the step's (its rows derive from it).
	Prepare(ctx context.Context, conn bench.Connector, v Values, seed int64, out io.Writer) (*Prepared, error)
	PrepareDoc() string
}

// Prepared is what a prepare did.
type Prepared struct {
	Schema    string           `json:"schema,omitempty"`
	Tables    []string         `json:"tables"`
	Reused    []string         `json:"reused,omitempty"`
	Rows      map[string]int64 `json:"rows,omitempty"`
	TotalRows int64            `json:"total_rows"`
	Seconds   float64          `json:"seconds"`
	RowsPerS  float64          `json:"rows_per_s"`
	// Fields are the family's own, beside these (TPC-C's load_time), of
	// the kinds Fielder's are; one of the same name replaces the common
	// field.
	Fields map[string]any `json:"fields,omitempty"`
	// Record, when set, is what the journal keeps in place of these (a
	// family whose journals predate the contract: see PreparedReplayer).
	Record any `json:"-"`
}

// Cleaner is a family that drops its tables.
type Cleaner interface {
	CleanupOptions() []Option
	// Cleanup drops the family's tables that exist on conn, naming each
	// as schema.table on out, and returns their names.
	Cleanup(ctx context.Context, conn bench.Connector, v Values, out io.Writer) ([]string, error)
	CleanupDoc() string
}

// Fielder is a family that adds fields of its own to what its run
// builtin returns, from the step's summary: numbers, strings, Record
// (a struct), map[string]any (a dict), []any (a list) and
// results.LatencySummary (the latency struct every run has).
type Fielder interface {
	Fields(s *results.Summary) map[string]any
}

// Validator is a family that checks a call's values together (bounds
// between options) where the call is written: command is "run",
// "prepare" or "cleanup". Run checks a run's anyway.
type Validator interface {
	Validate(command string, v Values) error
}

// WeightsChecker is a family whose weights of its kinds of event have
// rules of their own (TPC-C's add up to 100), for a phase's weights (in
// the run's Kinds order).
type WeightsChecker interface {
	CheckWeights(w []int64) error
}

// Journaler is a family that says itself what the journal keeps of a
// call's arguments (by default every option's value, and the workload's
// name and version): a step's record is part of what a resumed run
// matches, so a family whose journals predate the contract keeps theirs.
type Journaler interface {
	JournalArgs(command string, v Values) map[string]any
}

// Record is a set of fields a plan reads as a struct (r.x), where a
// map[string]any is a dict (r["x"]).
type Record map[string]any

// Kind is the type of an option's values.
type Kind int

// The kinds of options.
const (
	Int      Kind = iota // int64
	Float                // float64
	String               // string
	Bool                 // bool
	Duration             // time.Duration: "10s", or seconds as a number
	Codes                // []uint16: MySQL error codes
	Ints                 // []int64
	Tags                 // map[string]string
	Value                // a family value the adapter converts (a declared mix)
	Rest                 // []Keyword: every keyword no other option names, in order
)

// Role is the engine setting an option is, for the adapter (a part's
// time, a segment's seed); most options have none.
type Role int

// The roles options have.
const (
	NoRole   Role = iota
	Threads       // int: client threads
	Time          // duration: how long (0: bounded by events)
	Events        // int: how many events (0: bounded by time)
	Interval      // duration: the report interval (0: none)
	Seed          // int: the run's seed (0: the step's)
	TagsRole      // tags: kept with the step
	Segment       // string: "i/n", one slice of the load
	Rate          // int or float: events per second, open loop (0: closed loop)
)

// Option is one option of a family's call.
type Option struct {
	Name string
	Kind Kind
	// Default is of the kind's Go type. nil is none: a positional option
	// without one must be given; another is left out of the values.
	Default    any
	Help       string
	Role       Role
	Positional bool // may be given by position, after the connection
	// Check, when set, checks a value (already of the kind's type).
	Check func(v any) error
}

// Values are a call's option values by name, each of its option's kind.
type Values map[string]any

// Int is an Int option's value.
func (v Values) Int(name string) int64 { n, _ := v[name].(int64); return n }

// Float is a Float option's value.
func (v Values) Float(name string) float64 { f, _ := v[name].(float64); return f }

// String is a String option's value.
func (v Values) String(name string) string { s, _ := v[name].(string); return s }

// Bool is a Bool option's value.
func (v Values) Bool(name string) bool { b, _ := v[name].(bool); return b }

// Duration is a Duration option's value.
func (v Values) Duration(name string) time.Duration { d, _ := v[name].(time.Duration); return d }

// Codes is a Codes option's value.
func (v Values) Codes(name string) []uint16 { c, _ := v[name].([]uint16); return c }

// Segment is a segment option's value ("i/n"): the whole load when it is
// empty.
func (v Values) Segment(name string) (bench.Segment, error) {
	if s := v.String(name); s != "" {
		return bench.ParseSegment(s)
	}
	return bench.Segment{}, nil
}

// Tags is a Tags option's value.
func (v Values) Tags(name string) map[string]string { t, _ := v[name].(map[string]string); return t }

// Defaults are the options' defaults.
func Defaults(opts []Option) Values {
	v := Values{}
	for _, o := range opts {
		if o.Default != nil {
			v[o.Name] = o.Default
		}
	}
	return v
}

// Check checks every value against its option: present (a positional
// without default must be given), of the option's kind, and accepted by
// its Check.
func Check(opts []Option, v Values) error {
	for _, o := range opts {
		x, ok := v[o.Name]
		if !ok && o.Positional && o.Default == nil {
			return fmt.Errorf("missing %s", o.Name)
		}
		if !ok {
			continue
		}
		if err := o.Kind.check(x); err != nil {
			return fmt.Errorf("%s: %w", o.Name, err)
		}
		if o.Check != nil {
			if err := o.Check(x); err != nil {
				return fmt.Errorf("%s: %w", o.Name, err)
			}
		}
	}
	return nil
}

func (k Kind) check(x any) error {
	ok := false
	switch k {
	case Int:
		_, ok = x.(int64)
	case Float:
		_, ok = x.(float64)
	case String:
		_, ok = x.(string)
	case Bool:
		_, ok = x.(bool)
	case Duration:
		_, ok = x.(time.Duration)
	case Codes:
		_, ok = x.([]uint16)
	case Ints:
		_, ok = x.([]int64)
	case Tags:
		_, ok = x.(map[string]string)
	case Value:
		ok = x != nil
	case Rest:
		_, ok = x.([]Keyword)
	}
	if !ok {
		return fmt.Errorf("want %s, got %T", k, x)
	}
	return nil
}

func (k Kind) String() string {
	switch k {
	case Int:
		return "an integer"
	case Float:
		return "a number"
	case String:
		return "a string"
	case Bool:
		return "a bool"
	case Duration:
		return "a duration"
	case Codes:
		return "a list of MySQL error codes"
	case Ints:
		return "a list of integers"
	case Tags:
		return "a dict of tags"
	}
	return "a value"
}

// ByRole is the option with role r, if the family has one.
func ByRole(opts []Option, r Role) (Option, bool) {
	for _, o := range opts {
		if o.Role == r {
			return o, true
		}
	}
	return Option{}, false
}

// ByKind is the first option of kind k, if there is one.
func ByKind(opts []Option, k Kind) (Option, bool) {
	for _, o := range opts {
		if o.Kind == k {
			return o, true
		}
	}
	return Option{}, false
}

// AtLeast checks that an Int or Float option is at least lo.
func AtLeast(lo float64) func(any) error {
	return func(v any) error {
		var f float64
		switch v := v.(type) {
		case int64:
			f = float64(v)
		case float64:
			f = v
		}
		if f < lo {
			return fmt.Errorf("must be at least %v, got %v", lo, v)
		}
		return nil
	}
}

// NotNegative checks that a Duration option is not negative.
func NotNegative(v any) error {
	if d, _ := v.(time.Duration); d < 0 {
		return fmt.Errorf("must not be negative, got %v", d)
	}
	return nil
}
