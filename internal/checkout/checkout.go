// Package checkout is the hosted payment page at a payment's
// confirmation_url: it shows the shop's display name, the amount and the
// description, lets the payer choose a method, and sends the payer on to
// the provider's page. Server-rendered, no scripts or external assets, and
// the one-time token in the address is never logged. Every page, its
// errors included, speaks the payer's language (webpage.Choose).
package checkout

import (
	"embed"
	"errors"
	"html/template"
	"log/slog"
	"net/http"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/httpapi"
	"github.com/paydhq/payd/internal/mac"
	"github.com/paydhq/payd/internal/webpage"
)

//go:embed templates/checkout.html
var templateFS embed.FS

var page = template.Must(template.ParseFS(templateFS, "templates/checkout.html"))

// Handler serves the hosted page.
type Handler struct {
	svc *payd.Service
	// forms signs the page's form, bound to its payment's token.
	forms mac.Signer
	log   *slog.Logger
}

// New returns the page handler; key protects its form.
func New(svc *payd.Service, key []byte, log *slog.Logger) *Handler {
	return &Handler{svc: svc, forms: mac.New(key, "checkout"), log: log}
}

// Path is where the page is served: Path + the payment's checkout token,
// the confirmation_url the service hands out (payd.Paths).
const Path = "/checkout/"

// Register mounts the page on mux.
func (h *Handler) Register(mux *http.ServeMux) {
	mux.HandleFunc("GET "+Path+"{token}", h.show)
	mux.HandleFunc("POST "+Path+"{token}", h.choose)
}

type method struct{ Type, Label string }

// labels are the methods' names, as keys of the pages' catalogue
// (internal/webpage/locales); a name missing there is shown as it is.
var labels = map[string]string{payd.MethodBankCard: "Bank card", payd.MethodSBP: "SBP (Faster Payments)", payd.MethodKZQR: "QR in your bank's app"}

type view struct {
	L                                                   webpage.Locale
	Title, Message, Merchant, Amount, Description, CSRF string
	Test                                                bool
	Methods                                             []method
}

func (h *Handler) render(w http.ResponseWriter, status int, v view) {
	webpage.SetHeaders(w.Header())
	w.WriteHeader(status)
	if err := page.Execute(w, v); err != nil {
		h.log.Error("render checkout", "err", err.Error())
	}
}

// message renders a page with a title and a message, both catalogue keys,
// in the language of l.
func (h *Handler) message(w http.ResponseWriter, status int, l webpage.Locale, title, msg string) {
	h.render(w, status, view{L: l, Title: l.T(title), Message: l.T(msg)})
}

// csrf binds the form to its payment's token: a form of one payment
// cannot choose the method of another.
func (h *Handler) csrf(token string) string { return h.forms.Sign(token) }

func (h *Handler) validCSRF(token, sum string) bool { return h.forms.Verify(sum, token) }

// locale is the language of the page of c's payment, or of a page that
// knows no payment when c is nil.
func locale(r *http.Request, c *payd.Checkout) webpage.Locale {
	if c == nil {
		return webpage.Choose(r, "", "")
	}
	return webpage.Choose(r, c.Payment.Locale, c.Payment.Region)
}

// localeOf reads the payment behind token for the language of an error
// page; an unknown token gives the language of a page without payment.
func (h *Handler) localeOf(r *http.Request, token string) webpage.Locale {
	c, err := h.svc.CheckoutByToken(r.Context(), token)
	if err != nil {
		c = nil
	}
	return locale(r, c)
}

func (h *Handler) closed(w http.ResponseWriter, l webpage.Locale) {
	h.message(w, http.StatusNotFound, l, "Payment page unavailable",
		"This payment page was already used, has expired, or does not exist. Return to the shop to try again.")
}

func (h *Handler) show(w http.ResponseWriter, r *http.Request) {
	c, err := h.svc.CheckoutByToken(r.Context(), r.PathValue("token"))
	if err != nil {
		c = nil
	}
	l := locale(r, c)
	if c == nil || c.Payment.Status != payd.PaymentPending || c.Payment.CheckoutUsed {
		h.closed(w, l)
		return
	}
	p := c.Payment
	v := view{L: l, Title: l.T("Pay %s", p.MerchantDisplayName), Merchant: p.MerchantDisplayName,
		Amount: l.Amount(p.Amount.Minor, string(p.Amount.Currency)), Description: p.Description,
		Test: p.Test, CSRF: h.csrf(r.PathValue("token"))}
	for _, m := range c.Methods {
		label, ok := labels[m]
		if !ok {
			label = m
		}
		v.Methods = append(v.Methods, method{Type: m, Label: l.T(label)})
	}
	h.render(w, http.StatusOK, v)
}

func (h *Handler) choose(w http.ResponseWriter, r *http.Request) {
	token := r.PathValue("token")
	// The form is read, within its bound, before the token is looked up.
	if fe, ok := errors.AsType[*webpage.FormError](webpage.ReadForm(w, r)); ok {
		h.message(w, fe.Status, locale(r, nil), "Form not accepted", "Open the payment page again from the shop.")
		return
	}
	if !h.validCSRF(token, r.PostFormValue("csrf")) {
		h.message(w, http.StatusForbidden, h.localeOf(r, token), "Form expired", "Open the payment page again from the shop.")
		return
	}
	to, err := h.svc.ChooseMethod(r.Context(), token, r.PostFormValue("method"))
	if err == nil {
		http.Redirect(w, r, to, http.StatusSeeOther)
		return
	}
	// The page's own errors speak the payment's language: read once more,
	// on these rare paths only.
	l := h.localeOf(r, token)
	if errors.Is(err, payd.ErrPrecheckDenied) {
		h.message(w, http.StatusOK, l, "Payment declined", "The shop declined this payment. Return to the shop to try again.")
		return
	}
	if errors.Is(err, payd.ErrPrecheckBusy) {
		h.message(w, http.StatusConflict, l, "Try again", "The shop is still checking this payment. Try again in a few seconds.")
		return
	}
	switch payd.ErrorCodeOf(err) {
	case payd.CodeNotFound, payd.CodeInvalidState:
		h.closed(w, l)
		return
	case payd.CodeMethodUnavailable:
		h.message(w, http.StatusUnprocessableEntity, l, "Method unavailable", "Choose another payment method.")
		return
	case payd.CodeProviderUnavailable:
		httpapi.NoteUnavailableError(w, err)
		h.message(w, http.StatusServiceUnavailable, l, "Try again", "The bank is not answering right now. Try again in a minute.")
		return
	default:
		h.log.ErrorContext(r.Context(), "checkout choice", "err", err.Error())
		h.message(w, http.StatusInternalServerError, l, "Error", "Something went wrong; try again.")
	}
}
