package tiupstub

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// A topology file as tiup v1.16.5 reads it (pkg/cluster/spec: the
// Specification struct and the *Spec structs of each component, decoded
// with yaml.v3's KnownFields(true), then Specification.Validate). The
// stand-in keeps the facts, not tiup's code: which keys each section
// takes (an unknown key is an error naming the line and tiup's Go type),
// which keys are ports (integers in 1..65535, no two instances on one
// host:port). The specification a file becomes (its defaults, what
// show-config prints, what edit-config may change) is in spec.go.

// typeDef is the keys of one mapping of the file and the name of tiup's
// Go type for it, which its errors name.
type typeDef struct {
	goType string
	keys   []string
	nested map[string]*typeDef // keys whose value is itself checked
}

var resourceControlKeys = &typeDef{goType: "meta.ResourceControl", keys: []string{
	"memory_limit", "cpu_quota", "io_read_bandwidth_max", "io_write_bandwidth_max", "limit_core",
	"timeout_stop_sec", "timeout_start_sec"}}

var globalKeys = &typeDef{goType: "spec.GlobalOptions", keys: []string{
	"user", "group", "ssh_port", "ssh_type", "enable_tls", "listen_host", "deploy_dir", "data_dir", "log_dir",
	"resource_control", "os", "arch", "custom", "systemd_mode", "pd_mode"},
	nested: map[string]*typeDef{"resource_control": resourceControlKeys}}

var monitoredKeys = &typeDef{goType: "spec.MonitoredOptions", keys: []string{
	"node_exporter_port", "blackbox_exporter_port", "node_exporter_version", "blackbox_exporter_version",
	"deploy_dir", "data_dir", "log_dir", "numa_node", "resource_control"},
	nested: map[string]*typeDef{"resource_control": resourceControlKeys}}

var serverConfigsKeys = &typeDef{goType: "spec.ServerConfigs", keys: []string{
	"tidb", "tikv", "pd", "tso", "scheduling", "resource_manager", "router", "tidb_dashboard", "tiflash", "tiproxy",
	"tiflash-learner", "pump", "drainer", "cdc", "kvcdc", "grafana", "ng_monitoring"}}

var componentVersionsKeys = &typeDef{goType: "spec.ComponentVersions", keys: []string{
	"tidb", "tikv", "tiflash", "pd", "tso", "scheduling", "resource_manager", "router", "tidb_dashboard", "pump",
	"drainer", "cdc", "kvcdc", "tiproxy", "prometheus", "grafana", "alertmanager"}}

var componentSourcesKeys = &typeDef{goType: "spec.ComponentSources", keys: []string{
	"tidb", "tikv", "tiflash", "pd", "tidb_dashboard", "pump", "drainer", "cdc", "kvcdc"}}

// component is one *_servers section the stand-in models.
type component struct {
	section string // tikv_servers
	name    string // its ComponentName and role: tikv
	keys    *typeDef
	ports   []string // the port keys display lists (UsedPorts); the first is the instance's port
}

func server(goType string, keys ...string) *typeDef {
	return &typeDef{goType: goType, keys: keys, nested: map[string]*typeDef{"resource_control": resourceControlKeys}}
}

// components in tiup's start order (ComponentsByStartOrder), which is also
// the order of instances before display sorts them.
var components = []*component{
	{section: "pd_servers", name: "pd", ports: []string{"client_port", "peer_port"},
		keys: server("spec.PDSpec", "host", "manage_host", "listen_host", "advertise_client_addr", "advertise_peer_addr",
			"ssh_port", "patched", "ignore_exporter", "name", "client_port", "peer_port", "deploy_dir", "data_dir", "log_dir",
			"source", "numa_node", "config", "resource_control", "arch", "os")},
	{section: "tikv_servers", name: "tikv", ports: []string{"port", "status_port"},
		keys: server("spec.TiKVSpec", "host", "manage_host", "listen_host", "advertise_addr", "ssh_port", "patched",
			"ignore_exporter", "port", "status_port", "advertise_status_addr", "deploy_dir", "data_dir", "log_dir", "offline",
			"source", "numa_node", "numa_cores", "config", "resource_control", "arch", "os")},
	{section: "tidb_servers", name: "tidb", ports: []string{"port", "status_port"},
		keys: server("spec.TiDBSpec", "host", "manage_host", "listen_host", "advertise_address", "ssh_port", "patched",
			"ignore_exporter", "port", "status_port", "deploy_dir", "log_dir", "source", "numa_node", "numa_cores", "config",
			"resource_control", "arch", "os")},
	{section: "tiflash_servers", name: "tiflash",
		ports: []string{"tcp_port", "flash_service_port", "flash_proxy_port", "flash_proxy_status_port", "metrics_port"},
		keys: server("spec.TiFlashSpec", "host", "manage_host", "ssh_port", "patched", "ignore_exporter", "tcp_port",
			"http_port", "flash_service_port", "flash_proxy_port", "flash_proxy_status_port", "metrics_port", "deploy_dir",
			"data_dir", "log_dir", "tmp_path", "offline", "source", "numa_node", "numa_cores", "config", "learner_config",
			"resource_control", "arch", "os")},
	{section: "monitoring_servers", name: "prometheus", ports: []string{"port"},
		keys: server("spec.PrometheusSpec", "host", "manage_host", "ssh_port", "patched", "ignore_exporter", "port", "ng_port",
			"deploy_dir", "data_dir", "log_dir", "numa_node", "prom_remote_write_to_vm", "enable_prom_agent_mode",
			"remote_config", "external_alertmanagers", "pushgateway_addrs", "storage_retention", "storage_retention_size",
			"storage_retention_time", "resource_control", "arch", "os", "rule_dir", "additional_scrape_conf",
			"scrape_interval", "scrape_timeout", "additional_args", "ng_monitoring_config")},
	{section: "grafana_servers", name: "grafana", ports: []string{"port"},
		keys: server("spec.GrafanaSpec", "host", "manage_host", "ssh_port", "patched", "ignore_exporter", "port",
			"deploy_dir", "config", "resource_control", "arch", "os", "dashboard_dir", "username", "password",
			"anonymous_enable", "root_url", "domain", "default_theme", "org_name", "org_role", "use_vm_as_datasource")},
	{section: "alertmanager_servers", name: "alertmanager", ports: []string{"web_port", "cluster_port"},
		keys: server("spec.AlertmanagerSpec", "host", "manage_host", "ssh_port", "patched", "ignore_exporter", "web_port",
			"cluster_port", "listen_host", "deploy_dir", "data_dir", "log_dir", "numa_node", "resource_control",
			"additional_args", "arch", "os", "config_file")},
}

// unmodeled are the other sections tiup knows; the stand-in refuses them
// when they list servers, rather than pretend to deploy them (empty, as
// show-config prints tiproxy_servers, they are taken).
var unmodeled = []string{"tiproxy_servers", "tso_servers", "scheduling_servers", "resource_manager_servers",
	"router_servers", "tidb_dashboard_servers", "pump_servers", "drainer_servers", "cdc_servers", "kvcdc_servers",
	"tispark_masters", "tispark_workers"}

var topLevel = map[string]*typeDef{
	"global": globalKeys, "monitored": monitoredKeys, "component_versions": componentVersionsKeys,
	"component_sources": componentSourcesKeys, "server_configs": serverConfigsKeys,
}

func componentOf(section string) *component {
	for _, c := range components {
		if c.section == section {
			return c
		}
	}
	return nil
}

// Topology is a parsed and validated topology: the specification tiup
// makes of a file, defaults filled (see spec.go).
type Topology struct {
	spec *specification
}

// ParseTopology reads a topology file's text as tiup deploy and
// edit-config --topology-file do (spec.ParseTopologyYaml, the decoding in
// manager.editTopo): strict YAML (unknown keys are errors), the defaults
// of Specification.UnmarshalYAML, then tiup's checks of hosts and ports.
// Relative directories stay relative: deploy expands them (deployed).
func ParseTopology(text []byte) (*Topology, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil {
		return nil, err
	}
	var problems []string
	if len(doc.Content) > 0 {
		problems = checkTopLevel(doc.Content[0])
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("yaml: unmarshal errors:\n  %s", strings.Join(problems, "\n  "))
	}
	s := &specification{}
	if err := yaml.Unmarshal(text, s); err != nil {
		return nil, err
	}
	if err := s.fillDefaults(); err != nil {
		return nil, err
	}
	t := &Topology{spec: s}
	if err := t.validate(); err != nil {
		return nil, err
	}
	return t, nil
}

// deployed makes t the topology deploy stores (manager.Deploy): relative
// directories made absolute, Prometheus' ng_port as the cluster version
// wants, global.ssh_type from --ssh when given, and each instance's arch
// and os from its host.
func (t *Topology) deployed(version, sshType string) {
	t.spec.expandRelativeDirs()
	if sshType != "" {
		t.spec.GlobalOptions.SSHType = sshType
	}
	t.spec.adjustByVersion(version)
	t.spec.fillHosts()
}

// YAML is the topology as tiup prints it (show-config) and hands it to
// the editor (edit-config): yaml.Marshal of the specification.
func (t *Topology) YAML() ([]byte, error) { return t.spec.marshal() }

func checkTopLevel(n *yaml.Node) []string {
	if n.Kind != yaml.MappingNode {
		return []string{fmt.Sprintf("line %d: cannot unmarshal %s into spec.Specification", n.Line, describe(n))}
	}
	var problems []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch {
		case topLevel[k.Value] != nil:
			problems = append(problems, checkMapping(v, topLevel[k.Value])...)
		case componentOf(k.Value) != nil:
			if isNull(v) {
				continue
			}
			if v.Kind != yaml.SequenceNode {
				problems = append(problems, fmt.Sprintf("line %d: cannot unmarshal %s into []*%s", v.Line, describe(v), componentOf(k.Value).keys.goType))
				continue
			}
			for _, e := range v.Content {
				if isNull(e) {
					problems = append(problems, fmt.Sprintf("line %d: the tiup stand-in does not model an empty server entry", e.Line))
					continue
				}
				problems = append(problems, checkMapping(e, componentOf(k.Value).keys)...)
			}
		case slices.Contains(unmodeled, k.Value):
			if !isNull(v) && !(v.Kind == yaml.SequenceNode && len(v.Content) == 0) {
				problems = append(problems, fmt.Sprintf("line %d: section %s is known to tiup but not modeled by this stand-in", k.Line, k.Value))
			}
		default:
			problems = append(problems, fmt.Sprintf("line %d: field %s not found in type spec.Specification", k.Line, k.Value))
		}
	}
	return problems
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

// checkMapping reports keys def does not have and port values that are
// not integers, as yaml.v3 words them.
func checkMapping(n *yaml.Node, def *typeDef) []string {
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return []string{fmt.Sprintf("line %d: cannot unmarshal %s into %s", n.Line, describe(n), def.goType)}
	}
	var problems []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !slices.Contains(def.keys, k.Value) {
			problems = append(problems, fmt.Sprintf("line %d: field %s not found in type %s", k.Line, k.Value, def.goType))
			continue
		}
		if strings.HasSuffix(k.Value, "port") && v.Tag != "!!int" {
			problems = append(problems, fmt.Sprintf("line %d: cannot unmarshal %s into int", v.Line, describe(v)))
		}
		if sub := def.nested[k.Value]; sub != nil {
			problems = append(problems, checkMapping(v, sub)...)
		}
	}
	return problems
}

func describe(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return fmt.Sprintf("%s `%s`", n.Tag, n.Value)
	}
	return n.Tag
}

// User is global.user, the user the services run as (default tidb).
func (t *Topology) User() string { return t.spec.GlobalOptions.User }

// SSHType is global.ssh_type (default builtin).
func (t *Topology) SSHType() string { return t.spec.GlobalOptions.SSHType }

// Instance is one server of the topology as display shows it.
type Instance struct {
	Component string
	Host      string
	Port      int   // the main port
	Ports     []int // every used port
	DeployDir string
	DataDir   string // "-" when the component has none
	NumaNode  string
	NumaCores string
	Memory    string
	CPUQuota  string
	Arch, OS  string
}

// ID is host:port, as tiup names instances.
func (i Instance) ID() string { return i.Host + ":" + strconv.Itoa(i.Port) }

// Instances lists the servers in tiup's start order, with the fields of
// their specs.
func (t *Topology) Instances() []Instance {
	var out []Instance
	for _, c := range components {
		for _, spec := range t.spec.servers(c) {
			out = append(out, instance(c, spec))
		}
	}
	return out
}

func stringField(v reflect.Value, name string) string {
	if f := v.FieldByName(name); f.IsValid() {
		return f.String()
	}
	return ""
}

func instance(c *component, spec reflect.Value) Instance {
	in := Instance{Component: c.name, Host: stringField(spec, "Host")}
	for _, key := range c.ports {
		in.Ports = append(in.Ports, int(fieldByYAML(spec, key).Int()))
	}
	in.Port = in.Ports[0]
	if ng := spec.FieldByName("NgPort"); ng.IsValid() && ng.Int() > 0 {
		in.Ports = append(in.Ports, int(ng.Int()))
	}
	in.DeployDir, in.DataDir = stringField(spec, "DeployDir"), "-"
	if d := spec.FieldByName("DataDir"); d.IsValid() {
		in.DataDir = d.String()
	}
	in.NumaNode, in.NumaCores = dash(stringField(spec, "NumaNode")), dash(stringField(spec, "NumaCores"))
	rc := spec.FieldByName("ResourceControl")
	in.Memory, in.CPUQuota = dash(stringField(rc, "MemoryLimit")), dash(stringField(rc, "CPUQuota"))
	in.Arch, in.OS = stringField(spec, "Arch"), stringField(spec, "OS")
	return in
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// validate applies tiup's checks (Specification.Validate) the stand-in
// models: every instance has a host, every port is in range, no two
// instances share a host:port.
func (t *Topology) validate() error {
	type owner struct{ section, key string }
	used := map[string]owner{}
	for _, c := range components {
		for _, spec := range t.spec.servers(c) {
			host := stringField(spec, "Host")
			if host == "" {
				return fmt.Errorf("`%s` contains empty host field", c.section)
			}
			for _, key := range c.ports {
				v := fieldByYAML(spec, key).Int()
				if v < 1 || v > 65535 {
					return fmt.Errorf("`%s` of %s=%d is invalid, port should be in the range [1, 65535]", c.section, key, v)
				}
				at := host + ":" + strconv.FormatInt(v, 10)
				if prev, ok := used[at]; ok {
					return fmt.Errorf("port conflict for '%d' between '%s:%s.%s' and '%s:%s.%s'", v, prev.section, host, prev.key, c.section, host, key)
				}
				used[at] = owner{c.section, key}
			}
		}
	}
	return nil
}

// CoreInstances counts the instances deploy counts: all but monitoring.
func (t *Topology) CoreInstances() int {
	n := 0
	for _, in := range t.Instances() {
		switch in.Component {
		case "prometheus", "grafana", "alertmanager":
		default:
			n++
		}
	}
	return n
}
