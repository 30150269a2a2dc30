package dashboard

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/paydhq/payd"
)

// switchedNotice is the ?done= code of a page opened in the shop and mode
// of its object after another shop was selected: its notice names the
// shop (render).
const switchedNotice = "switched_shop"

// failObject answers a page whose object (a payment, refund, dispute or
// payment link) the service did not find in the selected shop and mode.
// An address is shared between colleagues whose selected shops differ,
// so an object of another of the merchant's shops, or of the other mode,
// is opened there: the browser is sent to the same page in the object's
// mode with its shop selected, and the page says so. An object of another
// merchant, or none, stays the page's not_found, which tells nothing of
// it. A user's role is the merchant's, checked before the page ran; only
// reads are sent on, never a form's post.
func (q *req) failObject(id string, err error) {
	if payd.ErrorCodeOf(err) != payd.CodeNotFound || q.r.Method != http.MethodGet {
		q.fail(err)
		return
	}
	at, lerr := q.h.svc.LocateObject(q.ctx, q.user.MerchantID, id)
	if payd.ErrorCodeOf(lerr) == payd.CodeNotFound {
		q.fail(err)
		return
	}
	if lerr != nil {
		q.fail(lerr)
		return
	}
	if picked := q.r.URL.Query().Get("shop"); picked != "" && picked != at.ShopID {
		// The shop picker on an object's page: the user chose another
		// shop, whose list is shown rather than the object again.
		http.Redirect(q.w, q.r, sectionOf(q.r.URL.Path), http.StatusSeeOther)
		return
	}
	if !q.merchantShop(at.ShopID) || (at.ShopID == q.shop.ID && (at.Mode == payd.ModeTest) == q.test) {
		q.fail(err)
		return
	}
	base := Prefix
	if at.Mode == payd.ModeTest {
		base += "test/"
	}
	u := base + strings.TrimPrefix(q.r.URL.Path, q.base()) + "?" +
		url.Values{"shop": {at.ShopID}, "done": {switchedNotice}}.Encode()
	http.Redirect(q.w, q.r, u, http.StatusSeeOther)
}

// merchantShop reports whether id is one of the user's merchant's shops.
func (q *req) merchantShop(id string) bool {
	for _, s := range q.shops {
		if s.ID == id {
			return true
		}
	}
	return false
}

// landing is where a user lands after signing in when the sign-in was not
// on the way to a page of its own (next is the home page): the home of
// the shop and mode of the merchant's most recent payment, where the
// activity is. A merchant without payments lands on the home as it is,
// which shows the last shop selected in this browser, else the first
// shop, in live data (docs/dashboard.md, The first page). A failure to
// find it is no reason to refuse the sign-in: the home it is.
func (h *Handler) landing(ctx context.Context, token, next string) string {
	u, err := url.Parse(next)
	if err != nil || u.Path != Prefix {
		return next
	}
	_, user, err := h.acc.Session(ctx, token)
	if err != nil {
		return next
	}
	shops, err := h.svc.MerchantShops(ctx, user.MerchantID)
	if err != nil || len(shops) == 0 {
		return next
	}
	var ps []*payd.Principal
	for _, s := range shops {
		for _, m := range payd.ModeAll() {
			ps = append(ps, &payd.Principal{Shop: s, Mode: m})
		}
	}
	latest, err := h.svc.ListPaymentsOfShops(ctx, ps, &payd.PaymentListParams{ListParams: payd.ListParams{Limit: 1}})
	if err != nil || len(latest.Items) == 0 {
		return next
	}
	pay, err := latest.Items[0].Payment()
	if err != nil {
		return next
	}
	if pay.Test {
		u.Path = Prefix + "test/"
	}
	vals := u.Query()
	vals.Set("shop", latest.Items[0].ShopID)
	u.RawQuery = vals.Encode()
	return u.String()
}
