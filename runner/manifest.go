package runner

import (
	"time"
)

// ManifestFile is the name of the manifest inside a results directory.
const ManifestFile = "manifest.json"

// Manifest says exactly what a run was: the tool, the plan and every file it
// loaded, the parameters, the seed, the client host and the targets.
type Manifest struct {
	Tool        ToolInfo          `json:"tool"`
	Plan        string            `json:"plan"`
	Sources     []*SourceFile     `json:"sources"`
	Params      map[string]any    `json:"params"`
	ParamTypes  map[string]string `json:"param_types"`
	Overrides   []string          `json:"overrides,omitempty"`
	Seed        int64             `json:"seed"`
	CommandLine []string          `json:"command_line,omitempty"`
	Host        HostInfo          `json:"host"`
	Targets     map[string]any    `json:"targets"`
	Banners     []string          `json:"banners,omitempty"`
	Started     time.Time         `json:"started"`
	Ended       *time.Time        `json:"ended,omitempty"`
	Status      string            `json:"status"` // running, completed, failed, interrupted
	Error       string            `json:"error,omitempty"`
	Steps       int               `json:"steps"`
	Resumes     []ResumeRecord    `json:"resumes,omitempty"`
	RerunOf     *RerunRecord      `json:"rerun_of,omitempty"`
}

// ToolInfo identifies the starbench build that ran.
type ToolInfo struct {
	Name      string `json:"name"`
	Version   string `json:"version"`
	GoVersion string `json:"go_version"`
}

// Run statuses recorded in the manifest and the journal.
const (
	StatusRunning     = "running"
	StatusCompleted   = "completed"
	StatusFailed      = "failed"
	StatusInterrupted = "interrupted"
)
