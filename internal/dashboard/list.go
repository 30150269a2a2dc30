package dashboard

import (
	"net/url"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/httpapi"
)

// listQuery reads a list page's filters and cursor as the API's list
// does: a cursor is bound to the filters it was made with. keep is the
// query of the filters alone, for the next page's link.
func listQuery(vals url.Values, filters ...string) (lp payd.ListParams, print string, keep url.Values, err error) {
	keep = url.Values{}
	for _, f := range filters {
		if v := vals.Get(f); v != "" {
			keep.Set(f, v)
		}
	}
	q := url.Values{}
	for k, v := range keep {
		q[k] = v
	}
	if c := vals.Get("cursor"); c != "" {
		q.Set("cursor", c)
	}
	lp, print, err = httpapi.ParseList(q, filters...)
	lp.Limit = pageRows
	return lp, print, keep, err
}

// nextPage is the link to the page after one, or "" on the last.
func nextPage(keep url.Values, next *payd.Cursor, print string) string {
	c := httpapi.EncodeCursor(next, print)
	if c == nil {
		return ""
	}
	q := url.Values{}
	for k, v := range keep {
		q[k] = v
	}
	q.Set("cursor", *c)
	return "?" + q.Encode()
}

// listProblem shows a list's refused filter above the list, or fails the
// page on anything else; it reports whether the error was shown.
func listProblem(q *req, err error) (string, bool) {
	if pe := refusal(err); pe != nil {
		if pe.Param != "" {
			return pe.Message + " (" + pe.Param + ")", true
		}
		return pe.Message, true
	}
	q.failed(err)
	return "", false
}
