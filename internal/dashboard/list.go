package dashboard

import (
	"net/url"
	"slices"
	"strings"

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

// pager is a list page's way to its neighbours: the first (newest) page,
// the page before it (newer) and the page after it (older); each is ""
// where there is none. The contract's cursor only goes on, so a page's
// address carries the cursors of the pages it was reached through
// (query "back", oldest first): the newer page is the last of them, with
// the rest, and the first page is the list without a cursor.
type pager struct {
	First, Newer, Older string
}

// maxBack bounds the trail of cursors a page's address carries, so that
// an address stays short; past it the earliest pages are reached through
// the first page.
const maxBack = 40

// pagesOf is the pager of a list page read with vals (its cursor and
// trail) and keep (its filters); next is the page's next cursor.
func pagesOf(vals, keep url.Values, next *payd.Cursor, print string) pager {
	link := func(cursor string, back []string) string {
		q := url.Values{}
		for k, v := range keep {
			q[k] = v
		}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		if len(back) > 0 {
			q.Set("back", strings.Join(back, "."))
		}
		return "?" + q.Encode()
	}
	var back []string
	if b := vals.Get("back"); b != "" {
		back = strings.Split(b, ".")
	}
	var p pager
	current := vals.Get("cursor")
	if current != "" {
		p.First = link("", nil)
		p.Newer = p.First
		if n := len(back); n > 0 {
			p.Newer = link(back[n-1], back[:n-1])
		}
	}
	if c := httpapi.EncodeCursor(next, print); c != nil {
		trail := back
		if current != "" {
			trail = append(slices.Clip(back), current)
		}
		if len(trail) > maxBack {
			trail = trail[len(trail)-maxBack:]
		}
		p.Older = link(*c, trail)
	}
	return p
}

// listProblem shows a list's refused filter above the list, or fails the
// page on anything else; it reports whether the error was shown.
func listProblem(q *req, err error) (string, bool) {
	if pe := refusal(err); pe != nil {
		if pe.Param != "" {
			return say(q.l, pe) + " (" + pe.Param + ")", true
		}
		return say(q.l, pe), true
	}
	q.failed(err)
	return "", false
}
