package dashboard

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/paydhq/payd"
)

// testClockUnits are the units the clock form offers, with their length.
var testClockUnits = map[string]time.Duration{"minutes": time.Minute, "hours": time.Hour, "days": 24 * time.Hour}

// maxClockAdvance bounds one advance of the test clock from the page.
const maxClockAdvance = 366 * 24 * time.Hour

type sandboxView struct {
	Pending  []*payd.PaymentJSON
	Outcomes []payd.SandboxOutcome
	Payment  string
	Outcome  payd.SandboxOutcome
	Key      string
	Err      formError
	// Clock is set when the service runs with a test clock; Shared when
	// other merchants run on it too, so that only the operator moves it
	// and the page shows it without its form.
	Clock  bool
	Shared bool
	Now    time.Time
	// Offset is the clock's lead over the wall clock when the page was
	// made, in milliseconds: the form sends it back, and a clock already
	// moved since is not moved again (a double submit is one advance).
	Offset int64
}

// sandbox is the test data's tools: an outcome for a test payment, and the
// test clock. Live data has no sandbox: its address is not found.
// A pending payment's "choose" link fills the form's payment id.
func (h *Handler) sandbox(q *req) {
	h.showSandbox(q, http.StatusOK, sandboxView{Payment: q.r.URL.Query().Get("payment")})
}

func (h *Handler) showSandbox(q *req, status int, v sandboxView) {
	if !q.test {
		q.problem(http.StatusNotFound, q.l.T("The sandbox works with test data only."))
		return
	}
	page, err := h.svc.ListPayments(q.ctx, q.principal(), &payd.PaymentListParams{
		ListParams: payd.ListParams{Limit: 10}, Status: payd.PaymentPending})
	if err != nil {
		q.fail(err)
		return
	}
	for _, item := range page.Items {
		row, err := item.Payment()
		if err != nil {
			q.fail(err)
			return
		}
		v.Pending = append(v.Pending, row)
	}
	v.Outcomes, v.Key, v.Clock, v.Now = payd.SandboxOutcomeAll(), newKey(), h.clock != nil, h.now()
	if h.clock != nil {
		v.Offset = testClockOffset(h.clock)
		if v.Shared, err = h.svc.TestClockShared(q.ctx); err != nil {
			q.fail(err)
			return
		}
	}
	q.render(status, "sandbox", "sandbox", q.l.T("Sandbox"), v)
}

// simulate has the sandbox bank apply an outcome to a test payment, as
// `POST /test/payments/{id}/simulate` does, with the form's key.
func (h *Handler) simulate(q *req) {
	if !q.test {
		q.problem(http.StatusNotFound, q.l.T("The sandbox works with test data only."))
		return
	}
	idem, ok := postIdempotency(q)
	if !ok {
		return
	}
	id := strings.TrimSpace(q.r.PostForm.Get("payment_id"))
	outcome := payd.SandboxOutcome(q.r.PostForm.Get("outcome"))
	delay := 0
	if s := strings.TrimSpace(q.r.PostForm.Get("delay_seconds")); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || n > 300 {
			h.showSandbox(q, http.StatusBadRequest, sandboxView{Payment: id, Outcome: outcome, Err: formError{Form: "simulate",
				Field: "delay_seconds", Message: q.l.T("The delay is a whole number of seconds, 0 to 300.")}})
			return
		}
		delay = n
	}
	act(q, func() (*payd.Response, error) {
		return h.svc.SimulateOutcome(q.ctx, q.principal(), idem, id, outcome, time.Duration(delay)*time.Second)
	}, func(*payd.Response) { q.redirect("sandbox", "simulated") }, func(pe *payd.Error) {
		fe := refusedIn(q.l, "simulate", pe)
		if pe.Code == payd.CodeNotFound {
			fe.Field, fe.Message = "payment_id", q.l.T("No test payment of this shop has this id.")
		}
		h.showSandbox(q, httpStatusOf(pe), sandboxView{Payment: id, Outcome: outcome, Err: fe})
	})
}

// advanceClock moves the service's test clock forward, as the operator's
// `POST /admin/v1/clock/advance` does, and the move is in the audit log.
// The clock is the whole service's: it exists only in a deployment
// started with --test-clock, for tests, and the service refuses the move
// when other merchants' sandboxes run on it too (payd.ErrTestClockShared).
// The form carries the clock's lead it saw, and the service moves the
// clock only from there: the same form sent twice moves it once, and the
// second answer is the first's.
func (h *Handler) advanceClock(q *req) {
	if !q.test || h.clock == nil {
		q.problem(http.StatusNotFound, q.l.T("The service runs without a test clock."))
		return
	}
	n, err := strconv.Atoi(strings.TrimSpace(q.r.PostForm.Get("amount")))
	unit, ok := testClockUnits[q.r.PostForm.Get("unit")]
	if err != nil || !ok || n < 1 || time.Duration(n)*unit > maxClockAdvance {
		h.showSandbox(q, http.StatusBadRequest, sandboxView{Err: formError{Form: "clock", Field: "amount",
			Message: q.l.T("Enter a whole number of minutes, hours or days, up to a year.")}})
		return
	}
	seen, err := strconv.ParseInt(q.r.PostForm.Get("offset"), 10, 64)
	if err != nil {
		q.problem(http.StatusBadRequest, q.l.T("This form has expired. Open the page again and repeat."))
		return
	}
	move := payd.TestClockAdvance{By: time.Duration(n) * unit, From: time.Duration(seen) * time.Millisecond}
	act(q, func() (time.Time, error) {
		now, _, err := h.svc.AdvanceTestClock(q.ctx, q.principal(), move)
		return now, err
	}, func(time.Time) { q.redirect("sandbox", "clock_advanced") }, func(pe *payd.Error) {
		if errors.Is(pe, payd.ErrTestClockShared) {
			h.refuseSharedClock(q)
			return
		}
		q.showRefusal(pe)
	})
}

// refuseSharedClock answers a move of a clock other merchants run on.
func (h *Handler) refuseSharedClock(q *req) {
	q.problem(http.StatusForbidden, q.l.T("Other merchants' sandboxes run on this clock too, so only the service's operator moves it (payd admin clock advance)."))
}

// testClockOffset is how far the test clock is ahead of the wall clock, in
// milliseconds: what the clock's form carries (TestClockAdvance.From).
func testClockOffset(c *payd.TestClock) int64 { return c.Lead().Milliseconds() }
