package main

import (
	"math"
	"testing"
)

// A process's entry holds its parent and its CPU with that of the
// children it waited for, whatever its name holds.
func TestParseProcEntry(t *testing.T) {
	// pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt
	// majflt cmajflt utime stime cutime cstime ...
	stat := "4321 (postgres: x) (y)) S 4000 4000 4000 0 -1 4194560 100 0 0 0 250 50 30 20 20 0 1 0 100 0 0"
	pid, e, ok := parseProcEntry(stat)
	if !ok || pid != 4321 || e.ppid != 4000 || e.ticks != 350 {
		t.Fatalf("entry: %v %+v %v", pid, e, ok)
	}
	for _, bad := range []string{"", "x (a) S 1", "12 (a) S 1 2 3", "12 a S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16"} {
		if _, _, ok := parseProcEntry(bad); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}

// A server's CPU is its postmaster's and every process below it, and no
// other process's.
func TestTreeTicks(t *testing.T) {
	procs := map[int]procEntry{
		1:   {ppid: 0, ticks: 1000}, // init
		100: {ppid: 1, ticks: 10},   // a postmaster
		101: {ppid: 100, ticks: 5},  // its backend
		102: {ppid: 100, ticks: 7},
		103: {ppid: 101, ticks: 1}, // below a backend
		200: {ppid: 1, ticks: 40},  // another postmaster
		201: {ppid: 200, ticks: 9},
	}
	if got := treeTicks(procs, 100); got != 23 {
		t.Errorf("tree of 100 = %d, want 23", got)
	}
	if got := treeTicks(procs, 200); got != 49 {
		t.Errorf("tree of 200 = %d, want 49", got)
	}
	if got := treeTicks(procs, 999); got != 0 {
		t.Errorf("tree of a process gone = %d", got)
	}
}

// Statements on shards are told apart from the others, and the
// benchmark's own look at pg_stat_statements is left out.
func TestCountStatements(t *testing.T) {
	rows := []stmtRow{
		{query: "INSERT INTO public.payments_102008 AS citus_table_alias (id, merchant_key) VALUES ($1, $2)", calls: 100, rows: 100},
		{query: "SELECT id FROM public.events_102140 events WHERE (merchant_key = $1)", calls: 50, rows: 120},
		{query: "BEGIN", calls: 300},
		{query: "SELECT assign_distributed_transaction_id($1, $2, $3)", calls: 150, rows: 150},
		{query: "SELECT pg_stat_statements_reset()", calls: 1, rows: 1},
		{query: "SELECT count(*) FROM river_job WHERE state = $1", calls: 4, rows: 4},
		// A number that is no shard id.
		{query: "SELECT 1 FROM payments WHERE created_at > 1700000", calls: 2, rows: 0},
	}
	got := countStatements(rows)
	want := stmtCount{Calls: 606, Rows: 374, ShardCalls: 150, ShardRows: 220}
	if got != want {
		t.Fatalf("counts = %+v, want %+v", got, want)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// The ratios are cluster over single, from each side's nodes.
func TestOverheads(t *testing.T) {
	single := []Summary{
		{Phase: "create", Clients: 16, PerSecond: 1000, P50Ms: 10, P99Ms: 40, ServerCPUMs: 0.7,
			Nodes: []NodeUse{{Node: "postgres", CPUMsPerOp: 0.8, StatementsPerOp: 10}}},
		{Phase: "get", Clients: 16, PerSecond: 4000, P50Ms: 4, P99Ms: 16},
	}
	cluster := []Summary{
		{Phase: "create", Clients: 16, PerSecond: 500, P50Ms: 25, P99Ms: 60, ServerCPUMs: 0.75, Nodes: []NodeUse{
			{Node: "coordinator", CPUMsPerOp: 1.0, StatementsPerOp: 11},
			{Node: "worker1", CPUMsPerOp: 0.6, StatementsPerOp: 20},
			{Node: "worker2", CPUMsPerOp: 0.2, StatementsPerOp: 4},
		}},
		{Phase: "list", Clients: 16, PerSecond: 50},
	}
	got := overheads(single, cluster)
	if len(got) != 1 {
		t.Fatalf("paired %d phases, want create alone: %+v", len(got), got)
	}
	o := got[0]
	for name, c := range map[string][2]float64{
		"throughput":   {o.ThroughputRatio, 0.5},
		"p50":          {o.P50Ratio, 2.5},
		"p99":          {o.P99Ratio, 1.5},
		"coordinator":  {o.CoordinatorCPUMs, 1.0},
		"workers":      {o.WorkersCPUMs, 0.8},
		"cluster cpu":  {o.ClusterDBCPUMs, 1.8},
		"cpu ratio":    {o.DBCPURatio, 2.25},
		"statements":   {o.StatementsRatio, 3.5},
		"worker stmts": {o.WorkerStatements, 24},
	} {
		if !near(c[0], c[1]) {
			t.Errorf("%s = %v, want %v", name, c[0], c[1])
		}
	}
	if r := ratio(1, 0); r != 0 {
		t.Errorf("ratio over nothing = %v", r)
	}
}

// The workers' shares are summed over runs and set beside the merchants
// each holds; a worker far from its merchants' share is not proportional.
func TestSpreadOver(t *testing.T) {
	runs := []Stats{
		{Phase: "merchants", Ops: 1000, Nodes: []NodeUse{
			{Node: "coordinator", Statements: 9000, CPUMs: 500},
			{Node: "worker1", ShardStatements: 2600, ShardRows: 2600, CPUMs: 260},
			{Node: "worker2", ShardStatements: 2400, ShardRows: 2400, CPUMs: 240},
		}},
		{Phase: "merchants", Ops: 1000, Nodes: []NodeUse{
			{Node: "worker1", ShardStatements: 2600, ShardRows: 2600, CPUMs: 260},
			{Node: "worker2", ShardStatements: 2400, ShardRows: 2400, CPUMs: 240},
		}},
	}
	ports := map[string]int{"worker1": 5001, "worker2": 5002}
	sp := spreadOver("merchants", runs, ports, map[string]int{"worker1": 104, "worker2": 96})
	if sp.Ops != 2000 || sp.Merchants != 200 || len(sp.Workers) != 2 {
		t.Fatalf("spread: %+v", sp)
	}
	w1 := sp.Workers[0]
	if w1.Node != "worker1" || w1.Port != 5001 || w1.Statements != 5200 || !near(w1.StatementShare, 0.52) ||
		!near(w1.MerchantShare, 0.52) || !near(w1.CPUShare, 0.52) || !near(w1.StatementsPerOp, 5) || !w1.Proportional {
		t.Errorf("worker1: %+v", w1)
	}
	if !sp.Proportional || sp.MaxDeviationPoints > 1e-9 {
		t.Errorf("proportional %v, deviation %v", sp.Proportional, sp.MaxDeviationPoints)
	}
	// The same statements with the merchants 70/30: not proportional.
	sp = spreadOver("merchants", runs, ports, map[string]int{"worker1": 140, "worker2": 60})
	if sp.Proportional || !near(sp.MaxDeviationPoints, 18) {
		t.Errorf("70/30: proportional %v, deviation %v", sp.Proportional, sp.MaxDeviationPoints)
	}
	// A worker that ran nothing still shows, with its merchants.
	sp = spreadOver("merchants", nil, ports, map[string]int{"worker1": 1, "worker2": 0})
	if len(sp.Workers) != 2 || sp.Proportional {
		t.Errorf("no runs: %+v", sp)
	}
}

// Each node's medians over runs, and its totals summed.
func TestSummarizeNodes(t *testing.T) {
	runs := []Stats{
		{Nodes: []NodeUse{{Node: "coordinator", CPUMsPerOp: 1, StatementsPerOp: 10, Statements: 100}, {Node: "worker1", CPUMsPerOp: 0.5}}},
		{Nodes: []NodeUse{{Node: "coordinator", CPUMsPerOp: 3, StatementsPerOp: 12, Statements: 120}, {Node: "worker1", CPUMsPerOp: 0.7}}},
		{Nodes: []NodeUse{{Node: "coordinator", CPUMsPerOp: 2, StatementsPerOp: 11, Statements: 110}, {Node: "worker1", CPUMsPerOp: 0.6}}},
	}
	got := summarizeNodes(runs)
	if len(got) != 2 || got[0].Node != "coordinator" || got[0].CPUMsPerOp != 2 || got[0].StatementsPerOp != 11 ||
		got[0].Statements != 330 || !near(got[1].CPUMsPerOp, 0.6) {
		t.Fatalf("nodes: %+v", got)
	}
	if u := nodeUse("worker1", 250, stmtCount{Calls: 40, Rows: 20, ShardCalls: 30, ShardRows: 10}, 10); u.CPUMs != 2500 ||
		u.CPUMsPerOp != 250 || u.StatementsPerOp != 4 || u.ShardStatementsPerOp != 3 || u.RowsPerOp != 2 {
		t.Fatalf("node use: %+v", u)
	}
}
