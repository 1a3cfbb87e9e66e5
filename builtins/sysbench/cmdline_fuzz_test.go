package sysbench_test

import (
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/starbench/starbench/builtins/sysbench"
)

// fuzzArgs splits a fuzzed command line: at NUL bytes when it has any (so
// that values may hold spaces), else at white space as a shell would.
func fuzzArgs(line string) []string {
	if strings.Contains(line, "\x00") {
		return strings.Split(line, "\x00")
	}
	return strings.Fields(line)
}

// canonicalArgs writes a parsed command line back as arguments: the
// script, the command, and every option given as --name=value.
func canonicalArgs(cl *sysbench.CommandLine) []string {
	args := []string{cl.Script, cl.Command, "--profile=" + cl.Options.Profile}
	for i := range sysbench.Table {
		opt := &sysbench.Table[i]
		if _, given := cl.Given[opt.Name]; given {
			args = append(args, "--"+strings.ReplaceAll(opt.Name, "_", "-")+"="+opt.Value(&cl.Options))
		}
	}
	m := cl.MySQL
	if m.Given { // an empty --mysql-host= still says: connect with --mysql-*
		args = append(args, "--mysql-host="+strings.Join(m.Hosts, ","))
	}
	if len(m.Ports) > 0 {
		ports := make([]string, len(m.Ports))
		for i, p := range m.Ports {
			ports[i] = strconv.Itoa(p)
		}
		args = append(args, "--mysql-port="+strings.Join(ports, ","))
	}
	if m.Socket != "" {
		args = append(args, "--mysql-socket="+m.Socket)
	}
	args = append(args, "--mysql-user="+m.User, "--mysql-password="+m.Password, "--mysql-db="+m.DB)
	for name, v := range map[string]string{"target": cl.Target, "out": cl.Out, "if-exists": cl.IfExists, "load-method": cl.Load} {
		if v != "" {
			args = append(args, "--"+name+"="+v)
		}
	}
	return args
}

// FuzzParseCommandLine: a sysbench command line that parses has finite
// numbers, durations in seconds that fit a time.Duration, and written back
// canonically (script, command, --name=value) it parses to the same
// command line. When it names a known workload, the workload accepts the
// options and its random numbers stay in [1, table size].
func FuzzParseCommandLine(f *testing.F) {
	f.Add("oltp_point_select --mysql-host=127.0.0.1 --mysql-port=4000 --mysql-user=root --tables=16 --table-size=10000 --threads=150 --time=300 --report-interval=10 run")
	f.Add("--threads 4 oltp_read_only --table_size=50 --range-selects=off run --skip-trx --rand-type uniform")
	f.Fuzz(func(t *testing.T, line string) {
		args := fuzzArgs(line)
		cl, err := sysbench.ParseCommandLine(args)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("%q: empty error", args)
			}
			return
		}
		if cl.Help || cl.Version {
			return
		}
		o := cl.Options
		rv := reflect.ValueOf(o)
		for i := 0; i < rv.NumField(); i++ {
			if fv := rv.Field(i); fv.Kind() == reflect.Float64 && (math.IsNaN(fv.Float()) || math.IsInf(fv.Float(), 0)) {
				t.Fatalf("%q: option %s is %v", args, rv.Type().Field(i).Name, fv.Float())
			}
		}
		for name, secs := range map[string]int64{"time": o.Time, "warmup-time": o.WarmupTime, "report-interval": o.ReportInterval, "reconnect-timeout": o.ReconnectTimeout} {
			if d := time.Duration(secs) * time.Second; d < 0 || int64(d/time.Second) != secs {
				t.Fatalf("%q: --%s=%d seconds is %v as a duration", args, name, secs, d)
			}
		}
		back := canonicalArgs(cl)
		again, err := sysbench.ParseCommandLine(back)
		if err != nil {
			t.Fatalf("%q parses, but written back as %q it does not: %v", args, back, err)
		}
		if again.Script != cl.Script || again.Command != cl.Command || again.Target != cl.Target || again.Out != cl.Out ||
			again.IfExists != cl.IfExists || again.Load != cl.Load || !reflect.DeepEqual(again.MySQL, cl.MySQL) || !reflect.DeepEqual(again.Options, cl.Options) {
			t.Fatalf("%q written back as %q parses differently:\n%+v\n%+v", args, back, cl, again)
		}
		wl, err := sysbench.NewWorkload(cl.Script, o)
		if err != nil {
			return // an unknown script, or options the script refuses
		}
		if wl.Options.Threads < 1 {
			t.Fatalf("%q: %d threads", args, wl.Options.Threads)
		}
		n := o.TableSize
		if n < 1 {
			n = 1
		}
		r := sysbench.NewRand(uint64(o.RandSeed), &wl.Options)
		for i := 0; i < 64; i++ {
			if v := r.Default(1, n); v < 1 || v > n {
				t.Fatalf("%q: --rand-type=%s drew %d, outside [1, %d]", args, o.RandType, v, n)
			}
		}
	})
}
