package payd

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"
	"time"
	"unicode"

	"github.com/paydhq/payd/internal/urlguard"
	"github.com/paydhq/payd/money"
)

// PaymentCreate is `POST /payments` after its shape was checked by the API.
type PaymentCreate struct {
	Amount           money.Amount
	OrderID          string
	Description      string
	Capture          *bool
	MethodType       string
	ConfirmationType string
	ReturnURL        string
	Locale           string
	Customer         *Customer
	ExpiresAt        *time.Time
	Metadata         map[string]string
	ClientIP         string
}

// Payment lifetime bounds (Limits: Payment lifetime).
const (
	MinPaymentLifetime = 5 * time.Minute
	MaxPaymentLifetime = 7 * 24 * time.Hour
)

// CheckReturnURL applies the return_url rules: https, no credentials, no
// spaces or control characters, a valid host and port; for live keys also
// IP addresses only in canonical notation, never a link-local or cloud
// platform address, and a public address after canonicalization. With a
// test key the reachability rules are lifted, as the contract says ("local
// addresses accepted"): payd never connects to a return address
// (docs/security.md).
func CheckReturnURL(raw string, test bool, param string) (string, error) {
	u, err := urlguard.Check(raw, urlguard.Options{TestReturn: test})
	if err != nil {
		return "", Invalid(param, "%v", err)
	}
	return u.String(), nil
}

// CreatePayment creates a payment in pending. For a QR confirmation the
// provider attempt is made at once, or, when the shop has the pre-check
// on, by a job committed with the payment that asks the shop first
// (StartQRAttempt); for a redirect, when the payer chooses a method on the
// hosted page.
func (s *Service) CreatePayment(ctx context.Context, p *Principal, idem Idempotency, in PaymentCreate) (*Response, error) {
	return s.createPayment(ctx, p, idem, in, nil)
}

// linkOrigin is what a payment made through a payment link adds to the
// create path: inside the payment's transaction the link is locked and
// checked (linkPaymentStart), it chooses the payment's order_id, and the
// payment is recorded among the link's.
type linkOrigin struct {
	linkID string
	// link is the link as locked in the payment's transaction.
	link *PaymentLink
}

// createPayment is the one create path of payments: the API's and the
// payment link page's.
func (s *Service) createPayment(ctx context.Context, p *Principal, idem Idempotency, in PaymentCreate, origin *linkOrigin) (*Response, error) {
	now := s.clock.Now()
	if origin != nil {
		// The link chooses the order id in the transaction; this one only
		// passes the shape check.
		in.OrderID = origin.linkID
	}
	if err := s.checkPaymentCreate(p, &in, now); err != nil {
		return nil, err
	}
	if p.Shop.PaymentsSuspended {
		return nil, Errorf(CodePaymentsSuspended, "payment acceptance of this shop is suspended by risk control")
	}
	methods, err := s.paymentMethodsFor(p, &in)
	if err != nil {
		return nil, err
	}
	resp, err := s.claimed(ctx, AuditCreatePayment, p, idem, func(tx Tx) (Outcome, any, error) {
		if origin != nil {
			// The link first: a closed or busy link answers so before any
			// other rule.
			if err := s.linkPaymentStart(ctx, tx, p, origin, now); err != nil {
				return 0, nil, err
			}
		}
		// No fake success in live: without a provider there is no payment.
		// The route is read in the payment's own transaction, so a QR
		// attempt below runs the very cascade that was checked, and a
		// replay gets its first answer whatever the table says now.
		route, err := s.firstRoute(ctx, tx, p.Test(), p.Shop.Region, methods, in.Amount.Currency)
		if err != nil {
			return 0, nil, err
		}
		if err := s.checkPortfolio(ctx, tx, p, in.Amount, now); err != nil {
			return 0, nil, err
		}
		// No look-up first: the insert itself finds a taken order id
		// (without aborting the transaction), and only then is the holder
		// read, for its id.
		pay, token := s.newPayment(p, &in, now)
		if origin != nil {
			if err := s.insertLinkPayment(ctx, tx, origin, pay); err != nil {
				return 0, nil, err
			}
		} else if pay.ConfirmationType != ConfirmationQR {
			// Nothing below reads or changes the row, so it may go to
			// the database with the commit; a taken order id then comes
			// back as ErrOrderIDTaken (orderIDTaken).
			if err := tx.PaymentInsertAtCommit(ctx, pay); err != nil {
				return 0, nil, err
			}
		} else if err := tx.PaymentInsert(ctx, pay); err != nil {
			if errors.Is(err, ErrConflict) {
				if prev, err := tx.PaymentGetByOrderID(ctx, p.Shop.ID, p.Test(), in.OrderID); err == nil {
					return 0, nil, duplicateOrder(prev.ID)
				}
			}
			return 0, nil, err
		}
		// No expiry job: the periodic sweep (ExpireDuePayments) finds the
		// payment by its expires_at.
		confirmationURL, confirmationToken := "", ""
		shop := p.Shop
		if pay.ConfirmationType == ConfirmationQR {
			// The attempt starts now, so the pre-check setting is read
			// as it stands, not as the authentication cache saw it up to
			// AuthCacheTTL ago on another instance.
			if shop, err = tx.ShopGet(ctx, p.Shop.ID); err != nil {
				return 0, nil, err
			}
		}
		switch {
		case pay.ConfirmationType == ConfirmationQR && shop.Settings.AuthorizeRequestWebhook:
			// The shop takes up to five seconds to answer, which no
			// transaction may wait for: the answer carries the payment
			// without its QR, which the job adds once the shop allowed.
			if err := s.jobs.Enqueue(ctx, tx, QRAttemptArgs{PaymentID: pay.ID}, time.Time{}); err != nil {
				return 0, nil, err
			}
		case pay.ConfirmationType == ConfirmationQR:
			if err := s.startAttempt(ctx, tx, shop, pay, pay.MethodType, route); err != nil {
				return 0, nil, err
			}
			if err := tx.PaymentUpdate(ctx, pay); err != nil {
				return 0, nil, err
			}
		case pay.ConfirmationType == ConfirmationEmbedded:
			confirmationToken = token
		default:
			confirmationURL = s.publicURL + s.paths.Checkout + token
		}
		v := pay.View(confirmationURL)
		v.Confirmation.ConfirmationToken = confirmationToken
		return OutcomeCreated, v, nil
	})
	return resp, s.orderIDTaken(ctx, p, in.OrderID, err)
}

// orderIDTaken turns ErrOrderIDTaken, which a payment row sent with the
// commit meets, into duplicate_order_id naming the payment that holds the
// order id.
func (s *Service) orderIDTaken(ctx context.Context, p *Principal, orderID string, err error) error {
	if !errors.Is(err, ErrOrderIDTaken) {
		return err
	}
	var prev *Payment
	if err := s.store.View(ctx, func(tx Tx) (err error) {
		prev, err = tx.PaymentGetByOrderID(ctx, p.Shop.ID, p.Test(), orderID)
		return err
	}); err != nil {
		return err
	}
	return duplicateOrder(prev.ID)
}

func duplicateOrder(id string) *Error {
	return &Error{Code: CodeDuplicateOrderID, Param: "order_id",
		Message: "a payment with this order_id exists in the shop: " + id}
}

func (s *Service) checkPaymentCreate(p *Principal, in *PaymentCreate, now time.Time) error {
	if !in.Amount.Currency.Valid() {
		return Invalid("amount.currency", "currency must be one of RUB, KZT, USD, EUR")
	}
	if in.Amount.Minor <= 0 {
		return Invalid("amount.value", "amount must be above zero")
	}
	if err := checkText("order_id", in.OrderID, 1, 128); err != nil {
		return err
	}
	if err := checkText("description", in.Description, 0, 256); err != nil {
		return err
	}
	switch in.ConfirmationType {
	case ConfirmationRedirect, ConfirmationQR:
	case ConfirmationEmbedded:
		if s.stage < StageM5 {
			return LaterStage(s.stage, StageM5, "embedded confirmation arrives in stage M5")
		}
	default:
		return Invalid("confirmation.type", "confirmation.type must be redirect, qr or embedded")
	}
	if in.ReturnURL != "" {
		u, err := CheckReturnURL(in.ReturnURL, p.Test(), "confirmation.return_url")
		if err != nil {
			return err
		}
		in.ReturnURL = u
	}
	if in.Locale != "" {
		lang, ok := ParseLocale(in.Locale)
		if !ok {
			return Invalid("confirmation.locale", "confirmation.locale must be one of %s, alone or with a region such as ru-RU or ru_RU", strings.Join(locales, ", "))
		}
		in.Locale = lang
	}
	if in.ExpiresAt != nil {
		d := in.ExpiresAt.Sub(now)
		if d < MinPaymentLifetime || d > MaxPaymentLifetime {
			return Invalid("expires_at", "expires_at must be 5 minutes to 7 days from now")
		}
	}
	if err := CheckMetadata(in.Metadata); err != nil {
		return err
	}
	if err := checkCustomer(in.Customer); err != nil {
		return err
	}
	return checkText("client_ip", in.ClientIP, 0, 45)
}

// checkCustomer applies the lengths of the Customer fields.
func checkCustomer(c *Customer) error {
	if c == nil {
		return nil
	}
	for _, f := range []struct {
		name, v string
		max     int
	}{{"customer.email", c.Email, 256}, {"customer.phone", c.Phone, 32}, {"customer.full_name", c.FullName, 256},
		{"customer.tax_id", c.TaxID, 32}, {"customer.ip", c.IP, 45}} {
		if err := checkText(f.name, f.v, 0, f.max); err != nil {
			return err
		}
	}
	return nil
}

// CheckMetadata applies the Metadata limits: at most 16 keys, keys up to 64
// and values up to 512 characters, and no bidirectional text controls in
// either (the dashboard shows them).
func CheckMetadata(m map[string]string) error {
	if len(m) > 16 {
		return Invalid("metadata", "metadata has %d keys; at most 16 are allowed", len(m))
	}
	for k, v := range m {
		if k == "" || len([]rune(k)) > 64 {
			return Invalid("metadata", "metadata keys must be 1..64 characters")
		}
		if len([]rune(v)) > 512 {
			return Invalid("metadata", "metadata value of %q is longer than 512 characters", k)
		}
		if err := CheckBidi("metadata", k+v); err != nil {
			return err
		}
	}
	return nil
}

// paymentMethodsFor checks the method restriction and the amount range and
// returns the methods the payment fits, in the order the payer is offered
// them. A payment restricted to a method must fit that method; an open one
// must fit at least one available method in its currency.
func (s *Service) paymentMethodsFor(p *Principal, in *PaymentCreate) ([]string, error) {
	restricted := in.MethodType != ""
	if in.ConfirmationType == ConfirmationQR {
		// Each region pays QR codes by its own method: SBP in ru, kz_qr
		// in kz.
		qr := QRMethod(p.Shop.Region)
		if qr == "" {
			return nil, Errorf(CodeMethodUnavailable, "there is no QR payment method in %s", p.Shop.Region)
		}
		if in.MethodType != "" && in.MethodType != qr {
			return nil, &Error{Code: CodeMethodUnavailable, Param: "payment_method.type",
				Message: "a QR confirmation in " + string(p.Shop.Region) + " is paid by " + qr + " only"}
		}
		in.MethodType = qr
	}
	candidates := []string{in.MethodType}
	if in.MethodType == "" {
		candidates = OfferedMethods(p.Shop.Region)
	}
	var fits []string
	var reason error
	for _, m := range candidates {
		r, ok := MethodRange(p.Shop, m, in.Amount.Currency)
		if !ok || !p.Shop.Settings.MethodEnabled(m) {
			continue
		}
		if in.Amount.Minor < r.Min || in.Amount.Minor > r.Max {
			reason = &Error{Code: CodeAmountLimit, Param: "amount.value", Message: "amount must be " +
				money.FormatValue(r.Min) + " to " + money.FormatValue(r.Max) + " " + string(in.Amount.Currency) + " for " + m}
			continue
		}
		fits = append(fits, m)
	}
	if len(fits) > 0 {
		return fits, nil
	}
	if reason != nil {
		return nil, reason
	}
	param := ""
	if restricted {
		param = "payment_method.type"
	}
	return nil, &Error{Code: CodeMethodUnavailable, Param: param,
		Message: "no payment method is available for this shop in " + string(in.Amount.Currency)}
}

// checkPortfolio applies the shop's cumulative limits. Days and months are
// UTC calendar periods of the service clock.
func (s *Service) checkPortfolio(ctx context.Context, tx Tx, p *Principal, amt money.Amount, now time.Time) error {
	l := p.Shop.Settings.Limits
	exceeded := func(what string) error {
		return Errorf(CodeLimitsExceeded, "the shop's %s limit would be exceeded; the same amount can pass later", what)
	}
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	cur := string(amt.Currency)
	if lim := l.DailyTurnover[amt.Currency]; lim > 0 || l.AverageTicket[amt.Currency] > 0 {
		n, sum, err := turnover(ctx, tx, p, cur, day, day.AddDate(0, 0, 1))
		if err != nil {
			return err
		}
		if lim > 0 && sum+amt.Minor > lim {
			return exceeded("daily turnover")
		}
		if avg := l.AverageTicket[amt.Currency]; avg > 0 && (sum+amt.Minor) > avg*(n+1) {
			return exceeded("average ticket")
		}
	}
	if lim := l.MonthlyTurnover[amt.Currency]; lim > 0 {
		month := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
		_, sum, err := turnover(ctx, tx, p, cur, month, month.AddDate(0, 1, 0))
		if err != nil {
			return err
		}
		if sum+amt.Minor > lim {
			return exceeded("monthly turnover")
		}
	}
	if l.PaymentsPerMinute > 0 {
		n, _, err := tx.PaymentStats(ctx, p.Shop.ID, p.Test(), "", now.Add(-time.Minute))
		if err != nil {
			return err
		}
		if n+1 > l.PaymentsPerMinute {
			return exceeded("payments per minute")
		}
	}
	return nil
}

// turnover counts and sums the shop's payments in cur created on the UTC
// days [from, to), canceled ones left out: the day totals' rows of those
// days, never the payments themselves.
func turnover(ctx context.Context, tx Tx, p *Principal, cur string, from, to time.Time) (n, sum int64, err error) {
	totals, err := tx.PaymentTotals(ctx, p.Shop.ID, p.Test(), from, to)
	for _, t := range totals {
		if t.Currency == cur && t.Status != PaymentCanceled {
			n, sum = n+t.Count, sum+t.Sum
		}
	}
	return n, sum, err
}

func (s *Service) newPayment(p *Principal, in *PaymentCreate, now time.Time) (*Payment, string) {
	capture := in.Capture == nil || *in.Capture
	expires := now.Add(p.Shop.Settings.PaymentLifetime())
	if in.ExpiresAt != nil {
		expires = in.ExpiresAt.UTC().Truncate(time.Microsecond)
	}
	id := s.ids.NewFor(PrefixPayment, now, p.Shop.MerchantID)
	tokenRaw := make([]byte, 24)
	rand.Read(tokenRaw)
	// The token names its payment after its secret part, so that the
	// store finds the payment by its id, in its merchant's shard group on
	// a cluster (CheckoutTokenPayment); the whole token is what is hashed.
	token := base64.RawURLEncoding.EncodeToString(tokenRaw) + "." + id
	if in.ConfirmationType == ConfirmationEmbedded {
		// The widget's token is handed to the merchant's page as it is;
		// its prefix tells it apart from other secrets in a log or a
		// support question. Only its hash is stored, as the checkout's.
		token = EmbedTokenPrefix + token
	}
	hash := sha256.Sum256([]byte(token))
	return &Payment{
		ID: id, ShopID: p.Shop.ID, MerchantID: p.Shop.MerchantID, Region: p.Shop.Region,
		Test: p.Test(), Status: PaymentPending, Amount: in.Amount, OrderID: in.OrderID, CreatedAt: now,
		Description: in.Description, Capture: capture, Metadata: in.Metadata, Customer: in.Customer, ClientIP: in.ClientIP,
		MethodType: in.MethodType, ConfirmationType: in.ConfirmationType, ReturnURL: in.ReturnURL, Locale: in.Locale,
		CheckoutTokenHash: hash[:], MerchantDisplayName: displayName(p.Shop), StatementDescriptor: statementDescriptor(p.Shop),
		ExpiresAt: expires,
	}, token
}

// displayName builds merchant_display_name (at most 256 characters).
func displayName(shop *Shop) string {
	name := shop.Settings.DisplayName
	if name == "" {
		name = shop.Name
	}
	r := []rune(name)
	if len(r) > 256 {
		r = r[:256]
	}
	return string(r)
}

// statementDescriptor builds the card statement line: the statement name
// (or the shop name) in upper-case Latin letters, digits, spaces and
// ".-*", at most 32 characters. Card networks print only such characters.
func statementDescriptor(shop *Shop) string {
	name := shop.Settings.StatementName
	if name == "" {
		name = shop.Name
	}
	var b strings.Builder
	space := false
	for _, r := range strings.ToUpper(name) {
		switch {
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9', strings.ContainsRune(".-*", r):
			b.WriteRune(r)
			space = false
		case unicode.IsSpace(r) || r == '_':
			if !space && b.Len() > 0 {
				b.WriteByte(' ')
				space = true
			}
		}
	}
	out := strings.TrimSpace(b.String())
	if out == "" {
		out = "PAYD"
	}
	if len(out) > 32 {
		out = strings.TrimSpace(out[:32])
	}
	return out
}
