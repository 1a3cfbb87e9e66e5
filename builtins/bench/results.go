package bench

import (
	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/starbench/starbench/runner/results"
)

// Summarize builds the summary of a result.
func Summarize(r *Result, percentile float64) *results.Summary {
	secs := r.Elapsed.Seconds()
	per := func(n int64) float64 {
		if secs <= 0 {
			return 0
		}
		return float64(n) / secs
	}
	s := &results.Summary{
		Workload: r.Meta, Started: r.StartTime.UTC(), Threads: r.Threads, Seconds: secs, Stopped: r.Stopped,
		Status: results.StatusCompleted, Events: r.Counts.Events, Queries: r.Counts.Queries(), Reads: r.Counts.Reads,
		Writes: r.Counts.Writes, Others: r.Counts.Others, Errors: r.Counts.Errors, ErrorsByCode: r.ErrorCodes,
		Reconnects: r.Counts.Reconnects, TPS: per(r.Counts.Events), QPS: per(r.Counts.Queries()),
		Percentile: percentile, StopError: r.StopError,
	}
	var extra []float64 // the report's own percentile
	if percentile > 0 {
		extra = []float64{percentile}
	}
	s.Latency = r.Summary(extra...)
	if r.Stopped == "interrupted" {
		s.Status = results.StatusInterrupted
	}
	if len(r.ErrorKinds) > 0 {
		s.ErrorsByKind = r.ErrorKinds
	}
	s.WarmupSeconds = r.Warmup.Seconds()
	if r.Rate > 0 {
		s.Rate, s.Late, s.Dropped = r.Rate, r.Late, r.Dropped
		svc := results.LatencySummary{Percentiles: results.PercentilesOf(r.Service, summaryPercentiles(extra...))}
		if n := r.Service.TotalCount(); n > 0 {
			svc.MinMS = float64(r.Service.Min()) / 1000
			svc.MaxMS = float64(r.Service.Max()) / 1000
			svc.AvgMS = r.Service.Mean() / 1000
		}
		s.ServiceLatency = &svc
	}
	for i := range r.Kinds {
		k := &r.Kinds[i]
		s.Kinds = append(s.Kinds, results.KindSummary{Name: k.Name, Events: k.Events, Errors: k.Errors,
			PerMinute: per(k.Events) * 60, Latency: k.Summary(extra...)})
	}
	ea, es, ta, ts := r.Fairness()
	s.Fairness = results.Fairness{EventsAvg: ea, EventsStddev: es, SecondsAvg: ta, SecondsStd: ts}
	s.Stages = stageSummaries(r, extra)
	return s
}

// stageSummaries are a staged run's figures by stage: its intervals
// grouped by the stage each is in, their counts summed and their
// histograms merged.
func stageSummaries(r *Result, extra []float64) []results.StageSummary {
	var out []results.StageSummary
	var hist *hdr.Histogram
	var sumMS, offered float64
	flush := func() {
		if len(out) == 0 {
			return
		}
		st := &out[len(out)-1]
		if st.Seconds > 0 {
			st.TPS, st.QPS, st.Offered = float64(st.Events)/st.Seconds, st.QPS/st.Seconds, offered/st.Seconds
		}
		st.Latency = results.LatencyOf(hist, float64(hist.Min())/1000, float64(hist.Max())/1000, sumMS, st.Events, extra...)
		if hist.TotalCount() == 0 {
			st.Latency.MinMS, st.Latency.MaxMS = 0, 0
		}
	}
	for _, iv := range r.Intervals {
		if iv.Stage == 0 {
			continue
		}
		if len(out) == 0 || out[len(out)-1].Stage != iv.Stage {
			flush()
			out = append(out, results.StageSummary{Stage: iv.Stage})
			hist, sumMS, offered = NewHistogram(), 0, 0
		}
		st := &out[len(out)-1]
		secs := (iv.End - iv.Start).Seconds()
		st.Seconds += secs
		st.Events += iv.Counts.Events
		st.Errors += iv.Counts.Errors
		st.QPS += float64(iv.Counts.Queries()) // divided by the stage's time in flush
		offered += iv.Target * secs
		if iv.Latency != nil {
			hist.Merge(iv.Latency)
			sumMS += iv.Latency.Mean() * float64(iv.Latency.TotalCount()) / 1000
		}
		for k, ki := range iv.Kinds {
			if k < len(r.Kinds) && ki.Events > 0 {
				if st.Kinds == nil {
					st.Kinds = map[string]int64{}
				}
				st.Kinds[r.Kinds[k].Name] += ki.Events
			}
		}
	}
	flush()
	return out
}

// WriteResults writes the step files of a result into dir (made if
// needed): summary.json, intervals.csv and latency.hlog, and output.txt
// when output is not nil. See results.WriteStep.
func WriteResults(dir string, r *Result, s *results.Summary, output []byte) error {
	return results.WriteStep(dir, results.Step{Summary: s, Intervals: Intervals(r), Latency: latencyIntervals(r), Output: output})
}

// Intervals are a result's rows of intervals.csv. A last partial interval
// of a few milliseconds is left out: its rates would mean nothing.
func Intervals(r *Result) []results.Interval {
	var rows []results.Interval
	for _, iv := range r.Intervals {
		if iv.Partial && iv.End-iv.Start < r.Interval/10 {
			continue
		}
		rows = append(rows, IntervalRow(iv))
	}
	return rows
}

// IntervalRow is an interval's row of intervals.csv.
func IntervalRow(iv *Interval) results.Interval {
	c := iv.Counts
	row := results.Interval{
		Time: iv.End.Seconds(), Threads: iv.Threads, Events: c.Events,
		TPS: iv.Rate(c.Events), QPS: iv.Rate(c.Queries()), ReadsPerS: iv.Rate(c.Reads), WritesPerS: iv.Rate(c.Writes),
		OthersPerS: iv.Rate(c.Others), ErrorsPerS: iv.Rate(c.Errors), ReconnectsPerS: iv.Rate(c.Reconnects),
		Stage: iv.Stage, Target: iv.Target,
	}
	if iv.Latency.TotalCount() > 0 {
		at := func(q float64) float64 { return float64(iv.Latency.ValueAtPercentile(q)) / 1000 }
		row.P50, row.P95, row.P99, row.Max = at(50), at(95), at(99), float64(iv.Latency.Max())/1000
	}
	return row
}

// latencyIntervals are a result's interval histograms for latency.hlog
// (IntervalHistograms of each interval).
func latencyIntervals(r *Result) []results.LatencyInterval {
	names := make([]string, len(r.Kinds))
	for k := range r.Kinds {
		names[k] = r.Kinds[k].Name
	}
	var out []results.LatencyInterval
	for _, iv := range r.Intervals {
		out = append(out, IntervalHistograms(iv, names)...)
	}
	return out
}

// IntervalHistograms are an interval's histograms as latency.hlog keeps
// them: its latencies, then its kinds' (tagged KindTag; kinds names them
// in order) and its service times under a rate (ServiceTag), so that a
// merge of step folders has every histogram a summary is made of.
func IntervalHistograms(iv *Interval, kinds []string) []results.LatencyInterval {
	out := []results.LatencyInterval{{Start: iv.Start, End: iv.End, Histogram: iv.Latency}}
	for k, ki := range iv.Kinds {
		if k < len(kinds) && ki.Latency != nil {
			out = append(out, results.LatencyInterval{Start: iv.Start, End: iv.End, Tag: results.KindTag(kinds[k]), Histogram: ki.Latency})
		}
	}
	if iv.Service != nil {
		out = append(out, results.LatencyInterval{Start: iv.Start, End: iv.End, Tag: results.ServiceTag, Histogram: iv.Service})
	}
	return out
}
