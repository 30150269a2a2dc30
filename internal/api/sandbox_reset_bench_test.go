package api_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/ledger"
	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/money"
)

// BenchmarkSandboxReset measures a reset of a shop with many test payments
// (PAYD_BENCH_RESET_PAYMENTS, 100000 by default), each with its capture
// entry and its event, written straight into the store; meanwhile another
// shop of another merchant creates payments one after another, and the
// median and the largest of its request times are reported beside the
// reset's duration (docs/benchmarks-history.md, "Sandbox reset"):
//
//	go test ./internal/api -run '^$' -bench SandboxReset -benchtime 1x
func BenchmarkSandboxReset(b *testing.B) {
	n := 100000
	if v, err := strconv.Atoi(os.Getenv("PAYD_BENCH_RESET_PAYMENTS")); err == nil && v > 0 {
		n = v
	}
	for _, be := range paydtest.Backends(b) {
		b.Run(be.Name, func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				var stepMu sync.Mutex
				var last time.Time
				var lastKind payd.SandboxKind
				step := func(k payd.SandboxKind) {
					stepMu.Lock()
					defer stepMu.Unlock()
					if !last.IsZero() && os.Getenv("PAYD_BENCH_RESET_STEPS") != "" {
						b.Logf("%s: %v", lastKind, time.Since(last))
					}
					last, lastKind = time.Now(), k
				}
				env := paydtest.Start(b, be, &paydtest.Options{SandboxResetStepFunc: step})
				shop, other := env.NewShop(payd.RegionRU, ""), env.NewShop(payd.RegionRU, "")
				seedTestPayments(b, env, shop, n)
				// Statistics as a shop that grew over weeks has them: on
				// PostgreSQL, tables just filled are planned as the
				// empty ones they were, by scans instead of indexes.
				if _, err := env.InspectDB().Exec("ANALYZE"); err != nil {
					b.Fatal(err)
				}
				env.AdminDo("PATCH", "/admin/v1/shops/"+other.ID, map[string]any{"requests_per_minute": 1000000, "payments_per_minute": 1000000}).Expect(b, 200)
				oc := env.As(other, false)
				done := make(chan struct{})
				var lat []time.Duration
				var wg sync.WaitGroup
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; ; i++ {
						select {
						case <-done:
							return
						default:
						}
						start := time.Now()
						oc.Post("/v1/payments", fmt.Sprintf("other-%06d", i), qrPayment("10.00")).Expect(b, 201)
						lat = append(lat, time.Since(start))
					}
				}()
				var shopRow *payd.Shop
				env.Service.Store().View(context.Background(), func(tx payd.Tx) (err error) { shopRow, err = tx.ShopGet(context.Background(), shop.ID); return err })
				b.StartTimer()
				start := time.Now()
				got, err := env.Service.ResetSandbox(context.Background(), &payd.Principal{Shop: shopRow, Mode: payd.ModeTest})
				took := time.Since(start)
				b.StopTimer()
				close(done)
				wg.Wait()
				if err != nil || got.Payments != int64(n) || got.LedgerEntries != int64(n) || got.Events != int64(n) {
					b.Fatalf("reset: %+v %v", got, err)
				}
				checkLedger(b, env)
				slices.Sort(lat)
				b.ReportMetric(took.Seconds(), "reset-s")
				if len(lat) > 0 {
					b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "other-p50-ms")
					b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "other-max-ms")
					b.ReportMetric(float64(len(lat)), "other-requests")
				}
			}
		})
	}
}

// seedTestPayments writes n succeeded test payments of shop, each with a
// capture entry and an event, a thousand to a transaction.
func seedTestPayments(b *testing.B, env *paydtest.Env, shop *paydtest.Shop, n int) {
	ctx, st, ids := context.Background(), env.Service.Store(), payd.NewIDGen()
	now := env.Clock.Now()
	s := &payd.Shop{ID: shop.ID, MerchantID: shop.MerchantID, Region: shop.Region}
	for from := 0; from < n; from += 1000 {
		if err := st.Tx(ctx, func(tx payd.Tx) error {
			for i := from; i < min(from+1000, n); i++ {
				token := make([]byte, 32)
				rand.Read(token)
				p := &payd.Payment{ID: ids.NewFor(payd.PrefixPayment, now, s.MerchantID), ShopID: s.ID, MerchantID: s.MerchantID, Region: s.Region,
					Test: true, Status: payd.PaymentSucceeded, Amount: money.New(10000, money.RUB), OrderID: fmt.Sprintf("seed-%d", i),
					CreatedAt: now, ExpiresAt: now.Add(time.Hour), CheckoutTokenHash: token}
				if err := tx.PaymentInsert(ctx, p); err != nil {
					return err
				}
				e := &ledger.Entry{ID: ids.NewFor(payd.PrefixEntry, now, s.MerchantID), At: now, Kind: ledger.KindPaymentCaptured, RefType: "payment", RefID: p.ID,
					Postings: ledger.Move(ledger.Account{Owner: ledger.ServiceOwner, Test: true, Currency: money.RUB, Bucket: ledger.ProviderClearing},
						ledger.Account{Owner: s.MerchantID, Test: true, Currency: money.RUB, Bucket: ledger.Pending, Sub: p.ID}, 10000)}
				if err := tx.LedgerPost(ctx, e); err != nil {
					return err
				}
				evID := ids.New(payd.PrefixEvent, now)
				body, _ := json.Marshal(map[string]any{"id": evID, "type": payd.EventPaymentSucceeded})
				if err := tx.EventInsert(ctx, &payd.Event{ID: evID, ShopID: s.ID, MerchantID: s.MerchantID, Test: true,
					Type: payd.EventPaymentSucceeded, ObjectID: p.ID, CreatedAt: now, Body: body,
					Delivery: payd.EventDelivery{Status: payd.DeliveryNone}}); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			b.Fatal(err)
		}
	}
}
