package payd_test

import (
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// TestAdvanceTestClock: a sandbox moves the test clock from the lead it
// saw, so requests sent at once with the same lead move it once and
// write one entry; a request that saw an older lead moves nothing; live
// data and a move that is not forward are refused; and once a second
// merchant runs on the clock every move is refused, leaving the clock
// and the log as they were.
func TestAdvanceTestClock(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, be paydtest.Backend) {
		clock := &payd.TestClock{}
		b := setupUsersWith(t, be, func(c *payd.Config) { c.Clock = clock })
		shop, err := b.svc.CreateShop(b.ctx, payd.ShopCreate{MerchantID: b.m.ID, Region: payd.RegionRU, Name: "Shop"})
		if err != nil {
			t.Fatal(err)
		}
		dev := b.user(t, "dev@shop.example", payd.RoleDeveloper)
		actor := &payd.Actor{UserID: dev.ID, Email: dev.Email, Addr: "192.0.2.7"}
		sandbox := &payd.Principal{Shop: shop, Mode: payd.ModeTest, Actor: actor}
		moves := func() []*payd.AuditEntry {
			t.Helper()
			page, err := b.svc.ListAudit(b.ctx, b.m.ID, payd.AuditListParams{ListParams: payd.ListParams{Limit: payd.MaxPageSize}})
			if err != nil {
				t.Fatal(err)
			}
			var out []*payd.AuditEntry
			for _, e := range page.Items {
				if e.Action == payd.AuditAdvanceTestClock {
					out = append(out, e)
				}
			}
			return out
		}

		live := &payd.Principal{Shop: shop, Mode: payd.ModeLive, Actor: actor}
		if _, _, err := b.svc.AdvanceTestClock(b.ctx, live, payd.TestClockAdvance{By: time.Hour}); payd.ErrorCodeOf(err) != payd.CodeForbidden {
			t.Errorf("a move from live data = %v, want forbidden", err)
		}
		if _, _, err := b.svc.AdvanceTestClock(b.ctx, sandbox, payd.TestClockAdvance{}); payd.ErrorCodeOf(err) != payd.CodeInvalidRequest {
			t.Errorf("a move of nothing = %v, want invalid_request", err)
		}

		// The same form sent many times at once: one move, one entry.
		from := clock.Lead()
		var moved atomic.Int32
		var wg sync.WaitGroup
		for range 6 {
			wg.Go(func() {
				_, ok, err := b.svc.AdvanceTestClock(b.ctx, sandbox, payd.TestClockAdvance{By: time.Hour, From: from})
				if err != nil {
					t.Error(err)
				}
				if ok {
					moved.Add(1)
				}
			})
		}
		wg.Wait()
		if moved.Load() != 1 || clock.Lead()-from != time.Hour {
			t.Fatalf("%d of the requests moved the clock, by %s in all; want one, by an hour", moved.Load(), clock.Lead()-from)
		}
		got := moves()
		if len(got) != 1 || got[0].ObjectID != payd.AuditObjectTestClock || !strings.HasPrefix(got[0].Detail, "+1h0m0s, to ") ||
			got[0].UserEmail != dev.Email || got[0].Addr != "192.0.2.7" || got[0].ShopID != shop.ID || got[0].Mode != payd.ModeTest {
			t.Fatalf("entries of the move = %+v, want one of +1h0m0s by %s", got, dev.Email)
		}

		// A form that saw the clock before that move moves nothing.
		lead := clock.Lead()
		if now, ok, err := b.svc.AdvanceTestClock(b.ctx, sandbox, payd.TestClockAdvance{By: time.Hour, From: from}); err != nil || ok ||
			clock.Lead() != lead || now.Before(time.Now().Add(lead-time.Minute)) {
			t.Fatalf("a stale form: moved %v at %s, %v; lead %s, want %s", ok, now, err, clock.Lead(), lead)
		}
		// One that saw the clock as it is moves it again.
		if _, ok, err := b.svc.AdvanceTestClock(b.ctx, sandbox, payd.TestClockAdvance{By: 10 * time.Minute, From: lead}); err != nil || !ok ||
			clock.Lead() != lead+10*time.Minute || len(moves()) != 2 {
			t.Fatalf("a fresh form: moved %v, %v; lead %s, %d entries", ok, err, clock.Lead(), len(moves()))
		}

		// A second merchant: the clock is every merchant's, and the
		// operator's alone to move.
		if _, err := b.svc.CreateMerchant(b.ctx, payd.MerchantCreate{Name: "Other"}); err != nil {
			t.Fatal(err)
		}
		lead = clock.Lead()
		if _, _, err := b.svc.AdvanceTestClock(b.ctx, sandbox, payd.TestClockAdvance{By: time.Hour, From: lead}); !errors.Is(err, payd.ErrTestClockShared) {
			t.Fatalf("a move of a shared clock = %v, want ErrTestClockShared", err)
		}
		if clock.Lead() != lead || len(moves()) != 2 {
			t.Fatalf("the refused move: lead %s (was %s), %d entries (were 2)", clock.Lead(), lead, len(moves()))
		}
	})
}
