package sqlstore_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/money"
)

// TestPaymentViewListRendersOlderRows: a payment written before renderings
// were kept (view is NULL), or whose rendering is of an older
// PaymentViewVersion, is listed and read (a GET, alone or with others)
// rendered from its document, exactly as one written now, and is found by
// the stale pass until it is written again.
func TestPaymentViewListRendersOlderRows(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		ctx := t.Context()
		s := openUnmigrated(t, b)
		if _, err := s.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		ids := payd.NewIDGen()
		now := time.Now().UTC().Truncate(time.Microsecond)
		m := &payd.Merchant{ID: ids.New(payd.PrefixMerchant, now), Name: "m", CreatedAt: now}
		shop := &payd.Shop{ID: ids.New(payd.PrefixShop, now), MerchantID: m.ID, Name: "s", Region: payd.RegionRU, CreatedAt: now}
		pay := &payd.Payment{ID: ids.New(payd.PrefixPayment, now), ShopID: shop.ID, MerchantID: m.ID, Region: payd.RegionRU,
			Test: true, Status: payd.PaymentPending, Amount: money.New(12345, money.RUB), OrderID: "old-1",
			Metadata: map[string]string{"k": "v"}, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
		err := s.Tx(ctx, func(tx payd.Tx) error {
			if err := tx.MerchantInsert(ctx, m); err != nil {
				return err
			}
			if err := tx.ShopInsert(ctx, shop); err != nil {
				return err
			}
			return tx.PaymentInsert(ctx, pay)
		})
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(pay.View(""))
		list := func() string {
			t.Helper()
			var page payd.Page[*payd.PaymentView]
			if err := s.View(ctx, func(tx payd.Tx) (err error) {
				page, err = tx.PaymentViewList(ctx, &payd.PaymentListParams{ShopID: shop.ID, Test: true})
				return err
			}); err != nil {
				t.Fatal(err)
			}
			if len(page.Items) != 1 {
				t.Fatalf("listed %d payments, want 1", len(page.Items))
			}
			var one *payd.PaymentView
			if err := s.View(ctx, func(tx payd.Tx) (err error) { one, err = tx.PaymentViewGet(ctx, pay.ID); return err }); err != nil {
				t.Fatal(err)
			}
			if one.JSON != page.Items[0].JSON {
				t.Fatalf("PaymentViewGet rendered %s, the list %s", one.JSON, page.Items[0].JSON)
			}
			// Reads made together (View's readBatch) render it so too,
			// and leave out an id with no payment. A Citus cluster reads
			// each on its merchant's worker alone.
			if batched := b.Name != "citus"; s.ReadsTogether() != batched {
				t.Fatalf("reads together on %s: %v, want %v", b.Name, s.ReadsTogether(), batched)
			} else if !batched {
				return page.Items[0].JSON
			}
			missing := ids.New(payd.PrefixPayment, now)
			together, err := s.PaymentViewsOf(ctx, []string{missing, pay.ID})
			if err != nil {
				t.Fatal(err)
			}
			if v := together[pay.ID]; len(together) != 1 || v == nil || *v != *one {
				t.Fatalf("read together: %+v, want only %+v", together, one)
			}
			return page.Items[0].JSON
		}
		stale := func() []string {
			t.Helper()
			var ids []string
			if err := s.View(ctx, func(tx payd.Tx) (err error) { ids, err = tx.PaymentViewsStale(ctx, "", 10); return err }); err != nil {
				t.Fatal(err)
			}
			return ids
		}
		for _, old := range []string{
			`UPDATE payments SET view = NULL, view_version = 0`,
			// A rendering of an older version (what it holds no longer
			// matters): the running version renders the document.
			`UPDATE payments SET view = '{"stale":true}', view_version = 0`,
		} {
			if err := s.Exec(ctx, old); err != nil {
				t.Fatal(err)
			}
			if got := list(); got != string(want) {
				t.Fatalf("after %s listed %s, want %s", old, got, want)
			}
			if ids := stale(); len(ids) != 1 || ids[0] != pay.ID {
				t.Fatalf("after %s stale %v, want [%s]", old, ids, pay.ID)
			}
		}
		// Writing the payment again stores the running version.
		if err := s.Tx(ctx, func(tx payd.Tx) error { return tx.PaymentUpdate(ctx, pay) }); err != nil {
			t.Fatal(err)
		}
		if ids := stale(); len(ids) != 0 {
			t.Fatalf("stale after an update: %v", ids)
		}
		if got := list(); got != string(want) {
			t.Fatalf("listed %s, want %s", got, want)
		}
	})
}

// TestPaymentViewStaleIndexBound: the last migration that defines
// payments_view_stale bounds it at payd.PaymentViewVersion, so raising the
// version without moving the index fails here instead of making the stale
// pass read the whole table.
func TestPaymentViewStaleIndexBound(t *testing.T) {
	files, err := filepath.Glob("migrations/*.sql")
	if err != nil || len(files) == 0 {
		t.Fatalf("migrations: %v", err)
	}
	sort.Strings(files)
	re := regexp.MustCompile(`CREATE INDEX payments_view_stale ON payments \(id\) WHERE view_version < (\d+);`)
	bound := -1
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if m := re.FindSubmatch(b); m != nil {
			bound, _ = strconv.Atoi(string(m[1]))
		}
	}
	if bound != payd.PaymentViewVersion {
		t.Fatalf("payments_view_stale is bounded at %d, want payd.PaymentViewVersion %d", bound, payd.PaymentViewVersion)
	}
}
