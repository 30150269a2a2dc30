package main

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The pure part of the --citus mode (citus_linux.go): the CPU of a
// server's process tree, the statements of pg_stat_statements split by
// node, and the comparisons the report prints.

// procEntry is one process of /proc: its parent, and its CPU time with
// that of its children it has waited for.
type procEntry struct {
	ppid  int
	ticks uint64
}

// parseProcEntry reads pid, parent pid and utime+stime+cutime+cstime from
// /proc/<pid>/stat. A PostgreSQL backend that exits during a phase takes
// its own times with it, but the postmaster waits for it, and the kernel
// adds them to the postmaster's cutime and cstime: counted this way, a
// server's tree loses nothing that ran in it.
func parseProcEntry(s string) (pid int, e procEntry, ok bool) {
	open := strings.IndexByte(s, '(')
	i := strings.LastIndexByte(s, ')')
	if open < 1 || i < open {
		return 0, e, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(s[:open]))
	if err != nil {
		return 0, e, false
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state), f[1] the parent; utime, stime, cutime and
	// cstime are fields 14 to 17.
	if len(f) < 15 {
		return 0, e, false
	}
	if e.ppid, err = strconv.Atoi(f[1]); err != nil {
		return 0, e, false
	}
	for _, v := range f[11:15] {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, e, false
		}
		if n > 0 {
			e.ticks += uint64(n)
		}
	}
	return pid, e, true
}

// treeTicks is the CPU time of root and every process below it.
func treeTicks(procs map[int]procEntry, root int) uint64 {
	if _, ok := procs[root]; !ok || root <= 0 {
		return 0
	}
	children := map[int][]int{}
	for pid, e := range procs {
		children[e.ppid] = append(children[e.ppid], pid)
	}
	var total uint64
	seen := map[int]bool{}
	stack := []int{root}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[p] {
			continue
		}
		seen[p] = true
		total += procs[p].ticks
		stack = append(stack, children[p]...)
	}
	return total
}

// stmtRow is one row of pg_stat_statements.
type stmtRow struct {
	query       string
	calls, rows int64
}

// shardName finds a shard of a distributed table in a statement: Citus
// names a shard after its table and its shard id (payments_102008), and
// shard ids start at 102008.
var shardName = regexp.MustCompile(`\b[a-z_][a-z0-9_]*_1[0-9]{5,}\b`)

// isShardStatement reports whether a statement names a shard, that is,
// runs on a worker for a distributed or reference table.
func isShardStatement(query string) bool { return shardName.MatchString(query) }

// stmtCount sums a node's statements over a phase.
type stmtCount struct {
	Calls, Rows, ShardCalls, ShardRows int64
}

// countStatements sums pg_stat_statements rows, leaving out the
// benchmark's own look at the view (its reset and its reads).
func countStatements(rows []stmtRow) stmtCount {
	var c stmtCount
	for _, r := range rows {
		if strings.Contains(r.query, "pg_stat_statements") {
			continue
		}
		c.Calls += r.calls
		c.Rows += r.rows
		if isShardStatement(r.query) {
			c.ShardCalls += r.calls
			c.ShardRows += r.rows
		}
	}
	return c
}

// NodeUse is one database node's share of a phase: its processes' CPU
// time and the statements it ran (pg_stat_statements calls, each a round
// trip from its client: payd for a single server or a coordinator, the
// coordinator for a worker), per operation; and the totals behind them.
type NodeUse struct {
	Node            string  `json:"node"`
	CPUMsPerOp      float64 `json:"cpu_ms_per_op"`
	StatementsPerOp float64 `json:"statements_per_op"`
	RowsPerOp       float64 `json:"rows_per_op"`
	// ShardStatementsPerOp are the statements naming a shard (workers
	// only).
	ShardStatementsPerOp float64 `json:"shard_statements_per_op,omitempty"`
	CPUMs                float64 `json:"cpu_ms"`
	Statements           int64   `json:"statements"`
	Rows                 int64   `json:"rows"`
	ShardStatements      int64   `json:"shard_statements,omitempty"`
	ShardRows            int64   `json:"shard_rows,omitempty"`
}

// nodeUse makes a node's figures from its CPU ticks and statements over
// ops operations.
func nodeUse(node string, ticks uint64, st stmtCount, ops int) NodeUse {
	u := NodeUse{Node: node, CPUMs: float64(ticks) * 1000 / clockTicks, Statements: st.Calls, Rows: st.Rows,
		ShardStatements: st.ShardCalls, ShardRows: st.ShardRows}
	if ops > 0 {
		u.CPUMsPerOp = u.CPUMs / float64(ops)
		u.StatementsPerOp = float64(st.Calls) / float64(ops)
		u.RowsPerOp = float64(st.Rows) / float64(ops)
		u.ShardStatementsPerOp = float64(st.ShardCalls) / float64(ops)
	}
	return u
}

// summarizeNodes gives each node's medians over runs of its per-operation
// figures, and the sums of its totals.
func summarizeNodes(runs []Stats) []NodeUse {
	var names []string
	per := map[string][]NodeUse{}
	for _, r := range runs {
		for _, n := range r.Nodes {
			if _, ok := per[n.Node]; !ok {
				names = append(names, n.Node)
			}
			per[n.Node] = append(per[n.Node], n)
		}
	}
	var out []NodeUse
	for _, name := range names {
		s := NodeUse{Node: name}
		var cpu, stmts, rows, shard []float64
		for _, n := range per[name] {
			cpu = append(cpu, n.CPUMsPerOp)
			stmts = append(stmts, n.StatementsPerOp)
			rows = append(rows, n.RowsPerOp)
			shard = append(shard, n.ShardStatementsPerOp)
			s.CPUMs += n.CPUMs
			s.Statements += n.Statements
			s.Rows += n.Rows
			s.ShardStatements += n.ShardStatements
			s.ShardRows += n.ShardRows
		}
		s.CPUMsPerOp, s.StatementsPerOp, s.RowsPerOp, s.ShardStatementsPerOp = median(cpu), median(stmts), median(rows), median(shard)
		out = append(out, s)
	}
	return out
}

// Overhead compares one phase on the cluster with the same phase on the
// single server, at the same client count: each ratio is cluster /
// single, of the medians over runs.
type Overhead struct {
	Phase   string `json:"phase"`
	Clients int    `json:"clients"`

	SinglePerSecond  float64 `json:"single_per_second"`
	ClusterPerSecond float64 `json:"cluster_per_second"`
	ThroughputRatio  float64 `json:"throughput_ratio"`
	SingleP50Ms      float64 `json:"single_p50_ms"`
	ClusterP50Ms     float64 `json:"cluster_p50_ms"`
	P50Ratio         float64 `json:"p50_ratio"`
	SingleP99Ms      float64 `json:"single_p99_ms"`
	ClusterP99Ms     float64 `json:"cluster_p99_ms"`
	P99Ratio         float64 `json:"p99_ratio"`

	// Database CPU per operation: every process of the server, or of
	// every node of the cluster.
	SingleDBCPUMs      float64 `json:"single_db_cpu_ms_per_op"`
	CoordinatorCPUMs   float64 `json:"coordinator_cpu_ms_per_op"`
	WorkersCPUMs       float64 `json:"workers_cpu_ms_per_op"`
	ClusterDBCPUMs     float64 `json:"cluster_db_cpu_ms_per_op"`
	DBCPURatio         float64 `json:"db_cpu_ratio"`
	SingleServerCPUMs  float64 `json:"single_payd_cpu_ms_per_op"`
	ClusterServerCPUMs float64 `json:"cluster_payd_cpu_ms_per_op"`

	// Statements per operation: what payd sends (the single server's, the
	// coordinator's), and what the coordinator sends on to the workers.
	SingleStatements      float64 `json:"single_statements_per_op"`
	CoordinatorStatements float64 `json:"coordinator_statements_per_op"`
	WorkerStatements      float64 `json:"worker_statements_per_op"`
	StatementsRatio       float64 `json:"statements_ratio"`
}

// overheads pairs the phases of the single server and of the cluster by
// phase and client count. The cluster's node named "coordinator" is the
// coordinator; every other is a worker.
func overheads(single, cluster []Summary) []Overhead {
	var out []Overhead
	for _, c := range cluster {
		i := slices.IndexFunc(single, func(s Summary) bool { return s.Phase == c.Phase && s.Clients == c.Clients })
		if i < 0 {
			continue
		}
		s := single[i]
		o := Overhead{Phase: c.Phase, Clients: c.Clients,
			SinglePerSecond: s.PerSecond, ClusterPerSecond: c.PerSecond, ThroughputRatio: ratio(c.PerSecond, s.PerSecond),
			SingleP50Ms: s.P50Ms, ClusterP50Ms: c.P50Ms, P50Ratio: ratio(c.P50Ms, s.P50Ms),
			SingleP99Ms: s.P99Ms, ClusterP99Ms: c.P99Ms, P99Ratio: ratio(c.P99Ms, s.P99Ms),
			SingleServerCPUMs: s.ServerCPUMs, ClusterServerCPUMs: c.ServerCPUMs,
		}
		for _, n := range s.Nodes {
			o.SingleDBCPUMs += n.CPUMsPerOp
			o.SingleStatements += n.StatementsPerOp
		}
		for _, n := range c.Nodes {
			if n.Node == "coordinator" {
				o.CoordinatorCPUMs += n.CPUMsPerOp
				o.CoordinatorStatements += n.StatementsPerOp
			} else {
				o.WorkersCPUMs += n.CPUMsPerOp
				o.WorkerStatements += n.StatementsPerOp
			}
		}
		o.ClusterDBCPUMs = o.CoordinatorCPUMs + o.WorkersCPUMs
		o.DBCPURatio = ratio(o.ClusterDBCPUMs, o.SingleDBCPUMs)
		o.StatementsRatio = ratio(o.CoordinatorStatements+o.WorkerStatements, o.SingleStatements)
		out = append(out, o)
	}
	return out
}

// WorkerShare is one worker's part of the many-merchant phase: the
// statements and rows it ran on shards, their share of all workers', and
// the merchants whose shard group it holds.
type WorkerShare struct {
	Node           string  `json:"node"`
	Port           int     `json:"port"`
	Merchants      int     `json:"merchants"`
	MerchantShare  float64 `json:"merchant_share"`
	Statements     int64   `json:"shard_statements"`
	Rows           int64   `json:"shard_rows"`
	StatementShare float64 `json:"statement_share"`
	RowShare       float64 `json:"row_share"`
	CPUMs          float64 `json:"cpu_ms"`
	CPUShare       float64 `json:"cpu_share"`
	// StatementsPerOp are the worker's shard statements per payment of
	// the merchants it holds (each merchant makes as many).
	StatementsPerOp float64 `json:"shard_statements_per_own_payment"`
	// Proportional says whether the worker's share of the statements is
	// within proportionalPoints of its share of the merchants.
	Proportional bool `json:"proportional"`
}

// Spread is how the many-merchant phase divided over the workers, from
// the sums over its runs.
type Spread struct {
	Phase     string        `json:"phase"`
	Merchants int           `json:"merchants"`
	Ops       int           `json:"ops"`
	Workers   []WorkerShare `json:"workers"`
	// MaxDeviationPoints is the largest difference, in percentage
	// points, between a worker's share of the statements and its share
	// of the merchants.
	MaxDeviationPoints float64 `json:"max_deviation_points"`
	Proportional       bool    `json:"proportional"`
}

// proportionalPoints is how far, in percentage points, a worker's share
// of the statements may be from its share of the merchants and still
// read as proportional. Every merchant creates the same number of
// payments (the load takes them in turn), so the shares differ only by
// what is not a merchant's: the service's own sweeps and claims.
const proportionalPoints = 5.0

// spreadOver sums the workers' shard statements, rows and CPU of the
// runs, and sets them beside the merchants each worker holds.
// merchantsOn maps a worker's node name to its merchants.
func spreadOver(phase string, runs []Stats, ports map[string]int, merchantsOn map[string]int) Spread {
	sp := Spread{Phase: phase}
	var names []string
	sums := map[string]*WorkerShare{}
	for _, r := range runs {
		sp.Ops += r.Ops
		for _, n := range r.Nodes {
			if n.Node == "coordinator" {
				continue
			}
			w, ok := sums[n.Node]
			if !ok {
				w = &WorkerShare{Node: n.Node, Port: ports[n.Node], Merchants: merchantsOn[n.Node]}
				sums[n.Node] = w
				names = append(names, n.Node)
			}
			w.Statements += n.ShardStatements
			w.Rows += n.ShardRows
			w.CPUMs += n.CPUMs
		}
	}
	for name := range merchantsOn {
		if _, ok := sums[name]; !ok {
			sums[name] = &WorkerShare{Node: name, Port: ports[name], Merchants: merchantsOn[name]}
			names = append(names, name)
		}
	}
	slices.Sort(names)
	var stmts, rows int64
	var cpu float64
	for _, name := range names {
		w := sums[name]
		sp.Merchants += w.Merchants
		stmts += w.Statements
		rows += w.Rows
		cpu += w.CPUMs
	}
	sp.Proportional = true
	for _, name := range names {
		w := sums[name]
		w.MerchantShare = ratio(float64(w.Merchants), float64(sp.Merchants))
		w.StatementShare = ratio(float64(w.Statements), float64(stmts))
		w.RowShare = ratio(float64(w.Rows), float64(rows))
		w.CPUShare = ratio(w.CPUMs, cpu)
		w.StatementsPerOp = ratio(float64(w.Statements), float64(sp.Ops)*w.MerchantShare)
		dev := 100 * math.Abs(w.StatementShare-w.MerchantShare)
		sp.MaxDeviationPoints = max(sp.MaxDeviationPoints, dev)
		w.Proportional = stmts > 0 && dev <= proportionalPoints
		sp.Proportional = sp.Proportional && w.Proportional
		sp.Workers = append(sp.Workers, *w)
	}
	return sp
}
