//go:build linux

// Command paydchaos runs three payd instances on one PostgreSQL and one
// Redis behind a round-robin balancer, under load and under faults, and
// then checks that nothing was lost, doubled or answered wrongly.
//
// Everything it starts is its own and on 127.0.0.1: a throwaway PostgreSQL
// cluster (initdb on a free port in a temporary directory; the machine's
// server is never touched), a redis-server on a free port, three `payd
// serve` processes built once, the balancer and a TLS webhook receiver.
// Clients create, simulate, capture, cancel and refund payments, retrying
// failed and unanswered requests with the same Idempotency-Key. Faults come
// at random moments: SIGKILL of an instance and its restart, a restart of
// PostgreSQL (fast or immediate), Redis killed and started again.
//
// Afterwards: every acknowledged operation exists exactly once, every
// replay gave the first answer, no answer was a 500 or took longer than
// hangLimit, every 503 was the Error object with Retry-After, /readyz
// failed while PostgreSQL was down and recovered without a restart,
// `payd admin ledger check` passes, every event reached the receiver at
// least once (duplicates reported), the periodic jobs ran about once per
// period across the instances, and no job or delivery was lost.
//
// Deliveries and jobs that a killed instance had claimed are taken up
// again later: deliveries after their 5-minute lease on the service clock,
// which the run moves six minutes forward at the end (`--test-clock`; the
// clocks run in real time until then), and jobs after
// `--job-rescue-after`, which River measures on the wall clock and the run
// sets to 65 seconds.
//
// Two other runs share the load and the checks: --failover, on a Patroni
// cluster whose primary is killed and switched over (failover.go), and
// --cluster, on a Citus cluster whose shard groups move to a new worker
// and whose worker is killed (cluster.go).
//
// Usage:
//
//	go run ./cmd/paydchaos                 # the reduced run of CI: about 2 minutes
//	go run ./cmd/paydchaos --duration 10m  # longer
//	make chaos CHAOS_FLAGS='--duration 10m'
//	make failover                          # go run ./cmd/paydchaos --failover
//	make cluster-faults                    # go run ./cmd/paydchaos --cluster --clients 24
package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/paydhq/payd/internal/pgserver"
	"github.com/paydhq/payd/internal/seal"
)

type config struct {
	duration   time.Duration
	clients    int
	faultEvery time.Duration
	seed       uint64
	paydBin    string
	keep       bool
	// failover selects the failover run (failover.go) instead of the
	// chaos faults.
	failover bool
	// citus runs the chaos faults on a Citus cluster (a coordinator and
	// two workers): the coordinator is what restarts.
	citus bool
	// cluster selects the cluster run (cluster.go): shard groups moved to
	// a new worker and a worker killed, under load.
	cluster bool
	failoverConfig
	clusterConfig
}

func main() {
	var cfg config
	flag.DurationVar(&cfg.duration, "duration", 45*time.Second, "how long the load and the faults last")
	flag.IntVar(&cfg.clients, "clients", 6, "concurrent merchant clients, one shop each")
	flag.DurationVar(&cfg.faultEvery, "fault-every", 6*time.Second, "mean pause between faults")
	flag.Uint64Var(&cfg.seed, "seed", 0, "random seed (0: from the time); printed, so a run can be repeated")
	flag.StringVar(&cfg.paydBin, "payd", "", "payd binary (default: built from this module)")
	flag.BoolVar(&cfg.keep, "keep", false, "keep the run's directory (logs, data) even when it passes")
	flag.BoolVar(&cfg.failover, "failover", false, "the failover run: a Patroni cluster of three PostgreSQL nodes whose primary is killed and switched over (failover.go)")
	flag.BoolVar(&cfg.citus, "citus", false, "run on a Citus cluster of a coordinator and two workers (docs/operations.md), two instances; merchant work that would leave its shard group fails")
	flag.BoolVar(&cfg.cluster, "cluster", false, "the cluster run: a Citus cluster whose shard groups move to a new worker and whose worker is killed, under load (cluster.go)")
	cfg.failoverConfig.flags()
	cfg.clusterConfig.flags()
	flag.Parse()
	if cfg.seed == 0 {
		cfg.seed = uint64(time.Now().UnixNano())
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	name := "paydchaos"
	switch {
	case cfg.failover:
		name = "paydfailover"
	case cfg.cluster:
		name = "paydcluster"
	}
	last, err := run(ctx, cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: FAIL: %v\n", name, err)
	} else {
		fmt.Printf("%s: PASS\n", name)
	}
	// The failover run ends with its figures, pass or fail.
	if last != "" {
		fmt.Println(last)
	}
	if err != nil {
		os.Exit(1)
	}
}

// cluster is everything the run started.
type cluster struct {
	dir string
	pg  *pgserver.Server
	// citus is the cluster of the citus run; pg is its coordinator.
	citus *pgserver.Citus
	// patroni is the failover run's cluster, in place of pg.
	patroni *pgserver.Patroni
	// dbURL is what the instances are given: pg's, or every node of
	// patroni's.
	dbURL     string
	redis     *redisServer
	instances []*instance
	proxyURL  string
	rc        *receiver
	token     string
	clients   int
	// unlimited lifts the shops' rate limits (the failover run's probes,
	// the creation measurement).
	unlimited bool
	// payouts subscribes the shops' webhooks to payouts' events too (the
	// cluster run's load makes payouts).
	payouts bool
	// clockLead is how far the run moved the instances' clocks before the
	// load (the cluster run funds its payouts a day ahead).
	clockLead time.Duration
}

// run runs the load and the faults and checks the outcome; last is the
// failover run's summary line.
func run(ctx context.Context, cfg config) (last string, err error) {
	dir, err := os.MkdirTemp("", "paydchaos-")
	if err != nil {
		return "", err
	}
	if cfg.failover {
		fmt.Printf("paydfailover: seed %d, %d clients, %d kills and %d switchovers (Patroni ttl %d s); logs in %s\n",
			cfg.seed, cfg.clients, cfg.kills, cfg.switchovers, cfg.patroni.TTL, dir)
	} else if cfg.cluster {
		fmt.Printf("paydcluster: seed %d, %d merchants, a Citus coordinator and 2 workers (%d shards a table), then a third; %d worker kills of %v; logs in %s\n",
			cfg.seed, cfg.clients, cfg.shards, cfg.workerKills, cfg.workerDown, dir)
	} else {
		fmt.Printf("paydchaos: seed %d, %d clients, %v of faults; logs in %s\n", cfg.seed, cfg.clients, cfg.duration, dir)
	}
	cl := &cluster{dir: dir, clients: cfg.clients, token: "adm_chaos_" + strconv.FormatUint(cfg.seed%1e9, 36) + "xxxxxxxxxxxxxxxx"}
	defer func() {
		cl.shutdown()
		if err == nil && !cfg.keep {
			os.RemoveAll(dir)
		} else {
			fmt.Printf("paydchaos: the run's logs and data stay in %s\n", dir)
		}
	}()
	cl.unlimited = cfg.failover || cfg.measure > 0 || cfg.cluster
	cl.payouts = cfg.cluster
	if err := cl.build(cfg); err != nil {
		return "", err
	}
	rnd := rand.New(rand.NewPCG(cfg.seed, 1))
	book := newBook()
	var drainBy atomic.Int64
	var shops []*shop
	if cfg.cluster {
		shops, err = cl.setupMerchants(book, &drainBy)
	} else {
		shops, err = cl.setup()
	}
	if err != nil {
		return "", err
	}
	if cfg.measure > 0 {
		cl.measureCreation(cfg, shops, book)
	}

	// Load.
	stopLoad := make(chan struct{})
	var wg sync.WaitGroup
	for i, s := range shops {
		c := &client{n: i, base: cl.proxyURL, shop: s, book: book, stop: stopLoad, drainBy: &drainBy,
			http: &http.Client{Timeout: hangLimit}, rnd: rand.New(rand.NewPCG(cfg.seed, uint64(i)+2)), payouts: cfg.cluster}
		wg.Add(1)
		go func() { defer wg.Done(); c.run() }()
	}
	if cfg.cluster {
		// The busiest merchant: two more clients on the first shop,
		// whose group then moves on its own (cluster.go).
		for i := range 2 {
			c := &client{n: 200 + i, base: cl.proxyURL, shop: shops[0], book: book, stop: stopLoad, drainBy: &drainBy,
				http: &http.Client{Timeout: hangLimit}, rnd: rand.New(rand.NewPCG(cfg.seed, uint64(i)+300)), payouts: true}
			wg.Add(1)
			go func() { defer wg.Done(); c.run() }()
		}
	}
	if cfg.failover {
		// Writes that never wait on a payment's status, so that each
		// window is measured to the moment.
		for i := range 2 {
			c := &client{n: 100 + i, base: cl.proxyURL, shop: shops[i%len(shops)], book: book, stop: stopLoad, drainBy: &drainBy,
				http: &http.Client{Timeout: hangLimit}, rnd: rand.New(rand.NewPCG(cfg.seed, uint64(i)+200))}
			wg.Add(1)
			go func() { defer wg.Done(); c.probe() }()
		}
	}
	loadStart := time.Now()
	var faults faultLog
	if cfg.failover {
		faults = cl.failovers(ctx, cfg, rnd, book)
	} else if cfg.cluster {
		faults = cl.clusterFaults(ctx, cfg, rnd, shops, book)
	} else {
		faults = cl.faults(ctx, cfg, rnd, book)
	}
	close(stopLoad)
	// Clients finish the operation in hand, retrying as long as it takes
	// within a minute; after that they give up and say so.
	drainBy.Store(time.Now().Add(time.Minute).UnixNano())
	wg.Wait()
	loadEnd := time.Now()
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	fmt.Printf("%s: load over after %v: %s\n", faults.name(), loadEnd.Sub(loadStart).Round(time.Second), faults)
	return cl.verify(ctx, shops, book, faults, loadStart, loadEnd)
}

// build starts PostgreSQL, Redis, the receiver, the balancer and the three
// instances.
func (cl *cluster) build(cfg config) error {
	bin := cfg.paydBin
	if bin == "" {
		bin = filepath.Join(cl.dir, "payd")
		if out, err := exec.Command("go", "build", "-o", bin, "github.com/paydhq/payd/cmd/payd").CombinedOutput(); err != nil {
			return fmt.Errorf("build payd: %v\n%s", err, out)
		}
	}
	if cfg.failover {
		p, err := pgserver.StartPatroni(cl.dir, cfg.patroni)
		cl.patroni = p
		if err != nil {
			return err
		}
		// A database of payd's own, made on the primary.
		db, err := sql.Open("pgx", p.URL("postgres"))
		if err != nil {
			return err
		}
		_, err = db.Exec("CREATE DATABASE payd")
		db.Close()
		if err != nil {
			return fmt.Errorf("create database: %w", err)
		}
		cl.dbURL = p.URL("payd")
	} else if cfg.citus || cfg.cluster {
		var settings []string
		if cfg.cluster {
			// Room to move shard groups to a third worker.
			settings = append(settings, "citus.shard_count="+strconv.Itoa(cfg.shards))
		}
		c, err := pgserver.StartCitus(context.Background(), cl.dir, 2, settings...)
		if c != nil {
			cl.citus = c
		}
		if err != nil {
			return err
		}
		cl.citus, cl.pg = c, c.Coordinator
		// The instances' statements must each stay in one merchant's
		// shard group, but for the service's named ones (fanout.go).
		cl.dbURL = c.URL() + "&citus.multi_task_query_log_level=error"
	} else {
		pg, err := pgserver.New(cl.dir, "pg")
		if err != nil {
			return err
		}
		cl.pg = pg
		if err := pg.Start(); err != nil {
			return err
		}
		cl.dbURL = pg.URL("postgres")
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	cl.redis = &redisServer{port: port, dir: cl.dir, log: filepath.Join(cl.dir, "redis.log")}
	if err := cl.redis.start(); err != nil {
		return err
	}
	cl.rc = newReceiver()
	ca := filepath.Join(cl.dir, "receiver-ca.pem")
	if err := cl.rc.writeCA(ca); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	cl.proxyURL = "http://" + ln.Addr().String()
	// Every instance seals the database's secrets under one key, as a
	// deployment's instances do (docs/security.md).
	keyLine, err := seal.Generate("chaos")
	if err != nil {
		return err
	}
	keyFile := filepath.Join(cl.dir, "secrets.key")
	if err := os.WriteFile(keyFile, []byte(keyLine+"\n"), 0o600); err != nil {
		return err
	}
	var backends []string
	for n := 1; n <= cfg.instances(); n++ {
		p, err := freePort()
		if err != nil {
			return err
		}
		ap, err := freePort()
		if err != nil {
			return err
		}
		in := &instance{n: n, bin: bin, dir: cl.dir, port: p, adminPort: ap, args: []string{
			"--database-url", cl.dbURL, "--redis-url", cl.redis.url(), "--admin-token", cl.token,
			"--public-url", cl.proxyURL, "--webhook-allow-host", "127.0.0.1", "--webhook-ca-file", ca, "--test-clock",
			// Jobs of a killed instance are run again after this; the
			// default of 5 minutes would outlast the run.
			"--job-rescue-after", "65s",
			"--secrets-key-file", keyFile,
		}}
		if cfg.cluster {
			in.args = append(in.args, "--stage", "M5") // payouts
		}
		cl.instances = append(cl.instances, in)
		backends = append(backends, in.addr())
	}
	go http.Serve(ln, newProxy(backends))
	for _, in := range cl.instances {
		if err := in.start(); err != nil {
			return err
		}
	}
	return nil
}

func (cl *cluster) shutdown() {
	for _, in := range cl.instances {
		in.shutdown()
	}
	if cl.redis != nil && cl.redis.proc != nil {
		cl.redis.kill()
	}
	if cl.citus != nil {
		cl.citus.Close()
	} else if cl.pg != nil {
		cl.pg.Stop(false)
	}
	if cl.patroni != nil {
		cl.patroni.Close()
	}
	if cl.rc != nil {
		cl.rc.srv.Close()
	}
}

// faultLog counts what was done to the cluster and what was seen meanwhile.
type faultLog struct {
	kills, pgRestarts, redisRestarts int
	// The failover run's: the primary killed and switched over, with
	// what was measured at each (failover.go).
	failover *failoverLog
	// The cluster run's: moves and worker kills (cluster.go).
	cluster *clusterLog
	// readyFailedDuringOutage counts the PostgreSQL outages in which every
	// running instance's /readyz answered 503; readyRecovery is the
	// longest time /readyz took to come back after PostgreSQL did.
	readyFailedDuringOutage int
	readyRecovery           time.Duration
}

func (f faultLog) String() string {
	if f.failover != nil {
		return f.failover.String()
	}
	if f.cluster != nil {
		return f.cluster.String()
	}
	return fmt.Sprintf("%d instance kills, %d PostgreSQL restarts, %d Redis restarts", f.kills, f.pgRestarts, f.redisRestarts)
}

// faults injects faults until the duration is over, cycling through the
// three kinds in a random order so that every kind happens in a short run.
func (cl *cluster) faults(ctx context.Context, cfg config, rnd *rand.Rand, book *ledgerBook) faultLog {
	var log faultLog
	end := time.Now().Add(cfg.duration)
	var kinds []int
	for {
		pause := cfg.faultEvery/2 + time.Duration(rnd.Int64N(int64(cfg.faultEvery)))
		// Every kind of fault happens at least once, however short the
		// run.
		if time.Now().Add(pause).After(end) && log.kills > 0 && log.pgRestarts > 0 && log.redisRestarts > 0 {
			break
		}
		select {
		case <-ctx.Done():
			return log
		case <-time.After(pause):
		}
		if len(kinds) == 0 {
			kinds = rnd.Perm(3)
		}
		kind := kinds[0]
		kinds = kinds[1:]
		switch kind {
		case 0:
			in := cl.instances[rnd.IntN(len(cl.instances))]
			in.kill()
			log.kills++
			time.Sleep(time.Duration(200+rnd.IntN(1800)) * time.Millisecond)
			if err := in.start(); err != nil {
				book.problem("restart %s: %v", in, err)
			}
		case 1:
			immediate := rnd.IntN(2) == 0
			cl.pg.Stop(immediate)
			log.pgRestarts++
			time.Sleep(1500 * time.Millisecond)
			if cl.allNotReady() {
				log.readyFailedDuringOutage++
			} else {
				book.problem("PostgreSQL down (immediate=%v) but some instance's /readyz still answered 200", immediate)
			}
			time.Sleep(time.Duration(rnd.IntN(2500)) * time.Millisecond)
			if err := cl.pg.Start(); err != nil {
				book.problem("restart PostgreSQL: %v", err)
				return log
			}
			back := time.Now()
			if !cl.waitAllReady(30 * time.Second) {
				book.problem("instances not ready 30s after PostgreSQL came back")
			}
			log.readyRecovery = max(log.readyRecovery, time.Since(back))
		case 2:
			cl.redis.kill()
			log.redisRestarts++
			time.Sleep(time.Duration(1000+rnd.IntN(3000)) * time.Millisecond)
			if err := cl.redis.start(); err != nil {
				book.problem("restart Redis: %v", err)
				return log
			}
		}
	}
	time.Sleep(time.Until(end))
	return log
}

func (cl *cluster) allNotReady() bool { return cl.allReadyz(http.StatusServiceUnavailable) }

// allReadyz reports whether every running instance's /readyz answers
// status.
func (cl *cluster) allReadyz(status int) bool {
	c := &http.Client{Timeout: 5 * time.Second}
	for _, in := range cl.instances {
		if !in.alive() {
			continue
		}
		resp, err := c.Get(in.readyURL())
		if err != nil {
			return false
		}
		resp.Body.Close()
		if resp.StatusCode != status {
			return false
		}
	}
	return true
}

func (cl *cluster) waitAllReady(d time.Duration) bool {
	c := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		ready := 0
		for _, in := range cl.instances {
			if resp, err := c.Get(in.readyURL()); err == nil {
				resp.Body.Close()
				if resp.StatusCode == 200 {
					ready++
				}
			}
		}
		if ready == len(cl.instances) {
			return true
		}
		time.Sleep(100 * time.Millisecond)
	}
	return false
}

// db opens the run's own PostgreSQL for the checks that read the job table.
func (cl *cluster) db() (*sql.DB, error) {
	db, err := sql.Open("pgx", cl.dbURL)
	if err != nil {
		return nil, err
	}
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, errors.Join(errors.New("open the run's PostgreSQL"), err)
	}
	return db, nil
}

func (f faultLog) name() string {
	if f.failover != nil {
		return "paydfailover"
	}
	if f.cluster != nil {
		return "paydcluster"
	}
	return "paydchaos"
}

// outages counts the faults in which no database accepted writes for a
// while.
func (f faultLog) outages() int {
	if f.failover != nil {
		return f.failover.kills
	}
	return f.pgRestarts
}

// complete reports whether every kind of fault the run promises happened.
func (f faultLog) complete() bool {
	if f.failover != nil {
		return f.failover.kills > 0 && f.failover.switchovers > 0
	}
	if f.cluster != nil {
		return len(f.cluster.moves) > 1 && len(f.cluster.kills) > 0
	}
	return f.kills > 0 && f.pgRestarts > 0 && f.redisRestarts > 0
}

// count adds one to a counter of the book.
func (b *ledgerBook) count(n *int) {
	b.mu.Lock()
	*n++
	b.mu.Unlock()
}
