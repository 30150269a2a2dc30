package payd

import (
	"context"
	"crypto/sha256"
	"slices"
	"strings"
)

// Checkout is what the hosted payment page shows.
type Checkout struct {
	Payment *Payment
	// Methods are the methods the payer may choose from.
	Methods []string
	shop    *Shop
}

// CheckoutByToken opens the hosted page of a payment by its one-time
// token. It answers NotFound for an unknown token and a payment that left
// pending.
func (s *Service) CheckoutByToken(ctx context.Context, token string) (*Checkout, error) {
	var c *Checkout
	err := s.store.View(ctx, func(tx Tx) (err error) {
		if c, err = checkoutOf(ctx, tx, token, false); err != nil {
			return err
		}
		if c.Payment.Status != PaymentPending || c.Payment.CheckoutUsed {
			return nil // the page is closed: no methods to offer
		}
		choices, err := s.checkoutChoices(ctx, tx, c.shop, c.Payment)
		for _, ch := range choices {
			c.Methods = append(c.Methods, ch.method)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// checkoutOf finds the payment of a one-time token. embedded says which
// page asks: a hosted page's token does not open the embedded form, nor
// the embedded form's token the hosted page, which would serve it to any
// page that frames nothing, or to one the shop did not allow.
func checkoutOf(ctx context.Context, tx Tx, token string, embedded bool) (*Checkout, error) {
	h := sha256.Sum256([]byte(token))
	pay, err := tx.PaymentGetByCheckoutToken(ctx, h[:], CheckoutTokenPayment(token))
	if err != nil {
		return nil, notFoundAs(err, "checkout")
	}
	if (pay.ConfirmationType == ConfirmationEmbedded) != embedded {
		return nil, NotFound("checkout")
	}
	shop, err := tx.ShopGet(ctx, pay.ShopID)
	if err != nil {
		return nil, notFoundAs(err, "checkout")
	}
	return &Checkout{Payment: pay, shop: shop}, nil
}

// checkoutChoice is a method the payer may choose with the cascade that
// would take it.
type checkoutChoice struct {
	method string
	route  []string
}

// checkoutChoices returns the methods of a payment's page, each with its
// route read in tx. A payment restricted to a method keeps it even when no
// provider takes it right now: choosing it answers provider_unavailable,
// which the payer may retry; an open payment offers only methods that have
// a route.
func (s *Service) checkoutChoices(ctx context.Context, tx Tx, shop *Shop, pay *Payment) ([]checkoutChoice, error) {
	if pay.MethodType != "" {
		route, err := s.routeOf(ctx, tx, pay.Test, pay.Region, pay.MethodType, pay.Amount.Currency)
		return []checkoutChoice{{pay.MethodType, route}}, err
	}
	var out []checkoutChoice
	for _, m := range OfferedMethods(pay.Region) {
		r, ok := MethodRange(shop, m, pay.Amount.Currency)
		if !ok || !shop.Settings.MethodEnabled(m) || pay.Amount.Minor < r.Min || pay.Amount.Minor > r.Max {
			continue
		}
		route, err := s.routeOf(ctx, tx, pay.Test, pay.Region, m, pay.Amount.Currency)
		if err != nil {
			return nil, err
		}
		if len(route) > 0 {
			out = append(out, checkoutChoice{m, route})
		}
	}
	return out, nil
}

// ChooseMethod is the payer's choice on the hosted page: it runs the
// `payment.authorize_request` pre-check when the shop has it on, spends the
// one-time token, makes the provider attempt and returns the provider's
// page to send the payer to.
func (s *Service) ChooseMethod(ctx context.Context, token, method string) (string, error) {
	return s.chooseMethod(ctx, token, method, nil)
}

// embedChoice is what the embedded form adds to a choice: the origin of
// the page that frames it, and payd's result page the provider sends the
// payer back to inside the frame.
type embedChoice struct {
	origin string
	// returnTo gives the result page of a payment id.
	returnTo func(paymentID string) string
}

func (s *Service) chooseMethod(ctx context.Context, token, method string, embed *embedChoice) (string, error) {
	h := sha256.Sum256([]byte(token))
	var c *Checkout
	err := s.store.View(ctx, func(tx Tx) (err error) {
		c, err = checkoutOf(ctx, tx, token, embed != nil)
		return err
	})
	if err != nil {
		return "", err
	}
	if embed != nil && c.Payment.EmbedOrigin != embed.origin {
		// The form was opened by another page (or never opened): its post
		// changes nothing.
		return "", ErrEmbedOrigin
	}
	if c.shop.Settings.AuthorizeRequestWebhook && c.Payment.Status == PaymentPending && !c.Payment.CheckoutUsed {
		// The pre-check runs before the transaction: the merchant has up
		// to five seconds to answer, and no lock is held meanwhile. A
		// payer who comes back after the bank was unavailable is not
		// asked about again: the first decision stands.
		allow, err := s.authorizeRequest(ctx, c.Payment.ID)
		if err != nil {
			return "", err
		}
		if !allow {
			return "", ErrPrecheckDenied
		}
	}
	var redirect string
	err = s.store.Tx(ctx, func(tx Tx) error {
		found, err := tx.PaymentGetByCheckoutToken(ctx, h[:], c.Payment.ID)
		if err != nil {
			return notFoundAs(err, "checkout")
		}
		pay, err := tx.PaymentGetForUpdate(ctx, found.ID)
		if err != nil {
			return err
		}
		if pay.Status != PaymentPending || pay.CheckoutUsed || !s.clock.Now().Before(pay.ExpiresAt) {
			return Errorf(CodeInvalidState, "this payment page was already used or the payment is closed")
		}
		if embed != nil {
			if pay.EmbedOrigin != embed.origin {
				return ErrEmbedOrigin
			}
			pay.payerReturn = embed.returnTo(pay.ID)
		}
		shop, err := tx.ShopGet(ctx, pay.ShopID)
		if err != nil {
			return err
		}
		choices, err := s.checkoutChoices(ctx, tx, shop, pay)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(choices, func(ch checkoutChoice) bool { return ch.method == method })
		if i < 0 {
			return Errorf(CodeMethodUnavailable, "this method is not available for the payment")
		}
		if err := s.startAttempt(ctx, tx, shop, pay, method, choices[i].route); err != nil {
			return err
		}
		pay.CheckoutUsed = true
		redirect = pay.redirect
		return tx.PaymentUpdate(ctx, pay)
	})
	return redirect, err
}

// CheckoutTokenPayment is the payment a checkout or confirmation token
// names after its last ".", or "" for a token that names none (one made
// before tokens named their payment). What it names is only a hint for
// finding the payment: the token's hash must match it too.
func CheckoutTokenPayment(token string) string {
	i := strings.LastIndexByte(token, '.')
	if i < 0 || !ValidID(PrefixPayment, token[i+1:]) {
		return ""
	}
	return token[i+1:]
}
