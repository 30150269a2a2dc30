package payd_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/internal/sqlstore"
	"github.com/paydhq/payd/money"
)

func TestAuditOfIdempotentOperation(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, be paydtest.Backend) {
		b := setupUsers(t, be)
		a := b.user(t, "a@example.test", payd.RoleAdmin)
		shop, err := b.svc.CreateShop(b.ctx, payd.ShopCreate{MerchantID: b.m.ID, Region: payd.RegionRU, Name: "S", DefaultCurrency: money.RUB})
		if err != nil {
			t.Fatal(err)
		}
		actor := actorOf(a)
		p := &payd.Principal{Shop: shop, Mode: payd.ModeTest, Actor: actor}
		audit := func() []*payd.AuditEntry {
			t.Helper()
			page, err := b.svc.ListAudit(b.ctx, b.m.ID, payd.AuditListParams{})
			if err != nil {
				t.Fatal(err)
			}
			var out []*payd.AuditEntry
			for _, e := range page.Items {
				if e.ShopID != "" {
					out = append(out, e)
				}
			}
			return out
		}
		in := payd.WebhookEndpointCreate{URL: "https://hooks.example.test/h", Events: []payd.EventType{payd.EventPaymentSucceeded}}
		idem := payd.Idempotency{Key: "k1", Hash: []byte{1}}
		resp, err := b.svc.CreateWebhookEndpoint(b.ctx, p, idem, in)
		if err != nil {
			t.Fatal(err)
		}
		var created struct{ ID string }
		if err := json.Unmarshal(resp.Body, &created); err != nil {
			t.Fatal(err)
		}
		want := &payd.AuditEntry{MerchantID: b.m.ID, ShopID: shop.ID, Mode: payd.ModeTest, UserID: a.ID, UserEmail: a.Email,
			Action: "create webhook endpoint", ObjectID: created.ID, Addr: actor.Addr, At: b.clock.Now()}
		got := audit()
		if len(got) != 1 {
			t.Fatalf("%d entries after one operation, want 1", len(got))
		}
		want.ID = got[0].ID
		if *got[0] != *want {
			t.Errorf("entry %+v, want %+v", got[0], want)
		}

		// A replay and a failed operation write nothing; an API request (no
		// actor) neither.
		if r, err := b.svc.CreateWebhookEndpoint(b.ctx, p, idem, in); err != nil || !r.Replayed {
			t.Fatalf("replay: %+v, %v", r, err)
		}
		_, err = b.svc.UpdateWebhookEndpoint(b.ctx, p, payd.Idempotency{Key: "k2", Hash: []byte{2}}, "whe_01ARZ3NDEKTSV4RRFFQ69G5FAV", payd.WebhookEndpointUpdate{RotateSecret: true})
		wantCode(t, "update of an unknown endpoint", err, payd.CodeNotFound, "")
		api := &payd.Principal{Shop: shop, Mode: payd.ModeTest}
		if _, err := b.svc.CreateWebhookEndpoint(b.ctx, api, payd.Idempotency{Key: "k3", Hash: []byte{3}}, in); err != nil {
			t.Fatal(err)
		}
		if got := audit(); len(got) != 1 {
			t.Errorf("%d entries after a replay, a failure and an API call, want still 1", len(got))
		}

		// The entry commits with the change, in its transaction: a store
		// that fails the audit insert leaves no endpoint behind.
		failing := payd.NewService(payd.Config{Store: auditFailStore{b.store}, Clock: b.clock, WebhookAllowHosts: []string{"hooks.example.test"}})
		_, err = failing.CreateWebhookEndpoint(b.ctx, p, payd.Idempotency{Key: "k4", Hash: []byte{4}}, in)
		if !errors.Is(err, errAuditFailed) {
			t.Fatalf("with a failing audit insert: %v", err)
		}
		list, err := b.svc.ListWebhookEndpoints(b.ctx, p)
		if err != nil || len(list) != 2 {
			t.Errorf("%d endpoints after a failed audit insert, want 2 (the change rolled back): %v", len(list), err)
		}

		// Key rotation through the dashboard is audited with the new key.
		keys, err := b.svc.ListKeys(b.ctx, p.Shop.ID)
		if err != nil {
			t.Fatal(err)
		}
		newest := ""
		for _, k := range keys { // newest first
			if k.Mode == p.Mode {
				newest = k.ID
				break
			}
		}
		key, _, err := b.svc.RotateKey(b.ctx, p, newest)
		if err != nil {
			t.Fatal(err)
		}
		if got := audit(); len(got) != 2 || got[0].Action != payd.AuditRotateKey || got[0].ObjectID != key.ID {
			t.Errorf("audit after RotateKey: %+v", got[0])
		}
	})
}

var errAuditFailed = errors.New("audit insert failed")

// auditFailStore fails every audit insert.
type auditFailStore struct{ *sqlstore.Store }

type auditFailTx struct{ payd.Tx }

func (s auditFailStore) Tx(ctx context.Context, fn func(payd.Tx) error) error {
	return s.Store.Tx(ctx, func(tx payd.Tx) error { return fn(auditFailTx{tx}) })
}

func (auditFailTx) AuditInsert(context.Context, *payd.AuditEntry) error { return errAuditFailed }
