package office

import (
	"bytes"
	"cmp"
	"encoding/json"
	"net/http"
	"net/url"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/httpapi"
	"github.com/paydhq/payd/internal/operator"
)

// The pages work through the operator API in-process: a call is the API's
// request, served by its handler as the signed-in member
// (operator.AsStaff), so who may do what, the four-eyes proposals and the
// audit entries are the API's, one table for the pages and the tokens.

// answer is what the API answered a call.
type answer struct {
	status int
	header http.Header
	body   []byte
}

// ok reports a 2xx answer.
func (a *answer) ok() bool { return a.status >= 200 && a.status < 300 }

// decode reads the answer's JSON into v; numbers stay exact
// (json.Number), as amounts are strings already.
func (a *answer) decode(v any) error {
	d := json.NewDecoder(bytes.NewReader(a.body))
	d.UseNumber()
	return d.Decode(v)
}

// refusal is the Error object of an answer that is not 2xx.
func (a *answer) refusal() httpapi.ErrorBody {
	var e httpapi.ErrorBody
	if a.decode(&e) != nil || e.Code == "" {
		e = httpapi.ErrorBody{Code: payd.CodeInternal, Description: "the operator API answered " + http.StatusText(a.status)}
	}
	return e
}

// call serves method and path (with its query) of the operator API, with
// body as its JSON when not nil, as the signed-in member.
func (q *req) call(method, path string, body any) *answer {
	var raw []byte
	if body != nil {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			return &answer{status: http.StatusInternalServerError, header: http.Header{}}
		}
	}
	r, err := http.NewRequestWithContext(operator.AsStaff(q.ctx, q.actor()), method, path, bytes.NewReader(raw))
	if err != nil {
		return &answer{status: http.StatusBadRequest, header: http.Header{}}
	}
	r.RemoteAddr = q.r.RemoteAddr
	if body != nil {
		r.Header.Set("Content-Type", "application/json")
	}
	rec := &httpapi.Recorder{}
	q.h.api.ServeHTTP(rec, r)
	return &answer{status: cmp.Or(rec.Status, http.StatusOK), header: rec.Header(), body: rec.Body.Bytes()}
}

// get reads path into v; on a refusal it renders the refusal's page and
// returns false.
func (q *req) get(path string, v any) bool {
	a := q.call(http.MethodGet, path, nil)
	if !a.ok() {
		q.refused(a)
		return false
	}
	if err := a.decode(v); err != nil {
		q.h.log.Error("office: read", "path", path, "err", err.Error())
		q.problem(http.StatusBadGateway, q.l.T("Something went wrong; try again."))
		return false
	}
	return true
}

// change posts a form's change to the API and answers the browser: back
// to done with a notice, "proposed" when the change waits for a second
// person (202), or the refusal's page, which changed nothing.
func (q *req) change(method, path string, body any, done string) {
	a := q.call(method, path, body)
	switch {
	case a.status == http.StatusAccepted:
		q.redirect(done, "proposed")
	case a.ok():
		q.redirect(done, "done")
	default:
		q.refused(a)
	}
}

// listPage is a cursor page of an operator list.
type listPage struct {
	Items      []map[string]any `json:"items"`
	NextCursor *string          `json:"next_cursor"`
}

// pageOf reads a cursor page of the API's path with the query out; next
// is the page's own address of the following page ("" on the last), its
// filters kept. An answer that is not 2xx is answered by answered when
// it returns true (a page of its own), else by the refusal's page.
func (q *req) pageOf(path, page string, out url.Values, answered func(*answer) bool) (list listPage, next string, ok bool) {
	a := q.call(http.MethodGet, path+"?"+out.Encode(), nil)
	switch {
	case !a.ok() && answered != nil && answered(a):
		return list, "", false
	case !a.ok():
		q.refused(a)
		return list, "", false
	case a.decode(&list) != nil:
		q.problem(http.StatusBadGateway, q.l.T("Something went wrong; try again."))
		return list, "", false
	}
	if list.NextCursor != nil {
		n := url.Values{}
		for k, v := range out {
			n[k] = v
		}
		n.Del("limit")
		n.Set("cursor", *list.NextCursor)
		next = Prefix + page + "?" + n.Encode()
	}
	return list, next, true
}

// codeTexts say an API refusal's code in the page's language; the API's
// own English description follows it.
var codeTexts = map[payd.ErrorCode]string{
	payd.CodeForbidden:       "Your role does not allow this.",
	payd.CodeNotFound:        "There is no such object.",
	payd.CodeInvalidRequest:  "The form has a value that is not accepted.",
	payd.CodeInvalidState:    "This cannot be done in the object's present state.",
	payd.CodeTooManyRequests: "Too many requests; wait and try again.",
}

// refused renders the page of an API refusal, in the API's status.
func (q *req) refused(a *answer) {
	e := a.refusal()
	text, ok := codeTexts[e.Code]
	switch {
	case a.status == http.StatusServiceUnavailable:
		text = "The service is unavailable for a moment; try again."
	case !ok:
		text = "Not done."
	}
	detail := e.Description
	if e.Parameter != "" {
		detail += " (" + e.Parameter + ")"
	}
	if ra := a.header.Get("Retry-After"); ra != "" {
		q.w.Header().Set("Retry-After", ra)
	}
	q.render(a.status, "problem", "", q.l.T("Not done"), struct{ Message, Detail string }{Message: q.l.T(text), Detail: detail})
}
