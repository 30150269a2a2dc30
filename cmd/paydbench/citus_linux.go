//go:build linux

package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/paydhq/payd/internal/pgserver"
)

// The --citus mode: payd on a throwaway Citus cluster beside payd on a
// throwaway single PostgreSQL, both started here with the same settings,
// never the machine's own server. Phases alternate between the two, so
// that a change of load on a shared machine falls on both sides of each
// ratio; each phase is measured as the others are (phase.go), and besides
// it the CPU time of every process of each database server and the
// statements each ran (pg_stat_statements, reset before the phase).

// pgStatSettings load pg_stat_statements on every server. It tracks the
// statements clients send (track=top): payd's to a single server or to the
// coordinator, and the coordinator's to a worker.
var pgStatSettings = []string{"pg_stat_statements.max=10000", "pg_stat_statements.track=top"}

// singleSettings are the single server's: the cluster's nodes' own
// (pgserver.StartCitus) but for Citus, so that the two differ in Citus
// alone.
func singleSettings() []string {
	return append([]string{"shared_preload_libraries=pg_stat_statements",
		"max_prepared_transactions=200", "wal_level=logical"}, pgStatSettings...)
}

// clusterSettings are added to every node's: Citus must stay first among
// the preloaded libraries.
func clusterSettings(shards int) []string {
	return append([]string{"shared_preload_libraries=citus,pg_stat_statements",
		"citus.shard_count=" + strconv.Itoa(shards)}, pgStatSettings...)
}

// dbTarget is one side of the comparison: its database server(s), the
// payd on it, and what was measured.
type dbTarget struct {
	name  string
	nodes []*pgserver.Server
	// names are the nodes' names in the report: "postgres", or
	// "coordinator", "worker1", ...
	names     []string
	mons      []*sql.DB
	url       string
	srv       *server
	a         *api
	merchants []*api
	res       DatabaseResult
	runs      map[string][]Stats // by phase and clients
	order     []string
	settled   time.Duration
}

func phaseKey(phase string, clients int) string { return phase + "/" + strconv.Itoa(clients) }

// runCitus measures both sides and compares them. Whatever happens, every
// payd and every PostgreSQL it started is stopped (by PID) before it
// returns.
func runCitus(ctx context.Context, cfg *config, log io.Writer) (*Report, error) {
	tmp, done, err := scratchDir(cfg, "paydbench-citus-", log)
	if err != nil {
		return nil, err
	}
	defer done()
	rep, bin, err := begin(ctx, cfg, tmp, log)
	if err != nil {
		return rep, err
	}
	cr := &CitusResult{Workers: cfg.citusWorkers, ShardCount: cfg.citusShards, Merchants: cfg.citusMerchants,
		SingleSettings: singleSettings(), ClusterSettings: clusterSettings(cfg.citusShards)}
	rep.Citus = cr

	fmt.Fprintln(log, "starting the single PostgreSQL ...")
	pg, err := pgserver.New(tmp, "single")
	if err != nil {
		return rep, err
	}
	pg.Settings = singleSettings()
	defer pg.Stop(false)
	if err := pg.Start(); err != nil {
		return rep, err
	}
	fmt.Fprintf(log, "starting the Citus cluster (coordinator and %d workers, %d shards a table) ...\n", cfg.citusWorkers, cfg.citusShards)
	cluster, err := pgserver.StartCitus(ctx, tmp, cfg.citusWorkers, clusterSettings(cfg.citusShards)...)
	if err != nil {
		return rep, fmt.Errorf("start the Citus cluster: %w", err)
	}
	defer cluster.Close()

	single := &dbTarget{name: "postgres", nodes: []*pgserver.Server{pg}, names: []string{"postgres"}, url: pg.URL("postgres")}
	clus := &dbTarget{name: "citus", nodes: cluster.Nodes(), names: []string{"coordinator"}, url: cluster.URL()}
	for i := range cluster.Workers {
		clus.names = append(clus.names, fmt.Sprintf("worker%d", i+1))
	}
	targets := []*dbTarget{single, clus}
	defer func() {
		for _, t := range targets {
			t.close()
		}
	}()
	for _, t := range targets {
		if err := t.setup(ctx, cfg, bin, tmp, log); err != nil {
			t.res.Error = err.Error()
			rep.Databases = []DatabaseResult{single.res, clus.res}
			return rep, fmt.Errorf("%s: %w", t.name, err)
		}
	}
	if cr.CitusVersion, err = citusVersion(ctx, clus.mons[0]); err != nil {
		return rep, err
	}
	clus.res.Version += ", " + cr.CitusVersion
	if slices.Contains(cfg.phases, merchantsPhase) {
		if cr.MerchantsOn, err = merchantPlacement(ctx, clus.mons[0], clus.merchants, cluster.Workers, clus.names[1:]); err != nil {
			return rep, fmt.Errorf("where the merchants are: %w", err)
		}
		fmt.Fprintf(log, "citus: merchants by worker %v\n", cr.MerchantsOn)
	}

	for r := 0; r < cfg.runs && ctx.Err() == nil; r++ {
		fmt.Fprintf(log, "run %d of %d\n", r+1, cfg.runs)
		// The side that goes first changes from run to run.
		order := targets
		if r%2 == 1 {
			order = []*dbTarget{clus, single}
		}
		for _, p := range citusPhases {
			if !slices.Contains(cfg.phases, p) {
				continue
			}
			for _, c := range cfg.clients {
				for _, t := range order {
					if ctx.Err() != nil {
						break
					}
					t.record(ctx, log, t.phase(ctx, cfg, p, c))
				}
			}
		}
	}
	var errs []error
	for _, t := range targets {
		t.finish(ctx)
		if t.res.Error != "" {
			errs = append(errs, fmt.Errorf("%s: %s", t.name, t.res.Error))
		}
		rep.Databases = append(rep.Databases, t.res)
	}
	cr.Overheads = overheads(single.res.Phases, clus.res.Phases)
	if mr := clus.runsOf(merchantsPhase); len(mr) > 0 {
		ports := map[string]int{}
		for i, w := range cluster.Workers {
			ports[clus.names[i+1]] = w.Port
		}
		sp := spreadOver(merchantsPhase, mr, ports, cr.MerchantsOn)
		cr.Spread = &sp
	}
	rep.Finished = time.Now().UTC().Format(time.RFC3339)
	return rep, errors.Join(errs...)
}

// setup starts payd on the target's database, lifts the demo shop's
// limits, makes the refund phase's paid payments and the merchants of the
// many-merchant phase.
func (t *dbTarget) setup(ctx context.Context, cfg *config, bin, tmp string, log io.Writer) error {
	t.res = DatabaseResult{Database: t.name}
	t.runs = map[string][]Stats{}
	for _, n := range t.nodes {
		db, err := sql.Open("pgx", n.URL("postgres"))
		if err != nil {
			return err
		}
		db.SetMaxOpenConns(1)
		t.mons = append(t.mons, db)
	}
	// On the cluster the extension is made on the coordinator, which
	// passes it on to the workers (and refuses it made on a worker
	// directly); a worker it did not reach makes it itself.
	for i, db := range t.mons {
		var n int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM pg_extension WHERE extname = 'pg_stat_statements'`).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			continue
		}
		if _, err := db.ExecContext(ctx, `CREATE EXTENSION pg_stat_statements`); err != nil {
			return fmt.Errorf("create pg_stat_statements on %s: %w", t.names[i], err)
		}
	}
	var v string
	if err := t.mons[0].QueryRowContext(ctx, `SHOW server_version`).Scan(&v); err == nil {
		t.res.Version = "PostgreSQL " + v
	}
	dir := filepath.Join(tmp, "payd-"+t.name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	fmt.Fprintf(log, "%s: starting payd ...\n", t.name)
	// Distributing the tables over a cluster's workers at the first
	// migration takes longer than a server's start.
	timeout := max(cfg.startTimeout, 5*time.Minute)
	srv, err := startServer(ctx, bin, dir, t.url, filepath.Join(tmp, "payd-"+t.name+".log"), timeout)
	if err != nil {
		return err
	}
	t.srv = srv
	dev, err := readDev(srv.dataDir)
	if err != nil {
		return err
	}
	shop := dev.Shops[0]
	for _, s := range dev.Shops {
		if s.Region == "ru" {
			shop = s
		}
	}
	if err := raiseLimits(ctx, srv.admin, dev.AdminToken, shop.ShopID); err != nil {
		return err
	}
	maxClients := slices.Max(cfg.clients)
	run := randomHex(6)
	t.a = &api{client: loopbackClient(maxClients, 30*time.Second), base: srv.api, shopID: shop.ShopID, secret: shop.SecretKey, run: run}
	if slices.Contains(cfg.phases, "refund") {
		fmt.Fprintf(log, "%s: preparing 1000 paid payments for the refund phase ...\n", t.name)
		if err := t.a.preparePaid(ctx, 1000, maxClients); err != nil {
			return fmt.Errorf("preparing paid payments: %w", err)
		}
	}
	if slices.Contains(cfg.phases, merchantsPhase) {
		fmt.Fprintf(log, "%s: making %d merchants ...\n", t.name, cfg.citusMerchants)
		made, err := makeMerchants(ctx, t.a.client, srv.admin, dev.AdminToken, cfg.citusMerchants, min(8, maxClients))
		if err != nil {
			return fmt.Errorf("making merchants: %w", err)
		}
		for i, m := range made {
			t.merchants = append(t.merchants, &api{client: t.a.client, base: srv.api, shopID: m.shopID, secret: m.secret,
				run: fmt.Sprintf("%s-m%d", run, i), merchantID: m.merchantID})
		}
	}
	return nil
}

// worker is the load of phase p.
func (t *dbTarget) worker(p string) func(int) op {
	switch p {
	case "create":
		return t.a.createWorker
	case "get":
		return t.a.getWorker
	case "list":
		return t.a.listWorker
	case "balance":
		return t.a.balanceWorker
	case "refund":
		return t.a.refundWorker
	}
	// merchants: operation n is merchant n's turn, so that every merchant
	// creates as many payments as the others.
	return func(w int) op {
		ops := make([]op, len(t.merchants))
		for i, m := range t.merchants {
			ops[i] = m.createWorker(w)
		}
		return func(ctx context.Context, n int64) error {
			if len(ops) == 0 {
				return errors.New("no merchants")
			}
			return ops[int(n%int64(len(ops)))](ctx, n)
		}
	}
}

// phase runs phase p at clients clients and measures it.
func (t *dbTarget) phase(ctx context.Context, cfg *config, p string, clients int) Stats {
	waited, err := t.srv.settle(ctx, t.a.client, settleLimit)
	t.settled += waited
	if err != nil && ctx.Err() == nil {
		t.res.Notes = append(t.res.Notes, fmt.Sprintf("before %s c=%d: %v", p, clients, err))
	}
	if err := t.resetStatements(ctx); err != nil && ctx.Err() == nil {
		t.res.Notes = append(t.res.Notes, fmt.Sprintf("before %s c=%d: %v", p, clients, err))
	}
	pid := t.srv.pid()
	before, treesBefore := takeCPU(pid, nil), t.trees()
	s := runPhase(ctx, p, clients, cfg.duration, cfg.maxOps, t.worker(p))
	after, treesAfter := takeCPU(pid, nil), t.trees()
	s.CPU = cpuBetween(before, after, s.Ops)
	counts, err := t.statements(ctx)
	if err != nil && ctx.Err() == nil {
		t.res.Notes = append(t.res.Notes, fmt.Sprintf("after %s c=%d: %v", p, clients, err))
	}
	var db float64
	for i, name := range t.names {
		var ticks uint64
		if treesAfter[i] >= treesBefore[i] {
			ticks = treesAfter[i] - treesBefore[i]
		}
		var st stmtCount
		if i < len(counts) {
			st = counts[i]
		}
		u := nodeUse(name, ticks, st, s.Ops)
		s.Nodes = append(s.Nodes, u)
		db += u.CPUMsPerOp
	}
	// cpuBetween put the servers' CPU into other, not knowing them.
	s.CPU.DatabaseMsPerOp = db
	s.CPU.OtherMsPerOp = max(0, s.CPU.OtherMsPerOp-db)
	s.ServerPeakRSSMiB, _, _ = peakRSS(pid)
	return s
}

func (t *dbTarget) record(ctx context.Context, log io.Writer, s Stats) {
	if ctx.Err() != nil {
		return // cut short by the end of the run: not a measurement
	}
	k := phaseKey(s.Phase, s.Clients)
	if _, ok := t.runs[k]; !ok {
		t.order = append(t.order, k)
	}
	t.runs[k] = append(t.runs[k], s)
	t.res.Runs = append(t.res.Runs, s)
	var nodes []string
	for _, n := range s.Nodes {
		nodes = append(nodes, fmt.Sprintf("%s %.2f ms %.1f st", n.Node, n.CPUMsPerOp, n.StatementsPerOp))
	}
	fmt.Fprintf(log, "%-8s %-9s c=%-3d %8.1f/s  p50 %7.2f ms  p99 %7.2f ms  errors %d  per op: %s\n",
		t.name, s.Phase, s.Clients, s.PerSecond, s.P50Ms, s.P99Ms, s.Errors, strings.Join(nodes, ", "))
}

// runsOf are the runs of phase p at every client count.
func (t *dbTarget) runsOf(p string) []Stats {
	var out []Stats
	for _, s := range t.res.Runs {
		if s.Phase == p {
			out = append(out, s)
		}
	}
	return out
}

// finish stops payd and summarizes the runs.
func (t *dbTarget) finish(ctx context.Context) {
	if t.srv == nil {
		return
	}
	t.res.Notes = append(t.res.Notes, fmt.Sprintf("waited %.1f s in all for the server's background jobs to finish before phases", t.settled.Seconds()))
	if hwm, rss, ok := peakRSS(t.srv.pid()); ok {
		t.res.ServerPeakRSSMiB, t.res.ServerRSSEndMiB = hwm, rss
	}
	t.res.CreatedPayments = len(t.a.ids)
	for _, m := range t.merchants {
		t.res.CreatedPayments += len(m.ids)
	}
	t.srv.stop()
	if !t.srv.stoppedCleanly() {
		t.res.Notes = append(t.res.Notes, "payd did not stop within its grace period and was killed")
	}
	for _, k := range t.order {
		t.res.Phases = append(t.res.Phases, summarize(t.runs[k]))
	}
	if ctx.Err() != nil && t.res.Error == "" {
		t.res.Error = "interrupted: " + ctx.Err().Error()
	}
}

// close stops payd, if finish has not, and closes the monitors. The
// database servers are stopped by runCitus.
func (t *dbTarget) close() {
	if t.a != nil {
		t.a.client.CloseIdleConnections()
	}
	if t.srv != nil {
		t.srv.stop()
	}
	for _, db := range t.mons {
		db.Close()
	}
}

// trees reads each node's CPU ticks: its postmaster's and every process
// below it, from one reading of /proc.
func (t *dbTarget) trees() []uint64 {
	procs := readProcs()
	out := make([]uint64, len(t.nodes))
	for i, n := range t.nodes {
		out[i] = treeTicks(procs, n.Pid())
	}
	return out
}

// readProcs reads every process's parent and CPU time.
func readProcs() map[int]procEntry {
	procs := map[int]procEntry{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // it ended meanwhile
		}
		if pid, pe, ok := parseProcEntry(string(b)); ok {
			procs[pid] = pe
		}
	}
	return procs
}

func (t *dbTarget) resetStatements(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for i, db := range t.mons {
		if _, err := db.ExecContext(ctx, `SELECT pg_stat_statements_reset()`); err != nil {
			return fmt.Errorf("reset pg_stat_statements on %s: %w", t.names[i], err)
		}
	}
	return nil
}

// statements reads each node's pg_stat_statements.
func (t *dbTarget) statements(ctx context.Context) ([]stmtCount, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var out []stmtCount
	for i, db := range t.mons {
		rows, err := db.QueryContext(ctx, `SELECT query, calls, rows FROM pg_stat_statements`)
		if err != nil {
			return out, fmt.Errorf("read pg_stat_statements on %s: %w", t.names[i], err)
		}
		var all []stmtRow
		for rows.Next() {
			var r stmtRow
			if err := rows.Scan(&r.query, &r.calls, &r.rows); err != nil {
				rows.Close()
				return out, err
			}
			all = append(all, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return out, err
		}
		out = append(out, countStatements(all))
	}
	return out, nil
}

func citusVersion(ctx context.Context, db *sql.DB) (string, error) {
	var v string
	err := db.QueryRowContext(ctx, `SELECT split_part(citus_version(), ' on ', 1)`).Scan(&v)
	return v, err
}

// merchantPlacement counts the merchants whose shard group is on each
// worker: each merchant's key, its shard of merchants, and the node that
// holds the shard's placement (the rest of the group is co-located
// with it).
func merchantPlacement(ctx context.Context, db *sql.DB, merchants []*api, workers []*pgserver.Server, names []string) (map[string]int, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var ids []string
	for _, m := range merchants {
		ids = append(ids, m.merchantID)
	}
	var keys []int32
	rows, err := db.QueryContext(ctx, `SELECT merchant_key FROM merchants WHERE id = ANY($1)`, ids)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var k int32
		if err := rows.Scan(&k); err != nil {
			rows.Close()
			return nil, err
		}
		keys = append(keys, k)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(keys) != len(ids) {
		return nil, fmt.Errorf("found %d of %d merchants", len(keys), len(ids))
	}
	rows, err = db.QueryContext(ctx, `SELECT n.nodeport, count(*)
		FROM unnest($1::int[]) AS m(key)
		JOIN pg_dist_placement pl ON pl.shardid = get_shard_id_for_distribution_column('merchants', m.key)
		JOIN pg_dist_node n ON n.groupid = pl.groupid
		GROUP BY n.nodeport`, keys)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int{}
	for _, n := range names {
		out[n] = 0
	}
	for rows.Next() {
		var port, n int
		if err := rows.Scan(&port, &n); err != nil {
			return nil, err
		}
		i := slices.IndexFunc(workers, func(w *pgserver.Server) bool { return w.Port == port })
		if i < 0 {
			return nil, fmt.Errorf("merchants placed on port %d, which is no worker", port)
		}
		out[names[i]] += n
	}
	return out, rows.Err()
}

// makeMerchants makes n merchants through the operator API, each with a
// shop in ru, a test key and the benchmark's rate limits.
func makeMerchants(ctx context.Context, client *http.Client, adminURL, token string, n, conc int) ([]madeMerchant, error) {
	out := make([]madeMerchant, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for w := 0; w < conc; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n || ctx.Err() != nil {
					return
				}
				m, err := makeMerchant(ctx, client, adminURL, token, i)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				stop := firstErr != nil
				mu.Unlock()
				if stop {
					return
				}
				out[i] = m
			}
		}()
	}
	wg.Wait()
	if firstErr == nil {
		firstErr = ctx.Err()
	}
	return out, firstErr
}
