package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/ledger"
	"github.com/paydhq/payd/money"
)

// dataSteps are the parts of migrations that the two databases write
// differently, run in the migration's transaction after its SQL.
var dataSteps = map[int]func(ctx context.Context, tx *sql.Tx, d dialect) error{
	26: backfillSettlementDays,
}

// settlementBackfill is how far back, from the ledger's latest posting,
// migration 0026 records settlement days: the settlement run of before
// looked fourteen days back, and two more cover the regions' offsets and
// a run that had not yet come.
const settlementBackfill = 16 * 24 * time.Hour

// backfillSettlementDays records the days of the ledger's last sixteen
// days that moved a merchant's money and have no register, as the
// postings of this version record them from now on: what was due before
// the upgrade is registered by the first run after it. Each posting's day
// is its time in the calendar of its currency's region (UTC+5 for KZT,
// UTC+3 for the rest: neither region has daylight saving time).
func backfillSettlementDays(ctx context.Context, tx *sql.Tx, d dialect) error {
	offset := func(c money.Currency) int {
		_, off := time.Now().In(payd.RegionOf(c).Location()).Zone()
		return off
	}
	day := d.epochDay("at / 1000000 + CASE WHEN currency = $1 THEN CAST($2 AS BIGINT) ELSE CAST($3 AS BIGINT) END")
	if _, err := tx.ExecContext(ctx, `INSERT INTO settlement_days (merchant_id, test, currency, day)
		SELECT DISTINCT owner, test, currency, `+day+` FROM ledger_postings
		WHERE owner <> $4 AND at >= (SELECT MAX(at) FROM ledger_postings) - CAST($5 AS BIGINT)
		ON CONFLICT DO NOTHING`,
		money.KZT, offset(money.KZT), offset(money.RUB), ledger.ServiceOwner, settlementBackfill.Microseconds()); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM settlement_days WHERE EXISTS (SELECT 1 FROM settlements s
		WHERE s.merchant_id = settlement_days.merchant_id AND s.test = settlement_days.test
			AND s.currency = settlement_days.currency AND s.period_from <= settlement_days.day
			AND s.period_to >= settlement_days.day)`)
	return err
}
