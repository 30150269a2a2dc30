//go:build linux

package main

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/paydhq/payd"
)

// setupMerchants makes one merchant per client, each with a shop, so that
// the merchants spread over the shard groups, and funds each shop's
// payouts: a paid payment of 1000.00 whose money the clocks, moved a day
// on, make available.
func (cl *cluster) setupMerchants(book *ledgerBook, drainBy *atomic.Int64) ([]*shop, error) {
	db, err := sql.Open("pgx", cl.citus.URL())
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var shops []*shop
	for i := range cl.clients {
		var m struct{ ID string }
		if err := cl.admin("POST", "/admin/v1/merchants", map[string]any{"name": fmt.Sprintf("Cluster Merchant %d", i)}, &m); err != nil {
			return nil, err
		}
		if err := cl.addShops(m.ID, 1, &shops); err != nil {
			return nil, err
		}
		sh := shops[len(shops)-1]
		if err := db.QueryRow(`SELECT merchant_key FROM merchants WHERE id = $1`, m.ID).Scan(&sh.mkey); err != nil {
			return nil, fmt.Errorf("merchant key of %s: %w", m.ID, err)
		}
	}
	// Funded after midnight in Moscow: made in the evening, a payment's
	// day would have a business day behind it once its money came free a
	// day later, and the day's register would hold the money
	// (paydtest.Env.ToMorning says the same for the tests).
	var clock struct {
		Now time.Time `json:"now"`
	}
	if err := cl.adminAt(cl.instances[0], "GET", "/admin/v1/clock", nil, &clock); err != nil {
		return nil, err
	}
	local := clock.Now.In(payd.RegionRU.Location())
	morning := time.Date(local.Year(), local.Month(), local.Day()+1, 0, 1, 0, 0, local.Location())
	if err := cl.advanceClocks(morning.Sub(clock.Now).Truncate(time.Second) + time.Second); err != nil {
		return nil, err
	}
	stop := make(chan struct{})
	for i, s := range shops {
		c := &client{n: 1000 + i, base: cl.proxyURL, shop: s, book: book, stop: stop, drainBy: drainBy,
			http: &http.Client{Timeout: hangLimit}, rnd: rand.New(rand.NewPCG(uint64(i), 1000))}
		order := fmt.Sprintf("fund-%d", i)
		st, p := c.post("fund", "/v1/payments", "pay-"+order, map[string]any{
			"amount": map[string]any{"value": "1000.00", "currency": "RUB"}, "order_id": order, "capture": true,
			"confirmation": map[string]any{"type": "qr"},
		})
		if st != http.StatusCreated {
			return nil, fmt.Errorf("funding payment of %s: %d %v", s.id, st, p)
		}
		rec := &payment{shop: s, id: p["id"].(string), orderID: order, want: "succeeded"}
		book.payments = append(book.payments, rec)
		if st, _ := c.post("fund", "/v1/test/payments/"+rec.id+"/simulate", "sim-"+order, map[string]any{"outcome": "succeed"}); st != 202 {
			return nil, fmt.Errorf("simulate the funding payment of %s: %d", s.id, st)
		}
		if !c.waitStatus(rec.id, "succeeded", 30*time.Second) {
			return nil, fmt.Errorf("funding payment %s did not succeed", rec.id)
		}
	}
	if err := cl.advanceClocks(25 * time.Hour); err != nil {
		return nil, err
	}
	for _, s := range shops {
		deadline := time.Now().Add(60 * time.Second)
		for {
			var b struct {
				Items []struct {
					Currency  string
					Available struct{ Value string }
				}
			}
			if err := cl.get(s, "/v1/balance", &b); err != nil {
				return nil, err
			}
			if slices.ContainsFunc(b.Items, func(it struct {
				Currency  string
				Available struct{ Value string }
			}) bool {
				return it.Currency == "RUB" && it.Available.Value != "0.00" && !strings.HasPrefix(it.Available.Value, "-")
			}) {
				break
			}
			if time.Now().After(deadline) {
				return nil, fmt.Errorf("the funding of %s never became available", s.id)
			}
			time.Sleep(500 * time.Millisecond)
		}
	}
	return shops, nil
}

// advanceClocks moves every instance's test clock by d, and notes how far
// they lead the wall clock (checkJobs reads the job table's times, which
// are the service clock's).
func (cl *cluster) advanceClocks(d time.Duration) error {
	for _, in := range cl.instances {
		var out any
		if err := cl.adminAt(in, "POST", "/admin/v1/clock/advance", map[string]any{"seconds": int64(d / time.Second)}, &out); err != nil {
			return err
		}
	}
	cl.clockLead += d
	return nil
}
