package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/ledger"
	"github.com/paydhq/payd/money"
)

// On a Citus cluster a merchant's work touches its shard group and nothing
// else: every statement of it names the group (onKey). A few statements are
// the service's own and read or write every group; they are named here and
// run through fanOut, each bounded in what it reads:
//
//   - the sweeps of the periodic jobs, each a page of an index ordered by
//     due time (expiries of payments, links, disputes and evidence, the
//     retention of events and idempotency records, settlement days, stale
//     payment renderings, the fold of ledger totals, the reseal of secrets,
//     the webhook sender's claim);
//   - the operator's lists and reports (merchants, shops of all merchants,
//     discrepancies, the queues of registers and disputes of all
//     merchants, the service's own ledger accounts) and the invariant
//     checks, which read everything by design;
//   - look-ups by what carries no merchant key: a provider's own id of a
//     payment or dispute, a checkout token that names no payment (made
//     before tokens named theirs). (An identifier made
//     before merchant keys is found in the directory of such identifiers,
//     one shard, merchant_key.go.)
//
// Tests run the cluster with citus.multi_task_query_log_level = error, so
// that any other statement that would fan out fails; a store opened so
// checks its connections' setting and lifts it for these statements only.

// fanOutChecked reports whether the connections refuse statements that
// fan out (the setting above).
func fanOutChecked(ctx context.Context, q querier) (bool, error) {
	var level sql.NullString
	err := q.QueryRowContext(ctx, `SELECT current_setting('citus.multi_task_query_log_level', true)`).Scan(&level)
	return level.String == "error", err
}

// fanOut runs fn, one of the statements named above. Where fan-outs are
// refused, the refusal is lifted for fn: within the transaction, or in a
// read-only transaction of fn's own outside one.
func (t *tx) fanOut(ctx context.Context, fn func(t *tx) error) error {
	if !t.fanOutChecked {
		return fn(t)
	}
	const lift = `SELECT set_config('citus.multi_task_query_log_level', 'off', true)`
	const restore = `SELECT set_config('citus.multi_task_query_log_level', 'error', true)`
	db, own := unrouted(t.q).(*sql.DB)
	if !own {
		if _, err := t.q.ExecContext(ctx, lift); err != nil {
			return err
		}
		if err := fn(t); err != nil {
			return err
		}
		_, err := t.q.ExecContext(ctx, restore)
		return err
	}
	sqlTx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer sqlTx.Rollback()
	if _, err := sqlTx.ExecContext(ctx, lift); err != nil {
		return err
	}
	in := *t
	in.q, in.sqlTx = route(t.d, sqlTx), sqlTx
	if err := fn(&in); err != nil {
		return err
	}
	return sqlTx.Commit()
}

// ownerRead runs a read of owner's ledger rows: a merchant's are in its
// shard group; the service's are in every group, and their sums are the
// operator's report.
func ownerRead[T any](ctx context.Context, t *tx, owner string, fn func(t *tx) (T, error)) (out T, err error) {
	if owner != ledger.ServiceOwner {
		return fn(t)
	}
	return fanOutRead(ctx, t, fn)
}

// fanOutRead is fanOut for a statement that returns what it read.
func fanOutRead[T any](ctx context.Context, t *tx, fn func(t *tx) (T, error)) (out T, err error) {
	err = t.fanOut(ctx, func(t *tx) (err error) { out, err = fn(t); return err })
	return out, err
}

func (t *tx) LedgerAccountBalance(ctx context.Context, a ledger.Account) (int64, error) {
	return ownerRead(ctx, t, a.Owner, func(t *tx) (int64, error) { return t.ledgerAccountBalance(ctx, a) })
}

func (t *tx) LedgerBuckets(ctx context.Context, owner string, test bool) (map[money.Currency]map[ledger.Bucket]int64, error) {
	return ownerRead(ctx, t, owner, func(t *tx) (map[money.Currency]map[ledger.Bucket]int64, error) {
		return t.ledgerBuckets(ctx, owner, test)
	})
}

func (t *tx) LedgerBucketByCurrency(ctx context.Context, owner string, test bool, b ledger.Bucket) (map[money.Currency]int64, error) {
	return ownerRead(ctx, t, owner, func(t *tx) (map[money.Currency]int64, error) {
		return t.ledgerBucketByCurrency(ctx, owner, test, b)
	})
}

func (t *tx) LedgerSubBalances(ctx context.Context, owner string, test bool, c money.Currency, b ledger.Bucket) (map[string]int64, error) {
	return ownerRead(ctx, t, owner, func(t *tx) (map[string]int64, error) { return t.ledgerSubBalances(ctx, owner, test, c, b) })
}

// The named statements, each run through fanOut.

func (t *tx) DiscrepancyList(ctx context.Context, lp *payd.ListParams) (payd.Page[*payd.Discrepancy], error) {
	return fanOutRead(ctx, t, func(t *tx) (payd.Page[*payd.Discrepancy], error) { return t.discrepancyList(ctx, lp) })
}

func (t *tx) DisputeAmounts(ctx context.Context) ([]payd.DisputeAmount, error) {
	return fanOutRead(ctx, t, func(t *tx) ([]payd.DisputeAmount, error) { return t.disputeAmounts(ctx) })
}

func (t *tx) DisputeGetByProviderID(ctx context.Context, provider, providerDisputeID string) (*payd.Dispute, error) {
	return fanOutRead(ctx, t, func(t *tx) (*payd.Dispute, error) { return t.disputeGetByProviderID(ctx, provider, providerDisputeID) })
}

func (t *tx) EventDeleteBefore(ctx context.Context, before time.Time, limit int) (int64, error) {
	return fanOutRead(ctx, t, func(t *tx) (int64, error) { return t.eventDeleteBefore(ctx, before, limit) })
}

func (t *tx) IdempotencyDeleteExpired(ctx context.Context, now time.Time, limit int) (int64, error) {
	return fanOutRead(ctx, t, func(t *tx) (int64, error) { return t.idempotencyDeleteExpired(ctx, now, limit) })
}

func (t *tx) LedgerContours(ctx context.Context, b ledger.Bucket) ([]payd.LedgerContour, error) {
	return fanOutRead(ctx, t, func(t *tx) ([]payd.LedgerContour, error) { return t.ledgerContours(ctx, b) })
}

func (t *tx) LedgerNegativeAccounts(ctx context.Context) ([]string, error) {
	return fanOutRead(ctx, t, func(t *tx) ([]string, error) { return t.ledgerNegativeAccounts(ctx) })
}

func (t *tx) LedgerTotalMismatches(ctx context.Context) ([]payd.LedgerTotalMismatch, error) {
	return fanOutRead(ctx, t, func(t *tx) ([]payd.LedgerTotalMismatch, error) { return t.ledgerTotalMismatches(ctx) })
}

func (t *tx) LedgerTotalsFold(ctx context.Context, limit int) (folded int, more bool, err error) {
	err = t.fanOut(ctx, func(t *tx) (err error) {
		folded, more, err = t.ledgerTotalsFold(ctx, limit)
		return err
	})
	return folded, more, err
}

func (t *tx) LedgerUnbalanced(ctx context.Context) ([]string, error) {
	return fanOutRead(ctx, t, func(t *tx) ([]string, error) { return t.ledgerUnbalanced(ctx) })
}

func (t *tx) MerchantList(ctx context.Context, p *payd.MerchantListParams) (payd.Page[*payd.Merchant], error) {
	return fanOutRead(ctx, t, func(t *tx) (payd.Page[*payd.Merchant], error) { return t.merchantList(ctx, p) })
}

// PaymentGetByCheckoutToken reads every group only for a token that names
// no payment (made before tokens did, a pending payment's at most).
func (t *tx) PaymentGetByCheckoutToken(ctx context.Context, hash []byte, paymentID string) (*payd.Payment, error) {
	if paymentID != "" {
		return t.paymentGetByCheckoutToken(ctx, hash, paymentID)
	}
	return fanOutRead(ctx, t, func(t *tx) (*payd.Payment, error) { return t.paymentGetByCheckoutToken(ctx, hash, "") })
}

func (t *tx) PaymentViewsStale(ctx context.Context, after string, limit int) ([]string, error) {
	return fanOutRead(ctx, t, func(t *tx) ([]string, error) { return t.paymentViewsStale(ctx, after, limit) })
}

func (t *tx) PayoutAmounts(ctx context.Context) ([]payd.PayoutAmount, error) {
	return fanOutRead(ctx, t, func(t *tx) ([]payd.PayoutAmount, error) { return t.payoutAmounts(ctx) })
}

func (t *tx) RefundTotals(ctx context.Context) (map[string]map[string]int64, error) {
	return fanOutRead(ctx, t, func(t *tx) (map[string]map[string]int64, error) { return t.refundTotals(ctx) })
}

func (t *tx) SecretsReseal(ctx context.Context, cursor string, limit int) (next string, resealed int, err error) {
	err = t.fanOut(ctx, func(t *tx) (err error) {
		next, resealed, err = t.secretsReseal(ctx, cursor, limit)
		return err
	})
	return next, resealed, err
}

func (t *tx) ShopCount(ctx context.Context) (int, error) {
	return fanOutRead(ctx, t, func(t *tx) (int, error) { return t.shopCount(ctx) })
}

// The sweeps where a merchant or a payer waits read through readGroups
// (groupwise.go), which lifts the refusal itself and goes worker by
// worker while one is unreachable.

func (t *tx) DisputeListExpired(ctx context.Context, p *payd.DisputeListExpiredParams) ([]payd.DisputeDue, error) {
	return t.disputeListExpired(ctx, p)
}

func (t *tx) EvidenceListExpired(ctx context.Context, p *payd.EvidenceListExpiredParams) ([]payd.EvidenceDue, error) {
	return t.evidenceListExpired(ctx, p)
}

func (t *tx) PaymentLinkListExpired(ctx context.Context, p *payd.PaymentLinkListExpiredParams) ([]payd.PaymentLinkDue, error) {
	return t.paymentLinkListExpired(ctx, p)
}

func (t *tx) PaymentListExpired(ctx context.Context, p *payd.PaymentListExpiredParams) ([]payd.PaymentDue, error) {
	return t.paymentListExpired(ctx, p)
}

func (t *tx) SettlementDaysBefore(ctx context.Context, day string, after *payd.SettlementDay, limit int) ([]payd.SettlementDay, error) {
	return t.settlementDaysBefore(ctx, day, after, limit)
}

// WebhookDeliveryClaim reads every group only in its pick (claimByKey).
func (t *tx) WebhookDeliveryClaim(ctx context.Context, p *payd.WebhookDeliveryClaimParams) ([]*payd.DeliveryWork, error) {
	return t.webhookDeliveryClaim(ctx, p)
}
