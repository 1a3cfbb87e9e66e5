package tiupstub

import (
	"fmt"
	"path"
	"slices"
	"sort"
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
// host:port), which keys edit-config may change, and the defaults display
// shows.

// typeDef is the keys of one mapping of the file and the name of tiup's
// Go type for it, which its errors name.
type typeDef struct {
	goType string
	keys   []string
	nested map[string]*typeDef // keys whose value is itself checked
}

var resourceControl = &typeDef{goType: "meta.ResourceControl", keys: []string{
	"memory_limit", "cpu_quota", "io_read_bandwidth_max", "io_write_bandwidth_max", "limit_core",
	"timeout_stop_sec", "timeout_start_sec"}}

var globalOptions = &typeDef{goType: "spec.GlobalOptions", keys: []string{
	"user", "group", "ssh_port", "ssh_type", "enable_tls", "listen_host", "deploy_dir", "data_dir", "log_dir",
	"resource_control", "os", "arch", "custom", "systemd_mode", "pd_mode"},
	nested: map[string]*typeDef{"resource_control": resourceControl}}

var monitoredOptions = &typeDef{goType: "spec.MonitoredOptions", keys: []string{
	"node_exporter_port", "blackbox_exporter_port", "node_exporter_version", "blackbox_exporter_version",
	"deploy_dir", "data_dir", "log_dir", "numa_node", "resource_control"},
	nested: map[string]*typeDef{"resource_control": resourceControl}}

var serverConfigs = &typeDef{goType: "spec.ServerConfigs", keys: []string{
	"tidb", "tikv", "pd", "tso", "scheduling", "resource_manager", "router", "tidb_dashboard", "tiflash", "tiproxy",
	"tiflash-learner", "pump", "drainer", "cdc", "kvcdc", "grafana", "ng_monitoring"}}

var componentVersions = &typeDef{goType: "spec.ComponentVersions", keys: []string{
	"tidb", "tikv", "tiflash", "pd", "tso", "scheduling", "resource_manager", "router", "tidb_dashboard", "pump",
	"drainer", "cdc", "kvcdc", "tiproxy", "prometheus", "grafana", "alertmanager"}}

var componentSources = &typeDef{goType: "spec.ComponentSources", keys: []string{
	"tidb", "tikv", "tiflash", "pd", "tidb_dashboard", "pump", "drainer", "cdc", "kvcdc"}}

// port is one port key of a component and its default.
type port struct {
	key string
	def int
}

// component is one *_servers section the stand-in models.
type component struct {
	section string // tikv_servers
	name    string // its ComponentName and role: tikv
	spec    *typeDef
	ports   []port // as display lists them (UsedPorts); the first is the instance's port
	data    bool   // has a data directory
	// editable keys edit-config may change; the rest of an instance is
	// immutable, but config (and learner_config) changes are ignored.
	editable []string
}

func server(goType string, keys ...string) *typeDef {
	return &typeDef{goType: goType, keys: keys, nested: map[string]*typeDef{"resource_control": resourceControl}}
}

var commonEditable = []string{"manage_host", "ssh_port", "source", "numa_node", "numa_cores", "resource_control"}

// components in tiup's start order (ComponentsByStartOrder), which is also
// the order of instances before display sorts them.
var components = []*component{
	{section: "pd_servers", name: "pd", data: true, editable: commonEditable,
		ports: []port{{"client_port", 2379}, {"peer_port", 2380}},
		spec: server("spec.PDSpec", "host", "manage_host", "listen_host", "advertise_client_addr", "advertise_peer_addr",
			"ssh_port", "patched", "ignore_exporter", "name", "client_port", "peer_port", "deploy_dir", "data_dir", "log_dir",
			"source", "numa_node", "config", "resource_control", "arch", "os")},
	{section: "tikv_servers", name: "tikv", data: true, editable: commonEditable,
		ports: []port{{"port", 20160}, {"status_port", 20180}},
		spec: server("spec.TiKVSpec", "host", "manage_host", "listen_host", "advertise_addr", "ssh_port", "patched",
			"ignore_exporter", "port", "status_port", "advertise_status_addr", "deploy_dir", "data_dir", "log_dir", "offline",
			"source", "numa_node", "numa_cores", "config", "resource_control", "arch", "os")},
	{section: "tidb_servers", name: "tidb", editable: commonEditable,
		ports: []port{{"port", 4000}, {"status_port", 10080}},
		spec: server("spec.TiDBSpec", "host", "manage_host", "listen_host", "advertise_address", "ssh_port", "patched",
			"ignore_exporter", "port", "status_port", "deploy_dir", "log_dir", "source", "numa_node", "numa_cores", "config",
			"resource_control", "arch", "os")},
	{section: "tiflash_servers", name: "tiflash", data: true, editable: commonEditable,
		ports: []port{{"tcp_port", 9000}, {"flash_service_port", 3930}, {"flash_proxy_port", 20170},
			{"flash_proxy_status_port", 20292}, {"metrics_port", 8234}},
		spec: server("spec.TiFlashSpec", "host", "manage_host", "ssh_port", "patched", "ignore_exporter", "tcp_port",
			"http_port", "flash_service_port", "flash_proxy_port", "flash_proxy_status_port", "metrics_port", "deploy_dir",
			"data_dir", "log_dir", "tmp_path", "offline", "source", "numa_node", "numa_cores", "config", "learner_config",
			"resource_control", "arch", "os")},
	{section: "monitoring_servers", name: "prometheus", data: true,
		editable: append(slices.Clone(commonEditable), "ng_port", "prom_remote_write_to_vm", "enable_prom_agent_mode",
			"storage_retention", "storage_retention_size", "storage_retention_time", "rule_dir", "scrape_interval", "scrape_timeout"),
		ports: []port{{"port", 9090}},
		spec: server("spec.PrometheusSpec", "host", "manage_host", "ssh_port", "patched", "ignore_exporter", "port", "ng_port",
			"deploy_dir", "data_dir", "log_dir", "numa_node", "prom_remote_write_to_vm", "enable_prom_agent_mode",
			"remote_config", "external_alertmanagers", "pushgateway_addrs", "storage_retention", "storage_retention_size",
			"storage_retention_time", "resource_control", "arch", "os", "rule_dir", "additional_scrape_conf",
			"scrape_interval", "scrape_timeout", "additional_args", "ng_monitoring_config")},
	{section: "grafana_servers", name: "grafana",
		editable: append(slices.Clone(commonEditable), "dashboard_dir", "username", "password", "anonymous_enable",
			"root_url", "domain", "default_theme", "org_name", "org_role", "use_vm_as_datasource"),
		ports: []port{{"port", 3000}},
		spec: server("spec.GrafanaSpec", "host", "manage_host", "ssh_port", "patched", "ignore_exporter", "port",
			"deploy_dir", "config", "resource_control", "arch", "os", "dashboard_dir", "username", "password",
			"anonymous_enable", "root_url", "domain", "default_theme", "org_name", "org_role", "use_vm_as_datasource")},
	{section: "alertmanager_servers", name: "alertmanager", data: true,
		editable: append(slices.Clone(commonEditable), "listen_host", "config_file"),
		ports:    []port{{"web_port", 9093}, {"cluster_port", 9094}},
		spec: server("spec.AlertmanagerSpec", "host", "manage_host", "ssh_port", "patched", "ignore_exporter", "web_port",
			"cluster_port", "listen_host", "deploy_dir", "data_dir", "log_dir", "numa_node", "resource_control",
			"additional_args", "arch", "os", "config_file")},
}

// unmodeled are the other sections tiup knows; the stand-in refuses them
// rather than pretend to deploy them.
var unmodeled = []string{"tiproxy_servers", "tso_servers", "scheduling_servers", "resource_manager_servers",
	"router_servers", "tidb_dashboard_servers", "pump_servers", "drainer_servers", "cdc_servers", "kvcdc_servers",
	"tispark_masters", "tispark_workers"}

var topLevel = map[string]*typeDef{
	"global": globalOptions, "monitored": monitoredOptions, "component_versions": componentVersions,
	"component_sources": componentSources, "server_configs": serverConfigs,
}

func componentOf(section string) *component {
	for _, c := range components {
		if c.section == section {
			return c
		}
	}
	return nil
}

// Topology is a parsed and validated topology file.
type Topology struct {
	raw  map[string]any
	text []byte
}

// ParseTopology reads a topology file's text as tiup deploy and
// edit-config --topology-file do: strict YAML (unknown keys are errors),
// then tiup's checks of hosts and ports.
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
	raw := map[string]any{}
	if err := yaml.Unmarshal(text, &raw); err != nil {
		return nil, err
	}
	t := &Topology{raw: raw, text: text}
	if err := t.validate(); err != nil {
		return nil, err
	}
	return t, nil
}

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
			if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
				continue
			}
			if v.Kind != yaml.SequenceNode {
				problems = append(problems, fmt.Sprintf("line %d: cannot unmarshal %s into []*%s", v.Line, describe(v), componentOf(k.Value).spec.goType))
				continue
			}
			for _, e := range v.Content {
				problems = append(problems, checkMapping(e, componentOf(k.Value).spec)...)
			}
		case slices.Contains(unmodeled, k.Value):
			problems = append(problems, fmt.Sprintf("line %d: section %s is known to tiup but not modeled by this stand-in", k.Line, k.Value))
		default:
			problems = append(problems, fmt.Sprintf("line %d: field %s not found in type spec.Specification", k.Line, k.Value))
		}
	}
	return problems
}

// checkMapping reports keys def does not have and port values that are
// not integers, as yaml.v3 words them.
func checkMapping(n *yaml.Node, def *typeDef) []string {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
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

func (t *Topology) global() map[string]any {
	g, _ := t.raw["global"].(map[string]any)
	return g
}

func (t *Topology) globalString(key, def string) string {
	if s, ok := t.global()[key].(string); ok && s != "" {
		return s
	}
	return def
}

// User is global.user, the user the services run as (default tidb).
func (t *Topology) User() string { return t.globalString("user", "tidb") }

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
	spec      map[string]any
}

// ID is host:port, as tiup names instances.
func (i Instance) ID() string { return i.Host + ":" + strconv.Itoa(i.Port) }

// Instances lists the servers in tiup's start order.
func (t *Topology) Instances() []Instance {
	var out []Instance
	for _, c := range components {
		entries, _ := t.raw[c.section].([]any)
		for _, e := range entries {
			spec, _ := e.(map[string]any)
			out = append(out, t.instance(c, spec))
		}
	}
	return out
}

func intOf(v any, def int) int {
	if n, ok := v.(int); ok {
		return n
	}
	return def
}

func stringOf(v any) string {
	if v == nil {
		return ""
	}
	return fmt.Sprint(v)
}

func (t *Topology) instance(c *component, spec map[string]any) Instance {
	in := Instance{Component: c.name, Host: stringOf(spec["host"]), spec: spec}
	for _, p := range c.ports {
		in.Ports = append(in.Ports, intOf(spec[p.key], p.def))
	}
	in.Port = in.Ports[0]
	if c.name == "prometheus" && intOf(spec["ng_port"], 0) > 0 {
		in.Ports = append(in.Ports, intOf(spec["ng_port"], 0))
	}
	home := "/home/" + t.User()
	abs := func(p string) string {
		if strings.HasPrefix(p, "/") {
			return p
		}
		return path.Join(home, p)
	}
	sub := fmt.Sprintf("%s-%d", c.name, in.Port)
	// Defaults as tiup fills them (spec.setCustomDefaults, ExpandRelativeDir).
	if d := stringOf(spec["deploy_dir"]); d != "" {
		in.DeployDir = abs(d)
	} else {
		in.DeployDir = abs(path.Join(t.globalString("deploy_dir", "deploy"), sub))
	}
	in.DataDir = "-"
	if c.data {
		switch d, g := stringOf(spec["data_dir"]), t.globalString("data_dir", "data"); {
		case strings.HasPrefix(d, "/"):
			in.DataDir = d
		case d != "":
			in.DataDir = path.Join(in.DeployDir, d)
		case strings.HasPrefix(g, "/"):
			in.DataDir = path.Join(g, sub)
		default:
			in.DataDir = path.Join(in.DeployDir, g)
		}
	}
	in.NumaNode, in.NumaCores = dash(stringOf(spec["numa_node"])), dash(stringOf(spec["numa_cores"]))
	rc, _ := spec["resource_control"].(map[string]any)
	in.Memory, in.CPUQuota = dash(stringOf(rc["memory_limit"])), dash(stringOf(rc["cpu_quota"]))
	in.Arch, in.OS = stringOf(spec["arch"]), stringOf(spec["os"])
	if in.Arch == "" {
		in.Arch = t.globalString("arch", "amd64") // tiup asks the host at deploy; the stand-in assumes amd64
	}
	if in.OS == "" {
		in.OS = t.globalString("os", "linux")
	}
	return in
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// validate applies tiup's checks (Specification.Validate): every instance
// has a host, every port is in range, no two instances share a host:port.
func (t *Topology) validate() error {
	type owner struct{ section, key string }
	used := map[string]owner{}
	for _, c := range components {
		entries, _ := t.raw[c.section].([]any)
		for _, e := range entries {
			spec, _ := e.(map[string]any)
			host := stringOf(spec["host"])
			if host == "" {
				return fmt.Errorf("`%s` contains empty host field", c.section)
			}
			for _, p := range c.ports {
				v := intOf(spec[p.key], p.def)
				if v < 1 || v > 65535 {
					return fmt.Errorf("`%s` of %s=%d is invalid, port should be in the range [1, 65535]", c.section, p.key, v)
				}
				at := host + ":" + strconv.Itoa(v)
				if prev, ok := used[at]; ok {
					return fmt.Errorf("port conflict for '%d' between '%s:%s.%s' and '%s:%s.%s'", v, prev.section, host, prev.key, c.section, host, p.key)
				}
				used[at] = owner{c.section, p.key}
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

// immutableChanges lists what edit-config refuses to change from old to
// new (utils.ValidateSpecDiff over the validate tags): instances added or
// removed, and any change of a key that is not editable. server_configs
// and each instance's config are free to change.
func immutableChanges(old, new *Topology) []string {
	var msgs []string
	for _, key := range []string{"global", "monitored", "component_versions"} {
		editable := map[string][]string{
			"global":    {"ssh_port", "listen_host", "resource_control", "pd_mode", "custom"},
			"monitored": {"numa_node", "resource_control"},
		}[key]
		msgs = append(msgs, mapChanges(key, asMap(old.raw[key]), asMap(new.raw[key]), editable)...)
	}
	for _, c := range components {
		o, _ := old.raw[c.section].([]any)
		n, _ := new.raw[c.section].([]any)
		for i := len(o); i < len(n); i++ {
			msgs = append(msgs, fmt.Sprintf("added %s.%d with value '%v'", c.section, i, n[i]))
		}
		for i := len(n); i < len(o); i++ {
			msgs = append(msgs, fmt.Sprintf("removed %s.%d with value '%v'", c.section, i, o[i]))
		}
		for i := 0; i < len(o) && i < len(n); i++ {
			free := append(slices.Clone(c.editable), "config", "learner_config", "additional_args", "additional_scrape_conf",
				"remote_config", "external_alertmanagers", "pushgateway_addrs", "ng_monitoring_config")
			msgs = append(msgs, mapChanges(fmt.Sprintf("%s.%d", c.section, i), asMap(o[i]), asMap(n[i]), free)...)
		}
	}
	return msgs
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func mapChanges(where string, old, new map[string]any, free []string) []string {
	keys := map[string]bool{}
	for k := range old {
		keys[k] = true
	}
	for k := range new {
		keys[k] = true
	}
	var sorted []string
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	var msgs []string
	for _, k := range sorted {
		if slices.Contains(free, k) {
			continue
		}
		a, b := stringOf(old[k]), stringOf(new[k])
		if a != b {
			msgs = append(msgs, fmt.Sprintf("%s.%s changed from '%s' to '%s'", where, k, a, b))
		}
	}
	return msgs
}
