package storetest

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/ledger"
	"github.com/paydhq/payd/money"
)

func newDispute(pay *payd.Payment, created time.Time) *payd.Dispute {
	return &payd.Dispute{ID: newID(payd.PrefixDispute, created), ShopID: pay.ShopID, MerchantID: pay.MerchantID,
		PaymentID: pay.ID, Test: pay.Test, Kind: payd.DisputeChargeback, Status: payd.DisputeOpened,
		Amount: money.New(2500, pay.Amount.Currency), OrderID: pay.OrderID, BankFine: 100, ServiceFee: 50,
		EvidenceDeadlineAt: created.Add(7 * 24 * time.Hour), Provider: "sandbox", CreatedAt: created,
		Held: []payd.HoldPart{{Bucket: ledger.Pending, Sub: pay.ID, Amount: 2500}}}
}

// disputeFixture is a merchant, a shop and a succeeded payment.
func disputeFixture(t *testing.T, s payd.Store, now time.Time) (*payd.Shop, *payd.Payment) {
	t.Helper()
	shop := addShop(t, s, addMerchant(t, s, now).ID, now)
	pay := newPayment(shop, "order-"+newID("", now), now, now.Add(time.Hour))
	pay.Status = payd.PaymentSucceeded
	mustTx(t, s, func(tx payd.Tx) error { return tx.PaymentInsert(t.Context(), pay) })
	return shop, pay
}

func disputeCursor(d *payd.Dispute) payd.Cursor { return payd.Cursor{CreatedAt: d.CreatedAt, ID: d.ID} }

func testDispute(t *testing.T, open func(t *testing.T) payd.Store) {
	t.Run("InsertGetUpdate", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		_, pay := disputeFixture(t, s, now)
		d := newDispute(pay, now)
		d.ProviderDisputeID, d.ReasonCode = "bank-1", "10.4"
		mustTx(t, s, func(tx payd.Tx) error { return tx.DisputeInsert(ctx, d) })

		get := func(what string, fn func(tx payd.Tx) (*payd.Dispute, error)) { t.Helper(); wantRead(t, s, what, d, fn) }
		get("DisputeGet", func(tx payd.Tx) (*payd.Dispute, error) { return tx.DisputeGet(ctx, d.ID) })
		get("DisputeGetForUpdate", func(tx payd.Tx) (*payd.Dispute, error) { return tx.DisputeGetForUpdate(ctx, d.ID) })
		get("DisputeGetByProviderID", func(tx payd.Tx) (*payd.Dispute, error) {
			return tx.DisputeGetByProviderID(ctx, "sandbox", "bank-1")
		})

		for name, fn := range map[string]func(tx payd.Tx) error{
			"DisputeGet of a missing id": func(tx payd.Tx) error { _, err := tx.DisputeGet(ctx, newID(payd.PrefixDispute, now)); return err },
			"DisputeGetByProviderID of another provider": func(tx payd.Tx) error {
				_, err := tx.DisputeGetByProviderID(ctx, "sandbox_backup", "bank-1")
				return err
			},
			"DisputeGetByProviderID of an empty id": func(tx payd.Tx) error {
				_, err := tx.DisputeGetByProviderID(ctx, "sandbox", "")
				return err
			},
		} {
			wantErr(t, name, s.View(ctx, fn), payd.ErrNoRows)
		}

		// A second dispute with the provider's id is a conflict and the
		// transaction goes on; disputes without a provider id never clash.
		mustTx(t, s, func(tx payd.Tx) error {
			dup := newDispute(pay, now)
			dup.ProviderDisputeID = "bank-1"
			if err := tx.DisputeInsert(ctx, dup); !errors.Is(err, payd.ErrConflict) {
				return fmt.Errorf("DisputeInsert of a taken provider id: %v, want ErrConflict", err)
			}
			for range 2 {
				if err := tx.DisputeInsert(ctx, newDispute(pay, now)); err != nil {
					return fmt.Errorf("DisputeInsert without a provider id: %w", err)
				}
			}
			return nil
		})

		closed := now.Add(time.Hour)
		d.Status, d.ClosedAt, d.Resolution = payd.DisputeLost, &closed, "bank decided"
		d.Evidence = []payd.DisputeEvidence{{FileID: newID(payd.PrefixEvidence, now), FileName: "receipt.pdf",
			ContentType: "application/pdf", SizeBytes: 1234, UploadedAt: now}}
		mustTx(t, s, func(tx payd.Tx) error { return tx.DisputeUpdate(ctx, d) })
		get("DisputeGet after DisputeUpdate", func(tx payd.Tx) (*payd.Dispute, error) { return tx.DisputeGet(ctx, d.ID) })
		missing := newDispute(pay, now)
		wantErr(t, "DisputeUpdate of a missing dispute", s.Tx(ctx, func(tx payd.Tx) error { return tx.DisputeUpdate(ctx, missing) }), payd.ErrNoRows)
	})

	t.Run("List", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		base := ts(time.Now())
		shop, pay := disputeFixture(t, s, base)
		other := newPayment(shop, "order-other", base, base.Add(time.Hour))
		mustTx(t, s, func(tx payd.Tx) error { return tx.PaymentInsert(ctx, other) })
		// Noise: another shop's dispute and a live one of this shop.
		_, foreign := disputeFixture(t, s, base)
		live := newDispute(pay, base)
		live.Test = false

		var all []*payd.Dispute
		for i, created := range tiedTimes(base, 23) {
			p := pay
			if i%2 == 1 {
				p = other
			}
			d := newDispute(p, created)
			d.Kind = []payd.DisputeKind{payd.DisputeChargeback, payd.DisputeRetrieval, payd.DisputeComplaint}[i%3]
			d.Status = []payd.DisputeStatus{payd.DisputeOpened, payd.DisputeWon, payd.DisputeLost, payd.DisputeExpired}[i%4]
			all = append(all, d)
		}
		mustTx(t, s, func(tx payd.Tx) error {
			for _, i := range rand.Perm(len(all)) {
				if err := tx.DisputeInsert(ctx, all[i]); err != nil {
					return err
				}
			}
			if err := tx.DisputeInsert(ctx, live); err != nil {
				return err
			}
			return tx.DisputeInsert(ctx, newDispute(foreign, base))
		})
		list := func(p payd.DisputeListParams) func(payd.ListParams) (payd.Page[*payd.Dispute], error) {
			return func(lp payd.ListParams) (page payd.Page[*payd.Dispute], err error) {
				p.ListParams, p.ShopID, p.Test = lp, shop.ID, true
				err = s.View(ctx, func(tx payd.Tx) error {
					page, err = tx.DisputeList(ctx, &p)
					return err
				})
				return page, err
			}
		}
		filter := func(keep func(*payd.Dispute) bool) []*payd.Dispute { return newestWhere(all, disputeCursor, keep) }
		for _, limit := range []int{0, 1, 5, 23, 100} {
			checkPaging(t, limit, filter(func(*payd.Dispute) bool { return true }), disputeCursor, list(payd.DisputeListParams{}))
		}
		checkPaging(t, 3, filter(func(d *payd.Dispute) bool { return d.PaymentID == other.ID }), disputeCursor,
			list(payd.DisputeListParams{PaymentID: other.ID}))
		checkPaging(t, 2, filter(func(d *payd.Dispute) bool { return d.Status == payd.DisputeLost }), disputeCursor,
			list(payd.DisputeListParams{Status: payd.DisputeLost}))
		checkPaging(t, 2, filter(func(d *payd.Dispute) bool { return d.Kind == payd.DisputeRetrieval }), disputeCursor,
			list(payd.DisputeListParams{Kind: payd.DisputeRetrieval}))
		gte, lt := base.Add(-6*time.Microsecond), base.Add(-2*time.Microsecond)
		checkPaging(t, 2, filter(func(d *payd.Dispute) bool { return !d.CreatedAt.Before(gte) && d.CreatedAt.Before(lt) }), disputeCursor,
			list(payd.DisputeListParams{Created: payd.TimeRange{GTE: &gte, LT: &lt}}))

		var livePage payd.Page[*payd.Dispute]
		mustView(t, s, func(tx payd.Tx) (err error) {
			livePage, err = tx.DisputeList(ctx, &payd.DisputeListParams{ShopID: shop.ID, Test: false})
			return err
		})
		wantDiff(t, "live list", []*payd.Dispute{live}, livePage.Items)
	})

	t.Run("ListExpired", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		_, pay := disputeFixture(t, s, now)
		var due []payd.DisputeDue
		add := func(deadline time.Time, status payd.DisputeStatus) *payd.Dispute {
			d := newDispute(pay, now.Add(-time.Hour))
			d.EvidenceDeadlineAt, d.Status = deadline, status
			mustTx(t, s, func(tx payd.Tx) error { return tx.DisputeInsert(ctx, d) })
			return d
		}
		for _, c := range []struct {
			at     time.Time
			status payd.DisputeStatus
		}{{now.Add(-time.Minute), payd.DisputeOpened}, {now.Add(-time.Minute), payd.DisputeEvidenceRequired},
			{now.Add(-2 * time.Minute), payd.DisputeOpened}, {now, payd.DisputeEvidenceRequired}} {
			d := add(c.at, c.status)
			due = append(due, payd.DisputeDue{ID: d.ID, DeadlineAt: d.EvidenceDeadlineAt})
		}
		add(now.Add(time.Microsecond), payd.DisputeOpened)
		for _, st := range []payd.DisputeStatus{payd.DisputeSubmitted, payd.DisputeWon, payd.DisputeLost, payd.DisputeExpired} {
			add(now.Add(-time.Hour), st)
		}
		// A dispute whose deadline an update moved into the past is due.
		moved := add(now.Add(time.Hour), payd.DisputeOpened)
		moved.EvidenceDeadlineAt = now.Add(-3 * time.Minute)
		mustTx(t, s, func(tx payd.Tx) error { return tx.DisputeUpdate(ctx, moved) })

		want := []payd.DisputeDue{{ID: moved.ID, DeadlineAt: moved.EvidenceDeadlineAt}, due[2], due[0], due[1], due[3]}
		if due[1].ID < due[0].ID {
			want[2], want[3] = due[1], due[0]
		}
		wantDueWalk(t, "DisputeListExpired", want, func(after payd.DisputeDue, limit int) (got []payd.DisputeDue) {
			mustView(t, s, func(tx payd.Tx) (err error) {
				got, err = tx.DisputeListExpired(ctx, &payd.DisputeListExpiredParams{Now: now, After: after, Limit: limit})
				return err
			})
			return got
		})
	})

	t.Run("AmountsAndChargebackStats", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		shop, pay := disputeFixture(t, s, now)
		second := addShop(t, s, shop.MerchantID, now)
		secondPay := newPayment(second, "order-2", now, now.Add(time.Hour))
		secondPay.Status = payd.PaymentSucceeded
		old := newPayment(second, "order-old", now.Add(-40*24*time.Hour), now)
		old.Status = payd.PaymentSucceeded
		pending := newPayment(second, "order-pending", now, now.Add(time.Hour))
		livePay := newPayment(second, "order-live", now, now.Add(time.Hour))
		livePay.Status, livePay.Test = payd.PaymentSucceeded, false
		mustTx(t, s, func(tx payd.Tx) error {
			for _, p := range []*payd.Payment{secondPay, old, pending, livePay} {
				if err := tx.PaymentInsert(ctx, p); err != nil {
					return err
				}
			}
			return nil
		})
		a, b, c := newDispute(pay, now), newDispute(pay, now), newDispute(secondPay, now)
		b.Status, b.Amount = payd.DisputeLost, money.New(700, money.RUB)
		c.Kind = payd.DisputeRetrieval
		oldCB := newDispute(old, now.Add(-40*24*time.Hour))
		liveCB := newDispute(livePay, now)
		liveCB.Test = false
		mustTx(t, s, func(tx payd.Tx) error {
			for _, d := range []*payd.Dispute{a, b, c, oldCB, liveCB} {
				if err := tx.DisputeInsert(ctx, d); err != nil {
					return err
				}
			}
			return nil
		})
		var amounts []payd.DisputeAmount
		mustView(t, s, func(tx payd.Tx) (err error) { amounts, err = tx.DisputeAmounts(ctx); return err })
		var want []payd.DisputeAmount
		for _, d := range []*payd.Dispute{a, b, c, oldCB, liveCB} {
			want = append(want, payd.DisputeAmount{ID: d.ID, PaymentID: d.PaymentID, MerchantID: d.MerchantID, Test: d.Test,
				Status: d.Status, Amount: d.Amount})
		}
		slices.SortFunc(want, func(x, y payd.DisputeAmount) int { return strings.Compare(x.ID, y.ID) })
		wantDiff(t, "DisputeAmounts", want, amounts)

		// In the last 30 days of the test contour: two chargebacks (the
		// retrieval and the older one are left out) over the two payments
		// of both shops created since that succeeded.
		var cb, n int
		mustView(t, s, func(tx payd.Tx) (err error) {
			cb, n, err = tx.ChargebackStats(ctx, shop.MerchantID, true, now.Add(-30*24*time.Hour))
			return err
		})
		if cb != 2 || n != 2 {
			t.Errorf("ChargebackStats = %d chargebacks, %d payments; want 2, 2", cb, n)
		}
		mustView(t, s, func(tx payd.Tx) (err error) {
			cb, n, err = tx.ChargebackStats(ctx, shop.MerchantID, false, now.Add(-30*24*time.Hour))
			return err
		})
		if cb != 1 || n != 1 {
			t.Errorf("ChargebackStats live = %d chargebacks, %d payments; want 1, 1", cb, n)
		}
	})

	t.Run("MerchantChargebackRule", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		m := addMerchant(t, s, ts(time.Now()))
		m.Chargeback = payd.ChargebackRule{RatioBps: 250, WindowDays: 14, MinCount: 2}
		mustTx(t, s, func(tx payd.Tx) error { return tx.MerchantUpdate(ctx, m) })
		var got *payd.Merchant
		mustView(t, s, func(tx payd.Tx) (err error) { got, err = tx.MerchantGet(ctx, m.ID); return err })
		wantDiff(t, "merchant after MerchantUpdate", m, got)
	})

	t.Run("EvidenceFiles", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		f := &payd.EvidenceFile{ID: newID(payd.PrefixEvidence, now), DisputeID: newID(payd.PrefixDispute, now), ShopID: newID(payd.PrefixShop, now),
			Test: true, FileName: "счёт.pdf", ContentType: "application/pdf", SizeBytes: 5, State: payd.EvidenceReserved,
			CreatedAt: now, UploadExpiresAt: now.Add(time.Hour)}
		mustTx(t, s, func(tx payd.Tx) error { return tx.EvidenceFileInsert(ctx, f) })
		var got *payd.EvidenceFile
		mustTx(t, s, func(tx payd.Tx) (err error) { got, err = tx.EvidenceFileGetForUpdate(ctx, f.ID); return err })
		wantDiff(t, "EvidenceFileGetForUpdate", f, got)
		f.State, f.UploadedAt, f.SHA256 = payd.EvidenceUploaded, &now, "abc"
		mustTx(t, s, func(tx payd.Tx) error { return tx.EvidenceFileUpdate(ctx, f) })
		mustView(t, s, func(tx payd.Tx) (err error) { got, err = tx.EvidenceFileGet(ctx, f.ID); return err })
		wantDiff(t, "EvidenceFileGet after update", f, got)
		wantErr(t, "EvidenceFileGet of a missing id", s.View(ctx, func(tx payd.Tx) error {
			_, err := tx.EvidenceFileGet(ctx, newID(payd.PrefixEvidence, now))
			return err
		}), payd.ErrNoRows)

		// Chunks come back byte for byte, one at a time, and end with
		// ErrNoRows; binary data including NUL survives.
		chunks := [][]byte{{0x25, 0x50, 0x44, 0x46, 0x00}, bytes.Repeat([]byte{0xff, 0x00}, 4096), {0x0a}}
		for i, c := range chunks {
			mustTx(t, s, func(tx payd.Tx) error { return tx.EvidenceChunkPut(ctx, f.ID, i, c) })
		}
		for i, c := range chunks {
			var data []byte
			mustView(t, s, func(tx payd.Tx) (err error) { data, err = tx.EvidenceChunkGet(ctx, f.ID, i); return err })
			if !bytes.Equal(data, c) {
				t.Errorf("chunk %d: %d bytes back, want %d equal bytes", i, len(data), len(c))
			}
		}
		wantErr(t, "EvidenceChunkGet past the last", s.View(ctx, func(tx payd.Tx) error {
			_, err := tx.EvidenceChunkGet(ctx, f.ID, len(chunks))
			return err
		}), payd.ErrNoRows)
		mustTx(t, s, func(tx payd.Tx) error { return tx.EvidenceChunksDelete(ctx, f.ID) })
		wantErr(t, "EvidenceChunkGet after delete", s.View(ctx, func(tx payd.Tx) error {
			_, err := tx.EvidenceChunkGet(ctx, f.ID, 0)
			return err
		}), payd.ErrNoRows)
	})

	// What waits to be attached is summed per dispute and per shop
	// contour; attached files and expired links do not count, and the
	// expired unattached files are walked in (expiry, id) order and
	// removed with their chunks.
	t.Run("EvidenceWaiting", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		dsp, other := newID(payd.PrefixDispute, now), newID(payd.PrefixDispute, now)
		shop1, shop2 := newID(payd.PrefixShop, now), newID(payd.PrefixShop, now)
		file := func(dispute, shop string, test bool, size int64, expires time.Time, attached bool) *payd.EvidenceFile {
			f := &payd.EvidenceFile{ID: newID(payd.PrefixEvidence, now), DisputeID: dispute, ShopID: shop, Test: test,
				FileName: "a.pdf", ContentType: "application/pdf", SizeBytes: size, State: payd.EvidenceReserved,
				CreatedAt: now, UploadExpiresAt: expires}
			mustTx(t, s, func(tx payd.Tx) error { return tx.EvidenceFileInsert(ctx, f) })
			if attached {
				f.AttachedAt = &now
				mustTx(t, s, func(tx payd.Tx) error { return tx.EvidenceFileUpdate(ctx, f) })
			}
			return f
		}
		first := file(dsp, shop1, true, 100, now.Add(10*time.Minute), false)
		file(dsp, shop1, true, 20, now.Add(time.Hour), false)
		file(dsp, shop1, true, 1000, now.Add(time.Hour), true)              // attached
		gone1 := file(dsp, shop1, true, 3000, now.Add(-time.Minute), false) // expired
		gone2 := file(other, shop1, true, 5, now.Add(-time.Minute), false)  // expired, another dispute
		file(other, shop1, true, 7, now.Add(30*time.Minute), false)
		file(other, shop1, false, 9, now.Add(30*time.Minute), false) // live contour
		file(newID(payd.PrefixDispute, now), shop2, true, 11, now.Add(30*time.Minute), false)
		sum := func(p payd.EvidenceWaitingParams) (w payd.EvidenceWaitingSum) {
			t.Helper()
			p.Now = now
			mustView(t, s, func(tx payd.Tx) (err error) { w, err = tx.EvidenceWaiting(ctx, &p); return err })
			return w
		}
		wantDiff(t, "EvidenceWaiting of a dispute", payd.EvidenceWaitingSum{Files: 2, Bytes: 120, NextExpiry: first.UploadExpiresAt},
			sum(payd.EvidenceWaitingParams{DisputeID: dsp}))
		wantDiff(t, "EvidenceWaiting of a shop's test contour", payd.EvidenceWaitingSum{Files: 3, Bytes: 127, NextExpiry: first.UploadExpiresAt},
			sum(payd.EvidenceWaitingParams{ShopID: shop1, Test: true}))
		wantDiff(t, "EvidenceWaiting of nothing", payd.EvidenceWaitingSum{}, sum(payd.EvidenceWaitingParams{ShopID: "sh_3"}))

		want := []payd.EvidenceDue{{ID: gone1.ID, ExpiresAt: gone1.UploadExpiresAt}, {ID: gone2.ID, ExpiresAt: gone2.UploadExpiresAt}}
		slices.SortFunc(want, func(a, b payd.EvidenceDue) int { return strings.Compare(a.ID, b.ID) })
		var due []payd.EvidenceDue
		list := func(after payd.EvidenceDue, limit int) {
			mustView(t, s, func(tx payd.Tx) (err error) {
				due, err = tx.EvidenceListExpired(ctx, &payd.EvidenceListExpiredParams{Now: now, After: after, Limit: limit})
				return err
			})
		}
		list(payd.EvidenceDue{}, 10)
		wantDiff(t, "EvidenceListExpired", want, due)
		list(want[0], 10)
		wantDiff(t, "EvidenceListExpired after the first", want[1:], due)

		mustTx(t, s, func(tx payd.Tx) error { return tx.EvidenceChunkPut(ctx, gone1.ID, 0, []byte("%PDF-")) })
		mustTx(t, s, func(tx payd.Tx) error { return tx.EvidenceFileDelete(ctx, gone1.ID) })
		wantErr(t, "EvidenceFileGet after EvidenceFileDelete", s.View(ctx, func(tx payd.Tx) error {
			_, err := tx.EvidenceFileGet(ctx, gone1.ID)
			return err
		}), payd.ErrNoRows)
		wantErr(t, "EvidenceChunkGet after EvidenceFileDelete", s.View(ctx, func(tx payd.Tx) error {
			_, err := tx.EvidenceChunkGet(ctx, gone1.ID, 0)
			return err
		}), payd.ErrNoRows)
		wantErr(t, "EvidenceFileDelete of a missing id", s.Tx(ctx, func(tx payd.Tx) error {
			return tx.EvidenceFileDelete(ctx, gone1.ID)
		}), payd.ErrNoRows)
	})
}
