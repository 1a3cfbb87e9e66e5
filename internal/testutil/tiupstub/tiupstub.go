// Package tiupstub is a test stand-in for tiup, the TiDB cluster manager,
// which cannot run on test machines: a program (cmd/tiup) that keeps the
// command-line contract of tiup v1.16.5 (github.com/pingcap/tiup at tag
// v1.16.5) wherever starbench's standard library relies on it, so that
// stdlib/tidb.star is tested against what tiup accepts, asks and prints,
// not against a fake that accepts anything. It is not tiup: nothing is
// deployed, no host is contacted.
//
// What it keeps (each checked against tiup's source, cited where it is
// kept):
//   - `tiup --version` and `tiup cluster --version` print what tiup prints
//     (pkg/version: "1.16.5 tiup", Go version, git ref and hash; cobra's
//     "tiup version ..." for the component).
//   - `tiup cluster` is a cobra command tree with tiup-cluster's global
//     flags (--yes/-y, --format, --ssh, --ssh-timeout, --wait-timeout,
//     --concurrency, ...) and the subcommands deploy, start, stop, restart,
//     reload, display, edit-config, show-config, clean and destroy with
//     their flags (components/cluster/command). An unknown flag is refused
//     as cobra refuses it ("Error: unknown flag: --foo", exit 1); a
//     subcommand given the wrong number of arguments prints its help and
//     exits 0, as tiup's do.
//   - Confirmations where tiup asks for them (pkg/cluster/manager):
//     deploy (unless --format json), stop, restart, reload, edit-config
//     (before applying a change), clean (twice) and destroy (which wants
//     "Yes, I know my cluster and data will be deleted." typed out). Without
//     --yes and without that answer on stdin the command fails with
//     "Operation aborted by user (with answer '...')" and exit 1.
//   - Topology files are read as tiup reads them (pkg/cluster/spec): strict
//     YAML, unknown keys refused with the line and tiup's type, hosts and
//     ports checked, port conflicts refused. See topology.go for what is
//     modeled.
//   - What a cluster's topology is: the specification tiup makes of the
//     deploy file and stores (every default filled, directories made
//     absolute, arch and os from the hosts; spec.go), not the file.
//     show-config prints yaml.Marshal of it (manager.ShowConfig).
//   - edit-config (manager.EditConfig, editTopo) with --topology-file takes
//     that file; without it runs $EDITOR (vi when unset) on a temporary
//     file holding yaml.Marshal of the stored specification, as ONE
//     executable name looked up on PATH (exec.LookPath of the whole value,
//     pkg/utils/edit.go), so EDITOR='cp FILE' fails as with tiup. A new
//     topology that does not parse or whose specification changes what is
//     immutable (utils.ValidateSpecDiff: instances added or removed, hosts,
//     ports, directories, arch, os, ...) is refused with "New topology
//     could not be saved", tiup's "immutable field changed: ..." and
//     "Nothing changed." - and exit 0, as tiup does; so is, in general,
//     the very file deploy was given (its log and relative data
//     directories, arch and os differ from the stored ones). A new file
//     byte-equal to the marshalled specification is "The file has nothing
//     changed"; any other is shown as a diff, confirmed (unless --yes) and
//     stored as the specification made of it.
//   - display --format json prints manager.JSONOutput: cluster_meta
//     (cluster_type, cluster_name, cluster_version, deploy_user, ssh_type,
//     tls_enabled, dashboard_url, ...) and instances, each with id, role,
//     host, manage_host, ports, os_arch, status, memory, memory_limit,
//     cpu_quota, since, data_dir, deploy_dir, numa_node, numa_cores,
//     version, ComponentName and Port, sorted by role, host and ports;
//     statuses are tiup's (Up, Up|L, Up|L|UI, Down, N/A, Offline, Pending
//     Offline, Tombstone, Disconnected, ...), as the test sets them
//     (Stub.SetStatus) or, by default, healthy while the cluster runs.
//   - `tiup playground` (the flags tidb.playground passes) prints tiup's
//     readiness line and runs until `tiup clean TAG` kills it.
//
// State lives in the directory $TIUPSTUB_HOME (see state.go); every call
// is recorded there with its arguments, $EDITOR and the topology file it
// was given, for tests to assert on. Front (front.go) relays SQL to a real
// MariaDB and answers TiDB's information_schema tables that the stand-in
// cluster's state decides.
package tiupstub

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
)

// Version is the tiup release whose contract the stand-in keeps.
const Version = "1.16.5"

// versionText is pkg/version's TiUPVersion.String().
func versionText() string {
	return fmt.Sprintf("%s tiup\nGo Version: %s\nGit Ref: v%s\nGitHash: tiupstub", Version, runtime.Version(), Version)
}

// env is one invocation.
type env struct {
	st             state
	stdin          io.Reader
	lines          *bufio.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	call           *Call

	yes      bool
	format   string
	sshType  string
	recorded bool // the call is in calls.jsonl already
}

func (e *env) readLine() string {
	s, err := e.lines.ReadString('\n')
	if err != nil && s == "" {
		return ""
	}
	return strings.TrimSuffix(s, "\n")
}

// Main runs the stand-in with args (without the program name) and returns
// its exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	home := os.Getenv(HomeEnv)
	if home == "" {
		fmt.Fprintf(stderr, "tiup stand-in: %s is not set (the directory where it keeps its state)\n", HomeEnv)
		return 2
	}
	var outBuf, errBuf bytes.Buffer
	call := &Call{Args: args, Editor: os.Getenv("EDITOR")}
	e := &env{
		st: state{home: home}, stdin: stdin, lines: bufio.NewReaderSize(oneByte{stdin}, 1),
		stdout: io.MultiWriter(stdout, &outBuf), stderr: io.MultiWriter(stderr, &errBuf),
		getenv: os.Getenv, call: call,
	}
	code := e.run(args)
	if e.recorded {
		return code
	}
	call.ExitCode, call.Stdout, call.Stderr = code, outBuf.String(), errBuf.String()
	if err := e.st.appendCall(*call); err != nil {
		fmt.Fprintf(stderr, "tiup stand-in: record the call: %v\n", err)
		return 2
	}
	return code
}

// oneByte reads a byte at a time, so that each prompt consumes one line of
// stdin and no more.
type oneByte struct{ r io.Reader }

func (o oneByte) Read(p []byte) (int, error) {
	if len(p) > 1 {
		p = p[:1]
	}
	return o.r.Read(p)
}

// run is tiup's root command, which does its own argument handling
// (cmd/root.go: flags before the component, then the component's
// arguments passed on untouched).
func (e *env) run(args []string) int {
	if len(args) == 0 || args[0] == "--help" || args[0] == "-h" {
		fmt.Fprintln(e.stdout, "TiUP is a command-line component management tool (this is a test stand-in).\n\nUsage:\n  tiup [flags] <command> [args...]\n  tiup [flags] <component> [args...]")
		return 0
	}
	switch component, _, _ := strings.Cut(args[0], ":"); component {
	case "--version", "-v":
		fmt.Fprintln(e.stdout, versionText())
		return 0
	case "cluster":
		return e.execute(e.clusterCommand(), args[1:])
	case "playground":
		return e.execute(e.playgroundCommand(), args[1:])
	case "clean":
		return e.execute(e.cleanInstanceCommand(), args[1:])
	default:
		fmt.Fprintf(e.stderr, "Error: the tiup stand-in does not model `tiup %s`\n", args[0])
		return 1
	}
}

// execute runs a component's cobra tree and prints its error as the
// component's Execute does: "Error: ..." on stderr, or with --format json
// {"exit_code":N,"error":"..."}.
func (e *env) execute(cmd *cobra.Command, args []string) int {
	cmd.SetArgs(args)
	cmd.SetIn(e.stdin)
	cmd.SetOut(e.stdout)
	cmd.SetErr(e.stderr)
	err := cmd.Execute()
	code := 0
	if err != nil {
		code = 1
	}
	if e.jsonMode() {
		obj := fmt.Sprintf(`{"exit_code":%d}`, code)
		if err != nil {
			obj = fmt.Sprintf(`{"exit_code":%d,"error":%s}`, code, strconv.Quote(err.Error()))
		}
		fmt.Fprintln(e.stderr, obj)
		return code
	}
	if err != nil {
		var te *tiupError
		if errors.As(err, &te) {
			fmt.Fprintf(e.stderr, "\nError: %s", te.print())
		} else {
			fmt.Fprintf(e.stderr, "\nError: %s\n", err)
		}
	}
	return code
}

// playground is what a running `tiup playground` records.
type playground struct {
	Tag     string `json:"tag"`
	PID     int    `json:"pid"`
	Host    string `json:"host"`
	DBPort  int    `json:"db_port"`
	DB      int    `json:"db"`
	KV      int    `json:"kv"`
	PD      int    `json:"pd"`
	TiFlash int    `json:"tiflash"`
	Version string `json:"version"`
}

// PlaygroundPlan is how `tiup playground` behaves (playground.json in the
// state directory): it is ready after ReadyAfter, or exits with Fail
// (Playground bootstrapping failed) instead.
type PlaygroundPlan struct {
	ReadyAfter time.Duration `json:"ready_after"`
	Fail       string        `json:"fail,omitempty"`
}

func (e *env) playgroundCommand() *cobra.Command {
	p := playground{}
	var tiproxy int
	cmd := &cobra.Command{
		Use:           "tiup playground [version]",
		Short:         "Bootstrap a TiDB cluster in your local host",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       versionText(),
		Args:          cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				p.Version = args[0]
			}
			if tiproxy > 0 {
				return fmt.Errorf("the tiup stand-in does not model TiProxy in the playground")
			}
			if p.DBPort == 0 {
				p.DBPort = 4000
			}
			for _, n := range []*int{&p.DB, &p.KV, &p.PD} {
				if *n == 0 {
					*n = 1
				}
			}
			if p.Tag == "" {
				p.Tag = fmt.Sprintf("stub%d", os.Getpid())
			}
			var plan PlaygroundPlan
			if err := readJSON(filepath.Join(e.st.home, "playground.json"), &plan); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
			p.PID = os.Getpid()
			stateFile := filepath.Join(e.st.home, "playgrounds", p.Tag, "state.json")
			if err := writeJSON(stateFile, p); err != nil {
				return err
			}
			signals := make(chan os.Signal, 1)
			signal.Notify(signals, syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM, syscall.SIGQUIT)
			fmt.Fprintf(e.stdout, "Start pd instance: %s\nStart tikv instance: %s\nStart tidb instance: %s\n", p.Version, p.Version, p.Version)
			select {
			case <-time.After(plan.ReadyAfter):
			case sig := <-signals:
				fmt.Fprintf(e.stdout, "\nPlayground receive signal: %s\n", sig)
				return nil
			}
			if plan.Fail != "" {
				return fmt.Errorf("Playground bootstrapping failed: %s", plan.Fail)
			}
			fmt.Fprintf(e.stdout, "\n🎉 TiDB Playground Cluster is started, enjoy!\n\nConnect TiDB:    mysql --host %s --port %d -u root\n", p.Host, p.DBPort)
			// `tiup clean` kills the playground with SIGKILL: record the
			// call now, still running (exit code -1).
			e.call.ExitCode = -1
			if err := e.st.appendCall(*e.call); err != nil {
				return err
			}
			e.recorded = true
			sig := <-signals
			fmt.Fprintf(e.stdout, "\nPlayground receive signal: %s\n", sig)
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&p.DB, "db", 0, "TiDB instance number")
	f.IntVar(&p.KV, "kv", 0, "TiKV instance number")
	f.IntVar(&p.PD, "pd", 0, "PD instance number")
	f.IntVar(&p.TiFlash, "tiflash", 0, "TiFlash instance number")
	f.IntVar(&tiproxy, "tiproxy", 0, "TiProxy instance number")
	f.StringVar(&p.Host, "host", "127.0.0.1", "Playground cluster host")
	f.String("db.host", "", "Playground TiDB host. If not provided, TiDB will still use `host` flag as its host")
	f.IntVar(&p.DBPort, "db.port", 0, "Playground TiDB port. If not provided, TiDB will use 4000 as its port.")
	f.Bool("without-monitor", false, "Don't start prometheus and grafana component")
	f.String("mode", "tidb", "TiUP playground mode")
	f.Int("port-offset", 0, "If specified, all components will use default_port+port_offset as the port.")
	cmd.PersistentFlags().StringVarP(&p.Tag, "tag", "T", "", "Specify a tag for playground, data dir of this tag will not be removed after exit")
	return cmd
}

// cleanInstanceCommand is `tiup clean <name>|--all`: it kills a running
// playground (SIGKILL, as tiup does) and removes its data.
func (e *env) cleanInstanceCommand() *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use:           "tiup clean <name>",
		Short:         "Clean the data of instantiated components",
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 && !all {
				return cmd.Help()
			}
			dir := filepath.Join(e.st.home, "playgrounds")
			entries, err := os.ReadDir(dir)
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
			for _, d := range entries {
				if !all && !contains(args, d.Name()) {
					continue
				}
				var p playground
				if err := readJSON(filepath.Join(dir, d.Name(), "state.json"), &p); err != nil {
					fmt.Fprintf(e.stderr, "Can't clean directory due to missing meta file: %s\n", filepath.Join(dir, d.Name()))
					continue
				}
				if isPlayground(p.PID) {
					fmt.Fprintf(e.stdout, "Kill instance of `playground`, pid: %d\n", p.PID)
					if err := syscall.Kill(p.PID, syscall.SIGKILL); err != nil {
						return err
					}
				}
				if err := os.RemoveAll(filepath.Join(dir, d.Name())); err != nil {
					return err
				}
				fmt.Fprintf(e.stdout, "Clean instance of `playground`, directory: %s\n", filepath.Join(dir, d.Name()))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "Clean all data of instantiated components")
	return cmd
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// isPlayground reports whether pid is a running stand-in playground (tiup
// checks the process name before it kills).
func isPlayground(pid int) bool {
	if pid <= 0 {
		return false
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return false
	}
	args := strings.Split(string(cmdline), "\x00")
	return len(args) > 1 && args[1] == "playground"
}
