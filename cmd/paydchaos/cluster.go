//go:build linux

package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"
)

// The cluster run (--cluster, `make cluster-faults`): two instances on a
// Citus cluster of a coordinator and two workers serve many merchants,
// each with a shop of its own, under the chaos load with payouts added.
// While they serve, a third worker joins and shard groups move onto it
// one by one with Citus's rebalancer plan and citus_move_shard_placement
// (logical replication), then the busiest merchant's group moves on its
// own; then one worker's PostgreSQL is killed (SIGKILL, every process of
// it) and started again after a while. The run checks what the chaos run
// checks (every acknowledged operation exactly once, replays identical,
// no 500, no hang, the ledger check, every event delivered), and:
//
//   - during each move, the merchants whose group moves wait at most for
//     the final switch (measured: the longest a write of theirs waited for
//     its acknowledgement, median and maximum over the moves), and every
//     other merchant's request succeeds;
//   - while a worker is down, the merchants on the other workers get no
//     error at all, the dead worker's get 503 with Retry-After, /readyz
//     stays ready, and the other merchants' webhooks keep arriving (the
//     sweeps read around the dead worker); when the worker is back, its
//     merchants go on without a restart of payd.

type clusterConfig struct {
	shards      int
	workerKills int
	workerDown  time.Duration
}

func (cc *clusterConfig) flags() {
	flag.IntVar(&cc.shards, "shards", 8, "with --cluster: shards per distributed table")
	flag.IntVar(&cc.workerKills, "worker-kills", 1, "with --cluster: how many times a worker is killed")
	flag.DurationVar(&cc.workerDown, "worker-down", 15*time.Second, "with --cluster: how long a killed worker stays down")
}

// clusterLog is what the cluster run did.
type clusterLog struct {
	moves []move
	kills []workerKill
}

// move is one shard group moved: when, and whose shops moved with it.
type move struct {
	table      string // the plan's table: the group is every table co-located with it
	shard      int64
	from, to   int
	start, end time.Time
	shops      map[*shop]bool
	own        bool // the busiest merchant's group, moved on its own
}

// workerKill is one worker killed: when it died and came back, the shops
// whose rows it held, and whether /readyz stayed ready meanwhile.
type workerKill struct {
	port        int
	down, back  time.Time
	shops       map[*shop]bool
	readyDown   int // checks of /readyz that failed while it was down
	readyChecks int
}

func (l *clusterLog) String() string {
	return fmt.Sprintf("%d shard group moves, %d worker kills", len(l.moves), len(l.kills))
}

// clusterFaults moves shard groups onto a new worker, then kills workers,
// all under the load.
func (cl *cluster) clusterFaults(ctx context.Context, cfg config, rnd *rand.Rand, shops []*shop, book *ledgerBook) faultLog {
	log := &clusterLog{}
	out := faultLog{cluster: log}
	db, err := sql.Open("pgx", cl.citus.URL())
	if err != nil {
		book.problem("open the coordinator: %v", err)
		return out
	}
	defer db.Close()
	pause := func(d time.Duration) bool {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(d):
			return true
		}
	}
	if !pause(8 * time.Second) {
		return out
	}
	if _, err := cl.citus.AddWorker(ctx, cl.dir, "worker3"); err != nil {
		book.problem("add a worker: %v", err)
		return out
	}
	// The rebalancer's plan, move by move, so that each is measured.
	type step struct {
		table    string
		shard    int64
		from, to int
	}
	var plan []step
	rows, err := db.QueryContext(ctx, `SELECT table_name::text, shardid, sourceport, targetport FROM get_rebalance_table_shards_plan()`)
	if err != nil {
		book.problem("rebalance plan: %v", err)
		return out
	}
	for rows.Next() {
		var s step
		if err := rows.Scan(&s.table, &s.shard, &s.from, &s.to); err != nil {
			book.problem("rebalance plan: %v", err)
		}
		plan = append(plan, s)
	}
	rows.Close()
	doMove := func(s step, own bool) {
		// The plan names every table's shard; the first of a group moves
		// the group, and the rest are there already.
		var at int
		if err := db.QueryRowContext(ctx, `SELECT nodeport FROM citus_shards WHERE shardid = $1`, s.shard).Scan(&at); err != nil {
			book.problem("where shard %d is: %v", s.shard, err)
			return
		}
		if at != s.from {
			return
		}
		before, err := placements(ctx, db, shops)
		if err != nil {
			book.problem("placements: %v", err)
			return
		}
		m := move{table: s.table, shard: s.shard, from: s.from, to: s.to, start: time.Now(), own: own, shops: map[*shop]bool{}}
		_, err = db.ExecContext(ctx, `SELECT citus_move_shard_placement($1, '127.0.0.1', $2, '127.0.0.1', $3, shard_transfer_mode := 'force_logical')`,
			s.shard, s.from, s.to)
		m.end = time.Now()
		if err != nil {
			book.problem("move shard %d from %d to %d: %v", s.shard, s.from, s.to, err)
			return
		}
		after, err := placements(ctx, db, shops)
		if err != nil {
			book.problem("placements: %v", err)
			return
		}
		for sh, port := range after {
			if before[sh] != port {
				m.shops[sh] = true
			}
		}
		log.moves = append(log.moves, m)
		fmt.Printf("paydcluster: moved shard %d (%s and its group) from :%d to :%d in %v with %d merchants\n", s.shard, s.table, s.from, s.to,
			m.end.Sub(m.start).Round(time.Millisecond), len(m.shops))
	}
	for _, s := range plan {
		doMove(s, false)
		if !pause(3 * time.Second) {
			return out
		}
	}
	// The busiest merchant (the first shop's: its client waits least, see
	// setupMerchants) moves on its own to the worker with fewest shards.
	busy := shops[0]
	s := step{table: "merchants"}
	err = db.QueryRowContext(ctx, `SELECT c.shardid, c.nodeport,
			(SELECT n.nodeport FROM pg_dist_node n WHERE n.noderole = 'primary' AND n.groupid > 0 AND n.nodeport <> c.nodeport
			 ORDER BY (SELECT count(*) FROM citus_shards x WHERE x.nodeport = n.nodeport), n.nodeport LIMIT 1)
		FROM citus_shards c
		WHERE c.table_name = 'merchants'::regclass AND c.shardid = get_shard_id_for_distribution_column('merchants', $1::int)`,
		busy.mkey).Scan(&s.shard, &s.from, &s.to)
	if err != nil {
		book.problem("the busiest merchant's shard: %v", err)
		return out
	}
	doMove(s, true)
	if !pause(5 * time.Second) {
		return out
	}

	for k := range cfg.workerKills {
		where, err := placements(ctx, db, shops)
		if err != nil {
			book.problem("placements: %v", err)
			return out
		}
		w := cl.citus.Workers[(k+rnd.IntN(len(cl.citus.Workers)))%len(cl.citus.Workers)]
		kill := workerKill{port: w.Port, shops: map[*shop]bool{}}
		for sh, port := range where {
			if port == w.Port {
				kill.shops[sh] = true
			}
		}
		kill.down = time.Now()
		w.Kill()
		fmt.Printf("paydcluster: killed the worker on :%d (%d of %d merchants)\n", w.Port, len(kill.shops), len(shops))
		for end := time.Now().Add(cfg.workerDown); time.Now().Before(end); {
			kill.readyChecks++
			if !cl.allReadyz(http.StatusOK) {
				kill.readyDown++
			}
			if !pause(time.Second) {
				return out
			}
		}
		if err := w.Start(); err != nil {
			book.problem("restart the worker on :%d: %v", w.Port, err)
			return out
		}
		kill.back = time.Now()
		log.kills = append(log.kills, kill)
		if !pause(10 * time.Second) {
			return out
		}
	}
	return out
}

// placements maps each shop to the port of the worker that holds its
// merchant's shard group now.
func placements(ctx context.Context, db *sql.DB, shops []*shop) (map[*shop]int, error) {
	keys := make([]int32, len(shops))
	for i, sh := range shops {
		keys[i] = sh.mkey
	}
	rows, err := db.QueryContext(ctx, `SELECT k, s.nodeport FROM unnest($1::int[]) k
		JOIN citus_shards s ON s.table_name = 'merchants'::regclass AND s.shardid = get_shard_id_for_distribution_column('merchants', k)`, keys)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	port := map[int32]int{}
	for rows.Next() {
		var k int32
		var p int
		if err := rows.Scan(&k, &p); err != nil {
			return nil, err
		}
		port[k] = p
	}
	out := map[*shop]int{}
	for _, sh := range shops {
		out[sh] = port[sh.mkey]
	}
	return out, rows.Err()
}
