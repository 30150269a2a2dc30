package payd

import (
	"context"
	"errors"
	"slices"
	"strconv"

	"github.com/paydhq/payd/internal/urlguard"
)

// The embedded confirmation (stage M5, docs/embedded.md): the payment form
// inside the merchant's own page. A payment created with
// `confirmation.type: embedded` gets a confirmation_token, which the
// merchant's page hands to payd's widget; the widget frames payd's form
// with the token and the page's origin. The first load of the form binds
// the token to that origin, and only origins the shop declared
// (ShopSettings.EmbedOrigins) may bind it; only that origin may load it
// again.

// EmbedTokenPrefix starts every confirmation_token of an embedded payment.
const EmbedTokenPrefix = "ct_"

// MaxEmbedOrigins bounds a shop's embed_origins: each is named in the
// frame's Content-Security-Policy header, which must stay short.
const MaxEmbedOrigins = 20

// Refusals of the embedded form. Each leaves the payment as it was.
var (
	// ErrEmbedOrigin: the page's origin is not one the shop allows for the
	// payment (a live payment takes https origins only), or is not the
	// origin the token was bound to.
	ErrEmbedOrigin = errors.New("this page may not show the payment form")
	// ErrEmbedUsed: the token was bound by an earlier load of the form
	// from another origin.
	ErrEmbedUsed = errors.New("the confirmation token was already used")
	// ErrEmbedChosen: the page the token was bound to loads the form again
	// after the payer chose a method; the attempt goes on at the bank,
	// and only the result page can follow it.
	ErrEmbedChosen = errors.New("a payment method was already chosen in this form")
	// ErrEmbedClosed: the payment left pending or expired before the form
	// was opened.
	ErrEmbedClosed = errors.New("the payment is closed")
)

// validateEmbedOrigins checks a shop's embed_origins. Each must be an
// origin already in the form browsers write it, so what the operator
// stored is what the frame's header names and what a page's origin is
// compared with.
func validateEmbedOrigins(list []string) error {
	if len(list) > MaxEmbedOrigins {
		return Invalid("embed_origins", "at most %d origins may embed the payment form", MaxEmbedOrigins)
	}
	for i, raw := range list {
		param := "embed_origins." + strconv.Itoa(i)
		o, err := urlguard.CheckOrigin(raw)
		if err != nil {
			return Invalid(param, "%v", err)
		}
		if o.Serialized != raw {
			return Invalid(param, "write the origin as %s", o.Serialized)
		}
		if slices.Index(list, raw) != i {
			return Invalid(param, "%s is listed twice", raw)
		}
	}
	return nil
}

// EmbedOriginAllowed reports whether a page of origin may frame the
// shop's payment form for a payment of the given mode: the origin must be
// declared, and a live payment takes no local origin (http on loopback,
// or an https host that is not public).
func (st ShopSettings) EmbedOriginAllowed(origin string, test bool) bool {
	if !slices.Contains(st.EmbedOrigins, origin) {
		return false
	}
	o, err := urlguard.CheckOrigin(origin)
	return err == nil && (test || !o.Local)
}

// OpenEmbedded is a load of the embedded form by the page of origin: it
// checks the shop allows that origin, binds the token to it on the first
// load, and returns the checkout to show. A later load by the same
// origin (a reload of the merchant's page) reopens the form while the
// payment is pending, before its expiry and before a method was chosen
// (docs/embedded.md, "Reloads"); once a method was chosen it answers
// ErrEmbedChosen, and the frame follows the attempt on the result page.
// A load by any other origin answers ErrEmbedUsed. A refusal
// (ErrEmbedOrigin, ErrEmbedUsed, ErrEmbedChosen, ErrEmbedClosed) changes
// nothing and still returns the checkout, for the language of the page
// that says so; an unknown token, or a token of a hosted page, is
// NotFound.
func (s *Service) OpenEmbedded(ctx context.Context, token, origin string) (*Checkout, error) {
	var c *Checkout
	var refusal error
	err := s.store.Tx(ctx, func(tx Tx) (err error) {
		if c, err = checkoutOf(ctx, tx, token, true); err != nil {
			return err
		}
		pay, err := tx.PaymentGetForUpdate(ctx, c.Payment.ID)
		if err != nil {
			return err
		}
		c.Payment = pay
		switch {
		case !c.shop.Settings.EmbedOriginAllowed(origin, pay.Test):
			refusal = ErrEmbedOrigin
		case pay.EmbedOrigin != "" && pay.EmbedOrigin != origin:
			refusal = ErrEmbedUsed
		case pay.EmbedOrigin != "" && pay.CheckoutUsed:
			refusal = ErrEmbedChosen
		case pay.Status != PaymentPending || pay.CheckoutUsed || !s.clock.Now().Before(pay.ExpiresAt):
			refusal = ErrEmbedClosed
		}
		if refusal != nil {
			return nil
		}
		bind := pay.EmbedOrigin == ""
		pay.EmbedOrigin = origin
		choices, err := s.checkoutChoices(ctx, tx, c.shop, pay)
		if err != nil {
			return err
		}
		for _, ch := range choices {
			c.Methods = append(c.Methods, ch.method)
		}
		if !bind {
			return nil
		}
		return tx.PaymentUpdate(ctx, pay)
	})
	if err != nil {
		return nil, err
	}
	return c, refusal
}

// ChooseEmbeddedMethod is the payer's choice in the embedded form, posted
// from the page origin framed: as ChooseMethod, and the provider sends the
// payer back to returnTo(payment id), payd's result page inside the frame.
// A form of a token bound to another origin answers ErrEmbedOrigin.
func (s *Service) ChooseEmbeddedMethod(ctx context.Context, token, origin, method string, returnTo func(paymentID string) string) (string, error) {
	return s.chooseMethod(ctx, token, method, &embedChoice{origin: origin, returnTo: returnTo})
}

// EmbeddedPayment returns an embedded payment by id, for the result page
// inside its frame; a payment of another confirmation is NotFound. The
// caller has checked the page's signature over the id.
func (s *Service) EmbeddedPayment(ctx context.Context, id string) (*Payment, error) {
	var pay *Payment
	err := s.store.View(ctx, func(tx Tx) (err error) {
		pay, err = tx.PaymentGet(ctx, id)
		return err
	})
	if err != nil {
		return nil, notFoundAs(err, "payment")
	}
	if pay.ConfirmationType != ConfirmationEmbedded || pay.EmbedOrigin == "" {
		return nil, NotFound("payment")
	}
	return pay, nil
}

// payerReturnURL is where the provider sends the payer when done.
func (p *Payment) payerReturnURL() string {
	if p.payerReturn != "" {
		return p.payerReturn
	}
	return p.ReturnURL
}

// SetEmbedOrigins replaces the origins that may frame the shop's embedded
// payment form, as a dashboard user of the shop's merchant: validated as
// the operator's settings are, audited in the same transaction.
func (s *Service) SetEmbedOrigins(ctx context.Context, p *Principal, origins []string) (shop *Shop, err error) {
	if origins == nil {
		origins = []string{}
	}
	if err := validateEmbedOrigins(origins); err != nil {
		return nil, err
	}
	err = s.store.Tx(ctx, func(tx Tx) (err error) {
		if err := s.permit(ctx, tx, p, AuditSetEmbedOrigins); err != nil {
			return err
		}
		if shop, err = tx.ShopGetForUpdate(ctx, p.Shop.ID); err != nil {
			return notFoundAs(err, "shop")
		}
		shop.Settings.EmbedOrigins = origins
		tx.AfterCommit(func() { s.auth.invalidate(shop.ID) })
		if err := tx.ShopUpdate(ctx, shop); err != nil {
			return err
		}
		if p.Actor == nil {
			return nil
		}
		return s.auditShop(ctx, tx, p.Actor, shop.MerchantID, shop.ID, "", AuditSetEmbedOrigins, shop.ID)
	})
	return shop, withOp("set embed origins", err)
}
