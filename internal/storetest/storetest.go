// Package storetest is the conformance suite of payd.Store. It states, as
// tests, what the service relies on from its storage — lookups and their
// ErrNoRows and ErrConflict answers, list order and keyset pagination,
// scoping by shop and mode, the idempotency lock, transactions that write
// all or nothing — so that every backend (today SQLite and PostgreSQL in
// sqlstore) is held to one behaviour and cannot drift from the other.
//
// A backend's tests call Run with a function that opens a fresh, migrated
// store; every subtest opens its own, so subtests run in parallel and may
// count rows exactly.
package storetest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paydhq/payd"
)

// Run runs the suite against the stores open returns. open must give a new,
// empty, migrated store on each call and close it when t ends.
func Run(t *testing.T, open func(t *testing.T) payd.Store) {
	t.Helper()
	t.Run("Ready", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		if err := s.Ready(t.Context()); err != nil {
			t.Fatalf("Ready after migration: %v", err)
		}
	})
	groups := []struct {
		name string
		run  func(t *testing.T, open func(t *testing.T) payd.Store)
	}{
		{"Merchant", testMerchant},
		{"Shop", testShop},
		{"Key", testKey},
		{"Idempotency", testIdempotency},
		{"IdempotencyClaim", testIdempotencyClaim},
		{"Payment", testPayment},
		{"PaymentViewsStale", testPaymentViewsStale},
		{"PaymentViewGet", testPaymentViewGet},
		{"PaymentViewsAtOnce", testPaymentViewsAtOnce},
		{"Refund", testRefund},
		{"Settlement", testSettlement},
		{"Ledger", testLedger},
		{"LedgerTotals", testLedgerTotals},
		{"Freeze", testFreeze},
		{"Holiday", testHoliday},
		{"ProviderReport", testProviderReport},
		{"Secret", testSecret},
		{"SandboxAttempt", testSandboxAttempt},
		{"Dispute", testDispute},
		{"OperatorQueue", testOperatorQueue},
		{"Payout", testPayout},
		{"PaymentLink", testLink},
		{"Event", testEvent},
		{"EventFeed", testEventFeed},
		{"SandboxReset", testSandboxReset},
		{"WebhookEndpoint", testWebhookEndpoint},
		{"ProviderRoute", testProviderRoute},
		{"Tx", testTx},
		{"WebhookDelivery", testWebhookDelivery},
		{"WebhookDeliveryClaimConcurrent", testDeliveryClaimConcurrent},
		{"EventDeliveryCount", testEventDeliveryCount},
		{"DeliveryAttempt", testDeliveryAttempt},
		{"User", testUser},
		{"Session", testSession},
		{"SignInGuard", testSignInGuard},
		{"Audit", testAudit},
		{"Staff", testStaff},
		{"StaffSessions", testStaffSessions},
		{"OperatorAudit", testOperatorAudit},
		{"Proposal", testProposal},
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			t.Parallel()
			g.run(t, open)
		})
	}
}

// ids is shared by all subtests; IDGen is safe for concurrent use.
var ids = payd.NewIDGen()

// newID makes identifiers as the service does, carrying a merchant's key
// (payd.IDGen.NewFor): the suite's objects all carry one, so that a store
// on a cluster finds each where its merchant's rows are, whatever merchant
// id a case gives them.
func newID(prefix string, at time.Time) string { return ids.NewFor(prefix, at, suiteMerchant) }

// suiteMerchant is the merchant whose key the suite's identifiers carry.
var suiteMerchant = ids.New(payd.PrefixMerchant, time.Now())

// ts is t as the stores keep it: UTC with microsecond precision. Values
// built this way compare equal after a round trip.
func ts(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

func ptr[T any](v T) *T { return &v }

// dialect names the backend of s, or "" when it does not say. A few checks
// (concurrent transactions) only make sense where several connections can
// hold transactions at once.
func dialect(s payd.Store) string {
	if d, ok := s.(interface{ Dialect() string }); ok {
		return d.Dialect()
	}
	return ""
}

// mustTx runs fn in a transaction and fails the test if it does not commit.
// fn must report problems by returning an error, never by t.Fatal: a
// goroutine that exits inside fn leaves the transaction open, and on
// PostgreSQL its locks would then block the schema drop at cleanup.
func mustTx(t *testing.T, s payd.Store, fn func(tx payd.Tx) error) {
	t.Helper()
	if err := s.Tx(t.Context(), fn); err != nil {
		t.Fatalf("Tx: %v", err)
	}
}

// mustView runs fn with View and fails the test on an error.
func mustView(t *testing.T, s payd.Store, fn func(tx payd.Tx) error) {
	t.Helper()
	if err := s.View(t.Context(), fn); err != nil {
		t.Fatalf("View: %v", err)
	}
}

// wantErr fails unless errors.Is(err, target).
func wantErr(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s: error %v, want %v", what, err, target)
	}
}

// wantDiff reports a difference between want and got.
// wantDueWalk checks an expiry sweep's read of due rows: all of them in
// one read, and the same walked two at a time from the last one seen.
func wantDueWalk[D any](t *testing.T, name string, want []D, list func(after D, limit int) []D) {
	t.Helper()
	var after D
	wantDiff(t, name, want, list(after, 10))
	var walked []D
	for range 5 {
		page := list(after, 2)
		walked = append(walked, page...)
		if len(page) < 2 {
			break
		}
		after = page[len(page)-1]
	}
	wantDiff(t, name+" two at a time", want, walked)
}

// wantRead reads through fn in a transaction and compares what it read
// with want.
func wantRead[T any](t *testing.T, s payd.Store, what string, want T, fn func(tx payd.Tx) (T, error)) {
	t.Helper()
	var got T
	mustTx(t, s, func(tx payd.Tx) (err error) { got, err = fn(tx); return err })
	wantDiff(t, what, want, got)
}

func wantDiff(t *testing.T, what string, want, got any) {
	t.Helper()
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", what, d)
	}
}

// newestWhere is the items keep keeps, in list order (newestFirst): what
// a filtered list must answer.
func newestWhere[T any](items []T, key func(T) payd.Cursor, keep func(T) bool) []T {
	var out []T
	for _, it := range items {
		if keep(it) {
			out = append(out, it)
		}
	}
	return newestFirst(out, key)
}

// newestFirst sorts items as every list of the store does: created_at
// descending, then id descending.
func newestFirst[T any](items []T, key func(T) payd.Cursor) []T {
	out := slices.Clone(items)
	slices.SortFunc(out, func(a, b T) int {
		ka, kb := key(a), key(b)
		if c := kb.CreatedAt.Compare(ka.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(kb.ID, ka.ID)
	})
	return out
}

// checkPaging walks a list with the given limit from the first page to the
// one whose Next is nil and checks that the pages together are want, in
// order: no item twice, none skipped. Every page that has a Next must be
// full and its Next must be the position of its last item; no page may be
// empty unless the whole list is.
func checkPaging[T any](t *testing.T, limit int, want []T, key func(T) payd.Cursor,
	list func(p payd.ListParams) (payd.Page[T], error)) {
	t.Helper()
	size := limit
	if size <= 0 || size > payd.MaxPageSize {
		size = payd.DefaultPageSize
	}
	var got []T
	var after *payd.Cursor
	for n := 1; ; n++ {
		if n > len(want)+2 {
			t.Fatalf("limit %d: still not at the end after %d pages; the cursor does not advance", limit, n-1)
		}
		page, err := list(payd.ListParams{Limit: limit, After: after})
		if err != nil {
			t.Fatalf("limit %d, page %d: %v", limit, n, err)
		}
		if len(page.Items) > size {
			t.Errorf("limit %d, page %d: %d items, more than the page size %d", limit, n, len(page.Items), size)
		}
		if len(page.Items) == 0 && len(want) > 0 {
			t.Errorf("limit %d, page %d: empty page; the previous page should have had a nil Next", limit, n)
		}
		got = append(got, page.Items...)
		if page.Next == nil {
			break
		}
		if len(page.Items) != size {
			t.Errorf("limit %d, page %d: %d items and a Next; a page before the end must be full (%d)", limit, n, len(page.Items), size)
		}
		if len(page.Items) > 0 {
			wantDiff(t, "Next cursor of a page", key(page.Items[len(page.Items)-1]), *page.Next)
		}
		after = page.Next
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("limit %d: items of all pages mismatch (-want +got):\n%s", limit, d)
	}
}

// eachWorker runs fn for workers goroutines at once, each for its items
// one after another, and fails the test with the first error once all
// have ended: t.Fatal is never called from the goroutines themselves.
func eachWorker(t *testing.T, workers, items int, fn func(w, i int) error) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range items {
				if err := fn(w, i); err != nil {
					errs <- fmt.Errorf("worker %d, item %d: %w", w, i, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}
