// Package embed is the embedded confirmation's side of the payer
// (docs/embedded.md): the widget script a merchant's page loads
// (payd.js), the payment form it frames (the same methods and sandbox
// bank as the hosted checkout), the result page the provider sends the
// payer back to inside the frame, and the frame's own script (frame.js),
// which tells the merchant's page the form's height and the payment's
// outcome by postMessage to the page's origin alone.
//
// Every page of the frame may be framed only by the origin its token was
// bound to (Content-Security-Policy frame-ancestors naming that origin
// alone): the shop's list of origins decides which origin may bind, and
// the browser refuses the frame to any other page. No page has inline
// script; the token in the addresses is never logged.
package embed

import (
	_ "embed"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/httpapi"
	"github.com/paydhq/payd/internal/mac"
	"github.com/paydhq/payd/internal/urlguard"
	"github.com/paydhq/payd/internal/webpage"
)

// Version is the widget's version in its addresses. A file served under
// a version never changes (browsers keep it a year); a change of the
// script, or of the messages between frame and page, is a new version,
// and the old one keeps being served. v2 added the error event (a
// refused origin); v1's scripts are served as they were, and its pages'
// addresses lead to the same pages, whose messages v1's widget reads as
// before (it drops the ones it does not know).
const Version = "v2"

// PrefixV1 is the first version's prefix, still served.
const PrefixV1 = "/embed/v1/"

// Addresses of the widget (Prefix + …).
const (
	Prefix = "/embed/" + Version + "/"
	// Script is what the merchant's page loads.
	Script = Prefix + "payd.js"
	// PayPath + token is the payment form, framed by the widget, with the
	// page's origin in the query (origin=…).
	PayPath = Prefix + "pay/"
	// DonePath + payment id + "/" + signature is the result page.
	DonePath = Prefix + "done/"
)

//go:embed static/payd.js
var widgetJS []byte

//go:embed static/frame.js
var frameJS []byte

//go:embed static/v1/payd.js
var widgetV1JS []byte

//go:embed static/v1/frame.js
var frameV1JS []byte

//go:embed templates/frame.html
var frameHTML string

var page = template.Must(template.New("frame").Parse(frameHTML))

// Handler serves the widget and its pages.
type Handler struct {
	svc *payd.Service
	// forms binds the form to its token and origin; done signs the
	// result page's payment id.
	forms, done mac.Signer
	publicURL   string
	log         *slog.Logger
}

// New returns the handler; key protects the forms and the result pages'
// addresses, publicURL is the base of the result page's address (the
// service's public URL).
func New(svc *payd.Service, key []byte, publicURL string, log *slog.Logger) *Handler {
	return &Handler{svc: svc, forms: mac.New(key, "embed"), done: mac.New(key, "embed-done"),
		publicURL: publicURL, log: log}
}

// Register mounts the widget on mux.
func (h *Handler) Register(mux *http.ServeMux) {
	mux.HandleFunc("GET "+Script, serveScript(widgetJS))
	mux.HandleFunc("GET "+webpage.FrameScript, serveScript(frameJS))
	mux.HandleFunc("GET "+PrefixV1+"payd.js", serveScript(widgetV1JS))
	mux.HandleFunc("GET "+PrefixV1+"frame.js", serveScript(frameV1JS))
	for _, prefix := range []string{Prefix, PrefixV1} {
		mux.HandleFunc("GET "+prefix+"pay/{token}", h.show)
		mux.HandleFunc("POST "+prefix+"pay/{token}", h.choose)
		mux.HandleFunc("GET "+prefix+"done/{id}/{sig}", h.result)
	}
}

// serveScript serves a script of a fixed version: cached a year and never
// revalidated (immutable), loadable by any page, including one that
// requires its subresources to opt in (Cross-Origin-Resource-Policy).
func serveScript(body []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "text/javascript; charset=utf-8")
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cross-Origin-Resource-Policy", "cross-origin")
		w.Write(body)
	}
}

type method struct{ Type, Label string }

// labels are the methods' names, keys of the pages' catalogue, as the
// hosted checkout shows them.
var labels = map[string]string{payd.MethodBankCard: "Bank card", payd.MethodSBP: "SBP (Faster Payments)", payd.MethodKZQR: "QR in your bank's app"}

// view is a page of the frame. Frame is the origin allowed to frame it
// (empty: none); Event, when set, is the outcome frame.js reports to it.
type view struct {
	L                                             webpage.Locale
	Title, Message, Merchant, Amount, Description string
	CSRF, Return                                  string
	Test, Waiting                                 bool
	Methods                                       []method
	Frame, Event, PaymentID, Status, Reason       string
	// Script is the frame's script, webpage.FrameScript.
	Script string
}

func (h *Handler) render(w http.ResponseWriter, status int, v view) {
	webpage.SetFramedHeaders(w.Header(), v.Frame)
	v.Script = webpage.FrameScript
	w.WriteHeader(status)
	if err := page.Execute(w, v); err != nil {
		h.log.Error("render embedded form", "err", err.Error())
	}
}

// message renders a page with a title and a message, catalogue keys, in
// the language of l, framed by frame. A load that may not show the form
// gets it with no frame (""): the browser shows nothing in the
// merchant's frame, and nothing is told to the page.
func (h *Handler) message(w http.ResponseWriter, status int, l webpage.Locale, frame, title, msg string) {
	h.render(w, status, view{L: l, Title: l.T(title), Message: l.T(msg), Frame: frame})
}

// language is the frame's language: the payment's confirmation.locale;
// else the widget's locale option (lang=…), else the browser's, else the
// region's.
func language(r *http.Request, pay *payd.Payment) webpage.Locale {
	loc, region := "", payd.Region("")
	if pay != nil {
		loc, region = pay.Locale, pay.Region
	}
	if loc == "" {
		if lang, ok := payd.ParseLocale(r.URL.Query().Get("lang")); ok {
			loc = lang
		}
	}
	return webpage.Choose(r, loc, region)
}

// origin is the page origin the widget put in the frame's address, when
// it is an origin in the form browsers write it. A browser's own requests
// say where they come from too (Sec-Fetch-Dest, Referer); what they say
// must agree: the form loads only as a frame (a browser that sends no
// Sec-Fetch-Dest is not asked), and a Referer, when sent, must be of that
// origin. The Content-Security-Policy frame-ancestors of the answer is
// the guard that holds whatever a request claims.
func origin(r *http.Request) (string, bool) {
	claimed := r.URL.Query().Get("origin")
	o, err := urlguard.CheckOrigin(claimed)
	if err != nil || o.Serialized != claimed {
		return "", false
	}
	if dest := r.Header.Get("Sec-Fetch-Dest"); dest != "" && dest != "iframe" {
		return "", false
	}
	if ref := r.Header.Get("Referer"); ref != "" {
		u, err := url.Parse(ref)
		if err != nil {
			return "", false
		}
		ro, err := urlguard.CheckOrigin(u.Scheme + "://" + u.Host)
		if err != nil || ro.Serialized != claimed {
			return "", false
		}
	}
	return claimed, true
}

func (h *Handler) show(w http.ResponseWriter, r *http.Request) {
	token := r.PathValue("token")
	from, ok := origin(r)
	if !ok {
		h.message(w, http.StatusForbidden, language(r, nil), "", "Payment form unavailable",
			"This payment form opens only inside the shop's page.")
		return
	}
	c, err := h.svc.OpenEmbedded(r.Context(), token, from)
	var pay *payd.Payment
	if c != nil {
		pay = c.Payment
	}
	l := language(r, pay)
	switch {
	case errors.Is(err, payd.ErrEmbedUsed):
		// Another origin opened it: nothing is framed or told here (this
		// page's browser would refuse the frame to any other origin).
		h.render(w, http.StatusConflict, view{L: l, Title: l.T("Payment form unavailable"),
			Message: l.T("This payment form was opened on another page.")})
		return
	case errors.Is(err, payd.ErrEmbedChosen):
		// A reload after the payer chose a method: the attempt goes on at
		// the bank, and the result page follows it in the frame.
		http.Redirect(w, r, h.doneURL(pay.ID), http.StatusSeeOther)
		return
	case errors.Is(err, payd.ErrEmbedClosed):
		h.render(w, http.StatusOK, view{L: l, Title: l.T("Payment form unavailable"), Frame: from,
			Message: l.T("This payment form can no longer be used: the payment was closed or has expired. Reload the page to start again."),
			Event:   "closed", Reason: "payment_closed", PaymentID: pay.ID, Status: string(pay.Status)})
		return
	case errors.Is(err, payd.ErrEmbedOrigin):
		// The page's origin is well formed and agrees with what its
		// browser says, but the shop does not list it. The page is told
		// why, by an error event, and nothing else: frame-ancestors and
		// postMessage both name the origin it claims, so only a page
		// truly of that origin shows the frame or hears the event, and
		// it learns only that it is not listed — not the list, the shop,
		// the amount, nor whether the token was spent (it was not).
		h.render(w, http.StatusForbidden, view{L: l, Title: l.T("Payment form unavailable"), Frame: from,
			Message: l.T("This payment form opens only inside the shop's page."), Event: "error", Reason: "origin_not_allowed"})
		return
	case payd.ErrorCodeOf(err) == payd.CodeNotFound:
		h.message(w, http.StatusNotFound, l, "", "Payment form unavailable",
			"This payment form can no longer be used: the payment was closed or has expired. Reload the page to start again.")
		return
	case err != nil:
		h.log.Error("open embedded form", "err", err.Error())
		h.message(w, http.StatusInternalServerError, l, "", "Error", "Something went wrong; try again.")
		return
	}
	v := view{L: l, Title: l.T("Pay %s", pay.MerchantDisplayName), Merchant: pay.MerchantDisplayName,
		Amount: l.Amount(pay.Amount.Minor, string(pay.Amount.Currency)), Description: pay.Description,
		Test: pay.Test, CSRF: h.forms.Sign(token, from), Frame: from}
	for _, m := range c.Methods {
		label, ok := labels[m]
		if !ok {
			label = m
		}
		v.Methods = append(v.Methods, method{Type: m, Label: l.T(label)})
	}
	h.render(w, http.StatusOK, v)
}

// doneURL is the result page of a payment, signed so that only the
// service's own redirects lead there.
func (h *Handler) doneURL(paymentID string) string {
	return h.publicURL + DonePath + paymentID + "/" + h.done.Sign(paymentID)
}

func (h *Handler) choose(w http.ResponseWriter, r *http.Request) {
	token := r.PathValue("token")
	if fe, ok := errors.AsType[*webpage.FormError](webpage.ReadForm(w, r)); ok {
		h.message(w, fe.Status, language(r, nil), "", "Form not accepted", "Open the payment page again from the shop.")
		return
	}
	// The form is bound to the token and to the origin it was opened for;
	// the service checks that origin is still the token's.
	from := r.URL.Query().Get("origin")
	if !h.forms.Verify(r.PostFormValue("csrf"), token, from) {
		h.message(w, http.StatusForbidden, language(r, nil), "", "Form expired", "Open the payment page again from the shop.")
		return
	}
	to, err := h.svc.ChooseEmbeddedMethod(r.Context(), token, from, r.PostFormValue("method"), h.doneURL)
	if err == nil {
		http.Redirect(w, r, to, http.StatusSeeOther)
		return
	}
	l := language(r, nil)
	switch {
	case errors.Is(err, payd.ErrEmbedOrigin):
		h.message(w, http.StatusForbidden, l, "", "Payment form unavailable", "This payment form opens only inside the shop's page.")
	case errors.Is(err, payd.ErrPrecheckDenied):
		h.message(w, http.StatusOK, l, from, "Payment declined", "The shop declined this payment; no money was taken.")
	case errors.Is(err, payd.ErrPrecheckBusy):
		h.message(w, http.StatusConflict, l, from, "Try again", "The shop is still checking this payment. Try again in a few seconds.")
	case payd.ErrorCodeOf(err) == payd.CodeNotFound || payd.ErrorCodeOf(err) == payd.CodeInvalidState:
		h.message(w, http.StatusNotFound, l, from, "Payment page unavailable",
			"This payment form can no longer be used: the payment was closed or has expired. Reload the page to start again.")
	case payd.ErrorCodeOf(err) == payd.CodeMethodUnavailable:
		h.message(w, http.StatusUnprocessableEntity, l, from, "Method unavailable", "Choose another payment method.")
	case payd.ErrorCodeOf(err) == payd.CodeProviderUnavailable:
		httpapi.NoteUnavailableError(w, err)
		h.message(w, http.StatusServiceUnavailable, l, from, "Try again", "The bank is not answering right now. Try again in a minute.")
	default:
		h.log.Error("embedded choice", "err", err.Error())
		h.message(w, http.StatusInternalServerError, l, from, "Error", "Something went wrong; try again.")
	}
}

// result is where the provider sends the payer back inside the frame: it
// shows the payment's outcome and reports it to the page (success for a
// payment that succeeded or waits for capture, failure for a canceled
// one, closed when the payer left the bank's page: left=1, which the
// sandbox bank adds for a framed attempt). While the bank's answer is
// still on its way it looks again every two seconds.
func (h *Handler) result(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !h.done.Verify(r.PathValue("sig"), id) {
		h.message(w, http.StatusNotFound, language(r, nil), "", "Not found", "There is no such payment page.")
		return
	}
	pay, err := h.svc.EmbeddedPayment(r.Context(), id)
	if err != nil {
		if payd.ErrorCodeOf(err) != payd.CodeNotFound {
			h.log.Error("embedded result", "err", err.Error())
		}
		h.message(w, http.StatusNotFound, language(r, nil), "", "Not found", "There is no such payment page.")
		return
	}
	l := language(r, pay)
	v := view{L: l, Frame: pay.EmbedOrigin, PaymentID: pay.ID, Status: string(pay.Status), Return: pay.ReturnURL, Test: pay.Test}
	switch pay.Status {
	case payd.PaymentSucceeded, payd.PaymentWaitingForCapture:
		v.Title, v.Message, v.Event = l.T("Payment accepted"), l.T("Thank you: the shop has your payment."), "success"
		v.Amount = l.Amount(pay.Amount.Minor, string(pay.Amount.Currency))
	case payd.PaymentCanceled:
		v.Title, v.Message, v.Event = l.T("Payment declined"), l.T("The payment did not go through; no money was taken. To try again, reload the page."), "failure"
		if pay.Cancellation != nil {
			v.Reason = pay.Cancellation.Reason
		}
	default:
		if r.URL.Query().Get("left") == "1" {
			// The payer left the bank's page without deciding: no answer
			// is coming, and the payment closes at its expiry.
			v.Title, v.Message, v.Event, v.Reason = l.T("Payment not made"), l.T("You left the bank's page before paying. To try again, reload the page."), "closed", "payer_left"
			break
		}
		v.Title, v.Message, v.Waiting = l.T("Waiting for the bank"), l.T("The bank is confirming the payment; this page updates by itself."), true
	}
	h.render(w, http.StatusOK, v)
}
