package tiupstub_test

import (
	"crypto/ed25519"
	"database/sql"
	"encoding/json"
	"encoding/pem"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"golang.org/x/crypto/ssh"

	"github.com/starbench/starbench/internal/testutil/sandboxtest"
	"github.com/starbench/starbench/internal/testutil/tiupstub"
)

func TestMain(m *testing.M) { sandboxtest.Main(m) }

const topology = `global:
  user: tidb
  deploy_dir: /tidb-deploy
  data_dir: /tidb-data
server_configs:
  tikv:
    raftstore.apply-pool-size: 3
pd_servers:
  - host: 10.0.1.1
  - host: 10.0.1.2
tidb_servers:
  - host: 10.0.1.2
    numa_node: "1"
tikv_servers:
  - host: 10.0.1.4
  - host: 10.0.1.5
    port: 20161
    data_dir: kv
`

// files writes a topology file and an SSH identity file deploy accepts.
func files(t *testing.T, topo string) (topoFile, keyFile string) {
	dir := t.TempDir()
	topoFile, keyFile = filepath.Join(dir, "topo.yaml"), filepath.Join(dir, "id")
	if err := os.WriteFile(topoFile, []byte(topo), 0o644); err != nil {
		t.Fatal(err)
	}
	_, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKey(priv, "tiupstub test")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	return topoFile, keyFile
}

func expect(t *testing.T, r tiupstub.Result, code int, wants ...string) {
	t.Helper()
	if r.Code != code {
		t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", r.Code, code, r.Stdout, r.Stderr)
	}
	for _, w := range wants {
		if !strings.Contains(r.Stdout+r.Stderr, w) {
			t.Errorf("output lacks %q\nstdout:\n%s\nstderr:\n%s", w, r.Stdout, r.Stderr)
		}
	}
}

func deploy(t *testing.T, s *tiupstub.Stub, name string) (topoFile string) {
	t.Helper()
	topoFile, key := files(t, topology)
	expect(t, s.Run(t, "", nil, "cluster", "deploy", name, "v5.2.0", topoFile, "-i", key, "--yes"), 0, "Cluster `"+name+"` deployed successfully")
	return topoFile
}

func TestVersionLines(t *testing.T) {
	s := tiupstub.New(t)
	r := s.Run(t, "", nil, "--version")
	expect(t, r, 0)
	if first := strings.SplitN(r.Stdout, "\n", 2)[0]; first != "1.16.5 tiup" {
		t.Errorf("tiup --version starts %q, want tiup's \"1.16.5 tiup\"", first)
	}
	r = s.Run(t, "", nil, "cluster", "--version")
	expect(t, r, 0)
	if first := strings.SplitN(r.Stdout, "\n", 2)[0]; first != "tiup version 1.16.5 tiup" {
		t.Errorf("tiup cluster --version starts %q, want cobra's line for tiup-cluster", first)
	}
}

// cobra refuses flags a command does not have, as it does in tiup.
func TestUnknownFlagsAreRefused(t *testing.T) {
	s := tiupstub.New(t)
	topoFile, key := files(t, topology)
	expect(t, s.Run(t, "", nil, "cluster", "deploy", "sb", "v5.2.0", topoFile, "-i", key, "--yes", "--foo"), 1, "Error: unknown flag: --foo")
	expect(t, s.Run(t, "", nil, "cluster", "display", "sb", "--json"), 1, "Error: unknown flag: --json")
	expect(t, s.Run(t, "", nil, "cluster", "stop", "sb", "-x"), 1, "Error: unknown shorthand flag: 'x' in -x")
	expect(t, s.Run(t, "", nil, "cluster", "edit-config", "sb", "--topology", "f"), 1, "Error: unknown flag: --topology")
	if s.Deployed("sb") {
		t.Error("a refused deploy deployed")
	}
	// Wrong argument counts print the command's help, as tiup does.
	expect(t, s.Run(t, "", nil, "cluster", "display"), 0, "display <cluster-name>")
	expect(t, s.Run(t, "", nil, "cluster", "deploy", "sb"), 1, "Expect at least 3 arguments, but received 1 arguments")
}

// tiup asks before deploy, stop, restart, reload, clean, destroy and an
// edit; without --yes and without the answer on stdin it aborts.
func TestConfirmations(t *testing.T) {
	s := tiupstub.New(t)
	topoFile, key := files(t, topology)
	expect(t, s.Run(t, "", nil, "cluster", "deploy", "sb", "v5.2.0", topoFile, "-i", key), 1,
		"Do you want to continue? [y/N]: (default=N)", "Error: Operation aborted by user (with answer '') (tui.operation_aborted)")
	if s.Deployed("sb") {
		t.Fatal("deployed without a yes")
	}
	expect(t, s.Run(t, "n\n", nil, "cluster", "deploy", "sb", "v5.2.0", topoFile, "-i", key), 1, "with answer 'n'")
	expect(t, s.Run(t, "y\n", nil, "cluster", "deploy", "sb", "v5.2.0", topoFile, "-i", key), 0, "deployed successfully")
	expect(t, s.Run(t, "", nil, "cluster", "deploy", "sb", "v5.2.0", topoFile, "-i", key, "-y"), 1, "Cluster name 'sb' is duplicated (deploy.name_dup)")

	expect(t, s.Run(t, "", nil, "cluster", "start", "sb"), 0, "Started cluster `sb` successfully") // start does not ask
	for _, sub := range []string{"stop", "restart", "reload"} {
		expect(t, s.Run(t, "", nil, "cluster", sub, "sb"), 1, "Do you want to continue? [y/N]:", "Operation aborted by user")
	}
	expect(t, s.Run(t, "", nil, "cluster", "stop", "sb", "--yes"), 0, "Stopped cluster `sb` successfully")
	if s.Running(t, "sb") {
		t.Error("stopped cluster runs")
	}
	expect(t, s.Run(t, "y\n", nil, "cluster", "restart", "sb"), 0)
	expect(t, s.Run(t, "y\n", nil, "cluster", "reload", "sb", "-R", "tikv"), 0)
	expect(t, s.Run(t, "", nil, "cluster", "reload", "sb", "-R", "kv", "--yes"), 1, "not valid role: kv")

	// clean asks twice; with no --data, --log or --all it prints its help.
	expect(t, s.Run(t, "y\n", nil, "cluster", "clean", "sb", "--data"), 1, "with answer ''")
	expect(t, s.Run(t, "y\ny\n", nil, "cluster", "clean", "sb", "--data"), 0, "Cleanup data in cluster `sb` successfully")
	expect(t, s.Run(t, "", nil, "cluster", "clean", "sb"), 0, "clean <cluster-name>")

	// destroy wants its sentence typed out.
	expect(t, s.Run(t, "y\n", nil, "cluster", "destroy", "sb"), 1, "Yes, I know my cluster and data will be deleted.", "with incorrect answer 'y'")
	expect(t, s.Run(t, "Yes, I know my cluster and data will be deleted.\n", nil, "cluster", "destroy", "sb"), 0, "Destroyed cluster `sb` successfully")
	if s.Deployed("sb") {
		t.Error("destroyed cluster still deployed")
	}
}

// edit-config runs $EDITOR as one executable name looked up on PATH, so a
// command line in EDITOR fails as it does with tiup.
func TestEditConfigRunsEditorAsOneExecutable(t *testing.T) {
	s := tiupstub.New(t)
	deploy(t, s, "sb")
	edited := filepath.Join(t.TempDir(), "new.yaml")
	os.WriteFile(edited, []byte(strings.Replace(topology, "apply-pool-size: 3", "apply-pool-size: 4", 1)), 0o644)

	// exec.LookPath takes a name with a slash for a path.
	r := s.Run(t, "y\n", []string{"EDITOR=cp " + edited}, "cluster", "edit-config", "sb")
	expect(t, r, 1, `Error: exec: "cp `+edited+`": stat cp `+edited+`: no such file or directory`)
	r = s.Run(t, "y\n", []string{"EDITOR=vi -u NONE"}, "cluster", "edit-config", "sb")
	expect(t, r, 1, `Error: exec: "vi -u NONE": executable file not found in $PATH`)

	// An editor that is one program works, and its file is what tiup applies.
	editor := filepath.Join(t.TempDir(), "editor")
	os.WriteFile(editor, []byte("#!/bin/sh\nsed -i 's/apply-pool-size: 3/apply-pool-size: 4/' \"$1\"\n"), 0o755)
	expect(t, s.Run(t, "", []string{"EDITOR=" + editor}, "cluster", "edit-config", "sb"), 1,
		"apply-pool-size: 4", "do you want to apply the change? [y/N]:", "Operation aborted")
	expect(t, s.Run(t, "y\n", []string{"EDITOR=" + editor}, "cluster", "edit-config", "sb"), 0, "Applied successfully")
	expect(t, s.Run(t, "", nil, "cluster", "show-config", "sb"), 0, "raftstore.apply-pool-size: 4")
	calls := s.Calls(t)
	if last := calls[len(calls)-2]; last.Editor != editor || !strings.Contains(last.Topology, "apply-pool-size: 4") {
		t.Errorf("recorded call: %+v", last)
	}
	// The editor is given show-config's text: leaving it as it is changes nothing.
	expect(t, s.Run(t, "", []string{"EDITOR=true"}, "cluster", "edit-config", "sb"), 0, "The file has nothing changed")
}

// showConfig is what tiup's show-config prints for the cluster deploy()
// makes of topology: yaml.Marshal of the specification tiup keeps, every
// default filled (pkg/cluster/spec: the default tags, setCustomDefaults,
// ExpandRelativeDir; arch and os from the hosts, x86_64 Linux here),
// yaml.v3's four-space indentation, every server_configs key and the
// sections without omitempty printed when empty.
const showConfig = `global:
    user: tidb
    ssh_port: 22
    ssh_type: builtin
    deploy_dir: /tidb-deploy
    data_dir: /tidb-data
    os: linux
    systemd_mode: system
monitored:
    node_exporter_port: 9100
    blackbox_exporter_port: 9115
    deploy_dir: /tidb-deploy/monitor-9100
    data_dir: /tidb-data/monitor-9100
    log_dir: /tidb-deploy/monitor-9100/log
server_configs:
    tidb: {}
    tikv:
        raftstore.apply-pool-size: 3
    pd: {}
    tso: {}
    scheduling: {}
    resource_manager: {}
    router: {}
    tidb_dashboard: {}
    tiflash: {}
    tiproxy: {}
    tiflash-learner: {}
    pump: {}
    drainer: {}
    cdc: {}
    kvcdc: {}
    grafana: {}
    ng_monitoring: {}
tidb_servers:
    - host: 10.0.1.2
      ssh_port: 22
      port: 4000
      status_port: 10080
      deploy_dir: /tidb-deploy/tidb-4000
      log_dir: /tidb-deploy/tidb-4000/log
      numa_node: "1"
      arch: amd64
      os: linux
tikv_servers:
    - host: 10.0.1.4
      ssh_port: 22
      port: 20160
      status_port: 20180
      deploy_dir: /tidb-deploy/tikv-20160
      data_dir: /tidb-data/tikv-20160
      log_dir: /tidb-deploy/tikv-20160/log
      arch: amd64
      os: linux
    - host: 10.0.1.5
      ssh_port: 22
      port: 20161
      status_port: 20180
      deploy_dir: /tidb-deploy/tikv-20161
      data_dir: /tidb-deploy/tikv-20161/kv
      log_dir: /tidb-deploy/tikv-20161/log
      arch: amd64
      os: linux
tiflash_servers: []
tiproxy_servers: []
pd_servers:
    - host: 10.0.1.1
      ssh_port: 22
      name: pd-10.0.1.1-2379
      client_port: 2379
      peer_port: 2380
      deploy_dir: /tidb-deploy/pd-2379
      data_dir: /tidb-data/pd-2379
      log_dir: /tidb-deploy/pd-2379/log
      arch: amd64
      os: linux
    - host: 10.0.1.2
      ssh_port: 22
      name: pd-10.0.1.2-2379
      client_port: 2379
      peer_port: 2380
      deploy_dir: /tidb-deploy/pd-2379
      data_dir: /tidb-data/pd-2379
      log_dir: /tidb-deploy/pd-2379/log
      arch: amd64
      os: linux
monitoring_servers: []
`

// show-config prints the specification tiup keeps, not the file deploy
// was given (manager.ShowConfig).
func TestShowConfigPrintsTheSpecification(t *testing.T) {
	s := tiupstub.New(t)
	deploy(t, s, "sb")
	r := s.Run(t, "", nil, "cluster", "show-config", "sb")
	expect(t, r, 0)
	if r.Stdout != showConfig {
		t.Errorf("show-config printed:\n%s\nwant:\n%s", r.Stdout, showConfig)
	}

	// Relative directories: deploy_dir under /home/USER, data_dir and
	// log_dir under the deploy_dir, the monitored directories as tiup
	// joins them (its parse_topology_test.go has the same case); whole
	// floats keep their decimal point (tiup's yaml.v3 fork); Prometheus
	// gets ng_port from v5.4.0.
	topoFile, key := files(t, `global:
  deploy_dir: my-deploy
server_configs:
  tidb:
    performance.feedback-probability: 1.0
tikv_servers:
  - host: 172.16.5.140
    data_dir: my-data
    log_dir: my-log
monitoring_servers:
  - host: 172.16.5.141
    arch: AArch64
`)
	expect(t, s.Run(t, "", nil, "cluster", "deploy", "rel", "v5.4.0", topoFile, "-i", key, "--yes"), 0)
	r = s.Run(t, "", nil, "cluster", "show-config", "rel")
	for _, want := range []string{
		"    deploy_dir: my-deploy\n    data_dir: data\n",
		"    deploy_dir: /home/tidb/my-deploy/monitor-9100\n    data_dir: /home/tidb/my-deploy/monitor-9100/data/monitor-9100\n" +
			"    log_dir: /home/tidb/my-deploy/monitor-9100/my-deploy/monitor-9100/log\n",
		"        performance.feedback-probability: 1.0\n",
		"      deploy_dir: /home/tidb/my-deploy/tikv-20160\n      data_dir: /home/tidb/my-deploy/tikv-20160/my-data\n" +
			"      log_dir: /home/tidb/my-deploy/tikv-20160/my-log\n",
		"      port: 9090\n      ng_port: 12020\n      deploy_dir: /home/tidb/my-deploy/prometheus-9090\n" +
			"      data_dir: /home/tidb/my-deploy/prometheus-9090/data\n      log_dir: /home/tidb/my-deploy/prometheus-9090/log\n",
		"      external_alertmanagers: []\n      arch: arm64\n      os: linux\n",
	} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("show-config lacks\n%s\nin\n%s", want, r.Stdout)
		}
	}
}

// edit-config compares the new file with yaml.Marshal of the stored
// specification (manager.editTopo), not with the file deploy was given.
func TestEditConfigComparesWithTheSpecification(t *testing.T) {
	s := tiupstub.New(t)
	dir := t.TempDir()
	write := func(name, text string) string {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}

	// show-config's own text is no change.
	deployed := deploy(t, s, "sb")
	shown := write("shown.yaml", showConfig)
	expect(t, s.Run(t, "", nil, "cluster", "edit-config", "sb", "--topology-file", shown), 0, "The file has nothing changed")

	// The file deploy was given: tiup does not expand its directories nor
	// ask the hosts their arch and os when it reads an edit, so a file with
	// relative log or data directories, or without arch and os, changes
	// what cannot change and is refused (exit 0).
	r := s.Run(t, "", nil, "cluster", "edit-config", "sb", "--topology-file", deployed, "--yes")
	expect(t, r, 0, "New topology could not be saved: ", "Nothing changed.",
		"immutable field changed: TiDBServers.0.LogDir changed from '/tidb-deploy/tidb-4000/log' to 'log', "+
			"TiDBServers.0.Arch changed from 'amd64' to '', TiDBServers.0.OS changed from 'linux' to '', ",
		"TiKVServers.1.DataDir changed from '/tidb-deploy/tikv-20161/kv' to 'kv', ")
	if strings.Contains(r.Stdout, "Applied") {
		t.Errorf("the deploy file was applied:\n%s", r.Stdout)
	}

	// A deploy file whose specification has the same directories, arch and
	// os as the stored one is taken: its text differs from the marshalled
	// specification, so tiup shows the diff, asks, and applies it.
	full := `global:
  user: tidb
  deploy_dir: /tidb-deploy
  data_dir: /tidb-data
  log_dir: /tidb-log
pd_servers:
  - host: 10.0.1.1
    arch: amd64
    os: linux
tidb_servers:
  - host: 10.0.1.2
    arch: amd64
    os: linux
tikv_servers:
  - host: 10.0.1.4
    arch: amd64
    os: linux
`
	topoFile, key := files(t, full)
	expect(t, s.Run(t, "", nil, "cluster", "deploy", "full", "v5.2.0", topoFile, "-i", key, "--yes"), 0)
	before := s.Run(t, "", nil, "cluster", "show-config", "full").Stdout
	r = s.Run(t, "", nil, "cluster", "edit-config", "full", "--topology-file", topoFile)
	expect(t, r, 1, "\x1b[31m    user: tidb\n", "\x1b[32m  user: tidb\n",
		"Please check change highlight above, do you want to apply the change? [y/N]:(default=N)", "Operation aborted by user")
	r = s.Run(t, "", nil, "cluster", "edit-config", "full", "--topology-file", topoFile, "--yes")
	expect(t, r, 0, "\x1b[32m  user: tidb\n", "Applying changes...", "Applied successfully")
	if strings.Contains(r.Stdout, "apply the change?") {
		t.Errorf("--yes asked:\n%s", r.Stdout)
	}
	// What is stored is the specification of the file, which here prints
	// as before; the same file again is a change again.
	after := s.Run(t, "", nil, "cluster", "show-config", "full").Stdout
	if after != before || !strings.Contains(after, "      log_dir: /tidb-log/tidb-4000\n") {
		t.Errorf("show-config before the edit:\n%s\nafter:\n%s", before, after)
	}
	expect(t, s.Run(t, "", nil, "cluster", "edit-config", "full", "--topology-file", topoFile, "--yes"), 0, "Applied successfully")
	expect(t, s.Run(t, "", nil, "cluster", "edit-config", "full", "--topology-file", write("after.yaml", after), "--yes"), 0,
		"The file has nothing changed")
}

// Topology files are read strictly and checked as tiup checks them; an
// edit that changes what is immutable is refused with exit 0.
func TestTopologyChecks(t *testing.T) {
	s := tiupstub.New(t)
	for _, c := range []struct{ topo, want string }{
		{strings.Replace(topology, "port: 20161", "port: 20161\n    foo: 1", 1), "line 18: field foo not found in type spec.TiKVSpec"},
		{topology + "tiflash_servers:\n  - host: 10.0.1.6\n    resource_control:\n      memory: 1G\n", "field memory not found in type meta.ResourceControl"},
		{topology + "tidbb_servers: []\n", "field tidbb_servers not found in type spec.Specification"},
		{strings.Replace(topology, "port: 20161", "port: high", 1), "cannot unmarshal !!str `high` into int"},
		{strings.Replace(topology, "port: 20161", "port: 20160", 1) + "  - host: 10.0.1.4\n", "port conflict for '20160' between 'tikv_servers:10.0.1.4.port' and 'tikv_servers:10.0.1.4.port'"},
		{topology + "cdc_servers:\n  - host: 10.0.1.6\n", "section cdc_servers is known to tiup but not modeled"},
		{"global:\n  user: tidb\nmonitoring_servers:\n  - host: 10.0.1.1\n", "no valid instance found in the input topology"},
	} {
		topoFile, key := files(t, c.topo)
		expect(t, s.Run(t, "", nil, "cluster", "deploy", "bad", "v5.2.0", topoFile, "-i", key, "--yes"), 1, c.want)
	}
	expect(t, s.Run(t, "", nil, "cluster", "deploy", "bad", "5.x", "f", "--yes"), 1, "version 5.x is not a valid SemVer string")
	expect(t, s.Run(t, "", nil, "cluster", "deploy", "b/ad", "v5.2.0", "f", "--yes"), 1, "Cluster name 'b/ad' is invalid")
	topoFile, _ := files(t, topology)
	expect(t, s.Run(t, "", []string{"SSH_AUTH_SOCK="}, "cluster", "deploy", "nokey", "v5.2.0", topoFile, "-i", "/nonexistent", "--yes"), 1,
		"none of ssh password, identity file, SSH_AUTH_SOCK specified")

	// Edits start from show-config's text, as a user's must.
	deploy(t, s, "sb")
	dir := t.TempDir()
	for _, c := range []struct{ name, topo, want string }{
		{"add", strings.Replace(showConfig, "tiflash_servers: []", "    - host: 10.0.1.6\ntiflash_servers: []", 1),
			"immutable field changed: added TiKVServers.2.Host with value '10.0.1.6', added TiKVServers.2.ssh_port with value '22', " +
				"added TiKVServers.2.Port with value '20160', added TiKVServers.2.StatusPort with value '20180', " +
				"added TiKVServers.2.DeployDir with value '/tidb-deploy/tikv-20160', added TiKVServers.2.DataDir with value '/tidb-data/tikv-20160', " +
				"added TiKVServers.2.LogDir with value 'log'\n"},
		{"remove", showConfig[:strings.LastIndex(showConfig, "    - host: 10.0.1.2\n")] + "monitoring_servers: []\n",
			"removed PDServers.1.Host with value '10.0.1.2', removed PDServers.1.ssh_port with value '22', removed PDServers.1.Name with value 'pd-10.0.1.2-2379'"},
		{"host", strings.Replace(showConfig, "host: 10.0.1.5", "host: 10.0.1.7", 1), "immutable field changed: TiKVServers.1.Host changed from '10.0.1.5' to '10.0.1.7'\n"},
		{"dir", strings.Replace(showConfig, "    data_dir: /tidb-data\n", "    data_dir: /data\n", 1), "immutable field changed: global.DataDir changed from '/tidb-data' to '/data'\n"},
		{"parse", showConfig + "bogus: 1\n", "Failed to parse topology file: yaml: unmarshal errors"},
	} {
		f := filepath.Join(dir, c.name+".yaml")
		os.WriteFile(f, []byte(c.topo), 0o644)
		expect(t, s.Run(t, "", nil, "cluster", "edit-config", "sb", "--topology-file", f, "--yes"), 0,
			"New topology could not be saved: ", c.want, "Nothing changed.")
	}
	expect(t, s.Run(t, "", nil, "cluster", "show-config", "sb"), 0, "raftstore.apply-pool-size: 3")
	// server_configs, numa_node and ssh_port may change.
	f := filepath.Join(dir, "ok.yaml")
	os.WriteFile(f, []byte(strings.NewReplacer("apply-pool-size: 3", "apply-pool-size: 5", `numa_node: "1"`, `numa_node: "0"`,
		"    - host: 10.0.1.4\n      ssh_port: 22\n", "    - host: 10.0.1.4\n      ssh_port: 2222\n").Replace(showConfig)), 0o644)
	expect(t, s.Run(t, "", nil, "cluster", "edit-config", "sb", "--topology-file", f), 1, "Operation aborted")
	expect(t, s.Run(t, "", nil, "cluster", "edit-config", "sb", "--topology-file", f, "--yes"), 0, "Applied successfully")
	expect(t, s.Run(t, "", nil, "cluster", "show-config", "sb"), 0, "raftstore.apply-pool-size: 5", `numa_node: "0"`, "ssh_port: 2222")
	expect(t, s.Run(t, "", nil, "cluster", "edit-config", "sb", "--topology-file", f, "--yes"), 0, "The file has nothing changed")
}

// display --format json has tiup's fields, order and statuses; a test
// sets statuses that change after some displays.
func TestDisplayJSON(t *testing.T) {
	s := tiupstub.New(t)
	r := s.Run(t, "", nil, "cluster", "display", "sb", "--format", "json")
	expect(t, r, 1)
	if strings.TrimSpace(r.Stderr) != `{"exit_code":1,"error":"Cluster sb not found"}` {
		t.Errorf("error in JSON mode: %q", r.Stderr)
	}
	deploy(t, s, "sb")
	s.SetStatus(t, "sb", "10.0.1.5:20161", tiupstub.Status{Status: "Down", UntilDisplays: 3, Then: "Up"})

	display := func() (map[string]any, []map[string]any, string) {
		t.Helper()
		r := s.Run(t, "", nil, "cluster", "display", "sb", "--format", "json")
		expect(t, r, 0)
		var out struct {
			Meta      map[string]any   `json:"cluster_meta"`
			Instances []map[string]any `json:"instances"`
		}
		if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil {
			t.Fatalf("%v\n%s", err, r.Stdout)
		}
		return out.Meta, out.Instances, r.Stdout
	}
	statuses := func(insts []map[string]any) string {
		var s []string
		for _, in := range insts {
			s = append(s, in["id"].(string)+"="+in["status"].(string))
		}
		return strings.Join(s, " ")
	}
	meta, insts, text := display()
	wantMeta := map[string]any{"cluster_type": "tidb", "cluster_name": "sb", "cluster_version": "v5.2.0", "deploy_user": "tidb",
		"ssh_type": "builtin", "tls_enabled": false}
	if !reflect.DeepEqual(meta, wantMeta) {
		t.Errorf("cluster_meta of a stopped cluster: %v", meta)
	}
	if got := statuses(insts); got != "10.0.1.1:2379=Down 10.0.1.2:2379=Down 10.0.1.2:4000=Down 10.0.1.4:20160=N/A 10.0.1.5:20161=Down" {
		t.Errorf("stopped: %s", got)
	}
	// The fields of manager.InstInfo, in its order, with tiup's indentation.
	keys := []string{"id", "role", "host", "manage_host", "ports", "os_arch", "status", "memory", "memory_limit", "cpu_quota",
		"since", "data_dir", "deploy_dir", "numa_node", "numa_cores", "version", "ComponentName", "Port"}
	first := text[strings.Index(text, `"instances"`):]
	first = first[:strings.Index(first, "}")]
	last := 0
	for _, k := range keys {
		i := strings.Index(first, "\n      \""+k+"\": ")
		if i < last {
			t.Errorf("field %s missing or out of order in\n%s", k, first)
		}
		last = i
	}
	kv := insts[4]
	want := map[string]any{"id": "10.0.1.5:20161", "role": "tikv", "host": "10.0.1.5", "manage_host": "10.0.1.5", "ports": "20161/20180",
		"os_arch": "linux/x86_64", "status": "Down", "memory": "-", "memory_limit": "-", "cpu_quota": "-", "since": "-",
		"data_dir": "/tidb-deploy/tikv-20161/kv", "deploy_dir": "/tidb-deploy/tikv-20161", "numa_node": "-", "numa_cores": "-",
		"version": "v5.2.0", "ComponentName": "tikv", "Port": float64(20161)}
	if !reflect.DeepEqual(kv, want) {
		t.Errorf("instance:\n%v\nwant\n%v", kv, want)
	}
	if insts[2]["numa_node"] != "1" || insts[0]["data_dir"] != "/tidb-data/pd-2379" || insts[2]["data_dir"] != "-" {
		t.Errorf("numa_node and directories: %v %v", insts[2], insts[0])
	}

	expect(t, s.Run(t, "", nil, "cluster", "start", "sb"), 0)
	meta, insts, _ = display() // the second display
	if got := statuses(insts); got != "10.0.1.1:2379=Up|L|UI 10.0.1.2:2379=Up 10.0.1.2:4000=Up 10.0.1.4:20160=Up 10.0.1.5:20161=Down" {
		t.Errorf("running, second display: %s", got)
	}
	if meta["dashboard_url"] != "http://10.0.1.1:2379/dashboard" {
		t.Errorf("dashboard_url: %v", meta)
	}
	for _, want := range []string{"Down", "Up"} { // the third and fourth
		if _, insts, _ = display(); insts[4]["status"] != want {
			t.Errorf("display %d: %v, want %s", s.Displays(t, "sb"), insts[4]["status"], want)
		}
	}
	if n := s.Displays(t, "sb"); n != 4 {
		t.Errorf("%d displays recorded, want 4", n)
	}
	r = s.Run(t, "", nil, "cluster", "display", "sb", "-R", "tikv", "--format", "json")
	if strings.Count(r.Stdout, `"ComponentName": "tikv"`) != 2 || strings.Contains(r.Stdout, `"pd"`) {
		t.Errorf("display -R tikv:\n%s", r.Stdout)
	}
	expect(t, s.Run(t, "", nil, "cluster", "display", "sb", "--version"), 0, "v5.2.0")
}

// The playground prints tiup's readiness line and runs until tiup clean
// kills it.
func TestPlayground(t *testing.T) {
	s := tiupstub.New(t)
	s.SetPlayground(t, tiupstub.PlaygroundPlan{ReadyAfter: 300 * time.Millisecond})
	cmd := exec.Command(s.Tiup, "playground", "v7.5.0", "--db", "1", "--kv", "3", "--pd", "1", "--tiflash", "0", "--host", "127.0.0.1",
		"--db.port", "4400", "--tag", "pg", "--without-monitor")
	log, err := os.Create(filepath.Join(t.TempDir(), "playground.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.Now().Add(20 * time.Second)
	for {
		out, _ := os.ReadFile(log.Name())
		if strings.Contains(string(out), "TiDB Playground Cluster is started, enjoy!") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no readiness line:\n%s", out)
		}
		time.Sleep(50 * time.Millisecond)
	}
	stores, err := s.PlaygroundStores("pg")()
	if err != nil || len(stores) != 3 || stores[2].Address != "127.0.0.1:20162" {
		t.Errorf("stores %v %v", stores, err)
	}
	expect(t, s.Run(t, "", nil, "clean", "pg"), 0, "Kill instance of `playground`")
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("tiup clean did not end the playground")
	}
	expect(t, s.Run(t, "", nil, "playground", "--foo"), 1, "unknown flag: --foo")
}

// The front relays to MariaDB and answers TIKV_STORE_STATUS from the
// stand-in cluster, the region tables from what the test put in them.
func TestFrontAnswersTiDBTables(t *testing.T) {
	m := sandboxtest.Shared(t)
	s := tiupstub.New(t)
	f := tiupstub.StartFront(t, m.Config(), s.ClusterStores("sb"))
	cfg := m.Config()
	cfg.Addr, cfg.DBName = f.Addr, ""
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(conn)
	defer db.Close()

	// No cluster yet: the front says why.
	if _, err := db.Query("SELECT ADDRESS FROM information_schema.TIKV_STORE_STATUS"); err == nil || !strings.Contains(err.Error(), "Error 1105") ||
		!strings.Contains(err.Error(), "tidb cluster `sb` not exists") {
		t.Errorf("want error 1105 naming the cluster, got %v", err)
	}
	deploy(t, s, "sb")
	expect(t, s.Run(t, "", nil, "cluster", "start", "sb"), 0)
	s.SetStatus(t, "sb", "10.0.1.5:20161", tiupstub.Status{Status: "Offline"})
	rows, err := db.Query("select address, `STORE_STATE_NAME`, store_state from `information_schema`.`tikv_store_status` order by store_id")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var addr, name string
		var id int
		rows.Scan(&addr, &name, &id)
		got = append(got, addr+" "+name+" "+string(rune('0'+id)))
	}
	rows.Close()
	if strings.Join(got, ", ") != "10.0.1.4:20160 Up 0, 10.0.1.5:20161 Offline 1" {
		t.Errorf("stores: %v", got)
	}
	// Prepared statements are rewritten too; the server's own SQL runs.
	if _, err := f.DB.Exec("INSERT INTO " + f.Schema + ".tikv_region_peers (REGION_ID, PEER_ID, STORE_ID, IS_LEADER) VALUES (1, 1, 1, 1), (1, 2, 2, 0)"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM INFORMATION_SCHEMA.TIKV_REGION_PEERS WHERE STORE_ID = ?", 2).Scan(&n); err != nil || n != 1 {
		t.Errorf("prepared count %d %v", n, err)
	}
	// Everything else is MariaDB's.
	var v string
	if err := db.QueryRow("SELECT VERSION()").Scan(&v); err != nil || !strings.Contains(v, "MariaDB") {
		t.Errorf("version %q %v", v, err)
	}
}
