package tiupstub

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// Stub is the stand-in built for one test, with a state directory of its
// own.
type Stub struct {
	Tiup string // a `tiup` script running the stand-in on this state: what a plan gives as tiup=
	Bin  string // the built program
	Home string // the state directory ($TIUPSTUB_HOME)
}

// New builds the stand-in with `go build` into the test's temporary
// directory and writes Tiup, a script that runs it with Home as its state
// (sshd does not pass the test's environment to the commands it runs).
// Playgrounds the test leaves running are killed at cleanup.
func New(t testing.TB) *Stub {
	t.Helper()
	dir := t.TempDir()
	s := &Stub{Bin: filepath.Join(dir, "tiup-stand-in"), Home: filepath.Join(dir, "home"), Tiup: filepath.Join(dir, "bin", "tiup")}
	build := exec.Command("go", "build", "-o", s.Bin, "github.com/starbench/starbench/internal/testutil/tiupstub/cmd/tiup")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the tiup stand-in: %v\n%s", err, out)
	}
	script := "#!/bin/sh\nexport " + HomeEnv + "=" + shellQuote(s.Home) + "\nexec " + shellQuote(s.Bin) + " \"$@\"\n"
	if err := os.MkdirAll(filepath.Dir(s.Tiup), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.Tiup, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(s.Home, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.killPlaygrounds(t) })
	return s
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// Result is one run of the stand-in from a test.
type Result struct {
	Code           int
	Stdout, Stderr string
}

// Run runs `tiup ARGS...` with stdin and extra environment (K=V).
func (s *Stub) Run(t testing.TB, stdin string, env []string, args ...string) Result {
	t.Helper()
	cmd := exec.Command(s.Tiup, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := Result{Stdout: stdout.String(), Stderr: stderr.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.Code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run the tiup stand-in: %v", err)
	}
	return r
}

// SetStatus sets what display shows for one instance (host:port) of a
// cluster, before or after it is deployed.
func (s *Stub) SetStatus(t testing.TB, cluster, id string, st Status) {
	t.Helper()
	st0 := state{home: s.Home}
	plan, err := st0.statuses(cluster)
	if err != nil {
		t.Fatal(err)
	}
	plan[id] = st
	if err := writeJSON(filepath.Join(st0.clusterDir(cluster), "status.json"), plan); err != nil {
		t.Fatal(err)
	}
}

// SetPlayground sets how `tiup playground` behaves.
func (s *Stub) SetPlayground(t testing.TB, plan PlaygroundPlan) {
	t.Helper()
	if err := writeJSON(filepath.Join(s.Home, "playground.json"), plan); err != nil {
		t.Fatal(err)
	}
}

// Calls returns every call recorded so far, in order.
func (s *Stub) Calls(t testing.TB) []Call {
	t.Helper()
	f, err := os.Open(filepath.Join(s.Home, "calls.jsonl"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var calls []Call
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var c Call
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("calls.jsonl: %v", err)
		}
		calls = append(calls, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return calls
}

// Displays returns how many displays a cluster has had.
func (s *Stub) Displays(t testing.TB, cluster string) int {
	t.Helper()
	m, err := state{home: s.Home}.meta(cluster)
	if err != nil {
		t.Fatal(err)
	}
	return m.Displays
}

// Deployed reports whether the cluster exists (deployed, not destroyed).
func (s *Stub) Deployed(cluster string) bool { return state{home: s.Home}.exists(cluster) }

// Running reports whether the cluster runs (started and not stopped).
func (s *Stub) Running(t testing.TB, cluster string) bool {
	t.Helper()
	m, err := state{home: s.Home}.meta(cluster)
	if err != nil {
		t.Fatal(err)
	}
	return m.Running
}

// Store is one row of TiDB's INFORMATION_SCHEMA.TIKV_STORE_STATUS.
type Store struct {
	ID      int
	Address string
	State   string // STORE_STATE_NAME: Up, Offline, Tombstone, Disconnected, Down
	Label   string // LABEL (JSON), [] or the engine label of TiFlash
	Version string
}

// storeStateID is STORE_STATE for a STORE_STATE_NAME (PD's metapb
// StoreState: Up 0, Offline 1, Tombstone 2; Disconnected and Down are
// stores in state Up whose heartbeats stopped).
func storeStateID(name string) int {
	switch name {
	case "Offline":
		return 1
	case "Tombstone":
		return 2
	}
	return 0
}

// ClusterStores returns the stores PD would list for a stand-in cluster:
// its TiKV and TiFlash instances in the state its last display showed.
func (s *Stub) ClusterStores(cluster string) func() ([]Store, error) {
	return func() ([]Store, error) {
		st := state{home: s.Home}
		m, err := st.meta(cluster)
		if err != nil {
			return nil, err
		}
		topo, err := st.topology(cluster)
		if err != nil {
			return nil, err
		}
		plan, err := st.statuses(cluster)
		if err != nil {
			return nil, err
		}
		var out []Store
		for _, in := range topo.Instances() {
			label := "[]"
			switch in.Component {
			case "tikv":
			case "tiflash":
				label = `[{"key": "engine", "value": "tiflash"}]`
			default:
				continue
			}
			name := storeState(instanceStatus(in, false, m.Running, plan, m.Displays), plan[in.ID()])
			if name == "" {
				continue
			}
			addr := in.ID()
			if in.Component == "tiflash" {
				addr = in.Host + ":" + strconv.Itoa(in.Ports[1]) // flash_service_port
			}
			out = append(out, Store{ID: len(out) + 1, Address: addr, State: name, Label: label, Version: strings.TrimPrefix(m.Version, "v")})
		}
		return out, nil
	}
}

// PlaygroundStores returns the stores of a running stand-in playground:
// its TiKV (ports from 20160) and TiFlash instances, all Up.
func (s *Stub) PlaygroundStores(tag string) func() ([]Store, error) {
	return func() ([]Store, error) {
		var p playground
		if err := readJSON(filepath.Join(s.Home, "playgrounds", tag, "state.json"), &p); err != nil {
			return nil, err
		}
		var out []Store
		for i := 0; i < p.KV; i++ {
			out = append(out, Store{ID: len(out) + 1, Address: p.Host + ":" + strconv.Itoa(20160+i), State: "Up", Label: "[]", Version: strings.TrimPrefix(p.Version, "v")})
		}
		for i := 0; i < p.TiFlash; i++ {
			out = append(out, Store{ID: len(out) + 1, Address: p.Host + ":" + strconv.Itoa(3930+i), State: "Up",
				Label: `[{"key": "engine", "value": "tiflash"}]`, Version: strings.TrimPrefix(p.Version, "v")})
		}
		return out, nil
	}
}

// killPlaygrounds ends the playgrounds this stub started that still run,
// by the pids they recorded.
func (s *Stub) killPlaygrounds(t testing.TB) {
	entries, _ := os.ReadDir(filepath.Join(s.Home, "playgrounds"))
	for _, d := range entries {
		var p playground
		if readJSON(filepath.Join(s.Home, "playgrounds", d.Name(), "state.json"), &p) == nil && isPlayground(p.PID) {
			if err := syscall.Kill(p.PID, syscall.SIGKILL); err == nil {
				t.Logf("killed the playground %s the test left running (pid %d)", d.Name(), p.PID)
			}
		}
	}
}
