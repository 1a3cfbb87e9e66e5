package tiupstub

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	xssh "golang.org/x/crypto/ssh"
)

// tiupError is an error as tiup's errorx errors print: the message, the
// error's type and what caused it.
type tiupError struct {
	msg, kind string
	cause     error
}

func (e *tiupError) Error() string {
	if e.cause != nil {
		return e.msg + ": " + e.cause.Error()
	}
	return e.msg
}

// print writes the error the way tiup-cluster's Execute does.
func (e *tiupError) print() string {
	s := fmt.Sprintf("%s (%s)\n", e.msg, e.kind)
	if e.cause != nil {
		s += "  caused by: " + e.cause.Error() + "\n"
	}
	return s
}

func aborted(answer string) error {
	return &tiupError{msg: fmt.Sprintf("Operation aborted by user (with answer '%s')", answer), kind: "tui.operation_aborted"}
}

// allRoles is spec.AllComponentNames: what -R accepts.
var allRoles = []string{"pd", "tso", "scheduling", "router", "resource-manager", "tidb-dashboard", "tiproxy", "tikv",
	"pump", "tidb", "tiflash", "drainer", "cdc", "tikv-cdc", "prometheus", "grafana", "alertmanager", "tispark-master",
	"tispark-worker"}

func validRoles(roles []string) error {
	for _, r := range roles {
		if !slices.Contains(allRoles, r) {
			return fmt.Errorf("not valid role: %s, should be one of: %v", r, allRoles)
		}
	}
	return nil
}

var clusterName = regexp.MustCompile(`^[a-zA-Z0-9\-_\.]+$`)

func validateName(n string) error {
	if n == "" {
		return &tiupError{msg: "Cluster name must not be empty", kind: "common.invalid_cluster_name"}
	}
	if !clusterName.MatchString(n) {
		return &tiupError{msg: fmt.Sprintf("Cluster name '%s' is invalid", n), kind: "common.invalid_cluster_name"}
	}
	return nil
}

var semver = regexp.MustCompile(`^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

// fmtVer is utils.FmtVer: a v is added, the result must be SemVer
// (nightly and latest are aliases).
func fmtVer(v string) (string, error) {
	if l := strings.ToLower(v); l == "nightly" || l == "latest" {
		return v, nil
	}
	out := v
	if !strings.HasPrefix(v, "v") {
		out = "v" + v
	}
	if !semver.MatchString(out) {
		return out, fmt.Errorf("version %s is not a valid SemVer string", v)
	}
	return out, nil
}

// clusterCommand is `tiup cluster`, tiup-cluster's command tree with the
// subcommands and flags of v1.16.5 (components/cluster/command).
func (e *env) clusterCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "tiup cluster",
		Short:         "Deploy a TiDB cluster for production",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       versionText(),
	}
	cobra.EnableCommandSorting = false
	pf := root.PersistentFlags()
	pf.Uint64("ssh-timeout", 5, "Timeout in seconds to connect host via SSH, ignored for operations that don't need an SSH connection.")
	pf.Uint64("wait-timeout", 120, "Timeout in seconds to wait for an operation to complete, ignored for operations that don't fit.")
	pf.BoolVarP(&e.yes, "yes", "y", false, "Skip all confirmations and assumes 'yes'")
	pf.Bool("native-ssh", false, "(EXPERIMENTAL) Use the native SSH client installed on local system instead of the built-in one.")
	pf.StringVar(&e.sshType, "ssh", "", "(EXPERIMENTAL) The executor type: 'builtin', 'system', 'none' (default \"builtin\").")
	pf.IntP("concurrency", "c", 5, "max number of parallel tasks allowed")
	pf.StringVar(&e.format, "format", "default", "(EXPERIMENTAL) The format of output, available values are [default, json]")
	pf.String("ssh-proxy-host", "", "The SSH proxy host used to connect to remote host.")
	pf.String("ssh-proxy-user", "", "The user name used to login the proxy host.")
	pf.Int("ssh-proxy-port", 22, "The port used to login the proxy host.")
	pf.String("ssh-proxy-identity-file", "", "The identity file used to login the proxy host.")
	pf.Bool("ssh-proxy-use-password", false, "Use password to login the proxy host.")
	pf.Uint64("ssh-proxy-timeout", 5, "Timeout in seconds to connect the proxy host via SSH.")
	pf.String("profile-dir", "", "Write cpu/heap pprof profiles into this directory")
	for _, f := range []string{"native-ssh", "ssh-proxy-host", "ssh-proxy-user", "ssh-proxy-port", "ssh-proxy-identity-file",
		"ssh-proxy-use-password", "ssh-proxy-timeout"} {
		_ = pf.MarkHidden(f)
	}
	root.AddCommand(e.deployCmd(), e.startCmd(), e.stopCmd(), e.restartCmd(), e.displayCmd(), e.editConfigCmd(),
		e.showConfigCmd(), e.reloadCmd(), e.cleanCmd(), e.destroyCmd())
	// The rest of tiup-cluster's commands exist but are not modeled.
	for _, name := range []string{"check", "scale-in", "scale-out", "upgrade", "prune", "list", "audit", "patch", "rename",
		"enable", "disable", "exec", "pull", "push", "replay", "template", "tls", "meta", "rotatessh"} {
		root.AddCommand(&cobra.Command{Use: name, DisableFlagParsing: true, RunE: func(*cobra.Command, []string) error {
			return fmt.Errorf("the tiup stand-in does not model `tiup cluster %s`", name)
		}})
	}
	return root
}

func (e *env) jsonMode() bool { return strings.ToLower(e.format) == "json" }

// info and warn print log lines as tiup's logger does: plain text, or one
// JSON object per line with --format json; info to stdout, warn to stderr.
func (e *env) info(format string, args ...any) { e.log(e.stdout, "info", format, args...) }
func (e *env) warn(format string, args ...any) { e.log(e.stderr, "warn", format, args...) }

func (e *env) log(w interface{ Write([]byte) (int, error) }, level, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if e.jsonMode() {
		data, _ := json.Marshal(struct {
			Level string `json:"level"`
			Msg   string `json:"message"`
		}{level, msg})
		fmt.Fprintln(w, string(data))
		return
	}
	fmt.Fprintln(w, msg)
}

// prompt prints the question as tui.Prompt does and reads one line.
func (e *env) prompt(question string) string {
	fmt.Fprint(e.stdout, question+" ")
	return e.readLine()
}

// confirm is tui.PromptForConfirmOrAbortError: only y or yes goes on.
func (e *env) confirm(question string) error {
	ans := e.prompt(question + "(default=N)")
	switch strings.TrimSpace(strings.ToLower(ans)) {
	case "y", "yes":
		return nil
	}
	return aborted(ans)
}

// confirmAnswer is tui.PromptForAnswerOrAbortError: the answer typed out.
func (e *env) confirmAnswer(answer, question string) error {
	ans := e.prompt(question + fmt.Sprintf("\n(Type \"%s\" to continue)\n:", answer))
	if ans != answer {
		return &tiupError{msg: fmt.Sprintf("Operation aborted by user (with incorrect answer '%s')", ans), kind: "tui.operation_aborted"}
	}
	return nil
}

// cluster returns an existing cluster's record and topology.
func (e *env) cluster(name string) (*clusterMeta, *Topology, error) {
	if err := validateName(name); err != nil {
		return nil, nil, err
	}
	m, err := e.st.meta(name)
	if err != nil {
		return nil, nil, err
	}
	topo, err := e.st.topology(name)
	if err != nil {
		return nil, nil, err
	}
	return m, topo, nil
}

func (e *env) deployCmd() *cobra.Command {
	var user, identity string
	var usePassword bool
	cmd := &cobra.Command{
		Use:   "deploy <cluster-name> <version> <topology.yaml>",
		Short: "Deploy a cluster for production",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			if len(args) < 3 {
				return &tiupError{msg: fmt.Sprintf("Expect at least %d arguments, but received %d arguments", 3, len(args)), kind: "tui.mismatch_args"}
			}
			name := args[0]
			version, err := fmtVer(args[1])
			if err != nil {
				return err
			}
			if err := validateName(name); err != nil {
				return err
			}
			if e.st.exists(name) {
				return &tiupError{msg: fmt.Sprintf("Cluster name '%s' is duplicated", name), kind: "deploy.name_dup"}
			}
			data, err := os.ReadFile(args[2])
			if err != nil {
				return &tiupError{msg: "Failed to read topology file " + args[2], kind: "topology.read_failed", cause: err}
			}
			e.call.Topology = string(data)
			topo, err := ParseTopology(data)
			if err != nil {
				return &tiupError{msg: "Failed to parse topology file " + args[2], kind: "topology.parse_failed", cause: err}
			}
			if topo.CoreInstances() < 1 {
				return fmt.Errorf("no valid instance found in the input topology, please check your config")
			}
			// manager.Deploy (pkg/cluster/manager/deploy.go): ExpandRelativeDir,
			// --ssh, AdjustByVersion, then fillHost (see Topology.deployed).
			topo.deployed(version, e.sshType)
			if e.sshType != "none" {
				if err := e.checkIdentity(identity, usePassword); err != nil {
					return err
				}
			}
			if !e.yes && !e.jsonMode() {
				e.printTopology(name, version, topo)
				if err := e.confirm("Do you want to continue? [y/N]: "); err != nil {
					return err
				}
			}
			m := &clusterMeta{Name: name, Version: version, User: user, IdentityFile: identity, SSHType: topo.SSHType()}
			// What tiup stores (meta.yaml's topology) is the specification
			// it made of the file, not the file.
			if err := e.st.saveTopology(name, topo); err != nil {
				return err
			}
			if err := e.st.saveMeta(m); err != nil {
				return err
			}
			e.info("Cluster `%s` deployed successfully, you can start it with command: `tiup cluster start %s --init`", name, name)
			return nil
		},
	}
	home, _ := os.UserHomeDir()
	f := cmd.Flags()
	f.StringVarP(&user, "user", "u", currentUser(), "The user name to login via SSH. The user must has root (or sudo) privilege.")
	f.Bool("skip-create-user", false, "(EXPERIMENTAL) Skip creating the user specified in topology.")
	f.StringVarP(&identity, "identity_file", "i", filepath.Join(home, ".ssh", "id_rsa"), "The path of the SSH identity file. If specified, public key authentication will be used.")
	f.BoolVarP(&usePassword, "password", "p", false, "Use password of target hosts. If specified, password authentication will be used.")
	f.Bool("ignore-config-check", false, "Ignore the config check result of components")
	f.Bool("no-labels", false, "Don't check TiKV labels")
	return cmd
}

func currentUser() string {
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	return "root"
}

// checkIdentity is tui.ReadIdentityFileOrPassword: a password read from
// the terminal, or an identity file that exists and parses as a private
// key, or else an SSH agent.
func (e *env) checkIdentity(path string, usePassword bool) error {
	if usePassword {
		e.prompt("Input SSH password:")
		return nil
	}
	if path != "" {
		if data, err := os.ReadFile(path); err == nil {
			if _, err := xssh.ParsePrivateKey(data); err != nil {
				if _, ok := err.(*xssh.PassphraseMissingError); ok {
					return &tiupError{msg: "the tiup stand-in does not model passphrase-protected identity files", kind: "tui.id_read_failed"}
				}
				return &tiupError{msg: fmt.Sprintf("Failed to read SSH identity file '%s'", path), kind: "tui.id_read_failed", cause: err}
			}
			return nil
		}
	}
	if sock := e.getenv("SSH_AUTH_SOCK"); sock != "" {
		if st, err := os.Stat(sock); err == nil && st.Mode()&os.ModeSocket != 0 {
			return nil
		}
		return &tiupError{msg: fmt.Sprintf("The SSH_AUTH_SOCK file: '%s' is not a valid unix socket file", sock), kind: "tui.id_read_failed"}
	}
	return &tiupError{msg: "none of ssh password, identity file, SSH_AUTH_SOCK specified", kind: "tui.id_read_failed"}
}

// printTopology is what deploy shows before it asks.
func (e *env) printTopology(name, version string, topo *Topology) {
	fmt.Fprintf(e.stdout, "Cluster type:    tidb\nCluster name:    %s\nCluster version: %s\n", name, version)
	fmt.Fprintln(e.stdout, "Role  Host  Ports  OS/Arch  Directories")
	for _, in := range topo.Instances() {
		dirs := in.DeployDir
		if in.DataDir != "-" {
			dirs += "," + in.DataDir
		}
		fmt.Fprintf(e.stdout, "%s  %s  %s  %s  %s\n", in.Component, in.Host, joinInts(in.Ports), osArch(in.OS, in.Arch), dirs)
	}
	e.warn("Attention:")
	e.warn("    1. If the topology is not what you expected, check your yaml file.")
	e.warn("    2. Please confirm there is no port/directory conflicts in same host.")
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, "/")
}

// osArch is tui.OsArch.
func osArch(os, arch string) string {
	switch arch {
	case "amd64":
		arch = "x86_64"
	case "arm64":
		arch = "aarch64"
	}
	return os + "/" + arch
}

func (e *env) startCmd() *cobra.Command {
	var roles, nodes []string
	var initPassword bool
	cmd := &cobra.Command{
		Use:   "start <cluster-name>",
		Short: "Start a TiDB cluster",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return cmd.Help()
			}
			if err := validRoles(roles); err != nil {
				return err
			}
			m, _, err := e.cluster(args[0])
			if err != nil {
				return err
			}
			if initPassword {
				return fmt.Errorf("the tiup stand-in does not model `start --init`")
			}
			e.info("Starting cluster %s...", m.Name)
			m.Running = true
			if err := e.st.saveMeta(m); err != nil {
				return err
			}
			e.info("Started cluster `%s` successfully", m.Name)
			return nil
		},
	}
	cmd.Flags().BoolVar(&initPassword, "init", false, "Initialize a secure root password for the database")
	cmd.Flags().Bool("restore-leaders", false, "Allow leaders to be scheduled to stores after start")
	cmd.Flags().StringSliceVarP(&roles, "role", "R", nil, "Only start specified roles")
	cmd.Flags().StringSliceVarP(&nodes, "node", "N", nil, "Only start specified nodes")
	_ = cmd.Flags().MarkHidden("restore-leaders")
	return cmd
}

func (e *env) stopCmd() *cobra.Command {
	cmd := e.runStateCmd("stop", "Stop a TiDB cluster", false,
		"Will stop the cluster %s with nodes: %s, roles: %s.\nDo you want to continue? [y/N]:", "Stopped cluster `%s` successfully")
	cmd.Flags().Bool("evict-leaders", false, "Evict leaders on stores before stop")
	_ = cmd.Flags().MarkHidden("evict-leaders")
	return cmd
}

func (e *env) restartCmd() *cobra.Command {
	return e.runStateCmd("restart", "Restart a TiDB cluster", true,
		"Will restart the cluster %s with nodes: %s roles: %s.\nCluster will be unavailable\nDo you want to continue? [y/N]:",
		"Restarted cluster `%s` successfully")
}

// runStateCmd is stop or restart: -R/-N, a confirmation (question has the
// cluster, nodes and roles), then the cluster's running state and done's line.
func (e *env) runStateCmd(verb, short string, running bool, question, done string) *cobra.Command {
	var roles, nodes []string
	cmd := &cobra.Command{
		Use:   verb + " <cluster-name>",
		Short: short,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return cmd.Help()
			}
			if err := validRoles(roles); err != nil {
				return err
			}
			m, _, err := e.cluster(args[0])
			if err != nil {
				return err
			}
			if !e.yes {
				if err := e.confirm(fmt.Sprintf(question, m.Name, strings.Join(nodes, ","), strings.Join(roles, ","))); err != nil {
					return err
				}
			}
			m.Running = running
			if err := e.st.saveMeta(m); err != nil {
				return err
			}
			e.info(done, m.Name)
			return nil
		},
	}
	cmd.Flags().StringSliceVarP(&roles, "role", "R", nil, "Only "+verb+" specified roles")
	cmd.Flags().StringSliceVarP(&nodes, "node", "N", nil, "Only "+verb+" specified nodes")
	return cmd
}

func (e *env) reloadCmd() *cobra.Command {
	var roles, nodes []string
	var skipRestart bool
	cmd := &cobra.Command{
		Use:   "reload <cluster-name>",
		Short: "Reload a TiDB cluster's config and restart if needed",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return cmd.Help()
			}
			if err := validRoles(roles); err != nil {
				return err
			}
			m, _, err := e.cluster(args[0])
			if err != nil {
				return err
			}
			if !e.yes {
				if err := e.confirm(fmt.Sprintf("Will reload the cluster %s with restart policy is %v, nodes: %s, roles: %s.\nDo you want to continue? [y/N]:",
					m.Name, !skipRestart, strings.Join(nodes, ","), strings.Join(roles, ","))); err != nil {
					return err
				}
			}
			if !skipRestart {
				m.Running = true
			}
			if err := e.st.saveMeta(m); err != nil {
				return err
			}
			e.info("Reloaded cluster `%s` successfully", m.Name)
			return nil
		},
	}
	f := cmd.Flags()
	f.Bool("force", false, "Force reload without transferring PD leader and ignore remote error")
	f.StringSliceVarP(&roles, "role", "R", nil, "Only reload specified roles")
	f.StringSliceVarP(&nodes, "node", "N", nil, "Only reload specified nodes")
	f.Uint64("transfer-timeout", 600, "Timeout in seconds when transferring PD and TiKV store leaders, also for TiCDC drain one capture")
	f.Bool("ignore-config-check", false, "Ignore the config check result")
	f.BoolVar(&skipRestart, "skip-restart", false, "Only refresh configuration to remote and do not restart services")
	f.String("pre-restart-script", "", "Custom script to be executed on each server before the service is restarted")
	f.String("post-restart-script", "", "Custom script to be executed on each server after the service is restarted")
	return cmd
}

// instInfo is one instance of `display --format json`
// (pkg/cluster/manager.InstInfo): its fields and JSON names, in order.
type instInfo struct {
	ID            string `json:"id"`
	Role          string `json:"role"`
	Host          string `json:"host"`
	ManageHost    string `json:"manage_host"`
	Ports         string `json:"ports"`
	OsArch        string `json:"os_arch"`
	Status        string `json:"status"`
	Memory        string `json:"memory"`
	MemoryLimit   string `json:"memory_limit"`
	CPUquota      string `json:"cpu_quota"`
	Since         string `json:"since"`
	DataDir       string `json:"data_dir"`
	DeployDir     string `json:"deploy_dir"`
	NumaNode      string `json:"numa_node"`
	NumaCores     string `json:"numa_cores"`
	Version       string `json:"version"`
	ComponentName string
	Port          int
}

// clusterMetaInfo is display's cluster_meta (manager.ClusterMetaInfo).
type clusterMetaInfo struct {
	ClusterType    string   `json:"cluster_type"`
	ClusterName    string   `json:"cluster_name"`
	ClusterVersion string   `json:"cluster_version"`
	DeployUser     string   `json:"deploy_user"`
	SSHType        string   `json:"ssh_type"`
	TLSEnabled     bool     `json:"tls_enabled"`
	TLSCACert      string   `json:"tls_ca_cert,omitempty"`
	TLSClientCert  string   `json:"tls_client_cert,omitempty"`
	TLSClientKey   string   `json:"tls_client_key,omitempty"`
	DashboardURL   string   `json:"dashboard_url,omitempty"`
	DashboardURLS  []string `json:"dashboard_urls,omitempty"`
	GrafanaURLS    []string `json:"grafana_urls,omitempty"`
}

// displayOutput is the whole of `display --format json`
// (manager.JSONOutput; its labels and location_label are left out).
type displayOutput struct {
	ClusterMetaInfo clusterMetaInfo `json:"cluster_meta"`
	InstanceInfos   []instInfo      `json:"instances,omitempty"`
}

// instanceInfos is what display lists after the cluster's displays-th
// display, sorted by role, host and ports as tiup sorts them.
func instanceInfos(m *clusterMeta, topo *Topology, plan map[string]Status, displays int) []instInfo {
	var out []instInfo
	firstPD := true
	for _, in := range topo.Instances() {
		lead := in.Component == "pd" && firstPD
		if in.Component == "pd" {
			firstPD = false
		}
		out = append(out, instInfo{
			ID: in.ID(), Role: in.Component, Host: in.Host, ManageHost: in.Host, Ports: joinInts(in.Ports),
			OsArch: osArch(in.OS, in.Arch), Status: instanceStatus(in, lead, m.Running, plan, displays),
			Memory: "-", MemoryLimit: in.Memory, CPUquota: in.CPUQuota, Since: "-", DataDir: in.DataDir,
			DeployDir: in.DeployDir, NumaNode: in.NumaNode, NumaCores: in.NumaCores, Version: m.Version,
			ComponentName: in.Component, Port: in.Port,
		})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Role != out[j].Role {
			return out[i].Role < out[j].Role
		}
		if out[i].Host != out[j].Host {
			return out[i].Host < out[j].Host
		}
		return out[i].Ports < out[j].Ports
	})
	return out
}

func (e *env) displayCmd() *cobra.Command {
	var roles, nodes []string
	var dashboard, version, labels bool
	cmd := &cobra.Command{
		Use:   "display <cluster-name>",
		Short: "Display information of a TiDB cluster",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return cmd.Help()
			}
			name := args[0]
			if !e.st.exists(name) {
				return fmt.Errorf("Cluster %s not found", name)
			}
			m, topo, err := e.cluster(name)
			if err != nil {
				return err
			}
			if version {
				fmt.Fprintln(e.stdout, m.Version)
				return nil
			}
			if labels {
				return fmt.Errorf("the tiup stand-in does not model `display --labels`")
			}
			m.Displays++
			if err := e.st.saveMeta(m); err != nil {
				return err
			}
			plan, err := e.st.statuses(name)
			if err != nil {
				return err
			}
			infos := instanceInfos(m, topo, plan, m.Displays)
			var shown []instInfo
			var dashboardURL string
			for _, in := range infos {
				if in.ComponentName == "pd" && strings.HasSuffix(in.Status, "|UI") {
					dashboardURL = "http://" + in.ID + "/dashboard"
				}
				if (len(roles) > 0 && !slices.Contains(roles, in.Role)) || (len(nodes) > 0 && !slices.Contains(nodes, in.ID)) {
					continue
				}
				shown = append(shown, in)
			}
			if dashboard {
				if dashboardURL == "" {
					return fmt.Errorf("TiDB Dashboard is missing, try again later")
				}
				fmt.Fprintf(e.stdout, "Dashboard URL:      %s\n", dashboardURL)
				return nil
			}
			meta := clusterMetaInfo{ClusterType: "tidb", ClusterName: name, ClusterVersion: m.Version, DeployUser: topo.User(),
				SSHType: m.SSHType, DashboardURL: dashboardURL}
			if dashboardURL != "" {
				meta.DashboardURLS = []string{dashboardURL}
			}
			for _, in := range infos {
				if in.Role == "grafana" {
					meta.GrafanaURLS = append(meta.GrafanaURLS, fmt.Sprintf("http://%s:%d", in.Host, in.Port))
				}
			}
			if e.jsonMode() {
				data, err := json.MarshalIndent(displayOutput{ClusterMetaInfo: meta, InstanceInfos: shown}, "", "  ")
				if err != nil {
					return err
				}
				fmt.Fprintln(e.stdout, string(data))
				return nil
			}
			fmt.Fprintf(e.stdout, "Cluster type:       %s\nCluster name:       %s\nCluster version:    %s\nDeploy user:        %s\nSSH type:           %s\n",
				meta.ClusterType, name, m.Version, meta.DeployUser, meta.SSHType)
			if dashboardURL != "" {
				fmt.Fprintf(e.stdout, "Dashboard URL:      %s\n", dashboardURL)
			}
			fmt.Fprintln(e.stdout, "ID  Role  Host  Ports  OS/Arch  Status  Data Dir  Deploy Dir")
			for _, in := range shown {
				fmt.Fprintf(e.stdout, "%s  %s  %s  %s  %s  %s  %s  %s\n", in.ID, in.Role, in.Host, in.Ports, in.OsArch, in.Status, in.DataDir, in.DeployDir)
			}
			fmt.Fprintf(e.stdout, "Total nodes: %d\n", len(shown))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringSliceVarP(&roles, "role", "R", nil, "Only display specified roles")
	f.StringSliceVarP(&nodes, "node", "N", nil, "Only display specified nodes")
	f.Bool("uptime", false, "Display with uptime")
	f.BoolVar(&dashboard, "dashboard", false, "Only display TiDB Dashboard information")
	f.BoolVar(&version, "version", false, "Only display TiDB cluster version")
	f.BoolVar(&labels, "labels", false, "Only display labels of specified TiKV role or nodes")
	f.Bool("process", false, "display cpu and memory usage of nodes")
	f.Bool("manage-host", false, "display manage host of nodes")
	f.Bool("numa", false, "display numa information of nodes")
	f.Bool("versions", false, "display component version of instances")
	f.Uint64("status-timeout", 10, "Timeout in seconds when getting node status")
	return cmd
}

// maxEdits bounds the stand-in's editing rounds: where tiup asks "continue
// editing? [Y/n]" after a bad edit, an answer other than n reopens the
// editor, and with no terminal that would go on for ever.
const maxEdits = 3

func (e *env) editConfigCmd() *cobra.Command {
	var newTopoFile string
	cmd := &cobra.Command{
		Use:   "edit-config <cluster-name>",
		Short: "Edit TiDB cluster config",
		Long:  "Edit TiDB cluster config. Will use editor from environment variable `EDITOR`, default use vi",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return cmd.Help()
			}
			// manager.EditConfig (pkg/cluster/manager/edit_config.go): the
			// editor gets yaml.Marshal of the stored specification, not the
			// file deploy was given.
			m, topo, err := e.cluster(args[0])
			if err != nil {
				return err
			}
			data, err := topo.YAML()
			if err != nil {
				return err
			}
			newTopo, err := e.editTopology(topo, data, newTopoFile, 1)
			if err != nil || newTopo == nil {
				return err
			}
			// What is saved is the specification tiup made of the new
			// file (metadata.SetTopology(newTopo), SaveMeta).
			e.info("Applying changes...")
			if err := e.st.saveTopology(m.Name, newTopo); err != nil {
				return fmt.Errorf("failed to save meta: %w", err)
			}
			e.info("Applied successfully, please use `tiup cluster reload %s [-N <nodes>] [-R <roles>]` to reload config.", m.Name)
			return nil
		},
	}
	cmd.Flags().StringVarP(&newTopoFile, "topology-file", "", "", "Use provided topology file to substitute the original one instead of editing it.")
	return cmd
}

// editTopology is manager.editTopo (pkg/cluster/manager/edit_config.go):
// the new topology is the file given with --topology-file, or else what
// $EDITOR leaves in a temporary file holding data. The new file is decoded
// as a topology file (defaults filled, directories left as written: no
// expansion as at deploy); one that does not decode, or whose
// specification changes what cannot change (validateSpecDiff), is refused
// with "Nothing changed." and no error, after asking to edit again when
// there is no --topology-file. Then the new file's bytes are compared
// with yaml.Marshal of the stored specification: equal is "The file has
// nothing changed"; otherwise the diff is shown and, without --yes,
// confirmed. --yes skips only that confirmation.
func (e *env) editTopology(orig *Topology, data []byte, file string, round int) (*Topology, error) {
	name := file
	if file == "" {
		f, err := os.CreateTemp(os.TempDir(), "*")
		if err != nil {
			return nil, err
		}
		name = f.Name()
		defer os.Remove(name)
		_, werr := f.Write(data)
		if cerr := f.Close(); werr != nil || cerr != nil {
			return nil, fmt.Errorf("write %s: %v %v", name, werr, cerr)
		}
		if err := e.openInEditor(name); err != nil {
			return nil, err
		}
	}
	newData, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	e.call.Topology = string(newData)
	refuse := func(printErr func()) (*Topology, error) {
		fmt.Fprint(e.stdout, "New topology could not be saved: ")
		printErr()
		if file == "" {
			// tui.PromptForConfirmNo: only n or no stops editing.
			if ans := strings.ToLower(strings.TrimSpace(e.prompt("Do you want to continue editing? [Y/n]: (default=Y)"))); ans != "n" && ans != "no" {
				if round >= maxEdits {
					return nil, fmt.Errorf("the tiup stand-in stops after %d editing rounds (tiup would reopen the editor again)", maxEdits)
				}
				return e.editTopology(orig, newData, file, round+1)
			}
		}
		e.info("Nothing changed.")
		return nil, nil
	}
	newTopo, err := ParseTopology(newData)
	if err != nil {
		return refuse(func() { e.info("Failed to parse topology file: %v", err) })
	}
	if err := validateSpecDiff(orig.spec, newTopo.spec); err != nil {
		return refuse(func() { e.log(e.stderr, "error", "%s", err) })
	}
	origData, err := orig.YAML()
	if err != nil {
		return nil, err
	}
	if string(origData) == string(newData) {
		e.info("The file has nothing changed")
		return nil, nil
	}
	showDiff(e.stdout, string(origData), string(newData))
	if !e.yes {
		if err := e.confirm("Please check change highlight above, do you want to apply the change? [y/N]:"); err != nil {
			return nil, err
		}
	}
	return newTopo, nil
}

// openInEditor is utils.OpenFileInEditor: $EDITOR (vi when unset) is one
// executable name, looked up on PATH as a whole, run with the file.
func (e *env) openInEditor(file string) error {
	editor := e.getenv("EDITOR")
	if editor == "" {
		editor = "vi"
	}
	executable, err := exec.LookPath(editor)
	if err != nil {
		return err
	}
	c := exec.Command(executable, file)
	c.Stdin, c.Stdout, c.Stderr = e.stdin, e.stdout, e.stderr
	return c.Run()
}

// showDiff prints the new text with what was removed in red and what was
// added in green, as utils.ShowDiff (pkg/utils/diff.go) prints
// diffmatchpatch's DiffPrettyText (ANSI colors whether or not stdout is a
// terminal). tiup diffs by character, the stand-in by line: a changed
// line shows whole, old then new.
func showDiff(w io.Writer, old, new string) {
	a, b := strings.SplitAfter(old, "\n"), strings.SplitAfter(new, "\n")
	// lcs[i][j]: the longest common subsequence of a[i:] and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out strings.Builder
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			out.WriteString(a[i])
			i, j = i+1, j+1
		case j == len(b) || (i < len(a) && lcs[i+1][j] >= lcs[i][j+1]):
			out.WriteString("\x1b[31m" + a[i] + "\x1b[0m")
			i++
		default:
			out.WriteString("\x1b[32m" + b[j] + "\x1b[0m")
			j++
		}
	}
	fmt.Fprint(w, out.String())
}

func (e *env) showConfigCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "show-config <cluster-name>",
		Short: "Show TiDB cluster config",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return cmd.Help()
			}
			// manager.ShowConfig (pkg/cluster/manager/show_config.go):
			// yaml.Marshal of the stored specification, defaults filled.
			_, topo, err := e.cluster(args[0])
			if err != nil {
				return err
			}
			data, err := topo.YAML()
			if err != nil {
				return err
			}
			fmt.Fprint(e.stdout, string(data))
			return nil
		},
	}
}

func (e *env) cleanCmd() *cobra.Command {
	var data, logs, audit, all bool
	cmd := &cobra.Command{
		Use:   "clean <cluster-name>",
		Short: "(EXPERIMENTAL) Cleanup a specified cluster",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return cmd.Help()
			}
			if all {
				data, logs = true, true
			}
			if !data && !logs && !audit {
				return cmd.Help()
			}
			m, _, err := e.cluster(args[0])
			if err != nil {
				return err
			}
			target := ""
			for _, t := range []struct {
				on   bool
				name string
			}{{data, " data"}, {logs, " log"}, {audit, " audit-log"}} {
				if t.on {
					target += t.name
				}
			}
			if !e.yes {
				e.warn("The clean operation will stop tidb %s cluster `%s`", m.Version, m.Name)
				if err := e.confirm("Do you want to continue? [y/N]:"); err != nil {
					return err
				}
				e.warn("Clean the clutser %s's%s.", m.Name, target)
				if err := e.confirm("Do you want to continue? [y/N]:"); err != nil {
					return err
				}
			}
			e.info("Cleanup cluster...")
			m.Running = false // clean stops the cluster first
			if err := e.st.saveMeta(m); err != nil {
				return err
			}
			e.info("Cleanup%s in cluster `%s` successfully", target, m.Name)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringArray("ignore-node", nil, "Specify the nodes or hosts whose data will be retained")
	f.StringArray("ignore-role", nil, "Specify the roles whose data will be retained")
	f.BoolVar(&data, "data", false, "Cleanup data")
	f.BoolVar(&logs, "log", false, "Cleanup log")
	f.BoolVar(&audit, "audit-log", false, "Cleanup TiDB-server audit log")
	f.BoolVar(&all, "all", false, "Cleanup both log and data (not include audit log)")
	return cmd
}

func (e *env) destroyCmd() *cobra.Command {
	var retainRoles []string
	cmd := &cobra.Command{
		Use:   "destroy <cluster-name>",
		Short: "Destroy a specified cluster",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return cmd.Help()
			}
			for _, r := range retainRoles {
				if !slices.Contains(allRoles, r) {
					return fmt.Errorf("role name `%s` invalid", r)
				}
			}
			m, _, err := e.cluster(args[0])
			if err != nil {
				return err
			}
			if !e.yes {
				if err := e.confirmAnswer("Yes, I know my cluster and data will be deleted.",
					fmt.Sprintf("This operation will destroy tidb %s cluster %s and its data.\nAre you sure to continue?", m.Version, m.Name)); err != nil {
					return err
				}
				e.info("Destroying cluster...")
			}
			if err := os.RemoveAll(e.st.clusterDir(m.Name)); err != nil {
				return err
			}
			e.info("Destroyed cluster `%s` successfully", m.Name)
			return nil
		},
	}
	cmd.Flags().StringArray("retain-node-data", nil, "Specify the nodes or hosts whose data will be retained")
	cmd.Flags().StringArrayVar(&retainRoles, "retain-role-data", nil, "Specify the roles whose data will be retained")
	cmd.Flags().Bool("force", false, "Force will ignore remote error while destroy the cluster")
	return cmd
}
