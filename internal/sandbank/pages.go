package sandbank

import (
	"context"
	"crypto/hmac"
	"embed"
	"errors"
	"html/template"
	"log/slog"
	"net/http"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/mac"
	"github.com/paydhq/payd/internal/webpage"
)

//go:embed templates/*.html
var templateFS embed.FS

var pages = template.Must(template.ParseFS(templateFS, "templates/*.html"))

// Pages serves the sandbox bank's pages to payers: the card page with its
// buttons, 3-D Secure, leave, and the banking app of each QR method. Forms
// carry a token bound to the attempt, and every decision is taken once.
type Pages struct {
	store payd.Store
	banks map[string]*Bank
	// forms signs the pages' forms, each bound to its attempt.
	forms mac.Signer
	log   *slog.Logger
}

// NewPages returns the pages over the given banks; key protects the forms.
func NewPages(store payd.Store, key []byte, log *slog.Logger, banks ...*Bank) *Pages {
	p := &Pages{store: store, banks: map[string]*Bank{}, forms: mac.New(key, "sandbank"), log: log}
	for _, b := range banks {
		p.banks[b.name] = b
	}
	return p
}

// Register mounts the pages on mux.
func (p *Pages) Register(mux *http.ServeMux) {
	mux.HandleFunc("GET /sandbox/bank/{id}", p.payPage(payd.MethodBankCard, "bank.html", "Pay"))
	mux.HandleFunc("POST /sandbox/bank/{id}", p.cardSubmit)
	mux.HandleFunc("GET /sandbox/bank/{id}/3ds", p.threeDSPage)
	mux.HandleFunc("POST /sandbox/bank/{id}/3ds", p.threeDSSubmit)
	mux.HandleFunc("GET /sandbox/bank/{id}/leave", p.leave)
	mux.HandleFunc("GET /sandbox/bank/{id}/done", p.done)
	for _, app := range qrApps {
		mux.HandleFunc("GET "+app.path+"{id}", p.payPage(app.method, "sbp.html", app.name))
		mux.HandleFunc("POST "+app.path+"{id}", p.qrSubmit(app.method))
	}
}

type view struct {
	L                                  webpage.Locale
	Title, Message, Next, Amount, CSRF string
	// Action is where the page's form goes: the page itself.
	Action  string
	Attempt *payd.SandboxAttempt
	// Frame is the origin of the merchant page that frames the page (an
	// embedded payment's); the page then loads webpage.FrameScript.
	Frame string
}

func (p *Pages) render(w http.ResponseWriter, status int, name string, v view) {
	if v.Attempt != nil {
		v.Frame = v.Attempt.FrameOrigin
	}
	webpage.SetFramedHeaders(w.Header(), v.Frame)
	w.WriteHeader(status)
	if err := pages.ExecuteTemplate(w, name, v); err != nil {
		p.log.Error("render sandbox page", "err", err.Error())
	}
}

// message renders a page with a title and a message, both keys of the
// pages' catalogue (internal/webpage/locales), in the language of l.
func (p *Pages) message(w http.ResponseWriter, status int, l webpage.Locale, title, msg, next string) {
	p.messageOf(w, status, nil, l, title, msg, next)
}

// messageOf is message on a page of attempt a, which is framed where a's
// pages are (an embedded payment's); a may be nil.
func (p *Pages) messageOf(w http.ResponseWriter, status int, a *payd.SandboxAttempt, l webpage.Locale, title, msg, next string) {
	p.render(w, status, "message.html", view{L: l, Title: l.T(title), Message: l.T(msg), Next: next, Attempt: a})
}

// locale is the language of a's pages: the payment's confirmation.locale,
// which the attempt keeps, else the browser's, else the region's; a page
// without attempt (nil) has only the browser's, else Russian. The payer's
// browser and the attempt stay the same along a payment's pages, and so
// does their language.
func locale(r *http.Request, a *payd.SandboxAttempt) webpage.Locale {
	if a == nil {
		return webpage.Choose(r, "", "")
	}
	return webpage.Choose(r, a.Locale, a.Region)
}

// localeOf reads the attempt of the page for the language of an error
// page.
func (p *Pages) localeOf(r *http.Request) webpage.Locale {
	a, ok := p.load(r, "")
	if !ok {
		a = nil
	}
	return locale(r, a)
}

// csrf is the token of a form of attempt id: a form of one attempt cannot
// decide another.
func (p *Pages) csrf(id string) string { return p.forms.Sign(id) }

func (p *Pages) csrfOK(r *http.Request, id string) bool {
	return p.forms.Verify(r.PostFormValue("csrf"), id)
}

func (p *Pages) load(r *http.Request, method string) (*payd.SandboxAttempt, bool) {
	var a *payd.SandboxAttempt
	err := p.store.View(r.Context(), func(tx payd.Tx) (err error) {
		a, err = tx.SandboxAttemptGet(r.Context(), r.PathValue("id"))
		return err
	})
	if err != nil || (method != "" && a.Method != method) {
		return nil, false
	}
	return a, true
}

// next is where the payer goes after a decision: the merchant's return_url,
// or the bank's own closing page.
func next(a *payd.SandboxAttempt) string {
	if a.ReturnURL != "" {
		return a.ReturnURL
	}
	return "/sandbox/bank/" + a.ID + "/done"
}

func (p *Pages) notFound(w http.ResponseWriter, r *http.Request) {
	p.message(w, http.StatusNotFound, locale(r, nil), "Not found", "There is no such sandbox payment.", "")
}

func (p *Pages) alreadyProcessed(w http.ResponseWriter, r *http.Request, a *payd.SandboxAttempt) {
	p.messageOf(w, http.StatusConflict, a, locale(r, a), "Already processed", "This operation was already processed; nothing was changed.", next(a))
}

// formExpired answers a form whose token does not match.
func (p *Pages) formExpired(w http.ResponseWriter, r *http.Request) {
	p.message(w, http.StatusForbidden, p.localeOf(r), "Form expired", "Open the payment page again.", "")
}

// readForm reads a post's form within its bound (webpage.ReadForm), or
// answers the refusal and reports false. Every post of the bank's pages
// goes through it before the attempt is read.
func (p *Pages) readForm(w http.ResponseWriter, r *http.Request) bool {
	fe, refused := errors.AsType[*webpage.FormError](webpage.ReadForm(w, r))
	if refused {
		p.message(w, fe.Status, locale(r, nil), "Form not accepted", "Open the payment page again.", "")
	}
	return !refused
}

// payPage serves the page where the payer decides on an open attempt of
// method: the card form or a payment app's confirmation (sbp.html). title
// is a key of the pages' catalogue, shown translated; a name missing
// there (a payment scheme's) is shown as it is, and the rest of the page
// is translated either way.
func (p *Pages) payPage(method, page, title string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		a, ok := p.load(r, method)
		if !ok {
			p.notFound(w, r)
			return
		}
		l := locale(r, a)
		if a.State != stateCreated {
			p.messageOf(w, http.StatusOK, a, l, "Already processed", "The bank has already decided on this payment.", next(a))
			return
		}
		p.render(w, http.StatusOK, page, view{L: l, Title: l.T(title), Attempt: a, Amount: l.Amount(a.Amount, a.Currency), CSRF: p.csrf(a.ID), Action: r.URL.Path})
	}
}

// decide runs one decision on an attempt of method still open; a second
// one gets ErrDecided. An attempt of another method is not found: a form
// of one page cannot decide through another's address.
func (p *Pages) decide(ctx context.Context, id, method string, fn func(tx payd.Tx, b *Bank, a *payd.SandboxAttempt) error) (*payd.SandboxAttempt, error) {
	var out *payd.SandboxAttempt
	err := p.store.Tx(ctx, func(tx payd.Tx) error {
		a, err := tx.SandboxAttemptGetForUpdate(ctx, id)
		if err != nil {
			return err
		}
		b, ok := p.banks[a.Provider]
		if !ok || a.Method != method {
			return payd.ErrNoRows
		}
		out = a
		if a.State != stateCreated {
			return ErrDecided
		}
		return fn(tx, b, a)
	})
	return out, err
}

func (p *Pages) finish(w http.ResponseWriter, r *http.Request, a *payd.SandboxAttempt, err error, to string) {
	switch {
	case errors.Is(err, ErrDecided):
		p.alreadyProcessed(w, r, a)
	case errors.Is(err, payd.ErrNoRows):
		p.notFound(w, r)
	case err != nil:
		p.log.ErrorContext(r.Context(), "sandbox decision", "err", err.Error())
		p.messageOf(w, http.StatusInternalServerError, a, locale(r, a), "Error", "The sandbox bank could not process this; try again.", "")
	default:
		http.Redirect(w, r, to, http.StatusSeeOther)
	}
}

var declineButtons = map[string]string{
	"insufficient_funds": payd.ReasonInsufficientFunds,
	"card_expired":       payd.ReasonCardExpired,
	"issuer_declined":    payd.ReasonIssuerDeclined,
}

func (p *Pages) cardSubmit(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !p.readForm(w, r) {
		return
	}
	if !p.csrfOK(r, id) {
		p.formExpired(w, r)
		return
	}
	action := r.PostFormValue("action")
	if action == "pay" {
		a, ok := p.load(r, payd.MethodBankCard)
		if !ok {
			p.notFound(w, r)
			return
		}
		if a.State != stateCreated {
			p.alreadyProcessed(w, r, a)
			return
		}
		http.Redirect(w, r, "/sandbox/bank/"+id+"/3ds", http.StatusSeeOther)
		return
	}
	reason, ok := declineButtons[action]
	if !ok {
		p.message(w, http.StatusBadRequest, p.localeOf(r), "Unknown action", "Choose one of the buttons.", "")
		return
	}
	a, err := p.decide(r.Context(), id, payd.MethodBankCard, func(tx payd.Tx, b *Bank, a *payd.SandboxAttempt) error {
		return b.decline(r.Context(), tx, a, reason)
	})
	p.finish(w, r, a, err, nextOr(a))
}

func nextOr(a *payd.SandboxAttempt) string {
	if a == nil {
		return "/"
	}
	return next(a)
}

func (p *Pages) threeDSPage(w http.ResponseWriter, r *http.Request) {
	a, ok := p.load(r, payd.MethodBankCard)
	if !ok {
		p.notFound(w, r)
		return
	}
	l := locale(r, a)
	if a.State != stateCreated || a.ThreeDSUsed {
		p.messageOf(w, http.StatusOK, a, l, "Already processed", "The bank has already decided on this payment.", next(a))
		return
	}
	p.render(w, http.StatusOK, "3ds.html", view{L: l, Title: "3-D Secure", Attempt: a, Amount: l.Amount(a.Amount, a.Currency), CSRF: p.csrf(a.ID)})
}

// ThreeDSCode is the one code the sandbox's 3-D Secure accepts.
const ThreeDSCode = "123456"

func (p *Pages) threeDSSubmit(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !p.readForm(w, r) {
		return
	}
	if !p.csrfOK(r, id) {
		p.formExpired(w, r)
		return
	}
	code := r.PostFormValue("code")
	a, err := p.decide(r.Context(), id, payd.MethodBankCard, func(tx payd.Tx, b *Bank, a *payd.SandboxAttempt) error {
		if a.ThreeDSUsed {
			return ErrDecided
		}
		// One attempt: whatever the code, the challenge is spent. The right
		// code is the payer's confirmation; the plan may still fail it
		// (03).
		a.ThreeDSUsed = true
		if hmac.Equal([]byte(code), []byte(ThreeDSCode)) {
			return b.approve(r.Context(), tx, a, true)
		}
		return b.decline(r.Context(), tx, a, payd.ReasonThreeDSFailed)
	})
	p.finish(w, r, a, err, nextOr(a))
}

func (p *Pages) leave(w http.ResponseWriter, r *http.Request) {
	a, ok := p.load(r, "")
	if !ok {
		p.notFound(w, r)
		return
	}
	// No outcome: the payment closes by its own expiry.
	to := next(a)
	if a.FrameOrigin != "" {
		// Inside an embedded form the return page is payd's result
		// page, which then tells the merchant's page the payer left
		// (docs/embedded.md) instead of waiting for an answer that is
		// not coming.
		to += "?left=1"
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}

func (p *Pages) done(w http.ResponseWriter, r *http.Request) {
	a, ok := p.load(r, "")
	if !ok {
		p.notFound(w, r)
		return
	}
	p.messageOf(w, http.StatusOK, a, locale(r, a), "Done", "The sandbox bank has your answer. You can close this page.", "")
}

// qrSubmit takes the payer's answer in the banking app of a QR method:
// Pay is the confirmation, whose outcome the plan decides; Decline is the
// payer's bank saying no.
func (p *Pages) qrSubmit(method string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		if !p.readForm(w, r) {
			return
		}
		if !p.csrfOK(r, id) {
			p.formExpired(w, r)
			return
		}
		action := r.PostFormValue("action")
		a, err := p.decide(r.Context(), id, method, func(tx payd.Tx, b *Bank, a *payd.SandboxAttempt) error {
			if action == "pay" {
				return b.approve(r.Context(), tx, a, false)
			}
			return b.decline(r.Context(), tx, a, payd.ReasonIssuerDeclined)
		})
		p.finish(w, r, a, err, nextOr(a))
	}
}
