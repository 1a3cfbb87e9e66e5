package telemetry

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/procfs"
	"github.com/prometheus/procfs/blockdevice"
)

// HostReader reads this host's CPU, memory, disk and network from /proc
// and /sys (with the Prometheus project's procfs reader), and the CPU
// seconds and resident memory of the processes whose command name is one
// of those asked for. Counters: cpu_busy_seconds, cpu_idle_seconds,
// cpu_iowait_seconds, disk_read_bytes, disk_written_bytes (whole disks:
// not partitions, loop, RAM or device-mapper devices), net_rx_bytes and
// net_tx_bytes (every interface but loopback), and per process
// proc_cpu_seconds{comm="NAME"}; gauges: cpus, mem_total_bytes,
// mem_available_bytes and proc_rss_bytes{comm="NAME"}.
//
// The processes are found by a scan of /proc, again every
// processRescan, when one of them ended, and at every reading while a
// name has none; in between only theirs are read, so a host of thousands
// of processes costs what one of a few does (a second process of a name
// already found is seen within processRescan). A HostReader is used by one
// goroutine at a time.
type HostReader struct {
	pids    map[int]bool // the processes found by the last scan
	scanned time.Time
	scanFor string // the names the last scan looked for
	rescan  bool   // one of them ended
	missing bool   // a name had no process at the last scan
}

// processRescan is how often the processes are looked for again (a server
// restarted under a new pid).
const processRescan = 10 * time.Second

// ReadHost reads this host once (see HostReader), without a reader's
// memory of the processes.
func ReadHost(processes []string) (Reading, error) {
	var h HostReader
	return h.Read(processes)
}

// Read reads the host once.
func (h *HostReader) Read(processes []string) (Reading, error) {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return Reading{}, err
	}
	r := Reading{Time: time.Now(), Counters: map[string]float64{}, Gauges: map[string]float64{}}
	stat, err := fs.Stat()
	if err != nil {
		return Reading{}, fmt.Errorf("/proc/stat: %w", err)
	}
	c := stat.CPUTotal
	r.Counters["cpu_busy_seconds"] = c.User + c.Nice + c.System + c.IRQ + c.SoftIRQ + c.Steal
	r.Counters["cpu_idle_seconds"] = c.Idle + c.Iowait
	r.Counters["cpu_iowait_seconds"] = c.Iowait
	r.Gauges["cpus"] = float64(len(stat.CPU))
	if mem, err := fs.Meminfo(); err == nil && mem.MemTotalBytes != nil {
		r.Gauges["mem_total_bytes"] = float64(*mem.MemTotalBytes)
		if mem.MemAvailableBytes != nil {
			r.Gauges["mem_available_bytes"] = float64(*mem.MemAvailableBytes)
		}
	}
	if err := readDisks(r.Counters); err != nil {
		return Reading{}, err
	}
	if dev, err := fs.NetDev(); err == nil {
		var rx, tx float64
		for name, line := range dev {
			if name != "lo" {
				rx += float64(line.RxBytes)
				tx += float64(line.TxBytes)
			}
		}
		r.Counters["net_rx_bytes"], r.Counters["net_tx_bytes"] = rx, tx
	}
	if len(processes) > 0 {
		if err := h.readProcesses(fs, processes, r); err != nil {
			return Reading{}, err
		}
	}
	return r, nil
}

// sectorBytes is the unit of /proc/diskstats' sector counts, whatever the
// device's own sector size.
const sectorBytes = 512

// readDisks adds the bytes read and written by the host's whole disks.
func readDisks(into map[string]float64) error {
	bfs, err := blockdevice.NewDefaultFS()
	if err != nil {
		return err
	}
	disks, err := bfs.SysBlockDevices()
	if err != nil {
		return fmt.Errorf("/sys/block: %w", err)
	}
	whole := map[string]bool{}
	for _, d := range disks {
		if !strings.HasPrefix(d, "loop") && !strings.HasPrefix(d, "ram") && !strings.HasPrefix(d, "dm-") &&
			!strings.HasPrefix(d, "zram") && !strings.HasPrefix(d, "md") {
			whole[d] = true
		}
	}
	stats, err := bfs.ProcDiskstats()
	if err != nil {
		return fmt.Errorf("/proc/diskstats: %w", err)
	}
	var read, written float64
	for _, s := range stats {
		if whole[s.DeviceName] {
			read += float64(s.ReadSectors) * sectorBytes
			written += float64(s.WriteSectors) * sectorBytes
		}
	}
	into["disk_read_bytes"], into["disk_written_bytes"] = read, written
	return nil
}

// readProcesses adds the CPU seconds and resident memory of the processes
// named (by their command name, as ps -o comm shows it), summed by name.
func (h *HostReader) readProcesses(fs procfs.FS, names []string, r Reading) error {
	wanted := map[string]bool{}
	for _, n := range names {
		wanted[n] = true
		r.Counters[processColumn("proc_cpu_seconds", n)] += 0
		r.Gauges[processColumn("proc_rss_bytes", n)] += 0
	}
	key := strings.Join(names, "\x00")
	if h.pids == nil || h.rescan || h.missing || key != h.scanFor || time.Since(h.scanned) >= processRescan {
		procs, err := fs.AllProcs()
		if err != nil {
			return err
		}
		h.pids, h.scanned, h.scanFor, h.rescan = map[int]bool{}, time.Now(), key, false
		found := map[string]bool{}
		for _, p := range procs {
			if comm, err := p.Comm(); err == nil && wanted[comm] {
				h.pids[p.PID], found[comm] = true, true
			}
		}
		h.missing = len(found) < len(wanted) // look again next time: it may start
	}
	for pid := range h.pids {
		p, err := fs.Proc(pid)
		var st procfs.ProcStat
		if err == nil {
			st, err = p.Stat()
		}
		if err != nil || !wanted[st.Comm] {
			// It ended (or its pid went to another): its CPU seconds leave
			// the sum, which the rater takes for a reset; look again next
			// time.
			h.rescan = true
			continue
		}
		r.Counters[processColumn("proc_cpu_seconds", st.Comm)] += st.CPUTime()
		r.Gauges[processColumn("proc_rss_bytes", st.Comm)] += float64(st.ResidentMemory())
	}
	return nil
}

func processColumn(metric, comm string) string { return fmt.Sprintf("%s{comm=%q}", metric, comm) }

// Host reads this host (HostReader) for a plan's watch.
type Host struct {
	name      string
	processes []string

	mu     sync.Mutex
	reader HostReader
}

// NewHost is a source named name reading this host.
func NewHost(name string, processes []string) *Host { return &Host{name: name, processes: processes} }

func (h *Host) Name() string   { return h.name }
func (h *Host) Kind() string   { return "host" }
func (h *Host) Source() string { return "this host" }

// Read reads the host once.
func (h *Host) Read(context.Context) (Reading, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.reader.Read(h.processes)
}

// Derive adds the host's figures to a point.
func (h *Host) Derive(values map[string]float64) { DeriveHost(values) }

// DeriveHost adds cpu_busy_pct (of all the host's CPUs) and
// mem_used_bytes to a host's point.
func DeriveHost(values map[string]float64) {
	busy, okBusy := values["cpu_busy_seconds/s"]
	idle, okIdle := values["cpu_idle_seconds/s"]
	if okBusy && okIdle && busy+idle > 0 {
		values["cpu_busy_pct"] = 100 * busy / (busy + idle)
	}
	if total, ok := values["mem_total_bytes"]; ok {
		if avail, ok := values["mem_available_bytes"]; ok {
			values["mem_used_bytes"] = total - avail
		}
	}
}
