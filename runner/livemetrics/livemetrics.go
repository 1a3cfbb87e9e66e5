// Package livemetrics serves a run's own live numbers in Prometheus'
// exposition format (`starbench run --metrics-addr HOST:PORT`), with the
// Prometheus client library, so that a team's Grafana can watch a long
// plan beside the cluster's dashboards: the step running and its
// progress, the last interval's tps and latency percentiles, and the
// events, queries and errors by code counted up over every benchmark step
// of the run. The command feeds it the run's steps and benchmark numbers
// (as a runner.StepObserver); it imports no Starlark.
package livemetrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Status is a running benchmark's numbers, as the live view gets them.
type Status struct {
	Workload            string
	Threads             int
	ElapsedS, TotalS    float64 // elapsed and planned seconds (0: bounded by events)
	TPS                 float64 // the last interval's (at the end, the step's)
	P50MS, P95MS, P99MS float64
	MaxMS               float64
	Final               bool // the step ended: the figures are its summary's
	// TotalEvents, TotalQueries and ErrorsByCode count since the step
	// started.
	TotalEvents, TotalQueries int64
	ErrorsByCode              map[string]int64
}

// Server serves the metrics of one run.
type Server struct {
	Addr string // where it listens (the port chosen when :0 was asked)

	srv *http.Server

	mu      sync.Mutex
	seen    map[string]counted // a running benchmark's counts so far, by workload
	current string             // the step running, for step_info

	stepInfo     *prometheus.GaugeVec
	stepsStarted prometheus.Counter
	stepsEnded   *prometheus.CounterVec
	running      prometheus.Gauge
	elapsed      prometheus.Gauge
	planned      prometheus.Gauge
	threads      prometheus.Gauge
	tps          prometheus.Gauge
	latency      *prometheus.GaugeVec
	events       prometheus.Counter
	queries      prometheus.Counter
	errors       *prometheus.CounterVec
}

// counted is what a benchmark's counters were given so far.
type counted struct {
	events, queries int64
	codes           map[string]int64
}

// ErrAddrInUse marks an address that cannot be listened on.
var ErrAddrInUse = errors.New("cannot listen")

// Listen listens on addr and serves /metrics for the run of plan: every
// metric carries a plan label. It fails (ErrAddrInUse) before anything is
// served when addr cannot be listened on.
func Listen(addr, plan string) (*Server, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%w on %s: %v", ErrAddrInUse, addr, err)
	}
	reg := prometheus.NewRegistry()
	f := prometheus.WrapRegistererWith(prometheus.Labels{"plan": plan}, reg)
	s := &Server{Addr: l.Addr().String(), seen: map[string]counted{}}
	gauge := func(name, help string) prometheus.Gauge {
		g := prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: help})
		f.MustRegister(g)
		return g
	}
	s.stepInfo = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "starbench_step_info",
		Help: "1 for the top-level step running: its id, builtin and number."}, []string{"step", "builtin", "number"})
	s.stepsStarted = prometheus.NewCounter(prometheus.CounterOpts{Name: "starbench_steps_started_total", Help: "Top-level steps started."})
	s.stepsEnded = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "starbench_steps_ended_total",
		Help: "Top-level steps ended, by outcome (ok, error, cancelled)."}, []string{"outcome"})
	s.latency = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "starbench_latency_milliseconds",
		Help: "The last report interval's latency percentiles (a step's own when it ended), in ms; quantile 1 is the maximum."},
		[]string{"quantile"})
	s.events = prometheus.NewCounter(prometheus.CounterOpts{Name: "starbench_events_total", Help: "Events (transactions) of the run's benchmark steps."})
	s.queries = prometheus.NewCounter(prometheus.CounterOpts{Name: "starbench_queries_total", Help: "Queries of the run's benchmark steps."})
	s.errors = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "starbench_errors_total",
		Help: "Ignored errors of the run's benchmark steps, by MySQL error code."}, []string{"code"})
	f.MustRegister(s.stepInfo, s.stepsStarted, s.stepsEnded, s.latency, s.events, s.queries, s.errors)
	s.running = gauge("starbench_benchmark_running", "1 while a benchmark step runs.")
	s.elapsed = gauge("starbench_benchmark_elapsed_seconds", "How long the benchmark step has run.")
	s.planned = gauge("starbench_benchmark_planned_seconds", "The benchmark step's planned duration (0: bounded by events).")
	s.threads = gauge("starbench_benchmark_threads", "The benchmark step's threads.")
	s.tps = gauge("starbench_tps", "The last report interval's transactions per second (a step's own when it ended).")
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(l) }()
	return s, nil
}

// Close stops serving.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return s.srv.Shutdown(ctx)
}

// StepStarted takes a top-level step that started, the n-th.
func (s *Server) StepStarted(n int, id, builtin, _ string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stepInfo.Reset()
	s.stepInfo.WithLabelValues(id, builtin, fmt.Sprint(n)).Set(1)
	s.current = id
	s.stepsStarted.Inc()
}

// StepEnded takes a top-level step that ended, with its outcome (ok,
// error, cancelled).
func (s *Server) StepEnded(id, outcome string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stepsEnded.WithLabelValues(outcome).Inc()
	if s.current == id {
		s.stepInfo.Reset()
		s.running.Set(0)
	}
}

// Benchmark takes a benchmark's numbers: the gauges take the status's
// figures, the counters what it counted since the last status of the
// same benchmark.
func (s *Server) Benchmark(b Status) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.running.Set(1)
	if b.Final {
		s.running.Set(0)
	}
	s.elapsed.Set(b.ElapsedS)
	s.planned.Set(b.TotalS)
	s.threads.Set(float64(b.Threads))
	s.tps.Set(b.TPS)
	for q, v := range map[string]float64{"0.5": b.P50MS, "0.95": b.P95MS, "0.99": b.P99MS, "1": b.MaxMS} {
		s.latency.WithLabelValues(q).Set(v)
	}
	c := s.seen[b.Workload]
	if d := b.TotalEvents - c.events; d > 0 {
		s.events.Add(float64(d))
		c.events = b.TotalEvents
	}
	if d := b.TotalQueries - c.queries; d > 0 {
		s.queries.Add(float64(d))
		c.queries = b.TotalQueries
	}
	for code, n := range b.ErrorsByCode {
		if d := n - c.codes[code]; d > 0 {
			s.errors.WithLabelValues(code).Add(float64(d))
			if c.codes == nil {
				c.codes = map[string]int64{}
			}
			c.codes[code] = n
		}
	}
	if b.Final {
		delete(s.seen, b.Workload) // the next benchmark of this workload counts from 0
	} else {
		s.seen[b.Workload] = c
	}
}
