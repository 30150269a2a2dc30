package payd

import (
	"context"

	"github.com/paydhq/payd/internal/ledger"
	"github.com/paydhq/payd/money"
)

// ChangeDeposit withholds a security deposit from a merchant's available
// money (hold) or gives it back (release), as an operator decides; each is
// one ledger entry. A hold may drive available negative, which freezes
// payouts like any debt.
func (s *Service) ChangeDeposit(ctx context.Context, merchantID string, test bool, amt money.Amount, hold bool) (map[money.Currency]map[ledger.Bucket]int64, error) {
	if !amt.Currency.Valid() {
		return nil, Invalid("amount.currency", "currency must be one of RUB, KZT, USD, EUR")
	}
	if amt.Minor <= 0 {
		return nil, Invalid("amount.value", "the amount must be above zero")
	}
	var out map[money.Currency]map[ledger.Bucket]int64
	err := s.store.Tx(ctx, func(tx Tx) error {
		if _, err := tx.MerchantGetForUpdate(ctx, merchantID); err != nil {
			return notFoundAs(err, "merchant")
		}
		available := merchantAccount(merchantID, test, amt.Currency, ledger.Available, "")
		deposit := merchantAccount(merchantID, test, amt.Currency, ledger.Deposit, "")
		kind, move := ledger.KindDepositWithheld, ledger.Move(available, deposit, amt.Minor)
		if !hold {
			held, err := tx.LedgerAccountBalance(ctx, deposit)
			if err != nil {
				return err
			}
			if amt.Minor > held {
				return Invalid("amount.value", "only %s is held", money.FormatValue(held))
			}
			kind, move = ledger.KindDepositReleased, ledger.Move(deposit, available, amt.Minor)
		}
		if err := s.post(ctx, tx, kind, "merchant", merchantID, move); err != nil {
			return err
		}
		if err := s.autoFreeze(ctx, tx, merchantID, test); err != nil {
			return err
		}
		var err error
		out, err = tx.LedgerBuckets(ctx, merchantID, test)
		return err
	})
	return out, err
}
