// Package checkout is the hosted payment page at a payment's
// confirmation_url: it shows the shop's display name, the amount and the
// description, lets the payer choose a method, and sends the payer on to
// the provider's page. Server-rendered, no scripts or external assets, and
// the one-time token in the address is never logged.
package checkout

import (
	"crypto/hmac"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"html/template"
	"log/slog"
	"net/http"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/money"
	"github.com/paydhq/payd/webpage"
)

//go:embed templates/checkout.html
var templateFS embed.FS

var page = template.Must(template.ParseFS(templateFS, "templates/checkout.html"))

// Handler serves the hosted page.
type Handler struct {
	svc *payd.Service
	key []byte
	log *slog.Logger
}

// New returns the page handler; key protects its form.
func New(svc *payd.Service, key []byte, log *slog.Logger) *Handler {
	return &Handler{svc: svc, key: key, log: log}
}

// Register mounts the page on mux.
func (h *Handler) Register(mux *http.ServeMux) {
	mux.HandleFunc("GET /checkout/{token}", h.show)
	mux.HandleFunc("POST /checkout/{token}", h.choose)
}

type method struct{ Type, Label string }

var labels = map[string]string{payd.MethodBankCard: "Bank card", payd.MethodSBP: "SBP (Faster Payments)", payd.MethodKZQR: "QR in your bank's app"}

type view struct {
	Lang, Title, Message, Merchant, Amount, Description, CSRF string
	Test                                                      bool
	Methods                                                   []method
}

func (h *Handler) render(w http.ResponseWriter, status int, v view) {
	webpage.SetHeaders(w.Header())
	if v.Lang == "" {
		v.Lang = "en"
	}
	w.WriteHeader(status)
	if err := page.Execute(w, v); err != nil {
		h.log.Error("render checkout", "err", err.Error())
	}
}

func (h *Handler) csrf(token string) string {
	m := hmac.New(sha256.New, h.key)
	m.Write([]byte("checkout\x00" + token))
	return hex.EncodeToString(m.Sum(nil))
}

func (h *Handler) closed(w http.ResponseWriter) {
	h.render(w, http.StatusNotFound, view{Title: "Payment page unavailable",
		Message: "This payment page was already used, has expired, or does not exist. Return to the shop to try again."})
}

func (h *Handler) show(w http.ResponseWriter, r *http.Request) {
	c, err := h.svc.CheckoutByToken(r.Context(), r.PathValue("token"))
	if err != nil || c.Payment.Status != payd.PaymentPending || c.Payment.CheckoutUsed {
		h.closed(w)
		return
	}
	p := c.Payment
	v := view{Lang: p.Locale, Title: "Pay " + p.MerchantDisplayName, Merchant: p.MerchantDisplayName,
		Amount: money.FormatValue(p.Amount.Minor) + " " + string(p.Amount.Currency), Description: p.Description,
		Test: p.Test, CSRF: h.csrf(r.PathValue("token"))}
	for _, m := range c.Methods {
		v.Methods = append(v.Methods, method{Type: m, Label: labels[m]})
	}
	h.render(w, http.StatusOK, v)
}

func (h *Handler) choose(w http.ResponseWriter, r *http.Request) {
	token := r.PathValue("token")
	got, err := hex.DecodeString(r.PostFormValue("csrf"))
	want, _ := hex.DecodeString(h.csrf(token))
	if err != nil || !hmac.Equal(got, want) {
		h.render(w, http.StatusForbidden, view{Title: "Form expired", Message: "Open the payment page again from the shop."})
		return
	}
	to, err := h.svc.ChooseMethod(r.Context(), token, r.PostFormValue("method"))
	if err == nil {
		http.Redirect(w, r, to, http.StatusSeeOther)
		return
	}
	if errors.Is(err, payd.ErrPrecheckDenied) {
		h.render(w, http.StatusOK, view{Title: "Payment declined", Message: "The shop declined this payment. Return to the shop to try again."})
		return
	}
	switch payd.ErrorCodeOf(err) {
	case payd.CodeNotFound, payd.CodeInvalidState:
		h.closed(w)
		return
	case payd.CodeMethodUnavailable:
		h.render(w, http.StatusUnprocessableEntity, view{Title: "Method unavailable", Message: "Choose another payment method."})
		return
	case payd.CodeProviderUnavailable:
		h.render(w, http.StatusServiceUnavailable, view{Title: "Try again", Message: "The bank is not answering right now. Try again in a minute."})
		return
	default:
		h.log.Error("checkout choice", "err", err.Error())
		h.render(w, http.StatusInternalServerError, view{Title: "Error", Message: "Something went wrong; try again."})
	}
}
