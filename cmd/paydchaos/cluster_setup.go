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
	for _, in := range cl.instances {
		var out any
		if err := cl.adminAt(in, "POST", "/admin/v1/clock/advance", map[string]any{"seconds": 25 * 3600}, &out); err != nil {
			return nil, err
		}
	}
	// The job table's times are the service clock's (checkJobs).
	cl.clockLead = 25 * time.Hour
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
