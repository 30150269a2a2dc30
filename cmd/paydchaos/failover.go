//go:build linux

package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/paydhq/payd/internal/pgserver"
)

// The failover run (--failover): the instances are given every node of a
// Patroni cluster (pgserver.Patroni: three PostgreSQL nodes, etcd,
// synchronous_mode) in one connection string with
// target_session_attrs=read-write, and no proxy in between. Under the same
// load and the same checks as the chaos run, the primary is killed (Patroni
// and PostgreSQL with SIGKILL, as a machine dying, then started again to
// rejoin as a standby) and, separately, handed over with `patronictl
// switchover`. Each fault waits for the cluster to be whole again (a
// leader, a synchronous standby, a streaming replica) before the next.
// Measured per fault: the unavailability window, from the first refused
// write to the first write acknowledged after it.

type failoverConfig struct {
	kills, switchovers int
	nInstances         int
	patroni            pgserver.PatroniSettings
	// measure, when set, times creations alone before the load.
	measure time.Duration
}

func (fc *failoverConfig) flags() {
	flag.IntVar(&fc.kills, "kills", 1, "with --failover: how many times the primary is killed")
	flag.IntVar(&fc.switchovers, "switchovers", 1, "with --failover: how many switchovers")
	flag.IntVar(&fc.nInstances, "instances", 0, "payd instances (default: 3; 2 with --failover)")
	fc.patroni = pgserver.DefaultPatroniSettings()
	flag.IntVar(&fc.patroni.TTL, "patroni-ttl", fc.patroni.TTL, "with --failover: Patroni's ttl (seconds)")
	flag.IntVar(&fc.patroni.LoopWait, "patroni-loop-wait", fc.patroni.LoopWait, "with --failover: Patroni's loop_wait (seconds)")
	flag.IntVar(&fc.patroni.RetryTimeout, "patroni-retry-timeout", fc.patroni.RetryTimeout, "with --failover: Patroni's retry_timeout (seconds)")
	flag.BoolVar(&fc.patroni.Strict, "patroni-strict", fc.patroni.Strict, "with --failover: synchronous_mode_strict")
	flag.DurationVar(&fc.measure, "measure-creation", 0, "before the load, time creations alone for this long and report their rate")
}

func (cfg config) instances() int {
	switch {
	case cfg.nInstances > 0:
		return cfg.nInstances
	case cfg.failover, cfg.citus, cfg.cluster:
		return 2
	}
	return 3
}

// failoverLog is what the failover run did and saw.
type failoverLog struct {
	kills, switchovers int
	faults             []failoverFault
	settings           pgserver.PatroniSettings
}

type failoverFault struct {
	kill     bool
	at       time.Time
	from, to string // the old and the new primary
	// promoted is how long Patroni took to report the new leader.
	promoted time.Duration
}

func (f *failoverLog) String() string {
	return fmt.Sprintf("%d primary kills, %d switchovers", f.kills, f.switchovers)
}

// failovers kills and switches over the primary, alternating, one fault at
// a time.
func (cl *cluster) failovers(ctx context.Context, cfg config, rnd *rand.Rand, book *ledgerBook) faultLog {
	fl := &failoverLog{settings: cfg.patroni}
	log := faultLog{failover: fl}
	var plan []bool // true: kill
	for i := 0; i < max(cfg.kills, cfg.switchovers); i++ {
		if i < cfg.kills {
			plan = append(plan, true)
		}
		if i < cfg.switchovers {
			plan = append(plan, false)
		}
	}
	p := cl.patroni
	for _, kill := range plan {
		pause := cfg.faultEvery/2 + time.Duration(rnd.Int64N(int64(cfg.faultEvery)))
		select {
		case <-ctx.Done():
			return log
		case <-time.After(pause):
		}
		old, err := p.WaitLeader(30 * time.Second)
		if err != nil {
			book.problem("before a fault: %v", err)
			return log
		}
		f := failoverFault{kill: kill, at: time.Now(), from: old.Name}
		if kill {
			old.Kill()
			fl.kills++
			// No primary now until the leader key expires (ttl): the
			// instances must say so.
			time.Sleep(1500 * time.Millisecond)
			if cl.allNotReady() {
				log.readyFailedDuringOutage++
			} else {
				book.problem("primary %s killed but some instance's /readyz still answered 200", old.Name)
			}
		} else {
			if err := p.Switchover(ctx, old.Name); err != nil {
				book.problem("%v", err)
				return log
			}
			fl.switchovers++
		}
		deadline := time.Now().Add(time.Duration(3*cfg.patroni.TTL)*time.Second + 30*time.Second)
		for f.to == "" && time.Now().Before(deadline) && ctx.Err() == nil {
			ms, _ := p.Members()
			for _, m := range ms {
				if m.Role == "leader" && m.State == "running" && m.Name != old.Name {
					f.to = m.Name
				}
			}
			time.Sleep(100 * time.Millisecond)
		}
		f.promoted = time.Since(f.at)
		if f.to == "" {
			book.problem("no new primary %v after the %s of %s", time.Since(f.at).Round(time.Second), f.kind(), old.Name)
			return log
		}
		back := time.Now()
		if !cl.waitAllReady(30 * time.Second) {
			book.problem("instances not ready 30s after %s was promoted", f.to)
		}
		log.readyRecovery = max(log.readyRecovery, time.Since(back))
		if kill {
			if err := old.Start(); err != nil {
				book.problem("restart %s: %v", old.Name, err)
				return log
			}
		}
		// The next fault finds the cluster whole: a synchronous standby
		// to promote.
		if err := p.WaitHealthy(3 * time.Minute); err != nil {
			book.problem("after the %s of %s: %v", f.kind(), old.Name, err)
			return log
		}
		fl.faults = append(fl.faults, f)
		fmt.Printf("paydfailover: %s of %s: %s primary after %v\n", f.kind(), f.from, f.to, f.promoted.Round(100*time.Millisecond))
	}
	// Load a while longer, so that the last window closes under load.
	time.Sleep(cfg.faultEvery)
	return log
}

func (f failoverFault) kind() string {
	if f.kill {
		return "kill"
	}
	return "switchover"
}

// window measures the fault's unavailability from the writes' answers:
// from the first write refused after the fault began (its sending, or the
// fault if it was sent before) to the first write sent after that refusal
// and acknowledged. Zero when no write was refused before until.
func window(writes []writeMark, at, until time.Time) (time.Duration, bool) {
	first := -1
	for i, w := range writes {
		if !w.ok && !w.answered.Before(at) && w.answered.Before(until) && (first < 0 || w.answered.Before(writes[first].answered)) {
			first = i
		}
	}
	if first < 0 {
		return 0, true
	}
	start := writes[first].sent
	if start.Before(at) {
		start = at
	}
	var end time.Time
	for _, w := range writes {
		if w.ok && !w.sent.Before(writes[first].answered) && (end.IsZero() || w.answered.Before(end)) {
			end = w.answered
		}
	}
	if end.IsZero() {
		return 0, false
	}
	return end.Sub(start), true
}

// report prints each fault's window and the summary by kind, and returns
// the run's last line. The caller holds book.mu.
func (f *failoverLog) report(book *ledgerBook) string {
	writes := slices.Clone(book.writes)
	var byKind = map[bool][]time.Duration{}
	var worst time.Duration
	fmt.Printf("  Patroni: ttl %d s, loop_wait %d s, retry_timeout %d s, synchronous_mode true, synchronous_mode_strict %v\n",
		f.settings.TTL, f.settings.LoopWait, f.settings.RetryTimeout, f.settings.Strict)
	for i, ft := range f.faults {
		until := time.Now()
		if i+1 < len(f.faults) {
			until = f.faults[i+1].at
		}
		w, closed := window(writes, ft.at, until)
		if !closed {
			book.problems = append(book.problems, fmt.Sprintf("after the %s of %s no write was acknowledged again", ft.kind(), ft.from))
			continue
		}
		byKind[ft.kill] = append(byKind[ft.kill], w)
		worst = max(worst, w)
		fmt.Printf("  %s of %s → %s: new leader reported after %v, writes refused for %v\n",
			ft.kind(), ft.from, ft.to, ft.promoted.Round(100*time.Millisecond), w.Round(100*time.Millisecond))
	}
	for _, kill := range []bool{true, false} {
		ws := byKind[kill]
		if len(ws) == 0 {
			continue
		}
		sort.Slice(ws, func(i, j int) bool { return ws[i] < ws[j] })
		fmt.Printf("  unavailable per %s: median %v, max %v over %d\n", failoverFault{kill: kill}.kind(),
			ws[len(ws)/2].Round(100*time.Millisecond), ws[len(ws)-1].Round(100*time.Millisecond), len(ws))
	}
	var acked int
	for _, n := range book.ops {
		acked += n
	}
	return fmt.Sprintf("failover: %d kills, %d switchovers, acknowledged %d, lost %d, doubled %d, max unavailable %.1f s",
		f.kills, f.switchovers, acked, book.lost, book.doubled, worst.Seconds())
}

// measureCreation has every client create payments, and nothing else, as
// fast as it can for cfg.measure, and prints their rate: the cost of the
// synchronous standby is the failover run's rate beside the chaos run's
// (docs/operations.md).
func (cl *cluster) measureCreation(cfg config, shops []*shop, book *ledgerBook) {
	end := time.Now().Add(cfg.measure)
	perSecond := make([]int, int(cfg.measure/time.Second)+1)
	start := time.Now()
	var mu sync.Mutex
	var wg sync.WaitGroup
	var drainBy atomic.Int64 // zero: a client never gives up here
	for i, s := range shops {
		c := &client{n: i, base: cl.proxyURL, shop: s, book: book, drainBy: &drainBy,
			http: &http.Client{Timeout: hangLimit}, rnd: rand.New(rand.NewPCG(cfg.seed, uint64(i)+100))}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; time.Now().Before(end); j++ {
				order := fmt.Sprintf("measure-%d-%d", i, j)
				st, raw := c.call(http.MethodPost, "/v1/payments", "pay-"+order, map[string]any{
					"amount": map[string]any{"value": "100.00", "currency": "RUB"}, "order_id": order, "capture": true,
					"confirmation": map[string]any{"type": "qr"},
				})
				if st != http.StatusOK && st != http.StatusCreated {
					continue
				}
				id := jsonID(raw)
				book.mu.Lock()
				book.ops["create"]++
				book.payments = append(book.payments, &payment{shop: s, id: id, orderID: order})
				book.mu.Unlock()
				mu.Lock()
				if sec := int(time.Since(start) / time.Second); sec < len(perSecond) {
					perSecond[sec]++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	full := slices.Clone(perSecond[:len(perSecond)-1]) // the last second is partial
	sort.Ints(full)
	var total int
	for _, n := range perSecond {
		total += n
	}
	db := "one PostgreSQL server"
	if cfg.failover {
		db = "a Patroni primary with a synchronous standby"
	}
	fmt.Printf("%s: creations alone on %s, %d clients, %d instances: %d in %v, median %d/s (seconds: %s)\n",
		map[bool]string{true: "paydfailover", false: "paydchaos"}[cfg.failover], db, len(shops), cfg.instances(),
		total, cfg.measure, full[len(full)/2], strings.Trim(fmt.Sprint(perSecond[:len(perSecond)-1]), "[]"))
}

func jsonID(raw []byte) string {
	var v struct{ ID string }
	json.Unmarshal(raw, &v)
	return v.ID
}

// probe creates payments one after another, a few dozen a second, until
// told to stop: in the failover run, the steady writes whose answers time
// each window (the other clients spend much of their time polling a
// payment's status).
func (c *client) probe() {
	for i := 0; !c.stopped(); i++ {
		order := fmt.Sprintf("probe-%d-%d", c.n, i)
		st, raw := c.call(http.MethodPost, "/v1/payments", "pay-"+order, map[string]any{
			"amount": map[string]any{"value": "1.00", "currency": "RUB"}, "order_id": order, "capture": true,
			"confirmation": map[string]any{"type": "qr"},
		})
		if st == http.StatusOK || st == http.StatusCreated {
			c.book.mu.Lock()
			c.book.ops["create"]++
			c.book.payments = append(c.book.payments, &payment{shop: c.shop, id: jsonID(raw), orderID: order})
			c.book.mu.Unlock()
		} else if st != 0 {
			c.book.problem("probe create: final answer %d %s", st, raw)
		}
		time.Sleep(25 * time.Millisecond)
	}
}
