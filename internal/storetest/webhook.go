package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/paydhq/payd"
)

func testWebhookEndpoint(t *testing.T, open func(t *testing.T) payd.Store) {
	newEndpoint := func(shopID string, test bool, created time.Time) *payd.WebhookEndpoint {
		return &payd.WebhookEndpoint{ID: newID(payd.PrefixWebhookEndpoint, created), ShopID: shopID, Test: test,
			URL: "https://example.com/hooks", Events: []payd.EventType{payd.EventPaymentSucceeded},
			Status: payd.WebhookActive, Secret: "whsec_one", CreatedAt: created}
	}
	getEndpoint := func(t *testing.T, s payd.Store, shopID string, test bool, id string) (e *payd.WebhookEndpoint, err error) {
		err = s.View(t.Context(), func(tx payd.Tx) error {
			e, err = tx.WebhookEndpointGet(t.Context(), shopID, test, id)
			return err
		})
		return e, err
	}
	listEndpoints := func(t *testing.T, s payd.Store, shopID string, test bool) (list []*payd.WebhookEndpoint) {
		t.Helper()
		mustView(t, s, func(tx payd.Tx) (err error) {
			list, err = tx.WebhookEndpointList(t.Context(), shopID, test)
			return err
		})
		return list
	}

	t.Run("InsertGetUpdate", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		m := addMerchant(t, s, now)
		sh, other := addShop(t, s, m.ID, now), addShop(t, s, m.ID, now)

		e := newEndpoint(sh.ID, true, now)
		e.Events = []payd.EventType{payd.EventRefundSucceeded, payd.EventPaymentSucceeded, payd.EventDisputeOpened}
		e.Description, e.PrevSecret, e.PrevSecretUntil = "Склад — основной", "whsec_zero", ptr(now.Add(payd.SecretOverlap))
		e.ConsecutiveFailures = 4
		mustTx(t, s, func(tx payd.Tx) error { return tx.WebhookEndpointInsert(ctx, e) })

		got, err := getEndpoint(t, s, sh.ID, true, e.ID)
		if err != nil {
			t.Fatalf("WebhookEndpointGet: %v", err)
		}
		wantDiff(t, "WebhookEndpointGet", e, got)
		_, err = getEndpoint(t, s, other.ID, true, e.ID)
		wantErr(t, "WebhookEndpointGet with another shop", err, payd.ErrNoRows)
		_, err = getEndpoint(t, s, sh.ID, false, e.ID)
		wantErr(t, "WebhookEndpointGet in the other mode", err, payd.ErrNoRows)
		_, err = getEndpoint(t, s, sh.ID, true, newID(payd.PrefixWebhookEndpoint, now))
		wantErr(t, "WebhookEndpointGet of a missing id", err, payd.ErrNoRows)
		err = s.Tx(ctx, func(tx payd.Tx) error {
			_, err := tx.WebhookEndpointGetForUpdate(ctx, other.ID, true, e.ID)
			return err
		})
		wantErr(t, "WebhookEndpointGetForUpdate with another shop", err, payd.ErrNoRows)

		// Rotate and change everything mutable, as UpdateWebhookEndpoint
		// does under the row lock.
		upd := *e
		upd.URL, upd.Events, upd.Status = "https://example.org/v2?x=1", []payd.EventType{payd.EventPayoutCanceled}, payd.WebhookFailing
		upd.Description, upd.Secret, upd.PrevSecret = "", "whsec_two", e.Secret
		upd.PrevSecretUntil, upd.ConsecutiveFailures = ptr(now.Add(time.Hour+time.Microsecond)), 0
		var locked *payd.WebhookEndpoint
		mustTx(t, s, func(tx payd.Tx) (err error) {
			if locked, err = tx.WebhookEndpointGetForUpdate(ctx, sh.ID, true, e.ID); err != nil {
				return err
			}
			return tx.WebhookEndpointUpdate(ctx, &upd)
		})
		wantDiff(t, "WebhookEndpointGetForUpdate", e, locked)
		got, err = getEndpoint(t, s, sh.ID, true, e.ID)
		if err != nil {
			t.Fatalf("WebhookEndpointGet: %v", err)
		}
		wantDiff(t, "WebhookEndpointGet after update", &upd, got)

		// The overlap ends: PrevSecretUntil goes back to nil.
		upd.PrevSecret, upd.PrevSecretUntil = "", nil
		mustTx(t, s, func(tx payd.Tx) error { return tx.WebhookEndpointUpdate(ctx, &upd) })
		got, err = getEndpoint(t, s, sh.ID, true, e.ID)
		if err != nil {
			t.Fatalf("WebhookEndpointGet: %v", err)
		}
		wantDiff(t, "WebhookEndpointGet after clearing PrevSecretUntil", &upd, got)

		ghost := upd
		ghost.ID = newID(payd.PrefixWebhookEndpoint, now)
		err = s.Tx(ctx, func(tx payd.Tx) error { return tx.WebhookEndpointUpdate(ctx, &ghost) })
		wantErr(t, "WebhookEndpointUpdate of a missing id", err, payd.ErrNoRows)

		dup := newEndpoint(sh.ID, true, now)
		dup.ID = e.ID
		err = s.Tx(ctx, func(tx payd.Tx) error { return tx.WebhookEndpointInsert(ctx, dup) })
		wantErr(t, "WebhookEndpointInsert of a taken id", err, payd.ErrConflict)
	})

	t.Run("ListDelete", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		m := addMerchant(t, s, now)
		sh, other := addShop(t, s, m.ID, now), addShop(t, s, m.ID, now)

		// Two share a creation time, so the id breaks the tie.
		a := newEndpoint(sh.ID, true, now.Add(-time.Hour))
		b := newEndpoint(sh.ID, true, now)
		c := newEndpoint(sh.ID, true, now)
		liveOne := newEndpoint(sh.ID, false, now)
		otherOne := newEndpoint(other.ID, true, now)
		mustTx(t, s, func(tx payd.Tx) error {
			for _, e := range []*payd.WebhookEndpoint{c, otherOne, a, liveOne, b} {
				if err := tx.WebhookEndpointInsert(ctx, e); err != nil {
					return err
				}
			}
			return nil
		})

		// Endpoints are listed newest first, like every list of the API.
		wantDiff(t, "WebhookEndpointList", []*payd.WebhookEndpoint{c, b, a}, listEndpoints(t, s, sh.ID, true))
		wantDiff(t, "WebhookEndpointList in live mode", []*payd.WebhookEndpoint{liveOne}, listEndpoints(t, s, sh.ID, false))
		wantDiff(t, "WebhookEndpointList of the other shop", []*payd.WebhookEndpoint{otherOne}, listEndpoints(t, s, other.ID, true))
		if got := listEndpoints(t, s, other.ID, false); len(got) != 0 {
			t.Errorf("WebhookEndpointList of a shop and mode without endpoints: %d, want none", len(got))
		}

		// Deleting out of scope finds nothing and deletes nothing.
		at := now.Add(time.Minute)
		err := s.Tx(ctx, func(tx payd.Tx) error { return tx.WebhookEndpointDelete(ctx, other.ID, true, b.ID, at) })
		wantErr(t, "WebhookEndpointDelete with another shop", err, payd.ErrNoRows)
		err = s.Tx(ctx, func(tx payd.Tx) error { return tx.WebhookEndpointDelete(ctx, sh.ID, false, b.ID, at) })
		wantErr(t, "WebhookEndpointDelete in the other mode", err, payd.ErrNoRows)
		if got, err := getEndpoint(t, s, sh.ID, true, b.ID); err != nil {
			t.Errorf("WebhookEndpointGet after out-of-scope deletes: %v", err)
		} else {
			wantDiff(t, "endpoint after out-of-scope deletes", b, got)
		}

		mustTx(t, s, func(tx payd.Tx) error { return tx.WebhookEndpointDelete(ctx, sh.ID, true, b.ID, at) })
		_, err = getEndpoint(t, s, sh.ID, true, b.ID)
		wantErr(t, "WebhookEndpointGet of a deleted endpoint", err, payd.ErrNoRows)
		err = s.Tx(ctx, func(tx payd.Tx) error { _, err := tx.WebhookEndpointGetForUpdate(ctx, sh.ID, true, b.ID); return err })
		wantErr(t, "WebhookEndpointGetForUpdate of a deleted endpoint", err, payd.ErrNoRows)
		wantDiff(t, "WebhookEndpointList after delete", []*payd.WebhookEndpoint{c, a}, listEndpoints(t, s, sh.ID, true))
		err = s.Tx(ctx, func(tx payd.Tx) error { return tx.WebhookEndpointDelete(ctx, sh.ID, true, b.ID, at.Add(time.Minute)) })
		wantErr(t, "WebhookEndpointDelete of a deleted endpoint", err, payd.ErrNoRows)
		// A deleted endpoint cannot be revived by a stale update either.
		err = s.Tx(ctx, func(tx payd.Tx) error { return tx.WebhookEndpointUpdate(ctx, b) })
		wantErr(t, "WebhookEndpointUpdate of a deleted endpoint", err, payd.ErrNoRows)
		if _, err := getEndpoint(t, s, sh.ID, true, b.ID); !errors.Is(err, payd.ErrNoRows) {
			t.Errorf("WebhookEndpointGet after updating a deleted endpoint: error %v, want ErrNoRows", err)
		}
		// The soft-deleted row still holds its id.
		err = s.Tx(ctx, func(tx payd.Tx) error { return tx.WebhookEndpointInsert(ctx, b) })
		wantErr(t, "WebhookEndpointInsert reusing a deleted endpoint's id", err, payd.ErrConflict)
	})
}
