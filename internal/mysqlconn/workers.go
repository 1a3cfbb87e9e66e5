package mysqlconn

import (
	"context"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// ForWorkers prepares a run of threads workers, each with a session of its
// own that it waits on for every answer, and returns the context to open
// their sessions with (Open reads which sockets to use from it) and a
// release to call when the run is over.
//
//   - Up to BlockingIO's limit the sockets block, and their calls are
//     hidden from the scheduler (ioDedicated): each worker holds a P of its
//     own while it waits, so GOMAXPROCS is raised to one P a worker plus
//     spare for the caller's other busy goroutines (an open-loop
//     scheduler), and garbage is collected less often, until release.
//     With no spare P the other goroutines run when a worker yields: the
//     workers must call runtime.Gosched between events, well within the
//     runtime's 10 ms time slice (the engine does every 8 ms).
//   - With a server in this process (InProcessServer) the sockets block
//     through the runtime (ioBlocking), leaving the server Ps to answer with.
//   - Above BlockingIO's limit the sessions wait in Go's netpoller (ioPoller).
//   - With longWaits (events that wait seconds on the server: analytical
//     queries) the sockets block through the runtime (ioBlocking): a
//     worker hidden from the scheduler while it waited would be preempted
//     by a signal every 10 ms of its wait, each interrupting its read and
//     costing more than the wait's one hand-off of its P.
//
// Runs started at once as parts of one load call it once for all of their
// threads first: a ctx that already has its sockets chosen is returned as
// it is, so the parts neither decide on their own share nor change
// GOMAXPROCS (which stops the world, and waits for every worker blocked
// out of the scheduler's sight) while the others run.
func ForWorkers(ctx context.Context, threads, spare int, longWaits bool) (context.Context, func()) {
	if _, chosen := ctx.Value(ioModeKey{}).(ioMode); chosen {
		return ctx, func() {}
	}
	switch {
	case !BlockingIO(threads):
		return withIOMode(ctx, ioPoller), func() {}
	case inProcessServers.Load() > 0 || longWaits:
		return withIOMode(ctx, ioBlocking), func() {}
	}
	return withIOMode(ctx, ioDedicated), reserveProcs(threads, spare)
}

// BlockingIO says whether a run with this many threads uses blocking
// sockets: up to 4 threads a core (runtime.NumCPU, which follows the
// process's CPU affinity); above that the netpoller, read without the
// runtime's system-call bookkeeping (pollerConn). Waiting in read(2)
// costs less CPU per query than parking in the netpoller and being woken,
// until there are so many threads that a thread per connection means a
// context switch per answer (the README's Speed section has the figures).
func BlockingIO(threads int) bool { return threads <= 4*runtime.NumCPU() }

// ioMode says how a session's socket waits for the server.
type ioMode int

const (
	// ioBlocking: blocking system calls made through the runtime (a
	// blocked call releases its P). The default outside runs.
	ioBlocking ioMode = iota
	// ioPoller: Go's network poller (runs with many threads).
	ioPoller
	// ioDedicated: blocking system calls hidden from the runtime, for
	// workers that each have a P of their own (see reserveProcs).
	ioDedicated
)

type ioModeKey struct{}

// withIOMode tells Open which sockets to use.
func withIOMode(ctx context.Context, mode ioMode) context.Context {
	return context.WithValue(ctx, ioModeKey{}, mode)
}

// ioModeFor reads withIOMode's hint; without one (prepare, a single
// session) sockets block.
func ioModeFor(ctx context.Context) ioMode {
	mode, _ := ctx.Value(ioModeKey{}).(ioMode)
	return mode
}

// inProcessServers counts the database servers running in this process
// (see InProcessServer).
var inProcessServers atomic.Int64

// InProcessServer says that a database server runs inside this process
// until release is called. Runs' workers then wait through the runtime
// (ioBlocking) instead of each holding a P (ioDedicated): holding every P
// would leave the server none to answer with.
func InProcessServer() (release func()) {
	inProcessServers.Add(1)
	var once sync.Once
	return func() { once.Do(func() { inProcessServers.Add(-1) }) }
}

// procs counts the workers that hold a P while they wait (ioDedicated),
// across concurrent runs, and sizes GOMAXPROCS for them.
var procs struct {
	sync.Mutex
	base, gcPercent, dedicated int
}

// dedicatedGCPercent is the GOGC of runs with dedicated workers. Their
// heap is a few MB and a collection stops every worker (a signal each),
// so collecting at 4× the live heap instead of 1× takes most of that cost
// off every query for a few tens of MB.
const dedicatedGCPercent = 400

// reserveProcs raises GOMAXPROCS to one P for each of n more workers, plus
// spare for everything else, and collects garbage less often while any
// such run lasts; release undoes it. With no spare P the other goroutines
// run when a worker yields (see ForWorkers), and a yield wakes no idle
// thread. GOMAXPROCS never goes below what it was: with fewer workers than
// cores, the rest of the process (the plan, the journal, the progress
// line) keeps a P of its own instead of taking turns with a worker (with
// GOMAXPROCS = 1, a 1-thread run inside a plan once fell to less than half
// the tps of the same run before it).
func reserveProcs(n, spare int) (release func()) {
	procs.Lock()
	defer procs.Unlock()
	if procs.dedicated == 0 {
		procs.base = runtime.GOMAXPROCS(0)
		procs.gcPercent = debug.SetGCPercent(dedicatedGCPercent)
		if procs.gcPercent < 0 || procs.gcPercent > dedicatedGCPercent {
			debug.SetGCPercent(procs.gcPercent) // GC off or already rarer: keep it
		}
	}
	procs.dedicated += n + spare
	runtime.GOMAXPROCS(max(procs.base, procs.dedicated))
	return func() {
		procs.Lock()
		defer procs.Unlock()
		procs.dedicated -= n + spare
		runtime.GOMAXPROCS(max(procs.base, procs.dedicated))
		if procs.dedicated == 0 {
			debug.SetGCPercent(procs.gcPercent)
		}
	}
}
