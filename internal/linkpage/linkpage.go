// Package linkpage is the hosted page of a payment link (PaymentLink.url):
// it shows the shop's display name, the description and the amount, or a
// field for the payer's own sum, and its Pay button creates a payment
// through the service's one create path and sends the payer on to that
// payment's checkout page. A link that takes no payment now (paid,
// expired, deactivated, or a one-time link with a payment in flight) says
// so in the payer's language. Server-rendered, no scripts or outside
// assets, fit for a phone.
package linkpage

import (
	"crypto/rand"
	"embed"
	"encoding/base64"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/httpapi"
	"github.com/paydhq/payd/internal/mac"
	"github.com/paydhq/payd/internal/ratelimit"
	"github.com/paydhq/payd/internal/webpage"
	"github.com/paydhq/payd/money"
)

//go:embed templates/link.html
var templateFS embed.FS

var page = template.Must(template.ParseFS(templateFS, "templates/link.html"))

// Handler serves the link pages.
type Handler struct {
	svc *payd.Service
	// forms signs the page's forms, bound to the link and the form's
	// token; cookies signs the cookie of the form sent last (formCookie).
	forms, cookies mac.Signer
	log            *slog.Logger
	// limiter counts the payments made through a shop's link pages
	// (LinkPage.PayRate), and apart those of each payer's address: the
	// page is public, so without the first anyone could create a shop's
	// payments as fast as they like, and without the second one address
	// could spend the shop's whole rate and keep its other payers out.
	limiter ratelimit.Limiter
	// addr is the payer's address, as the API reads it behind a proxy.
	addr func(*http.Request) netip.Addr
}

// perAddressPerMinute is how many payments one address may start through
// one shop's links in a minute: more than a payer retrying ever needs.
const perAddressPerMinute = 10

// New returns the page handler; key signs its forms, limiter holds the
// rates of payments through each shop's links, addr reads the payer's
// address.
func New(svc *payd.Service, key []byte, log *slog.Logger, limiter ratelimit.Limiter, addr func(*http.Request) netip.Addr) *Handler {
	return &Handler{svc: svc, forms: mac.New(key, "payment-link"), cookies: mac.New(key, "payment-link-cookie"),
		log: log, limiter: limiter, addr: addr}
}

// Path is where the page is served: Path + the link's id, the url the
// service hands out (payd.Paths).
const Path = "/links/"

// Register mounts the page on mux.
func (h *Handler) Register(mux *http.ServeMux) {
	mux.HandleFunc("GET "+Path+"{link_id}", h.show)
	mux.HandleFunc("POST "+Path+"{link_id}", h.pay)
}

type view struct {
	L              webpage.Locale
	State          payd.LinkState
	Title, Message string
	Merchant       string
	Description    string
	Amount         string
	Currency       string
	Open           bool
	Range, Error   string
	Entered        string
	Token, CSRF    string
	Test           bool
	Continue       bool
	ReturnURL      string
}

func (h *Handler) render(w http.ResponseWriter, status int, v view) {
	webpage.SetHeaders(w.Header())
	w.WriteHeader(status)
	if err := page.Execute(w, v); err != nil {
		h.log.Error("render payment link", "err", err.Error())
	}
}

// message renders a page with a title and a message, both catalogue keys,
// in the language of v.L; v carries what else the page shows.
func (h *Handler) message(w http.ResponseWriter, status int, v view, title, msg string) {
	v.Title, v.Message = v.L.T(title), v.L.T(msg)
	h.render(w, status, v)
}

// csrf binds a form to its link and its token: a form of one link cannot
// pay another, and a token cannot be made up.
func (h *Handler) csrf(linkID, token string) string {
	return h.forms.Sign(linkID, token)
}

func (h *Handler) validCSRF(linkID, token, sum string) bool {
	return token != "" && h.forms.Verify(sum, linkID, token)
}

func newToken() string {
	b := make([]byte, 24)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// locale is the page's language: the browser's, else the region's.
func locale(r *http.Request, pg *payd.LinkPage) webpage.Locale {
	if pg == nil {
		return webpage.Choose(r, "", "")
	}
	return webpage.Choose(r, "", pg.Link.Region)
}

// cookieName holds, per link, the form a payer sent last, so that a payer
// who comes back while that payment is in flight can continue it: the
// same form again is the same payment (its idempotency key).
const cookieName = "payd_link_form"

// formCookie is the cookie's value for a form the payer sent: an HMAC of
// the link, the form's token and the sum entered, then the token and the
// sum. The token is one the page issued (pay checked its form's MAC);
// the HMAC lets the page know it again in keptForm.
func (h *Handler) formCookie(linkID, token, entered string) string {
	return h.cookies.Sign(linkID, token, entered) + "." + token + "." + entered
}

// keptForm reads the form that r's cookie keeps for the link. A cookie
// the page did not write for this link (made up, copied from another
// link, or of a version without the HMAC) keeps none: the page signs only
// tokens it issued, never one of the sender's choosing.
func (h *Handler) keptForm(r *http.Request, linkID string) (token, entered string, ok bool) {
	c, err := r.Cookie(cookieName)
	if err != nil {
		return "", "", false
	}
	// The HMAC is hex and the token base64url, neither with a dot; the
	// sum ("1500.00") comes last.
	sum, rest, _ := strings.Cut(c.Value, ".")
	token, entered, _ = strings.Cut(rest, ".")
	if token == "" || !h.cookies.Verify(sum, linkID, token, entered) {
		return "", "", false
	}
	return token, entered, true
}

func (h *Handler) show(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("link_id")
	pg, err := h.svc.OpenLink(r.Context(), id)
	if err != nil && payd.ErrorCodeOf(err) != payd.CodeNotFound {
		h.log.ErrorContext(r.Context(), "open payment link", "err", err.Error())
		h.message(w, http.StatusInternalServerError, view{L: locale(r, nil)}, "Error", "Something went wrong; try again.")
		return
	}
	if err != nil {
		h.notFound(w, r)
		return
	}
	if pg.State != payd.LinkPageOpen {
		h.closed(w, r, pg, pg.State)
		return
	}
	token := newToken()
	h.form(w, http.StatusOK, r, pg, view{Token: token, CSRF: h.csrf(id, token)})
}

func (h *Handler) notFound(w http.ResponseWriter, r *http.Request) {
	h.message(w, http.StatusNotFound, view{L: locale(r, nil), State: "not_found"},
		"Payment link not found", "Check the address or ask the shop for a new link.")
}

// form renders the open link: v brings the form's token and, after a
// refused entry, the entry and its error.
func (h *Handler) form(w http.ResponseWriter, status int, r *http.Request, pg *payd.LinkPage, v view) {
	l := pg.Link
	v.L = locale(r, pg)
	v.State, v.Merchant, v.Description, v.Test = payd.LinkPageOpen, pg.Merchant, l.Description, l.Test
	v.Title = v.L.T("Pay %s", pg.Merchant)
	v.Currency = string(l.Currency)
	if l.Amount != nil {
		v.Amount = v.L.Amount(l.Amount.Minor, string(l.Amount.Currency))
	} else {
		v.Open = true
		v.Range = v.L.T("From %s to %s", v.L.Amount(pg.Min, v.Currency), v.L.Amount(pg.Max, v.Currency))
	}
	h.render(w, status, v)
}

// closed renders the page of a link that takes no payment now.
func (h *Handler) closed(w http.ResponseWriter, r *http.Request, pg *payd.LinkPage, st payd.LinkState) {
	v := view{L: locale(r, pg), State: st, Test: pg.Link.Test}
	switch st {
	case payd.LinkPagePaid:
		// What was paid and to whom: the payer who comes back to the
		// link, or arrives from its return_url, can tell it was theirs.
		v.ReturnURL, v.Merchant, v.Description = pg.Link.ReturnURL, pg.Merchant, pg.Link.Description
		if p := pg.Paid; p != nil {
			v.Amount = v.L.Amount(p.Amount.Minor, string(p.Amount.Currency))
			if p.MerchantDisplayName != "" {
				v.Merchant = p.MerchantDisplayName
			}
		} else if a := pg.Link.Amount; a != nil {
			v.Amount = v.L.Amount(a.Minor, string(a.Currency))
		}
		h.message(w, http.StatusOK, v, "Already paid", "This link has already been paid. No second payment is needed.")
	case payd.LinkPageExpired:
		h.message(w, http.StatusGone, v, "Link expired", "This payment link has expired. Ask the shop for a new one.")
	case payd.LinkPageDeactivated:
		h.message(w, http.StatusGone, v, "Link deactivated", "The shop has turned this payment link off. Ask the shop for a new one.")
	default:
		// A payment in flight: the payer who started it, in this browser,
		// may go back to it.
		if token, entered, ok := h.keptForm(r, pg.Link.ID); ok {
			v.Continue, v.Token, v.CSRF, v.Entered = true, token, h.csrf(pg.Link.ID, token), entered
		}
		h.message(w, http.StatusConflict, v, "Payment in progress",
			"A payment through this link has been started and is not finished yet. Wait for it to finish; if it fails, the link can be paid again.")
	}
}

func (h *Handler) pay(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("link_id")
	// The form is read, within its bound, before anything else is
	// looked at: the link need not exist for a post to cost memory.
	if fe, ok := errors.AsType[*webpage.FormError](webpage.ReadForm(w, r)); ok {
		h.message(w, fe.Status, view{L: webpage.Choose(r, "", "")}, "Form not accepted", "Open the payment link again.")
		return
	}
	token := r.PostFormValue("token")
	if !h.validCSRF(id, token, r.PostFormValue("csrf")) {
		h.message(w, http.StatusForbidden, view{L: webpage.Choose(r, "", "")}, "Form expired", "Open the payment link again.")
		return
	}
	pg, err := h.svc.OpenLink(r.Context(), id)
	if err != nil {
		if payd.ErrorCodeOf(err) == payd.CodeNotFound {
			h.notFound(w, r)
			return
		}
		h.log.ErrorContext(r.Context(), "open payment link", "err", err.Error())
		h.message(w, http.StatusInternalServerError, view{L: locale(r, nil)}, "Error", "Something went wrong; try again.")
		return
	}
	l := locale(r, pg)
	entered := strings.TrimSpace(r.PostFormValue("amount"))
	var sum int64
	if pg.Link.Amount == nil {
		var err error
		if sum, err = l.ParseAmount(entered); err != nil {
			msg := l.T("Enter the amount in digits, for example 1500 or 1500.50.")
			if errors.Is(err, webpage.ErrAmountAmbiguous) {
				msg = l.T("It is not clear whether %s means thousands or a fraction. Enter the amount as 1500 or 1500.50.", entered)
			}
			h.form(w, http.StatusUnprocessableEntity, r, pg, view{Token: token, CSRF: h.csrf(id, token), Entered: entered, Error: msg})
			return
		}
	}
	// Only a payment that can be made takes from the rates: a closed link
	// or a sum out of range is refused below without one.
	inRange := pg.Link.Amount != nil || (sum >= pg.Min && sum <= pg.Max)
	if pg.State == payd.LinkPageOpen && inRange && !h.allowed(w, r, pg, l) {
		return
	}
	to, err := h.payOnce(r, id, payd.LinkPayment{FormToken: token, Amount: sum, Locale: l.Lang()})
	if err == nil {
		// The form, not the payment's token, is what the cookie keeps: a
		// payer who returns sends it again and is answered as the first
		// time, by the payment's idempotency record.
		kept := ""
		if pg.Link.Amount == nil {
			kept = money.FormatValue(sum)
		}
		http.SetCookie(w, &http.Cookie{Name: cookieName, Value: h.formCookie(id, token, kept), Path: Path + id,
			MaxAge: int(payd.IdempotencyTTL / time.Second), HttpOnly: true, SameSite: http.SameSiteLaxMode,
			Secure: strings.HasPrefix(h.svc.PublicURL(), "https://")})
		http.Redirect(w, r, to, http.StatusSeeOther)
		return
	}
	var amountErr *payd.LinkAmountError
	switch {
	case errors.As(err, &amountErr):
		h.form(w, http.StatusUnprocessableEntity, r, pg, view{Token: token, CSRF: h.csrf(id, token), Entered: entered,
			Error: l.T("Enter an amount from %s to %s.", l.Amount(amountErr.Min, string(amountErr.Currency)), l.Amount(amountErr.Max, string(amountErr.Currency)))})
	case errors.Is(err, payd.ErrLinkPaid):
		h.closed(w, r, pg, payd.LinkPagePaid)
	case errors.Is(err, payd.ErrLinkExpired):
		h.closed(w, r, pg, payd.LinkPageExpired)
	case errors.Is(err, payd.ErrLinkDeactivated):
		h.closed(w, r, pg, payd.LinkPageDeactivated)
	case errors.Is(err, payd.ErrLinkBusy):
		h.closed(w, r, pg, payd.LinkPageBusy)
	default:
		h.refused(w, r, l, pg, err)
	}
}

// inFlightWait bounds how long a second submission of one form waits for
// the first to finish: a double click sends both, and the browser shows
// the answer to the second, which should be the same redirect.
const inFlightWait = 5 * time.Second

// payOnce calls PayLink; while the same form is still being processed it
// waits for that and then gets its answer (the idempotent replay).
func (h *Handler) payOnce(r *http.Request, id string, in payd.LinkPayment) (string, error) {
	deadline := time.Now().Add(inFlightWait)
	for {
		to, err := h.svc.PayLink(r.Context(), id, in)
		if payd.ErrorCodeOf(err) != payd.CodeIdempotencyInProgress || time.Now().After(deadline) {
			return to, err
		}
		select {
		case <-r.Context().Done():
			return "", err
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// allowed takes one payment of the shop's link rate, or answers the payer
// why not: 429 with Retry-After past the rate, 503 while the shared limit
// store cannot be reached (a payment, like the API's money operations, is
// not made uncounted).
func (h *Handler) allowed(w http.ResponseWriter, r *http.Request, pg *payd.LinkPage, l webpage.Locale) bool {
	key, perMinute := pg.PayRate()
	now := h.svc.Clock().Now()
	ok, wait, err := h.limiter.Allow(r.Context(), key+":"+h.addr(r).String(), perAddressPerMinute, now)
	if err == nil && ok {
		ok, wait, err = h.limiter.Allow(r.Context(), key, perMinute, now)
	}
	v := view{L: l, Test: pg.Link.Test, State: "refused"}
	switch {
	case err != nil:
		httpapi.NoteUnavailable(w, string(payd.CauseRateLimitStore))
		w.Header().Set("Retry-After", "2")
		h.message(w, http.StatusServiceUnavailable, v, "Try again", "The bank is not answering right now. Try again in a minute.")
		return false
	case !ok:
		w.Header().Set("Retry-After", strconv.Itoa(max(1, int((wait+time.Second-1)/time.Second))))
		h.message(w, http.StatusTooManyRequests, v, "Try again",
			"Too many payments are being made through this shop's links right now. Try again in a minute.")
		return false
	}
	return true
}

// refused answers the create path's other refusals.
func (h *Handler) refused(w http.ResponseWriter, r *http.Request, l webpage.Locale, pg *payd.LinkPage, err error) {
	v := view{L: l, Test: pg.Link.Test, State: "refused"}
	switch payd.ErrorCodeOf(err) {
	case payd.CodeIdempotencyConflict:
		h.message(w, http.StatusConflict, v, "Form expired", "This form was already sent. Open the payment link again.")
	case payd.CodeIdempotencyInProgress:
		h.message(w, http.StatusConflict, v, "Try again", "Your payment is being created. Try again in a few seconds.")
	case payd.CodeProviderUnavailable:
		httpapi.NoteUnavailableError(w, err)
		h.message(w, http.StatusServiceUnavailable, v, "Try again", "The bank is not answering right now. Try again in a minute.")
	case payd.CodeForbidden, payd.CodeShopNotLive, payd.CodePaymentsSuspended, payd.CodeLimitsExceeded,
		payd.CodeMethodUnavailable, payd.CodeAmountLimit:
		h.message(w, http.StatusUnprocessableEntity, v, "Payment unavailable",
			"The shop cannot take this payment right now. Try again later or contact the shop.")
	default:
		h.log.ErrorContext(r.Context(), "payment link payment", "err", err.Error())
		h.message(w, http.StatusInternalServerError, v, "Error", "Something went wrong; try again.")
	}
}
