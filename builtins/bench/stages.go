package bench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"
)

// Stage is one stage of a load profile: over Duration the load goes
// linearly from the previous stage's Target (the first stage's from 0)
// to its own, and holds when the two are equal, as k6's ramping
// executors do. The load is threads in a closed-loop run, events per
// second under a rate.
type Stage struct {
	Duration time.Duration `json:"duration"`
	Target   float64       `json:"target"`
	// Jump makes the stage start at its Target, not ramp to it: a phase
	// (BenchBase's), whose load holds from its first moment.
	Jump bool `json:"jump,omitempty"`
	// Weights, when set, are the weights of the workload's kinds of event
	// (in its Kinds order) during the stage, in place of its own: a
	// phase's mix. The workload's workers must be Reweighters.
	Weights []int64 `json:"weights,omitempty"`
}

// Reweighter is a worker of a Kinded workload whose draw of the next
// event's kind can follow other weights (a phase's).
type Reweighter interface {
	// SetWeights draws the next events by weights (by kind, in the
	// workload's Kinds order); nil restores the workload's own.
	SetWeights(weights []int64)
}

// Weighted says whether some stage has weights of its own.
func (p Profile) Weighted() bool {
	for _, s := range p {
		if s.Weights != nil {
			return true
		}
	}
	return false
}

// Profile is a load that changes over one step: its stages, in order.
type Profile []Stage

// Check says what is wrong with a profile: a stage of no or negative
// time, a negative or infinite target.
func (p Profile) Check() error {
	if len(p) == 0 {
		return fmt.Errorf("stages: none given")
	}
	for i, s := range p {
		if s.Duration <= 0 {
			return fmt.Errorf("stages: stage %d lasts %v: a stage needs a time above zero", i+1, s.Duration)
		}
		if s.Target < 0 || math.IsNaN(s.Target) || math.IsInf(s.Target, 0) {
			return fmt.Errorf("stages: stage %d's target %v is not a load (0 or more)", i+1, s.Target)
		}
		total := int64(0)
		for _, w := range s.Weights {
			if w < 0 {
				return fmt.Errorf("stages: stage %d's weights %v: a weight is 0 or more", i+1, s.Weights)
			}
			total += w
		}
		if s.Weights != nil && total == 0 {
			return fmt.Errorf("stages: stage %d's weights are all 0: no event could be drawn", i+1)
		}
	}
	return nil
}

// Total is the profile's length.
func (p Profile) Total() time.Duration {
	var d time.Duration
	for _, s := range p {
		d += s.Duration
	}
	return d
}

// Max is the highest load the profile reaches.
func (p Profile) Max() float64 {
	m := 0.0
	for _, s := range p {
		m = math.Max(m, s.Target)
	}
	return m
}

// Scaled is the profile with every target times f (a segment's share of
// a rate).
func (p Profile) Scaled(f float64) Profile {
	out := make(Profile, len(p))
	for i, s := range p {
		out[i] = Stage{Duration: s.Duration, Target: s.Target * f}
	}
	return out
}

// At is the load at t since the profile began and the stage t falls in
// (1-based; after the end, the last stage's target and number).
func (p Profile) At(t time.Duration) (float64, int) {
	from := 0.0
	var begin time.Duration
	for i, s := range p {
		if s.Jump {
			from = s.Target
		}
		if t < begin+s.Duration {
			f := float64(t-begin) / float64(s.Duration)
			return from + (s.Target-from)*math.Max(0, f), i + 1
		}
		from, begin = s.Target, begin+s.Duration
	}
	if len(p) == 0 {
		return 0, 0
	}
	return p[len(p)-1].Target, len(p)
}

// Integral is the load summed over time from the profile's start to t, in
// load·seconds: for a rate, the events expected by then. After the end
// the last target holds.
func (p Profile) Integral(t time.Duration) float64 {
	sum, from := 0.0, 0.0
	var begin time.Duration
	for _, s := range p {
		if t <= begin {
			return sum
		}
		if s.Jump {
			from = s.Target
		}
		span := min(t-begin, s.Duration)
		f := float64(span) / float64(s.Duration)
		end := from + (s.Target-from)*f
		sum += (from + end) / 2 * span.Seconds()
		from, begin = s.Target, begin+s.Duration
	}
	if t > begin {
		sum += from * (t - begin).Seconds()
	}
	return sum
}

// Average is the mean load from a to b.
func (p Profile) Average(a, b time.Duration) float64 {
	if b <= a {
		v, _ := p.At(a)
		return v
	}
	return (p.Integral(b) - p.Integral(a)) / (b - a).Seconds()
}

// TimeOf is when the load summed from the start reaches sum (the inverse
// of Integral), and false when it does not within the profile.
func (p Profile) TimeOf(sum float64) (time.Duration, bool) {
	from, acc := 0.0, 0.0
	var begin time.Duration
	for _, s := range p {
		if s.Jump {
			from = s.Target
		}
		d := s.Duration.Seconds()
		area := (from + s.Target) / 2 * d
		if acc+area >= sum {
			// Within the stage the load is from + (to-from)·x/d, summed
			// from·x + (to-from)·x²/(2d): solve for the rest, in the form
			// that holds for a flat stage and either slope.
			rest := math.Max(0, sum-acc)
			a, b := (s.Target-from)/(2*d), from
			x := 0.0
			if rest > 0 {
				x = 2 * rest / (b + math.Sqrt(math.Max(0, b*b+4*a*rest)))
			}
			return begin + time.Duration(math.Min(x, d)*float64(time.Second)), true
		}
		acc += area
		from, begin = s.Target, begin+s.Duration
	}
	return begin, false
}

// LoadProfile is a step's load profile: its stages, of threads or (Rate)
// of events per second.
type LoadProfile struct {
	Stages Profile `json:"stages"`
	Rate   bool    `json:"rate,omitempty"`
	// Phases: the stages are a run's phases (BenchBase's), each holding
	// its load from its start, with weights of its own where given.
	Phases bool `json:"phases,omitempty"`
}

// WithStages makes the options of a whole load follow lp (no stages: o
// as it is): the run lasts the profile; of threads, its threads are the
// profile's highest (rounded up) and it is closed-loop; of rates, its rate
// is the profile's highest. Apply a segment after it.
func WithStages(o Options, lp LoadProfile) Options {
	if len(lp.Stages) == 0 {
		return o
	}
	o.Stages, o.Time = lp.Stages, lp.Stages.Total()
	if lp.Rate {
		o.Rate = lp.Stages.Max()
	} else {
		o.Rate = 0
		o.Threads = max(1, int(math.Ceil(lp.Stages.Max()-1e-9)))
	}
	return o
}

// stageStep is how often a staged closed-loop run moves its threads to
// the profile.
const stageStep = 5 * time.Millisecond

// threadsAt is how many threads the profile runs at t since counting
// began (its load, rounded down).
func (e *engine) threadsAt(t time.Duration) int64 {
	v, _ := e.opts.Stages.At(t)
	return int64(math.Floor(v + 1e-9))
}

// followStages moves the threads that may run to the profile until the
// run stops, waking the waiting workers when they change.
func (e *engine) followStages() {
	t := time.NewTicker(stageStep)
	defer t.Stop()
	for {
		select {
		case <-e.stopCh:
			return
		case <-t.C:
			n := e.threadsAt(time.Since(e.res.StartTime))
			if n == e.active.Load() {
				continue
			}
			next := make(chan struct{})
			e.active.Store(n)
			close(*e.activeCh.Swap(&next))
		}
	}
}

// threadsOf is how many of the workers the profile runs at t: those whose
// id is below its threads.
func threadsOf(workers []*worker, p Profile, t time.Duration) int {
	v, _ := p.At(t)
	limit := int(math.Floor(v + 1e-9))
	n := 0
	for _, wk := range workers {
		if wk.id < limit {
			n++
		}
	}
	return n
}

// stagedArrivals are the arrival times of a rate that follows the
// profile: a Poisson process whose rate changes over time, each arrival
// where the profile's integral (the events expected so far) reaches the
// sum of unit exponential gaps; none past the profile's end.
func (e *engine) stagedArrivals(rng *rand.Rand) func() (time.Time, bool) {
	start := e.res.StartTime
	sum := 0.0
	return func() (time.Time, bool) {
		sum += rng.ExpFloat64()
		at, ok := e.opts.Stages.TimeOf(sum)
		return start.Add(at), ok
	}
}

// checkWeights checks that a workload can follow the weights of a
// profile's stages: it has kinds of event, as many as each stage's
// weights, and its workers are Reweighters (checked as they are made).
func checkWeights(wl Workload, p Profile) error {
	if !p.Weighted() {
		return nil
	}
	k, ok := wl.(Kinded)
	if !ok || len(k.Kinds()) == 0 {
		return fmt.Errorf("stages: %s has no kinds of event to weigh: its phases set only their time and load", wl.Meta().Name)
	}
	for i, s := range p {
		if s.Weights != nil && len(s.Weights) != len(k.Kinds()) {
			return fmt.Errorf("stages: stage %d has %d weights, %s has %d kinds of event (%s)", i+1, len(s.Weights), wl.Meta().Name,
				len(k.Kinds()), strings.Join(k.Kinds(), ", "))
		}
	}
	return nil
}
