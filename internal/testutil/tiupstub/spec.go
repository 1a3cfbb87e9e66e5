package tiupstub

import (
	"fmt"
	"path"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The cluster specification tiup keeps (pkg/cluster/spec.Specification of
// tiup v1.16.5, the sections the stand-in models): what deploy stores,
// what show-config prints and edit-config hands the editor, both as
// yaml.Marshal of it (manager.ShowConfig, manager.EditConfig). The structs
// below keep tiup's facts, not its code: the Go field names (tiup's
// immutable-field errors name untagged fields by them), their order (the
// order yaml.Marshal prints), the yaml keys with their omitempty, the
// default tags and the validate tags edit-config's check reads.

type resourceControl struct {
	MemoryLimit         string `yaml:"memory_limit,omitempty" validate:"memory_limit:editable"`
	CPUQuota            string `yaml:"cpu_quota,omitempty" validate:"cpu_quota:editable"`
	IOReadBandwidthMax  string `yaml:"io_read_bandwidth_max,omitempty" validate:"io_read_bandwidth_max:editable"`
	IOWriteBandwidthMax string `yaml:"io_write_bandwidth_max,omitempty" validate:"io_write_bandwidth_max:editable"`
	LimitCORE           string `yaml:"limit_core,omitempty" validate:"limit_core:editable"`
	TimeoutStopSec      string `yaml:"timeout_stop_sec,omitempty" validate:"timeout_stop_sec:editable"`
	TimeoutStartSec     string `yaml:"timeout_start_sec,omitempty" validate:"timeout_start_sec:editable"`
}

type globalOptions struct {
	User            string          `yaml:"user,omitempty" default:"tidb"`
	Group           string          `yaml:"group,omitempty"`
	SSHPort         int             `yaml:"ssh_port,omitempty" default:"22" validate:"ssh_port:editable"`
	SSHType         string          `yaml:"ssh_type,omitempty" default:"builtin"`
	TLSEnabled      bool            `yaml:"enable_tls,omitempty"`
	ListenHost      string          `yaml:"listen_host,omitempty" validate:"listen_host:editable"`
	DeployDir       string          `yaml:"deploy_dir,omitempty" default:"deploy"`
	DataDir         string          `yaml:"data_dir,omitempty" default:"data"`
	LogDir          string          `yaml:"log_dir,omitempty"`
	ResourceControl resourceControl `yaml:"resource_control,omitempty" validate:"resource_control:editable"`
	OS              string          `yaml:"os,omitempty" default:"linux"`
	Arch            string          `yaml:"arch,omitempty"`
	Custom          any             `yaml:"custom,omitempty" validate:"custom:ignore"`
	SystemdMode     string          `yaml:"systemd_mode,omitempty" default:"system"`
	PDMode          string          `yaml:"pd_mode,omitempty" validate:"pd_mode:editable"`
}

type monitoredOptions struct {
	NodeExporterPort        int             `yaml:"node_exporter_port,omitempty" default:"9100"`
	BlackboxExporterPort    int             `yaml:"blackbox_exporter_port,omitempty" default:"9115"`
	NodeExporterVersion     string          `yaml:"node_exporter_version,omitempty"`
	BlackboxExporterVersion string          `yaml:"blackbox_exporter_version,omitempty"`
	DeployDir               string          `yaml:"deploy_dir,omitempty"`
	DataDir                 string          `yaml:"data_dir,omitempty"`
	LogDir                  string          `yaml:"log_dir,omitempty"`
	NumaNode                string          `yaml:"numa_node,omitempty" validate:"numa_node:editable"`
	ResourceControl         resourceControl `yaml:"resource_control,omitempty" validate:"resource_control:editable"`
}

type serverConfigs struct {
	TiDB            configMap         `yaml:"tidb"`
	TiKV            configMap         `yaml:"tikv"`
	PD              configMap         `yaml:"pd"`
	TSO             configMap         `yaml:"tso"`
	Scheduling      configMap         `yaml:"scheduling"`
	ResourceManager configMap         `yaml:"resource_manager"`
	Router          configMap         `yaml:"router"`
	Dashboard       configMap         `yaml:"tidb_dashboard"`
	TiFlash         configMap         `yaml:"tiflash"`
	TiProxy         configMap         `yaml:"tiproxy"`
	TiFlashLearner  configMap         `yaml:"tiflash-learner"`
	Pump            configMap         `yaml:"pump"`
	Drainer         configMap         `yaml:"drainer"`
	CDC             configMap         `yaml:"cdc"`
	TiKVCDC         configMap         `yaml:"kvcdc"`
	Grafana         map[string]string `yaml:"grafana"`
	NGMonitoring    configMap         `yaml:"ng_monitoring"`
}

type componentVersions struct {
	TiDB            string `yaml:"tidb,omitempty"`
	TiKV            string `yaml:"tikv,omitempty"`
	TiFlash         string `yaml:"tiflash,omitempty"`
	PD              string `yaml:"pd,omitempty"`
	TSO             string `yaml:"tso,omitempty"`
	Scheduling      string `yaml:"scheduling,omitempty"`
	ResourceManager string `yaml:"resource_manager,omitempty"`
	Router          string `yaml:"router,omitempty"`
	Dashboard       string `yaml:"tidb_dashboard,omitempty"`
	Pump            string `yaml:"pump,omitempty"`
	Drainer         string `yaml:"drainer,omitempty"`
	CDC             string `yaml:"cdc,omitempty"`
	TiKVCDC         string `yaml:"kvcdc,omitempty"`
	TiProxy         string `yaml:"tiproxy,omitempty"`
	Prometheus      string `yaml:"prometheus,omitempty"`
	Grafana         string `yaml:"grafana,omitempty"`
	AlertManager    string `yaml:"alertmanager,omitempty"`
}

type componentSources struct {
	TiDB      string `yaml:"tidb,omitempty" validate:"tidb:editable"`
	TiKV      string `yaml:"tikv,omitempty" validate:"tikv:editable"`
	TiFlash   string `yaml:"tiflash,omitempty" validate:"tiflash:editable"`
	PD        string `yaml:"pd,omitempty" validate:"pd:editable"`
	Dashboard string `yaml:"tidb_dashboard,omitempty" validate:"tidb_dashboard:editable"`
	Pump      string `yaml:"pump,omitempty" validate:"pump:editable"`
	Drainer   string `yaml:"drainer,omitempty" validate:"drainer:editable"`
	CDC       string `yaml:"cdc,omitempty" validate:"cdc:editable"`
	TiKVCDC   string `yaml:"kvcdc,omitempty" validate:"kvcdc:editable"`
}

type pdSpec struct {
	Host                string          `yaml:"host"`
	ManageHost          string          `yaml:"manage_host,omitempty" validate:"manage_host:editable"`
	ListenHost          string          `yaml:"listen_host,omitempty"`
	AdvertiseClientAddr string          `yaml:"advertise_client_addr,omitempty"`
	AdvertisePeerAddr   string          `yaml:"advertise_peer_addr,omitempty"`
	SSHPort             int             `yaml:"ssh_port,omitempty" validate:"ssh_port:editable"`
	Patched             bool            `yaml:"patched,omitempty"`
	IgnoreExporter      bool            `yaml:"ignore_exporter,omitempty"`
	Name                string          `yaml:"name"`
	ClientPort          int             `yaml:"client_port" default:"2379"`
	PeerPort            int             `yaml:"peer_port" default:"2380"`
	DeployDir           string          `yaml:"deploy_dir,omitempty"`
	DataDir             string          `yaml:"data_dir,omitempty"`
	LogDir              string          `yaml:"log_dir,omitempty"`
	Source              string          `yaml:"source,omitempty" validate:"source:editable"`
	NumaNode            string          `yaml:"numa_node,omitempty" validate:"numa_node:editable"`
	Config              configMap       `yaml:"config,omitempty" validate:"config:ignore"`
	ResourceControl     resourceControl `yaml:"resource_control,omitempty" validate:"resource_control:editable"`
	Arch                string          `yaml:"arch,omitempty"`
	OS                  string          `yaml:"os,omitempty"`
}

type tikvSpec struct {
	Host                string          `yaml:"host"`
	ManageHost          string          `yaml:"manage_host,omitempty" validate:"manage_host:editable"`
	ListenHost          string          `yaml:"listen_host,omitempty"`
	AdvertiseAddr       string          `yaml:"advertise_addr,omitempty"`
	SSHPort             int             `yaml:"ssh_port,omitempty" validate:"ssh_port:editable"`
	Patched             bool            `yaml:"patched,omitempty"`
	IgnoreExporter      bool            `yaml:"ignore_exporter,omitempty"`
	Port                int             `yaml:"port" default:"20160"`
	StatusPort          int             `yaml:"status_port" default:"20180"`
	AdvertiseStatusAddr string          `yaml:"advertise_status_addr,omitempty"`
	DeployDir           string          `yaml:"deploy_dir,omitempty"`
	DataDir             string          `yaml:"data_dir,omitempty"`
	LogDir              string          `yaml:"log_dir,omitempty"`
	Offline             bool            `yaml:"offline,omitempty"`
	Source              string          `yaml:"source,omitempty" validate:"source:editable"`
	NumaNode            string          `yaml:"numa_node,omitempty" validate:"numa_node:editable"`
	NumaCores           string          `yaml:"numa_cores,omitempty" validate:"numa_cores:editable"`
	Config              configMap       `yaml:"config,omitempty" validate:"config:ignore"`
	ResourceControl     resourceControl `yaml:"resource_control,omitempty" validate:"resource_control:editable"`
	Arch                string          `yaml:"arch,omitempty"`
	OS                  string          `yaml:"os,omitempty"`
}

type tidbSpec struct {
	Host            string          `yaml:"host"`
	ManageHost      string          `yaml:"manage_host,omitempty" validate:"manage_host:editable"`
	ListenHost      string          `yaml:"listen_host,omitempty"`
	AdvertiseAddr   string          `yaml:"advertise_address,omitempty"`
	SSHPort         int             `yaml:"ssh_port,omitempty" validate:"ssh_port:editable"`
	Patched         bool            `yaml:"patched,omitempty"`
	IgnoreExporter  bool            `yaml:"ignore_exporter,omitempty"`
	Port            int             `yaml:"port" default:"4000"`
	StatusPort      int             `yaml:"status_port" default:"10080"`
	DeployDir       string          `yaml:"deploy_dir,omitempty"`
	LogDir          string          `yaml:"log_dir,omitempty"`
	Source          string          `yaml:"source,omitempty" validate:"source:editable"`
	NumaNode        string          `yaml:"numa_node,omitempty" validate:"numa_node:editable"`
	NumaCores       string          `yaml:"numa_cores,omitempty" validate:"numa_cores:editable"`
	Config          configMap       `yaml:"config,omitempty" validate:"config:ignore"`
	ResourceControl resourceControl `yaml:"resource_control,omitempty" validate:"resource_control:editable"`
	Arch            string          `yaml:"arch,omitempty"`
	OS              string          `yaml:"os,omitempty"`
}

type tiflashSpec struct {
	Host                 string          `yaml:"host"`
	ManageHost           string          `yaml:"manage_host,omitempty" validate:"manage_host:editable"`
	SSHPort              int             `yaml:"ssh_port,omitempty" validate:"ssh_port:editable"`
	Patched              bool            `yaml:"patched,omitempty"`
	IgnoreExporter       bool            `yaml:"ignore_exporter,omitempty"`
	TCPPort              int             `yaml:"tcp_port" default:"9000"`
	HTTPPort             int             `yaml:"http_port" default:"8123"`
	FlashServicePort     int             `yaml:"flash_service_port" default:"3930"`
	FlashProxyPort       int             `yaml:"flash_proxy_port" default:"20170"`
	FlashProxyStatusPort int             `yaml:"flash_proxy_status_port" default:"20292"`
	StatusPort           int             `yaml:"metrics_port" default:"8234"`
	DeployDir            string          `yaml:"deploy_dir,omitempty"`
	DataDir              string          `yaml:"data_dir,omitempty" validate:"data_dir:expandable"`
	LogDir               string          `yaml:"log_dir,omitempty"`
	TmpDir               string          `yaml:"tmp_path,omitempty"`
	Offline              bool            `yaml:"offline,omitempty"`
	Source               string          `yaml:"source,omitempty" validate:"source:editable"`
	NumaNode             string          `yaml:"numa_node,omitempty" validate:"numa_node:editable"`
	NumaCores            string          `yaml:"numa_cores,omitempty" validate:"numa_cores:editable"`
	Config               configMap       `yaml:"config,omitempty" validate:"config:ignore"`
	LearnerConfig        configMap       `yaml:"learner_config,omitempty" validate:"learner_config:ignore"`
	ResourceControl      resourceControl `yaml:"resource_control,omitempty" validate:"resource_control:editable"`
	Arch                 string          `yaml:"arch,omitempty"`
	OS                   string          `yaml:"os,omitempty"`
}

type prometheusRemote struct {
	RemoteWrite []map[string]any `yaml:"remote_write,omitempty" validate:"remote_write:ignore"`
	RemoteRead  []map[string]any `yaml:"remote_read,omitempty" validate:"remote_read:ignore"`
}

type externalAlertmanager struct {
	Host    string `yaml:"host"`
	WebPort int    `yaml:"web_port" default:"9093"`
}

type prometheusSpec struct {
	Host                  string                 `yaml:"host"`
	ManageHost            string                 `yaml:"manage_host,omitempty" validate:"manage_host:editable"`
	SSHPort               int                    `yaml:"ssh_port,omitempty" validate:"ssh_port:editable"`
	Patched               bool                   `yaml:"patched,omitempty"`
	IgnoreExporter        bool                   `yaml:"ignore_exporter,omitempty"`
	Port                  int                    `yaml:"port" default:"9090"`
	NgPort                int                    `yaml:"ng_port,omitempty" validate:"ng_port:editable"`
	DeployDir             string                 `yaml:"deploy_dir,omitempty"`
	DataDir               string                 `yaml:"data_dir,omitempty"`
	LogDir                string                 `yaml:"log_dir,omitempty"`
	NumaNode              string                 `yaml:"numa_node,omitempty" validate:"numa_node:editable"`
	PromRemoteWriteToVM   bool                   `yaml:"prom_remote_write_to_vm,omitempty" validate:"prom_remote_write_to_vm:editable"`
	EnablePromAgentMode   bool                   `yaml:"enable_prom_agent_mode,omitempty" validate:"enable_prom_agent_mode:editable"`
	RemoteConfig          prometheusRemote       `yaml:"remote_config,omitempty" validate:"remote_config:ignore"`
	ExternalAlertmanagers []externalAlertmanager `yaml:"external_alertmanagers" validate:"external_alertmanagers:ignore"`
	PushgatewayAddrs      []string               `yaml:"pushgateway_addrs,omitempty" validate:"pushgateway_addrs:ignore"`
	Retention             string                 `yaml:"storage_retention,omitempty" validate:"storage_retention:editable"`
	RetentionSize         string                 `yaml:"storage_retention_size,omitempty" validate:"storage_retention_size:editable"`
	RetentionTime         string                 `yaml:"storage_retention_time,omitempty" validate:"storage_retention_time:editable"`
	ResourceControl       resourceControl        `yaml:"resource_control,omitempty" validate:"resource_control:editable"`
	Arch                  string                 `yaml:"arch,omitempty"`
	OS                    string                 `yaml:"os,omitempty"`
	RuleDir               string                 `yaml:"rule_dir,omitempty" validate:"rule_dir:editable"`
	AdditionalScrapeConf  configMap              `yaml:"additional_scrape_conf,omitempty" validate:"additional_scrape_conf:ignore"`
	ScrapeInterval        string                 `yaml:"scrape_interval,omitempty" validate:"scrape_interval:editable"`
	ScrapeTimeout         string                 `yaml:"scrape_timeout,omitempty" validate:"scrape_timeout:editable"`
	AdditionalArgs        []string               `yaml:"additional_args,omitempty" validate:"additional_args:ignore"`
	NgMonitoringConfig    configMap              `yaml:"ng_monitoring_config,omitempty" validate:"ng_monitoring_config:ignore"`
}

type grafanaSpec struct {
	Host              string            `yaml:"host"`
	ManageHost        string            `yaml:"manage_host,omitempty" validate:"manage_host:editable"`
	SSHPort           int               `yaml:"ssh_port,omitempty" validate:"ssh_port:editable"`
	Patched           bool              `yaml:"patched,omitempty"`
	IgnoreExporter    bool              `yaml:"ignore_exporter,omitempty"`
	Port              int               `yaml:"port" default:"3000"`
	DeployDir         string            `yaml:"deploy_dir,omitempty"`
	Config            map[string]string `yaml:"config,omitempty" validate:"config:ignore"`
	ResourceControl   resourceControl   `yaml:"resource_control,omitempty" validate:"resource_control:editable"`
	Arch              string            `yaml:"arch,omitempty"`
	OS                string            `yaml:"os,omitempty"`
	DashboardDir      string            `yaml:"dashboard_dir,omitempty" validate:"dashboard_dir:editable"`
	Username          string            `yaml:"username,omitempty" default:"admin" validate:"username:editable"`
	Password          string            `yaml:"password,omitempty" default:"admin" validate:"password:editable"`
	AnonymousEnable   bool              `yaml:"anonymous_enable" validate:"anonymous_enable:editable"`
	RootURL           string            `yaml:"root_url" validate:"root_url:editable"`
	Domain            string            `yaml:"domain" validate:"domain:editable"`
	DefaultTheme      string            `yaml:"default_theme,omitempty" validate:"default_theme:editable"`
	OrgName           string            `yaml:"org_name,omitempty" validate:"org_name:editable"`
	OrgRole           string            `yaml:"org_role,omitempty" validate:"org_role:editable"`
	UseVMAsDatasource bool              `yaml:"use_vm_as_datasource,omitempty" validate:"use_vm_as_datasource:editable"`
}

type alertmanagerSpec struct {
	Host            string          `yaml:"host"`
	ManageHost      string          `yaml:"manage_host,omitempty" validate:"manage_host:editable"`
	SSHPort         int             `yaml:"ssh_port,omitempty" validate:"ssh_port:editable"`
	Patched         bool            `yaml:"patched,omitempty"`
	IgnoreExporter  bool            `yaml:"ignore_exporter,omitempty"`
	WebPort         int             `yaml:"web_port" default:"9093"`
	ClusterPort     int             `yaml:"cluster_port" default:"9094"`
	ListenHost      string          `yaml:"listen_host,omitempty" validate:"listen_host:editable"`
	DeployDir       string          `yaml:"deploy_dir,omitempty"`
	DataDir         string          `yaml:"data_dir,omitempty"`
	LogDir          string          `yaml:"log_dir,omitempty"`
	NumaNode        string          `yaml:"numa_node,omitempty" validate:"numa_node:editable"`
	ResourceControl resourceControl `yaml:"resource_control,omitempty" validate:"resource_control:editable"`
	AdditionalArgs  []string        `yaml:"additional_args,omitempty" validate:"additional_args:ignore"`
	Arch            string          `yaml:"arch,omitempty"`
	OS              string          `yaml:"os,omitempty"`
	ConfigFilePath  string          `yaml:"config_file,omitempty" validate:"config_file:editable"`
}

// tiproxySpec stands for tiup's TiProxySpec, whose section has no
// omitempty and so is always printed; the stand-in refuses a topology with
// TiProxy servers, so the list is always empty.
type tiproxySpec struct{}

// specification is tiup's Specification, without the sections that have
// omitempty and that the stand-in refuses to model (always empty, so never
// printed and never changed).
type specification struct {
	GlobalOptions     globalOptions       `yaml:"global,omitempty" validate:"global:editable"`
	MonitoredOptions  monitoredOptions    `yaml:"monitored,omitempty" validate:"monitored:editable"`
	ComponentVersions componentVersions   `yaml:"component_versions,omitempty" validate:"component_versions:editable"`
	ComponentSources  componentSources    `yaml:"component_sources,omitempty" validate:"component_sources:editable"`
	ServerConfigs     serverConfigs       `yaml:"server_configs,omitempty" validate:"server_configs:ignore"`
	TiDBServers       []*tidbSpec         `yaml:"tidb_servers"`
	TiKVServers       []*tikvSpec         `yaml:"tikv_servers"`
	TiFlashServers    []*tiflashSpec      `yaml:"tiflash_servers"`
	TiProxyServers    []*tiproxySpec      `yaml:"tiproxy_servers"`
	PDServers         []*pdSpec           `yaml:"pd_servers"`
	Monitors          []*prometheusSpec   `yaml:"monitoring_servers"`
	Grafanas          []*grafanaSpec      `yaml:"grafana_servers,omitempty"`
	Alertmanagers     []*alertmanagerSpec `yaml:"alertmanager_servers,omitempty"`
}

// configMap is a free-form configuration (server_configs.*, an instance's
// config). It marshals as tiup's yaml.v3 does: tiup v1.16.5 builds with a
// fork of yaml.v3 (go.mod's replace of gopkg.in/yaml.v3, tiup PR #2687)
// that keeps a decimal point on whole floats (1.0 prints "1.0", where
// yaml.v3 prints "1"), so a float stays a float when the file is read
// back.
type configMap map[string]any

// MarshalYAML implements yaml.Marshaler.
func (m configMap) MarshalYAML() (any, error) {
	if m == nil {
		return map[string]any{}, nil
	}
	return keepFloats(map[string]any(m)), nil
}

// keepFloats returns v with every float64 in it as a node that prints
// with a decimal point.
func keepFloats(v any) any {
	switch x := v.(type) {
	case float64:
		s := strconv.FormatFloat(x, 'g', -1, 64)
		if strings.Trim(s, "-0123456789") == "" {
			s += ".0"
		}
		switch s {
		case "+Inf":
			s = ".inf"
		case "-Inf":
			s = "-.inf"
		case "NaN":
			s = ".nan"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: s}
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = keepFloats(e)
		}
		return out
	case map[any]any:
		out := make(map[any]any, len(x))
		for k, e := range x {
			out[k] = keepFloats(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = keepFloats(e)
		}
		return out
	}
	return v
}

// marshal is yaml.Marshal of the specification, what show-config prints
// and what edit-config writes for the editor and compares the new file
// with (manager.ShowConfig, manager.EditConfig, manager.editTopo).
func (s *specification) marshal() ([]byte, error) { return yaml.Marshal(s) }

// servers returns the instance specs of a component's section (pointers
// to structs).
func (s *specification) servers(c *component) []reflect.Value {
	list := fieldByYAML(reflect.ValueOf(s).Elem(), c.section)
	out := make([]reflect.Value, 0, list.Len())
	for i := 0; i < list.Len(); i++ {
		out = append(out, list.Index(i).Elem())
	}
	return out
}

// yamlKey is a struct field's key in the file.
func yamlKey(f reflect.StructField) string {
	key, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	return key
}

// fieldByYAML is the field of struct v whose key is key, or the zero Value.
func fieldByYAML(v reflect.Value, key string) reflect.Value {
	for i := 0; i < v.NumField(); i++ {
		if yamlKey(v.Type().Field(i)) == key {
			return v.Field(i)
		}
	}
	return reflect.Value{}
}

// fillDefaults does what Specification.UnmarshalYAML does after decoding
// (pkg/cluster/spec/spec.go): the default tags (creasty/defaults: a field
// left zero takes its tag), the monitored directories, then
// fillCustomDefaults/setCustomDefaults for every instance: ssh_port from
// global, PD's name, deploy_dir, data_dir and log_dir from global's, arch
// and os normalized. Directories stay relative here; deploy makes them
// absolute (expandRelativeDirs). tiup also rewrites TiFlash's data_dir
// from a storage configuration (GetOverrideDataDir), which the stand-in
// does not model.
func (s *specification) fillDefaults() error {
	if err := setDefaultTags(reflect.ValueOf(s).Elem()); err != nil {
		return err
	}
	g, m := &s.GlobalOptions, &s.MonitoredOptions
	monitor := fmt.Sprintf("monitor-%d", m.NodeExporterPort)
	if m.DeployDir == "" {
		m.DeployDir = filepath.Join(g.DeployDir, monitor)
	}
	if m.DataDir == "" {
		m.DataDir = filepath.Join(g.DataDir, monitor)
	}
	if m.LogDir == "" {
		m.LogDir = "log"
	}
	if !strings.HasPrefix(m.LogDir, "/") && !strings.HasPrefix(m.LogDir, m.DeployDir) {
		m.LogDir = filepath.Join(m.DeployDir, m.LogDir)
	}
	for _, c := range components {
		for _, in := range s.servers(c) {
			sub := fmt.Sprintf("%s-%d", c.name, fieldByYAML(in, c.ports[0]).Int())
			if f := in.FieldByName("SSHPort"); f.IsValid() && f.Int() == 0 {
				f.SetInt(int64(g.SSHPort))
			}
			if f := in.FieldByName("Name"); f.IsValid() && f.String() == "" {
				f.SetString(fmt.Sprintf("pd-%s-%d", in.FieldByName("Host").String(), in.FieldByName("ClientPort").Int()))
			}
			if f := in.FieldByName("DataDir"); f.IsValid() && f.String() == "" {
				switch {
				case strings.HasPrefix(g.DataDir, "/"):
					f.SetString(filepath.Join(g.DataDir, sub))
				case g.DataDir == "":
					f.SetString("data")
				default:
					f.SetString(g.DataDir)
				}
			}
			if f := in.FieldByName("DeployDir"); f.IsValid() && f.String() == "" {
				f.SetString(filepath.Join(g.DeployDir, sub))
			}
			if f := in.FieldByName("LogDir"); f.IsValid() && f.String() == "" {
				switch {
				case strings.HasPrefix(g.LogDir, "/"):
					f.SetString(filepath.Join(g.LogDir, sub))
				case g.LogDir == "":
					f.SetString("log")
				default:
					f.SetString(g.LogDir)
				}
			}
			arch := in.FieldByName("Arch")
			switch a := strings.ToLower(arch.String()); a {
			case "x86_64":
				arch.SetString("amd64")
			case "aarch64":
				arch.SetString("arm64")
			default:
				arch.SetString(a)
			}
			os := in.FieldByName("OS")
			os.SetString(strings.ToLower(os.String()))
		}
	}
	return nil
}

// setDefaultTags gives every zero field of struct v with a default tag
// that default, in v and the structs, pointers and slices inside it.
func setDefaultTags(v reflect.Value) error {
	for i := 0; i < v.NumField(); i++ {
		f, sf := v.Field(i), v.Type().Field(i)
		switch f.Kind() {
		case reflect.Struct:
			if err := setDefaultTags(f); err != nil {
				return err
			}
		case reflect.Slice:
			for j := 0; j < f.Len(); j++ {
				e := f.Index(j)
				if e.Kind() == reflect.Pointer && !e.IsNil() {
					e = e.Elem()
				}
				if e.Kind() == reflect.Struct {
					if err := setDefaultTags(e); err != nil {
						return err
					}
				}
			}
		}
		def, ok := sf.Tag.Lookup("default")
		if !ok || !f.IsZero() {
			continue
		}
		switch f.Kind() {
		case reflect.String:
			f.SetString(def)
		case reflect.Int:
			n, err := strconv.Atoi(def)
			if err != nil {
				return fmt.Errorf("default of %s: %w", sf.Name, err)
			}
			f.SetInt(int64(n))
		case reflect.Bool:
			b, err := strconv.ParseBool(def)
			if err != nil {
				return fmt.Errorf("default of %s: %w", sf.Name, err)
			}
			f.SetBool(b)
		}
	}
	return nil
}

// absDir is spec.Abs (pkg/cluster/spec/util.go): a relative directory is
// under /home/USER.
func absDir(user, dir string) string {
	user, dir = strings.TrimSpace(user), strings.TrimSpace(dir)
	if !strings.HasPrefix(dir, "/") {
		dir = filepath.Join("/home", user, dir)
	}
	return filepath.Clean(dir)
}

// expandRelativeDirs is what deploy does after parsing
// (spec.ExpandRelativeDir in pkg/cluster/spec/parse_topology.go, called
// from manager.Deploy): every deploy_dir becomes absolute under
// /home/USER, then relative data_dir (each of a comma-separated list) and
// log_dir go under the deploy_dir; global is left as it is. edit-config
// does not do it for the new file.
func (s *specification) expandRelativeDirs() {
	user := s.GlobalOptions.User
	if user == "" {
		user = "tidb"
	}
	targets := []reflect.Value{reflect.ValueOf(&s.MonitoredOptions).Elem()}
	for _, c := range components {
		targets = append(targets, s.servers(c)...)
	}
	for _, v := range targets {
		deploy := v.FieldByName("DeployDir")
		if deploy.IsValid() && deploy.String() != "" {
			deploy.SetString(absDir(user, deploy.String()))
		}
		if data := v.FieldByName("DataDir"); data.IsValid() && data.String() != "" {
			var dirs []string
			for _, d := range strings.Split(data.String(), ",") {
				if !strings.HasPrefix(d, "/") {
					d = path.Join(deploy.String(), d)
				}
				dirs = append(dirs, d)
			}
			data.SetString(strings.Join(dirs, ","))
		}
		if logs := v.FieldByName("LogDir"); logs.IsValid() && logs.String() != "" && !strings.HasPrefix(logs.String(), "/") {
			logs.SetString(path.Join(deploy.String(), logs.String()))
		}
	}
}

// fillHosts is deploy's fillHost (manager.fillHostArchOrOS in
// pkg/cluster/manager/manager.go, spec.FillHostArchOrOS in
// pkg/cluster/spec/spec.go): an instance without arch or os takes what its
// host answers to `uname -m` and `uname -s`, normalized. The stand-in's
// hosts are x86_64 Linux machines.
func (s *specification) fillHosts() {
	for _, c := range components {
		for _, in := range s.servers(c) {
			if f := in.FieldByName("Arch"); f.String() == "" {
				f.SetString("amd64")
			}
			if f := in.FieldByName("OS"); f.String() == "" {
				f.SetString("linux")
			}
		}
	}
}

// adjustByVersion is Specification.AdjustByVersion (pkg/cluster/spec/spec.go)
// as deploy calls it, for the modeled components: from v5.4.0 (and
// nightly) Prometheus gets ng_port 12020 (tidbver.NgMonitorDeployByDefault,
// pkg/tidbver/tidbver.go).
func (s *specification) adjustByVersion(version string) {
	if !(versionAtLeast(version, 5, 4, 0) || strings.Contains(version, "nightly")) {
		return
	}
	for _, m := range s.Monitors {
		if m.NgPort == 0 {
			m.NgPort = 12020
		}
	}
}

// versionAtLeast compares a vX.Y.Z[-pre] version (fmtVer's output) with
// X.Y.Z as semver does: a pre-release is below its release.
func versionAtLeast(version string, major, minor, patch int) bool {
	m := semver.FindStringSubmatch(version)
	if m == nil {
		return false
	}
	have := []int{0, 0, 0}
	for i := range have {
		have[i], _ = strconv.Atoi(m[i+1])
	}
	for i, want := range []int{major, minor, patch} {
		if have[i] != want {
			return have[i] > want
		}
	}
	return m[4] == ""
}

// The check edit-config makes before it takes a new topology
// (utils.ValidateSpecDiff in pkg/utils/diff.go): github.com/r3labs/diff/v3
// lists the changes from the old specification to the new one, naming
// each step of a change's path by its validate tag ("name:ctl") or, for a
// field without one, its Go field name, and the check refuses every
// change that is not allowed:
//   - an update whose field is tagged editable is allowed;
//   - a change under a path element tagged ignore is allowed;
//   - an addition or removal is allowed only when every named element of
//     its path is editable (instances added or removed never are: the
//     server lists have no validate tag);
//   - a change of an expandable field (TiFlash's data_dir) is allowed
//     when the new list keeps the first directory and all the old ones.
//
// The refusals are printed "immutable field changed: " and, joined by
// ", ", "KEYS changed from 'A' to 'B'", "added KEYS with value 'V'" and
// "removed KEYS with value 'V'", KEYS being the path's names (without
// ":ctl") joined by dots, e.g. TiKVServers.1.Host or global.DataDir.
//
// How r3labs/diff walks the two (kept here): struct fields in their
// order; a list's elements are matched regardless of order, an element
// equal to one of the other list's not being a change; the unmatched ones
// are then paired by index (first the old list's, then the new list's
// indexes), a pair being compared field by field, an element with no pair
// listed field by field (its non-zero fields) as added or removed, with
// the nested fields of that element named by Go field name (r3labs uses a
// differ without the tag name for them).

type specChange struct {
	kind     string // create, delete or update
	path     []string
	from, to any
}

type specDiffer struct{ changes []specChange }

// validateSpecDiff returns tiup's "immutable field changed: ..." error
// for the changes from old to new that edit-config refuses, or nil.
func validateSpecDiff(old, new *specification) error {
	var d specDiffer
	d.compare(nil, reflect.ValueOf(old).Elem(), reflect.ValueOf(new).Elem())
	var msgs []string
	for _, c := range d.changes {
		if allowedChange(c) {
			continue
		}
		var keys []string
		for _, p := range c.path {
			k, _ := splitTag(p)
			keys = append(keys, k)
		}
		where := strings.Join(keys, ".")
		switch c.kind {
		case "create":
			msgs = append(msgs, fmt.Sprintf("added %s with value '%v'", where, c.to))
		case "delete":
			msgs = append(msgs, fmt.Sprintf("removed %s with value '%v'", where, c.from))
		default:
			msgs = append(msgs, fmt.Sprintf("%s changed from '%v' to '%v'", where, c.from, c.to))
		}
	}
	if len(msgs) > 0 {
		return fmt.Errorf("immutable field changed: %s", strings.Join(msgs, ", "))
	}
	return nil
}

// splitTag splits a path element "key:ctl"; an element without a ctl is
// both.
func splitTag(p string) (key, ctl string) {
	if k, c, ok := strings.Cut(p, ":"); ok {
		return k, c
	}
	return p, p
}

func allowedChange(c specChange) bool {
	if len(c.path) == 0 {
		return false
	}
	if _, leaf := splitTag(c.path[len(c.path)-1]); c.kind == "update" && leaf == "editable" {
		return true
	}
	editable, expandable := true, false
	for _, p := range c.path {
		key, ctl := splitTag(p)
		if _, err := strconv.Atoi(key); err == nil {
			continue
		}
		if ctl == "ignore" {
			return true
		}
		if ctl == "expandable" {
			expandable = keepsDirs(c.from, c.to)
		}
		if ctl != "editable" {
			editable = false
		}
	}
	return expandable || (editable && c.kind != "update")
}

// keepsDirs is validateExpandable: the new comma-separated list of
// directories starts with the old one's first and has all of the old.
func keepsDirs(from, to any) bool {
	a, ok1 := from.(string)
	b, ok2 := to.(string)
	if !ok1 || !ok2 {
		return false
	}
	tidy := func(s string) []string {
		parts := strings.Split(s, ",")
		for i := range parts {
			parts[i] = strings.TrimSuffix(strings.TrimSpace(parts[i]), "/")
		}
		return parts
	}
	old, new := tidy(a), tidy(b)
	if old[0] != new[0] {
		return false
	}
	for _, d := range old {
		found := false
		for _, e := range new {
			found = found || d == e
		}
		if !found {
			return false
		}
	}
	return true
}

// pathName names a struct field in a change's path: its validate tag, or
// its Go name (always the Go name when byTag is false).
func pathName(f reflect.StructField, byTag bool) string {
	if byTag {
		if t, _, _ := strings.Cut(f.Tag.Get("validate"), ","); t != "" {
			return t
		}
	}
	return f.Name
}

func extend(path []string, name string) []string {
	return append(append([]string(nil), path...), name)
}

// ignored reports whether the last element of path is tagged ignore:
// every change under it is allowed, so the walk does not go in.
func ignored(path []string) bool {
	if len(path) == 0 {
		return false
	}
	_, ctl := splitTag(path[len(path)-1])
	return ctl == "ignore"
}

// compare lists the changes from a to b (values of one type).
func (d *specDiffer) compare(path []string, a, b reflect.Value) {
	if ignored(path) {
		return
	}
	switch a.Kind() {
	case reflect.Pointer:
		switch {
		case a.IsNil() && b.IsNil():
		case a.IsNil():
			d.changes = append(d.changes, specChange{"update", path, nil, b.Interface()})
		case b.IsNil():
			d.changes = append(d.changes, specChange{"update", path, a.Interface(), nil})
		default:
			d.compare(path, a.Elem(), b.Elem())
		}
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			d.compare(extend(path, pathName(a.Type().Field(i), true)), a.Field(i), b.Field(i))
		}
	case reflect.Slice:
		d.compareLists(path, a, b)
	case reflect.String, reflect.Int, reflect.Bool:
		if a.Interface() != b.Interface() {
			d.changes = append(d.changes, specChange{"update", path, a.Interface(), b.Interface()})
		}
	default:
		// Maps and interfaces are all under ignore in the specification.
		if !reflect.DeepEqual(a.Interface(), b.Interface()) {
			d.changes = append(d.changes, specChange{"update", path, a.Interface(), b.Interface()})
		}
	}
}

// sameElement is r3labs' element match: no difference at all.
func sameElement(a, b reflect.Value) bool {
	x, err1 := yaml.Marshal(a.Interface())
	y, err2 := yaml.Marshal(b.Interface())
	return err1 == nil && err2 == nil && string(x) == string(y)
}

func (d *specDiffer) compareLists(path []string, a, b reflect.Value) {
	type pair struct{ a, b reflect.Value }
	pairs := map[int]*pair{}
	var keys []int
	used := make([]bool, b.Len())
	for i := 0; i < a.Len(); i++ {
		if !matchOne(a.Index(i), b, used) {
			pairs[i] = &pair{a: a.Index(i)}
			keys = append(keys, i)
		}
	}
	used = make([]bool, a.Len())
	for j := 0; j < b.Len(); j++ {
		if !matchOne(b.Index(j), a, used) {
			if pairs[j] == nil {
				pairs[j] = &pair{}
				keys = append(keys, j)
			}
			pairs[j].b = b.Index(j)
		}
	}
	for _, k := range keys {
		p, at := pairs[k], extend(path, strconv.Itoa(k))
		switch {
		case p.a.IsValid() && p.b.IsValid():
			d.compare(at, p.a, p.b)
		case p.a.IsValid():
			d.whole("delete", at, p.a)
		default:
			d.whole("create", at, p.b)
		}
	}
}

// matchOne reports whether v equals an element of list not used yet, and
// marks it used.
func matchOne(v, list reflect.Value, used []bool) bool {
	for i := 0; i < list.Len(); i++ {
		if !used[i] && sameElement(list.Index(i), v) {
			used[i] = true
			return true
		}
	}
	return false
}

// whole lists an element added or removed as a whole: each non-zero
// field, its first-level fields named by validate tag, deeper ones by Go
// name (r3labs' structValues).
func (d *specDiffer) whole(kind string, path []string, v reflect.Value) {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			d.changes = append(d.changes, specChange{kind: kind, path: path})
			return
		}
		v = v.Elem()
	}
	var inner specDiffer
	if v.Kind() == reflect.Struct {
		for i := 0; i < v.NumField(); i++ {
			inner.fromZero(extend(path, pathName(v.Type().Field(i), true)), v.Field(i))
		}
	} else {
		inner.fromZero(path, v)
	}
	for _, c := range inner.changes {
		if kind == "create" {
			d.changes = append(d.changes, specChange{kind: kind, path: c.path, to: c.to})
		} else {
			d.changes = append(d.changes, specChange{kind: kind, path: c.path, from: c.to})
		}
	}
}

// fromZero lists v's non-zero leaves as updates from zero, nested struct
// fields named by Go name.
func (d *specDiffer) fromZero(path []string, v reflect.Value) {
	if ignored(path) || v.IsZero() {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		d.fromZero(path, v.Elem())
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			d.fromZero(extend(path, pathName(v.Type().Field(i), false)), v.Field(i))
		}
	default:
		d.changes = append(d.changes, specChange{"update", path, nil, v.Interface()})
	}
}
