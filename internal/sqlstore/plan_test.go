package sqlstore_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/internal/sqlstore"
	"github.com/paydhq/payd/money"
)

// TestListPlansWalkAnIndex asks each database for its plan of every list
// page — every list, each filter, first and later pages — on tables that
// were just created, so that the planner's statistics say they are empty:
// the statistics a fresh deployment has long after it filled up, under
// which PostgreSQL used to read and sort every row older than the cursor.
// Every plan must walk an index in the cursor's order: no sort, no bitmap
// or full scan.
func TestListPlansWalkAnIndex(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		s := migratedForPlans(t, b)
		after := &payd.Cursor{CreatedAt: time.Now(), ID: "pay_01M8ACYVQ3DNEV7HQKFPGB8KFS"}
		since := time.Now().Add(-time.Hour)
		created := payd.TimeRange{GTE: &since}
		lists := map[string]func(ctx context.Context, tx payd.Tx, lp payd.ListParams) error{
			"payments": func(ctx context.Context, tx payd.Tx, lp payd.ListParams) error {
				_, err := tx.PaymentViewList(ctx, &payd.PaymentListParams{ListParams: lp, ShopID: "sh_1", Test: true})
				return err
			},
			"payments by status": func(ctx context.Context, tx payd.Tx, lp payd.ListParams) error {
				_, err := tx.PaymentViewList(ctx, &payd.PaymentListParams{ListParams: lp, ShopID: "sh_1", Test: true, Status: payd.PaymentSucceeded})
				return err
			},
			"payments by method": func(ctx context.Context, tx payd.Tx, lp payd.ListParams) error {
				_, err := tx.PaymentViewList(ctx, &payd.PaymentListParams{ListParams: lp, ShopID: "sh_1", Test: true, Method: payd.MethodSBP,
					Status: payd.PaymentSucceeded, Created: created})
				return err
			},
			"payments by order id": func(ctx context.Context, tx payd.Tx, lp payd.ListParams) error {
				_, err := tx.PaymentViewList(ctx, &payd.PaymentListParams{ListParams: lp, ShopID: "sh_1", Test: true, OrderID: "o-1", Status: payd.PaymentPending})
				return err
			},
			"payments by creation": func(ctx context.Context, tx payd.Tx, lp payd.ListParams) error {
				_, err := tx.PaymentViewList(ctx, &payd.PaymentListParams{ListParams: lp, ShopID: "sh_1", Test: true, Created: created})
				return err
			},
			"refunds": func(ctx context.Context, tx payd.Tx, lp payd.ListParams) error {
				_, err := tx.RefundList(ctx, &payd.RefundListParams{ListParams: lp, ShopID: "sh_1", Test: true})
				return err
			},
			"refunds by payment": func(ctx context.Context, tx payd.Tx, lp payd.ListParams) error {
				_, err := tx.RefundList(ctx, &payd.RefundListParams{ListParams: lp, ShopID: "sh_1", Test: true, PaymentID: "pay_1"})
				return err
			},
			"refunds by status": func(ctx context.Context, tx payd.Tx, lp payd.ListParams) error {
				_, err := tx.RefundList(ctx, &payd.RefundListParams{ListParams: lp, ShopID: "sh_1", Test: true, Status: payd.RefundPending})
				return err
			},
			"events": func(ctx context.Context, tx payd.Tx, lp payd.ListParams) error {
				_, err := tx.EventList(ctx, &payd.EventListParams{ListParams: lp, ShopID: "sh_1", Test: true, Created: created})
				return err
			},
			"events by type": func(ctx context.Context, tx payd.Tx, lp payd.ListParams) error {
				_, err := tx.EventList(ctx, &payd.EventListParams{ListParams: lp, ShopID: "sh_1", Test: true, Type: payd.EventPaymentSucceeded})
				return err
			},
			"events by object": func(ctx context.Context, tx payd.Tx, lp payd.ListParams) error {
				_, err := tx.EventList(ctx, &payd.EventListParams{ListParams: lp, ShopID: "sh_1", Test: true, ObjectID: "pay_1"})
				return err
			},
			"settlements": func(ctx context.Context, tx payd.Tx, lp payd.ListParams) error {
				_, err := tx.SettlementList(ctx, &payd.SettlementListParams{ListParams: lp, MerchantID: "mer_1", Test: true,
					PeriodFrom: "2026-01-01", Currency: money.RUB, Status: payd.SettlementPaid})
				return err
			},
			"settlement queue": func(ctx context.Context, tx payd.Tx, lp payd.ListParams) error {
				_, err := tx.SettlementQueue(ctx, &payd.SettlementQueueParams{ListParams: lp, Currency: money.RUB})
				return err
			},
			"settlement queue by state": func(ctx context.Context, tx payd.Tx, lp payd.ListParams) error {
				_, err := tx.SettlementQueue(ctx, &payd.SettlementQueueParams{ListParams: lp, Test: true, Status: payd.SettlementApproved,
					Currency: money.RUB})
				return err
			},
			"settlement queue of a merchant": func(ctx context.Context, tx payd.Tx, lp payd.ListParams) error {
				_, err := tx.SettlementQueue(ctx, &payd.SettlementQueueParams{ListParams: lp, MerchantID: "mer_1", Status: payd.SettlementSent})
				return err
			},
			"dispute queue": func(ctx context.Context, tx payd.Tx, lp payd.ListParams) error {
				_, err := tx.DisputeQueue(ctx, &payd.DisputeQueueParams{ListParams: lp, Statuses: payd.DisputeAwaitingAnswer()})
				return err
			},
			"dispute queue of a merchant": func(ctx context.Context, tx payd.Tx, lp payd.ListParams) error {
				_, err := tx.DisputeQueue(ctx, &payd.DisputeQueueParams{ListParams: lp, MerchantID: "mer_1", Test: true,
					Statuses: []payd.DisputeStatus{payd.DisputeWon, payd.DisputeSubmitted}})
				return err
			},
			"disputes": func(ctx context.Context, tx payd.Tx, lp payd.ListParams) error {
				_, err := tx.DisputeList(ctx, &payd.DisputeListParams{ListParams: lp, ShopID: "sh_1", Test: true,
					Status: payd.DisputeOpened, Kind: payd.DisputeChargeback, Created: created})
				return err
			},
			"disputes by payment": func(ctx context.Context, tx payd.Tx, lp payd.ListParams) error {
				_, err := tx.DisputeList(ctx, &payd.DisputeListParams{ListParams: lp, ShopID: "sh_1", Test: true, PaymentID: "pay_1"})
				return err
			},
			"payouts": func(ctx context.Context, tx payd.Tx, lp payd.ListParams) error {
				_, err := tx.PayoutList(ctx, &payd.PayoutListParams{ListParams: lp, ShopID: "sh_1", Test: true,
					Status: payd.PayoutSucceeded, OrderID: "o-1", Created: created})
				return err
			},
			"payment links": func(ctx context.Context, tx payd.Tx, lp payd.ListParams) error {
				_, err := tx.PaymentLinkList(ctx, &payd.PaymentLinkListParams{ListParams: lp, ShopID: "sh_1", Test: true})
				return err
			},
			"merchants": func(ctx context.Context, tx payd.Tx, lp payd.ListParams) error {
				_, err := tx.MerchantList(ctx, &payd.MerchantListParams{ListParams: lp})
				return err
			},
			"shops": func(ctx context.Context, tx payd.Tx, lp payd.ListParams) error {
				_, err := tx.ShopList(ctx, &payd.ShopListParams{ListParams: lp})
				return err
			},
			"shops of a merchant": func(ctx context.Context, tx payd.Tx, lp payd.ListParams) error {
				_, err := tx.ShopList(ctx, &payd.ShopListParams{ListParams: lp, MerchantID: "mer_1"})
				return err
			},
			"discrepancies": func(ctx context.Context, tx payd.Tx, lp payd.ListParams) error {
				_, err := tx.DiscrepancyList(ctx, &lp)
				return err
			},
			"audit": func(ctx context.Context, tx payd.Tx, lp payd.ListParams) error {
				_, err := tx.AuditList(ctx, &payd.AuditListParams{ListParams: lp, MerchantID: "mer_1"})
				return err
			},
		}
		for name, list := range lists {
			for _, lp := range []payd.ListParams{{Limit: 100}, {Limit: 100, After: after}} {
				var plans []string
				ctx := sqlstore.WithPlans(t.Context(), func(query, plan string) { plans = append(plans, plan) })
				if err := s.View(ctx, func(tx payd.Tx) error { return list(ctx, tx, lp) }); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				// One page, one walk; the dispute queue walks once per
				// status.
				if len(plans) == 0 {
					t.Fatalf("%s: no plan recorded", name)
				}
				for _, plan := range plans {
					if bad := planProblem(b.Name, plan); bad != "" {
						t.Errorf("%s (cursor %v): %s in the plan:\n%s", name, lp.After != nil, bad, plan)
					}
				}
			}
		}
	})
}

// TestResetPicksWalkTheListIndex: each batch of a sandbox reset picks its
// objects in the statement that deletes them, and the pick must walk the
// list index of the shop's test rows, also on a fresh database whose
// statistics say the tables are empty. A pick planned as a scan read
// again, for each batch, past every row the batches before it had
// deleted (docs/benchmarks-history.md, "Sandbox reset: answers past the
// write timeout, batches per database").
func TestResetPicksWalkTheListIndex(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		s := migratedForPlans(t, b)
		for _, kind := range []payd.SandboxKind{payd.SandboxRefunds, payd.SandboxDisputes, payd.SandboxPayouts,
			payd.SandboxPaymentLinks, payd.SandboxPayments, payd.SandboxEvents} {
			var picks []string
			ctx := sqlstore.WithPlans(t.Context(), func(query, plan string) {
				if !strings.Contains(query, "LIMIT") {
					t.Errorf("%s: a plan of a statement that is no pick: %s", kind, query)
				}
				if bad := planProblem(b.Name, plan); bad != "" {
					t.Errorf("%s: %s in the plan of its pick:\n%s", kind, bad, plan)
				}
				picks = append(picks, plan)
			})
			err := s.Tx(ctx, func(tx payd.Tx) error {
				_, _, err := tx.SandboxDelete(ctx, &payd.SandboxDeleteParams{ShopID: "sh_1", MerchantID: "mer_1", Kind: kind, Limit: 1000})
				return err
			})
			if err != nil {
				t.Fatalf("%s: %v", kind, err)
			}
			if len(picks) != 1 {
				t.Errorf("%s: %d plans recorded, want the pick's one", kind, len(picks))
			}
		}
	})
}

// The ledger's reads that must not grow with history go through their
// own indexes, also on a fresh database whose statistics say the tables
// are empty: a register's read of its day is one range of
// ledger_postings_owner_at, not a walk of every posting of the contour
// (migration 0023); the balance read walks the owner-level totals only,
// not the primary key that also holds a total for every payment's
// sub-accounts (migration 0025); the fold's search walks the records of
// opened slots, not the totals (migration 0027).
func TestLedgerPlansUseTheirIndexes(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		s := migratedForPlans(t, b)
		for _, c := range []struct {
			name, index string
			explain     func(context.Context) (string, error)
		}{
			{"a register's read of its day", "ledger_postings_owner_at", s.ExplainLedgerDay},
			{"the balance read", "ledger_totals_owner_level", s.ExplainLedgerBuckets},
			{"the fold's search", "ledger_totals_opened", s.ExplainOpenedTotals},
		} {
			plan, err := c.explain(t.Context())
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if !strings.Contains(plan, c.index) {
				t.Errorf("%s does not read %s:\n%s", c.name, c.index, plan)
			}
		}
	})
}

// planProblem names what keeps a plan from being an index walk in order,
// or returns "".
func planProblem(db, plan string) string {
	if db == "sqlite" {
		for _, line := range strings.Split(plan, "\n") {
			switch {
			case strings.Contains(line, "TEMP B-TREE"):
				return "a sort"
			case strings.HasPrefix(line, "SCAN ") && !strings.Contains(line, " USING "):
				return "a full scan"
			}
		}
		if !strings.Contains(plan, "USING INDEX") && !strings.Contains(plan, "USING COVERING INDEX") {
			return "no index"
		}
		return ""
	}
	for _, bad := range []string{"Sort", "Bitmap", "Seq Scan"} {
		if strings.Contains(plan, bad) {
			return bad
		}
	}
	if !strings.Contains(plan, "Index Scan") && !strings.Contains(plan, "Index Only Scan") {
		return "no index scan"
	}
	return ""
}

// migratedForPlans is a freshly migrated store whose plans a test reads:
// its tables are empty and their statistics say so.
func migratedForPlans(t *testing.T, b paydtest.Backend) *sqlstore.Store {
	t.Helper()
	skipDistributedPlans(t, b)
	s := openUnmigrated(t, b)
	if _, err := s.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	return s
}

// skipDistributedPlans skips a plan check on a Citus coordinator: its plan
// of a statement is the distributed one; the shards' own plans are
// PostgreSQL's, which the postgres backend checks.
func skipDistributedPlans(t *testing.T, b paydtest.Backend) {
	t.Helper()
	if b.Name == "citus" {
		t.Skip("plans of a Citus coordinator are distributed plans; the shards' are checked on postgres")
	}
}
