// Package goycsb reads go-ycsb v1.0.3's command lines as they are
// (`go-ycsb load|run mysql -P workloads/workloadb -p recordcount=1000
// --threads 16`) into what starbench's YCSB mix takes: the arguments of
// stdlib/ycsb.star's core(), the run's threads, operation count and rate,
// and the connection of go-ycsb's mysql.* properties. The properties are
// go-ycsb's (pkg/prop/prop.go, db/mysql/db.go): files in order, then -p
// values, then --threads, --target, --interval and --table, with go-ycsb's
// defaults. A property starbench cannot honour is refused, naming it,
// rather than ignored; one that only shapes go-ycsb's own output is
// listed as ignored. It has no Starlark in it.
package goycsb

import (
	"fmt"
	"io"
	"maps"
	"net"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/magiconair/properties"
	"github.com/spf13/pflag"

	"github.com/starbench/starbench/builtins/db"
)

// Commands are go-ycsb's benchmark commands.
var Commands = []string{"load", "run"}

// Drivers are go-ycsb's database names starbench speaks for: its mysql
// driver registers both.
var Drivers = []string{"mysql", "tidb"}

// CommandLine is a parsed `starbench ycsb` command line.
type CommandLine struct {
	Command string // load or run
	Driver  string // mysql or tidb

	Files    []string // -P, in order
	Values   []string // -p name=value, in order
	Threads  int      // --threads (given: wins over threadcount)
	Target   string   // --target: operations a second (go-ycsb's), or a DSN, embedded or sandbox:ENGINE (starbench's)
	Interval int      // --interval seconds (given: wins over measurement.interval)
	Table    string   // --table (given: wins over table)

	Seed   int64 // --seed
	Out    string
	DryRun bool
	Help   bool

	given map[string]bool
}

// SeedGiven says whether --seed was given.
func (cl *CommandLine) SeedGiven() bool { return cl.given["seed"] }

// Parse reads a command line: flags before or after the two words
// (command and database), as go-ycsb's cobra reads them.
func Parse(args []string) (*CommandLine, error) {
	cl := &CommandLine{}
	fs := cl.flagSet()
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	cl.given = map[string]bool{}
	fs.Visit(func(f *pflag.Flag) { cl.given[f.Name] = true })
	if cl.Help {
		return cl, nil
	}
	rest := fs.Args()
	if len(rest) != 2 {
		return nil, fmt.Errorf("want a command (load or run) and a database (mysql or tidb), got %q", strings.Join(rest, " "))
	}
	cl.Command, cl.Driver = rest[0], rest[1]
	if !slices.Contains(Commands, cl.Command) {
		return nil, fmt.Errorf("unknown command %q (want load or run; go-ycsb's shell has no counterpart here)", cl.Command)
	}
	if !slices.Contains(Drivers, cl.Driver) {
		return nil, fmt.Errorf("database %q: starbench speaks the MySQL protocol: want mysql or tidb (go-ycsb's driver for both)", cl.Driver)
	}
	if cl.Threads < 1 {
		return nil, fmt.Errorf("--threads must be at least 1, not %d", cl.Threads)
	}
	if cl.Interval < 1 {
		return nil, fmt.Errorf("--interval must be at least 1 (seconds), not %d", cl.Interval)
	}
	return cl, nil
}

// FlagUsage lists the flags with their defaults, for --help.
func FlagUsage() string { return (&CommandLine{}).flagSet().FlagUsages() }

func (cl *CommandLine) flagSet() *pflag.FlagSet {
	fs := pflag.NewFlagSet("ycsb", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringSliceVarP(&cl.Files, "property_file", "P", nil, "a property file (go-ycsb's workloads/workloada ...); repeatable, later files win")
	fs.StringArrayVarP(&cl.Values, "prop", "p", nil, "a property, name=value; repeatable, wins over the files")
	fs.StringVar(&cl.Table, "table", "", "the table, instead of the table property (default usertable)")
	fs.IntVar(&cl.Threads, "threads", 1, "threads, instead of the threadcount property")
	fs.StringVar(&cl.Target, "target", "", "a number: operations a second, as go-ycsb's --target (instead of the target property); "+
		"anything else: the server, a DSN, embedded, sandbox:mariadb or sandbox:tidb, as 'starbench run' takes it (instead of mysql.*)")
	fs.IntVar(&cl.Interval, "interval", 10, "seconds between interval lines, instead of measurement.interval")
	fs.Int64Var(&cl.Seed, "seed", 0, "the seed of the records and the operations (default: drawn at random and recorded)")
	fs.StringVar(&cl.Out, "out", "", "results folder (default results/<UTC time>-ycsb)")
	fs.BoolVar(&cl.DryRun, "dry-run", false, "list the steps without acting")
	fs.BoolVarP(&cl.Help, "help", "h", false, "this help")
	return fs
}

// OpsTarget is --target as go-ycsb's: a whole number of operations a
// second. ok is false when --target names a server instead.
func (cl *CommandLine) OpsTarget() (ops int64, ok bool) {
	n, err := strconv.ParseInt(cl.Target, 10, 64)
	return n, err == nil
}

// ServerTarget is --target when it names a server ("" when it is a rate
// or not given).
func (cl *CommandLine) ServerTarget() string {
	if _, ok := cl.OpsTarget(); ok {
		return ""
	}
	return cl.Target
}

// Arg is one argument of stdlib/ycsb.star's core(): an int64, float64,
// string, bool or map[string]float64 (the proportions).
type Arg struct {
	Name  string
	Value any
}

// Workload is what a command line asks of starbench.
type Workload struct {
	Command string
	// Core are core()'s arguments, in its order: the properties that were
	// set, and the proportions with go-ycsb's defaults.
	Core []Arg
	// MixName names the mix (and the results): ycsb_b for workloadb.
	MixName        string
	RecordCount    int64
	OperationCount int64         // run: operations in all (operationcount)
	Threads        int           // threadcount or --threads
	Rate           float64       // operations a second (target or --target); 0 unlimited
	Interval       time.Duration // measurement.interval or --interval
	DropData       bool          // load: drop the table first (dropdata)
	// Conn is the server of the mysql.* properties, nil when none was set.
	Conn *mysql.Config
	// Properties are the properties in effect, sorted (the password
	// among them: redact before printing).
	Properties [][2]string
	Ignored    []string // properties that shape go-ycsb's own output only
	Unknown    []string // properties neither go-ycsb's core workload nor its mysql driver reads
}

// go-ycsb's defaults that starbench applies itself (pkg/prop/prop.go;
// the client's threadcount default of 1, client.go).
var defaultProportions = map[string]float64{"read": 0.95, "update": 0.05, "insert": 0, "scan": 0, "read_modify_write": 0}

// proportionKeys maps go-ycsb's proportion properties to core()'s names.
var proportionKeys = [][2]string{
	{"readproportion", "read"}, {"updateproportion", "update"}, {"insertproportion", "insert"},
	{"scanproportion", "scan"}, {"readmodifywriteproportion", "read_modify_write"},
}

// coreKeys maps properties to core()'s arguments, in core()'s order,
// with each value's kind.
var coreKeys = []struct{ prop, arg, kind string }{
	{"recordcount", "record_count", "int"},
	{"requestdistribution", "request_distribution", "choice"},
	{"fieldcount", "field_count", "int"},
	{"fieldlength", "field_length", "int"},
	{"readallfields", "read_all_fields", "bool"},
	{"writeallfields", "write_all_fields", "bool"},
	{"minscanlength", "min_scan_length", "int"},
	{"maxscanlength", "max_scan_length", "int"},
	{"scanlengthdistribution", "scan_length_distribution", "choice"},
	{"insertorder", "insert_order", "choice"},
	{"keyprefix", "key_prefix", "string"},
	{"zeropadding", "zero_padding", "int"},
	{"table", "table", "string"},
	{"mysql.force_index", "force_index", "bool"},
	{"tidb.cluster_index", "cluster_index", "bool"},
}

// choices are the values starbench takes for a property with a set of
// values, and why the others are refused.
var choices = map[string]struct {
	take []string
	why  string
}{
	"requestdistribution":     {[]string{"uniform", "zipfian", "latest"}, "starbench's mix has YCSB's uniform, scrambled zipfian and latest generators, not sequential, hotspot or exponential"},
	"scanlengthdistribution":  {[]string{"uniform", "zipfian"}, "go-ycsb takes these two only"},
	"insertorder":             {[]string{"hashed", "ordered"}, "go-ycsb takes these two"},
	"workload":                {[]string{"core"}, "starbench has YCSB's core workload only"},
	"fieldlengthdistribution": {[]string{"constant"}, "starbench's records have fields of fieldlength characters exactly"},
}

// refused are properties starbench cannot honour when set (to anything
// but their default, where one is given): the reason.
var refused = map[string]struct{ fine, why string }{
	"insertstart":                            {"0", "starbench's load loads the records 0 to recordcount-1, all of them"},
	"insertcount":                            {"", "starbench's load loads all recordcount records (one load from several machines is a plan's bench.together)"},
	"batch.size":                             {"1", "starbench sends each operation on its own, as go-ycsb does without batch.size"},
	"dataintegrity":                          {"false", "starbench does not verify the rows it reads"},
	"warmuptime":                             {"0", "starbench's warm-up runs for a time before a run bounded by time; this run is bounded by operationcount"},
	"core_workload_insertion_retry_limit":    {"0", "starbench does not retry a failed insert"},
	"tidb.instances":                         {"", "give one server with --target or mysql.host and mysql.port (a plan connects to several)"},
	"fieldlengthhistogram":                   {"", "fieldlengthdistribution is constant here"},
	"core_workload_insertion_retry_interval": {"3", "starbench does not retry a failed insert"},
}

// ignored are properties that only shape go-ycsb's own output or
// process, or that go-ycsb v1.0.3 declares and never reads.
var ignored = []string{"command", "db", "debug.pprof", "dotransactions", "exporter", "exportfile", "histogram.percentiles.export",
	"histogram.percentiles.export.filepath", "label", "maxexecutiontime", "measurement.output_file", "measurementtype",
	"outputstyle", "silence", "status", "verbose", "hotspotdatafraction", "hotspotopnfraction", "exponential.percentile",
	"exponential.frac"}

// connKeys are go-ycsb's mysql driver's connection properties.
var connKeys = []string{"mysql.host", "mysql.port", "mysql.user", "mysql.password", "mysql.db"}

// otherKeys are the rest of what starbench reads.
var otherKeys = []string{"operationcount", "threadcount", "target", "measurement.interval", "dropdata"}

// Read reads the command line's property files and values into the
// workload (a bad file, value or property is an error naming it).
func (cl *CommandLine) Read() (*Workload, error) {
	p := properties.NewProperties()
	if len(cl.Files) > 0 {
		var err error
		if p, err = properties.LoadFiles(cl.Files, properties.UTF8, false); err != nil {
			return nil, fmt.Errorf("-P: %v", err)
		}
	}
	for _, kv := range cl.Values {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			return nil, fmt.Errorf("-p %s: want name=value", redactValue(kv))
		}
		if _, _, err := p.Set(name, value); err != nil {
			return nil, fmt.Errorf("-p %s: %v", name, err)
		}
	}
	if cl.given["threads"] {
		p.Set("threadcount", strconv.Itoa(cl.Threads))
	}
	if ops, ok := cl.OpsTarget(); ok {
		p.Set("target", strconv.FormatInt(ops, 10))
	}
	if cl.given["interval"] {
		p.Set("measurement.interval", strconv.Itoa(cl.Interval))
	}
	if cl.Table != "" {
		p.Set("table", cl.Table)
	}
	r := &reader{p: p}
	w := r.workload(cl)
	if r.err != nil {
		return nil, r.err
	}
	return w, nil
}

// redactValue shows name=... of a -p value, its value left out (it may
// be a password).
func redactValue(kv string) string {
	if name, _, ok := strings.Cut(kv, "="); ok {
		return name + "=..."
	}
	return kv
}

// reader reads typed properties, keeping the first error.
type reader struct {
	p   *properties.Properties
	err error
}

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf(format, args...)
	}
}

func (r *reader) has(key string) bool { _, ok := r.p.Get(key); return ok }

func (r *reader) str(key, def string) string {
	if v, ok := r.p.Get(key); ok {
		return v
	}
	return def
}

func (r *reader) int(key string, def int64) int64 {
	v, ok := r.p.Get(key)
	if !ok {
		return def
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		r.fail("property %s=%q: not a whole number", key, v)
	}
	return n
}

func (r *reader) float(key string, def float64) float64 {
	v, ok := r.p.Get(key)
	if !ok {
		return def
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || f < 0 {
		r.fail("property %s=%q: not a number of 0 or more", key, v)
	}
	return f
}

// bool reads a boolean as go-ycsb's properties library does (1, true,
// y, yes, on are true), refusing what is neither true nor false there.
func (r *reader) bool(key string, def bool) bool {
	v, ok := r.p.Get(key)
	if !ok {
		return def
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "y", "yes", "on":
		return true
	case "0", "false", "n", "no", "off":
		return false
	}
	r.fail("property %s=%q: want true or false", key, v)
	return def
}

var workloadFile = regexp.MustCompile(`^workload([a-f])$`)

func (r *reader) workload(cl *CommandLine) *Workload {
	w := &Workload{Command: cl.Command, MixName: "ycsb"}
	if n := len(cl.Files); n > 0 {
		if m := workloadFile.FindStringSubmatch(filepath.Base(cl.Files[n-1])); m != nil {
			w.MixName = "ycsb_" + m[1]
		}
	}
	for _, key := range slices.Sorted(maps.Keys(choices)) {
		c := choices[key]
		if v := strings.TrimSpace(r.str(key, c.take[0])); !slices.Contains(c.take, v) {
			r.fail("property %s=%s: starbench takes %s (%s)", key, v, orList(c.take), c.why)
		}
	}
	for _, key := range slices.Sorted(maps.Keys(refused)) {
		rf := refused[key]
		if v, ok := r.p.Get(key); ok && strings.TrimSpace(v) != rf.fine {
			r.fail("property %s=%s is not taken: %s", key, v, rf.why)
		}
	}
	if !r.has("recordcount") {
		r.fail("recordcount is not set: give a workload file (-P workloads/workloada sets it) or -p recordcount=N")
	}
	w.RecordCount = r.int("recordcount", 0)
	if w.RecordCount < 1 {
		r.fail("recordcount=%d: want at least 1 record", w.RecordCount)
	}
	w.Threads = int(r.int("threadcount", 1))
	if w.Threads < 1 {
		r.fail("threadcount=%d: want at least 1", w.Threads)
	}
	w.Rate = float64(r.int("target", 0))
	if w.Rate < 0 {
		r.fail("target=%v: want operations a second, 0 for unlimited", w.Rate)
	}
	if cl.Command == "load" && w.Rate > 0 {
		r.fail("target (operations a second) paces a run here, not a load: starbench's load goes as fast as the server takes it")
	}
	interval := r.int("measurement.interval", 10)
	if interval < 1 {
		r.fail("measurement.interval=%d: want at least 1 (seconds)", interval)
	}
	w.Interval = time.Duration(interval) * time.Second
	w.DropData = r.bool("dropdata", false)
	if cl.Command == "run" {
		w.OperationCount = r.int("operationcount", 0)
		if w.OperationCount < int64(w.Threads) {
			// go-ycsb exits saying the same (client.go, newWorker).
			r.fail("operationcount=%d: a run needs at least one operation per thread (%d threads): give -p operationcount=N", w.OperationCount, w.Threads)
		}
	}
	for _, k := range coreKeys {
		if !r.has(k.prop) {
			continue
		}
		var v any
		switch k.kind {
		case "int":
			v = r.int(k.prop, 0)
		case "bool":
			v = r.bool(k.prop, false)
		case "choice":
			v = strings.TrimSpace(r.str(k.prop, ""))
		default:
			v = r.str(k.prop, "")
		}
		w.Core = append(w.Core, Arg{Name: k.arg, Value: v})
	}
	proportions := map[string]float64{}
	for _, k := range proportionKeys {
		proportions[k[1]] = r.float(k[0], defaultProportions[k[1]])
	}
	w.Core = append([]Arg{{Name: "name", Value: w.MixName}}, w.Core...)
	w.Core = append(w.Core, Arg{Name: "proportions", Value: proportions})
	w.Conn = r.conn()
	for _, key := range r.p.Keys() {
		v, _ := r.p.Get(key)
		w.Properties = append(w.Properties, [2]string{key, v})
		switch {
		case slices.Contains(ignored, key):
			w.Ignored = append(w.Ignored, key)
		case !known(key):
			w.Unknown = append(w.Unknown, key)
		}
	}
	slices.SortFunc(w.Properties, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	slices.Sort(w.Ignored)
	slices.Sort(w.Unknown)
	return w
}

// known says whether starbench reads key (or refuses it knowingly).
func known(key string) bool {
	if slices.Contains(connKeys, key) || slices.Contains(otherKeys, key) {
		return true
	}
	if _, ok := choices[key]; ok {
		return true
	}
	if _, ok := refused[key]; ok {
		return true
	}
	for _, k := range coreKeys {
		if k.prop == key {
			return true
		}
	}
	for _, k := range proportionKeys {
		if k[0] == key {
			return true
		}
	}
	return false
}

// conn is the server of the mysql.* properties with go-ycsb's defaults
// (127.0.0.1:3306, root, no password, database test), nil when none is set.
func (r *reader) conn() *mysql.Config {
	set := false
	for _, k := range connKeys {
		set = set || r.has(k)
	}
	if !set {
		return nil
	}
	cfg := mysql.NewConfig()
	port := r.int("mysql.port", 3306)
	if port < 1 || port > 65535 {
		r.fail("mysql.port=%d: not a port", port)
	}
	cfg.Net, cfg.Addr = "tcp", net.JoinHostPort(r.str("mysql.host", "127.0.0.1"), strconv.FormatInt(port, 10))
	cfg.User, cfg.Passwd, cfg.DBName = r.str("mysql.user", "root"), r.str("mysql.password", ""), r.str("mysql.db", "test")
	cfg.Timeout = db.DefaultConnectTimeout
	return cfg
}

// DefaultConn is go-ycsb's server when no mysql.* property is set.
func DefaultConn() *mysql.Config {
	cfg := mysql.NewConfig()
	cfg.Net, cfg.Addr, cfg.User, cfg.DBName = "tcp", "127.0.0.1:3306", "root", "test"
	cfg.Timeout = db.DefaultConnectTimeout
	return cfg
}

// orList is "a", "a or b", "a, b or c".
func orList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}
