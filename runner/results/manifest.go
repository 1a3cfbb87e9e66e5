package results

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Manifest is manifest.json: exactly what a run was. The tool, the plan
// and every file it loaded, the parameters, the seed, the client host and
// the targets.
type Manifest struct {
	// Format is the results format version the manifest was written in
	// (FormatVersion; 0 before version 5 recorded it).
	Format      int               `json:"format,omitempty"`
	Tool        ToolInfo          `json:"tool"`
	Plan        string            `json:"plan"`
	Sources     []*SourceFile     `json:"sources"`
	Modules     []*ModuleRecord   `json:"modules,omitempty"` // the pinned shared modules the sources came from
	Files       []*SavedFile      `json:"files,omitempty"`   // what the plan saved (save())
	Params      map[string]any    `json:"params"`
	ParamTypes  map[string]string `json:"param_types"`
	Overrides   []string          `json:"overrides,omitempty"`
	Seed        int64             `json:"seed"`
	Segment     string            `json:"segment,omitempty"` // "i/n": this run is the i-th of n slices of the plan's loads
	CommandLine []string          `json:"command_line,omitempty"`
	Host        HostInfo          `json:"host"`
	Targets     map[string]any    `json:"targets"` // see Target for the fields reports read
	Banners     []string          `json:"banners,omitempty"`
	Started     time.Time         `json:"started"`
	Ended       *time.Time        `json:"ended,omitempty"`
	Status      string            `json:"status"` // running, completed, failed, interrupted
	Error       string            `json:"error,omitempty"`
	Steps       int               `json:"steps"`
	Resumes     []ResumeRecord    `json:"resumes,omitempty"`
	RerunOf     *RerunRecord      `json:"rerun_of,omitempty"`
	From        *FromRecord       `json:"from,omitempty"` // the bundle or results folder the plan's files came from
	// Imported is true for a folder `starbench import` made from published
	// figures or a peer tool's output (its Sources are those files): it has
	// no plan to rerun or resume and no histograms to merge.
	Imported bool `json:"imported,omitempty"`
	// Telemetry are the sources the plan watched (telemetry.watch): each
	// benchmark step after the watch has a series of each in its folder.
	Telemetry []TelemetrySource `json:"telemetry,omitempty"`
}

// TelemetrySource is a source a plan's telemetry watch reads.
type TelemetrySource struct {
	Name   string `json:"name"`   // the series' name: telemetry/NAME.jsonl in each step's folder
	Kind   string `json:"kind"`   // status, prometheus, host
	Source string `json:"source"` // what it reads (no password)
}

// ToolName is what Manifest.Tool.Name says in a starbench results folder.
const ToolName = "starbench"

// ToolInfo identifies the starbench build that ran.
type ToolInfo struct {
	Name      string `json:"name"`
	Version   string `json:"version"`
	GoVersion string `json:"go_version"`
	// Revision is the VCS commit the binary was built from and Modified
	// says its work tree had changes (Go's build stamp: absent from a
	// `go run` or -buildvcs=false build).
	Revision string `json:"revision,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	// BinarySHA256 is the sha256 of the executable that ran: two runs by
	// the same build have the same.
	BinarySHA256 string `json:"binary_sha256,omitempty"`
}

// Tool is this starbench build, of version, as manifests record it.
func Tool(version string) ToolInfo {
	b := ThisBuild()
	b.Version = version
	return b
}

var thisBuild = sync.OnceValue(func() ToolInfo {
	t := ToolInfo{Name: ToolName, GoVersion: runtime.Version()}
	t.Revision, t.Modified = VCS()
	if exe, err := os.Executable(); err == nil {
		if f, err := os.Open(exe); err == nil {
			h := sha256.New()
			if _, err := io.Copy(h, f); err == nil {
				t.BinarySHA256 = hex.EncodeToString(h.Sum(nil))
			}
			f.Close()
		}
	}
	return t
})

// VCS is the commit Go stamped into the binary and whether its work tree
// had changes ("", false for a `go run` or -buildvcs=false build).
func VCS() (revision string, modified bool) {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "", false
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	return revision, modified
}

// ThisBuild is what is known of the running binary (Version empty): its
// Go version, VCS revision and sha256, read once.
func ThisBuild() ToolInfo { return thisBuild() }

// SourceFile is a plan file or a module it loaded, with its copy in the
// results folder.
type SourceFile struct {
	Name   string `json:"name"`   // as the plan named it: the plan path, "lib/x.star" or "@stdlib//x.star"
	Stored string `json:"stored"` // copy inside the results folder (sources/...)
	SHA256 string `json:"sha256"`
	Bytes  int    `json:"bytes"`
	// Module is the pinned shared module the file came from ("@team"; see
	// Manifest.Modules), "" for the plan's own files and the standard
	// library's.
	Module string `json:"module,omitempty"`
}

// ModuleRecord is a pinned shared module a run loaded files from: where
// they came from, exactly.
type ModuleRecord struct {
	Name       string `json:"name"`   // "@team", as the sources' Module fields name it
	URL        string `json:"url"`    // the git repository
	Commit     string `json:"commit"` // the commit the files are from
	Ref        string `json:"ref,omitempty"`
	TreeSHA256 string `json:"tree_sha256,omitempty"` // the tree's hash in starbench.sum
	PinnedBy   string `json:"pinned_by"`             // "starbench.mod" (the plan's) or "@x's starbench.mod"
	Note       string `json:"note,omitempty"`        // another pin of the repository that was not used, and why
}

// SavedFile is a file the plan saved into the results folder (a
// topology, a server's configuration), under files/.
type SavedFile struct {
	Name   string `json:"name"`   // as the plan named it
	Stored string `json:"stored"` // files/NAME inside the results folder
	Step   string `json:"step"`   // the step that saved it
	SHA256 string `json:"sha256"`
	Bytes  int    `json:"bytes"`
}

// SavedDir is the folder of saved files inside a results folder.
const SavedDir = "files"

// SaveFile writes a file the plan saves (name a relative path of plain
// names) into dir's SavedDir and returns its manifest entry.
func SaveFile(dir, step, name string, data []byte) (*SavedFile, error) {
	dst := filepath.Join(dir, SavedDir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return nil, err
	}
	if err := WriteFile(dst, data); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	return &SavedFile{Name: name, Stored: path.Join(SavedDir, name), Step: step, SHA256: hex.EncodeToString(sum[:]), Bytes: len(data)}, nil
}

// ResumeRecord says how a resumed run continued.
type ResumeRecord struct {
	Time     time.Time `json:"time"`
	FromStep string    `json:"from_step,omitempty"` // first step run for real
	Replayed int       `json:"replayed"`
	// RanAgain counts the completed steps that set or read server state
	// (SET GLOBAL, variables, SHOW CONFIG) the resume ran again rather
	// than replayed.
	RanAgain   int    `json:"ran_again,omitempty"`
	EditedPlan string `json:"edited_plan,omitempty"` // --plan FILE
	PlanSHA256 string `json:"plan_sha256,omitempty"`
	PlanCopy   string `json:"plan_copy,omitempty"`
}

// RerunRecord says which run a rerun repeats.
type RerunRecord struct {
	Dir     string    `json:"dir"`
	Started time.Time `json:"started"`
	Seed    int64     `json:"seed"`
}

// FromRecord names the bundle (or results folder run as one) a run took
// its plan and modules from.
type FromRecord struct {
	Path   string `json:"path"`
	Kind   string `json:"kind"`             // "bundle" or "results"
	SHA256 string `json:"sha256,omitempty"` // the bundle file's
}

// Target is what the manifest says of one target, as reports show it.
// The manifest keeps more (the server's variables, the sandbox's port).
type Target struct {
	Kind          string `json:"kind"`
	Engine        string `json:"engine"`
	DSN           string `json:"dsn"`
	Endpoints     string `json:"endpoints"`
	ServerVersion string `json:"server_version"`
	// Variables are the server's global variables at the run's first
	// connect to the target (SHOW GLOBAL VARIABLES), read by Target; kept
	// out of Target's own JSON, which reports show.
	Variables map[string]string `json:"-"`
}

// Target returns what the manifest records of target name.
func (m *Manifest) Target(name string) Target {
	var t struct {
		Target
		Variables map[string]string `json:"variables"`
	}
	if data, err := json.Marshal(m.Targets[name]); err == nil {
		_ = json.Unmarshal(data, &t) // fields of other types stay empty
	}
	t.Target.Variables = t.Variables
	return t.Target
}

// WriteManifest writes DIR/manifest.json atomically, with redact applied
// to its text (the command line, errors and DSNs may hold a password), in
// this build's format version (it sets m.Format).
func WriteManifest(dir string, m *Manifest, redact func(string) string) error {
	m.Format = FormatVersion
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	text := string(data)
	if redact != nil {
		text = redact(text)
	}
	return WriteFile(filepath.Join(dir, ManifestFile), []byte(text+"\n"))
}

// ReadManifest reads DIR/manifest.json, of any format version up to
// FormatVersion (Format is what the file says: 0 for versions 1 to 4). A
// missing folder or manifest, a truncated one or one another tool wrote
// is an error wrapping ErrNotResults that names the folder and what is
// wrong; one of a later format version is a *NewerFormatError.
func ReadManifest(dir string) (*Manifest, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrNotResults, dir, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%w: %s is a file, not a folder", ErrNotResults, dir)
	}
	data, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		return nil, fmt.Errorf("%w: %s has no %s (a results folder holds %s and %s or %s)", ErrNotResults, dir, ManifestFile, ManifestFile, JournalFile, SummaryFile)
	}
	if err := json.Unmarshal(data, &json.RawMessage{}); err != nil {
		return nil, fmt.Errorf("%w: %s/%s does not parse (truncated?): %v", ErrNotResults, dir, ManifestFile, err)
	}
	head := headOf(data)
	if head.Tool.Name != ToolName {
		return nil, fmt.Errorf("%w: %s/%s was not written by starbench", ErrNotResults, dir, ManifestFile)
	}
	if err := checkFormat(filepath.Join(dir, ManifestFile), head); err != nil {
		return nil, err
	}
	m := &Manifest{}
	if err := json.Unmarshal(data, m); err != nil {
		return nil, fmt.Errorf("%w: %s/%s does not parse (truncated?): %v", ErrNotResults, dir, ManifestFile, err)
	}
	return m, nil
}

// HostInfo describes the client machine a run executed on.
type HostInfo struct {
	Hostname    string `json:"hostname"`
	OS          string `json:"os"`
	Arch        string `json:"arch"`
	Kernel      string `json:"kernel,omitempty"`
	Distro      string `json:"distro,omitempty"`
	CPUModel    string `json:"cpu_model,omitempty"`
	CPUs        int    `json:"cpus"`
	MemoryBytes int64  `json:"memory_bytes,omitempty"`
}

// ReadHostInfo collects what the client host says about itself. Missing
// /proc or /etc files leave fields empty; it never fails.
func ReadHostInfo() HostInfo {
	h := HostInfo{OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU()}
	h.Hostname, _ = os.Hostname()
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		h.Kernel = strings.TrimSpace(string(b))
	}
	h.Distro = strings.Trim(fieldOf("/etc/os-release", "PRETTY_NAME", "="), `"`)
	h.CPUModel = fieldOf("/proc/cpuinfo", "model name", ":")
	if mem := fieldOf("/proc/meminfo", "MemTotal", ":"); mem != "" {
		kb, _ := strconv.ParseInt(strings.TrimSuffix(mem, " kB"), 10, 64)
		h.MemoryBytes = kb * 1024
	}
	return h
}

// fieldOf returns the value of the first "key<sep>value" line in a file.
func fieldOf(path, key, sep string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), sep)
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
