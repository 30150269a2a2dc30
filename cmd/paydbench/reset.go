package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// ResetRun is one sandbox reset of the seeded shop (POST /v1/test/reset)
// while a shop of another merchant creates payments: the reset's time,
// what it deleted, and the other shop's latencies before it (idle) and
// while it ran. The reset deletes in batches, each its own transaction;
// the other shop's p99 during it against idle says how long a batch
// holds others up (on SQLite every writer waits for the batch under way).
type ResetRun struct {
	Payments int64   `json:"payments"`
	Events   int64   `json:"events"`
	Entries  int64   `json:"ledger_entries"`
	Seconds  float64 `json:"seconds"`
	Idle     Stats   `json:"other_idle"`
	During   Stats   `json:"other_during"`
}

// resetClients are the other shop's clients, creating payments one after
// another each.
const resetClients = 4

// resetIdle is how long the other shop's idle latencies are measured.
const resetIdle = 5 * time.Second

// resetShop resets the sandbox of a's shop, which must hold the seeded
// test payments, while other creates payments, after measuring other
// alone for resetIdle.
func resetShop(ctx context.Context, a, other *api) (*ResetRun, error) {
	run := &ResetRun{Idle: runPhase(ctx, "reset-idle", resetClients, resetIdle, 1<<40, other.createWorker)}
	loadCtx, stopLoad := context.WithCancel(ctx)
	during := make(chan Stats, 1)
	go func() {
		during <- runPhase(loadCtx, "reset-during", resetClients, 24*time.Hour, 1<<40, other.createWorker)
	}()
	// The reset takes as long as the shop's data makes it: no client
	// timeout but the run's.
	slow := &api{client: loopbackClient(1, 0), base: a.base, shopID: a.shopID, secret: a.secret, run: a.run}
	start := time.Now()
	b, err := slow.do(ctx, http.MethodPost, "/v1/test/reset", []byte("{}"),
		map[string]string{"Idempotency-Key": "bench-reset-" + a.run}, http.StatusOK)
	run.Seconds = time.Since(start).Seconds()
	stopLoad()
	run.During = <-during
	slow.client.CloseIdleConnections()
	if err != nil {
		return run, fmt.Errorf("reset: %w", err)
	}
	var got struct {
		Deleted struct {
			Payments      int64 `json:"payments"`
			Events        int64 `json:"events"`
			LedgerEntries int64 `json:"ledger_entries"`
		} `json:"deleted"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		return run, fmt.Errorf("reset: %w", err)
	}
	run.Payments, run.Events, run.Entries = got.Deleted.Payments, got.Deleted.Events, got.Deleted.LedgerEntries
	return run, nil
}

// otherMerchant makes a merchant with a shop and a test key, and its API
// client, for the load beside the reset.
func otherMerchant(ctx context.Context, a *api, adminURL, token string) (*api, error) {
	m, err := makeMerchant(ctx, a.client, adminURL, token, 0)
	if err != nil {
		return nil, err
	}
	return &api{client: a.client, base: a.base, shopID: m.shopID, secret: m.secret, merchantID: m.merchantID, run: a.run + "-other"}, nil
}
