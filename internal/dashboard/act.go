package dashboard

import (
	"errors"
	"net/http"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/webpage"
)

// act runs the action of one post of a form and answers it. It is the one
// place that tells a refusal the user should read from a failure of the
// service:
//
//   - done, the action's result goes to done, which answers: a redirect
//     with a notice, or the page that shows what was made;
//   - refused by one of the service's rules (refusal), the refusal goes to
//     refused, which shows the form again with the rule's words next to
//     the field it names and what the user typed; a nil refused shows the
//     rule's words on a page of their own;
//   - anything else failed: it is logged with the request and answered
//     500 with a page that says only that something went wrong, since an
//     internal error's text is not the user's to read.
func act[T any](q *req, action func() (T, error), done func(T), refused func(*payd.Error)) {
	v, err := action()
	if err == nil {
		done(v)
		return
	}
	pe := refusal(err)
	switch {
	case pe == nil:
		q.failed(err)
	case refused == nil:
		q.showRefusal(pe)
	default:
		refused(pe)
	}
}

// refusal is err as a refusal by one of the service's rules: a contract
// error (*payd.Error) other than internal_error, whose words are written
// for the user and whose status says what kind of refusal it is. It is
// nil for anything else, a failure of the service.
func refusal(err error) *payd.Error {
	var pe *payd.Error
	if errors.As(err, &pe) && pe.Code != payd.CodeInternal {
		return pe
	}
	return nil
}

// refusedIn is a refusal shown in the page's form named form, next to the
// field the rule names.
func refusedIn(l webpage.Locale, form string, pe *payd.Error) formError {
	return formError{Form: form, Field: pe.Param, Message: say(l, pe)}
}

// showRefusal answers a refusal that belongs to no form on the page (the
// object is gone, the form's page cannot be shown) with a page of its own.
func (q *req) showRefusal(pe *payd.Error) { q.problem(httpStatusOf(pe), say(q.l, pe)) }

// failed answers a failure of the service: logged with the request, shown
// as a generic failure.
func (q *req) failed(err error) {
	q.h.log.Error("dashboard: request failed", "path", q.r.URL.Path, "err", err.Error())
	q.problem(http.StatusInternalServerError, q.l.T("Something went wrong; try again."))
}
