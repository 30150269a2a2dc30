//go:build linux

package main

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// report checks what the cluster run promises beyond the chaos run's and
// returns its last line.
func (l *clusterLog) report(cl *cluster, shops []*shop, book *ledgerBook) string {
	delivered := make([]int, len(l.kills))
	for i, k := range l.kills {
		delivered[i] = cl.deliveredBetween(shops, book, k.shops, k.down, k.back)
	}
	book.mu.Lock()
	defer book.mu.Unlock()
	// The rate limiter's 503s (its Redis slow to answer on a busy
	// machine) are no fault of the cluster: counted apart.
	failed := func(a attempt) bool { return (a.status == 0 || a.status >= 500) && !a.limiter }
	limiter := 0
	for _, a := range book.attempts {
		if a.limiter {
			limiter++
		}
	}
	during := func(a attempt, from, to time.Time) bool { return a.answered.After(from) && a.sent.Before(to) }
	othersErrors := 0
	var waits []time.Duration
	for _, m := range l.moves {
		var most time.Duration
		refused := 0
		for _, a := range book.attempts {
			if !during(a, m.start, m.end) {
				continue
			}
			if !m.shops[a.shop] && failed(a) {
				othersErrors++
				book.problems = append(book.problems, fmt.Sprintf("during the move of shard %d a merchant not on it got %d", m.shard, a.status))
			}
			if m.shops[a.shop] && a.status == http.StatusServiceUnavailable {
				refused++
			}
		}
		for _, d := range book.done {
			if m.shops[d.shop] && d.acked.After(m.start) && d.first.Before(m.end) {
				most = max(most, d.acked.Sub(d.first))
			}
		}
		waits = append(waits, most)
		kind := ""
		if m.own {
			kind = " (the busiest merchant's, on its own)"
		}
		fmt.Printf("  move of shard %d (%s) :%d→:%d%s: %v, %d merchants moved, their longest write %v, %d refused with 503\n",
			m.shard, m.table, m.from, m.to, kind, m.end.Sub(m.start).Round(time.Millisecond), len(m.shops), most.Round(time.Millisecond), refused)
	}
	for i, k := range l.kills {
		var deadRefused, othersOK int
		others, deadOK := map[string]int{}, map[string]int{}
		for _, a := range book.attempts {
			if !during(a, k.down, k.back) {
				continue
			}
			// Wholly within the outage: sent after the kill, answered
			// before the worker was back.
			inside := a.sent.After(k.down) && a.answered.Before(k.back)
			switch {
			case k.shops[a.shop] && a.status == http.StatusServiceUnavailable && !a.limiter:
				deadRefused++
			case k.shops[a.shop] && a.status < 300 && a.status > 0 && inside:
				deadOK[a.route]++
			case !k.shops[a.shop] && failed(a):
				othersErrors++
				book.problems = append(book.problems, fmt.Sprintf("while the worker on :%d was down a merchant on another worker got %d", k.port, a.status))
			}
		}
		// The others' pace before the kill, over as long as the outage.
		before := 0
		for _, d := range book.done {
			switch {
			case k.shops[d.shop]:
			case d.acked.After(k.down) && d.acked.Before(k.back):
				others[d.op]++
				othersOK++
			case d.acked.After(k.down.Add(-k.back.Sub(k.down))) && d.acked.Before(k.down):
				before++
			}
		}
		fmt.Printf("  worker on :%d down %v: %d of %d merchants on it; the others' acknowledged operations %v (%d in as long before the kill), their errors 0 expected; "+
			"its merchants: %d refused with 503, answered 2xx after the kill and before the run saw the worker back %v; /readyz failed %d of %d checks; "+
			"the others' webhooks delivered meanwhile: %d\n",
			k.port, k.back.Sub(k.down).Round(time.Second), len(k.shops), len(shops), others, before, deadRefused, deadOK, k.readyDown, k.readyChecks, delivered[i])
		if k.readyDown > 0 {
			book.problems = append(book.problems, fmt.Sprintf("/readyz failed %d times while only the worker on :%d was down", k.readyDown, k.port))
		}
		if othersOK == 0 || delivered[i] == 0 {
			book.problems = append(book.problems, fmt.Sprintf("while the worker on :%d was down the others acknowledged %d operations and got %d webhooks: none proves they went on", k.port, othersOK, delivered[i]))
		}
		if len(k.shops) > 0 && deadRefused == 0 {
			book.problems = append(book.problems, fmt.Sprintf("the merchants on the dead worker :%d were never refused: the kill proved nothing", k.port))
		}
	}
	slices.Sort(waits)
	var median, most time.Duration
	if len(waits) > 0 {
		median, most = waits[len(waits)/2], waits[len(waits)-1]
	}
	fmt.Printf("  moving merchants' longest write per move: median %v, max %v\n", median.Round(time.Millisecond), most.Round(time.Millisecond))
	fmt.Printf("  503 of the rate limiter (its Redis slow to answer), not counted as the cluster's: %d\n", limiter)
	acked := 0
	for _, n := range book.ops {
		acked += n
	}
	return fmt.Sprintf("cluster: %d moves, %d worker kills, acknowledged %d, lost %d, doubled %d, others' errors %d, max refused %.1f s",
		len(l.moves), len(l.kills), acked, book.lost, book.doubled, othersErrors, most.Seconds())
}

// deliveredBetween counts the events of the shops not in skip that first
// reached the receiver between from and to.
func (cl *cluster) deliveredBetween(shops []*shop, book *ledgerBook, skip map[*shop]bool, from, to time.Time) int {
	first := cl.rc.firstArrivals()
	n := 0
	for _, s := range shops {
		if skip[s] {
			continue
		}
		evs, err := list[eventItem](cl, s, "/v1/events")
		if err != nil {
			book.problem("events of %s: %v", s.id, err)
			continue
		}
		for _, e := range evs {
			if at, ok := first[e.ID]; ok && at.After(from) && at.Before(to) {
				n++
			}
		}
	}
	return n
}

// checkPayouts finds every acknowledged payout exactly once, and no payout
// that was not acknowledged.
func (cl *cluster) checkPayouts(shops []*shop, book *ledgerBook) (int, error) {
	book.mu.Lock()
	acked := map[string]*payout{}
	for _, p := range book.payouts {
		acked[p.id] = p
	}
	abandoned := strings.Join(book.abandoned, "\n")
	book.mu.Unlock()
	stored := 0
	seen := map[string]int{}
	for _, s := range shops {
		items, err := list[struct {
			ID string `json:"id"`
		}](cl, s, "/v1/payouts")
		if err != nil {
			return 0, err
		}
		for _, it := range items {
			stored++
			seen[it.ID]++
			if _, ok := acked[it.ID]; !ok && !strings.Contains(abandoned, "/v1/payouts") {
				book.problem("payout %s exists but was never acknowledged", it.ID)
			}
		}
	}
	for id, p := range acked {
		switch seen[id] {
		case 0:
			book.count(&book.lost)
			book.problem("acknowledged payout %s of %s is lost", id, p.shop.id)
		case 1:
		default:
			book.count(&book.doubled)
			book.problem("payout %s stored %d times", id, seen[id])
		}
	}
	return stored, nil
}
