package main

import (
	"context"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Stats is one phase: a number of workers doing one kind of operation
// until the phase's time or count bound runs out.
type Stats struct {
	Phase   string  `json:"phase"`
	Clients int     `json:"clients"`
	Ops     int     `json:"ops"`
	Errors  int     `json:"errors"`
	Seconds float64 `json:"seconds"`
	// PerSecond counts successful operations only.
	PerSecond float64 `json:"per_second"`
	P50Ms     float64 `json:"p50_ms"`
	P99Ms     float64 `json:"p99_ms"`
	MaxMs     float64 `json:"max_ms"`
	// ErrorSamples are the first distinct error messages, so a failing run
	// says why without a log.
	ErrorSamples []string `json:"error_samples,omitempty"`
	CPU          CPUUse   `json:"cpu"`
	// ServerPeakRSSMiB is the server's VmHWM when the phase ended (API
	// phases only).
	ServerPeakRSSMiB float64 `json:"server_peak_rss_mib,omitempty"`
	// Nodes split the database's CPU and statements by server (--citus
	// only: the single server, or the coordinator and each worker).
	Nodes []NodeUse `json:"nodes,omitempty"`
}

// op is one operation of a worker; n numbers the operations of the phase
// from 1.
type op func(ctx context.Context, n int64) error

// runPhase runs clients workers, each made by newWorker, until d has passed
// or limit operations were started, whichever comes first, or ctx ends.
// Operations in flight at the deadline finish and count (their own timeout
// bounds them); the rate divides by the time until the last one finished.
func runPhase(ctx context.Context, name string, clients int, d time.Duration, limit int64, newWorker func(w int) op) Stats {
	var (
		started atomic.Int64
		wg      sync.WaitGroup
		mu      sync.Mutex
		lats    []time.Duration
		errs    int
		samples []string
	)
	workers := make([]op, clients)
	for w := range workers {
		workers[w] = newWorker(w)
	}
	begin := time.Now()
	deadline := begin.Add(d)
	for w := 0; w < clients; w++ {
		wg.Add(1)
		go func(do op) {
			defer wg.Done()
			// Each worker keeps its own latencies and merges once, so the
			// measurement adds no lock to the loop it measures.
			local := make([]time.Duration, 0, 1024)
			var localErrs int
			var localSamples []string
			for ctx.Err() == nil && time.Now().Before(deadline) {
				n := started.Add(1)
				if n > limit {
					break
				}
				t0 := time.Now()
				err := do(ctx, n)
				lat := time.Since(t0)
				if err != nil {
					if ctx.Err() != nil {
						break // cut off by the run's end, not a failure of the server
					}
					localErrs++
					if len(localSamples) < 3 {
						localSamples = append(localSamples, err.Error())
					}
					continue
				}
				local = append(local, lat)
			}
			mu.Lock()
			lats = append(lats, local...)
			errs += localErrs
			for _, s := range localSamples {
				if len(samples) < 5 && !slices.Contains(samples, s) {
					samples = append(samples, s)
				}
			}
			mu.Unlock()
		}(workers[w])
	}
	wg.Wait()
	elapsed := time.Since(begin)
	s := Stats{Phase: name, Clients: clients, Ops: len(lats), Errors: errs, Seconds: elapsed.Seconds(), ErrorSamples: samples}
	if elapsed > 0 {
		s.PerSecond = float64(len(lats)) / elapsed.Seconds()
	}
	slices.Sort(lats)
	s.P50Ms = ms(percentile(lats, 0.50))
	s.P99Ms = ms(percentile(lats, 0.99))
	if len(lats) > 0 {
		s.MaxMs = ms(lats[len(lats)-1])
	}
	return s
}

// percentile is the nearest-rank percentile of sorted durations.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// median of xs (the mean of the middle two for an even count).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Summary is a phase over all runs: medians of each run's figures, with
// the spread of the rate so that noise is visible.
type Summary struct {
	Phase        string   `json:"phase"`
	Clients      int      `json:"clients"`
	Runs         int      `json:"runs"`
	Ops          int      `json:"ops_total"`
	Errors       int      `json:"errors_total"`
	PerSecond    float64  `json:"per_second_median"`
	PerSecondMin float64  `json:"per_second_min"`
	PerSecondMax float64  `json:"per_second_max"`
	P50Ms        float64  `json:"p50_ms_median"`
	P99Ms        float64  `json:"p99_ms_median"`
	ServerCPUMs  float64  `json:"server_cpu_ms_per_op_median,omitempty"`
	DBCPUMs      float64  `json:"database_cpu_ms_per_op_median,omitempty"`
	BenchCPUMs   float64  `json:"bench_cpu_ms_per_op_median"`
	OtherCPUMs   float64  `json:"other_cpu_ms_per_op_median"`
	BusyPct      float64  `json:"machine_busy_pct_median"`
	StealPct     float64  `json:"steal_pct_median"`
	ErrorSamples []string `json:"error_samples,omitempty"`
	// Nodes are each database node's medians (--citus only).
	Nodes []NodeUse `json:"nodes,omitempty"`
}

func summarize(runs []Stats) Summary {
	if len(runs) == 0 {
		return Summary{}
	}
	s := Summary{Phase: runs[0].Phase, Clients: runs[0].Clients, Runs: len(runs)}
	var rate, p50, p99, srv, dbc, bench, other, busy, steal []float64
	for _, r := range runs {
		s.Ops += r.Ops
		s.Errors += r.Errors
		rate = append(rate, r.PerSecond)
		p50 = append(p50, r.P50Ms)
		p99 = append(p99, r.P99Ms)
		srv = append(srv, r.CPU.ServerMsPerOp)
		dbc = append(dbc, r.CPU.DatabaseMsPerOp)
		bench = append(bench, r.CPU.BenchMsPerOp)
		other = append(other, r.CPU.OtherMsPerOp)
		busy = append(busy, r.CPU.MachineBusyPct)
		steal = append(steal, r.CPU.StealPct)
		for _, e := range r.ErrorSamples {
			if len(s.ErrorSamples) < 5 && !slices.Contains(s.ErrorSamples, e) {
				s.ErrorSamples = append(s.ErrorSamples, e)
			}
		}
	}
	s.PerSecond, s.PerSecondMin, s.PerSecondMax = median(rate), slices.Min(rate), slices.Max(rate)
	s.P50Ms, s.P99Ms = median(p50), median(p99)
	s.ServerCPUMs, s.DBCPUMs, s.BenchCPUMs, s.OtherCPUMs = median(srv), median(dbc), median(bench), median(other)
	s.BusyPct, s.StealPct = median(busy), median(steal)
	s.Nodes = summarizeNodes(runs)
	return s
}
