//go:build linux

package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/paydhq/payd/internal/jobs"
)

// sweeps run every payd.ExpirySweepInterval (5 s); hourly kinds once an
// hour. With RunOnStart, River's new leader runs each of them once when it
// takes over, so a change of leader (an instance killed, PostgreSQL
// restarted) may add a run.
var (
	sweepKinds  = []string{"expire_payments", "expire_disputes"}
	hourlyKinds = []string{"purge_events", "purge_idempotency", "settlement_run", "fold_ledger_totals"}
)

const sweepInterval = 5 * time.Second

// checkJobs reads the job table of the run's PostgreSQL: the periodic jobs
// ran about once per period across the three instances (not once per
// instance), and no job was lost: none discarded, none left behind.
func (cl *cluster) checkJobs(book *ledgerBook, faults faultLog, from, to time.Time) (string, error) {
	db, err := cl.db()
	if err != nil {
		return "", err
	}
	defer db.Close()
	var b strings.Builder
	// Leadership can change at each kill and each PostgreSQL restart.
	changes := faults.kills + faults.pgRestarts
	if faults.failover != nil {
		// and at each failover and switchover: the primary's river_leader
		// row is unlogged, so the new primary starts with none.
		changes += faults.failover.kills + faults.failover.switchovers
	}
	// River's times are the service clock's, which the cluster run moved
	// a day on before the load.
	from, to = from.Add(cl.clockLead), to.Add(cl.clockLead)
	for _, kind := range append(sweepKinds, hourlyKinds...) {
		since := from
		if !strings.HasPrefix(kind, "expire_") && cl.clockLead == 0 {
			// The hourly jobs ran first when the first leader was
			// elected, before the load began.
			since = time.Time{}
		}
		rows, err := db.Query(`SELECT created_at FROM river_job WHERE kind = $1 AND created_at >= $2 AND created_at < $3 ORDER BY created_at`, kind, since, to)
		if err != nil {
			return "", err
		}
		var times []time.Time
		for rows.Next() {
			var t time.Time
			if err := rows.Scan(&t); err != nil {
				rows.Close()
				return "", err
			}
			times = append(times, t)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return "", err
		}
		var close int
		var gap time.Duration
		prev := from
		for i, t := range times {
			d := t.Sub(prev)
			gap = max(gap, d)
			if i > 0 && d < sweepInterval/2 {
				close++
			}
			prev = t
		}
		gap = max(gap, to.Sub(prev))
		if isSweep := strings.HasPrefix(kind, "expire_"); isSweep {
			want := int(to.Sub(from) / sweepInterval)
			fmt.Fprintf(&b, "  %s: %d runs in %v (one per %v: %d), %d closer than half a period, longest gap %v\n",
				kind, len(times), to.Sub(from).Round(time.Second), sweepInterval, want, close, gap.Round(time.Millisecond))
			// Three instances each running the sweep would make three
			// times as many. While no instance leads (the leader was
			// killed and its leadership has not expired, or PostgreSQL is
			// down) none runs: gaps of 20 s happen, a minute would mean
			// the sweep stopped.
			if len(times) > want+want/4+changes {
				book.problem("%s ran %d times in %v; once per %v is %d", kind, len(times), to.Sub(from).Round(time.Second), sweepInterval, want)
			}
			if gap > time.Minute {
				book.problem("%s did not run for %v", kind, gap.Round(time.Second))
			}
			if close > changes {
				book.problem("%s ran twice within half a period %d times, more than the %d changes of leader", kind, close, changes)
			}
		} else if cl.clockLead > 0 {
			// A day's jump of the clock leaves River's hourly schedules
			// catching up for a while: their count says nothing here.
			fmt.Fprintf(&b, "  %s: %d runs during the load (hourly, catching up the clock's jump before it: not checked)\n", kind, len(times))
		} else {
			fmt.Fprintf(&b, "  %s: %d runs since the start (hourly; at most one per change of leader: %d)\n", kind, len(times), changes+1)
			if len(times) > changes+1 || len(times) == 0 {
				book.problem("%s ran %d times; hourly, with at most %d changes of leader", kind, len(times), changes)
			}
		}
	}
	// Nothing lost: after the settling, no job waits or runs any more,
	// and none was given up, except a sweep (tried once by design: the
	// next sweep takes up what it left).
	rows, err := db.Query(`SELECT kind, state::text, count(*) FROM river_job
		WHERE state::text IN ('available', 'running', 'retryable', 'discarded') GROUP BY 1, 2 ORDER BY 1, 2`)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	for rows.Next() {
		var kind, state string
		var n int
		if err := rows.Scan(&kind, &state, &n); err != nil {
			return "", err
		}
		// A periodic run may be waiting for its turn or running right
		// now; one given up after its attempts is taken over by the next
		// period's.
		if _, periodic := jobs.PeriodicKinds()[kind]; periodic {
			if state == "discarded" {
				fmt.Fprintf(&b, "  %s runs given up (the next period's takes over): %d\n", kind, n)
			}
			continue
		}
		fmt.Fprintf(&b, "  jobs %s %s: %d\n", kind, state, n)
		book.problem("%d %s jobs %s after the run", n, kind, state)
	}
	return b.String(), rows.Err()
}

// unfinishedJobs counts the jobs other than the periodic ones that still
// wait or run: those of a killed instance stay running until River rescues
// them.
func (cl *cluster) unfinishedJobs() (int, error) {
	db, err := cl.db()
	if err != nil {
		return 0, err
	}
	defer db.Close()
	var periodic []string // kinds are the code's constants, not input
	for kind := range jobs.PeriodicKinds() {
		periodic = append(periodic, "'"+kind+"'")
	}
	var n int
	err = db.QueryRow(`SELECT count(*) FROM river_job WHERE state::text IN ('available', 'running', 'retryable')
		AND kind NOT IN (` + strings.Join(periodic, ", ") + `)`).Scan(&n)
	return n, err
}
