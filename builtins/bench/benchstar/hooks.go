package benchstar

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/starbench/starbench/builtins/bench"
	"github.com/starbench/starbench/builtins/db/dbstar"
	"github.com/starbench/starbench/runner"
	"github.com/starbench/starbench/runner/results"
)

// StepHooks makes the hooks of one benchmark step (its telemetry
// samplers) from what the plan set up before it; interval is the step's
// report interval.
type StepHooks func(interval time.Duration) []bench.Hook

// stepHooks are a run's hook makers, by the name of the module that set
// them.
type stepHooks struct {
	mu     sync.Mutex
	makers map[string]StepHooks
}

type stepHooksKey struct{}

func hooksOf(h runner.Host) *stepHooks {
	return h.State(stepHooksKey{}, func() any { return &stepHooks{makers: map[string]StepHooks{}} }).(*stepHooks)
}

// SetStepHooks makes every benchmark step the run runs from now on run
// with the hooks make makes (nil: none), in place of those module set
// before.
func SetStepHooks(h runner.Host, module string, make StepHooks) {
	s := hooksOf(h)
	s.mu.Lock()
	defer s.mu.Unlock()
	if make == nil {
		delete(s.makers, module)
		return
	}
	s.makers[module] = make
}

// HooksFor are the hooks of a benchmark step starting now, of report
// interval interval.
func HooksFor(h runner.Host, interval time.Duration) []bench.Hook {
	s := hooksOf(h)
	s.mu.Lock()
	defer s.mu.Unlock()
	names := make([]string, 0, len(s.makers))
	for name := range s.makers {
		names = append(names, name)
	}
	sort.Strings(names)
	var hooks []bench.Hook
	for _, name := range names {
		hooks = append(hooks, s.makers[name](interval)...)
	}
	return hooks
}

// SettingsHook records in a step's summary the server settings it starts
// with on handle c (dbstar.Conn.StepSettings), against the manifest's.
func SettingsHook(c *dbstar.Conn, info runner.RunInfo) bench.Hook {
	return &settingsHook{conn: c, info: info}
}

type settingsHook struct {
	conn *dbstar.Conn
	info runner.RunInfo
	got  *results.ServerSettings
}

func (h *settingsHook) Start(ctx context.Context, _ string) error {
	h.got = h.conn.StepSettings(ctx, h.info)
	return nil
}

func (h *settingsHook) Stop(context.Context) error { return nil }

func (h *settingsHook) Annotate(sum *results.Summary) { sum.Settings = h.got }
