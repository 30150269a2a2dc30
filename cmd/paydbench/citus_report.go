package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// CitusResult is what --citus adds to the report: the cluster, and the
// comparisons with the single server.
type CitusResult struct {
	CitusVersion string `json:"citus_version"`
	Workers      int    `json:"workers"`
	ShardCount   int    `json:"shard_count"`
	// Merchants are the merchants of the many-merchant phase, and
	// MerchantsOn how many of them have their shard group on each worker.
	Merchants   int            `json:"merchants"`
	MerchantsOn map[string]int `json:"merchants_on_worker,omitempty"`
	// The settings given to the single server and to every node of the
	// cluster, beside the throwaway servers' own (internal/pgserver).
	SingleSettings  []string   `json:"single_settings"`
	ClusterSettings []string   `json:"cluster_settings"`
	Overheads       []Overhead `json:"overheads"`
	Spread          *Spread    `json:"spread,omitempty"`
}

// citusLabels name the phases of --citus.
var citusLabels = map[string]string{
	"create":       "POST /v1/payments, one shop",
	"get":          "GET /v1/payments/{id}",
	"list":         "GET /v1/payments?limit=100",
	"balance":      "GET /v1/balance",
	"refund":       "POST /v1/refunds, 1.00 of a paid payment",
	merchantsPhase: "POST /v1/payments, the merchants in turn",
}

// writeCitusTable prints the --citus report: each side's phases with the
// CPU and statements of every node, the ratios, and the workers' shares.
func writeCitusTable(w io.Writer, rep *Report) {
	fmt.Fprintf(w, "\npaydbench --citus: payd on a Citus cluster beside payd on a single PostgreSQL\n\n")
	writeHeader(w, rep)
	c := rep.Citus
	if c == nil {
		return
	}
	fmt.Fprintf(w, "cluster:   %s, a coordinator and %d workers, %d shards a distributed table; %d merchants in the merchants phase\n",
		orNA(c.CitusVersion), c.Workers, c.ShardCount, c.Merchants)
	fmt.Fprintf(w, "servers:   both throwaway, on loopback (fsync=off, full_page_writes=off, shared_buffers=32MB, max_connections=250);\n"+
		"           single: %s\n           every node of the cluster: %s\n",
		strings.Join(c.SingleSettings, " "), strings.Join(c.ClusterSettings, " "))

	for _, d := range rep.Databases {
		fmt.Fprintf(w, "\n== %s\n", d.Database)
		if d.Error != "" {
			fmt.Fprintf(w, "error: %s\n", d.Error)
		}
		if len(d.Phases) == 0 {
			writeExportAndNotes(w, d)
			continue
		}
		var nodes []string
		for _, n := range d.Phases[0].Nodes {
			nodes = append(nodes, n.Node)
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		head := "phase\tclients\tops/s\t(min..max)\tp50 ms\tp99 ms\terrors\tCPU ms/op: payd\tdb"
		for _, n := range nodes {
			head += "\t" + n
		}
		head += "\tstatements/op:"
		for _, n := range nodes {
			head += "\t" + n
		}
		fmt.Fprintln(tw, head+"\tbusy%\t")
		for _, p := range d.Phases {
			line := fmt.Sprintf("%s\t%d\t%.0f\t(%.0f..%.0f)\t%.2f\t%.2f\t%d\t%.2f\t%.2f",
				p.Phase, p.Clients, p.PerSecond, p.PerSecondMin, p.PerSecondMax, p.P50Ms, p.P99Ms, p.Errors, p.ServerCPUMs, p.DBCPUMs)
			for _, n := range p.Nodes {
				line += fmt.Sprintf("\t%.2f", n.CPUMsPerOp)
			}
			line += "\t"
			for _, n := range p.Nodes {
				line += fmt.Sprintf("\t%.1f", n.StatementsPerOp)
			}
			fmt.Fprintf(tw, "%s\t%.0f\t\n", line, p.BusyPct)
		}
		tw.Flush()
		for _, p := range d.Phases {
			for _, e := range p.ErrorSamples {
				fmt.Fprintf(w, "  %s c=%d error: %s\n", p.Phase, p.Clients, e)
			}
		}
		fmt.Fprintf(w, "payd peak RSS (VmHWM): %.1f MiB; %d payments created\n", d.ServerPeakRSSMiB, d.CreatedPayments)
		writeExportAndNotes(w, d)
	}

	if len(c.Overheads) > 0 {
		fmt.Fprintf(w, "\n== cluster / single (medians over runs)\n")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "phase\tclients\tops/s single\tcitus\tratio\tp50 ratio\tp99 ratio\t"+
			"db CPU ms/op single\tcoordinator\tworkers\tratio\tpayd CPU single\tcitus\t"+
			"statements/op single\tcoordinator\tworkers\tratio\t")
		for _, o := range c.Overheads {
			fmt.Fprintf(tw, "%s\t%d\t%.0f\t%.0f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.1f\t%.1f\t%.1f\t%.2f\t\n",
				o.Phase, o.Clients, o.SinglePerSecond, o.ClusterPerSecond, o.ThroughputRatio, o.P50Ratio, o.P99Ratio,
				o.SingleDBCPUMs, o.CoordinatorCPUMs, o.WorkersCPUMs, o.DBCPURatio, o.SingleServerCPUMs, o.ClusterServerCPUMs,
				o.SingleStatements, o.CoordinatorStatements, o.WorkerStatements, o.StatementsRatio)
		}
		tw.Flush()
	}

	if sp := c.Spread; sp != nil {
		fmt.Fprintf(w, "\n== the %s phase over the workers (%d merchants, %d payments, all runs)\n", sp.Phase, sp.Merchants, sp.Ops)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "worker\tport\tmerchants\tshare\tshard statements\tshare\tper own payment\tshard rows\tshare\tCPU s\tshare\tproportional\t")
		for _, ws := range sp.Workers {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f%%\t%d\t%.1f%%\t%.2f\t%d\t%.1f%%\t%.1f\t%.1f%%\t%s\t\n",
				ws.Node, ws.Port, ws.Merchants, 100*ws.MerchantShare, ws.Statements, 100*ws.StatementShare, ws.StatementsPerOp,
				ws.Rows, 100*ws.RowShare, ws.CPUMs/1000, 100*ws.CPUShare, yesNo(ws.Proportional))
		}
		tw.Flush()
		fmt.Fprintf(w, "largest gap between a worker's share of the statements and of the merchants: %.1f points (proportional: within %.0f)\n",
			sp.MaxDeviationPoints, proportionalPoints)
	}

	fmt.Fprintf(w, "\nphases:")
	for _, p := range citusPhases {
		fmt.Fprintf(w, " %s = %s;", p, citusLabels[p])
	}
	fmt.Fprintf(w, "\nCPU ms/op: payd = the payd process; db = every process of the database server(s), each node's postmaster\n"+
		"and all below it (backends, Citus's and PostgreSQL's background processes), per node after it.\n"+
		"statements/op: pg_stat_statements calls per operation, reset before each phase: payd's statements on the single\n"+
		"server or the coordinator (background jobs included), the coordinator's on each worker; shard statements name a\n"+
		"shard of a distributed or reference table.\n\n")
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
