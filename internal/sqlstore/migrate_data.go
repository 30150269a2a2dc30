package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/ledger"
	"github.com/paydhq/payd/internal/seal"
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

// sealSteps are data steps that read or write sealed values (seal.go),
// run after dataSteps in the migration's transaction.
var sealSteps = map[int]func(ctx context.Context, s *Store, t *tx) error{
	29: sealSecretsInClear,
}

// migrationTx is a store transaction over a migration's.
func (s *Store) migrationTx(sqlTx *sql.Tx) *tx {
	return &tx{q: route(s.d, sqlTx), sqlTx: sqlTx, d: s.d, keys: s.keys, fanOutChecked: s.fanOutChecked, groups: s.groups}
}

// sealBatch is how many rows one statement of sealSecretsInClear reads.
const sealBatch = 1000

// sealSecretsInClear seals the secrets earlier versions stored in clear
// (migration 0029). It needs the key they will be read with from now on:
// a store opened without one (Options.Keyring) refuses when there is
// anything to seal, rather than seal it under a key that dies with the
// process. On SQLite the old contents are overwritten (secure_delete) and
// the WAL is emptied once the migration has committed (Store.Migrate), so
// that the file and its WAL no longer hold them; on PostgreSQL the old
// row versions stay on disk until VACUUM reclaims them (docs/security.md).
func sealSecretsInClear(ctx context.Context, s *Store, t *tx) error {
	if s.ephemeralKeys {
		n, err := secretsInClear(ctx, t)
		if err != nil || n == 0 {
			return err
		}
		return fmt.Errorf("%d secrets stored in clear must be sealed, and no secrets key is configured: give the key the service will use (--secrets-key-file or PAYD_SECRETS_KEY, docs/security.md)", n)
	}
	if s.d.Name() == "sqlite" {
		if _, err := t.q.ExecContext(ctx, `PRAGMA secure_delete = ON`); err != nil {
			return err
		}
		defer t.q.ExecContext(context.WithoutCancel(ctx), `PRAGMA secure_delete = OFF`)
		s.truncateWAL = true
	}
	cursor := ""
	for {
		next, _, err := t.resealBatch(ctx, sealedTablesAt(29), cursor, sealBatch)
		if err != nil || next == "" {
			return err
		}
		cursor = next
	}
}

// secretsInClear counts the values of the tables sealed since migration
// 0029 that are not sealed.
func secretsInClear(ctx context.Context, t *tx) (int64, error) {
	var total int64
	for _, tb := range sealedTablesAt(29) {
		for _, col := range tb.cols {
			var n int64
			// The prefix is bound as the column's type: SQLite never
			// finds a BLOB equal to a TEXT.
			var prefix any = seal.Prefix
			if tb.binary {
				prefix = []byte(seal.Prefix)
			}
			if err := t.q.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+tb.name+` WHERE length(`+col+`) > 0 AND substr(`+col+`, 1, $1) <> $2`,
				len(seal.Prefix), prefix).Scan(&n); err != nil {
				return 0, err
			}
			total += n
		}
	}
	return total, nil
}
