// Command paydbench measures payd's merchant API against the database floor
// on SQLite and PostgreSQL, on this machine.
//
// For each database it builds and starts `payd serve --dev` as a separate
// process, creates payments over keep-alive HTTP connections at each client
// count, reads them back by id and by list, reads the balance, refunds, and
// — in the same run, against a scratch database with the same tables —
// times the least a payment creation must write (four INSERTs in one
// transaction) with no HTTP at all. With --seed-payments the shop first
// gets that many payments with their ledger and registers, at each size
// asked for, so that reads, balances and refunds are measured on an old
// shop.
// The ratio of the two says how much the service adds to what the database
// must do anyway. Every phase is bounded in time and in count; only
// 127.0.0.1 is contacted; the server is stopped at the end, also on error.
//
// With --citus it measures payd on a throwaway Citus cluster beside payd on
// a throwaway single PostgreSQL instead, both started by this program
// (citus_linux.go): each operation's rate and latencies, the CPU of every
// database server and the statements each ran per operation, the ratios,
// and how many merchants' creations divide over the workers.
//
// Usage:
//
//	go run ./cmd/paydbench [flags]
//	make bench
//	make bench-citus
package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
)

const defaultDatabaseURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

type config struct {
	databaseURL   string
	databases     []string
	phases        []string
	clients       []int
	duration      time.Duration
	floorDuration time.Duration
	maxOps        int64
	runs          int
	timeout       time.Duration
	startTimeout  time.Duration
	jsonOut       bool
	goBin         string
	paydBin       string
	perfDir       string
	tmpDir        string
	keep          bool
	// seedPayments are the shop's sizes to measure at: each database is
	// measured once per size, with a fresh server, after loading that
	// many payments (0: none).
	seedPayments []int
	// periodicMerchants, when set, make paydbench measure only the
	// periodic background work, at each of these numbers of merchants
	// (periodic.go); on PostgreSQL when --database-url is given
	// (databaseURLSet), else on SQLite.
	periodicMerchants []int
	databaseURLSet    bool
	// citus measures a throwaway Citus cluster beside a throwaway single
	// PostgreSQL (citus_linux.go): citusWorkers workers, citusShards
	// shards a distributed table, citusMerchants merchants in the
	// many-merchant phase.
	citus                                     bool
	citusWorkers, citusShards, citusMerchants int
}

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	fs := flag.NewFlagSet("paydbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := &config{}
	fs.StringVar(&c.databaseURL, "database-url", defaultDatabaseURL, "PostgreSQL server (loopback only); fresh schemas are created in it and dropped")
	dbs := fs.String("databases", "sqlite,postgres", "databases to measure, comma-separated")
	clients := fs.String("clients", "16,64", "concurrent clients (and floor workers), comma-separated")
	phases := fs.String("phases", strings.Join(allPhases, ","), "phases to run, comma-separated (create and floor alone measure the create path)")
	fs.DurationVar(&c.duration, "duration", 5*time.Second, "time bound of each API phase")
	fs.DurationVar(&c.floorDuration, "floor-duration", 0, "time bound of each floor phase (default: --duration)")
	fs.Int64Var(&c.maxOps, "max-ops", 200_000, "count bound of each phase")
	fs.IntVar(&c.runs, "runs", 3, "runs of every phase; the report gives medians")
	fs.DurationVar(&c.timeout, "timeout", 30*time.Minute, "bound of the whole benchmark")
	fs.DurationVar(&c.startTimeout, "start-timeout", 2*time.Minute, "how long payd may take to become ready")
	fs.BoolVar(&c.jsonOut, "json", false, "print the report as JSON instead of a table")
	fs.StringVar(&c.goBin, "go", "go", "go command that builds ./cmd/payd")
	fs.StringVar(&c.paydBin, "payd-bin", "", "use this payd binary instead of building one")
	fs.StringVar(&c.perfDir, "perf", "", "record the server with `perf record -g` during the first run's API phases into this directory")
	fs.StringVar(&c.tmpDir, "tmp-dir", "", "parent of the run's temporary directory (its file system is SQLite's disk)")
	fs.BoolVar(&c.keep, "keep", false, "keep the temporary directory (server logs, SQLite files)")
	seeds := fs.String("seed-payments", "0", "load this many realistic payments (with events, refunds, their ledger and registers) into the demo shop before the phases; a comma-separated list measures each database once per size")
	periodic := fs.String("periodic-merchants", "", "measure only one hour of the periodic background work, in this process, at each of these numbers of merchants (1,000 of them active), comma-separated; on PostgreSQL when --database-url is given, else on SQLite")
	fs.BoolVar(&c.citus, "citus", false, "measure create, get, list, refund and many merchants' creations on a throwaway Citus cluster (a coordinator and --citus-workers workers) beside a throwaway single PostgreSQL, both started here with the same settings and pg_stat_statements (never the server of --database-url; --databases is not used): rates, latencies, each server's CPU and statements per operation, the ratios, and how the merchants' load divides over the workers")
	fs.IntVar(&c.citusWorkers, "citus-workers", 2, "worker nodes of the --citus cluster")
	fs.IntVar(&c.citusShards, "citus-shards", 32, "shards a distributed table on the --citus cluster (citus.shard_count; 32 is Citus's default)")
	fs.IntVar(&c.citusMerchants, "citus-merchants", 200, "merchants, each with a shop and a test key, that take turns creating payments in the --citus merchants phase")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: paydbench [flags]\n\nMeasures payd's merchant API against the database floor. Flags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	for _, d := range splitList(*dbs) {
		if d != "sqlite" && d != "postgres" {
			return nil, fmt.Errorf("--databases: %q is neither sqlite nor postgres", d)
		}
		c.databases = append(c.databases, d)
	}
	phasesSet := false
	fs.Visit(func(f *flag.Flag) { phasesSet = phasesSet || f.Name == "phases" })
	known := allPhases
	if c.citus {
		known = citusPhases
		if !phasesSet {
			*phases = strings.Join(citusDefaultPhases, ",")
		}
	}
	for _, p := range splitList(*phases) {
		if !slices.Contains(known, p) {
			return nil, fmt.Errorf("--phases: %q is not one of %s", p, strings.Join(known, ", "))
		}
		c.phases = append(c.phases, p)
	}
	for _, s := range splitList(*clients) {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 1024 {
			return nil, fmt.Errorf("--clients: %q is not a count 1..1024", s)
		}
		c.clients = append(c.clients, n)
	}
	for _, s := range splitList(*seeds) {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || n > 100_000_000 {
			return nil, fmt.Errorf("--seed-payments: %q is not a count 0..100000000", s)
		}
		c.seedPayments = append(c.seedPayments, n)
	}
	periodicMerchants, err := parseCounts("periodic-merchants", *periodic, 10_000_000)
	if err != nil {
		return nil, err
	}
	c.periodicMerchants = periodicMerchants
	fs.Visit(func(f *flag.Flag) { c.databaseURLSet = c.databaseURLSet || f.Name == "database-url" })
	switch {
	case len(c.seedPayments) == 0:
		return nil, errors.New("--seed-payments must not be empty")
	case len(c.databases) == 0 || len(c.clients) == 0 || len(c.phases) == 0:
		return nil, errors.New("--databases, --clients and --phases must not be empty")
	case c.duration <= 0 || c.maxOps < 1 || c.runs < 1 || c.timeout <= 0:
		return nil, errors.New("--duration, --max-ops, --runs and --timeout must be positive")
	}
	if c.floorDuration <= 0 {
		c.floorDuration = c.duration
	}
	switch {
	case c.citus && (c.citusWorkers < 1 || c.citusWorkers > 8):
		return nil, errors.New("--citus-workers must be 1..8")
	case c.citus && (c.citusShards < 1 || c.citusShards > 256):
		return nil, errors.New("--citus-shards must be 1..256")
	case c.citus && (c.citusMerchants < 1 || c.citusMerchants > 10_000):
		return nil, errors.New("--citus-merchants must be 1..10000")
	case c.citus && len(c.periodicMerchants) > 0:
		return nil, errors.New("--citus and --periodic-merchants are separate measurements")
	}
	if slices.Contains(c.databases, "postgres") && !c.citus {
		if err := checkLoopbackURL(c.databaseURL); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// allPhases are the phases of one run, in the order they run.
// export, after them, runs once: one CSV export of the whole list.
// reset, last, runs once too: it deletes the seeded shop's test data.
var allPhases = []string{"create", "get", "readfloor", "list", "events", "listfloor", "balance", "dashboard", "dashpages", "refund", "floor", "export", "reset"}

// citusPhases are the phases --citus can run, in the order they run, and
// citusDefaultPhases those it runs unless --phases says otherwise.
var (
	citusPhases        = []string{"create", "get", "list", "balance", "refund", merchantsPhase}
	citusDefaultPhases = []string{"create", "get", "list", "refund", merchantsPhase}
)

// merchantsPhase is the --citus phase where many merchants create
// payments in turn; on the cluster it shows how work divides over the
// workers.
const merchantsPhase = "merchants"

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// checkLoopbackURL refuses a PostgreSQL URL whose host is not this machine:
// the benchmark loads what it talks to, and it only talks to 127.0.0.1 (a
// Unix socket directory is local too).
func checkLoopbackURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return fmt.Errorf("--database-url must be a postgres:// URL")
	}
	host := u.Hostname()
	if h := u.Query().Get("host"); h != "" {
		host = h
	}
	if strings.HasPrefix(host, "/") {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.Equal(net.IPv4(127, 0, 0, 1)) {
		return nil
	}
	return fmt.Errorf("--database-url: host %q is not 127.0.0.1; the benchmark contacts this machine only", host)
}

func main() {
	cfg, err := parseFlags(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "paydbench:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	if len(cfg.periodicMerchants) > 0 {
		if err := runPeriodic(ctx, cfg, os.Stdout, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, "paydbench:", err)
			os.Exit(1)
		}
		return
	}
	var rep *Report
	if cfg.citus {
		rep, err = runCitus(ctx, cfg, os.Stderr)
	} else {
		rep, err = run(ctx, cfg, os.Stderr)
	}
	if rep != nil {
		switch {
		case cfg.jsonOut:
			writeJSON(os.Stdout, rep)
		case cfg.citus:
			writeCitusTable(os.Stdout, rep)
		default:
			writeTable(os.Stdout, rep)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "paydbench:", err)
		os.Exit(1)
	}
}

// scratchDir is a run's folder of its own; done removes it, unless
// --keep asked to keep it.
func scratchDir(cfg *config, prefix string, log io.Writer) (dir string, done func(), err error) {
	dir, err = os.MkdirTemp(cfg.tmpDir, prefix)
	if err != nil {
		return "", nil, err
	}
	if cfg.keep {
		fmt.Fprintf(log, "keeping %s\n", dir)
		return dir, func() {}, nil
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}

// begin starts a run's report and finds payd's binary: --payd-bin, or one
// built into tmp.
func begin(ctx context.Context, cfg *config, tmp string, log io.Writer) (*Report, string, error) {
	rep := &Report{
		Command: shellCommand(os.Args),
		Machine: machineInfo(tmp),
		Settings: Settings{Clients: cfg.clients, Runs: cfg.runs, Duration: cfg.duration.String(),
			FloorDuration: cfg.floorDuration.String(), MaxOps: cfg.maxOps, RateLimitPerMinute: rateLimitPerMinute},
		Started: time.Now().UTC().Format(time.RFC3339),
	}
	bin := cfg.paydBin
	if bin != "" {
		return rep, bin, nil
	}
	fmt.Fprintln(log, "building ./cmd/payd ...")
	bin, err := buildPayd(ctx, cfg.goBin, tmp)
	return rep, bin, err
}

// run measures every database in turn. A database that fails is reported
// with its error and the others still run; the error is returned at the
// end.
func run(ctx context.Context, cfg *config, log io.Writer) (*Report, error) {
	tmp, done, err := scratchDir(cfg, "paydbench-", log)
	if err != nil {
		return nil, err
	}
	defer done()
	rep, bin, err := begin(ctx, cfg, tmp, log)
	if err != nil {
		return rep, err
	}
	if cfg.perfDir != "" {
		if err := os.MkdirAll(cfg.perfDir, 0o755); err != nil {
			return rep, err
		}
	}
	var errs []error
	for _, seed := range cfg.seedPayments {
		for _, name := range cfg.databases {
			dir := filepath.Join(tmp, fmt.Sprintf("%s-%d", name, seed))
			db := benchDatabase(ctx, cfg, name, bin, dir, seed, log)
			if db.Error != "" {
				errs = append(errs, fmt.Errorf("%s with %d payments: %s", name, seed, db.Error))
			}
			rep.Databases = append(rep.Databases, db)
			if !cfg.keep {
				// A seeded SQLite database takes gigabytes; the next size
				// needs the room.
				os.RemoveAll(dir)
			}
			if ctx.Err() != nil {
				break
			}
		}
	}
	rep.Targets = evaluateTargets(rep.Databases)
	rep.Finished = time.Now().UTC().Format(time.RFC3339)
	return rep, errors.Join(errs...)
}

// benchDatabase runs every phase on one database. Whatever happens, the
// server is stopped and the scratch schemas dropped before it returns.
func benchDatabase(ctx context.Context, cfg *config, name, bin, dir string, seed int, log io.Writer) (res DatabaseResult) {
	res = DatabaseResult{Database: name}
	fail := func(err error) DatabaseResult {
		res.Error = err.Error()
		fmt.Fprintf(log, "%s: %v\n", name, err)
		return res
	}
	for _, d := range []string{"data", "floor"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			return fail(err)
		}
	}
	run := randomHex(6)
	var serverURL, floorURL string
	// backends finds the PostgreSQL backends of the server or the floor,
	// whose CPU time is the database's share. SQLite has none: it runs
	// inside payd, and inside this program for the floor.
	backends := func(server bool) []int { return nil }
	if name == "postgres" {
		serverSchema, floorSchema := "paydbench_"+run, "paydbench_floor_"+run
		drop, urls, err := pgSchemas(ctx, cfg.databaseURL, serverSchema, floorSchema)
		if err != nil {
			res.Skipped = "PostgreSQL at --database-url is unreachable or unusable: " + strings.Join(strings.Fields(err.Error()), " ")
			fmt.Fprintf(log, "postgres: skipped: %s\n", res.Skipped)
			return res
		}
		defer drop()
		serverURL, floorURL = urls[0], urls[1]
		mon, err := sql.Open("pgx", cfg.databaseURL)
		if err != nil {
			return fail(err)
		}
		defer mon.Close()
		mon.SetMaxOpenConns(1)
		backends = func(server bool) []int {
			app := floorSchema
			if server {
				app = serverSchema
			}
			return backendPIDs(ctx, mon, app)
		}
	}

	fmt.Fprintf(log, "%s: starting payd ...\n", name)
	srv, err := startServer(ctx, bin, filepath.Join(dir, "data"), serverURL, filepath.Join(dir, "payd.log"), cfg.startTimeout)
	if err != nil {
		return fail(err)
	}
	defer srv.stop()
	dev, err := readDev(srv.dataDir)
	if err != nil {
		return fail(err)
	}
	// The payments are in RUB, so they go to the Russian demo shop.
	shop := dev.Shops[0]
	for _, s := range dev.Shops {
		if s.Region == "ru" {
			shop = s
		}
	}
	if err := raiseLimits(ctx, srv.admin, dev.AdminToken, shop.ShopID); err != nil {
		return fail(err)
	}
	sd := &seeded{}
	if seed > 0 {
		if sd, err = seedPayments(ctx, name, serverURL, srv.dataDir, shop.ShopID, seed, maxKeptIDs/2, log); err != nil {
			return fail(err)
		}
		res.SeededPayments, res.SeedSeconds = seed, sd.seconds
	}
	fl, err := openFloor(ctx, floorURL, filepath.Join(dir, "floor"), run)
	if err != nil {
		return fail(fmt.Errorf("floor database: %w", err))
	}
	defer fl.close()
	res.Version = fl.version(ctx)
	// On PostgreSQL the floor's transaction also runs in pgbench, when the
	// machine has it: the database's own limit, without a Go driver.
	var pgb *pgbenchFloor
	if name == "postgres" && (slices.Contains(cfg.phases, "floor") || slices.Contains(cfg.phases, "readfloor") || slices.Contains(cfg.phases, "listfloor")) {
		if bin := findPgbench(); bin == "" {
			res.Notes = append(res.Notes, "pgbench is not installed: no pgbench floor")
		} else if pgb, err = newPgbenchFloor(fl, bin, cfg.databaseURL, "paydbench_floor_"+run, dir); err != nil {
			return fail(fmt.Errorf("pgbench floor: %w", err))
		}
	}

	maxClients := slices.Max(cfg.clients)
	a := &api{client: loopbackClient(maxClients, 30*time.Second), base: srv.api, shopID: shop.ShopID, secret: shop.SecretKey, run: run}
	// Reads go to seeded payments as well as to those the run creates;
	// refunds to seeded payments whose money is available.
	a.ids, a.paid = sd.reads, sd.paid
	defer a.client.CloseIdleConnections()
	var dk *desk
	if slices.Contains(cfg.phases, "dashboard") || slices.Contains(cfg.phases, "dashpages") || slices.Contains(cfg.phases, "export") {
		if dk, err = signIn(ctx, a.client, srv.api, shop.ShopID, dev.Dashboard); err != nil {
			return fail(fmt.Errorf("dashboard sign-in: %w", err))
		}
	}

	type key struct {
		phase   string
		clients int
	}
	byPhase := map[key][]Stats{}
	var order []key
	record := func(s Stats) {
		if ctx.Err() != nil {
			return // cut short by the end of the run: not a measurement
		}
		k := key{s.Phase, s.Clients}
		if _, ok := byPhase[k]; !ok {
			order = append(order, k)
		}
		byPhase[k] = append(byPhase[k], s)
		res.Runs = append(res.Runs, s)
		fmt.Fprintf(log, "%s: %-6s c=%-3d %8.1f/s  p50 %7.2f ms  p99 %7.2f ms  errors %d\n",
			name, s.Phase, s.Clients, s.PerSecond, s.P50Ms, s.P99Ms, s.Errors)
	}
	var settled time.Duration
	phase := func(runIndex int, label string, clients int, d time.Duration, newWorker func(int) op, server bool) Stats {
		waited, err := srv.settle(ctx, a.client, settleLimit)
		settled += waited
		if err != nil && ctx.Err() == nil {
			res.Notes = append(res.Notes, fmt.Sprintf("before %s c=%d: %v", label, clients, err))
		}
		pid := 0
		if server {
			pid = srv.pid()
		}
		var stopPerf func()
		if server && runIndex == 0 && cfg.perfDir != "" {
			stopPerf = startPerf(pid, filepath.Join(cfg.perfDir, fmt.Sprintf("perf-%s-%s-c%d.data", name, label, clients)), log)
		}
		before := takeCPU(pid, backends(server))
		s := runPhase(ctx, label, clients, d, cfg.maxOps, newWorker)
		s.CPU = cpuBetween(before, takeCPU(pid, backends(server)), s.Ops)
		if stopPerf != nil {
			stopPerf()
		}
		if server {
			s.ServerPeakRSSMiB, _, _ = peakRSS(srv.pid())
		}
		return s
	}

	// The refund phase needs paid payments, and the events phase pages of
	// events, which creations alone do not make: without seeded ones,
	// make them once, unmeasured.
	if (slices.Contains(cfg.phases, "refund") || slices.Contains(cfg.phases, "events")) && len(a.paid) == 0 {
		if err := a.preparePaid(ctx, 1000, maxClients); err != nil {
			return fail(fmt.Errorf("preparing paid payments: %w", err))
		}
	}
	var hf *httpFloor
	// Runs interleave the API and the floor, so that a change of load on
	// the shared machine falls on both sides of the ratio.
	for r := 0; r < cfg.runs && ctx.Err() == nil; r++ {
		fmt.Fprintf(log, "%s: run %d of %d\n", name, r+1, cfg.runs)
		for _, p := range []struct {
			label     string
			d         time.Duration
			newWorker func(int) op
			server    bool
		}{
			{"create", cfg.duration, a.createWorker, true},
			{"get", cfg.duration, a.getWorker, true},
			{"readfloor", cfg.floorDuration, nil, false},
			{"list", cfg.duration, a.listWorker, true},
			{"events", cfg.duration, a.eventsWorker, true},
			{"listfloor", cfg.floorDuration, nil, false},
			{"balance", cfg.duration, a.balanceWorker, true},
			{"dashboard", cfg.duration, dk.pagesWorker, true},
			{"dashpages", max(cfg.duration*2/5, time.Second), nil, true},
			{"refund", cfg.duration, a.refundWorker, true},
			{"floor", cfg.floorDuration, fl.worker, false},
		} {
			if !slices.Contains(cfg.phases, p.label) {
				continue
			}
			if p.label == "readfloor" || p.label == "listfloor" {
				// The floors of a GET and of a list page: a bare HTTP
				// server, and pgbench's indexed read on PostgreSQL (one
				// row, or a range of 101), at each client count.
				if hf == nil {
					if hf, err = startHTTPFloor(ctx, a); err != nil {
						res.Notes = append(res.Notes, p.label+": "+err.Error())
						continue
					}
					defer hf.close()
				}
				// The HTTP floors of the phase, by their phase's name, and
				// pgbench's read.
				https := map[string]func(int) op{"httpfloor": hf.worker(a)}
				db := (*pgbenchFloor).runSelect
				if p.label == "listfloor" {
					https = map[string]func(int) op{"httpfloor-list": hf.pageWorker(a, "/v1/payments?limit=100")}
					if slices.Contains(cfg.phases, "events") {
						// Only then are there pages of events to send.
						https["httpfloor-events"] = hf.pageWorker(a, "/v1/events?limit=100")
					}
					db = (*pgbenchFloor).runList
				}
				for _, c := range cfg.clients {
					for _, name := range slices.Sorted(maps.Keys(https)) {
						if ctx.Err() == nil {
							record(phase(r, name, c, p.d, https[name], false))
						}
					}
					if pgb != nil && ctx.Err() == nil {
						record(db(pgb, ctx, c, p.d))
					}
				}
				continue
			}
			if p.label == "dashpages" {
				// Every page a person waits on, each read alone for
				// two fifths of --duration: its own rate and p99, at
				// 16 clients (the target's) when --clients has it.
				a.mu.Lock()
				ids := a.ids
				a.mu.Unlock()
				if len(ids) == 0 {
					res.Notes = append(res.Notes, "dashpages: no payment to open (run create first, or seed)")
					continue
				}
				for _, c := range cfg.clients {
					if c != 16 && slices.Contains(cfg.clients, 16) {
						continue // the target's count, when it is measured
					}
					for _, pg := range dk.pages(ids[0]) {
						if ctx.Err() == nil {
							record(phase(r, dashPagePrefix+pg.name, c, p.d, dk.pageWorker(pg.path), true))
						}
					}
				}
				continue
			}
			for _, c := range cfg.clients {
				if ctx.Err() != nil {
					break
				}
				record(phase(r, p.label, c, p.d, p.newWorker, p.server))
				if p.label == "floor" && pgb != nil && ctx.Err() == nil {
					if _, err := srv.settle(ctx, a.client, settleLimit); err != nil && ctx.Err() == nil {
						res.Notes = append(res.Notes, fmt.Sprintf("before pgbench c=%d: %v", c, err))
					}
					if free, err := freeConnections(ctx, fl.db); err == nil && free < c {
						res.Notes = append(res.Notes, fmt.Sprintf("pgbench c=%d not run: the server takes %d more connections (max_connections)", c, free))
						continue
					}
					record(pgb.run(ctx, c, p.d))
				}
			}
		}
	}
	if slices.Contains(cfg.phases, "export") && ctx.Err() == nil {
		if _, err := srv.settle(ctx, a.client, settleLimit); err != nil && ctx.Err() == nil {
			res.Notes = append(res.Notes, fmt.Sprintf("before the export: %v", err))
		}
		e, err := dk.export(ctx, srv.pid())
		if err != nil {
			res.Notes = append(res.Notes, "export: "+err.Error())
		}
		if res.Export = e; e != nil {
			fmt.Fprintf(log, "%s: export %d rows in %.2f s\n", name, e.Rows, e.Seconds)
		}
	}
	if slices.Contains(cfg.phases, "reset") && ctx.Err() == nil {
		switch {
		case seed == 0:
			res.Notes = append(res.Notes, "reset: not run, the shop holds no seeded payments (--seed-payments)")
		default:
			if _, err := srv.settle(ctx, a.client, settleLimit); err != nil && ctx.Err() == nil {
				res.Notes = append(res.Notes, fmt.Sprintf("before the reset: %v", err))
			}
			other, err := otherMerchant(ctx, a, srv.admin, dev.AdminToken)
			if err == nil {
				res.Reset, err = resetShop(ctx, a, other)
			}
			if err != nil {
				res.Notes = append(res.Notes, "reset: "+err.Error())
			}
			if r := res.Reset; r != nil {
				fmt.Fprintf(log, "%s: reset of %d payments in %.1f s; the other shop's p99 %.2f ms idle, %.2f ms during\n",
					name, r.Payments, r.Seconds, r.Idle.P99Ms, r.During.P99Ms)
			}
		}
	}
	res.Notes = append(res.Notes, fmt.Sprintf("waited %.1f s in all for the server's background jobs to finish before phases", settled.Seconds()))
	if hwm, rss, ok := peakRSS(srv.pid()); ok {
		res.ServerPeakRSSMiB, res.ServerRSSEndMiB = hwm, rss
	}
	res.CreatedPayments = len(a.ids) - len(sd.reads)
	srv.stop()
	if !srv.stoppedCleanly() {
		res.Notes = append(res.Notes, "payd did not stop within its grace period and was killed")
	}
	for _, k := range order {
		res.Phases = append(res.Phases, summarize(byPhase[k]))
	}
	res.Ratios = ratios(res.Phases, res.Runs)
	if ctx.Err() != nil {
		res.Error = "interrupted: " + ctx.Err().Error()
	}
	return res
}

// stoppedCleanly reports whether payd exited on SIGTERM by itself.
func (s *server) stoppedCleanly() bool {
	select {
	case <-s.done:
	default:
		return false
	}
	var exit *exec.ExitError
	return s.exitErr == nil || !errors.As(s.exitErr, &exit) || exit.ExitCode() != -1
}

// pgSchemas creates fresh schemas and returns URLs whose search_path is
// each of them, and a function that drops them all. Each URL also names
// its schema as application_name, by which backendPIDs finds its
// connections.
func pgSchemas(ctx context.Context, base string, schemas ...string) (drop func(), urls []string, err error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	db, err := sql.Open("pgx", base)
	if err != nil {
		return nil, nil, err
	}
	defer db.Close()
	if err := db.PingContext(ctx); err != nil {
		return nil, nil, err
	}
	var made []string
	drop = func() {
		// A fresh context: the run's may have ended, and the schemas must
		// go anyway.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		db, err := sql.Open("pgx", base)
		if err != nil {
			return
		}
		defer db.Close()
		for _, s := range made {
			db.ExecContext(ctx, "DROP SCHEMA "+s+" CASCADE")
		}
	}
	for _, s := range schemas {
		if _, err := db.ExecContext(ctx, "CREATE SCHEMA "+s); err != nil {
			drop()
			return nil, nil, err
		}
		made = append(made, s)
		u, _ := url.Parse(base)
		q := u.Query()
		q.Set("search_path", s)
		q.Set("application_name", s)
		u.RawQuery = q.Encode()
		urls = append(urls, u.String())
	}
	return drop, urls, nil
}

// backendPIDs lists the PostgreSQL backends connected as app.
func backendPIDs(ctx context.Context, db *sql.DB, app string) []int {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	rows, err := db.QueryContext(ctx, `SELECT pid FROM pg_stat_activity WHERE application_name = $1`, app)
	if err != nil {
		return nil
	}
	defer rows.Close()
	var pids []int
	for rows.Next() {
		var pid int
		if rows.Scan(&pid) == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// startPerf records the server's stacks until the returned function is
// called. perf is optional: without it the run goes on unprofiled.
func startPerf(pid int, out string, log io.Writer) func() {
	path, err := exec.LookPath("perf")
	if err != nil {
		fmt.Fprintln(log, "perf: not installed; no profile")
		return nil
	}
	cmd := exec.Command(path, "record", "-F", "499", "-g", "-p", strconv.Itoa(pid), "-o", out)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	setParentDeathSignal(cmd)
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(log, "perf:", err)
		return nil
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	return func() {
		// SIGINT makes perf record write its file and exit.
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-done:
			fmt.Fprintf(log, "perf: wrote %s\n", out)
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// machineInfo describes where the figures come from.
func machineInfo(tmp string) Machine {
	m := Machine{
		CPUs: runtime.NumCPU(), GoVersion: runtime.Version(), OS: runtime.GOOS + "/" + runtime.GOARCH,
		MemoryGiB: memTotalGiB(), TempFS: fsType(tmp),
	}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		m.CPUModel = cpuModel(string(b))
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		f := strings.Fields(string(b))
		if len(f) >= 3 {
			m.LoadAtStart = strings.Join(f[:3], " ")
		}
	}
	for _, k := range []string{"GOMAXPROCS", "GOGC", "GOMEMLIMIT", "GODEBUG"} {
		if v := os.Getenv(k); v != "" {
			m.GoEnv = append(m.GoEnv, k+"="+v)
		}
	}
	return m
}

// shellCommand renders argv as a command line that can be pasted back.
// Under `go run` argv[0] is a throwaway binary in the build cache, so the
// command is given as the `go run` that made it.
func shellCommand(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = shellQuote(a)
	}
	if len(argv) > 0 && strings.Contains(filepath.ToSlash(argv[0]), "/go-build") {
		out[0] = "go run ./cmd/paydbench"
	}
	cmd := strings.Join(out, " ")
	if os.Getenv("MAKELEVEL") != "" {
		cmd += "   (run by make)"
	}
	return cmd
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=,@%+", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
