// Command hookbench measures webhook fan-out: how fast payd delivers
// events to merchants' endpoints, and how long an event waits for its
// first delivery attempt.
//
// It runs the real service in-process (serve.New, on SQLite in a temporary
// directory and on PostgreSQL in a schema of its own when a server
// answers), with one local HTTPS receiver on 127.0.0.1 standing in for
// every merchant endpoint: /ok/N answers 200 at once, /slow/N after two
// seconds, /fail/N answers 500. Events are recorded with
// Service.RecordEvent in store transactions, exactly as a payment or
// settlement change records them, and the receiver notes when each
// delivery's first attempt arrives. Each scenario runs on a fresh database
// under each load: a burst (every event written as fast as possible, which
// measures capacity), the 2,000 deliveries a second, and 500 a
// second. A paced load above capacity only measures the backlog it builds;
// the lower rate shows the wait for the first attempt when the service
// keeps up.
//
// Every run is bounded in time and reports what it reached; only
// 127.0.0.1 is contacted; everything started is stopped at the end.
//
// Usage:
//
//	go run ./cmd/hookbench [flags]
//	go run ./cmd/hookbench --scale 0.1   # a quick look
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"
)

const defaultDatabaseURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// Targets of the issue, for healthy receivers on a 2-core machine.
const (
	targetRate = 2000.0
	targetP99  = time.Second
)

type config struct {
	run         runConfig
	databaseURL string
	urlGiven    bool
	databases   []string
	scenarios   []scenario
	loads       []load
	runs        int
	slowDelay   time.Duration
	profile     string
}

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	fs := flag.NewFlagSet("hookbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := &config{}
	fs.Float64Var(&c.run.scale, "scale", 1.0, "multiply every scenario's event count (0.1 for a quick look)")
	fs.StringVar(&c.databaseURL, "database-url", defaultDatabaseURL, "PostgreSQL server; a fresh schema is made per run and dropped (skipped when the default does not answer)")
	dbs := fs.String("databases", "sqlite,postgres", "databases to measure, comma-separated")
	scs := fs.String("scenarios", "", "scenarios to run, comma-separated (default all: "+scenarioNames()+")")
	lds := fs.String("loads", "burst,2000,500", "loads, comma-separated: burst, or paced deliveries per second")
	fs.IntVar(&c.runs, "runs", 1, "runs of every scenario and load; the table gives medians and the min..max of rate and p99")
	fs.DurationVar(&c.run.timeout, "timeout", 120*time.Second, "time bound of each run")
	fs.DurationVar(&c.slowDelay, "slow-delay", 2*time.Second, "how long slow receivers take to answer")
	fs.DurationVar(&c.run.poll, "poll", 0, "webhook sender's poll interval (0: the service's default, 100ms)")
	fs.IntVar(&c.run.batch, "batch", 100, "events per recording transaction")
	fs.IntVar(&c.run.recorders, "recorders", 0, "goroutines recording events at once, as concurrent requests would (0: 1 on SQLite, 4 on PostgreSQL)")
	fs.IntVar(&c.run.maxPerTx, "max-deliveries-per-tx", 1000, "fewer events per transaction when they would fan out to more deliveries than this")
	fs.StringVar(&c.run.profileTo, "cpuprofile", "", "write a CPU profile of one run (see --profile) to this file")
	fs.StringVar(&c.profile, "profile", "sqlite/1-endpoint/burst", "backend/scenario/load of the run --cpuprofile records")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "database-url" {
			c.urlGiven = true
		}
	})
	if c.run.scale <= 0 || c.runs < 1 || c.run.batch < 1 || c.run.recorders < 0 || c.run.maxPerTx < 1 || c.run.timeout <= 0 || c.slowDelay < 0 {
		return nil, errors.New("--scale, --runs, --batch, --max-deliveries-per-tx and --timeout must be positive")
	}
	for _, d := range splitList(*dbs) {
		if d != "sqlite" && d != "postgres" {
			return nil, fmt.Errorf("--databases: unknown %q", d)
		}
		c.databases = append(c.databases, d)
	}
	names := splitList(*scs)
	for _, s := range allScenarios {
		if len(names) == 0 || slices.Contains(names, s.Name) {
			c.scenarios = append(c.scenarios, s)
		}
	}
	if len(c.scenarios) == 0 {
		return nil, fmt.Errorf("--scenarios: none of %q (known: %s)", *scs, scenarioNames())
	}
	for _, l := range splitList(*lds) {
		ld, err := parseLoad(l)
		if err != nil {
			return nil, err
		}
		c.loads = append(c.loads, ld)
	}
	if len(c.databases) == 0 || len(c.loads) == 0 {
		return nil, errors.New("--databases and --loads must name at least one")
	}
	return c, nil
}

func splitList(s string) []string {
	var out []string
	for p := range strings.SplitSeq(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func scenarioNames() string {
	var n []string
	for _, s := range allScenarios {
		n = append(n, s.Name)
	}
	return strings.Join(n, ",")
}

func main() {
	cfg, err := parseFlags(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "hookbench:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "hookbench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, cfg *config, stdout, stderr io.Writer) error {
	// Only errors: a failing receiver's answers are recorded as attempts,
	// not logged, and the job queue's chatter would drown the table.
	cfg.run.logger = slog.New(quietStop{slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelError})})
	mach := describeMachine()
	var backends []backend
	for _, d := range cfg.databases {
		if d == "sqlite" {
			backends = append(backends, backend{Name: "sqlite"})
			continue
		}
		if err := loopbackOnly(cfg.databaseURL); err != nil {
			return err
		}
		if err := pgAnswers(ctx, cfg.databaseURL); err != nil {
			if cfg.urlGiven {
				return fmt.Errorf("PostgreSQL at --database-url: %w", err)
			}
			fmt.Fprintf(stderr, "hookbench: no PostgreSQL at the default %s (%v); skipping it\n", defaultDatabaseURL, err)
			continue
		}
		backends = append(backends, backend{Name: "postgres", URL: cfg.databaseURL})
	}
	if len(backends) == 0 {
		return errors.New("no database to measure")
	}

	rc := newReceiver(cfg.slowDelay)
	defer rc.Close()

	var rows []result
	profiled := false
	for _, bk := range backends {
		for _, sc := range cfg.scenarios {
			for _, ld := range cfg.loads {
				var runs []result
				for i := range cfg.runs {
					rcfg := cfg.run
					if i > 0 || cfg.profile != bk.Name+"/"+sc.Name+"/"+ld.Name {
						rcfg.profileTo = ""
					}
					profiled = profiled || rcfg.profileTo != ""
					fmt.Fprintf(stderr, "hookbench: %s %s %s run %d/%d …\n", bk.Name, sc.Name, ld.Name, i+1, cfg.runs)
					res, err := runOnce(ctx, rcfg, rc, bk, sc, ld)
					if err != nil {
						return fmt.Errorf("%s %s %s: %w", bk.Name, sc.Name, ld.Name, err)
					}
					runs = append(runs, res)
				}
				rows = append(rows, medianResult(runs))
			}
		}
	}
	report(stdout, cfg, mach, rows)
	if cfg.run.profileTo != "" && !profiled {
		return fmt.Errorf("--profile %s matched no run: no CPU profile written", cfg.profile)
	}
	return nil
}

// loopbackOnly refuses a PostgreSQL URL for another machine: the benchmark
// creates and drops schemas and loads the server, and contacts nothing but
// 127.0.0.1.
func loopbackOnly(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("--database-url: %w", err)
	}
	if u.Scheme != "postgres" && u.Scheme != "postgresql" {
		return fmt.Errorf("--database-url: want a postgres:// URL")
	}
	switch u.Hostname() {
	case "127.0.0.1", "::1", "localhost":
		return nil
	}
	return fmt.Errorf("--database-url: host %q is not the loopback address; only 127.0.0.1 is contacted", u.Hostname())
}

// quietStop drops errors that only say a context was canceled: the job
// queue logs them when it is stopped at the end of a short run while its
// maintenance work is starting, and they say nothing about deliveries.
type quietStop struct{ slog.Handler }

func (q quietStop) Handle(ctx context.Context, r slog.Record) error {
	canceled := false
	r.Attrs(func(a slog.Attr) bool {
		if v := a.Value.Resolve(); v.Kind() == slog.KindString && v.String() == context.Canceled.Error() ||
			v.Kind() == slog.KindAny && isCanceled(v.Any()) {
			canceled = true
			return false
		}
		return true
	})
	if canceled {
		return nil
	}
	return q.Handler.Handle(ctx, r)
}

func (q quietStop) WithAttrs(as []slog.Attr) slog.Handler { return quietStop{q.Handler.WithAttrs(as)} }
func (q quietStop) WithGroup(name string) slog.Handler    { return quietStop{q.Handler.WithGroup(name)} }

func isCanceled(v any) bool {
	err, ok := v.(error)
	return ok && errors.Is(err, context.Canceled)
}

// medianResult combines repeated runs into their medians, metric by
// metric; a run that timed out marks the row.
func medianResult(rs []result) result {
	out := rs[0]
	pick := func(get func(result) float64) float64 {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = get(r)
		}
		return median(v)
	}
	pickD := func(get func(result) time.Duration) time.Duration {
		v := make([]time.Duration, len(rs))
		for i, r := range rs {
			v[i] = get(r)
		}
		return median(v)
	}
	out.Got = int(pick(func(r result) float64 { return float64(r.Got) }))
	out.HealthyRate = pick(func(r result) float64 { return r.HealthyRate })
	out.RecordRate = pick(func(r result) float64 { return r.RecordRate })
	out.ProcCores = pick(func(r result) float64 { return r.ProcCores })
	out.MachineCores = pick(func(r result) float64 { return r.MachineCores })
	out.NewConns = int64(pick(func(r result) float64 { return float64(r.NewConns) }))
	out.Retries = int(pick(func(r result) float64 { return float64(r.Retries) }))
	out.Strays = int(pick(func(r result) float64 { return float64(r.Strays) }))
	out.StaleSummaries = int(pick(func(r result) float64 { return float64(r.StaleSummaries) }))
	out.HealthyP50 = pickD(func(r result) time.Duration { return r.HealthyP50 })
	out.HealthyP99 = pickD(func(r result) time.Duration { return r.HealthyP99 })
	out.SlowP50 = pickD(func(r result) time.Duration { return r.SlowP50 })
	out.FailP50 = pickD(func(r result) time.Duration { return r.FailP50 })
	out.CommitP50 = pickD(func(r result) time.Duration { return r.CommitP50 })
	out.CommitP99 = pickD(func(r result) time.Duration { return r.CommitP99 })
	out.RateLo, out.RateHi, out.P99Lo, out.P99Hi = rs[0].HealthyRate, rs[0].HealthyRate, rs[0].HealthyP99, rs[0].HealthyP99
	for _, r := range rs[1:] {
		out.TimedOut = out.TimedOut || r.TimedOut
		out.RateLo, out.RateHi = min(out.RateLo, r.HealthyRate), max(out.RateHi, r.HealthyRate)
		out.P99Lo, out.P99Hi = min(out.P99Lo, r.HealthyP99), max(out.P99Hi, r.HealthyP99)
	}
	return out
}

func report(w io.Writer, cfg *config, m machine, rows []result) {
	poll := "100ms (service default)"
	if cfg.run.poll > 0 {
		poll = cfg.run.poll.String()
	}
	fmt.Fprintf(w, "webhook fan-out: scale %g, %d run(s) per row (medians), sender poll %s, service's default sender limits, slow receivers answer after %s, failing ones 500\n",
		cfg.run.scale, cfg.runs, poll, cfg.slowDelay)
	fmt.Fprintf(w, "machine: %d CPUs (GOMAXPROCS %d), %s, %s %s, load average at start %s\n\n",
		m.CPUs, m.GOMAXPROCS, m.CPUModel, m.GoVersion, m.OSArch, m.LoadAvg)

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "backend\tscenario\tload\tdeliveries\tdeliveries/s (healthy)\tevent→attempt p50\tp99 (healthy)\tslow p50\tfailing p50\t")
	for _, r := range rows {
		got := fmt.Sprintf("%d", r.Got)
		if r.Got < r.Want {
			got = fmt.Sprintf("%d of %d", r.Got, r.Want)
		}
		if r.TimedOut {
			got += " (time bound)"
		}
		rate, p99 := fmt.Sprintf("%.0f", r.HealthyRate), ms(r.HealthyP99, r.haveHealthy)
		if cfg.runs > 1 && r.haveHealthy {
			// On a shared machine the spread is the error bar.
			rate += fmt.Sprintf(" (%.0f..%.0f)", r.RateLo, r.RateHi)
			p99 += fmt.Sprintf(" (%s..%s)", ms(r.P99Lo, true), ms(r.P99Hi, true))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.Backend, r.Scenario, r.Load, got, rate,
			ms(r.HealthyP50, r.haveHealthy), p99, ms(r.SlowP50, r.haveSlow), ms(r.FailP50, r.haveFail))
	}
	tw.Flush()

	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "backend\tscenario\tload\tevents\tendpoints\tevents/s recorded\tcommit→attempt p50\tp99 (healthy)\tTLS connections\tretries\tstale summaries\tcores: hookbench\tmachine\t")
	for _, r := range rows {
		stale := "-"
		if r.StaleSummaries >= 0 {
			stale = fmt.Sprint(r.StaleSummaries)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%.0f\t%s\t%s\t%d\t%d\t%s\t%.2f\t%.2f\t\n", r.Backend, r.Scenario, r.Load, r.Events, r.Endpoints,
			r.RecordRate, ms(r.CommitP50, r.haveHealthy), ms(r.CommitP99, r.haveHealthy), r.NewConns, r.Retries, stale, r.ProcCores, r.MachineCores)
	}
	tw.Flush()

	fmt.Fprintln(w)
	for _, line := range verdicts(rows) {
		fmt.Fprintln(w, line)
	}
}

// verdicts compares the rows with the targets, for healthy
// receivers: capacity under the burst, and the wait for the first attempt
// under each paced load, first with healthy endpoints only, then next to
// slow ones.
func verdicts(rows []result) []string {
	var out []string
	var backends, paced []string
	for _, r := range rows {
		if !slices.Contains(backends, r.Backend) {
			backends = append(backends, r.Backend)
		}
		if r.Load != "burst" && !slices.Contains(paced, r.Load) {
			paced = append(paced, r.Load)
		}
	}
	isMixed := func(r *result) bool { return r.SlowN+r.FailN > 0 || r.Scenario == "100-mixed" }
	for _, b := range backends {
		// Worst row of load among healthy-only scenarios, by less(a, b)
		// meaning a is worse.
		worst := func(load string, less func(a, b *result) bool) *result {
			var w *result
			for i := range rows {
				r := &rows[i]
				if r.Backend == b && r.Load == load && r.haveHealthy && !isMixed(r) && (w == nil || less(r, w)) {
					w = r
				}
			}
			return w
		}
		if w := worst("burst", func(a, b *result) bool { return a.HealthyRate < b.HealthyRate }); w != nil {
			out = append(out, fmt.Sprintf("%s capacity (burst): ≥ %.0f deliveries/s %s, lowest %.0f/s (%s)",
				b, targetRate, metOrMissed(w.HealthyRate >= targetRate && !w.TimedOut), w.HealthyRate, w.Scenario))
		}
		for _, load := range paced {
			slowest := worst(load, func(a, b *result) bool { return a.HealthyRate < b.HealthyRate })
			w := worst(load, func(a, b *result) bool { return a.TimedOut || a.HealthyP99 > b.HealthyP99 })
			if w == nil {
				continue
			}
			kept := "kept up"
			if slowest.HealthyRate < 0.95*slowest.Offered {
				kept = fmt.Sprintf("fell behind (%.0f/s, %s)", slowest.HealthyRate, slowest.Scenario)
			}
			out = append(out, fmt.Sprintf("%s at %s: %s; p99 < %s %s, highest %s (%s)", b, load, kept, targetP99,
				metOrMissed(w.HealthyP99 < targetP99 && !w.TimedOut), ms(w.HealthyP99, true), w.Scenario))
		}
		for _, mixed := range rows {
			if mixed.Backend != b || mixed.Scenario != "100-mixed" || !mixed.haveHealthy {
				continue
			}
			for _, base := range rows {
				if base.Backend == b && base.Scenario == "100-endpoints" && base.Load == mixed.Load && base.haveHealthy {
					out = append(out, fmt.Sprintf("%s at %s, healthy receivers next to slow ones: %.0f/s, p50 %s, p99 %s; without them %.0f/s, %s, %s (p99 ×%.1f)",
						b, mixed.Load, mixed.HealthyRate, ms(mixed.HealthyP50, true), ms(mixed.HealthyP99, true),
						base.HealthyRate, ms(base.HealthyP50, true), ms(base.HealthyP99, true),
						float64(mixed.HealthyP99)/float64(max(base.HealthyP99, 1))))
				}
			}
		}
	}
	return out
}

func metOrMissed(ok bool) string {
	if ok {
		return "met"
	}
	return "MISSED"
}
