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
//     discrepancies, the service's own ledger accounts) and the invariant
//     checks, which read everything by design;
//   - look-ups by what carries no merchant key: a checkout token's hash,
//     a provider's own id of a payment or dispute, the merchant of a shop
//     made before merchant keys (once per process).
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
	db, own := t.q.(*sql.DB)
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
	in.q, in.sqlTx = sqlTx, sqlTx
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

func (t *tx) SettlementDaysBefore(ctx context.Context, day string, after *payd.SettlementDay, limit int) (r0 []payd.SettlementDay, err error) {
	err = t.fanOut(ctx, func(t *tx) (err error) {
		r0, err = t.settlementDaysBefore(ctx, day, after, limit)
		return err
	})
	return r0, err
}

func (t *tx) SecretsReseal(ctx context.Context, cursor string, limit int) (r0 string, r1 int, err error) {
	err = t.fanOut(ctx, func(t *tx) (err error) {
		r0, r1, err = t.secretsReseal(ctx, cursor, limit)
		return err
	})
	return r0, r1, err
}

func (t *tx) DisputeListExpired(ctx context.Context, p *payd.DisputeListExpiredParams) (r0 []payd.DisputeDue, err error) {
	err = t.fanOut(ctx, func(t *tx) (err error) {
		r0, err = t.disputeListExpired(ctx, p)
		return err
	})
	return r0, err
}

func (t *tx) EvidenceListExpired(ctx context.Context, p *payd.EvidenceListExpiredParams) (r0 []payd.EvidenceDue, err error) {
	err = t.fanOut(ctx, func(t *tx) (err error) {
		r0, err = t.evidenceListExpired(ctx, p)
		return err
	})
	return r0, err
}

func (t *tx) LedgerContours(ctx context.Context, b ledger.Bucket) (r0 []payd.LedgerContour, err error) {
	err = t.fanOut(ctx, func(t *tx) (err error) {
		r0, err = t.ledgerContours(ctx, b)
		return err
	})
	return r0, err
}

func (t *tx) DisputeAmounts(ctx context.Context) (r0 []payd.DisputeAmount, err error) {
	err = t.fanOut(ctx, func(t *tx) (err error) {
		r0, err = t.disputeAmounts(ctx)
		return err
	})
	return r0, err
}

func (t *tx) DisputeGetByProviderID(ctx context.Context, provider, providerDisputeID string) (r0 *payd.Dispute, err error) {
	err = t.fanOut(ctx, func(t *tx) (err error) {
		r0, err = t.disputeGetByProviderID(ctx, provider, providerDisputeID)
		return err
	})
	return r0, err
}

func (t *tx) IdempotencyDeleteExpired(ctx context.Context, now time.Time, limit int) (r0 int64, err error) {
	err = t.fanOut(ctx, func(t *tx) (err error) {
		r0, err = t.idempotencyDeleteExpired(ctx, now, limit)
		return err
	})
	return r0, err
}

func (t *tx) LedgerUnbalanced(ctx context.Context) (r0 []string, err error) {
	err = t.fanOut(ctx, func(t *tx) (err error) {
		r0, err = t.ledgerUnbalanced(ctx)
		return err
	})
	return r0, err
}

func (t *tx) LedgerNegativeAccounts(ctx context.Context) (r0 []string, err error) {
	err = t.fanOut(ctx, func(t *tx) (err error) {
		r0, err = t.ledgerNegativeAccounts(ctx)
		return err
	})
	return r0, err
}

func (t *tx) RefundTotals(ctx context.Context) (r0 map[string]map[string]int64, err error) {
	err = t.fanOut(ctx, func(t *tx) (err error) {
		r0, err = t.refundTotals(ctx)
		return err
	})
	return r0, err
}

func (t *tx) MerchantList(ctx context.Context, p *payd.MerchantListParams) (r0 payd.Page[*payd.Merchant], err error) {
	err = t.fanOut(ctx, func(t *tx) (err error) {
		r0, err = t.merchantList(ctx, p)
		return err
	})
	return r0, err
}

func (t *tx) EventDeleteBefore(ctx context.Context, before time.Time, limit int) (r0 int64, err error) {
	err = t.fanOut(ctx, func(t *tx) (err error) {
		r0, err = t.eventDeleteBefore(ctx, before, limit)
		return err
	})
	return r0, err
}

func (t *tx) PaymentLinkListExpired(ctx context.Context, p *payd.PaymentLinkListExpiredParams) (r0 []payd.PaymentLinkDue, err error) {
	err = t.fanOut(ctx, func(t *tx) (err error) {
		r0, err = t.paymentLinkListExpired(ctx, p)
		return err
	})
	return r0, err
}

func (t *tx) PayoutAmounts(ctx context.Context) (r0 []payd.PayoutAmount, err error) {
	err = t.fanOut(ctx, func(t *tx) (err error) {
		r0, err = t.payoutAmounts(ctx)
		return err
	})
	return r0, err
}

func (t *tx) LedgerTotalsFold(ctx context.Context, limit int) (r0 int, r1 bool, err error) {
	err = t.fanOut(ctx, func(t *tx) (err error) {
		r0, r1, err = t.ledgerTotalsFold(ctx, limit)
		return err
	})
	return r0, r1, err
}

func (t *tx) LedgerTotalMismatches(ctx context.Context) (r0 []payd.LedgerTotalMismatch, err error) {
	err = t.fanOut(ctx, func(t *tx) (err error) {
		r0, err = t.ledgerTotalMismatches(ctx)
		return err
	})
	return r0, err
}

func (t *tx) WebhookDeliveryClaim(ctx context.Context, p *payd.WebhookDeliveryClaimParams) (r0 []*payd.DeliveryWork, err error) {
	err = t.fanOut(ctx, func(t *tx) (err error) {
		r0, err = t.webhookDeliveryClaim(ctx, p)
		return err
	})
	return r0, err
}

func (t *tx) ShopCount(ctx context.Context) (r0 int, err error) {
	err = t.fanOut(ctx, func(t *tx) (err error) {
		r0, err = t.shopCount(ctx)
		return err
	})
	return r0, err
}

func (t *tx) PaymentListExpired(ctx context.Context, p *payd.PaymentListExpiredParams) (r0 []payd.PaymentDue, err error) {
	err = t.fanOut(ctx, func(t *tx) (err error) {
		r0, err = t.paymentListExpired(ctx, p)
		return err
	})
	return r0, err
}

func (t *tx) PaymentViewsStale(ctx context.Context, after string, limit int) (r0 []string, err error) {
	err = t.fanOut(ctx, func(t *tx) (err error) {
		r0, err = t.paymentViewsStale(ctx, after, limit)
		return err
	})
	return r0, err
}

func (t *tx) DiscrepancyList(ctx context.Context, lp *payd.ListParams) (r0 payd.Page[*payd.Discrepancy], err error) {
	err = t.fanOut(ctx, func(t *tx) (err error) {
		r0, err = t.discrepancyList(ctx, lp)
		return err
	})
	return r0, err
}

func (t *tx) PaymentGetByCheckoutToken(ctx context.Context, hash []byte) (r0 *payd.Payment, err error) {
	err = t.fanOut(ctx, func(t *tx) (err error) {
		r0, err = t.paymentGetByCheckoutToken(ctx, hash)
		return err
	})
	return r0, err
}
