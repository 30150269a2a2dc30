package payd

import (
	"context"
	"sort"

	"github.com/paydhq/payd/internal/ledger"
)

// cascade takes amount from a merchant for a dispute, as the contract's
// balance rule has it for disputes and chargebacks (Refunds: "the full
// cascade"): the payment's unreleased part first, then the positive
// available balance, then the reserve (the payment's own part, then the
// others in key order), then the deposit, and what is still missing from
// available, which may go negative — a debt that freezes payouts. It
// returns the postings that move the money to dst and the parts taken. The
// merchant must be locked.
func (s *Service) cascade(ctx context.Context, tx Tx, pay *Payment, amount int64, dst ledger.Account) ([]ledger.Posting, []HoldPart, error) {
	c := pay.Amount.Currency
	acct := func(b ledger.Bucket, sub string) ledger.Account {
		return merchantAccount(pay.MerchantID, pay.Test, c, b, sub)
	}
	var parts []HoldPart
	rest := amount
	take := func(b ledger.Bucket, sub string, have int64) {
		n := min(rest, max(0, have))
		if n <= 0 {
			return
		}
		parts = append(parts, HoldPart{Bucket: b, Sub: sub, Amount: n})
		rest -= n
	}
	unreleased, err := tx.LedgerAccountBalance(ctx, acct(ledger.Pending, pay.ID))
	if err != nil {
		return nil, nil, err
	}
	take(ledger.Pending, pay.ID, unreleased)
	available, err := tx.LedgerAccountBalance(ctx, acct(ledger.Available, ""))
	if err != nil {
		return nil, nil, err
	}
	take(ledger.Available, "", available)
	if rest > 0 {
		reserve, err := tx.LedgerSubBalances(ctx, pay.MerchantID, pay.Test, c, ledger.Reserve)
		if err != nil {
			return nil, nil, err
		}
		take(ledger.Reserve, pay.ID, reserve[pay.ID])
		subs := make([]string, 0, len(reserve))
		for sub := range reserve {
			if sub != pay.ID {
				subs = append(subs, sub)
			}
		}
		sort.Strings(subs)
		for _, sub := range subs {
			take(ledger.Reserve, sub, reserve[sub])
		}
	}
	if rest > 0 {
		deposit, err := tx.LedgerAccountBalance(ctx, acct(ledger.Deposit, ""))
		if err != nil {
			return nil, nil, err
		}
		take(ledger.Deposit, "", deposit)
	}
	if rest > 0 {
		parts = append(parts, HoldPart{Bucket: ledger.Available, Amount: rest})
	}
	parts = mergeParts(parts)
	var postings []ledger.Posting
	for _, p := range parts {
		postings = append(postings, ledger.Move(acct(p.Bucket, p.Sub), dst, p.Amount)...)
	}
	return postings, parts, nil
}

// mergeParts joins parts of the same account (the positive available part
// and the debt beyond it).
func mergeParts(parts []HoldPart) []HoldPart {
	var out []HoldPart
	for _, p := range parts {
		merged := false
		for i := range out {
			if out[i].Bucket == p.Bucket && out[i].Sub == p.Sub {
				out[i].Amount += p.Amount
				merged = true
			}
		}
		if !merged {
			out = append(out, p)
		}
	}
	return out
}

func disputedAccount(d *Dispute) ledger.Account {
	return merchantAccount(d.MerchantID, d.Test, d.Amount.Currency, ledger.Disputed, d.ID)
}

// holdDispute moves a new dispute's sum into its own part of disputed,
// by the cascade, and records where it came from.
func (s *Service) holdDispute(ctx context.Context, tx Tx, pay *Payment, d *Dispute) error {
	postings, parts, err := s.cascade(ctx, tx, pay, d.Amount.Minor, disputedAccount(d))
	if err != nil {
		return err
	}
	d.Held = parts
	pay.DisputedAmount += d.Amount.Minor
	return s.post(ctx, tx, ledger.KindDisputeHold, "dispute", d.ID, postings)
}

// releaseDispute gives a won dispute's hold back where it came from: the
// payment's unreleased part returns to pending while the payment's hold
// days are not over (to available after), deposit to deposit, and the
// rest — available, and what the reserve lent — to available.
func (s *Service) releaseDispute(ctx context.Context, tx Tx, pay *Payment, d *Dispute) error {
	c := pay.Amount.Currency
	var postings []ledger.Posting
	for _, p := range d.Held {
		b, sub := p.Bucket, p.Sub
		switch {
		case b == ledger.Pending && !pay.PendingReleased:
		case b == ledger.Deposit:
		default:
			b, sub = ledger.Available, ""
		}
		postings = append(postings, ledger.Move(disputedAccount(d), merchantAccount(d.MerchantID, d.Test, c, b, sub), p.Amount)...)
	}
	pay.DisputedAmount -= d.Amount.Minor
	return s.post(ctx, tx, ledger.KindDisputeRelease, "dispute", d.ID, postings)
}

// chargeBack closes a lost or expired dispute: the held sum goes to the
// bank (charged_back_amount), the payment's fee is returned in proportion
// as the tariff returns it for a refund, and the bank fine and the service
// fee are taken by the cascade, each in its own entry.
func (s *Service) chargeBack(ctx context.Context, tx Tx, shop *Shop, pay *Payment, d *Dispute) error {
	c := pay.Amount.Currency
	method := pay.Method()
	feeBack := shop.Settings.TariffFor(method, c).FeeReturn(pay.FeeAmount, pay.FeeRefundedAmount, pay.CapturedAmount, d.Amount.Minor)
	if err := s.post(ctx, tx, ledger.KindDisputeChargeback, "dispute", d.ID,
		ledger.Move(disputedAccount(d), serviceAccount(pay.Test, c, ledger.ProviderClearing), d.Amount.Minor),
		ledger.Move(serviceAccount(pay.Test, c, ledger.Fees), merchantAccount(d.MerchantID, d.Test, c, ledger.Available, ""), feeBack)); err != nil {
		return err
	}
	pay.DisputedAmount -= d.Amount.Minor
	pay.ChargedBackAmount += d.Amount.Minor
	pay.FeeRefundedAmount += feeBack
	d.FeeReturned = feeBack
	d.Charged = nil
	for _, f := range []struct {
		kind   ledger.EntryKind
		bucket ledger.Bucket
		amount int64
	}{{ledger.KindDisputeBankFine, ledger.BankFines, d.BankFine}, {ledger.KindDisputeServiceFee, ledger.ChargebackFees, d.ServiceFee}} {
		if f.amount <= 0 {
			continue
		}
		postings, parts, err := s.cascade(ctx, tx, pay, f.amount, serviceAccount(pay.Test, c, f.bucket))
		if err != nil {
			return err
		}
		d.Charged = append(d.Charged, parts...)
		if err := s.post(ctx, tx, f.kind, "dispute", d.ID, postings); err != nil {
			return err
		}
	}
	return nil
}
