package runner

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
)

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
