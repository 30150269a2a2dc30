package api_test

import (
	"context"
	"strings"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/ledger"
	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/money"
)

// TestLedgerCheckFindsBrokenDisputes breaks each dispute invariant of the
// ledger check behind the service's back and checks that the operator's
// check names it, then mends it and checks that the check passes again: a
// check that cannot fail would prove nothing in the other tests.
func TestLedgerCheckFindsBrokenDisputes(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env, shop, c := startM2(t, b)
		pay := paidPayment(t, c, "1000.00")
		open := openDispute(t, c, pay, map[string]any{"amount": rub("300.00")})["id"].(string)
		lost := openDispute(t, c, pay, map[string]any{"amount": rub("100.00")})["id"].(string)
		simulateDispute(t, c, lost, "lost")
		waitDispute(t, c, lost, "lost")
		checkLedger(t, env)

		ctx, ids := context.Background(), payd.NewIDGen()
		st := env.Service.Store()
		editPayment := func(f func(p *payd.Payment)) {
			t.Helper()
			if err := st.Tx(ctx, func(tx payd.Tx) error {
				p, err := tx.PaymentGetForUpdate(ctx, pay)
				if err != nil {
					return err
				}
				f(p)
				return tx.PaymentUpdate(ctx, p)
			}); err != nil {
				t.Fatal(err)
			}
		}
		post := func(from, to ledger.Account, amount int64) {
			t.Helper()
			now := env.Clock.Now()
			merchant := from.Owner
			if merchant == ledger.ServiceOwner {
				merchant = to.Owner
			}
			e := &ledger.Entry{ID: ids.NewFor(payd.PrefixEntry, now, merchant), At: now, Kind: "test_tamper", RefType: "dispute", RefID: open,
				Postings: ledger.Move(from, to, amount)}
			if err := st.Tx(ctx, func(tx payd.Tx) error { return tx.LedgerPost(ctx, e) }); err != nil {
				t.Fatal(err)
			}
		}
		expectProblem := func(want string) {
			t.Helper()
			var res struct {
				OK       bool
				Problems []string
			}
			env.AdminDo("GET", "/admin/v1/ledger/check", nil).Expect(t, 200).Decode(t, &res)
			if res.OK || !strings.Contains(strings.Join(res.Problems, "\n"), want) {
				t.Fatalf("ledger check = %v %v, want a problem naming %q", res.OK, res.Problems, want)
			}
		}

		editPayment(func(p *payd.Payment) { p.DisputedAmount++ })
		expectProblem(pay + ": disputed_amount 30001, open disputes 30000")
		editPayment(func(p *payd.Payment) { p.DisputedAmount-- })
		checkLedger(t, env)

		editPayment(func(p *payd.Payment) { p.ChargedBackAmount -= 100 })
		expectProblem(pay + ": charged_back_amount 9900, lost and expired disputes 10000")
		editPayment(func(p *payd.Payment) { p.ChargedBackAmount += 100 })
		checkLedger(t, env)

		// Money leaving an open dispute's hold, and money left in a closed
		// one's, are both found.
		held := ledger.Account{Owner: shop.MerchantID, Test: true, Currency: money.RUB, Bucket: ledger.Disputed, Sub: open}
		closed := held
		closed.Sub = lost
		avail := ledger.Account{Owner: shop.MerchantID, Test: true, Currency: money.RUB, Bucket: ledger.Available}
		post(held, avail, 1)
		expectProblem(open + ": disputed part 29999, want 30000")
		post(avail, closed, 1)
		expectProblem(lost + ": disputed part 1, want 0")
	})
}

// TestLedgerCheckFindsStrayHolds: money in a merchant's disputed or
// pending_payouts accounts with no dispute or payout of the merchant to
// hold it is named too, not only differences in contours that have some.
func TestLedgerCheckFindsStrayHolds(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, &paydtest.Options{Stage: payd.StageM5})
		shop := env.NewShop(payd.RegionRU, "")
		checkLedger(t, env)
		ctx, ids, st := context.Background(), payd.NewIDGen(), env.Service.Store()
		avail := ledger.Account{Owner: shop.MerchantID, Test: true, Currency: money.RUB, Bucket: ledger.Available}
		for _, bucket := range []ledger.Bucket{ledger.Disputed, ledger.PendingPayouts} {
			stray := avail
			stray.Bucket, stray.Sub = bucket, "stray_"+string(bucket)
			e := &ledger.Entry{ID: ids.NewFor(payd.PrefixEntry, env.Clock.Now(), shop.MerchantID), At: env.Clock.Now(), Kind: "test_tamper", RefType: "test", RefID: "x",
				Postings: ledger.Move(avail, stray, 1)}
			if err := st.Tx(ctx, func(tx payd.Tx) error { return tx.LedgerPost(ctx, e) }); err != nil {
				t.Fatal(err)
			}
			var res struct {
				OK       bool
				Problems []string
			}
			env.AdminDo("GET", "/admin/v1/ledger/check", nil).Expect(t, 200).Decode(t, &res)
			want := "stray_" + string(bucket) + ": " + string(bucket) + " part 1, want 0"
			if res.OK || !strings.Contains(strings.Join(res.Problems, "\n"), want) {
				t.Fatalf("ledger check = %v %v, want a problem naming %q", res.OK, res.Problems, want)
			}
		}
	})
}

// TestLedgerCheckJobCountsDiscrepancies: the periodic ledger check finds
// what the operator's finds, and counts it in
// payd_ledger_check_discrepancies_total, which the drift alert reads; a
// sound ledger adds nothing.
func TestLedgerCheckJobCountsDiscrepancies(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, &paydtest.Options{Stage: payd.StageM5})
		shop := env.NewShop(payd.RegionRU, "")
		ctx := context.Background()
		ranClean := func() float64 {
			return env.Metric("payd_periodic_runs_total", "kind", "ledger_check", "outcome", "done")
		}
		paydtest.Eventually(t, "the ledger check's first run", func() bool { return ranClean() >= 1 })
		if got := env.Metric("payd_ledger_check_discrepancies_total"); got != 0 {
			t.Fatalf("discrepancies on a sound ledger = %v", got)
		}
		avail := ledger.Account{Owner: shop.MerchantID, Test: true, Currency: money.RUB, Bucket: ledger.Available}
		stray := avail
		stray.Bucket, stray.Sub = ledger.Disputed, "stray"
		e := &ledger.Entry{ID: payd.NewIDGen().NewFor(payd.PrefixEntry, env.Clock.Now(), shop.MerchantID), At: env.Clock.Now(), Kind: "test_tamper",
			RefType: "test", RefID: "x", Postings: ledger.Move(avail, stray, 1)}
		if err := env.Service.Store().Tx(ctx, func(tx payd.Tx) error { return tx.LedgerPost(ctx, e) }); err != nil {
			t.Fatal(err)
		}
		if err := env.Instance.Queue.RunPeriodicNow(ctx); err != nil {
			t.Fatal(err)
		}
		paydtest.Eventually(t, "the discrepancy counted", func() bool {
			return env.Metric("payd_ledger_check_discrepancies_total") >= 1
		})
	})
}
