package payd

import (
	"context"
	"time"

	"github.com/paydhq/payd/money"
)

// PaymentLinkCreate is `POST /payment-links` after its shape was checked
// by the API.
type PaymentLinkCreate struct {
	Amount      *money.Amount
	MinAmount   *money.Amount
	MaxAmount   *money.Amount
	Description string
	OrderID     string
	Capture     *bool
	Reusable    bool
	ExpiresAt   *time.Time
	ReturnURL   string
	Customer    *Customer
	Metadata    map[string]string
}

// regionCurrency is the currency of an open link that names none: the
// region's own.
var regionCurrency = map[Region]money.Currency{RegionRU: money.RUB, RegionKZ: money.KZT}

// linkBounds is the range a payer may enter on an open link in currency:
// the widest of the shop's enabled methods in that currency (a sum any
// one of them takes can be paid), narrowed by the link's own min and max.
// ok is false when no method of the shop takes the currency.
func linkBounds(shop *Shop, l *PaymentLink) (lo, hi int64, ok bool) {
	for _, m := range OfferedMethods(shop.Region) {
		r, has := MethodRange(shop, m, l.Currency)
		if !has || !shop.Settings.MethodEnabled(m) {
			continue
		}
		if !ok || r.Min < lo {
			lo = r.Min
		}
		if !ok || r.Max > hi {
			hi = r.Max
		}
		ok = true
	}
	if l.MinAmount != nil && l.MinAmount.Minor > lo {
		lo = l.MinAmount.Minor
	}
	if l.MaxAmount != nil && l.MaxAmount.Minor < hi {
		hi = l.MaxAmount.Minor
	}
	return lo, hi, ok
}

func checkPositive(param string, a *money.Amount) error {
	if a != nil && a.Minor <= 0 {
		return Invalid(param+".value", "%s must be above zero", param)
	}
	return nil
}

// checkLinkCreate applies the rules of a link's create request and builds
// the link.
func (s *Service) checkLinkCreate(p *Principal, in *PaymentLinkCreate, now time.Time) (*PaymentLink, error) {
	if err := checkText("description", in.Description, 1, 256); err != nil {
		return nil, err
	}
	if in.Amount != nil && (in.MinAmount != nil || in.MaxAmount != nil) {
		param := "min_amount"
		if in.MinAmount == nil {
			param = "max_amount"
		}
		return nil, Invalid(param, "%s applies only to a link without amount: the payer enters the sum", param)
	}
	for _, f := range []struct {
		name string
		a    *money.Amount
	}{{"amount", in.Amount}, {"min_amount", in.MinAmount}, {"max_amount", in.MaxAmount}} {
		if err := checkPositive(f.name, f.a); err != nil {
			return nil, err
		}
	}
	if in.MinAmount != nil && in.MaxAmount != nil {
		if in.MinAmount.Currency != in.MaxAmount.Currency {
			return nil, Invalid("max_amount.currency", "max_amount must be in the currency of min_amount, %s", in.MinAmount.Currency)
		}
		if in.MaxAmount.Minor < in.MinAmount.Minor {
			return nil, Invalid("max_amount.value", "max_amount must not be below min_amount")
		}
	}
	if err := checkText("order_id", in.OrderID, 0, 128); err != nil {
		return nil, err
	}
	if in.ExpiresAt != nil {
		d := in.ExpiresAt.Sub(now)
		if d <= 0 || d > MaxLinkLifetime {
			return nil, Invalid("expires_at", "expires_at must be in the future and at most 365 days from now")
		}
	}
	if in.ReturnURL != "" {
		u, err := CheckReturnURL(in.ReturnURL, p.Test(), "return_url")
		if err != nil {
			return nil, err
		}
		in.ReturnURL = u
	}
	if err := CheckMetadata(in.Metadata); err != nil {
		return nil, err
	}
	if err := checkCustomer(in.Customer); err != nil {
		return nil, err
	}
	l := &PaymentLink{
		ID: s.ids.NewFor(PrefixPaymentLink, now, p.Shop.MerchantID), ShopID: p.Shop.ID, MerchantID: p.Shop.MerchantID, Region: p.Shop.Region,
		Test: p.Test(), Status: LinkActive, CreatedAt: now, Amount: in.Amount, MinAmount: in.MinAmount, MaxAmount: in.MaxAmount,
		Description: in.Description, OrderID: in.OrderID, Capture: in.Capture == nil || *in.Capture, Reusable: in.Reusable,
		ReturnURL: in.ReturnURL, Customer: in.Customer, Metadata: in.Metadata,
	}
	if in.ExpiresAt != nil {
		at := in.ExpiresAt.UTC().Truncate(time.Microsecond)
		l.ExpiresAt = &at
	}
	switch {
	case in.Amount != nil:
		l.Currency = in.Amount.Currency
	case in.MinAmount != nil:
		l.Currency = in.MinAmount.Currency
	case in.MaxAmount != nil:
		l.Currency = in.MaxAmount.Currency
	default:
		l.Currency = regionCurrency[p.Shop.Region]
	}
	// The sums the link allows must be payable: the same method ranges
	// as a payment's, so that the page never offers what creation would
	// refuse.
	if l.Amount != nil {
		if _, err := s.paymentMethodsFor(p, &PaymentCreate{Amount: *l.Amount, ConfirmationType: ConfirmationRedirect}); err != nil {
			return nil, err
		}
		return l, nil
	}
	lo, hi, ok := linkBounds(p.Shop, l)
	if !ok {
		return nil, &Error{Code: CodeMethodUnavailable, Message: "no payment method is available for this shop in " + string(l.Currency)}
	}
	if lo > hi {
		param := "max_amount.value"
		if l.MinAmount != nil && l.MinAmount.Minor == lo {
			param = "min_amount.value"
		}
		full := *l
		full.MinAmount, full.MaxAmount = nil, nil
		mlo, mhi, _ := linkBounds(p.Shop, &full)
		return nil, &Error{Code: CodeAmountLimit, Param: param, Message: "the payment methods of this shop take " +
			money.FormatValue(mlo) + " to " + money.FormatValue(mhi) + " " + string(l.Currency) + "; the link's range lies outside"}
	}
	return l, nil
}

// CreatePaymentLink creates an active link (201).
func (s *Service) CreatePaymentLink(ctx context.Context, p *Principal, idem Idempotency, in PaymentLinkCreate) (*Response, error) {
	l, err := s.checkLinkCreate(p, &in, s.clock.Now())
	if err != nil {
		return nil, err
	}
	return s.idempotent(ctx, AuditCreatePaymentLink, p, idem, func(tx Tx) (Outcome, any, error) {
		if err := tx.PaymentLinkInsert(ctx, l); err != nil {
			return 0, nil, err
		}
		return OutcomeCreated, l.View(s.LinkURL(l.ID)), nil
	})
}
