package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/url"
	"os"
	"runtime/pprof"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/dispatch"
	"github.com/paydhq/payd/internal/serve"
)

// scenario is a set of endpoints of one shop and the events sent to them.
type scenario struct {
	Name           string
	OK, Slow, Fail int
	// Events at scale 1.
	Events int
}

func (s scenario) endpoints() int { return s.OK + s.Slow + s.Fail }

// The shapes: 10,000 deliveries each, spread over 1, 10 and 100
// endpoints, and the 100-endpoint shape again with a tenth of the
// endpoints slow and a tenth failing.
var allScenarios = []scenario{
	{Name: "1-endpoint", OK: 1, Events: 10_000},
	{Name: "10-endpoints", OK: 10, Events: 1_000},
	{Name: "100-endpoints", OK: 100, Events: 100},
	{Name: "100-mixed", OK: 80, Slow: 10, Fail: 10, Events: 100},
}

// scaledEvents is the scenario's event count at scale, at least one.
func (s scenario) scaledEvents(scale float64) int {
	return max(1, int(math.Round(float64(s.Events)*scale)))
}

// kinds spreads the slow and failing endpoints evenly among the healthy
// ones. Deliveries are queued in endpoint order, so bunching the slow ones
// at the front of each event's fan-out would make every worker fetch them
// first and overstate (or, at the back, understate) their effect.
func (s scenario) kinds() []string {
	n := s.endpoints()
	out := make([]string, n)
	place := func(kind string, count int, offset float64) {
		for j := range count {
			i := int(math.Floor((float64(j) + offset) * float64(n) / float64(count)))
			for out[i%n] != "" {
				i++
			}
			out[i%n] = kind
		}
	}
	place(kindSlow, s.Slow, 0.3)
	place(kindFail, s.Fail, 0.7)
	for i := range out {
		if out[i] == "" {
			out[i] = kindOK
		}
	}
	return out
}

// load is how events are offered: as fast as the recorder can write them
// (burst, rate 0), or paced at rate deliveries per second.
type load struct {
	Name string
	Rate float64
}

func parseLoad(s string) (load, error) {
	if s == "burst" {
		return load{Name: "burst"}, nil
	}
	r, err := strconv.ParseFloat(s, 64)
	if err != nil || r <= 0 {
		return load{}, fmt.Errorf("load %q: want burst or deliveries per second", s)
	}
	return load{Name: s + "/s", Rate: r}, nil
}

type backend struct {
	Name string
	// URL is the PostgreSQL server; empty for SQLite.
	URL string
}

// result is one run of one scenario under one load on one backend.
type result struct {
	Backend, Scenario, Load string
	// Offered is the paced load in deliveries per second, 0 for a burst.
	Offered           float64
	Endpoints, Events int
	// Want first attempts (events × endpoints); Got arrived in time.
	Want, Got              int
	Healthy, SlowN, FailN  int
	HealthyRate            float64
	HealthyP50, HealthyP99 time.Duration
	SlowP50, FailP50       time.Duration
	CommitP50, CommitP99   time.Duration
	RecordRate             float64
	TimedOut               bool
	Retries, Strays        int
	// StaleSummaries counts events whose delivery summary still says
	// pending once every delivery has settled (-1: not checked).
	StaleSummaries                  int
	NewConns                        int64
	ProcCores, MachineCores         float64
	haveHealthy, haveSlow, haveFail bool
	// Ranges over repeated runs (see medianResult).
	RateLo, RateHi float64
	P99Lo, P99Hi   time.Duration
}

// runConfig is what every run shares.
type runConfig struct {
	scale     float64
	batch     int
	maxPerTx  int
	timeout   time.Duration
	poll      time.Duration
	logger    *slog.Logger
	profileTo string
	recorders int
}

// runOnce starts a fresh service on bk, registers sc's endpoints, records
// its events under ld and waits until every delivery's first attempt has
// reached the receiver or the time bound passes. Everything it starts is
// stopped, and the database it made removed, before it returns.
func runOnce(ctx context.Context, cfg runConfig, rc *receiver, bk backend, sc scenario, ld load) (res result, err error) {
	events := sc.scaledEvents(cfg.scale)
	res = result{Backend: bk.Name, Scenario: sc.Name, Load: ld.Name, Offered: ld.Rate, Endpoints: sc.endpoints(), Events: events,
		Want: events * sc.endpoints()}

	dir, err := os.MkdirTemp("", "hookbench-")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(dir)
	dbURL := ""
	if bk.URL != "" {
		var drop func()
		if dbURL, drop, err = freshSchema(ctx, bk.URL); err != nil {
			return res, err
		}
		defer drop()
	}
	in, err := serve.New(ctx, serve.Config{
		DatabaseURL: dbURL, DataDir: dir, PublicURL: "http://127.0.0.1",
		Logger:            cfg.logger,
		WebhookAllowHosts: []string{"127.0.0.1"}, WebhookRootCAs: rc.RootCAs(),
		Delivery: dispatch.Options{PollInterval: cfg.poll},
	})
	if err != nil {
		return res, fmt.Errorf("start payd: %w", err)
	}
	jobsCtx, stopJobs := context.WithCancel(context.WithoutCancel(ctx))
	defer func() {
		// Running deliveries end within the slow delay (or the 10 s
		// delivery timeout); the bound keeps a stuck one from hanging
		// the benchmark.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if cerr := in.Close(cctx); cerr != nil && err == nil {
			err = fmt.Errorf("stop payd: %w", cerr)
		}
		stopJobs()
	}()
	if err := in.Start(jobsCtx); err != nil {
		return res, fmt.Errorf("start jobs: %w", err)
	}

	svc := in.Service
	m, err := svc.CreateMerchant(ctx, payd.MerchantCreate{Name: "hookbench"})
	if err != nil {
		return res, fmt.Errorf("create merchant: %w", err)
	}
	shop, err := svc.CreateShop(ctx, payd.ShopCreate{MerchantID: m.ID, Region: payd.RegionRU, Name: "hookbench"})
	if err != nil {
		return res, fmt.Errorf("create shop: %w", err)
	}
	// The principal a test key of the shop would authenticate as: the
	// endpoints go through the same checks as POST /webhook-endpoints.
	p := &payd.Principal{Shop: shop, Mode: payd.ModeTest}
	kinds := sc.kinds()
	for i, kind := range kinds {
		u := fmt.Sprintf("%s/%s/%d", rc.URL(), kind, i)
		resp, err := svc.CreateWebhookEndpoint(ctx, p, payd.Idempotency{Key: "hookbench-" + strconv.Itoa(i), Hash: []byte(u)},
			payd.WebhookEndpointCreate{URL: u, Events: []payd.EventType{payd.EventSettlementFrozen}})
		if err != nil {
			return res, fmt.Errorf("create endpoint %s: %w", u, err)
		}
		if resp.Outcome != payd.OutcomeCreated {
			return res, fmt.Errorf("create endpoint %s: outcome %d", u, resp.Outcome)
		}
	}

	col := newCollector(res.Want)
	rc.cur.Store(col)
	defer rc.cur.Store(nil)
	conns0 := rc.conns.Load()
	cpu0 := readCPU()
	if cfg.profileTo != "" {
		f, err := os.Create(cfg.profileTo)
		if err != nil {
			return res, err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return res, err
		}
		defer pprof.StopCPUProfile()
	}

	runCtx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	perTx := max(1, min(cfg.batch, cfg.maxPerTx/sc.endpoints()))
	recorders := cfg.recorders
	if recorders == 0 {
		// SQLite has one writer: more recorders only queue for it, and
		// their batches then starve the job queue's fetches, which share
		// that one connection. PostgreSQL takes them in parallel, and one
		// recorder alone would be slower than the deliveries it feeds.
		recorders = 1
		if bk.URL != "" {
			recorders = 4
		}
	}
	eventsPerSec := ld.Rate / float64(sc.endpoints())
	type recorded struct {
		first time.Time
		took  time.Duration
		n     int
		err   error
	}
	recDone := make(chan recorded, 1)
	go func() {
		first, took, n, err := recordEvents(runCtx, in, shop, col, recorders, events, perTx, eventsPerSec)
		recDone <- recorded{first, took, n, err}
	}()
	// The recorders end when every event is written, on an error, or at
	// the time bound; the arrivals are awaited after them.
	rec := <-recDone
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	if rec.err != nil && runCtx.Err() == nil {
		return res, fmt.Errorf("record events: %w", rec.err)
	}
	select {
	case <-col.done:
	case <-runCtx.Done():
		res.TimedOut = ctx.Err() == nil
	}
	cancel()
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	res.ProcCores, res.MachineCores = cpu0.cores(readCPU())
	res.NewConns = rc.conns.Load() - conns0
	samples, retries, strays := col.snapshot()
	res.Retries, res.Strays = retries, strays
	if rec.took > 0 {
		res.RecordRate = float64(rec.n) / rec.took.Seconds()
	}
	summarize(&res, samples, rec.first)
	res.StaleSummaries = -1
	if !res.TimedOut {
		if res.StaleSummaries, err = staleSummaries(ctx, in); err != nil {
			return res, err
		}
	}
	return res, nil
}

// summarize fills res's counts, rates and percentiles from the samples;
// first is the created_at of the first event.
func summarize(res *result, samples []sample, first time.Time) {
	var healthy, slow, fail, commit []time.Duration
	var lastHealthy time.Time
	for _, s := range samples {
		switch s.kind {
		case kindOK:
			healthy = append(healthy, s.sinceCreated)
			commit = append(commit, s.sinceCommit)
			if s.at.After(lastHealthy) {
				lastHealthy = s.at
			}
		case kindSlow:
			slow = append(slow, s.sinceCreated)
		case kindFail:
			fail = append(fail, s.sinceCreated)
		}
	}
	for _, l := range [][]time.Duration{healthy, slow, fail, commit} {
		slices.Sort(l)
	}
	res.Got, res.Healthy, res.SlowN, res.FailN = len(samples), len(healthy), len(slow), len(fail)
	res.haveHealthy, res.haveSlow, res.haveFail = len(healthy) > 0, len(slow) > 0, len(fail) > 0
	res.HealthyP50, res.HealthyP99 = percentile(healthy, 50), percentile(healthy, 99)
	res.CommitP50, res.CommitP99 = percentile(commit, 50), percentile(commit, 99)
	res.SlowP50, res.FailP50 = percentile(slow, 50), percentile(fail, 50)
	if !first.IsZero() && lastHealthy.After(first) {
		res.HealthyRate = float64(len(healthy)) / lastHealthy.Sub(first).Seconds()
	}
}

// pacer hands out batches of events to the recorders: all at once for a
// burst, or as they fall due at a paced rate.
type pacer struct {
	mu      sync.Mutex
	start   time.Time
	claimed int
	total   int
	perTx   int
	perSec  float64
}

// claim returns the size of the next batch to record, or how long to wait
// before one is due; done when every event has been handed out.
func (p *pacer) claim() (n int, wait time.Duration, done bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.claimed >= p.total {
		return 0, 0, true
	}
	due := p.total
	if p.perSec > 0 {
		due = min(p.total, int(time.Since(p.start).Seconds()*p.perSec)+1)
		if due <= p.claimed {
			next := p.start.Add(time.Duration(float64(p.claimed) / p.perSec * float64(time.Second)))
			return 0, max(time.Millisecond, time.Until(next)), false
		}
	}
	n = min(p.perTx, due-p.claimed)
	p.claimed += n
	return n, 0, false
}

// recordEvents writes events settlement.frozen events for the shop from
// several goroutines, as concurrent requests would, perTx to a
// transaction, each fanned out to the shop's endpoints by
// Service.RecordEvent exactly as a real change is. With eventsPerSec above
// zero the events are paced; otherwise written as fast as they go. It
// returns the earliest created_at, the time taken and the count written.
func recordEvents(ctx context.Context, in *serve.Instance, shop *payd.Shop, col *collector, recorders, events, perTx int, eventsPerSec float64) (first time.Time, took time.Duration, sent int, err error) {
	status := payd.SettlementStatus{PayoutsFrozen: true, FrozenReason: "hookbench", SettlementDelayDays: 1}
	p := &pacer{start: time.Now(), total: events, perTx: perTx, perSec: eventsPerSec}
	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	for range recorders {
		wg.Go(func() {
			ids := make([]string, 0, perTx)
			created := make([]time.Time, 0, perTx)
			for ctx.Err() == nil {
				n, wait, done := p.claim()
				if done {
					return
				}
				if n == 0 {
					select {
					case <-time.After(wait):
					case <-ctx.Done():
					}
					continue
				}
				ids, created = ids[:0], created[:0]
				err := in.Store.Tx(ctx, func(tx payd.Tx) error {
					for range n {
						ev, err := in.Service.RecordEvent(ctx, tx, payd.NewEventParams{
							Shop: shop, Test: true, Type: payd.EventSettlementFrozen,
							ObjectType: "settlement_status", ObjectID: shop.MerchantID, Object: status,
						})
						if err != nil {
							return err
						}
						ids, created = append(ids, ev.ID), append(created, ev.CreatedAt)
					}
					col.record(ids, created)
					return nil
				})
				mu.Lock()
				if err != nil {
					errs = append(errs, err)
					mu.Unlock()
					return
				}
				if first.IsZero() || created[0].Before(first) {
					first = created[0]
				}
				sent += n
				mu.Unlock()
				col.committed(ids, time.Now())
			}
		})
	}
	wg.Wait()
	if len(errs) == 0 && ctx.Err() != nil {
		errs = append(errs, ctx.Err())
	}
	return first, time.Since(p.start), sent, errors.Join(errs...)
}

// staleSummaries waits until no delivery job is queued or running, then
// counts events whose delivery summary says pending although none of
// their deliveries does. Each finished attempt recomputes its event's
// summary from the deliveries it can see; the count shows whether
// concurrent attempts of one event leave it behind.
func staleSummaries(ctx context.Context, in *serve.Instance) (int, error) {
	db := in.Store.DB()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var busy int
		err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM river_job WHERE kind = 'webhook_deliver' AND state IN ('available', 'running')`).Scan(&busy)
		if err != nil {
			return 0, fmt.Errorf("count running deliveries: %w", err)
		}
		if busy == 0 {
			break
		}
		if time.Now().After(deadline) {
			return -1, nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	var n int
	err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM events e WHERE e.delivery_status = 'pending'
		AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.doc LIKE '%"state":"pending"%')`).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count stale summaries: %w", err)
	}
	return n, nil
}

// freshSchema creates a schema of its own in the PostgreSQL at base and
// returns a URL that uses it through search_path, and a function that
// drops it. The pgx driver is registered by the service's store.
func freshSchema(ctx context.Context, base string) (string, func(), error) {
	db, err := sql.Open("pgx", base)
	if err != nil {
		return "", nil, err
	}
	defer db.Close()
	raw := make([]byte, 6)
	rand.Read(raw)
	schema := "hookbench_" + hex.EncodeToString(raw)
	if _, err := db.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		return "", nil, fmt.Errorf("create schema: %w", err)
	}
	drop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		db, err := sql.Open("pgx", base)
		if err != nil {
			return
		}
		defer db.Close()
		if _, err := db.ExecContext(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			fmt.Fprintf(os.Stderr, "hookbench: drop schema %s: %v\n", schema, err)
		}
	}
	u, err := url.Parse(base)
	if err != nil {
		drop()
		return "", nil, err
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String(), drop, nil
}

// pgAnswers reports whether the PostgreSQL at u accepts a connection.
func pgAnswers(ctx context.Context, u string) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	db, err := sql.Open("pgx", u)
	if err != nil {
		return err
	}
	defer db.Close()
	return db.PingContext(ctx)
}
