package sysbench

import (
	"fmt"
	"math"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Compatibility profiles.
const (
	Profile1020   = "1.0.20"
	ProfileMaster = "master"
)

// Options are sysbench's options: general, random numbers, database and
// those of oltp_common.lua and the other scripts. Defaults come from
// Defaults(profile).
type Options struct {
	Profile string

	Threads        int
	Time           int64 // seconds; 0 = no limit
	Events         int64
	Rate           int64
	ReportInterval int64 // seconds; 0 = no interval reports
	Percentile     float64
	Histogram      bool
	WarmupTime     int64 // seconds (master)
	// ReconnectTimeout bounds reconnect attempts after a lost connection (seconds).
	ReconnectTimeout int64
	ForcedShutdown   string

	RandType       string
	RandSeed       int64
	RandSpecIter   int
	RandSpecPct    float64
	RandSpecRes    float64
	RandParetoH    float64
	RandZipfianExp float64

	PSMode       string
	IgnoreErrors string
	DBDriver     string

	TableSize          int64
	RangeSize          int64
	Tables             int
	PointSelects       int
	SimpleRanges       int
	SumRanges          int
	OrderRanges        int
	DistinctRanges     int
	IndexUpdates       int
	NonIndexUpdates    int
	DeleteInserts      int
	RangeSelects       bool
	AutoInc            bool
	AutoRandom         bool // TiDB: BIGINT AUTO_RANDOM primary key (starbench extension)
	AutoRandomIDs      bool // MySQL/MariaDB standing in for AUTO_RANDOM: ids drawn as TiDB's would be (starbench extension)
	SkipTrx            bool
	Secondary          bool
	CreateSecondary    bool
	StorageEngine      string
	CreateTableOptions string
	RandomPoints       int
	NumberOfRanges     int
	Delta              int64

	// Legacy oltp_legacy scripts (seed reports still print these).
	OltpTestMode string
}

// Defaults returns sysbench's defaults for a profile.
func Defaults(profile string) Options {
	o := Options{
		Profile: profile, Threads: 1, Time: 10, Percentile: 95, ForcedShutdown: "off", ReconnectTimeout: 30,
		RandType: "special", RandSpecIter: 12, RandSpecPct: 1, RandSpecRes: 75, RandParetoH: 0.2, RandZipfianExp: 0.8,
		PSMode: "auto", IgnoreErrors: "1213,1020,1205", DBDriver: "mysql",
		TableSize: 10000, RangeSize: 100, Tables: 1, PointSelects: 10, SimpleRanges: 1, SumRanges: 1, OrderRanges: 1,
		DistinctRanges: 1, IndexUpdates: 1, NonIndexUpdates: 1, DeleteInserts: 1, RangeSelects: true, AutoInc: true,
		CreateSecondary: true, StorageEngine: "innodb", RandomPoints: 10, NumberOfRanges: 10, Delta: 5,
		OltpTestMode: "complex",
	}
	if profile == ProfileMaster {
		o.RandType = "uniform"
	}
	return o
}

// Option describes one option for parsing, validation and help.
type Option struct {
	Name    string // with underscores; dashes are accepted too
	Help    string
	Group   string // general, rand, db, oltp, legacy
	Aliases []string
	field   func(o *Options) any
	check   func(o *Options) error
	master  bool // only in the master profile
}

func atLeast(name string, get func(o *Options) int64, min int64) func(o *Options) error {
	return func(o *Options) error {
		if v := get(o); v < min {
			return fmt.Errorf("invalid value for --%s: %d (must be at least %d)", strings.ReplaceAll(name, "_", "-"), v, min)
		}
		return nil
	}
}

// maxSeconds is the most seconds a time.Duration holds.
const maxSeconds = math.MaxInt64 / int64(time.Second)

// seconds checks an option counted in seconds: at least min, and few
// enough to be a duration (more would wrap around to a negative one).
func seconds(name string, get func(o *Options) int64, min int64) func(o *Options) error {
	atLeastMin := atLeast(name, get, min)
	return func(o *Options) error {
		if v := get(o); v > maxSeconds {
			return fmt.Errorf("invalid value for --%s: %d (must be at most %d seconds)", strings.ReplaceAll(name, "_", "-"), v, maxSeconds)
		}
		return atLeastMin(o)
	}
}

// Table is every option starbench's sysbench accepts.
var Table = []Option{
	{Name: "threads", Group: "general", Help: "number of threads to use", Aliases: []string{"num_threads"},
		field: func(o *Options) any { return &o.Threads }, check: atLeast("threads", func(o *Options) int64 { return int64(o.Threads) }, 1)},
	{Name: "events", Group: "general", Help: "limit for total number of events (0: no limit)", Aliases: []string{"max_requests"},
		field: func(o *Options) any { return &o.Events }, check: atLeast("events", func(o *Options) int64 { return o.Events }, 0)},
	{Name: "time", Group: "general", Help: "limit for total execution time in seconds (0: no limit)", Aliases: []string{"max_time"},
		field: func(o *Options) any { return &o.Time }, check: seconds("time", func(o *Options) int64 { return o.Time }, 0)},
	{Name: "rate", Group: "general", Help: "average transactions rate, events/s in total (0: unlimited, closed loop); an open loop: latency counts from each event's scheduled start", Aliases: []string{"tx_rate"},
		field: func(o *Options) any { return &o.Rate }, check: atLeast("rate", func(o *Options) int64 { return o.Rate }, 0)},
	{Name: "report_interval", Group: "general", Help: "report intermediate statistics every N seconds (0: off)",
		field: func(o *Options) any { return &o.ReportInterval }, check: seconds("report_interval", func(o *Options) int64 { return o.ReportInterval }, 0)},
	{Name: "percentile", Group: "general", Help: "percentile to report in latency statistics (1-100; 0 disables)",
		field: func(o *Options) any { return &o.Percentile }, check: func(o *Options) error {
			if o.Percentile < 0 || o.Percentile > 100 {
				return fmt.Errorf("invalid value for --percentile: %v (must be 0-100)", o.Percentile)
			}
			return nil
		}},
	{Name: "histogram", Group: "general", Help: "print a latency histogram in the report", field: func(o *Options) any { return &o.Histogram }},
	{Name: "warmup_time", Group: "general", Help: "run load for N seconds before counting anything (master; accepted in 1.0.20 too)",
		field: func(o *Options) any { return &o.WarmupTime }, check: seconds("warmup_time", func(o *Options) int64 { return o.WarmupTime }, 0)},
	{Name: "reconnect_timeout", Group: "general", Help: "seconds a thread tries to reconnect after losing its connection before the run fails (starbench extension)",
		field: func(o *Options) any { return &o.ReconnectTimeout }, check: seconds("reconnect_timeout", func(o *Options) int64 { return o.ReconnectTimeout }, 1)},
	{Name: "forced_shutdown", Group: "general", Help: "accepted for compatibility; starbench always stops after the current event",
		field: func(o *Options) any { return &o.ForcedShutdown }},
	{Name: "rand_type", Group: "rand", Help: "random numbers distribution {uniform, gaussian, special, pareto, zipfian}",
		field: func(o *Options) any { return &o.RandType }, check: func(o *Options) error {
			switch o.RandType {
			case "uniform", "gaussian", "special", "pareto":
				return nil
			case "zipfian":
				if o.Profile == ProfileMaster {
					return nil
				}
				return fmt.Errorf("invalid random numbers distribution: zipfian (only in the master profile; add --profile=master)")
			}
			return fmt.Errorf("invalid random numbers distribution: %s (want uniform, gaussian, special, pareto or zipfian)", o.RandType)
		}},
	{Name: "rand_seed", Group: "rand", Help: "seed for the random number generators (0: the run seed)", field: func(o *Options) any { return &o.RandSeed }},
	{Name: "rand_spec_iter", Group: "rand", Help: "number of iterations for the special distribution",
		field: func(o *Options) any { return &o.RandSpecIter }, check: atLeast("rand_spec_iter", func(o *Options) int64 { return int64(o.RandSpecIter) }, 1)},
	{Name: "rand_spec_pct", Group: "rand", Help: "percentage of values treated as 'special' (special distribution)",
		field: func(o *Options) any { return &o.RandSpecPct }, check: pct("rand_spec_pct", func(o *Options) float64 { return o.RandSpecPct })},
	{Name: "rand_spec_res", Group: "rand", Help: "percentage of 'special' values to use (special distribution)",
		field: func(o *Options) any { return &o.RandSpecRes }, check: pct("rand_spec_res", func(o *Options) float64 { return o.RandSpecRes })},
	{Name: "rand_pareto_h", Group: "rand", Help: "parameter h of the pareto distribution",
		field: func(o *Options) any { return &o.RandParetoH }, check: func(o *Options) error {
			if o.RandParetoH <= 0 || o.RandParetoH >= 1 {
				return fmt.Errorf("invalid value for --rand-pareto-h: %v (must be between 0 and 1)", o.RandParetoH)
			}
			return nil
		}},
	{Name: "rand_zipfian_exp", Group: "rand", Help: "exponent of the zipfian distribution (master)", master: true,
		field: func(o *Options) any { return &o.RandZipfianExp }, check: func(o *Options) error {
			if o.RandZipfianExp <= 0 {
				return fmt.Errorf("invalid value for --rand-zipfian-exp: %v (must be positive)", o.RandZipfianExp)
			}
			return nil
		}},
	{Name: "db_ps_mode", Group: "db", Help: "prepared statements usage mode {auto, disable}",
		field: func(o *Options) any { return &o.PSMode }, check: func(o *Options) error {
			if o.PSMode != "auto" && o.PSMode != "disable" {
				return fmt.Errorf("invalid value for --db-ps-mode: %s (want auto or disable)", o.PSMode)
			}
			return nil
		}},
	{Name: "db_driver", Group: "db", Help: "database driver; only mysql", field: func(o *Options) any { return &o.DBDriver }, check: func(o *Options) error {
		if o.DBDriver != "mysql" {
			return fmt.Errorf("invalid value for --db-driver: %s (starbench speaks the MySQL protocol only)", o.DBDriver)
		}
		return nil
	}},
	{Name: "mysql_ignore_errors", Group: "db", Help: "MySQL error codes to ignore, comma-separated, or 'all'",
		field: func(o *Options) any { return &o.IgnoreErrors }, check: func(o *Options) error {
			_, _, err := o.IgnoredErrors()
			return err
		}},
	{Name: "table_size", Group: "oltp", Help: "number of rows per table", Aliases: []string{"oltp_table_size"},
		field: func(o *Options) any { return &o.TableSize }, check: atLeast("table_size", func(o *Options) int64 { return o.TableSize }, 0)},
	{Name: "range_size", Group: "oltp", Help: "range size for range SELECT queries", Aliases: []string{"oltp_range_size"},
		field: func(o *Options) any { return &o.RangeSize }, check: atLeast("range_size", func(o *Options) int64 { return o.RangeSize }, 1)},
	{Name: "tables", Group: "oltp", Help: "number of tables", Aliases: []string{"oltp_tables_count"},
		field: func(o *Options) any { return &o.Tables }, check: atLeast("tables", func(o *Options) int64 { return int64(o.Tables) }, 1)},
	countOption("point_selects", "number of point SELECT queries per transaction", func(o *Options) *int { return &o.PointSelects }, "oltp_point_selects"),
	countOption("simple_ranges", "number of simple range SELECT queries per transaction", func(o *Options) *int { return &o.SimpleRanges }, "oltp_simple_ranges"),
	countOption("sum_ranges", "number of SELECT SUM() queries per transaction", func(o *Options) *int { return &o.SumRanges }, "oltp_sum_ranges"),
	countOption("order_ranges", "number of SELECT ORDER BY queries per transaction", func(o *Options) *int { return &o.OrderRanges }, "oltp_order_ranges"),
	countOption("distinct_ranges", "number of SELECT DISTINCT queries per transaction", func(o *Options) *int { return &o.DistinctRanges }, "oltp_distinct_ranges"),
	countOption("index_updates", "number of UPDATE index queries per transaction", func(o *Options) *int { return &o.IndexUpdates }, "oltp_index_updates"),
	countOption("non_index_updates", "number of UPDATE non-index queries per transaction", func(o *Options) *int { return &o.NonIndexUpdates }, "oltp_non_index_updates"),
	countOption("delete_inserts", "number of DELETE/INSERT combinations per transaction", func(o *Options) *int { return &o.DeleteInserts }, "oltp_delete_inserts"),
	{Name: "range_selects", Group: "oltp", Help: "enable/disable all range SELECT queries", Aliases: []string{"oltp_range_selects"},
		field: func(o *Options) any { return &o.RangeSelects }},
	{Name: "auto_inc", Group: "oltp", Help: "use an AUTO_INCREMENT primary key; off: client-generated ids", Aliases: []string{"oltp_auto_inc"},
		field: func(o *Options) any { return &o.AutoInc }},
	{Name: "auto_random", Group: "oltp", Help: "TiDB only (starbench extension): make id a BIGINT AUTO_RANDOM primary key instead of AUTO_INCREMENT, to spread inserts over regions",
		field: func(o *Options) any { return &o.AutoRandom }},
	{Name: "auto_random_ids", Group: "oltp", Help: "MySQL/MariaDB standing in for a TiDB AUTO_RANDOM table (starbench extension): the inserts " +
		"(oltp_insert, oltp_legacy/insert) give each row the id TiDB's AUTO_RANDOM would, random shard bits 58-62 above a counter per " +
		"table that goes on from the table's highest, into tables whose id is a plain BIGINT key",
		field: func(o *Options) any { return &o.AutoRandomIDs }, check: func(o *Options) error {
			if o.AutoRandomIDs && o.AutoRandom {
				return fmt.Errorf("auto_random_ids stands in for auto_random on servers without it: give one of them")
			}
			return nil
		}},
	{Name: "skip_trx", Group: "oltp", Help: "run every query in autocommit mode instead of explicit transactions", Aliases: []string{"oltp_skip_trx"},
		field: func(o *Options) any { return &o.SkipTrx }},
	{Name: "secondary", Group: "oltp", Help: "use a secondary index in place of the PRIMARY KEY", Aliases: []string{"oltp_secondary"},
		field: func(o *Options) any { return &o.Secondary }},
	{Name: "create_secondary", Group: "oltp", Help: "create a secondary index on k after loading", Aliases: []string{"oltp_create_secondary"},
		field: func(o *Options) any { return &o.CreateSecondary }},
	{Name: "mysql_storage_engine", Group: "oltp", Help: "storage engine of the tables", Aliases: []string{"mysql_table_engine"},
		field: func(o *Options) any { return &o.StorageEngine }},
	{Name: "create_table_options", Group: "oltp", Help: "extra options appended to CREATE TABLE", Aliases: []string{"mysql_table_options"},
		field: func(o *Options) any { return &o.CreateTableOptions }},
	{Name: "random_points", Group: "oltp", Help: "number of random points in the IN() list (select_random_points)",
		field: func(o *Options) any { return &o.RandomPoints }, check: atLeast("random_points", func(o *Options) int64 { return int64(o.RandomPoints) }, 1)},
	{Name: "number_of_ranges", Group: "oltp", Help: "number of random BETWEEN ranges per SELECT (select_random_ranges)",
		field: func(o *Options) any { return &o.NumberOfRanges }, check: atLeast("number_of_ranges", func(o *Options) int64 { return int64(o.NumberOfRanges) }, 1)},
	{Name: "delta", Group: "oltp", Help: "size of BETWEEN ranges (select_random_ranges)", field: func(o *Options) any { return &o.Delta }},
	{Name: "oltp_test_mode", Group: "legacy", Help: "legacy oltp.lua test mode {simple, complex, nontrx}; accepted for old command lines",
		field: func(o *Options) any { return &o.OltpTestMode }, check: func(o *Options) error {
			switch o.OltpTestMode {
			case "simple", "complex", "nontrx":
				return nil
			}
			return fmt.Errorf("invalid value for --oltp-test-mode: %s (want simple, complex or nontrx)", o.OltpTestMode)
		}},
}

func countOption(name, help string, f func(o *Options) *int, aliases ...string) Option {
	return Option{Name: name, Group: "oltp", Help: help, Aliases: aliases,
		field: func(o *Options) any { return f(o) },
		check: atLeast(name, func(o *Options) int64 { return int64(*f(o)) }, 0)}
}

func pct(name string, get func(o *Options) float64) func(o *Options) error {
	return func(o *Options) error {
		if v := get(o); v < 0 || v > 100 {
			return fmt.Errorf("invalid value for --%s: %v (must be 0-100)", strings.ReplaceAll(name, "_", "-"), v)
		}
		return nil
	}
}

// LookupOption finds an option by name or alias; dashes and underscores
// are the same.
func LookupOption(name string) (*Option, bool) {
	name = strings.ReplaceAll(strings.TrimLeft(name, "-"), "-", "_")
	for i := range Table {
		opt := &Table[i]
		if opt.Name == name {
			return opt, true
		}
		for _, a := range opt.Aliases {
			if a == name {
				return opt, true
			}
		}
	}
	return nil, false
}

// Set parses text into the option's field.
func (o *Options) Set(name, text string) error {
	opt, ok := LookupOption(name)
	if !ok {
		return fmt.Errorf("invalid option: --%s", strings.ReplaceAll(name, "_", "-"))
	}
	return opt.set(o, text)
}

// SetValue sets an option from a typed value, as a plan's keyword gives
// it: an int64, a float64 (an integer option takes a whole one), a bool
// (for switches) or a string, which is read as on the command line.
func (o *Options) SetValue(name string, v any) error {
	opt, ok := LookupOption(name)
	if !ok {
		return fmt.Errorf("invalid option: --%s", strings.ReplaceAll(name, "_", "-"))
	}
	if text, ok := v.(string); ok {
		return opt.set(o, text)
	}
	flag := "--" + strings.ReplaceAll(opt.Name, "_", "-")
	switch p := opt.field(o).(type) {
	case *bool:
		b, ok := v.(bool)
		if !ok {
			return fmt.Errorf("invalid value for %s: %v (want on or off, True or False)", flag, v)
		}
		*p = b
		return nil
	case *string:
		return opt.set(o, fmt.Sprint(v))
	}
	var n float64
	switch x := v.(type) {
	case int64:
		switch p := opt.field(o).(type) {
		case *int64:
			*p = x
		case *int:
			if x != int64(int(x)) {
				return fmt.Errorf("invalid value for %s: %d is out of range", flag, x)
			}
			*p = int(x)
		case *float64:
			*p = float64(x)
		}
		return nil
	case float64:
		n = x
	default:
		return fmt.Errorf("invalid value for %s: %v is not a number", flag, v)
	}
	if math.IsNaN(n) || math.IsInf(n, 0) {
		return fmt.Errorf("invalid value for %s: %v is not a number", flag, n)
	}
	switch p := opt.field(o).(type) {
	case *float64:
		*p = n
	case *int, *int64:
		if n != math.Trunc(n) || math.Abs(n) > 1<<53 {
			return fmt.Errorf("invalid value for %s: %v is not an integer", flag, n)
		}
		return opt.SetValue(o, int64(n))
	}
	return nil
}

// SetValue is Options.SetValue for this option.
func (opt *Option) SetValue(o *Options, v any) error { return o.SetValue(opt.Name, v) }

func (opt *Option) set(o *Options, text string) error {
	flag := "--" + strings.ReplaceAll(opt.Name, "_", "-")
	switch p := opt.field(o).(type) {
	case *int:
		n, err := strconv.Atoi(strings.TrimSpace(text))
		if err != nil {
			return fmt.Errorf("invalid value for %s: %q is not an integer", flag, text)
		}
		*p = n
	case *int64:
		n, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
		if err != nil {
			return fmt.Errorf("invalid value for %s: %q is not an integer", flag, text)
		}
		*p = n
	case *float64:
		f, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("invalid value for %s: %q is not a number", flag, text)
		}
		*p = f
	case *bool:
		switch strings.ToLower(strings.TrimSpace(text)) {
		case "", "on", "true", "yes", "1":
			*p = true
		case "off", "false", "no", "0":
			*p = false
		default:
			return fmt.Errorf("invalid value for %s: %q (want on or off)", flag, text)
		}
	case *string:
		*p = text
	default:
		return fmt.Errorf("option %s has an unsupported type", flag)
	}
	return nil
}

// IsBool reports whether the option is a switch (--name alone means on).
func (opt *Option) IsBool() bool {
	var o Options
	_, ok := opt.field(&o).(*bool)
	return ok
}

// Value formats the option's current value as sysbench prints defaults.
func (opt *Option) Value(o *Options) string {
	switch p := opt.field(o).(type) {
	case *int:
		return strconv.Itoa(*p)
	case *int64:
		return strconv.FormatInt(*p, 10)
	case *float64:
		return strconv.FormatFloat(*p, 'f', -1, 64)
	case *bool:
		if *p {
			return "on"
		}
		return "off"
	case *string:
		return *p
	}
	return ""
}

// Validate checks every option's value.
func (o *Options) Validate() error {
	if o.Profile != Profile1020 && o.Profile != ProfileMaster {
		return fmt.Errorf("unknown profile %q (want %s or %s)", o.Profile, Profile1020, ProfileMaster)
	}
	for i := range Table {
		if c := Table[i].check; c != nil {
			if err := c(o); err != nil {
				return err
			}
		}
	}
	return nil
}

// IgnoredErrors parses --mysql-ignore-errors.
func (o *Options) IgnoredErrors() (codes []uint16, all bool, err error) {
	s := strings.TrimSpace(o.IgnoreErrors)
	if s == "" || s == "none" {
		return nil, false, nil
	}
	if s == "all" {
		return nil, true, nil
	}
	for _, part := range strings.Split(s, ",") {
		n, err := strconv.ParseUint(strings.TrimSpace(part), 10, 16)
		if err != nil {
			return nil, false, fmt.Errorf("invalid value for --mysql-ignore-errors: %q (want error codes like 1213,1205 or 'all')", part)
		}
		codes = append(codes, uint16(n))
	}
	sort.Slice(codes, func(i, j int) bool { return codes[i] < codes[j] })
	return codes, false, nil
}

// Duration is the --time limit.
func (o *Options) Duration() time.Duration { return time.Duration(o.Time) * time.Second }

// Map lists every option's value by name, for results that must say
// exactly how a run was configured.
func (o *Options) Map() map[string]any {
	m := map[string]any{"profile": o.Profile}
	for i := range Table {
		opt := &Table[i]
		if opt.master && o.Profile != ProfileMaster {
			continue
		}
		switch p := opt.field(o).(type) {
		case *int:
			m[opt.Name] = *p
		case *int64:
			m[opt.Name] = *p
		case *float64:
			m[opt.Name] = *p
		case *bool:
			m[opt.Name] = *p
		case *string:
			m[opt.Name] = *p
		}
	}
	return m
}

// HelpText lists a script's options the way `sysbench SCRIPT help` does,
// headed by the script's name as given (its base name: oltp_read_write.lua
// when given as a path) and ended by a blank line.
func HelpText(script *Script, given string, o *Options) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s options:\n", path.Base(given))
	var rows [][2]string
	for i := range Table {
		opt := &Table[i]
		if opt.Group != "oltp" {
			continue
		}
		switch opt.Name {
		case "random_points":
			if script.Name != "select_random_points" {
				continue
			}
		case "number_of_ranges", "delta":
			if script.Name != "select_random_ranges" {
				continue
			}
		}
		flag := "--" + opt.Name
		if opt.IsBool() {
			flag += "[=on|off]"
		} else if _, ok := opt.field(o).(*string); ok {
			flag += "=STRING"
		} else {
			flag += "=N"
		}
		rows = append(rows, [2]string{flag, fmt.Sprintf("%s [%s]", opt.Help, opt.Value(o))})
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i][0] < rows[j][0] })
	width := 0
	for _, r := range rows {
		if len(r[0]) > width {
			width = len(r[0])
		}
	}
	for _, r := range rows {
		fmt.Fprintf(&b, "  %-*s %s\n", width, r[0], r[1])
	}
	b.WriteString("\n")
	return b.String()
}

// GeneralHelp lists the general, random-number and database options.
func GeneralHelp(o *Options) string {
	var b strings.Builder
	for _, group := range []struct{ name, title string }{{"general", "General options"}, {"rand", "Pseudo-Random Numbers Generator options"}, {"db", "Database options"}, {"legacy", "Legacy options (accepted from old command lines)"}} {
		fmt.Fprintf(&b, "%s:\n", group.title)
		for i := range Table {
			opt := &Table[i]
			if opt.Group != group.name {
				continue
			}
			name := "--" + strings.ReplaceAll(opt.Name, "_", "-")
			fmt.Fprintf(&b, "  %-28s %s [%s]\n", name, opt.Help, opt.Value(o))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// ignoreHint says, for a server error that stopped a run, how to count it
// and go on instead, and what sysbench does: sysbench 1.0.20 stops on an
// error not in --mysql-ignore-errors as well (checked on TiDB's 9007: each
// thread that meets it exits with "FATAL: `thread_run' function failed",
// and sysbench prints no statistics).
func (o *Options) ignoreHint(code uint16) string {
	list := strings.TrimSpace(o.IgnoreErrors)
	with := fmt.Sprint(code)
	if list != "" && list != "none" {
		with = list + "," + with
	}
	return fmt.Sprintf("error %d is not in --mysql-ignore-errors=%s: give --mysql-ignore-errors=%s (mysql_ignore_errors= in a plan) "+
		"to roll such events back, count them as ignored errors and go on; sysbench stops on it too, printing no statistics", code, list, with)
}
