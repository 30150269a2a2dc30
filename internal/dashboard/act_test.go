package dashboard

import (
	"bytes"
	"errors"
	"fmt"
	"html"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/mac"
	"github.com/paydhq/payd/internal/webpage"
)

// actReq is a signed-in post of a form, answered into a recorder; log
// holds what the handler logged.
func actReq(t *testing.T) (*req, *httptest.ResponseRecorder, *bytes.Buffer) {
	t.Helper()
	var log bytes.Buffer
	h := &Handler{svc: payd.NewService(payd.Config{}), forms: mac.New([]byte("test key of the forms"), "dashboard"),
		log: slog.New(slog.NewTextHandler(&log, nil))}
	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodPost, Prefix+"test/payments/pay_1/capture", nil)
	shop := &payd.Shop{ID: "shop_1", Name: "Shop"}
	return &req{h: h, w: w, r: r, ctx: r.Context(), sess: &payd.Session{ID: "sess_1"},
		user:  &payd.User{ID: "usr_1", Email: "staff@shop.example", Role: payd.RoleAdmin},
		shops: []*payd.Shop{shop}, shop: shop, test: true, l: webpage.For("en")}, w, &log
}

// act answers each outcome of a form's action once: the result to done, a
// rule's refusal (however wrapped) to refused or to a page of its own,
// and anything else, an internal_error among it, as a logged failure
// whose text the page does not show.
func TestActAnswersEachOutcome(t *testing.T) {
	t.Parallel()
	rule := payd.Invalid("amount.value", "the amount must be positive")
	secret := "dial tcp 10.0.0.7:5432: password authentication failed for user payd"
	for _, tc := range []struct {
		name string
		err  error
		// withRefused passes a refused func; without, the refusal is a
		// page of its own.
		withRefused bool
		// refused is whether refused was given the rule; status and
		// shown are the page act wrote itself (0: none).
		refused bool
		status  int
		shown   string
		logged  bool
	}{
		{name: "done"},
		{name: "refusal", err: rule, withRefused: true, refused: true},
		{name: "wrapped refusal", err: fmt.Errorf("capture pay_1: %w", rule), withRefused: true, refused: true},
		{name: "refusal without a form", err: payd.NotFound("payment"), status: http.StatusNotFound, shown: "payment not found"},
		{name: "failure", err: errors.New(secret), withRefused: true, status: http.StatusInternalServerError,
			shown: "Something went wrong; try again.", logged: true},
		{name: "failure named by its operation", err: &payd.OpError{Op: "capture payment", Err: errors.New(secret)},
			withRefused: true, status: http.StatusInternalServerError, shown: "Something went wrong; try again.", logged: true},
		{name: "internal_error", err: &payd.Error{Code: payd.CodeInternal, Message: secret}, withRefused: true,
			status: http.StatusInternalServerError, shown: "Something went wrong; try again.", logged: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			q, w, log := actReq(t)
			var done, refusedWith *payd.Error
			doneCalled := false
			var refused func(*payd.Error)
			if tc.withRefused {
				refused = func(pe *payd.Error) { refusedWith = pe }
			}
			act(q, func() (*payd.Error, error) { return rule, tc.err }, func(v *payd.Error) { done, doneCalled = v, true }, refused)

			if doneCalled != (tc.err == nil) || (doneCalled && done != rule) {
				t.Errorf("done called %v with %v, want %v", doneCalled, done, tc.err == nil)
			}
			if got := refusedWith != nil; got != tc.refused || (got && refusedWith != rule) {
				t.Errorf("refused given %v, want the rule: %v", refusedWith, tc.refused)
			}
			body := html.UnescapeString(w.Body.String())
			if tc.status == 0 {
				if w.Body.Len() != 0 {
					t.Errorf("act wrote a page of its own:\n%s", body)
				}
			} else if w.Code != tc.status || !strings.Contains(body, `id="problem">`+tc.shown+"<") {
				t.Errorf("answer = %d, want %d with %q\n%s", w.Code, tc.status, tc.shown, body)
			}
			if strings.Contains(body, "password authentication") {
				t.Errorf("the page shows the internal error:\n%s", body)
			}
			if got := strings.Contains(log.String(), "password authentication failed"); got != tc.logged {
				t.Errorf("logged the error: %v, want %v\n%s", got, tc.logged, log.String())
			}
		})
	}
}
