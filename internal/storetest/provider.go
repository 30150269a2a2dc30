package storetest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/paydhq/payd"
)

func discrepancyCursor(d *payd.Discrepancy) payd.Cursor {
	return payd.Cursor{CreatedAt: d.CreatedAt, ID: d.ID}
}

func testProviderReport(t *testing.T, open func(t *testing.T) payd.Store) {
	// Each provider notification is processed once: a repeat is
	// ErrConflict, and the transaction goes on so that the service can
	// acknowledge it.
	t.Run("NotificationRecord", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		mustTx(t, s, func(tx payd.Tx) error { return tx.NotificationRecord(ctx, "sandbox", "ntf_1", now) })
		mustTx(t, s, func(tx payd.Tx) error {
			err := tx.NotificationRecord(ctx, "sandbox", "ntf_1", now.Add(time.Minute))
			if !errors.Is(err, payd.ErrConflict) {
				return fmt.Errorf("NotificationRecord of a repeat: %v, want ErrConflict", err)
			}
			// The same id from another provider is another notification.
			return tx.NotificationRecord(ctx, "sandbox_backup", "ntf_1", now)
		})
		mustTx(t, s, func(tx payd.Tx) error { return tx.NotificationRecord(ctx, "sandbox", "ntf_2", now) })
		for _, c := range []struct{ provider, id string }{{"sandbox", "ntf_1"}, {"sandbox_backup", "ntf_1"}, {"sandbox", "ntf_2"}} {
			err := s.Tx(ctx, func(tx payd.Tx) error { return tx.NotificationRecord(ctx, c.provider, c.id, now) })
			wantErr(t, "NotificationRecord of "+c.provider+" "+c.id+" again", err, payd.ErrConflict)
		}
		// A notification recorded in a transaction that rolled back was
		// not processed.
		err := s.Tx(ctx, func(tx payd.Tx) error {
			if err := tx.NotificationRecord(ctx, "sandbox", "ntf_3", now); err != nil {
				return err
			}
			return errRollback
		})
		wantErr(t, "the transaction rolled back on purpose", err, errRollback)
		mustTx(t, s, func(tx payd.Tx) error { return tx.NotificationRecord(ctx, "sandbox", "ntf_3", now) })
	})

	t.Run("Discrepancies", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		base := ts(time.Now())
		list := func(p payd.ListParams) (page payd.Page[*payd.Discrepancy], err error) {
			err = s.View(ctx, func(tx payd.Tx) error {
				page, err = tx.DiscrepancyList(ctx, &p)
				return err
			})
			return page, err
		}
		checkPaging(t, 0, nil, discrepancyCursor, list)

		var all []*payd.Discrepancy
		for i, created := range tiedTimes(base, 23) {
			all = append(all, &payd.Discrepancy{ID: newID(payd.PrefixDiscrepancy, base), PaymentID: newID(payd.PrefixPayment, base),
				Provider: "sandbox", NotificationID: fmt.Sprintf("ntf_%d", i), Kind: "payment.succeeded",
				ObjectStatus: "canceled", Detail: "late notification for a final payment", CreatedAt: created,
				ProviderPaymentID: fmt.Sprintf("sbx_%d", i)})
		}
		mustTx(t, s, func(tx payd.Tx) error {
			for _, i := range rand.Perm(len(all)) {
				if err := tx.DiscrepancyInsert(ctx, all[i]); err != nil {
					return err
				}
			}
			return nil
		})
		want := newestFirst(all, discrepancyCursor)
		for _, limit := range []int{0, 1, 2, 5, 23, 100} {
			checkPaging(t, limit, want, discrepancyCursor, list)
		}
		dup := *all[0]
		dup.Detail = "again"
		wantErr(t, "DiscrepancyInsert of a taken id", s.Tx(ctx, func(tx payd.Tx) error { return tx.DiscrepancyInsert(ctx, &dup) }), payd.ErrConflict)
		checkPaging(t, 100, want, discrepancyCursor, list)
	})
}
