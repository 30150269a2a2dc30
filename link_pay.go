package payd

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"strconv"
	"time"

	"github.com/paydhq/payd/money"
)

// LinkState is what a payment link's page can do for a payer now.
type LinkState string

// Link page states: open takes a payment; the others explain why not.
const (
	LinkPageOpen        LinkState = "open"
	LinkPagePaid        LinkState = "paid"
	LinkPageExpired     LinkState = "expired"
	LinkPageDeactivated LinkState = "deactivated"
	// LinkPageBusy is a one-time link with a payment in flight (pending
	// or waiting_for_capture): a second one could charge the payer twice.
	LinkPageBusy LinkState = "busy"
)

// LinkStateAll returns every state of a link's page.
func LinkStateAll() []LinkState {
	return []LinkState{LinkPageOpen, LinkPagePaid, LinkPageExpired, LinkPageDeactivated, LinkPageBusy}
}

// Errors of PayLink when the link takes no payment now.
var (
	ErrLinkPaid        = errors.New("payment link already paid")
	ErrLinkExpired     = errors.New("payment link expired")
	ErrLinkDeactivated = errors.New("payment link deactivated")
	ErrLinkBusy        = errors.New("a payment through this payment link is in progress")
)

// LinkAmountError is a sum entered on an open link outside what it allows:
// Min..Max in minor units of Currency.
type LinkAmountError struct {
	Min, Max int64
	Currency money.Currency
}

func (e *LinkAmountError) Error() string {
	return "the amount must be " + money.FormatValue(e.Min) + " to " + money.FormatValue(e.Max) + " " + string(e.Currency)
}

// LinkPage is what a link's hosted page shows.
type LinkPage struct {
	Link     *PaymentLink
	Merchant string
	State    LinkState
	// Min and Max bound the sum of an open link (no fixed amount).
	Min, Max int64
	// Busy is the one-time link's payment in flight, in state busy.
	Busy *Payment
	// Paid is the payment that paid a one-time link, in state paid, so
	// that the page can say what was paid; nil for a link marked paid
	// without one (written before paid_by was kept).
	Paid *Payment
	shop *Shop
}

// PayRate names the bucket of payments made through the link pages of the
// link's shop and its size a minute: the shop's payment creation limit,
// the same number its API keys each get, for the one public way to create
// its payments without a key.
func (p *LinkPage) PayRate() (key string, perMinute int) {
	return "linkpay:" + p.shop.ID, p.shop.Settings.PaymentLimit()
}

// OpenLink reads a link for its page. An unknown id is not found.
func (s *Service) OpenLink(ctx context.Context, id string) (*LinkPage, error) {
	if !ValidID(PrefixPaymentLink, id) {
		return nil, NotFound("payment link")
	}
	var pg *LinkPage
	err := s.store.View(ctx, func(tx Tx) error {
		l, err := tx.PaymentLinkGet(ctx, id)
		if err != nil {
			return notFoundAs(err, "payment link")
		}
		shop, err := tx.ShopGet(ctx, l.ShopID)
		if err != nil {
			return err
		}
		pg = &LinkPage{Link: l, Merchant: displayName(shop), shop: shop}
		var busy *Payment
		pg.State, busy, err = linkState(ctx, tx, l, s.clock.Now())
		if err != nil {
			return err
		}
		pg.Busy = busy
		if pg.State == LinkPagePaid && l.PaidBy != "" {
			if pg.Paid, err = tx.PaymentGet(ctx, l.PaidBy); err != nil {
				return err
			}
		}
		if l.Amount == nil {
			pg.Min, pg.Max, _ = linkBounds(shop, l)
		}
		return nil
	})
	return pg, err
}

// linkState decides what a link can do at now. A one-time link is busy
// while one of its payments is in flight; a canceled payment frees it.
func linkState(ctx context.Context, tx Tx, l *PaymentLink, now time.Time) (LinkState, *Payment, error) {
	switch {
	case l.Status == LinkPaid:
		return LinkPagePaid, nil, nil
	case l.Status == LinkDeactivated:
		return LinkPageDeactivated, nil, nil
	case l.Status == LinkExpired || l.due(now):
		return LinkPageExpired, nil, nil
	case l.Reusable:
		return LinkPageOpen, nil, nil
	}
	// Newest first: the payment in flight, if any, is the latest.
	for i := len(l.Payments) - 1; i >= 0; i-- {
		pay, err := tx.PaymentGet(ctx, l.Payments[i])
		if err != nil {
			return "", nil, err
		}
		switch pay.Status {
		case PaymentPending, PaymentWaitingForCapture:
			return LinkPageBusy, pay, nil
		case PaymentSucceeded:
			// The link is marked paid in the same transaction; this
			// only guards a link written before that rule.
			return LinkPagePaid, nil, nil
		}
	}
	return LinkPageOpen, nil, nil
}

var linkStateErr = map[LinkState]error{
	LinkPagePaid: ErrLinkPaid, LinkPageExpired: ErrLinkExpired, LinkPageDeactivated: ErrLinkDeactivated, LinkPageBusy: ErrLinkBusy,
}

// LinkPayment is the payer's Pay on a link's page.
type LinkPayment struct {
	// FormToken is the random token of the form the payer submitted: the
	// payment's idempotency key derives from it, so a double submit of
	// one form makes one payment.
	FormToken string
	// Amount is the sum entered on an open link (minor units of the
	// link's currency); a fixed link ignores it.
	Amount   int64
	Locale   string
	ClientIP string
}

// PayLink creates a payment through a link, by the create path of every
// payment (same checks, idempotency, events), with a redirect
// confirmation that returns to the link's return_url, and returns the
// address of its checkout page.
func (s *Service) PayLink(ctx context.Context, id string, in LinkPayment) (string, error) {
	if in.FormToken == "" || len(in.FormToken) > 64 {
		return "", Invalid("", "the form token is missing")
	}
	pg, err := s.OpenLink(ctx, id)
	if err != nil {
		return "", err
	}
	l, shop := pg.Link, pg.shop
	if shop.Blocked {
		return "", Errorf(CodeForbidden, "the shop is blocked")
	}
	mode := ModeOf(l.Test)
	if !l.Test && !shop.Live() {
		return "", Errorf(CodeShopNotLive, "the shop is not live")
	}
	sum := in.Amount
	if l.Amount != nil {
		sum = l.Amount.Minor
	} else if sum < pg.Min || sum > pg.Max {
		return "", &LinkAmountError{Min: pg.Min, Max: pg.Max, Currency: l.Currency}
	}
	amount := money.New(sum, l.Currency)
	body, _ := json.Marshal(map[string]any{"amount": amount})
	idem := Idempotency{Key: "link:" + in.FormToken, Hash: RequestHash("POST", s.paths.Link+l.ID, body)}
	capture := l.Capture
	resp, err := s.createPayment(ctx, &Principal{Shop: shop, Mode: mode}, idem, PaymentCreate{
		Amount: amount, Description: l.Description, Capture: &capture, ConfirmationType: ConfirmationRedirect,
		ReturnURL: l.ReturnURL, Locale: in.Locale, Customer: l.Customer, Metadata: maps.Clone(l.Metadata),
		ClientIP: in.ClientIP,
	}, &linkOrigin{linkID: l.ID})
	if err != nil {
		return "", err
	}
	var created struct {
		Confirmation struct {
			URL string `json:"confirmation_url"`
		} `json:"confirmation"`
	}
	if err := json.Unmarshal(resp.Body, &created); err != nil || created.Confirmation.URL == "" {
		return "", errors.New("payment link: the created payment has no confirmation_url")
	}
	return created.Confirmation.URL, nil
}

// linkPaymentStart locks the link of a payment being created and checks
// it takes one: active, not past its expires_at, and for a one-time link
// no payment in flight. The lock serialises the link's payments, so two
// payers of a one-time link cannot both start one.
func (s *Service) linkPaymentStart(ctx context.Context, tx Tx, p *Principal, origin *linkOrigin, now time.Time) error {
	l, err := scopedLink(ctx, tx, p, origin.linkID, true)
	if err != nil {
		return err
	}
	st, _, err := linkState(ctx, tx, l, now)
	if err != nil {
		return err
	}
	if e := linkStateErr[st]; e != nil {
		return e
	}
	origin.link = l
	return nil
}

// linkOrderIDs are the order ids payment n of a link tries, in order
// (docs/links.md): the link's own order_id for the first payment of a
// one-time link; then <order_id>-<n> (the link's id standing in for a
// missing order_id) while it fits 128 characters; and last the payment's
// own id, which no other payment holds.
func linkOrderIDs(l *PaymentLink, n int, paymentID string) []string {
	var out []string
	if !l.Reusable && n == 1 && l.OrderID != "" {
		out = append(out, l.OrderID)
	}
	base := l.OrderID
	if base == "" {
		base = l.ID
	}
	if c := base + "-" + strconv.Itoa(n); len([]rune(c)) <= 128 {
		out = append(out, c)
	}
	return append(out, paymentID)
}

// insertLinkPayment inserts a payment made through origin's link under
// the first free order id of linkOrderIDs and records it as the link's
// next payment.
func (s *Service) insertLinkPayment(ctx context.Context, tx Tx, origin *linkOrigin, pay *Payment) error {
	l := origin.link
	n := l.PaymentCount + 1
	pay.LinkID = l.ID
	inserted := false
	for _, oid := range linkOrderIDs(l, n, pay.ID) {
		pay.OrderID = oid
		err := tx.PaymentInsert(ctx, pay)
		if errors.Is(err, ErrConflict) {
			continue // a payment of the shop holds it: the next one
		}
		if err != nil {
			return err
		}
		inserted = true
		break
	}
	if !inserted {
		return duplicateOrder(pay.OrderID)
	}
	if err := tx.PaymentLinkAddPayment(ctx, l.ID, n, pay.ID, pay.CreatedAt); err != nil {
		return err
	}
	l.PaymentCount = n
	l.Payments = append(l.Payments, pay.ID)
	return tx.PaymentLinkUpdate(ctx, l)
}

// linkPaymentSucceeded makes a one-time link paid when its payment
// succeeds, in the payment's transaction, with the event
// payment_link.paid to the link's shop. A reusable link stays active.
// The money came in through the link, so a link expired or deactivated
// while the payment was in flight becomes paid too.
func (s *Service) linkPaymentSucceeded(ctx context.Context, tx Tx, shop *Shop, pay *Payment) error {
	l, err := tx.PaymentLinkGetForUpdate(ctx, pay.LinkID)
	if err != nil {
		return err
	}
	if l.Reusable || l.Status == LinkPaid {
		return nil
	}
	now := s.clock.Now()
	l.Status, l.PaidAt, l.PaidBy = LinkPaid, &now, pay.ID
	if err := tx.PaymentLinkUpdate(ctx, l); err != nil {
		return err
	}
	_, err = s.RecordEvent(ctx, tx, NewEventParams{
		Shop: shop, Test: l.Test, Type: EventPaymentLinkPaid, ObjectType: "payment_link", ObjectID: l.ID, Object: l.View(s.LinkURL(l.ID)),
	})
	return err
}
