package tiupstub

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// HomeEnv names the environment variable that holds the stand-in's state
// directory. Without it the stand-in refuses to run, so that it never
// writes into a real user's ~/.tiup.
const HomeEnv = "TIUPSTUB_HOME"

// The state directory:
//
//	calls.jsonl                  one Call per invocation, in order
//	clusters/NAME/meta.json      what deploy recorded, whether the cluster runs, how many displays it had
//	clusters/NAME/topology.yaml  the cluster's topology as tiup keeps it: the specification deploy made of its file, then each accepted edit's
//	clusters/NAME/status.json    the statuses the test asks for (Status, by instance id)
//	playgrounds/TAG/state.json   a running `tiup playground`
//	playground.json              how `tiup playground` behaves (PlaygroundPlan)

// Call is one invocation of the stand-in as it recorded it.
type Call struct {
	Args     []string `json:"args"`
	Editor   string   `json:"editor,omitempty"` // $EDITOR when it was set
	ExitCode int      `json:"exit_code"`
	// Topology is the text of the topology file the call was given
	// (deploy's third argument, edit-config's --topology-file), as the
	// stand-in read and checked it.
	Topology string `json:"topology,omitempty"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
}

// Status is what display shows for one instance: Status for the first
// UntilDisplays displays of the cluster (counting every display, from the
// first), then Then. UntilDisplays 0 means always Status. Store, when
// set, is the store's STORE_STATE_NAME in TiDB's TIKV_STORE_STATUS instead
// of the status display shows ("-": the store is not listed).
type Status struct {
	Status        string `json:"status"`
	UntilDisplays int    `json:"until_displays,omitempty"`
	Then          string `json:"then,omitempty"`
	Store         string `json:"store,omitempty"`
}

type clusterMeta struct {
	Name         string `json:"name"`
	Version      string `json:"version"`
	User         string `json:"user"` // deploy --user: who tiup logs in as
	IdentityFile string `json:"identity_file"`
	SSHType      string `json:"ssh_type"`
	Running      bool   `json:"running"`
	Displays     int    `json:"displays"`
}

type state struct{ home string }

func (s state) clusterDir(name string) string { return filepath.Join(s.home, "clusters", name) }

func (s state) exists(name string) bool {
	_, err := os.Stat(filepath.Join(s.clusterDir(name), "meta.json"))
	return err == nil
}

func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

// writeJSON writes atomically (temp file and rename): a test may read
// the state while the stand-in runs.
func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return writeFile(path, data)
}

func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func (s state) meta(name string) (*clusterMeta, error) {
	var m clusterMeta
	if err := readJSON(filepath.Join(s.clusterDir(name), "meta.json"), &m); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("tidb cluster `%s` not exists", name)
		}
		return nil, err
	}
	return &m, nil
}

func (s state) saveMeta(m *clusterMeta) error {
	return writeJSON(filepath.Join(s.clusterDir(m.Name), "meta.json"), m)
}

// topology reads a cluster's stored topology back as tiup reads meta.yaml
// (yaml.Unmarshal into the Specification, whose UnmarshalYAML fills the
// defaults again).
func (s state) topology(name string) (*Topology, error) {
	data, err := os.ReadFile(filepath.Join(s.clusterDir(name), "topology.yaml"))
	if err != nil {
		return nil, err
	}
	t, err := ParseTopology(data)
	if err != nil {
		return nil, fmt.Errorf("the stored topology of %s: %w", name, err)
	}
	return t, nil
}

func (s state) statuses(name string) (map[string]Status, error) {
	out := map[string]Status{}
	err := readJSON(filepath.Join(s.clusterDir(name), "status.json"), &out)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	return out, err
}

func (s state) appendCall(c Call) error {
	line, err := json.Marshal(c)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(s.home, 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(s.home, "calls.jsonl"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// instanceStatus is what display shows for in after the cluster's
// displays-th display. Without a Status from the test, a running cluster
// is healthy: PD says Up, its first server |L (leader) and |UI (it serves
// TiDB Dashboard), every other instance Up. A stopped cluster shows what
// tiup shows when no PD answers: Down, and N/A for stores, whose state
// only PD knows.
func instanceStatus(in Instance, firstPD bool, running bool, plan map[string]Status, displays int) string {
	if st, ok := plan[in.ID()]; ok {
		if st.UntilDisplays > 0 && displays > st.UntilDisplays {
			return st.Then
		}
		return st.Status
	}
	if !running {
		if in.Component == "tikv" || in.Component == "tiflash" {
			return "N/A"
		}
		return "Down"
	}
	if in.Component == "pd" && firstPD {
		return "Up|L|UI"
	}
	return "Up"
}

// storeState is a store's STORE_STATE_NAME in TIKV_STORE_STATUS, "" when
// PD does not list it: PD's view, which display also shows for stores.
func storeState(status string, plan Status) string {
	if plan.Store == "-" {
		return ""
	}
	if plan.Store != "" {
		return plan.Store
	}
	switch {
	case status == "N/A":
		return ""
	case status == "Pending Offline":
		return "Offline"
	case strings.HasPrefix(status, "Up"):
		return "Up"
	}
	return status
}

// saveTopology stores a cluster's topology as tiup keeps it in meta.yaml:
// yaml.Marshal of its specification (spec.SpecManager.SaveMeta).
func (s state) saveTopology(name string, t *Topology) error {
	data, err := t.YAML()
	if err != nil {
		return err
	}
	return writeFile(filepath.Join(s.clusterDir(name), "topology.yaml"), data)
}
