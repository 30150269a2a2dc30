package storetest

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/money"
)

func newLink(shop *payd.Shop, created time.Time) *payd.PaymentLink {
	return &payd.PaymentLink{ID: newID(payd.PrefixPaymentLink, created), ShopID: shop.ID, MerchantID: shop.MerchantID,
		Region: shop.Region, Test: true, Status: payd.LinkActive, CreatedAt: created, Currency: money.RUB,
		Description: "Two books", Capture: true, Payments: []string{}}
}

func linkCursor(l *payd.PaymentLink) payd.Cursor {
	return payd.Cursor{CreatedAt: l.CreatedAt, ID: l.ID}
}

func testLink(t *testing.T, open func(t *testing.T) payd.Store) {
	t.Run("InsertGetUpdate", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		shop := addShop(t, s, addMerchant(t, s, now).ID, now)
		l := newLink(shop, now)
		exp := now.Add(48 * time.Hour)
		l.MinAmount, l.MaxAmount = ptr(money.New(10000, money.RUB)), ptr(money.New(500000, money.RUB))
		l.OrderID, l.Reusable, l.ExpiresAt, l.ReturnURL = "inv-1", true, &exp, "https://shop.example.com/back"
		l.Customer, l.Metadata = &payd.Customer{Email: "a@example.com"}, map[string]string{"cart": "7"}
		mustTx(t, s, func(tx payd.Tx) error { return tx.PaymentLinkInsert(ctx, l) })
		wantErr(t, "PaymentLinkInsert of a taken id", s.Tx(ctx, func(tx payd.Tx) error { return tx.PaymentLinkInsert(ctx, l) }), payd.ErrConflict)

		get := func(what string, fn func(tx payd.Tx) (*payd.PaymentLink, error)) {
			t.Helper()
			wantRead(t, s, what, l, fn)
		}
		get("PaymentLinkGet", func(tx payd.Tx) (*payd.PaymentLink, error) { return tx.PaymentLinkGet(ctx, l.ID) })
		get("PaymentLinkGetForUpdate", func(tx payd.Tx) (*payd.PaymentLink, error) { return tx.PaymentLinkGetForUpdate(ctx, l.ID) })

		paid := now.Add(time.Minute)
		l.Status, l.PaidAt, l.PaidBy, l.PaymentCount, l.ExpiresAt = payd.LinkPaid, &paid, "pay_x", 3, nil
		mustTx(t, s, func(tx payd.Tx) error { return tx.PaymentLinkUpdate(ctx, l) })
		get("PaymentLinkGet after PaymentLinkUpdate", func(tx payd.Tx) (*payd.PaymentLink, error) { return tx.PaymentLinkGet(ctx, l.ID) })

		missing := newLink(shop, now)
		wantErr(t, "PaymentLinkUpdate of a missing link", s.Tx(ctx, func(tx payd.Tx) error { return tx.PaymentLinkUpdate(ctx, missing) }), payd.ErrNoRows)
		wantErr(t, "PaymentLinkGet of a missing link", s.View(ctx, func(tx payd.Tx) error {
			_, err := tx.PaymentLinkGet(ctx, missing.ID)
			return err
		}), payd.ErrNoRows)
	})

	t.Run("Payments", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		shop := addShop(t, s, addMerchant(t, s, now).ID, now)
		l, other := newLink(shop, now), newLink(shop, now)
		p1 := newPayment(shop, "o-1", now, now.Add(time.Hour))
		p2 := newPayment(shop, "o-2", now, now.Add(time.Hour))
		p3 := newPayment(shop, "o-3", now, now.Add(time.Hour))
		mustTx(t, s, func(tx payd.Tx) error {
			for _, step := range []func() error{
				func() error { return tx.PaymentLinkInsert(ctx, l) },
				func() error { return tx.PaymentLinkInsert(ctx, other) },
				func() error { return tx.PaymentInsert(ctx, p1) },
				func() error { return tx.PaymentInsert(ctx, p2) },
				func() error { return tx.PaymentInsert(ctx, p3) },
				// Out of order: the list follows the numbers.
				func() error { return tx.PaymentLinkAddPayment(ctx, l.ID, 2, p2.ID, now) },
				func() error { return tx.PaymentLinkAddPayment(ctx, l.ID, 1, p1.ID, now) },
			} {
				if err := step(); err != nil {
					return err
				}
			}
			return nil
		})
		// A taken number, or a payment of another link, is a conflict
		// that leaves the transaction usable.
		mustTx(t, s, func(tx payd.Tx) error {
			wantErr(t, "a taken number", tx.PaymentLinkAddPayment(ctx, l.ID, 2, p3.ID, now), payd.ErrConflict)
			wantErr(t, "a payment already listed", tx.PaymentLinkAddPayment(ctx, other.ID, 1, p1.ID, now), payd.ErrConflict)
			return tx.PaymentLinkAddPayment(ctx, other.ID, 1, p3.ID, now)
		})
		// A rolled-back transaction lists nothing.
		_ = s.Tx(ctx, func(tx payd.Tx) error {
			if err := tx.PaymentLinkAddPayment(ctx, l.ID, 3, "pay_rolled_back", now); err != nil {
				return err
			}
			return payd.ErrConflict
		})
		var got, gotOther *payd.PaymentLink
		mustView(t, s, func(tx payd.Tx) (err error) {
			if got, err = tx.PaymentLinkGet(ctx, l.ID); err != nil {
				return err
			}
			gotOther, err = tx.PaymentLinkGetForUpdate(ctx, other.ID)
			return err
		})
		wantDiff(t, "payments of the link", []string{p1.ID, p2.ID}, got.Payments)
		wantDiff(t, "payments of the other link", []string{p3.ID}, gotOther.Payments)
	})

	t.Run("List", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		base := ts(time.Now())
		shop := addShop(t, s, addMerchant(t, s, base).ID, base)
		foreign := addShop(t, s, addMerchant(t, s, base).ID, base)
		live := newLink(shop, base)
		live.Test = false
		var all []*payd.PaymentLink
		for i, created := range tiedTimes(base, 23) {
			l := newLink(shop, created)
			l.Status = []payd.LinkStatus{payd.LinkActive, payd.LinkPaid, payd.LinkExpired, payd.LinkDeactivated}[i%4]
			all = append(all, l)
		}
		pay := newPayment(shop, "o-1", base, base.Add(time.Hour))
		all[5].Payments = []string{pay.ID}
		mustTx(t, s, func(tx payd.Tx) error {
			for _, i := range rand.Perm(len(all)) {
				if err := tx.PaymentLinkInsert(ctx, all[i]); err != nil {
					return err
				}
			}
			if err := tx.PaymentInsert(ctx, pay); err != nil {
				return err
			}
			if err := tx.PaymentLinkAddPayment(ctx, all[5].ID, 1, pay.ID, base); err != nil {
				return err
			}
			if err := tx.PaymentLinkInsert(ctx, live); err != nil {
				return err
			}
			return tx.PaymentLinkInsert(ctx, newLink(foreign, base))
		})
		list := func(lp payd.ListParams) (page payd.Page[*payd.PaymentLink], err error) {
			err = s.View(ctx, func(tx payd.Tx) error {
				page, err = tx.PaymentLinkList(ctx, &payd.PaymentLinkListParams{ListParams: lp, ShopID: shop.ID, Test: true})
				return err
			})
			return page, err
		}
		for _, limit := range []int{0, 1, 5, 23, 100} {
			checkPaging(t, limit, newestFirst(all, linkCursor), linkCursor, list)
		}
		var livePage payd.Page[*payd.PaymentLink]
		mustView(t, s, func(tx payd.Tx) (err error) {
			livePage, err = tx.PaymentLinkList(ctx, &payd.PaymentLinkListParams{ShopID: shop.ID, Test: false})
			return err
		})
		wantDiff(t, "live list", []*payd.PaymentLink{live}, livePage.Items)
	})

	t.Run("ListExpired", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		shop := addShop(t, s, addMerchant(t, s, now).ID, now)
		add := func(at *time.Time, status payd.LinkStatus) *payd.PaymentLink {
			l := newLink(shop, now.Add(-time.Hour))
			l.ExpiresAt, l.Status = at, status
			mustTx(t, s, func(tx payd.Tx) error { return tx.PaymentLinkInsert(ctx, l) })
			return l
		}
		due := func(l *payd.PaymentLink) payd.PaymentLinkDue {
			return payd.PaymentLinkDue{ID: l.ID, ExpiresAt: *l.ExpiresAt}
		}
		a := add(ptr(now.Add(-time.Minute)), payd.LinkActive)
		b := add(ptr(now.Add(-time.Minute)), payd.LinkActive)
		c := add(ptr(now.Add(-2*time.Minute)), payd.LinkActive)
		d := add(ptr(now), payd.LinkActive)
		add(ptr(now.Add(time.Microsecond)), payd.LinkActive)
		add(nil, payd.LinkActive) // never expires
		for _, st := range []payd.LinkStatus{payd.LinkPaid, payd.LinkExpired, payd.LinkDeactivated} {
			add(ptr(now.Add(-time.Hour)), st)
		}
		// A link an update made due (an expiry set later) is found.
		moved := add(nil, payd.LinkActive)
		moved.ExpiresAt = ptr(now.Add(-3 * time.Minute))
		mustTx(t, s, func(tx payd.Tx) error { return tx.PaymentLinkUpdate(ctx, moved) })

		// a and b are due at the same instant: the walk takes them by id.
		if b.ID < a.ID {
			a, b = b, a
		}
		want := []payd.PaymentLinkDue{due(moved), due(c), due(a), due(b), due(d)}
		wantDueWalk(t, "PaymentLinkListExpired", want, func(after payd.PaymentLinkDue, limit int) (got []payd.PaymentLinkDue) {
			mustView(t, s, func(tx payd.Tx) (err error) {
				got, err = tx.PaymentLinkListExpired(ctx, &payd.PaymentLinkListExpiredParams{Now: now, After: after, Limit: limit})
				return err
			})
			return got
		})
	})
}
